"""Data tables shared by the rules tests: the worked examples of positions.md.

Each :class:`PositionCase` is a set-up position (GTP vertices), a colour to move, a list of
moves with whether each is legal, and the exact ball sets after the last move. Used both
against the reference (test_reference_rules.py) and the engine (test_positions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PositionCase:
    name: str
    size: int
    to_move: str  # "W" / "B"
    white: str  # space-separated GTP vertices
    black: str
    moves: tuple[tuple[str, str, bool], ...]  # (colour, vertex, legal?)
    after_white: str | None = None  # balls after the last move (None: unchanged set-up)
    after_black: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    zombies: str | None = None  # expected zombies after the moves (None: not checked)
    buried: str | None = None  # expected buried balls after the moves (None: not checked)
    captured: tuple[int, int] | None = None  # (by White, by Black) after the moves
    why: str = ""  # the rule being shown, with a diagram where it helps


POSITIONS_MD = [
    PositionCase(
        "T1 simple capture at board level", 5, "W", "B1:1", "A1:1",
        (("W", "A2:1", True),), "A2:1 B1:1", "",
    ),
    PositionCase(
        "T2 a stacked ball links the group to a board-level freedom", 4, "W",
        "B2:1 C1:1", "A1:1 B1:1 B1:2 C2:1",
        (("W", "A2:1", True),), "A2:1 B2:1 C1:1", "A1:1 B1:1 B1:2 C2:1",
    ),
    PositionCase(
        "T3 the stacked link leads nowhere: stacked ball captured too", 4, "W",
        "B2:1 C1:1 C2:1", "A1:1 B1:1 B1:2",
        (("W", "A2:1", True),), "A2:1 B2:1 C1:1 C2:1", "",
    ),
    PositionCase(
        "T4 zombie left behind under an enemy ball", 4, "W",
        "B1:2 B2:1 C1:1 C2:1", "A1:1 B1:1",
        (("W", "A2:1", True),), "A2:1 B1:2 B2:1 C1:1 C2:1", "B1:1",
    ),
    PositionCase(
        "T6 over/under cut splits a group; one half is captured", 4, "B",
        "B2:1 C2:1 D1:1 D2:1", "B1:1 B1:2 B2:2 B3:1 C1:1 C3:1",
        (("B", "D3:1", True),), "B2:1 C2:1", "B1:1 B1:2 B2:2 B3:1 C1:1 C3:1 D3:1",
    ),
    PositionCase(
        "T6b a single crossing ball does not cut", 4, "B",
        "B2:1 C2:1 D1:1 D2:1", "B1:1 B1:2 B3:1 C1:1 C3:1",
        (("B", "D3:1", True),), "B2:1 C2:1 D1:1 D2:1", "B1:1 B1:2 B3:1 C1:1 C3:1 D3:1",
    ),
    PositionCase(
        "T10a stacking needs a full 2x2 support", 4, "B", "", "A1:1 A2:1 B1:1",
        (("B", "A1:2", False),),
    ),
    PositionCase(
        "T11 suicide is forbidden", 4, "W", "", "A2:1 B1:1",
        (("W", "A1:1", False),),
    ),
    PositionCase(
        "T12 looks like suicide but captures", 4, "W", "A3:1 B2:1 C1:1", "A2:1 B1:1",
        (("W", "A1:1", True),), "A1:1 A3:1 B2:1 C1:1", "",
    ),
    PositionCase(
        "T14 simple ko: immediate recapture repeats the position", 4, "W",
        "A1:1 B2:1", "B1:1 C2:1 D1:1",
        (("W", "C1:1", True), ("B", "B1:1", False)), "A1:1 B2:1 C1:1", "C2:1 D1:1",
    ),
]


# ---------------------------------------------------------------------------------------
# The 8 symmetries of the square, applied level by level.


def transform(point: tuple[int, int, int], symmetry: int, size: int) -> tuple[int, int, int]:
    """Image of ``(x, y, l)`` under symmetry ``0..7`` of the square: bit 0 mirrors x, bit 1
    mirrors y, bit 2 swaps x and y (applied last). Level ``l`` is a grid of side ``N-l``,
    so a point is mirrored inside its own level's grid; this maps supports to supports."""
    x, y, level = point
    last = size - 1 - level
    if symmetry & 1:
        x = last - x
    if symmetry & 2:
        y = last - y
    if symmetry & 4:
        x, y = y, x
    return (x, y, level)


SYMMETRY_NAMES = ["id", "mirror-x", "mirror-y", "rot180", "transpose", "rot90", "rot270", "anti-transpose"]


# ---------------------------------------------------------------------------------------
# Bridges between the reference's plain tuples/strings and the engine's types. The engine
# is imported lazily so the reference tests run without it.


def engine_rules(options: dict[str, object]):
    """``margo_gtp.engine.Rules`` from §9 names and text values."""
    from margo_gtp.engine import Rules

    return Rules().with_options({name: str(value) for name, value in options.items()})


def engine_colour(colour: str):
    from margo_gtp.engine import Colour

    return Colour.WHITE if colour == "W" else Colour.BLACK


def ref_colour(colour) -> str:
    return colour.letter


def engine_point(point: tuple[int, int, int]):
    from margo_gtp.engine import Point

    return Point(*point)


def ref_point(point) -> tuple[int, int, int]:
    return (point.x, point.y, point.level)


def engine_move(move):
    """Reference move (tuple, "pass", "swap") -> engine Move."""
    from margo_gtp.engine import Move

    if move == "pass":
        return Move.PASS
    if move == "swap":
        return Move.SWAP
    return Move(engine_point(move))


def ref_move(move):
    """Engine Move -> reference move."""
    if move.is_pass:
        return "pass"
    if move.is_swap:
        return "swap"
    return ref_point(move.point)


def engine_board(options: dict[str, object], balls: dict[tuple[int, int, int], str] | None = None,
                 to_move: str | None = None):
    """A fresh engine Board under ``options`` with ``balls`` set up and ``to_move``."""
    from margo_gtp.engine import Board

    board = Board(engine_rules(options))
    if balls or to_move is not None:
        board.setup({engine_point(p): engine_colour(c) for p, c in (balls or {}).items()},
                    to_move=None if to_move is None else engine_colour(to_move))
    return board


def balls_of(board) -> dict[tuple[int, int, int], str]:
    """Engine board -> reference ball dict."""
    return {ref_point(p): ref_colour(c) for p, c in board.balls().items()}


def case_balls(size: int, white: str, black: str) -> dict[tuple[int, int, int], str]:
    import reference_rules as ref

    balls = {p: "W" for p in ref.parse_balls(white, size)}
    balls.update({p: "B" for p in ref.parse_balls(black, size)})
    return balls


# ---------------------------------------------------------------------------------------
# Running a case on either implementation, in any symmetry.


def both(options: dict, white: str = "", black: str = "", to_move: str | None = None):
    """The same position on the engine and on the reference: ``(engine, reference)``."""
    import reference_rules as ref

    size = int(options["size"])
    balls = case_balls(size, white, black)
    engine = engine_board(options, balls, to_move)
    reference = ref.ReferenceBoard(ref.RefRules.from_options(options))
    if balls or to_move:
        reference.setup(balls, to_move)
    return engine, reference


def same_legal_moves(engine, reference) -> list:
    """The engine's legal moves (as reference moves), asserted equal to the reference's."""
    moves = [ref_move(m) for m in engine.legal_moves()]
    assert moves == reference.legal_moves()
    return moves


def _mapped(text: str, size: int, symmetry: int) -> set[tuple[int, int, int]]:
    import reference_rules as ref

    return {transform(p, symmetry, size) for p in ref.parse_balls(text, size)}


def _expected_balls(case: PositionCase, symmetry: int) -> dict[tuple[int, int, int], str]:
    white = case.white if case.after_white is None else case.after_white
    black = case.black if case.after_black is None else case.after_black
    return {transform(p, symmetry, case.size): c for p, c in case_balls(case.size, white, black).items()}


def run_case_on_engine(case: PositionCase, symmetry: int = 0) -> None:
    """Set the case up on the engine (mapped by ``symmetry``), play its moves, check all."""
    import pytest

    import reference_rules as ref
    from margo_gtp.engine import IllegalMoveError

    size = case.size
    start = {transform(p, symmetry, size): c for p, c in case_balls(size, case.white, case.black).items()}
    board = engine_board({"size": size, **case.options}, start, case.to_move)
    for colour, text, legal in case.moves:
        (point,) = ref.parse_balls(text, size)
        move = engine_move(transform(point, symmetry, size))
        picture = f"{case.name}\n{ref.diagram(balls_of(board), size)}"
        assert board.is_legal(move, engine_colour(colour)) is legal, f"{colour} {move.gtp()} legal?\n{picture}"
        if legal:
            board.push(move, engine_colour(colour))
        else:
            before = (balls_of(board), board.to_move, list(board.history), board.zobrist_key)
            with pytest.raises(IllegalMoveError):
                board.push(move, engine_colour(colour))
            assert (balls_of(board), board.to_move, list(board.history), board.zobrist_key) == before
    expected = _expected_balls(case, symmetry)
    got = balls_of(board)
    assert got == expected, f"{case.name}\ngot:\n{ref.diagram(got, size)}\nexpected:\n{ref.diagram(expected, size)}"
    if case.zombies is not None:
        assert {ref_point(p) for p in board.zombies()} == _mapped(case.zombies, size, symmetry), case.name
        assert board.geometry.points_of(board.zombie_mask()) == board.zombies(), case.name  # the mask is the list
    if case.buried is not None:
        assert {ref_point(p) for p in board.buried()} == _mapped(case.buried, size, symmetry), case.name
    if case.captured is not None:
        assert (board.captured[engine_colour("W")], board.captured[engine_colour("B")]) == case.captured


def run_case_on_reference(case: PositionCase, symmetry: int = 0) -> None:
    """The same checks on the reference implementation."""
    import pytest

    import reference_rules as ref

    size = case.size
    board = ref.ReferenceBoard(ref.RefRules.from_options({"size": size, **case.options}))
    board.setup({transform(p, symmetry, size): c for p, c in case_balls(size, case.white, case.black).items()},
                case.to_move)
    for colour, text, legal in case.moves:
        (point,) = ref.parse_balls(text, size)
        point = transform(point, symmetry, size)
        picture = f"{case.name}\n{ref.diagram(board.balls, size)}"
        assert board.is_legal(point, colour) is legal, f"{colour} {ref.vertex(point)} legal?\n{picture}"
        if legal:
            board.play(point, colour)
        else:
            before = dict(board.balls)
            with pytest.raises(ref.ReferenceIllegalMove):
                board.play(point, colour)
            assert board.balls == before
    expected = _expected_balls(case, symmetry)
    assert board.balls == expected, (
        f"{case.name}\ngot:\n{ref.diagram(board.balls, size)}\nexpected:\n{ref.diagram(expected, size)}"
    )
    if case.zombies is not None:
        assert board.zombies() == _mapped(case.zombies, size, symmetry), case.name
    if case.buried is not None:
        assert board.buried() == _mapped(case.buried, size, symmetry), case.name
    if case.captured is not None:
        assert (board.captured["W"], board.captured["B"]) == case.captured, case.name


# ---------------------------------------------------------------------------------------
# Clause cases (test_rules_clauses.py), each against the engine and the reference.

#: A 4-ply cycle (ko_rule tests): the last move recreates the root, White to move::
#:
#:     4 X O O O
#:     3 X X . O
#:     2 X X O O
#:     1 . . X .
#:       A B C D
SUPERKO4_WHITE = "B4:1 C2:1 C4:1 D2:1 D3:1 D4:1"
SUPERKO4_BLACK = "A2:1 A3:1 A4:1 B2:1 B3:1 C1:1"
SUPERKO4_MOVES = (("W", "A1:1", True), ("B", "D1:1", True), ("W", "B1:1", True), ("B", "C1:1", False))

#: A 3-ply cycle (ko_rule=positional): W A1:2, B A3 (takes A2 A1:2), W A2 (takes A3) gives
#: the root board again, but with Black to move::
#:
#:     3 . O .
#:     2 O X X
#:     1 X X X
#:       A B C
POSITIONAL3_WHITE = "A2:1 B3:1"
POSITIONAL3_BLACK = "A1:1 B1:1 B2:1 C1:1 C2:1"

CLAUSE_CASES = [
    PositionCase(
        "R2 four supports of mixed colours hold a ball", 3, "W", "A1:1 B2:1", "B1:1 A2:1",
        (("W", "A1:2", True),), "A1:1 B2:1 A1:2", "B1:1 A2:1",
        why="A1:2 rests on A1 B1 A2 B2: any colours will do. It pins A1, which links up to B2.",
    ),
    PositionCase(
        "R2 level 3 needs all four level-2 supports; R12 a lone stacked ball has no freedom", 4, "W",
        "A1:1 B1:1 C1:1 A2:1 B2:1 C2:1 A3:1 B3:1 C3:1 A1:2 B1:2 A2:2", "",
        (("W", "A1:3", False), ("W", "B2:2", True), ("B", "A1:3", False), ("W", "A1:3", True)),
        "A1:1 B1:1 C1:1 A2:1 B2:1 C2:1 A3:1 B3:1 C3:1 A1:2 B1:2 A2:2 B2:2 A1:3", "",
        buried="B2:1", zombies="",
        why="""A1:3 first lacks B2:2. A black A1:3 on a white pyramid touches no board-level
        point: suicide. White A1:3 buries B2:1 (R3: the point straight above B2:1 is A1:3).""",
    ),
    PositionCase(
        "R8 a buried ball links nothing: A1:2 cannot reach the white chain through B2:1", 4, "W",
        "B2:1 C2:1 C3:1 A1:2 B2:2", "A1:1 B1:1 C1:1 A2:1 A3:1 B3:1 B1:2 A2:2 A1:3",
        (("W", "D4:1", True),),
        "B2:1 C2:1 C3:1 A1:2 B2:2 D4:1", "A1:1 B1:1 C1:1 A2:1 A3:1 B3:1 B1:2 A2:2 A1:3",
        zombies="A1:2", buried="B2:1", captured=(0, 0),
        why="""level 3: A1 X        level 2:  3 . . .     level 1:  4 . . . .
                                       2 X O .               3 X X O .
                                       1 O X .               2 X o O .   (o = B2:1, buried)
                                                             1 X X X .
        White A1:2 rests on the buried B2:1 and touches only black level-2 balls: its
        group has no freedom, A1:3 pins it, so it is a zombie.""",
    ),
    PositionCase(
        "R8 a buried ball cannot be captured and is no zombie", 4, "W",
        "A1:1 B1:1 C1:1 A2:1 C2:1 A3:1 B3:1 C3:1 A1:2 B1:2 A2:2 B2:2 A1:3", "B2:1",
        (("W", "D4:1", True),),
        "A1:1 B1:1 C1:1 A2:1 C2:1 A3:1 B3:1 C3:1 A1:2 B1:2 A2:2 B2:2 A1:3 D4:1", "B2:1",
        zombies="", buried="B2:1", captured=(0, 0),
    ),
    PositionCase(
        "R8 R13 lifting the top reveals a buried ball, taken on the next cascade step", 4, "W",
        "A1:1 B1:1 C1:1 A2:1 C2:1 A3:1 B3:1 C4:1", "B2:1 C3:1 A1:2 B1:2 A2:2 B2:2 A1:3",
        (("W", "D3:1", True),),
        "A1:1 B1:1 C1:1 A2:1 C2:1 A3:1 B3:1 C4:1 D3:1", "",
        zombies="", buried="", captured=(7, 0),
        why="""Black's pyramid hangs on C3 (last freedom D3). W D3: the six balls of the group
        lift top-down; B2:1 was buried (no group), so it is judged only after White's step:
        now uncovered and surrounded, it goes too.""",
    ),
    PositionCase(
        "R9 diagonal neighbours do not touch", 3, "B", "A1:1 B2:1", "B1:1",
        (("B", "A2:1", True),), "B2:1", "B1:1 A2:1", captured=(0, 1),
    ),
    PositionCase(
        "R10 a friendly crossing ball does not cut", 4, "B",
        "B2:1 C2:1 D1:1 D2:1 B2:2", "B1:1 B1:2 B3:1 C1:1 C3:1",
        (("B", "D3:1", True),),
        "B2:1 C2:1 D1:1 D2:1 B2:2", "B1:1 B1:2 B3:1 C1:1 C3:1 D3:1", zombies="", captured=(0, 0),
        why="T6 with B2:2 white: B1:2 (black) and B2:2 (white) cross B2-C2; one is friendly.",
    ),
    PositionCase(
        "R10 an edge contact is never cut", 4, "B",
        "A1:1 A2:1 A3:1 A4:1", "B1:1 B2:1 B3:1 A2:2",
        (("B", "D1:1", True),),
        "A1:1 A2:1 A3:1 A4:1", "B1:1 B2:1 B3:1 A2:2 D1:1", zombies="", captured=(0, 0),
        why="""A2-A3 is crossed by black A2:2 and by a point off the board: not cut, so A1 A2
        keep the freedom B4 through A3 A4 (A1 would otherwise be lifted).""",
    ),
    PositionCase(
        "R10 the cut holds at every level: a level-2 contact cut by two level-3 balls", 5, "B",
        "B2:1 B3:1 E2:1 E3:1 B2:2 C2:2 D2:2",
        "B1:1 C1:1 D1:1 E1:1 C2:1 D2:1 C3:1 D3:1 B4:1 C4:1 D4:1 E4:1 B1:2 C1:2 B3:2 C3:2 B1:3",
        (("B", "B2:3", True),),
        "B2:1 B3:1 B2:2 C2:2",
        "B1:1 C1:1 D1:1 E1:1 C2:1 D2:1 C3:1 D3:1 B4:1 C4:1 D4:1 E4:1 B1:2 C1:2 B3:2 C3:2 B1:3 B2:3",
        zombies="C2:2", captured=(0, 3),
        why="""level 3:  2 . X .        level 2:  4 . . . .      level 1 (board):  5 . . . . .
                   1 . X .                  3 . X X .                        4 . X X X X
                     A B C                  2 . O O O                        3 . O X X O
                                            1 . X X .                        2 . O X X O
                                              A B C D                        1 . X X X X
        B2:3 with B1:3 cuts the level-2 contact B2:2-C2:2. C2:2 D2:2 E2 E3 lose the link
        to White's freedoms A2 A3: D2:2, E2, E3 lift; C2:2 stays pinned (a zombie).""",
    ),
    PositionCase(
        "R10 a zombie crossing ball still cuts (it physically holds a ball)", 4, "W",
        "A2:2 A3:1 A3:2 A4:1 B1:1 B2:2 D2:1 D4:1",
        "A1:1 A1:2 A2:1 A2:3 B2:1 B3:1 B3:2 B4:1 C1:1 C2:1 C3:1 C3:2 C4:1 D3:1",
        (("W", "B1:2", True),),
        "A2:2 A3:1 A3:2 A4:1 B1:1 B1:2 B2:2 D2:1 D4:1",
        "A2:1 A2:3 B2:1 B3:1 B3:2 B4:1 C1:1 C2:1 C3:1 C3:2 C4:1 D3:1",
        captured=(2, 0),
        why="""level 3:  2 X .     level 2:  3 O X X     level 1:  4 O X X O
                   1 . .               2 O O .               3 O X X X
                                       1 X . .               2 X X X O
                                                             1 X O X .
        B2:2 is a white zombie. W B1:2 and B2:2 cross Black's B2-C2 contact: cut. Black's
        A1 A2 B2 A1:2 part loses its link to D3's freedoms; A1:2 and A1 lift (B2, A2 are
        pinned). Were zombie crossing balls ignored, B1:2 would be suicide.""",
    ),
    PositionCase(
        "R12 freedoms only on the plane: an empty supported level-2 point does not count", 4, "W",
        "B2:1 C1:1 C2:1", "A1:1 B1:1 B1:2",
        (("W", "A2:1", True),), "A2:1 B2:1 C1:1 C2:1", "", captured=(3, 0),
        why="After W A2, A1:2 is empty and supported next to B1:2, but it is no freedom.",
    ),
    PositionCase(
        "R13 a freedomless group left over from set-up is taken by the next move anywhere", 4, "B",
        "A1:1", "A2:1 B1:1",
        (("B", "D4:1", True),), "", "A2:1 B1:1 D4:1", captured=(0, 1),
        why="The cascade recomputes every group (R13.3), not only those next to the move.",
    ),
    PositionCase(
        "R13 revealed captures alternate colours: Black's top, then White's released balls", 4, "W",
        "A1:1 A2:2 A3:1 B1:1 B3:1 B4:1 D2:1 D4:1", "A1:2 A2:1 B2:1 C1:1 C3:1",
        (("W", "C2:1", True),),
        "A2:2 A3:1 B3:1 B4:1 C2:1 D2:1 D4:1", "A2:1 B2:1 C1:1 C3:1",
        zombies="", captured=(1, 2),
        why="""level 3: A2 O            level 2:  4 . O . O
          A1 X                            3 O O X .
                                          2 X X . O
                                          1 O O X .
        W C2 takes Black's A1:2 group: A1:2 lifts, A2 B2 stay pinned under A2:2. A1 B1
        (White zombies under A1:2) are released without freedom and go next; then A2 B2
        breathe again through A1 B1.""",
    ),
    PositionCase(
        "R15 zombies released by a capture are taken if they have no freedom", 4, "W",
        "B2:1 C1:2 C2:1 C2:2 C4:1 D1:1 D2:1 D4:1", "A1:1 A2:1 B4:1 C1:1 C3:1 C3:2 D3:1",
        (("W", "B3:1", True),),
        "B2:1 B3:1 C1:2 C2:1 C2:2 D1:1 D2:1", "A1:1 A2:1 B4:1 C1:1 C3:1 D3:1",
        zombies="", captured=(1, 2),
        why="""White's C4 D4 are zombies pinned by black C3:2. W B3 captures C3:2 (C3 D3 stay,
        pinned by C2:2): C4 D4 are released with no freedom and taken by the cascade,
        counted as captured by Black.""",
    ),
    PositionCase(
        "R13.4 virtual-group suicide: capturing only the liftable top leaves zombies around", 4, "W",
        "A1:1 A1:2 A2:1 A3:1 B1:1 B3:2 B4:1 C1:1 C1:2 D1:1 D4:1",
        "A2:2 B1:2 B2:1 B2:2 B3:1 C2:1 C3:1 C4:1 D2:1",
        (("W", "D3:1", False),),
        why="""W D3 fills Black's last freedom; only A2:2 B1:2 B2:2 can be lifted, the rest
        stays pinned, and the zombies C3 D2 still fill every hole next to D3 D4: illegal.""",
    ),
    PositionCase(
        "R14 enemy first: a move without freedom that captures is legal (mirror of T12)", 5, "B",
        "D1:1 E2:1", "C1:1 D2:1 E3:1",
        (("B", "E1:1", True),), "", "C1:1 D2:1 E1:1 E3:1", captured=(0, 2),
    ),
    PositionCase(
        "R16 situational superko: no return to a position four plies back", 4, "W",
        SUPERKO4_WHITE, SUPERKO4_BLACK, SUPERKO4_MOVES,
        SUPERKO4_WHITE + " A1:1 B1:1", "A2:1 A3:1 A4:1 B2:1 B3:1", captured=(2, 0),
        why="""W A1, B D1, W B1 (takes C1 D1); B C1 would take A1 B1 and recreate the root
        with White to move: illegal under situational superko (legal under simple ko).""",
    ),
]


# ---------------------------------------------------------------------------------------
# Option cases (test_rules_options.py): (option, value, case). Every case shows a position
# where that value gives a different result than some other value of the same option.

def _case(prefix: str) -> PositionCase:
    """The one case whose name starts with ``prefix``."""
    (found,) = [case for case in POSITIONS_MD + CLAUSE_CASES if case.name.startswith(prefix)]
    return found


_T6 = _case("T6 ")
_T14 = _case("T14 ")
_LEVEL2_CUT = _case("R10 the cut holds at every level")
_PLANE_ONLY = _case("R12 ")
_RELEASE = _case("R15 ")
_SUPERKO4 = _case("R16 ")


def _variant(case: PositionCase, name: str, options: dict[str, str], **changes) -> PositionCase:
    from dataclasses import replace

    return replace(case, name=name, options={**case.options, **options}, **changes)


_SUPERKO4_BACK_TO_ROOT = dict(moves=SUPERKO4_MOVES[:-1] + (("B", "C1:1", True),), after_white=SUPERKO4_WHITE,
                              after_black=SUPERKO4_BLACK, captured=(2, 2))
_POSITIONAL3 = PositionCase(
    "positional: the root board comes back with the other side to move", 3, "W",
    POSITIONAL3_WHITE, POSITIONAL3_BLACK,
    (("W", "A1:2", True), ("B", "A3:1", True), ("W", "A2:1", True)),
    POSITIONAL3_WHITE, POSITIONAL3_BLACK, captured=(1, 2),
)

#: ko_position: a 9-ply sequence (any colour may play, as GTP ``play`` allows) whose end
#: differs from its root only in the colour of the buried B2:1. W D4 takes Black's cone
#: (A1:3, the level-2 balls, C2:2, D3 and then the uncovered B2:1); B D3 retakes D4; White
#: refills B2:1; Black rebuilds the cone. Root, White to move::
#:
#:     level 3:  A1:3 X     level 2:  3 . O .      level 1:  4 . O X .
#:                                    2 X X X                3 O O X X
#:                                    1 X X .                2 O X O O
#:                                                           1 O O O .
TOP_VIEW_WHITE = "A1:1 A2:1 A3:1 B1:1 B3:1 B3:2 B4:1 C1:1 C2:1 D2:1"
TOP_VIEW_BLACK = "A1:2 A1:3 A2:2 B1:2 B2:1 B2:2 C2:2 C3:1 C4:1 D3:1"
TOP_VIEW_MOVES = (("W", "D4:1", True), ("B", "D3:1", True), ("W", "B2:1", True), ("B", "B2:2", True),
                  ("B", "B1:2", True), ("B", "A2:2", True), ("B", "A1:2", True), ("B", "C2:2", True))
_TOP_VIEW_FULL = PositionCase(
    "ko_position=full: a different buried colour makes a new position", 4, "W", TOP_VIEW_WHITE, TOP_VIEW_BLACK,
    TOP_VIEW_MOVES + (("B", "A1:3", True),),
    TOP_VIEW_WHITE + " B2:1", TOP_VIEW_BLACK.replace("B2:1 ", ""), buried="B2:1", captured=(8, 1),
)
_TOP_VIEW_ONLY = PositionCase(
    "ko_position=top_view: the same view from above repeats the root", 4, "W", TOP_VIEW_WHITE, TOP_VIEW_BLACK,
    TOP_VIEW_MOVES + (("B", "A1:3", False),),
    TOP_VIEW_WHITE + " B2:1", TOP_VIEW_BLACK.replace("B2:1 ", "").replace("A1:3 ", ""), captured=(8, 1),
)

_OPTION_CASES = [
    ("ko_position", "full", _TOP_VIEW_FULL),
    ("ko_position", "top_view", _TOP_VIEW_ONLY),
    ("bridge_cutting", "on", _T6),
    ("bridge_cutting", "off", _variant(_T6, "T6 with bridge_cutting off: nothing is cut", {"bridge_cutting": "off"},
                                      after_white=_T6.white, after_black=_T6.black + " D3:1")),
    ("bridge_cutting", "on", _LEVEL2_CUT),
    ("bridge_cutting", "off", _variant(_LEVEL2_CUT, "level-2 cut with bridge_cutting off", {"bridge_cutting": "off"},
                                      after_white=_LEVEL2_CUT.white, after_black=_LEVEL2_CUT.black + " B2:3",
                                      zombies="", captured=(0, 0))),
    ("all_freedoms", "off", _PLANE_ONLY),
    ("all_freedoms", "on", _variant(_PLANE_ONLY, "all_freedoms: the empty A1:2 keeps B1:2's group", {"all_freedoms": "on"},
                                    after_white="A2:1 B2:1 C1:1 C2:1", after_black=_PLANE_ONLY.black,
                                    captured=(0, 0))),
    ("own_freedomless_group", "capture", _RELEASE),
    ("own_freedomless_group", "illegal", _variant(
        _RELEASE, "own_freedomless_group=illegal: releasing own freedomless zombies is illegal",
        {"own_freedomless_group": "illegal"}, moves=(("W", "B3:1", False),), after_white=None, after_black=None,
        zombies=None, captured=(0, 0))),
    ("ko_rule", "situational", _SUPERKO4),
    ("ko_rule", "positional", _variant(_SUPERKO4, "positional superko also forbids the 4-ply cycle",
                                       {"ko_rule": "positional"})),
    ("ko_rule", "simple", _variant(_SUPERKO4, "simple ko allows the 4-ply cycle", {"ko_rule": "simple"},
                                   **_SUPERKO4_BACK_TO_ROOT)),
    ("ko_rule", "none", _variant(_SUPERKO4, "no ko rule allows the 4-ply cycle", {"ko_rule": "none"},
                                 **_SUPERKO4_BACK_TO_ROOT)),
    ("ko_rule", "simple", _T14),
    ("ko_rule", "none", _variant(_T14, "T14 without ko rule: the recapture is legal", {"ko_rule": "none"},
                                 moves=(("W", "C1:1", True), ("B", "B1:1", True)), after_white=_T14.white,
                                 after_black=_T14.black, captured=(1, 1))),
    ("ko_rule", "situational", _variant(_POSITIONAL3, _POSITIONAL3.name + " (situational: legal)", {})),
    ("ko_rule", "positional", _variant(
        _POSITIONAL3, "positional: the same board with the other side to move is a repetition",
        {"ko_rule": "positional"}, moves=_POSITIONAL3.moves[:-1] + (("W", "A2:1", False),),
        after_white="B3:1", after_black=POSITIONAL3_BLACK + " A3:1", captured=(0, 2))),
]

#: Each case with its option set explicitly (so a default-valued case really runs with it).
OPTION_CASES = [(option, value, _variant(case, case.name, {option: value})) for option, value, case in _OPTION_CASES]
