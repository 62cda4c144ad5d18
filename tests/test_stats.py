"""Statistics against known values and defining invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.match.stats import (
    ELO_PER_NAT,
    RatingsUndefined,
    elo_difference,
    elo_interval,
    expected_score,
    ml_ratings,
    pair_scores,
    summarize_match,
    wilson_interval,
)

# Wilson 95% intervals, computed independently (R: prop.test(x, n, correct=FALSE)$conf.int
# and the published table of Newcombe 1998, method 3), to 4 decimals.
WILSON_CASES = [
    # successes, trials, low, high
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (5, 10, 0.2366, 0.7634),
    (81, 263, 0.2553, 0.3662),
    (60, 100, 0.5020, 0.6906),
    (1, 1, 0.2065, 1.0),
]


@pytest.mark.parametrize("successes, trials, low, high", WILSON_CASES)
def test_wilson_interval_known_values(successes, trials, low, high):
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_of_nothing_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes out of range: 11 of 10"):
        wilson_interval(11, 10)


@pytest.mark.parametrize(
    "fraction, elo",
    [(0.5, 0.0), (0.75, 190.848), (0.6, 70.437), (0.25, -190.848), (10 / 11, 400.0), (1.0, math.inf), (0.0, -math.inf)],
)
def test_elo_difference_known_values(fraction, elo):
    assert elo_difference(fraction) == pytest.approx(elo, abs=1e-3)


@settings(deadline=None)  # about correctness, not time: a slow shared machine must not fail it
@given(st.floats(min_value=-1500, max_value=1500))
def test_expected_score_inverts_elo_difference(diff):
    assert elo_difference(expected_score(diff)) == pytest.approx(diff, abs=1e-6)


def test_elo_interval_cutechess_style():
    # 60 wins, 20 draws, 20 losses: mean 0.7, per-game variance
    # (60*0.09 + 20*0.04 + 20*0.49)/100 = 0.16, sd of mean 0.04, margin 0.0784.
    estimate = elo_interval(60, 20, 20)
    assert estimate.elo == pytest.approx(elo_difference(0.7))
    assert estimate.low == pytest.approx(elo_difference(0.7 - 1.959964 * 0.04), abs=1e-3)
    assert estimate.high == pytest.approx(elo_difference(0.7 + 1.959964 * 0.04), abs=1e-3)
    assert (round(estimate.elo, 1), round(estimate.low, 1), round(estimate.high, 1)) == (147.2, 86.2, 218.3)


def test_elo_interval_of_a_whitewash_is_unbounded_and_null_in_json():
    estimate = elo_interval(5, 0, 0)
    assert estimate.elo == math.inf
    assert estimate.as_json() == {"elo": None, "low": None, "high": None}
    assert elo_interval(0, 4, 0).as_json() == {"elo": 0.0, "low": 0.0, "high": 0.0}


def test_pair_scores_orients_pairs_by_name():
    assert pair_scores([("b", "a", 1.0), ("a", "b", 0.5), ("a", "c", 0.0)]) == {("a", "b"): (2, 0.5), ("a", "c"): (1, 0.0)}


def test_ml_ratings_two_engines_match_the_closed_form():
    # 7 wins of 10: difference 400 log10(7/3) = 147.19; each side half of it.
    # Fisher information of the difference: n p (1-p) = 2.1; sd of each centred rating is
    # half the sd of the difference.
    games = [("x", "y", 1.0)] * 7 + [("x", "y", 0.0)] * 3
    x, y = ml_ratings(["x", "y"], games)
    assert x.elo == pytest.approx(400 * math.log10(7 / 3) / 2, abs=1e-6)
    assert y.elo == pytest.approx(-x.elo, abs=1e-9)
    assert x.stderr == pytest.approx(ELO_PER_NAT / math.sqrt(2.1) / 2, rel=1e-6)
    assert (round(x.elo, 2), round(x.stderr, 2), x.games, x.score) == (73.6, 59.94, 10, 7.0)


def test_ml_ratings_undefined_for_a_perfect_score_unless_a_prior_is_given():
    games = [("x", "y", 1.0)] * 3 + [("y", "z", 0.5)] * 2
    with pytest.raises(RatingsUndefined):
        ml_ratings(["x", "y", "z"], games)
    x, y, z = ml_ratings(["x", "y", "z"], games, prior_draws=1.0)
    assert x.elo > z.elo > y.elo and math.isfinite(x.elo)  # y lost to x, drew with z
    assert x.elo + y.elo + z.elo == pytest.approx(0.0, abs=1e-9)


def _with_a_ring_of_draws(games: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Add a draw between consecutive engines of a ring over those that played: every
    engine then has scored and lost something within one connected group, so the
    maximum-likelihood ratings exist (they do not after a perfect score) and the property
    is checked in every example instead of being skipped."""
    names = sorted({name for a, b, _ in games for name in (a, b)})
    ring = [(names[i], names[(i + 1) % len(names)], 0.5) for i in range(len(names))] if len(names) > 2 else [(names[0], names[1], 0.5)]
    return games + ring


games_strategy = st.lists(
    st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd"), st.sampled_from([0.0, 0.5, 1.0])).filter(lambda g: g[0] != g[1]),
    min_size=1,
    max_size=60,
).map(_with_a_ring_of_draws)


@settings(max_examples=60, deadline=None)
@given(games_strategy)
def test_ml_ratings_fit_expected_scores_to_actual_scores(games):
    names = sorted({name for a, b, _ in games for name in (a, b)})
    ratings = {r.name: r for r in ml_ratings(names, games)}  # defined: see _with_a_ring_of_draws
    # The likelihood equations: each engine's expected score equals its actual score.
    for name in names:
        expected = 0.0
        for a, b, _ in games:
            if name in (a, b):
                other = b if a == name else a
                expected += expected_score(ratings[name].elo - ratings[other].elo)
        assert expected == pytest.approx(ratings[name].score, abs=1e-6)
    assert sum(r.elo for r in ratings.values()) == pytest.approx(0.0, abs=1e-6)


def _record(game, winner, a_colour, reason="no legal move", forfeit=None, moves=()):
    return {"game": game, "winner": winner, "a_colour_final": a_colour, "reason": reason, "forfeit": forfeit, "moves": list(moves)}


def test_summarize_match_counts_per_engine_and_colour():
    moves = [{"engine": "A", "seconds": 0.5}, {"engine": "B", "seconds": 0.25}, {"engine": "A", "seconds": 1.5}]
    records = [
        _record(1, "A", "W", moves=moves),
        _record(2, "A", "B", moves=moves[:1]),
        _record(3, None, "W", reason="adjudicated at max moves"),
        _record(4, "B", "B", reason="forfeit", forfeit={"engine": "A", "reason": "timeout"}),
    ]
    summary = summarize_match(records, {"A": "alpha", "B": "beta"})
    a, b = summary["engines"]["A"], summary["engines"]["B"]
    assert (a["wins"], a["draws"], a["losses"]) == (2, 1, 1)
    assert (b["wins"], b["draws"], b["losses"]) == (1, 1, 2)
    assert a["as_white"] == {"wins": 1, "draws": 1, "losses": 0}
    assert a["as_black"] == {"wins": 1, "draws": 0, "losses": 1}
    assert b["as_black"] == {"wins": 0, "draws": 1, "losses": 1}
    assert a["forfeits"] == {"timeout": 1} and b["forfeits"] == {}
    assert a["seconds_per_move"] == pytest.approx(2.5 / 3) and b["seconds_per_move"] == 0.25
    assert summary["score_a"]["score"] == 2.5 and summary["score_a"]["fraction"] == 0.625
    assert summary["score_a"]["wilson95"] == [round(x, 6) for x in wilson_interval(2.5, 4)]
    assert summary["elo_a_minus_b"]["elo"] == pytest.approx(elo_difference(0.625), abs=1e-6)
    assert summary["mean_game_length"] == 1.0
    assert summary["endings"] == {"adjudicated at max moves": 1, "forfeit": 1, "no legal move": 2}
