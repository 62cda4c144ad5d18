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
