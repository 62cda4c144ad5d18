"""Match statistics: Wilson intervals, Elo differences, maximum-likelihood Elo ratings.

Pure functions over counts, no I/O. Conventions:

- A *score* counts a win 1, a draw 1/2, a loss 0; a score fraction is score / games.
- Elo difference of a score fraction ``p``: ``400 * log10(p / (1 - p))``; ``+inf``/``-inf``
  at 1 and 0 (:func:`finite_or_none` turns those into JSON ``null``).
- :func:`wilson_interval` is the Wilson score interval of a proportion (draws counted as
  half a success: an approximation with draws, exact without).
- :func:`elo_interval` is the interval cutechess-cli and fishtest report: the normal
  approximation of the mean per-game score with its trinomial variance, mapped to Elo.
- :func:`ml_ratings` fits a Bradley-Terry model (draws as half a win each way) by
  maximum likelihood with Hunter's MM algorithm; ratings are centred on a mean of 0 and
  their standard errors come from the inverse Fisher information restricted to centred
  ratings. The maximum-likelihood estimate exists only when no group of engines scored
  nothing against the others; otherwise the caller may add ``prior_draws`` virtual draws
  per engine against a virtual 0-rated opponent (what BayesElo calls a prior), which keeps
  every rating finite.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from margo_gtp.match.sprt import estimate, pentanomial_counts, trinomial_counts

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Elo points per natural-log unit of the Bradley-Terry strength.
ELO_PER_NAT = 400.0 / math.log(10.0)


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``successes / trials``; ``(0.0, 1.0)`` for no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes out of range: {successes!r} of {trials!r}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_difference(score_fraction: float) -> float:
    """Elo difference that makes the expected score ``score_fraction`` (±inf at 1 and 0)."""
    if not 0 <= score_fraction <= 1:
        raise ValueError(f"score fraction out of range: {score_fraction!r}")
    if score_fraction == 0:
        return -math.inf
    if score_fraction == 1:
        return math.inf
    return 400.0 * math.log10(score_fraction / (1 - score_fraction))


def expected_score(elo_diff: float) -> float:
    """Expected score of a player rated ``elo_diff`` above the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval (infinite bounds when a side never scored)."""

    elo: float
    low: float
    high: float

    def as_json(self) -> dict[str, float | None]:
        return {"elo": finite_or_none(self.elo), "low": finite_or_none(self.low), "high": finite_or_none(self.high)}


def elo_interval(wins: int, draws: int, losses: int, z: float = Z95) -> EloEstimate:
    """Elo difference of a W/D/L record with the cutechess-cli normal-approximation interval."""
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(0.0, -math.inf, math.inf)
    mean = (wins + 0.5 * draws) / games
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / games
    margin = z * math.sqrt(variance / games)
    clamp = lambda p: min(1.0, max(0.0, p))  # noqa: E731 - a one-line helper
    return EloEstimate(elo_difference(mean), elo_difference(clamp(mean - margin)), elo_difference(clamp(mean + margin)))


def finite_or_none(value: float) -> float | None:
    """``value`` rounded for reports, or None when it is infinite or NaN (JSON has neither)."""
    return round(value, 6) if math.isfinite(value) else None


# ---------------------------------------------------------------------------------------
# Maximum-likelihood ratings (Bradley-Terry, draws as half wins)


@dataclass(frozen=True)
class Rating:
    """One engine's centred Elo rating with its standard error and 95% interval."""

    name: str
    elo: float
    stderr: float
    games: int
    score: float

    @property
    def low(self) -> float:
        return self.elo - Z95 * self.stderr

    @property
    def high(self) -> float:
        return self.elo + Z95 * self.stderr

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "elo": finite_or_none(self.elo),
            "stderr": finite_or_none(self.stderr),
            "low": finite_or_none(self.low),
            "high": finite_or_none(self.high),
            "games": self.games,
            "score": self.score,
        }


class RatingsUndefined(ValueError):
    """Raised when maximum-likelihood ratings do not exist (some group never scored)"""


def pair_scores(games: Iterable[tuple[str, str, float]]) -> dict[tuple[str, str], tuple[int, float]]:
    """``(a, b, score_of_a)`` game results -> ``{(a, b): (games, score_of_a)}`` with a < b."""
    table: dict[tuple[str, str], tuple[int, float]] = {}
    for a, b, score in games:
        if a == b:
            raise ValueError(f"an engine cannot play itself: {a!r}")
        key, mine = ((a, b), score) if a < b else ((b, a), 1.0 - score)
        count, total = table.get(key, (0, 0.0))
        table[key] = (count + 1, total + mine)
    return table


def ml_ratings(
    names: Sequence[str],
    games: Iterable[tuple[str, str, float]],
    prior_draws: float = 0.0,
    tolerance: float = 1e-12,
    max_iterations: int = 100_000,
) -> list[Rating]:
    """Maximum-likelihood Elo ratings of ``names`` from ``(a, b, score_of_a)`` results.

    Ratings are centred (mean 0). Raises :class:`RatingsUndefined` when ``prior_draws`` is
    0 and the estimate does not exist (an engine or a group of engines scored 0 or 100%
    against all the others, or the engines fall into groups that never met).
    """
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    played = [[0] * k for _ in range(k)]
    scored = [[0.0] * k for _ in range(k)]  # scored[i][j]: points i took from j
    for (a, b), (count, score_a) in pair_scores(games).items():
        i, j = index[a], index[b]
        played[i][j] = played[j][i] = count
        scored[i][j], scored[j][i] = score_a, count - score_a
    totals = [sum(row) for row in scored]
    game_counts = [sum(row) for row in played]
    if prior_draws <= 0 and not _strongly_connected(scored):
        raise RatingsUndefined("maximum-likelihood ratings do not exist: some engines never scored against the others")
    strength = [1.0] * k
    for _ in range(max_iterations):
        largest_change = 0.0
        for i in range(k):
            denominator = sum(played[i][j] / (strength[i] + strength[j]) for j in range(k) if played[i][j])
            denominator += prior_draws / (strength[i] + 1.0)
            numerator = totals[i] + prior_draws / 2
            if denominator == 0:
                continue  # an engine that played nothing keeps strength 1 (rating 0)
            updated = numerator / denominator
            largest_change = max(largest_change, abs(math.log(updated / strength[i])))
            strength[i] = updated
        if largest_change < tolerance:
            break
    logs = [math.log(s) for s in strength]
    mean = sum(logs) / k
    theta = [x - mean for x in logs]
    covariance = _centred_covariance(theta, played, prior_draws, [math.log(1.0) - mean] * k)
    return [
        Rating(name, ELO_PER_NAT * theta[i], ELO_PER_NAT * math.sqrt(max(0.0, covariance[i][i])), game_counts[i], totals[i])
        for i, name in enumerate(names)
    ]


def _strongly_connected(scored: Sequence[Sequence[float]]) -> bool:
    """True when every engine reaches every other along 'took points from' edges."""
    k = len(scored)
    if k <= 1:
        return True

    def reach(forward: bool) -> set[int]:
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in range(k):
                edge = scored[i][j] if forward else scored[j][i]
                if j not in seen and edge > 0:
                    seen.add(j)
                    todo.append(j)
        return seen

    return len(reach(True)) == k and len(reach(False)) == k


def _centred_covariance(
    theta: Sequence[float], played: Sequence[Sequence[int]], prior_draws: float, anchor: Sequence[float]
) -> list[list[float]]:
    """Covariance of the centred ratings: P (F + J/k)^-1 P, or P F^-1 P with a prior."""
    k = len(theta)
    fisher = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if i != j and played[i][j]:
                p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
                weight = played[i][j] * p * (1 - p)
                fisher[i][j] -= weight
                fisher[i][i] += weight
        if prior_draws > 0:
            p = 1.0 / (1.0 + math.exp(anchor[i] - theta[i]))
            fisher[i][i] += prior_draws * p * (1 - p)
    if prior_draws <= 0:
        fisher = [[fisher[i][j] + 1.0 / k for j in range(k)] for i in range(k)]
    inverse = _invert(fisher)
    centring = [[(1.0 if i == j else 0.0) - 1.0 / k for j in range(k)] for i in range(k)]
    return _matmul(_matmul(centring, inverse), centring)


def _invert(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse with partial pivoting (matrices here are tiny)."""
    k = len(matrix)
    work = [list(row) + [1.0 if i == j else 0.0 for j in range(k)] for i, row in enumerate(matrix)]
    for column in range(k):
        pivot = max(range(column, k), key=lambda r: abs(work[r][column]))
        if abs(work[pivot][column]) < 1e-300:
            raise RatingsUndefined("singular information matrix: the engines do not form one connected group")
        work[column], work[pivot] = work[pivot], work[column]
        scale = work[column][column]
        work[column] = [x / scale for x in work[column]]
        for row in range(k):
            if row != column and work[row][column] != 0:
                factor = work[row][column]
                work[row] = [x - factor * y for x, y in zip(work[row], work[column])]
    return [row[k:] for row in work]


def _matmul(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> list[list[float]]:
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


# ---------------------------------------------------------------------------------------
# Match summaries from results.jsonl records


def summarize_match(records: Sequence[Mapping[str, object]], names: Mapping[str, str]) -> dict[str, object]:
    """Summary of a two-engine match from its ``results.jsonl`` records.

    ``names`` maps the labels ``"A"``/``"B"`` to display names. The summary holds, per
    engine, W/D/L overall and by colour played (the colour held at the end of the game,
    after any swap), forfeits by reason and mean seconds per move; for engine A, the
    score fraction with its Wilson 95% interval and the Elo difference A - B with its
    interval; the mean game length in moves; counts of each way games ended.
    """
    engines: dict[str, dict[str, object]] = {}
    for label in ("A", "B"):
        engines[label] = {
            "name": names[label],
            "wins": 0, "draws": 0, "losses": 0,
            "as_white": {"wins": 0, "draws": 0, "losses": 0},
            "as_black": {"wins": 0, "draws": 0, "losses": 0},
            "forfeits": {},
            "moves": 0, "thinking_seconds": 0.0,
        }
    endings: dict[str, int] = {}
    total_moves = 0
    for record in records:
        winner = record.get("winner")
        colour_of = {"A": record["a_colour_final"], "B": "B" if record["a_colour_final"] == "W" else "W"}
        for label in ("A", "B"):
            stats = engines[label]
            outcome = "draws" if winner is None else ("wins" if winner == label else "losses")
            stats[outcome] += 1  # type: ignore[operator]
            side = stats["as_white" if colour_of[label] == "W" else "as_black"]
            side[outcome] += 1  # type: ignore[index]
        forfeit = record.get("forfeit")
        if isinstance(forfeit, Mapping):
            loser = engines[str(forfeit["engine"])]["forfeits"]
            loser[str(forfeit["reason"])] = loser.get(str(forfeit["reason"]), 0) + 1  # type: ignore[union-attr,attr-defined]
        ending = str(record.get("reason"))
        endings[ending] = endings.get(ending, 0) + 1
        moves = record.get("moves", [])
        total_moves += len(moves)  # type: ignore[arg-type]
        for move in moves:  # type: ignore[union-attr]
            label = move["engine"]
            engines[label]["moves"] += 1  # type: ignore[operator]
            engines[label]["thinking_seconds"] += move["seconds"]  # type: ignore[operator]
    for stats in engines.values():
        moves_made = stats.pop("moves")
        thinking = stats.pop("thinking_seconds")
        stats["seconds_per_move"] = round(thinking / moves_made, 6) if moves_made else None  # type: ignore[operator]
    games = len(records)
    a = engines["A"]
    score = a["wins"] + 0.5 * a["draws"]  # type: ignore[operator]
    low, high = wilson_interval(score, games)
    return {
        "games": games,
        "engines": engines,
        "score_a": {"score": score, "fraction": round(score / games, 6) if games else None, "wilson95": [round(low, 6), round(high, 6)]},
        "elo_a_minus_b": elo_interval(a["wins"], a["draws"], a["losses"]).as_json(),  # type: ignore[arg-type]
        "mean_game_length": round(total_moves / games, 3) if games else None,
        "endings": dict(sorted(endings.items())),
    }


# ---------------------------------------------------------------------------------------
# Paired-game statistics (fishtest's), from results.jsonl records


def is_game_record(record: object) -> bool:
    """Whether a ``results.jsonl`` value has every field the summaries read, each of the
    right kind (margo-match checks a folder's records with it before playing: a line
    edited by hand, ``{"game": 3, "winner": "Z"}``, stopped the summary with a KeyError)."""
    if not isinstance(record, Mapping):
        return False
    game = record.get("game")
    if not isinstance(game, int) or isinstance(game, bool) or game < 1:
        return False
    if record.get("winner") not in ("A", "B", None) or "winner" not in record:
        return False
    if record.get("a_colour") not in ("W", "B") or record.get("a_colour_final") not in ("W", "B"):
        return False
    if not all(isinstance(record.get(key), str) for key in ("result", "reason", "engine_a", "engine_b")):
        return False
    forfeit = record.get("forfeit")
    if forfeit is not None and not (isinstance(forfeit, Mapping) and forfeit.get("engine") in ("A", "B")):
        return False
    moves = record.get("moves")
    if not isinstance(moves, list):
        return False
    for move in moves:
        if not isinstance(move, Mapping) or move.get("engine") not in ("A", "B"):
            return False
        seconds = move.get("seconds")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not math.isfinite(seconds):
            return False
    return True


def score_of_a(record: Mapping[str, object]) -> float:
    """Engine A's score in one game: 1 win, 1/2 draw, 0 loss."""
    winner = record.get("winner")
    return 0.5 if winner is None else 1.0 if winner == "A" else 0.0


def pair_scores_of_a(records: Sequence[Mapping[str, object]]) -> list[float]:
    """A's score in each *complete* pair: games 2k-1 and 2k play the same opening with the
    colours reversed; a pair with a game missing (not yet played) is left out."""
    by_game = {int(record["game"]): score_of_a(record) for record in records}  # type: ignore[call-overload]
    return [by_game[game] + by_game[game + 1] for game in sorted(by_game) if game % 2 == 1 and game + 1 in by_game]


def match_statistics(records: Sequence[Mapping[str, object]], paired: bool) -> dict[str, object]:
    """Trinomial and pentanomial counts of engine A, and the Elo, LOS and normalized Elo of
    the model in use: pentanomial over complete pairs when the games are ``paired``
    (an opening book: each opening played twice, colours reversed), trinomial otherwise.
    See :mod:`margo_gtp.match.sprt` for the formulas."""
    trinomial = trinomial_counts(score_of_a(record) for record in records)
    pentanomial = pentanomial_counts(pair_scores_of_a(records))
    counts = pentanomial if paired else trinomial
    model = "pentanomial" if paired else "trinomial"
    statistics: dict[str, object] = {
        "model": model, "trinomial": trinomial, "pentanomial": pentanomial, "pairs": sum(pentanomial),
    }
    if sum(1 for count in counts if count) == 1:
        # Every game (or pair) ended the same way: the variance is zero, and fishtest's
        # figures for it (Elo +1199.8, nElo in the thousands) come only from the epsilon
        # that regularizes the empty cells. Like the Elo of a clean sweep, it has no estimate.
        statistics["no_estimate"] = f"every {'pair' if paired else 'game'} ended the same way"
        return statistics
    found = estimate(counts)
    return {**statistics, **(found.as_json() if found is not None else {})}


def model_counts(records: Sequence[Mapping[str, object]], paired: bool) -> list[int]:
    """The counts an SPRT reads: pentanomial (complete pairs) or trinomial."""
    if paired:
        return pentanomial_counts(pair_scores_of_a(records))
    return trinomial_counts(score_of_a(record) for record in records)
