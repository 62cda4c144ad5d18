"""The learned move patterns (docs/patterns.md): their features, weights file and use.

* Differential: the C features (``search_patterns.c``) equal the Python reference
  (``patterns.features`` on the Python core) for every legal placement of random positions
  under random rules.
* Property: a position and its image under any of the board's 8 symmetries, with the
  colours swapped (the twin game starts with the other colour), give every move the feature
  tuple of its image move.
* Exact features of hand-made positions: a capture, an escape, a self-atari, symmetric
  corners, distances.
* The weights file: the shipped one loads; a missing, truncated, foreign or mismatched one
  is one line (exact texts), refused at start-up; a board size it was not trained on falls
  back to the heuristic priors with one warning line.
* Use: ``mcts:patterns``/``pattern_mix``/``pattern_weights`` read strictly; the priors are
  the stated mix; the C tree and the Python search build the same tree with patterns on.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Point, Rules, core
from margo_gtp.players import PlayerSpecError, make_player, native_search
from margo_gtp.players.mcts import PRIOR_HIGH, PRIOR_LOW, MctsPlayer
from margo_gtp.players.patterns import (
    FEATURE_SET, GROUPS, SHIPPED_WEIGHTS, SYMMETRIES, PatternWeightsError, features, features_of, load_weights,
    log_strengths, pattern_rates, weights_document,
)

needs_search = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                  reason="native core or native search not built")
NAMES = [name for name, _ in GROUPS]


def random_position(seed: int, size: int, plies: int, rules: Rules | None = None) -> Board:
    rng = random.Random(seed)
    board = Board(rules or Rules(size=size))
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def placements(board: Board) -> list[Move]:
    return [move for move in board.legal_moves() if move.point is not None]


def named(values: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(NAMES, values))


# ---------------------------------------------------------------------------------------
# The features


@needs_search
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=st.sampled_from([2, 3, 4, 5, 7, 9]), plies=st.integers(0, 160),
       bridge_cutting=st.booleans(), all_freedoms=st.booleans(),
       own=st.sampled_from(["capture", "illegal"]))
def test_the_c_features_are_the_python_features(seed, size, plies, bridge_cutting, all_freedoms, own):
    rules = Rules(size=size).with_options({"bridge_cutting": "on" if bridge_cutting else "off",
                                           "all_freedoms": "on" if all_freedoms else "off",
                                           "own_freedomless_group": own})
    board = core.board_on_core(random_position(seed, size, plies, rules), "native")
    moves = placements(board)
    reference = features(core.board_on_core(board, "python"), moves)
    assert features_of(board, moves, board.to_move) == reference
    assert all(0 <= value < count for values in reference for value, (_, count) in zip(values, GROUPS))


def image(point: Point, size: int, symmetry: int) -> Point:
    """``point`` under symmetry k of the board (levels turn with the plane)."""
    side = size - point.level
    a, b = SYMMETRIES[symmetry](2 * point.x - (side - 1), 2 * point.y - (side - 1))
    return Point((a + side - 1) // 2, (b + side - 1) // 2, point.level)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=st.sampled_from([3, 4, 5, 7, 9]), plies=st.integers(0, 120),
       symmetry=st.integers(0, 7))
def test_features_are_the_same_for_a_transformed_colour_swapped_twin(seed, size, plies, symmetry):
    board = random_position(seed, size, plies)
    twin = Board(Rules(size=size).with_options({"first_player": "black"}))
    for colour, move in board.history:
        twin.push(Move(image(move.point, size, symmetry)), colour.opponent)
    assert twin.to_move == board.to_move.opponent
    moves = placements(board)
    twin_moves = [Move(image(move.point, size, symmetry)) for move in moves]
    assert sorted(twin_moves, key=lambda m: m.point) == sorted(placements(twin), key=lambda m: m.point)
    assert features_of(twin, twin_moves, twin.to_move) == features_of(board, moves, board.to_move)
    python_twin = core.board_on_core(twin, "python")
    assert features(python_twin, twin_moves) == features(core.board_on_core(board, "python"), moves)


def setup_board(size: int, white: list[str], black: list[str], to_move: Colour) -> Board:
    board = Board(Rules(size=size))
    balls = {Move.from_gtp(v, size).point: Colour.WHITE for v in white}
    balls.update({Move.from_gtp(v, size).point: Colour.BLACK for v in black})
    board.setup(balls, to_move=to_move)
    return board


def test_a_capture_in_the_corner():
    # Black a1 has one freedom (b1 is White's): White a2 takes it.
    board = setup_board(5, ["b1"], ["a1"], Colour.WHITE)
    found = named(features(board, [Move.from_gtp("a2", 5)])[0])
    assert {k: v for k, v in found.items() if k != "shape"} == {
        "captures": 1, "own_atari": 0, "escape": 0, "atari": 0, "level": 0, "edge": 0, "last": 0, "last2": 0,
        "support": 0, "buries": 0, "opens": 0, "cut": 0, "connect": 0,
        "links": 0,     # a2 and b1 are diagonal: two own groups where there was one
        "splits": 0,    # the enemy lost its one group (clipped at 0)
        "freedoms": 11}  # own freedoms 2 -> 6 (a2: a1 a3 b2; b1: a1 c1 b2), enemy 1 -> 0: +5, stored + 6
    # b2 takes nothing, and a1 was in atari already: no new atari either
    other = named(features(board, [Move.from_gtp("b2", 5)])[0])
    assert (other["captures"], other["atari"], other["opens"], other["edge"]) == (0, 0, 0, 1)


def test_an_escape_and_a_self_atari():
    # White a1 is in atari (b1 Black, a2 empty): a2 escapes, a1-a2 then has a3 and b2.
    board = setup_board(5, ["a1"], ["b1"], Colour.WHITE)
    escape = named(features(board, [Move.from_gtp("a2", 5)])[0])
    assert (escape["escape"], escape["own_atari"], escape["captures"], escape["links"]) == (1, 0, 0, 1)
    # White a2 between Black a3 and b2 has a1 only: a self-atari.
    board = setup_board(5, [], ["a3", "b2", "b1"], Colour.WHITE)
    self_atari = named(features(board, [Move.from_gtp("a2", 5)])[0])
    assert (self_atari["own_atari"], self_atari["escape"], self_atari["atari"]) == (1, 0, 0)


def test_the_shape_is_the_same_for_mirrored_corner_moves():
    board = Board(Rules(size=5))
    corners = [Move.from_gtp(v, 5) for v in ("a1", "e1", "a5", "e5")]
    values = features(board, corners)
    assert len(set(values)) == 1
    centre = named(features(board, [Move.from_gtp("c3", 5)])[0])
    assert centre["shape"] == 0 and centre["edge"] == 2  # all eight neighbours empty: code 0
    assert named(values[0])["shape"] != 0 and named(values[0])["edge"] == 0


def test_distances_to_the_last_two_moves():
    board = Board(Rules(size=9))
    board.push(Move.from_gtp("e5", 9))  # White
    board.push(Move.from_gtp("e7", 9))  # Black: the last move; e5 the one before
    found = named(features(board, [Move.from_gtp("e6", 9)])[0])
    # e6 is next to e7 (dy = 2 half-units: d = 2 + 2 = 4 -> 2) and to e5 (likewise)
    assert (found["last"], found["last2"]) == (2, 2)
    far = named(features(board, [Move.from_gtp("a1", 9)])[0])
    assert (far["last"], far["last2"]) == (10, 10)


def test_a_pass_has_no_features():
    board = Board(Rules(size=5).with_options({"allow_pass": "on"}))
    with pytest.raises(ValueError, match="^a pass has no pattern features$"):
        features(board, [Move.PASS])


# ---------------------------------------------------------------------------------------
# The weights file


def test_the_shipped_weights_load_and_say_how_they_were_made():
    weights = load_weights()
    header = weights.header
    assert (header["format"], header["version"], header["feature_set"]) == ("margo-patterns", 1, FEATURE_SET)
    assert header["board_sizes"] == [9] and header["games"] >= 20
    assert header["command"].startswith("scripts/train-patterns ")
    assert header["data_digest"].startswith("sha256:") and len(header["data_digest"]) == 7 + 64
    assert set(header["held_out"]) == {"positions", "patterns", "heuristic_priors", "mixed"}
    assert weights.path == str(SHIPPED_WEIGHTS)
    assert len(weights.log_gammas) == len(GROUPS) and weights.log_gammas[0]


def write_weights(tmp_path, document, name="weights.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document) if not isinstance(document, str) else document, encoding="utf-8")
    return str(path)


def good_document() -> dict:
    gammas = [{} for _ in GROUPS]
    gammas[NAMES.index("captures")] = {0: 0.5, 1: 8.0}
    return weights_document(gammas, {"board_sizes": [5], "games": 1})


@pytest.mark.parametrize("change, message", [
    (None, "No such file or directory"),
    ("truncated", "not a JSON document (truncated?)"),
    ({"format": "other"}, "not a margo-patterns file"),
    ({"version": 2}, "format version 2, this program reads 1"),
    ({"feature_set": 99}, f"feature set 99, this program computes {FEATURE_SET}"),
    ({"board_sizes": []}, "board_sizes must be a list of sizes 2..19"),
    ({"gammas": {}}, "gammas must hold the groups " + ", ".join(NAMES)),
], ids=["missing", "truncated", "foreign", "version", "feature-set", "sizes", "groups"])
def test_an_unusable_weights_file_is_refused_in_one_line(tmp_path, change, message):
    document = good_document()
    if change is None:
        path = str(tmp_path / "absent.json")
    elif change == "truncated":
        path = write_weights(tmp_path, json.dumps(document)[:40])
    else:
        path = write_weights(tmp_path, {**document, **change})
    with pytest.raises(PatternWeightsError) as error:
        load_weights(path)
    assert str(error.value) == f"pattern weights {path}: {message}"
    # at start-up: the player is not built, with one line naming the file
    with pytest.raises(PlayerSpecError) as refused:
        make_player(f"mcts:patterns=on,pattern_weights={path}")
    assert str(refused.value) == f"player option patterns=on: pattern weights {path}: {message}"


@pytest.mark.parametrize("gammas, message", [
    ({"captures": {"x": 1.0}}, "gammas.captures: no feature 'x'"),
    ({"captures": {"5": 1.0}}, "gammas.captures: no feature '5'"),
    ({"captures": {"1": 0}}, "gammas.captures.1 must be a number > 0"),
    ({"captures": {"1": "big"}}, "gammas.captures.1 must be a number > 0"),
])
def test_a_bad_gamma_is_refused_in_one_line(tmp_path, gammas, message):
    document = good_document()
    document["gammas"].update(gammas)
    path = write_weights(tmp_path, document)
    with pytest.raises(PatternWeightsError) as error:
        load_weights(path)
    assert str(error.value) == f"pattern weights {path}: {message}"


def test_the_engine_refuses_a_broken_weights_file_at_start_up(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    path = write_weights(tmp_path, "{")
    engine = Path(sys.executable).parent / "margo-gtp"
    done = subprocess.run([str(engine), "--player", f"mcts:patterns=on,pattern_weights={path}"],
                          input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"margo-gtp: Invalid value for --player: player option patterns=on: pattern weights {path}: "
                           "not a JSON document (truncated?) (margo-gtp --list-players lists the players, their options and the levels)\n")


def test_another_board_size_falls_back_to_the_heuristic_priors_with_one_warning(tmp_path, capsys):
    path = write_weights(tmp_path, good_document())  # trained on 5x5
    player = MctsPlayer(random.Random(1), patterns=True, pattern_weights=path, pattern_mix=1.0)
    plain = MctsPlayer(random.Random(1))
    board = random_position(3, 7, 10)
    moves = board.legal_moves()
    for _ in range(2):
        assert player._prior_rates(board, moves, int(board.to_move)) == plain._prior_rates(board, moves,
                                                                                             int(board.to_move))
    assert capsys.readouterr().err == (f"mcts: pattern weights {path} were trained on 5x5, not 7x7: "
                                       "heuristic priors only\n")


# ---------------------------------------------------------------------------------------
# Use


@pytest.mark.parametrize("spec, message", [
    ("mcts:patterns=maybe", "player option patterns must be on or off: 'maybe'"),
    ("mcts:pattern_mix=2", "player option pattern_mix must be between 0 and 1: '2'"),
    ("mcts:pattern_mix=x", "player option pattern_mix must be a number: 'x'"),
    ("mcts:pattern_weights=", "player option pattern_weights must be a file name: ''"),
])
def test_the_pattern_options_are_read_strictly(spec, message):
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec)
    assert str(error.value) == message


def test_the_options_reach_the_player():
    player = make_player("mcts:patterns=on,pattern_mix=0.25", 1)
    assert player.patterns is not None and player.pattern_mix == 0.25
    assert make_player("mcts", 1).patterns is None  # off by default until an SPRT decides


@pytest.mark.parametrize("mix", [0.0, 0.3, 1.0])
def test_the_priors_are_the_stated_mix(tmp_path, mix):
    path = write_weights(tmp_path, good_document())
    board = random_position(11, 5, 14)
    moves = board.legal_moves()
    to_move = int(board.to_move)
    player = MctsPlayer(random.Random(1), patterns=True, pattern_weights=path, pattern_mix=mix)
    heuristic = MctsPlayer(random.Random(1))._prior_rates(board, moves, to_move)
    weights = load_weights(path)
    found = pattern_rates(weights, features(board, moves), PRIOR_LOW, PRIOR_HIGH)
    expected = [(1 - mix) * h + mix * p for h, p in zip(heuristic, found)]
    assert player._prior_rates(board, moves, to_move) == expected
    # the pattern rate is PRIOR_HIGH for the strongest move, scaled by strength below it
    strengths = [sum(table.get(v, 0.0) for table, v in zip(weights.log_gammas, values))
                 for values in features(board, moves)]
    assert max(found) == PRIOR_HIGH
    assert found == [PRIOR_LOW + (PRIOR_HIGH - PRIOR_LOW) * math.exp(s - max(strengths)) for s in strengths]


@needs_search
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=st.sampled_from([5, 7, 9]), plies=st.integers(0, 120))
def test_the_c_log_strengths_are_the_python_sums(seed, size, plies):
    from margo_gtp.players import _search

    assert _search.PATTERN_TABLE_SIZE == sum(count for _, count in GROUPS)
    assert _search.PATTERN_GROUPS == len(GROUPS)
    weights = load_weights()
    board = core.board_on_core(random_position(seed, size, plies), "native")
    moves = placements(board)
    index = board.geometry.index
    found = native_search.pattern_log_strengths(board, board.to_move, [index[m.point] for m in moves],
                                                weights.dense_table)
    python_board = core.board_on_core(board, "python")
    assert found == [weights.log_strength(values) for values in features(python_board, moves)]
    assert log_strengths(weights, python_board, moves, board.to_move) == found


@needs_search
@pytest.mark.parametrize("seed", [1, 2])
def test_the_c_tree_is_the_python_tree_with_patterns_on(seed):
    from tests.test_native_search import both_searches

    board = random_position(seed, 9, 30)
    python_tree, c_tree = both_searches(board, 200, seed=seed, patterns=True, pattern_mix=0.5)
    assert c_tree == python_tree
    off_python, _ = both_searches(board, 200, seed=seed)
    assert off_python[1] != python_tree[1]  # the patterns changed the priors


def test_the_priors_are_the_same_on_both_rules_cores(tmp_path):
    """Without the C search (a board on the Python core) the Python features give the
    same priors, float for float."""
    board = random_position(21, 9, 50)
    moves = board.legal_moves()
    rates = []
    for name in ("python", "native") if core.native_available() else ("python",):
        player = MctsPlayer(random.Random(1), patterns=True, pattern_mix=0.6)
        rates.append(player._prior_rates(core.board_on_core(board, name), moves, int(board.to_move)))
    assert rates[0] == rates[-1] and len(set(rates[0])) > 3


@needs_search
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 200), mix=st.sampled_from([0.0, 0.25, 0.6, 1.0]),
       allow_pass=st.booleans(), other_colour=st.booleans())
def test_the_c_tree_s_priors_mix_the_patterns_as_python_does(seed, plies, mix, allow_pass, other_colour):
    """search_prior.c's prior_rates given the pattern table (what the C tree gives its new
    nodes) equals MctsPlayer._prior_rates with patterns on, float for float; a pass keeps
    its heuristic rate."""
    rules = Rules(size=9).with_options({"allow_pass": "on" if allow_pass else "off"})
    board = core.board_on_core(random_position(seed, 9, plies, rules), "native")
    colour = Colour(int(board.to_move) ^ other_colour)
    moves = board.legal_moves(colour)
    if not moves:
        return
    player = MctsPlayer(random.Random(0), patterns=True, pattern_mix=mix)
    priors = player._c_tree_priors(board)
    assert priors.pattern_table is player.patterns.dense_table and priors.pattern_mix == mix
    assert native_search.prior_rates(board, moves, int(colour), priors) == player._prior_rates(board, moves,
                                                                                               int(colour))


def test_the_c_tree_gets_no_patterns_on_a_size_they_were_not_trained_on(capsys):
    player = MctsPlayer(random.Random(0), patterns=True)
    assert player._c_tree_priors(Board(Rules(size=7))).pattern_table is None
    assert capsys.readouterr().err.endswith("were trained on 9x9, not 7x7: heuristic priors only\n")


@needs_search
def test_two_search_threads_share_the_pattern_table():
    """The C tree's threads read the one table of log gammas (no GIL, no copy)."""
    from margo_gtp.players.base import Budget

    board = random_position(4, 9, 20)
    player = MctsPlayer(random.Random(3), patterns=True, threads=2, playouts=400, early_stop=False)
    move = player.select_move(board, board.to_move, Budget())
    assert move in board.legal_moves() and player.last_tree_nodes > 0 and player.last_simulations >= 400
