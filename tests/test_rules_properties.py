"""Property tests: random legal games, engine against the reference, move by move.

Each example draws a board size and a random set of rule options, then plays uniformly
random legal moves. After every move we check:

* the engine's legal moves equal the reference's brute-force list ("try every empty
  supported point"), in the same order;
* the engine's board after the move equals the reference's board after the same move
  (balls, side to move, captures, zombies, buried balls);
* every ball is supported (R2);
* no group lacks a freedom unless all its balls are zombies (R13/R15; with
  ``own_freedomless_group=illegal`` only the mover's groups are guaranteed);
* no position repeats under the active ``ko_rule``/``ko_position`` (R16);
* at the end, game over and outcome agree with the reference, and ``pop()`` back to the
  root restores every intermediate state exactly (balls, history, Zobrist key, captures,
  side to move).

Small boards (2-4) are played to the end; larger ones for a bounded number of moves.
Examples are derandomized so CI is reproducible; set ``MARGO_PROPERTY_SCALE=10`` for a
longer bug hunt.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference_rules as ref
from rules_cases import balls_of, engine_board, engine_colour, engine_move, ref_colour, ref_move

# Every test here runs on both rules cores (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("rules_core")

SCALE = int(os.environ.get("MARGO_PROPERTY_SCALE", "1"))


def property_settings(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        derandomize=SCALE == 1,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
    )


@st.composite
def rule_options(draw: st.DrawFn, sizes: st.SearchStrategy[int]) -> dict[str, str]:
    """A random §9 option set; each option is left at its default half the time."""
    size = draw(sizes)
    options: dict[str, str] = {"size": str(size)}

    def maybe(name: str, values: list[str]) -> None:
        if draw(st.booleans()):
            options[name] = draw(st.sampled_from(values))

    maybe("first_player", ["white", "black"])
    maybe("swap", ["on", "off"])
    maybe("max_level", [str(level) for level in range(size)])
    maybe("bridge_cutting", ["on", "off"])
    maybe("all_freedoms", ["on", "off"])
    maybe("own_freedomless_group", ["capture", "illegal"])
    maybe("ko_rule", ["situational", "positional", "simple", "none"])
    maybe("ko_position", ["full", "top_view"])
    maybe("scoring", ["balls", "territory"])
    maybe("allow_pass", ["on", "off"])
    maybe("first_capture_wins", ["on", "off"])
    maybe("komi", ["0", "0.5", "-2", "3"])
    return options


def engine_state(board) -> tuple:
    return (
        board.balls(), list(board.history), board.zobrist_key, dict(board.captured), board.to_move,
        board.zombies(), board.buried(),
    )


def check_invariants(board, rules: ref.RefRules, mover: str) -> None:
    balls = balls_of(board)
    picture = ref.diagram(balls, rules.size)
    unsupported = [ref.vertex(p) for p in balls if not ref.is_supported(p, balls)]
    assert not unsupported, f"unsupported balls {unsupported}\n{picture}"
    for group in ref.groups(balls, rules):
        colour = balls[next(iter(group))]
        if rules.own_freedomless_group == "illegal" and colour != mover:
            continue
        if not ref.freedoms(group, balls, rules):
            free = [ref.vertex(p) for p in group if not ref.has_ball_resting_on(p, balls, rules.size)]
            assert not free, f"freedomless group of {colour} with unpinned balls {free}\n{picture}"


def check_no_repetition(keys: list, rules: ref.RefRules) -> None:
    if rules.ko_rule == "none" or len(keys) < 2:
        return
    if rules.ko_rule == "simple":
        assert len(keys) < 3 or keys[-1] != keys[-3], "position of two plies back repeated"
    else:
        assert keys[-1] not in keys[:-1], f"position repeated under {rules.ko_rule} superko"


def play_lockstep(options: dict[str, str], rng: random.Random, max_moves: int, compare_every: int) -> int:
    """Play random legal moves on the engine and the reference together; returns moves played."""
    rules = ref.RefRules.from_options(options)
    engine = engine_board(options)
    reference = ref.ReferenceBoard(rules)
    states = [engine_state(engine)]
    keys = [ref.position_key({}, reference.to_move, rules)]
    played = 0
    while True:
        engine_moves = engine.legal_moves()
        context = f"options {options}, after {[m.gtp() for _, m in engine.history]}\n" + ref.diagram(
            reference.balls, rules.size
        )
        if played % compare_every == 0 or not engine_moves:
            assert [ref_move(m) for m in engine_moves] == reference.legal_moves(), context
        if not engine_moves or played >= max_moves:
            break
        move = rng.choice(engine_moves)
        mover = ref_colour(engine.to_move)
        assert reference.is_legal(ref_move(move)), f"engine allows {move.gtp()}; reference does not\n{context}"
        engine.push(move)
        reference.play(ref_move(move))
        played += 1
        got = balls_of(engine)
        assert got == reference.balls, (
            f"{move.gtp()}: engine board\n{ref.diagram(got, rules.size)}\nreference board\n"
            f"{ref.diagram(reference.balls, rules.size)}\n{context}"
        )
        assert ref_colour(engine.to_move) == reference.to_move, context
        assert {ref_colour(c): n for c, n in engine.captured.items()} == reference.captured, context
        assert {(p.x, p.y, p.level) for p in engine.zombies()} == reference.zombies(), context
        assert {(p.x, p.y, p.level) for p in engine.buried()} == reference.buried(), context
        check_invariants(engine, rules, mover)
        if move.point is not None:
            keys.append(ref.position_key(got, reference.to_move, rules))
            check_no_repetition(keys, rules)
        states.append(engine_state(engine))

    over = not engine.legal_moves()
    assert engine.is_game_over() == reference.is_over() == over, context
    if over:
        outcome, expected = engine.outcome(), reference.outcome()
        assert outcome is not None and expected is not None
        assert outcome.termination.name.lower() == expected.termination, context
        assert (None if outcome.winner is None else ref_colour(outcome.winner)) == expected.winner, context
        assert (outcome.white_score, outcome.black_score) == (expected.white_score, expected.black_score), context
    assert engine.score() == reference.score(), context

    for state in reversed(states[:-1]):
        engine.pop()
        assert engine_state(engine) == state
    return played


@property_settings(40)
@given(options=rule_options(st.integers(2, 4)), rng=st.randoms(use_true_random=False))
def test_small_boards_random_games_to_the_end(options: dict[str, str], rng: random.Random) -> None:
    play_lockstep(options, rng, max_moves=400, compare_every=1)


@property_settings(12)
@given(options=rule_options(st.integers(5, 6)), rng=st.randoms(use_true_random=False))
def test_medium_boards_random_games(options: dict[str, str], rng: random.Random) -> None:
    play_lockstep(options, rng, max_moves=60, compare_every=1)


@property_settings(6)
@given(options=rule_options(st.integers(7, 9)), rng=st.randoms(use_true_random=False))
def test_large_boards_random_openings(options: dict[str, str], rng: random.Random) -> None:
    play_lockstep(options, rng, max_moves=30, compare_every=3)


@property_settings(8)
@given(size=st.integers(2, 9), rng=st.randoms(use_true_random=False))
def test_default_rules_games_end(size: int, rng: random.Random) -> None:
    """R17: with default rules (situational superko, no pass) every random game ends; the
    engine's own invariants are checked on every move (the reference is too slow for whole
    9x9 games), and the final legal-move list is compared."""
    options = {"size": str(size)}
    rules = ref.RefRules.from_options(options)
    engine = engine_board(options)
    keys = [ref.position_key({}, "W", rules)]
    for _ in range(3000):
        moves = engine.legal_moves()
        if not moves:
            break
        mover = ref_colour(engine.to_move)
        engine.push(rng.choice(moves))
        check_invariants(engine, rules, mover)
        keys.append(ref.position_key(balls_of(engine), ref_colour(engine.to_move), rules))
        check_no_repetition(keys, rules)
    assert engine.is_game_over() and engine.legal_moves() == []
    final = ref.ReferenceBoard(rules)
    final.balls = balls_of(engine)
    final.to_move = ref_colour(engine.to_move)
    final.positions = keys
    final.history = [(ref_colour(c), ref_move(m)) for c, m in engine.history]
    assert final.legal_moves() == []
    assert engine.score() == final.score()
    assert engine_colour(final.to_move) == engine.to_move


def random_setup(rng: random.Random, size: int, count: int, stack_bias: float) -> dict:
    """Random balls on supported points (any colours), no captures resolved: this reaches
    stacks, buried balls, zombies and even unsettled freedomless groups that random games
    rarely build."""
    balls: dict = {}
    for _ in range(count):
        candidates = [p for p in ref.all_points(size) if p not in balls and ref.is_supported(p, balls)]
        stacked = [p for p in candidates if p[2] > 0]
        if not candidates:
            break
        point = rng.choice(stacked if stacked and rng.random() < stack_bias else candidates)
        balls[point] = rng.choice("WB")
    return balls


def check_setup(options: dict[str, str], rng: random.Random, fill: float, stack_bias: float,
                sample: int | None) -> None:
    """From a random set-up position, every placement (legal or not; ``sample`` of them if
    given) is judged and resolved exactly as the reference does, and pop() undoes it."""
    rules = ref.RefRules.from_options(options)
    size = rules.size
    balls = random_setup(rng, size, int(fill * size * size * 1.3), stack_bias)
    to_move = rng.choice("WB")
    engine = engine_board(options, balls, to_move)
    reference = ref.ReferenceBoard(rules)
    reference.setup(balls, to_move)
    picture = f"{options}, {to_move} to move\n{ref.diagram(balls, size)}"
    assert [ref_move(m) for m in engine.legal_moves()] == reference.legal_moves(), picture
    before = engine_state(engine)
    candidates = [p for p in ref.all_points(size) if p not in balls and ref.is_supported(p, balls)]
    if sample is not None and len(candidates) > sample:
        candidates = rng.sample(candidates, sample)
    for point in candidates:
        for colour in "WB":
            legal = reference.is_legal(point, colour)
            move = engine_move(point)
            assert engine.is_legal(move, engine_colour(colour)) is legal, f"{colour} {ref.vertex(point)}\n{picture}"
            if not legal:
                continue
            engine.push(move, engine_colour(colour))
            reference.play(point, colour)
            got = balls_of(engine)
            assert got == reference.balls, (
                f"{colour} {ref.vertex(point)}\n{picture}\nengine:\n{ref.diagram(got, size)}\n"
                f"reference:\n{ref.diagram(reference.balls, size)}"
            )
            assert {(p.x, p.y, p.level) for p in engine.zombies()} == reference.zombies(), picture
            assert {ref_colour(c): n for c, n in engine.captured.items()} == reference.captured, picture
            assert engine.is_game_over() == reference.is_over(), picture
            engine.pop()
            reference.undo()
            assert engine_state(engine) == before


@property_settings(60)
@given(options=rule_options(st.integers(3, 5)), rng=st.randoms(use_true_random=False),
       fill=st.floats(0.3, 1.0), stack_bias=st.floats(0.0, 0.9))
def test_random_setups_every_move_resolves_like_the_reference(options, rng, fill, stack_bias) -> None:
    """Random set-ups on 3x3-5x5 (and 2x2 below): every placement checked."""
    check_setup(options, rng, fill, stack_bias, sample=None)


@property_settings(20)
@given(options=rule_options(st.just(2)), rng=st.randoms(use_true_random=False),
       fill=st.floats(0.3, 1.0), stack_bias=st.floats(0.0, 0.9))
def test_random_setups_on_2x2(options, rng, fill, stack_bias) -> None:
    check_setup(options, rng, fill, stack_bias, sample=None)


@property_settings(6)
@given(options=rule_options(st.integers(6, 9)), rng=st.randoms(use_true_random=False),
       fill=st.floats(0.4, 1.0), stack_bias=st.floats(0.2, 0.9))
def test_random_setups_large_boards(options, rng, fill, stack_bias) -> None:
    """Random set-ups on 6x6-9x9, a sample of the placements checked (the reference is slow)."""
    check_setup(options, rng, fill, stack_bias, sample=12)
