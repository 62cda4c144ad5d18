"""Rules clauses R1-R21 as table-driven cases, each against the engine AND the reference.

Position cases (set-up, moves, exact result) live in ``rules_cases.CLAUSE_CASES`` with
diagrams where they help; they run in all 8 symmetries of the square. The clauses that are
not about one position (geometry counts, end of game, scoring, swap, pass, first player)
are tested below with their own small tables.
"""

from __future__ import annotations

import pytest

import reference_rules as ref
from margo_gtp.engine import Colour, IllegalMoveError, Move, Point, Termination
from rules_cases import (
    CLAUSE_CASES, SYMMETRY_NAMES, PositionCase, both, engine_board,
    run_case_on_engine, run_case_on_reference, same_legal_moves,
)

# Every test here runs on both rules cores, but those marked reference_only (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("rules_core")

CASE_IDS = [case.name.split(":")[0][:60] for case in CLAUSE_CASES]


@pytest.mark.parametrize("symmetry", range(8), ids=SYMMETRY_NAMES)
@pytest.mark.parametrize("case", CLAUSE_CASES, ids=CASE_IDS)
def test_clause_case_on_engine(case: PositionCase, symmetry: int) -> None:
    run_case_on_engine(case, symmetry)


@pytest.mark.reference_only
@pytest.mark.parametrize("symmetry", [0, 5], ids=["id", "rot90"])
@pytest.mark.parametrize("case", CLAUSE_CASES, ids=CASE_IDS)
def test_clause_case_on_reference(case: PositionCase, symmetry: int) -> None:
    run_case_on_reference(case, symmetry)


# ---------------------------------------------------------------------------------------
# Clauses that are not about one capture: geometry, turn order, swap, pass, end, scoring.

W, B = Colour.WHITE, Colour.BLACK


@pytest.mark.parametrize("size", range(2, 10))
def test_r1_r5_empty_board_offers_exactly_the_board_plane(size: int) -> None:
    engine, reference = both({"size": size})
    plane = [(x, y, 0) for y in range(size) for x in range(size)]
    assert same_legal_moves(engine, reference) == plane


@pytest.mark.parametrize("size, total", [(2, 5), (3, 14), (4, 30)])
def test_r1_a_full_pyramid_holds_n_n1_2n1_over_6_balls_and_ends_the_game(size: int, total: int) -> None:
    balls = {p: "W" if sum(p) % 2 else "B" for p in ref.all_points(size)}
    engine = engine_board({"size": size}, balls, "W")
    assert len(engine.balls()) == total
    assert engine.legal_moves() == [] and engine.is_game_over()
    assert sum(engine.ball_counts().values()) == total


@pytest.mark.parametrize("size", [1, 20])
def test_r1_board_size_outside_2_to_19_is_refused(size: int) -> None:
    from margo_gtp.engine import Rules, RulesError

    with pytest.raises(RulesError):
        Rules(size=size)


@pytest.mark.parametrize("first, expected", [(None, W), ("white", W), ("black", B)])
def test_r4_first_player_and_alternation(first: str | None, expected: Colour) -> None:
    options = {"size": 4} if first is None else {"size": 4, "first_player": first}
    engine, reference = both(options)
    assert engine.to_move == expected and reference.to_move == expected.letter
    engine.push(Move(Point(0, 0, 0)))
    assert engine.to_move == expected.opponent
    assert engine.history == [(expected, Move(Point(0, 0, 0)))]


def test_r5_an_occupied_point_is_illegal_and_changes_nothing() -> None:
    engine, _ = both({"size": 4}, "B2:1", "", "B")
    key = engine.zobrist_key
    with pytest.raises(IllegalMoveError):
        engine.push(Move(Point(1, 1, 0)))
    assert engine.balls() == {Point(1, 1, 0): W} and engine.to_move == B and engine.zobrist_key == key


def test_r6_no_passing_by_default() -> None:
    engine, reference = both({"size": 4})
    assert Move.PASS not in engine.legal_moves()
    assert not engine.is_legal(Move.PASS)
    with pytest.raises(IllegalMoveError):
        engine.push(Move.PASS)
    assert not reference.is_legal(ref.PASS)


# R7 swap ------------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["white", "black"])
def test_r7_swap_only_on_the_second_turn_board_and_side_to_move_unchanged(first: str) -> None:
    engine, reference = both({"size": 4, "swap": "on", "first_player": first})
    opener = engine.to_move
    assert Move.SWAP not in engine.legal_moves() and not engine.is_legal(Move.SWAP)
    engine.push(Move(Point(1, 1, 0)))
    reference.play((1, 1, 0))
    second = opener.opponent
    assert same_legal_moves(engine, reference)[-1] == ref.SWAP
    assert not engine.is_legal(Move.SWAP, opener)
    balls, key = engine.balls(), engine.zobrist_key
    engine.push(Move.SWAP)
    reference.play(ref.SWAP)
    assert engine.swapped
    assert engine.balls() == balls and engine.to_move == second and engine.zobrist_key == key
    assert engine.history[-1] == (second, Move.SWAP)
    assert ref.SWAP not in same_legal_moves(engine, reference)
    engine.push(Move(Point(0, 0, 0)))
    assert Move.SWAP not in engine.legal_moves()
    engine.pop()
    engine.pop()
    assert not engine.swapped and engine.is_legal(Move.SWAP)


def test_r7_swap_off_by_default() -> None:
    engine, _ = both({"size": 4})
    engine.push(Move(Point(1, 1, 0)))
    assert Move.SWAP not in engine.legal_moves()
    with pytest.raises(IllegalMoveError):
        engine.push(Move.SWAP)


# R17 R18 end and result -----------------------------------------------------------------

#: 2x2, Black to move: A2 and B1 are both suicide, A1:2 is unsupported.
#:     2 . O
#:     1 O .
BLOCKED_2X2 = ("A1:1 B2:1", "")


@pytest.mark.parametrize("komi, winner, result", [(0, W, "W+2"), (-3, B, "B+1"), (-2, None, "0")])
def test_r17_r18_side_to_move_without_legal_move_ends_the_game(komi, winner, result) -> None:
    engine, reference = both({"size": 2, "komi": komi}, *BLOCKED_2X2, "B")
    assert same_legal_moves(engine, reference) == []
    assert engine.is_game_over() and reference.is_over()
    outcome, expected = engine.outcome(), reference.outcome()
    assert outcome.termination is Termination.NO_LEGAL_MOVE and expected.termination == "no_legal_move"
    assert outcome.winner is winner and expected.winner == (None if winner is None else winner.letter)
    assert outcome.result() == result


#: Scoring positions (size 4). BURIED_LINK: white zombie A1:2 and buried white B2:1.
BURIED_LINK = ("B2:1 C2:1 C3:1 A1:2 B2:2", "A1:1 B1:1 C1:1 A2:1 A3:1 B3:1 B1:2 A2:2 A1:3")
#: WALLS: row 2 white, row 3 black, plus white A4 that spoils Black's row 4.
#:     4 O . . .
#:     3 X X X X
#:     2 O O O O
#:     1 . . . .
WALLS = ("A2:1 B2:1 C2:1 D2:1 A4:1", "A3:1 B3:1 C3:1 D3:1")
#: BLOCK: a white 3x3 block in the corner of an otherwise empty 4x4 board.
BLOCK = ("A1:1 B1:1 C1:1 A2:1 B2:1 C2:1 A3:1 B3:1 C3:1", "")

SCORES = [
    # (name, position, scoring, komi, (white, black), why)
    ("balls count zombies and buried", BURIED_LINK, "balls", 0.5, (5.5, 9.0), "R18"),
    ("territory: zombie counts for the other side", BURIED_LINK, "territory", 0, (4.0, 10.0), "R19"),
    ("territory: wall with pyramid closure", WALLS, "territory", 0, (12.0, 4.0), "5 + 4 + 3 level-2 points"),
    ("territory: a 3x3 block owns the whole pyramid", BLOCK, "territory", 0, (30.0, 0.0), "9 + 7 + 9 + 4 + 1"),
    ("territory: komi added to White", WALLS, "territory", -8.5, (3.5, 4.0), "R19"),
]


@pytest.mark.parametrize("name, position, scoring, komi, expected, why", SCORES, ids=[row[0] for row in SCORES])
def test_r18_r19_scores(name, position, scoring, komi, expected, why) -> None:
    engine, reference = both({"size": 4, "scoring": scoring, "komi": komi}, *position, "W")
    assert engine.score() == expected == reference.score(), why


# R20 pass -----------------------------------------------------------------------------------


def test_r20_passing_adds_no_position_and_two_passes_end_with_territory_scoring() -> None:
    engine, reference = both({"size": 4, "allow_pass": "on", "scoring": "balls"}, *WALLS, "W")
    assert same_legal_moves(engine, reference)[-1] == ref.PASS
    balls = engine.balls()
    engine.push(Move.PASS)
    reference.play(ref.PASS)
    assert engine.balls() == balls
    assert engine.to_move == B and not engine.is_game_over()
    engine.push(Move(Point(2, 3, 0)))  # C4: Black's D4 and the point above C3 D3 C4 D4
    reference.play((2, 3, 0))
    for colour in (W, B):
        assert not engine.is_game_over()
        engine.push(Move.PASS)
        reference.play(ref.PASS)
    assert same_legal_moves(engine, reference) == []
    outcome, expected = engine.outcome(), reference.outcome()
    assert outcome.termination is Termination.TWO_PASSES and expected.termination == "two_passes"
    assert (outcome.white_score, outcome.black_score) == (expected.white_score, expected.black_score)
    assert outcome.winner is W and expected.winner == "W"


# R21 first capture ---------------------------------------------------------------------------

FIRST_CAPTURES = [
    # (name, size, white, black, to_move, move, winner)
    ("the capturer wins (T1)", 5, "B1:1", "A1:1", "W", "A2:1", "W"),
    ("revealed captures of both colours: the mover took enemy balls", 4,
     "B2:1 C1:2 C2:1 C2:2 C4:1 D1:1 D2:1 D4:1", "A1:1 A2:1 B4:1 C1:1 C3:1 C3:2 D3:1", "W", "B3:1", "W"),
    ("only the mover's own balls removed: the opponent wins", 4, "A1:1", "A2:1 B1:1", "W", "D4:1", "B"),
]


@pytest.mark.parametrize("name, size, white, black, to_move, move, winner", FIRST_CAPTURES,
                         ids=[row[0] for row in FIRST_CAPTURES])
def test_r21_first_capture_wins(name, size, white, black, to_move, move, winner) -> None:
    engine, reference = both({"size": size, "first_capture_wins": "on"}, white, black, to_move)
    (point,) = ref.parse_balls(move, size)
    assert not engine.is_game_over()
    engine.push(Move(Point(*point)))
    reference.play(point)
    assert same_legal_moves(engine, reference) == []
    outcome, expected = engine.outcome(), reference.outcome()
    assert outcome.termination is Termination.FIRST_CAPTURE and expected.termination == "first_capture"
    assert outcome.winner.letter == winner == expected.winner


def test_r21_off_by_default_play_goes_on_after_a_capture() -> None:
    engine, _ = both({"size": 5}, "B1:1", "A1:1", "W")
    engine.push(Move(Point(0, 1, 0)))
    assert not engine.is_game_over() and engine.legal_moves()
