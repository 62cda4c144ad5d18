"""SPRT and the paired-game statistics of engine testing, as fishtest computes them.

Pure functions over counts, no I/O. The formulas follow fishtest's ``LLRcalc.py`` and
``stat_util.py`` (official-stockfish/fishtest, server/fishtest/stats) so that a result here
reads the same as on fishtest; ``tests/test_sprt.py`` checks them against values that
fishtest's own code prints.

Counts
    *Trinomial* counts are ``[losses, draws, wins]`` of single games. *Pentanomial* counts
    are over game *pairs* (the two games of one opening, colours reversed), by the pair's
    score 0, 1/2, 1, 3/2, 2: ``[LL, LD+DL, LW+DD+WL, DW+WD, WW]``. Everything is from the
    point of view of the first engine (A). A count of 0 is replaced by 0.001 before any
    likelihood is taken (fishtest's ``regularize``), so no estimate is ever infinite.
Elo
    *Logistic* Elo: the expected score ``s`` of an Elo difference ``e`` is
    ``1 / (1 + 10^(-e/400))``. *Normalized* Elo (nElo) divides the score excess by its
    standard deviation: ``nElo = 800/ln(10) * (mu - 1/2) / sigma`` per game, with the
    per-game sigma of a pair taken as ``sqrt(2) * sigma_pair``; it does not depend on the
    draw rate, so it compares across time controls.
SPRT
    H0: Elo = elo0 against H1: Elo = elo1 (logistic). The log-likelihood ratio is the
    *generalized* one (GSPRT): for each hypothesis the multinomial distribution of
    maximum likelihood whose mean score is ``s0`` (``s1``) is found by solving the secular
    equation ``sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0``, and
    ``LLR = N * sum_i p_i log(p1_i / p0_i)``. The test stops when the LLR leaves
    ``[log(beta/(1-alpha)), log((1-beta)/alpha)]``: below accepts H0, above accepts H1.
    Fishtest's dynamic overshoot correction is left out (it only matters for batched
    updates; the referee updates after every game or pair).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from margo_gtp.options import OptionError, PairError, read_decimal, read_pairs, split_items

#: Count put in place of an empty outcome class before taking likelihoods (fishtest's value).
REGULARIZE_EPSILON = 1e-3
#: Normalized Elo per unit of the t-value (fishtest's ``nelo_divided_by_nt``).
NELO_PER_T = 800.0 / math.log(10.0)
#: Largest |elo0|, |elo1| an SPRT takes: beyond it the expected score is within 0.3% of
#: 0 or 1 (and 10**(elo/400) overflows a float near 123,000 Elo).
MAX_SPRT_ELO = 1000.0
#: Smallest alpha/beta: log((1 - beta) / alpha) stays finite (JSON has no Infinity) and a
#: bound of about 21 LLR units is already far beyond any practical test.
MIN_SPRT_ERROR_RATE = 1e-9
_STANDARD_NORMAL = NormalDist()
Z975 = _STANDARD_NORMAL.inv_cdf(0.975)


def logistic_score(elo: float) -> float:
    """Expected score of an engine ``elo`` logistic Elo stronger than its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """Elo difference of a mean score, clamped to [0.001, 0.999] as fishtest does (so the
    answer is finite: about ±1200)."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / score - 1.0)


# ---------------------------------------------------------------------------------------
# Counting


def trinomial_counts(scores: Iterable[float]) -> list[int]:
    """``[losses, draws, wins]`` of per-game scores (1, 1/2, 0)."""
    counts = [0, 0, 0]
    for score in scores:
        counts[_index(score * 2, 2)] += 1
    return counts


def pentanomial_counts(pair_scores: Iterable[float]) -> list[int]:
    """``[LL, LD+DL, LW+DD+WL, DW+WD, WW]`` of per-pair scores (0, 1/2, ..., 2)."""
    counts = [0, 0, 0, 0, 0]
    for score in pair_scores:
        counts[_index(score * 2, 4)] += 1
    return counts


def _index(doubled: float, top: int) -> int:
    index = round(doubled)
    if index != doubled or not 0 <= index <= top:
        raise ValueError(f"not a score of {top // 2} game(s): {doubled / 2!r}")
    return index


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """Number of samples and the empirical distribution of the (regularized) counts, the
    outcome values scaled to [0, 1] (fishtest's ``results_to_pdf``)."""
    if len(counts) not in (3, 5):
        raise ValueError(f"counts must be trinomial (3) or pentanomial (5): {list(counts)!r}")
    regular = [count if count > 0 else REGULARIZE_EPSILON for count in counts]
    total = sum(regular)
    top = len(regular) - 1
    return total, [(index / top, count / total) for index, count in enumerate(regular)]


def _mean_variance(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


# ---------------------------------------------------------------------------------------
# The generalized log-likelihood ratio


def _secular_root(pdf: Sequence[tuple[float, float]]) -> float:
    """The root x of ``sum_i p_i a_i / (1 + x a_i) = 0`` in ``(-1/max a, -1/min a)``.

    The function decreases strictly on that interval (its derivative is
    ``-sum p_i a_i^2 / (1 + x a_i)^2``) and runs from +inf to -inf, so bisection finds
    the root to machine precision."""
    values = [a for a, _ in pdf]
    low, high = -1.0 / max(values), -1.0 / min(values)
    if not low < high:
        raise ValueError("the score lies outside the range of the outcomes")

    def f(x: float) -> float:
        return sum(p * a / (1.0 + x * a) for a, p in pdf)

    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if f(middle) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _mle_with_mean(pdf: Sequence[tuple[float, float]], score: float) -> list[float]:
    """Probabilities of the distribution on the same outcomes that has mean ``score`` and
    is the most likely to have produced ``pdf`` (fishtest's ``MLE_expected``)."""
    shifted = [(a - score, p) for a, p in pdf]
    x = _secular_root(shifted)
    return [p / (1.0 + x * a) for a, p in shifted]


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """Generalized LLR of H1 (Elo = elo1) against H0 (Elo = elo0) for trinomial or
    pentanomial ``counts`` (fishtest's ``LLR_logistic``). 0 when there are no results."""
    if sum(counts) == 0:
        return 0.0
    samples, pdf = _pdf(counts)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    p0, p1 = _mle_with_mean(pdf, s0), _mle_with_mean(pdf, s1)
    return samples * sum(p * (math.log(q1) - math.log(q0)) for (_, p), q0, q1 in zip(pdf, p0, p1))


@dataclass(frozen=True)
class SprtSpec:
    """The hypotheses and error rates of an SPRT (logistic Elo)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> "SprtSpec":
        """``"elo0=0 elo1=5 alpha=0.05 beta=0.05"`` (any subset, spaces or commas between;
        omitted keys take the defaults above, which are fishtest's usual ones)."""
        try:
            texts = read_pairs(split_items(text, ", "), malformed="--sprt takes elo0=X elo1=Y alpha=A beta=B: {item!r}",
                               repeated="--sprt gives {key} twice")
        except PairError as error:
            raise ValueError(str(error)) from None
        values: dict[str, float] = {}
        for key, value in texts.items():
            if key not in ("elo0", "elo1", "alpha", "beta"):
                raise ValueError(f"--sprt takes elo0=X elo1=Y alpha=A beta=B: {key + '=' + value!r}")
            try:
                values[key] = read_decimal(value, f"--sprt {key}", bounds="finite")
            except OptionError as error:
                raise ValueError(str(error)) from None
            if key.startswith("elo") and abs(values[key]) > MAX_SPRT_ELO:
                raise ValueError(f"--sprt {key} must be within -{MAX_SPRT_ELO:g} to +{MAX_SPRT_ELO:g} Elo "
                                 f"(a score of 0.3% to 99.7%): {value!r}")
        spec = cls(**values)
        if not spec.elo0 < spec.elo1:
            raise ValueError(f"--sprt needs elo0 < elo1: elo0={spec.elo0:g} elo1={spec.elo1:g}")
        for name in ("alpha", "beta"):
            rate = getattr(spec, name)
            if not 0 < rate < 0.5:
                raise ValueError(f"--sprt {name} must be between 0 and 0.5: {rate:g}")
            if rate < MIN_SPRT_ERROR_RATE:
                raise ValueError(f"--sprt {name} must be at least {MIN_SPRT_ERROR_RATE:g} "
                                 f"(a smaller error rate puts the bound out of any match's reach): {rate:g}")
        return spec

    @property
    def lower(self) -> float:
        """LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def status(self, counts: Sequence[float]) -> dict[str, object]:
        """``{"llr", "lower", "upper", "result", "elo0", "elo1", "alpha", "beta"}``;
        ``result`` is ``"H0"``, ``"H1"`` or None (go on playing)."""
        llr = llr_logistic(self.elo0, self.elo1, counts)
        result = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return {
            "llr": round(llr, 6), "lower": round(self.lower, 6), "upper": round(self.upper, 6), "result": result,
            "elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
        }


# ---------------------------------------------------------------------------------------
# Estimates


@dataclass(frozen=True)
class PairedEstimate:
    """Elo, its 95% interval, LOS and normalized Elo of trinomial or pentanomial counts."""

    elo: float
    elo_low: float
    elo_high: float
    los: float
    nelo: float
    nelo_margin: float

    @property
    def elo_margin(self) -> float:
        """Half the width of the 95% interval, the ``±`` fishtest prints."""
        return (self.elo_high - self.elo_low) / 2.0

    def as_json(self) -> dict[str, float]:
        return {
            "elo": round(self.elo, 3), "elo_low": round(self.elo_low, 3), "elo_high": round(self.elo_high, 3),
            "elo_margin": round(self.elo_margin, 3), "los": round(self.los, 6),
            "nelo": round(self.nelo, 3), "nelo_margin": round(self.nelo_margin, 3),
        }


def estimate(counts: Sequence[float]) -> PairedEstimate | None:
    """Estimates from trinomial or pentanomial counts (None without any result).

    Elo and LOS as fishtest's ``get_elo``: the per-game mean score ``mu`` and variance
    (a pair's variance divided by 2), the normal interval of ``mu`` mapped to Elo, and
    ``LOS = Phi((mu - 1/2) / (sigma / sqrt(games)))``. Normalized Elo as fishtest's
    result pages: ``t = (mu - 1/2) / sigma`` of the pair (or game) distribution with
    the delta-method interval that uses its skewness and excess kurtosis."""
    if sum(counts) == 0:
        return None
    samples, pdf = _pdf(counts)
    per_sample = len(counts) // 2  # games per sample: 1 (trinomial) or 2 (pairs)
    games = samples * per_sample
    mean, variance = _mean_variance(pdf)  # of the sample score scaled to [0, 1]
    game_variance = variance * per_sample  # per game: Var(pair score / 2) * 2
    stdev = math.sqrt(game_variance)
    spread = Z975 * stdev / math.sqrt(games)
    los = _STANDARD_NORMAL.cdf((mean - 0.5) / (stdev / math.sqrt(games)))
    third = sum(p * (a - mean) ** 3 for a, p in pdf)
    fourth = sum(p * (a - mean) ** 4 for a, p in pdf)
    skewness = third / variance**1.5
    excess_kurtosis = fourth / variance**2 - 3.0
    t = (mean - 0.5) / math.sqrt(variance)
    t_variance = max(1.0 - t * skewness + 0.25 * t * t * (excess_kurtosis + 2.0), 0.0)
    scale = NELO_PER_T / math.sqrt(per_sample)
    return PairedEstimate(
        elo=logistic_elo(mean),
        elo_low=logistic_elo(mean - spread),
        elo_high=logistic_elo(mean + spread),
        los=los,
        nelo=scale * t,
        nelo_margin=scale * Z975 * math.sqrt(t_variance / samples),
    )
