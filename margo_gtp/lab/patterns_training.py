"""Training the learned move patterns (``scripts/train-patterns``): self-play games, the
positions they hold, the fit of the feature gammas, and the held-out move prediction.

* :func:`play_games` plays self-play games of one player spec in this process or in worker
  processes and writes each as a MarGo SGF; :func:`read_games` reads a folder of such
  records (or the SGFs a ``margo-match`` directory holds), refusing anything it cannot use
  with one line naming the file (:class:`TrainingError`).
* :func:`extract` turns the games into training samples: for every placement played, the
  features (:mod:`margo_gtp.players.patterns`, computed by the C search when it is built)
  of every legal placement, and which one was played.
* :func:`fit_mm` fits Coulom's generalized Bradley-Terry model by minorization-maximization
  (Coulom 2007; Hunter 2004) with numpy: one feature group at a time, each gamma
  ``(W_i + 1) / (sum_j C_ij / E_j + 2 / (gamma_i + 1))``, the +1 and +2 being Coulom's
  prior of one virtual win and one virtual loss against a virtual opponent of gamma 1
  (so a rare feature stays near 1 instead of going to 0 or infinity).
* :func:`hit_rates` measures top-1 and top-5 prediction on held-out games, for the model
  and for the search's heuristic priors (``MctsPlayer._prior_rates``) on the same positions.

numpy is needed here only: the engine's use of the weights (:func:`patterns.pattern_rates`)
is plain Python.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from margo_gtp import sgf, workers
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.engine.core import native_state
from margo_gtp.players import native_search
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.patterns import GROUPS, features

from margo_gtp.lab.selfplay import play_game

__all__ = [
    "Samples", "TrainingError", "extract", "fit_mm", "hit_rates", "mixed_scores", "play_games", "read_games",
    "split_games",
]


class TrainingError(Exception):
    """Training data that cannot be used; the message is one line naming the file or folder."""


# ---------------------------------------------------------------------------------------
# Games


@dataclass
class Game:
    """One game record and the text it was read from (for the data digest)."""

    name: str
    record: sgf.SgfRecord
    text: str


def read_games(folder: Path, size: int) -> list[Game]:
    """Every ``*.sgf`` file of ``folder`` (sorted by name), each a MarGo game of ``size``;
    TrainingError naming the folder or the first file that cannot be used."""
    if not folder.is_dir():
        raise TrainingError(f"{folder}: no such directory")
    paths = sorted(folder.glob("*.sgf"))
    if not paths:
        raise TrainingError(f"{folder}: no game records (*.sgf)")
    games = []
    for path in paths:
        try:
            text = sgf.read_file(path)
            record = sgf.loads(text)
            sgf.replay(record)  # every move legal
        except sgf.SgfError as error:
            raise TrainingError(f"{path}: cannot read: {error}") from None
        if record.size != size:
            raise TrainingError(f"{path}: a {record.size}x{record.size} game, the training is on {size}x{size}")
        games.append(Game(path.name, record, text))
    return games


def _play_one(spec: str, size: int, seed: int, number: int, max_moves: int) -> tuple[int, str, int]:
    """Game ``number`` of a run: both colours ``spec``, seeds from ``seed`` and ``number``
    alone (the same games whatever the parallelism). Returns (number, SGF text, plies)."""
    rules = Rules(size=size)
    base = seed * 100_000 + 2 * number
    result = play_game(spec, spec, rules, (base, base + 1), max_moves)
    board = Board(rules)
    for text in result["record"]:
        if text == "resign":
            break
        board.push(Move.from_gtp(text, size))
    record = sgf.record_from_board(board, white_name=spec, black_name=spec,
                                   result=None if result["result"] == "capped" else result["result"])
    return number, sgf.dumps(record), result["moves"]


def play_games(spec: str, size: int, count: int, seed: int, folder: Path, parallel: int = 1,
               max_moves: int = 1000, progress: Callable[[int, int], None] | None = None) -> list[Game]:
    """Play ``count`` self-play games of ``spec`` on ``size``, ``parallel`` at a time in
    worker processes (1: in this process), writing game k to ``folder/game-KKKK.sgf``;
    ``progress(game number, plies)`` after each. Returns them in game order."""
    folder.mkdir(parents=True, exist_ok=True)
    texts: dict[int, str] = {}

    def keep(number: int, text: str, plies: int) -> None:
        (folder / f"game-{number:04d}.sgf").write_text(text, encoding="utf-8")
        texts[number] = text
        if progress is not None:
            progress(number, plies)

    jobs = [(spec, size, seed, number, max_moves) for number in range(count)]
    with contextlib.closing(workers.as_done(_play_one, jobs, parallel)) as games:
        for game in games:
            keep(*game)
    return [Game(f"game-{number:04d}.sgf", sgf.loads(texts[number]), texts[number]) for number in range(count)]


def split_games(count: int, held_out: float, seed: int) -> set[int]:
    """The game numbers held out for the prediction test: a seeded ``held_out`` share of
    ``count`` games, at least one and at most ``count - 1`` (none with one game)."""
    if count < 2:
        return set()
    number = min(count - 1, max(1, round(count * held_out)))
    return set(random.Random(seed).sample(range(count), number))


# ---------------------------------------------------------------------------------------
# Samples


@dataclass
class Samples:
    """Training samples: one row of features per legal placement (candidate), candidates
    of one position consecutive. ``starts[j]`` is position j's first candidate, ``chosen[j]``
    the index of the move played; ``heuristic`` the heuristic prior of each candidate (only
    for the positions of held-out games, else NaN)."""

    features: list = field(default_factory=list)   # numpy int32 (candidates, groups) once finished
    starts: list = field(default_factory=list)
    chosen: list = field(default_factory=list)
    game: list = field(default_factory=list)       # the game of each position
    heuristic: list = field(default_factory=list)


def _features_of(board: Board, colour: Colour, moves: list[Move]):
    import numpy as np

    codes = [board.geometry.index[move.point] for move in moves]
    raw = native_search.pattern_features(board, colour, codes) if native_state(board) is not None else None
    if raw is not None:
        return np.frombuffer(raw, dtype=np.int32).reshape(len(moves), len(GROUPS))
    return np.array(features(board, moves, colour), dtype=np.int32).reshape(len(moves), len(GROUPS))


def extract(games: list[Game], held_out: set[int], seed: int,
            progress: Callable[[int], None] | None = None) -> Samples:
    """The samples of ``games``: every placement played where the mover had two legal
    placements or more (passes and swaps are not patterns). For the games in ``held_out``
    the heuristic priors of the candidates are computed too."""
    import numpy as np

    samples = Samples()
    judge = MctsPlayer(random.Random(seed))
    count = 0
    for number, game in enumerate(games):
        board = Board(game.record.rules)
        for colour, move in game.record.moves:
            if move.point is not None and colour == board.to_move:
                moves = [m for m in board.legal_moves(colour) if m.point is not None]
                if len(moves) > 1 and move in moves:
                    samples.starts.append(count)
                    samples.chosen.append(count + moves.index(move))
                    samples.game.append(number)
                    samples.features.append(_features_of(board, colour, moves))
                    if number in held_out:
                        samples.heuristic.append(np.array(judge._prior_rates(board, moves, int(colour))))
                    else:
                        samples.heuristic.append(np.full(len(moves), np.nan))
                    count += len(moves)
            board.push(move, colour)
        if progress is not None:
            progress(number)
    samples.features = np.concatenate(samples.features) if samples.features else np.zeros((0, len(GROUPS)), np.int32)
    samples.heuristic = np.concatenate(samples.heuristic) if samples.heuristic else np.zeros(0)
    samples.starts = np.array(samples.starts, dtype=np.int64)
    samples.chosen = np.array(samples.chosen, dtype=np.int64)
    samples.game = np.array(samples.game, dtype=np.int64)
    return samples


def _positions_of(starts, total: int):
    """The position index of each of ``total`` candidates."""
    import numpy as np

    marks = np.zeros(total, dtype=np.int64)
    marks[starts[1:]] = 1
    return np.cumsum(marks)


def subset(samples: Samples, positions) -> tuple:
    """(features, starts, chosen) of the chosen positions (a boolean mask over positions)."""
    import numpy as np

    total = len(samples.features)
    position = _positions_of(samples.starts, total)
    keep = positions[position]
    new_index = np.cumsum(keep) - 1
    return samples.features[keep], new_index[samples.starts[positions]], new_index[samples.chosen[positions]], keep


# ---------------------------------------------------------------------------------------
# The fit and the measures


def fit_mm(feature_rows, starts, chosen, iterations: int = 30,
           progress: Callable[[int], None] | None = None) -> list:
    """Coulom's MM fit of one gamma per feature value and group (see the module docstring):
    ``feature_rows`` (candidates x groups), ``starts`` and ``chosen`` as in :class:`Samples`.
    Returns the log gammas of each group (numpy arrays of the group's size)."""
    import numpy as np

    total = len(feature_rows)
    position = _positions_of(starts, total)
    log_gammas = [np.zeros(size) for _, size in GROUPS]
    wins = [np.bincount(feature_rows[chosen, g], minlength=size).astype(float) for g, (_, size) in enumerate(GROUPS)]
    logs = np.zeros(total)
    for sweep in range(iterations):
        for g, (_, size) in enumerate(GROUPS):
            top = np.maximum.reduceat(logs, starts)
            strength = np.exp(logs - top[position])          # 1 for each position's strongest move
            sums = np.add.reduceat(strength, starts)
            values = feature_rows[:, g]
            others = strength / np.exp(log_gammas[g][values])  # C_ij: the strength without gamma_i
            denominator = np.bincount(values, weights=others / sums[position], minlength=size)
            gamma = np.exp(log_gammas[g])
            new = np.log((wins[g] + 1.0) / (denominator + 2.0 / (gamma + 1.0)))
            logs += new[values] - log_gammas[g][values]
            log_gammas[g] = new
        if progress is not None:
            progress(sweep)
    return log_gammas


def log_strengths(log_gammas, feature_rows):
    """Each candidate's log strength: the sum of its features' log gammas."""
    import numpy as np

    logs = np.zeros(len(feature_rows))
    for g in range(len(GROUPS)):
        logs += log_gammas[g][feature_rows[:, g]]
    return logs


def hit_rates(scores, starts, chosen, ks: Iterable[int] = (1, 5)) -> dict[int, float]:
    """The share of positions whose move played is among the top k by ``scores`` (higher
    is better), for each k. Ties are counted as a random order would break them: a move
    tied with e others behind g better ones is in the top k with chance (k - g) / (e + 1),
    clipped to 0..1, so no ranking wins by the order it lists moves in."""
    import numpy as np

    total = len(scores)
    position = _positions_of(starts, total)
    chosen_score = scores[chosen][position]
    better = np.bincount(position, weights=(scores > chosen_score), minlength=len(starts))
    equal = np.bincount(position, weights=(scores == chosen_score), minlength=len(starts))
    return {k: float(np.clip((k - better) / equal, 0.0, 1.0).mean()) if len(starts) else 0.0 for k in ks}


def mixed_scores(log_gammas, feature_rows, starts, heuristic, mix: float, low: float, high: float):
    """The priors the search gives with ``pattern_mix=mix``: ``(1 - mix) * heuristic + mix *
    (low + (high - low) * strength / strongest)`` per candidate (``patterns.pattern_rates``)."""
    import numpy as np

    logs = log_strengths(log_gammas, feature_rows)
    position = _positions_of(starts, len(logs))
    top = np.maximum.reduceat(logs, starts)
    return (1 - mix) * heuristic + mix * (low + (high - low) * np.exp(logs - top[position]))


def gamma_tables(log_gammas, feature_rows) -> list[dict[int, float]]:
    """The gammas to write: of each group, the values seen in ``feature_rows`` (unseen ones
    have gamma 1), to 6 significant digits."""
    import numpy as np

    tables = []
    for g in range(len(GROUPS)):
        seen = np.unique(feature_rows[:, g])
        tables.append({int(value): float(f"{np.exp(log_gammas[g][value]):.6g}") for value in seen})
    return tables
