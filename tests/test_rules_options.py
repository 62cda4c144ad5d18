"""Every option value of rules.md §9, each with a position where it changes the result.

Position cases (``rules_cases.OPTION_CASES``) run on the engine in all 8 symmetries and on
the reference; the options that are not about one capture (size, first_player, swap,
max_level, scoring, allow_pass, first_capture_wins, komi) have their own tests below. A
last test checks that the tables cover every value of every option.
"""

from __future__ import annotations

import pytest

import reference_rules as ref
from margo_gtp.engine import Colour, Move, Point, Rules
from rules_cases import (
    OPTION_CASES, SYMMETRY_NAMES, both, engine_board, run_case_on_engine,
    run_case_on_reference, same_legal_moves,
)

# Every test here runs on both rules cores, but those marked reference_only (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("rules_core")

IDS = [f"{option}={value}: {case.name[:50]}" for option, value, case in OPTION_CASES]


@pytest.mark.parametrize("symmetry", range(8), ids=SYMMETRY_NAMES)
@pytest.mark.parametrize("option, value, case", OPTION_CASES, ids=IDS)
def test_option_case_on_engine(option, value, case, symmetry) -> None:
    run_case_on_engine(case, symmetry)


@pytest.mark.reference_only
@pytest.mark.parametrize("option, value, case", OPTION_CASES, ids=IDS)
def test_option_case_on_reference(option, value, case) -> None:
    run_case_on_reference(case, 0)


SIZES = [2, 3, 7, 9, 13, 19]
FIRST_PLAYERS = [("white", Colour.WHITE), ("black", Colour.BLACK)]
SWAPS = [("on", True), ("off", False)]
MAX_LEVELS = [("0", {0}), ("1", {0, 1}), ("2", {0, 1, 2}), ("3", {0, 1, 2})]
SCORINGS = [("balls", (5.0, 4.0)), ("territory", (5.0, 11.0))]
ALLOW_PASSES = [("on", False), ("off", True)]
FIRST_CAPTURES = [("on", True), ("off", False)]
KOMIS = [("0", "W+2"), ("-1.5", "W+0.5"), ("-2", "0"), ("-2.5", "B+0.5")]


@pytest.mark.parametrize("size", SIZES)
def test_size(size: int) -> None:
    board = engine_board({"size": size})
    assert board.size == size and len(board.legal_moves()) == size * size
    assert not board.is_legal(Move(Point(size, 0, 0)))


@pytest.mark.parametrize("value, first", FIRST_PLAYERS)
def test_first_player(value: str, first: Colour) -> None:
    engine, reference = both({"size": 3, "first_player": value})
    assert engine.to_move is first and reference.to_move == first.letter


@pytest.mark.parametrize("value, offered", SWAPS)
def test_swap(value: str, offered: bool) -> None:
    engine, reference = both({"size": 3, "swap": value})
    engine.push(Move(Point(1, 1, 0)))
    reference.play((1, 1, 0))
    assert (ref.SWAP in same_legal_moves(engine, reference)) is offered


#: 4x4, White to move: a white 3x3 block plus D1 D2 and the four level-2 balls over A1-C3,
#: so C1:2 (level 2) and A1:3 (level 3) can be played::
#:
#:     level 2:  2 O O .       level 1:  4 . . . .
#:               1 O O .                 3 O O O .
#:                 A B C                 2 O O O O
#:                                       1 O O O O
STAIRS = ("A1:1 B1:1 C1:1 D1:1 A2:1 B2:1 C2:1 D2:1 A3:1 B3:1 C3:1 A1:2 B1:2 A2:2 B2:2", "")


@pytest.mark.parametrize("value, levels", MAX_LEVELS)
def test_max_level(value: str, levels: set[int]) -> None:
    engine, reference = both({"size": 4, "max_level": value}, *STAIRS, "W")
    assert {move[2] for move in same_legal_moves(engine, reference)} == levels
    assert engine.is_legal(Move(Point(0, 0, 2))) is (2 in levels)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_max_level_top_the_apex_is_never_playable(size: int) -> None:
    """Why max_level=N-1 never differs from N-2: the apex needs the full pyramid below it,
    and then no board-plane point is empty and nothing can be lifted (every ball has
    something resting on it), so the apex ball can never have a freedom."""
    apex = (0, 0, size - 1)
    for colour in "WB":
        balls = {p: colour for p in ref.all_points(size) if p != apex}
        engine = engine_board({"size": size}, balls, colour)
        assert engine.legal_moves() == [] and not engine.is_legal(Move(Point(*apex)))
    assert engine_board({"size": size}).rules.options()["max_level"] == size - 1


#: 4x4: White has more balls, Black has the territory (row 4 and the level-2 row above it).
#:     4 . . . .
#:     3 X X X X
#:     2 O . . .
#:     1 O O O O
SCORING = ("A1:1 B1:1 C1:1 D1:1 A2:1", "A3:1 B3:1 C3:1 D3:1")


@pytest.mark.parametrize("value, scores", SCORINGS)
def test_scoring(value: str, scores: tuple[float, float]) -> None:
    engine, reference = both({"size": 4, "scoring": value}, *SCORING, "W")
    assert engine.score() == scores == reference.score()


BLOCKED_2X2 = ("A1:1 B2:1", "")  # Black to move has no legal placement


@pytest.mark.parametrize("value, over", ALLOW_PASSES)
def test_allow_pass(value: str, over: bool) -> None:
    engine, reference = both({"size": 2, "allow_pass": value}, *BLOCKED_2X2, "B")
    assert same_legal_moves(engine, reference) == ([] if over else [ref.PASS])
    assert engine.is_game_over() is over


@pytest.mark.parametrize("value, over", FIRST_CAPTURES)
def test_first_capture_wins(value: str, over: bool) -> None:
    engine, reference = both({"size": 5, "first_capture_wins": value}, "B1:1", "A1:1", "W")
    engine.push(Move(Point(0, 1, 0)))
    reference.play((0, 1, 0))
    assert engine.is_game_over() is over is reference.is_over()


@pytest.mark.parametrize("komi, result", KOMIS)
def test_komi(komi: str, result: str) -> None:
    engine, reference = both({"size": 2, "komi": komi}, *BLOCKED_2X2, "B")
    assert engine.outcome().result() == result
    assert (engine.outcome().white_score, engine.outcome().black_score) == reference.score()


ALL_VALUES = {
    ("size", "2-19"), ("first_player", "white"), ("first_player", "black"), ("swap", "on"), ("swap", "off"),
    ("max_level", "0"), ("max_level", "1"), ("max_level", "2"), ("max_level", "3"),
    ("bridge_cutting", "on"), ("bridge_cutting", "off"), ("all_freedoms", "on"), ("all_freedoms", "off"),
    ("own_freedomless_group", "capture"), ("own_freedomless_group", "illegal"),
    ("ko_rule", "situational"), ("ko_rule", "positional"), ("ko_rule", "simple"), ("ko_rule", "none"),
    ("ko_position", "full"), ("ko_position", "top_view"), ("scoring", "balls"), ("scoring", "territory"),
    ("allow_pass", "on"), ("allow_pass", "off"), ("first_capture_wins", "on"), ("first_capture_wins", "off"),
    ("komi", "float"),
}


def test_every_option_value_has_a_distinguishing_case() -> None:
    """The tables above cover every value of every §9 option (max_level on the 4x4 board)."""
    covered = {(option, value) for option, value, _ in OPTION_CASES}
    covered |= {("size", "2-19")} if min(SIZES) == 2 and max(SIZES) == 19 else set()
    covered |= {("first_player", value) for value, _ in FIRST_PLAYERS}
    covered |= {("swap", value) for value, _ in SWAPS}
    covered |= {("max_level", value) for value, _ in MAX_LEVELS}
    covered |= {("scoring", value) for value, _ in SCORINGS}
    covered |= {("allow_pass", value) for value, _ in ALLOW_PASSES}
    covered |= {("first_capture_wins", value) for value, _ in FIRST_CAPTURES}
    covered |= {("komi", "float")} if len(KOMIS) > 1 else set()
    assert set(Rules().options()) == {option for option, _ in ALL_VALUES}
    missing = ALL_VALUES - covered
    assert not missing, f"option values without a distinguishing case: {sorted(missing)}"


@pytest.mark.parametrize("option, text", [("komi", "\u0665"), ("komi", "1_0"), ("komi", "inf"), ("size", "\u0667"), ("size", "1_0"), ("max_level", "\u0662")])
def test_numbers_are_ascii_decimals(option: str, text: str) -> None:
    from margo_gtp.engine import RulesError

    with pytest.raises(RulesError, match=f"invalid value for {option}"):
        Rules().with_options({option: text})


#: 3x3, one White ball in the middle: the whole plane is White's region (8 points), and
#: the pyramid closure over it adds level 2 (4 points) and the apex (1) - when playable.
#:     3 . . .
#:     2 . O .
#:     1 . . .
@pytest.mark.parametrize("max_level, white", [(None, 1 + 8 + 4 + 1), (2, 1 + 8 + 4 + 1), (1, 1 + 8 + 4), (0, 1 + 8)])
def test_territory_counts_only_playable_levels(max_level: int | None, white: int) -> None:
    """R19: with max_level = m, territory stops at level m (0-based): no ball can stand
    above it, so points there are nobody's."""
    options: dict[str, object] = {"size": 3, "scoring": "territory"}
    if max_level is not None:
        options["max_level"] = max_level
    engine, reference = both(options, "B2:1", "", "B")
    assert engine.score() == (white, 0.0) == reference.score()
