"""SPRT and paired-game statistics against fishtest's own numbers, and their symmetries."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.match.sprt import (
    SprtSpec,
    estimate,
    llr_logistic,
    logistic_elo,
    logistic_score,
    pentanomial_counts,
    trinomial_counts,
)

# Printed by fishtest's own code (official-stockfish/fishtest server/fishtest/stats, with
# scipy): LLRcalc.LLR_logistic(elo0, elo1, counts); stat_util.get_elo(counts) -> Elo, its
# 95% half-width, LOS; normalized Elo and its 95% half-width as the run page computes
# them (t = (mu - 1/2) / sigma with the skewness/kurtosis delta method).
# The first row is fishtest's own SPRT unit-test input.
FISHTEST_CASES = [
    # (elo0, elo1), counts, llr, elo, elo95, los, nelo, nelo95
    ((-3, 1), [10789, 19328, 33806, 19402, 10543], 2.1310678117940807, -0.7735773359165423, 1.2775798957280218, 0.1176588580327751, -0.9516290044726476, 1.5716226767743608),
    ((0, 5), [1187, 7410, 13475, 7378, 1164], -18.877471085770768, -0.4426077992236841, 1.7298590276177421, 0.3080138791226903, -0.7041412082298986, 2.751992394472809),
    ((0, 5), [65804, 56553, 65388], -36.38752444915505, -0.7698390908603271, 1.313742840854298, 0.12537555271611706, -0.9209398978461407, 1.571595431035819),
    ((0, 5), [3, 10, 20, 12, 5], 0.1413963988966249, 20.87120466602867, 50.23605715757104, 0.7944601106383424, 28.559029206879792, 68.3675348664956),
    ((0, 5), [0, 2, 5, 3, 0], 0.04933317717696922, 17.382795147140655, 76.84240344011118, 0.6741438472332125, 35.06410140602564, 154.16966805203032),
    ((-5, 0), [12, 30, 50], 0.8238470782230931, 152.61983699354738, 61.69602466244441, 0.9999999882712763, 202.28007005015607, 89.021550190741),
    ((0, 10), [0, 0, 7], 0.19857628357991308, 1199.8261952903777, 201.74106223929323, 1.0, 12997.806447043331, 332307.4240155306),
]


@pytest.mark.parametrize("bounds, counts, llr, elo, elo95, los, nelo, nelo95", FISHTEST_CASES)
def test_statistics_equal_fishtest(bounds, counts, llr, elo, elo95, los, nelo, nelo95):
    assert llr_logistic(*bounds, counts) == pytest.approx(llr, rel=1e-9, abs=1e-9)
    got = estimate(counts)
    assert got.elo == pytest.approx(elo, rel=1e-9)
    assert got.elo_margin == pytest.approx(elo95, rel=1e-9)
    assert got.los == pytest.approx(los, abs=1e-12)
    assert got.nelo == pytest.approx(nelo, rel=1e-9)
    assert got.nelo_margin == pytest.approx(nelo95, rel=1e-9)


def test_counts_from_scores():
    assert trinomial_counts([1, 0.5, 0.5, 0, 1, 1]) == [1, 2, 3]
    assert pentanomial_counts([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError, match="not a score of 2 game"):
        pentanomial_counts([0.25])
    with pytest.raises(ValueError, match="not a score of 1 game"):
        trinomial_counts([1.5])


def test_logistic_elo_round_trip_and_clamp():
    assert logistic_score(0) == 0.5
    assert logistic_elo(logistic_score(123.0)) == pytest.approx(123.0)
    assert logistic_elo(1.0) == logistic_elo(0.999) == pytest.approx(1199.8262, abs=1e-3)


def test_no_results_means_no_evidence():
    assert llr_logistic(0, 5, [0, 0, 0, 0, 0]) == 0.0
    assert estimate([0, 0, 0]) is None


def test_sprt_spec_parses_bounds_and_decides():
    spec = SprtSpec.parse("elo0=0 elo1=5 alpha=0.05 beta=0.05")
    assert spec == SprtSpec(0.0, 5.0, 0.05, 0.05)
    assert spec.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert spec.upper == pytest.approx(2.944439, abs=1e-6)
    assert SprtSpec.parse("elo1=10, alpha=0.1") == SprtSpec(0.0, 10.0, 0.1, 0.05)
    # 900 games scoring 61% (about +78 Elo) decide for +5 over 0; scoring 39% decides against.
    assert spec.status([200, 300, 400])["result"] == "H1"
    assert spec.status([400, 300, 200])["result"] == "H0"
    undecided = spec.status([10, 20, 10])
    assert undecided["result"] is None and spec.lower < undecided["llr"] < spec.upper
    assert set(undecided) == {"llr", "lower", "upper", "result", "elo0", "elo1", "alpha", "beta"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("elo0=5 elo1=0", "--sprt needs elo0 < elo1: elo0=5 elo1=0"),
        ("elo2=1", "--sprt takes elo0=X elo1=Y alpha=A beta=B: 'elo2=1'"),
        ("elo0", "--sprt takes elo0=X elo1=Y alpha=A beta=B: 'elo0'"),
        ("elo1=x", "--sprt elo1 must be a number: 'x'"),
        ("elo1=nan", "--sprt elo1 must be finite: 'nan'"),
        ("alpha=0.7", "--sprt alpha must be between 0 and 0.5: 0.7"),
        ("beta=0", "--sprt beta must be between 0 and 0.5: 0"),
        ("elo1=3 elo1=4", "--sprt gives elo1 twice"),
    ],
)
def test_sprt_spec_rejects_bad_text(text, message):
    with pytest.raises(ValueError) as error:
        SprtSpec.parse(text)
    assert str(error.value) == message


counts5 = st.lists(st.integers(0, 400), min_size=5, max_size=5).filter(lambda c: sum(c) > 0)
counts3 = st.lists(st.integers(0, 400), min_size=3, max_size=3).filter(lambda c: sum(c) > 0)
bounds = st.tuples(st.floats(-50, 50), st.floats(0.5, 30)).map(lambda t: (t[0], t[0] + t[1]))


@settings(max_examples=80, deadline=None)
@given(st.one_of(counts3, counts5), bounds)
def test_llr_mirrors_when_the_engines_are_exchanged(counts, elo_bounds):
    """Seen from the other engine, every result is reversed and the Elo negated: the
    evidence for elo1 over elo0 is then the evidence against -elo1 ... -elo0."""
    elo0, elo1 = elo_bounds
    mirrored = list(reversed(counts))
    assert llr_logistic(-elo1, -elo0, mirrored) == pytest.approx(-llr_logistic(elo0, elo1, counts), rel=1e-7, abs=1e-7)
    mine, theirs = estimate(counts), estimate(mirrored)
    assert theirs.elo == pytest.approx(-mine.elo, abs=1e-7)
    assert theirs.los == pytest.approx(1 - mine.los, abs=1e-9)
    assert theirs.nelo == pytest.approx(-mine.nelo, abs=1e-7)


@settings(max_examples=80, deadline=None)
@given(counts5, bounds)
def test_llr_is_antisymmetric_in_the_hypotheses(counts, elo_bounds):
    elo0, elo1 = elo_bounds
    assert llr_logistic(elo1, elo0, counts) == pytest.approx(-llr_logistic(elo0, elo1, counts), rel=1e-9, abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 400), min_size=5, max_size=5))
def test_llr_of_the_observed_score_is_positive_against_any_other(counts):
    """The generalized LLR of the observed mean against any other mean is never negative:
    the observed distribution is the unconstrained maximum of the likelihood."""
    observed = estimate(counts).elo
    assert llr_logistic(observed - 7.0, observed, counts) >= -1e-9
    assert llr_logistic(observed + 7.0, observed, counts) >= -1e-9


@pytest.mark.parametrize(
    "text, message",
    [
        ("elo0=-200000 elo1=0", "--sprt elo0 must be within -1000 to +1000 Elo (a score of 0.3% to 99.7%): '-200000'"),
        ("elo0=0 elo1=1e6", "--sprt elo1 must be within -1000 to +1000 Elo (a score of 0.3% to 99.7%): '1e6'"),
        ("alpha=1e-320", "--sprt alpha must be at least 1e-09 (a smaller error rate puts the bound out of any match's reach): 9.99989e-321"),
        ("beta=1e-10", "--sprt beta must be at least 1e-09 (a smaller error rate puts the bound out of any match's reach): 1e-10"),
    ],
)
def test_sprt_spec_rejects_values_whose_bounds_or_scores_overflow(text, message):
    """elo0=-200000 crashed after game 1 (10**500 overflows); alpha=1e-320 gave an
    infinite upper bound, written as Infinity, which is not JSON."""
    with pytest.raises(ValueError) as error:
        SprtSpec.parse(text)
    assert str(error.value) == message


def test_the_extreme_accepted_sprt_has_finite_bounds_and_llr():
    import json

    spec = SprtSpec.parse("elo0=-1000 elo1=1000 alpha=1e-9 beta=1e-9")
    status = spec.status([3, 1, 2])
    json.dumps(status, allow_nan=False)  # finite throughout: valid JSON
    assert status["upper"] == round(math.log((1 - 1e-9) / 1e-9), 6) and status["result"] is None
