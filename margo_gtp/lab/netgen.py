"""Self-play games that teach the network: each position with the search's visit shares,
the game's result, the final owner of every point and the final score.

One game (:func:`play_game`) is played by one searching player against itself, as
KataGo's self-play does:

* **Playout-cap randomisation** (Wu 2019): a ``full_share`` of the moves get a full
  search of ``visits`` (its visit shares are a policy target); the others a fast one of
  ``fast_visits`` (not a policy target: too shallow to teach from), so the value head
  sees more games for the same time.
* **Opening variety**: the first ``sample_plies`` moves are drawn in proportion to the
  visits, the later ones are the most visited move.

Games are grouped in chunks (:mod:`.netdata`), each seeded by ``(seed, chunk number)``, so
a run that is stopped and started again plays only the missing chunks and the dataset
does not depend on how many processes played it. The player is the ``mcts`` search
(generation 1) or the net-guided ``net`` search (later generations, :mod:`..players.net`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from margo_gtp import files
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.lab.netdata import chunk_path, write_chunk
# final_ownership: the ownership target; it lives beside the features, since the net search
# scores its finished games' ownership the same way
from margo_gtp.players.net_features import FEATURES, final_ownership, global_features, move_index, point_features

__all__ = ["SelfPlaySettings", "check_player", "final_ownership", "play_chunk", "play_game"]


@dataclass(frozen=True)
class SelfPlaySettings:
    size: int = 9
    visits: int = 800          # a full search
    fast_visits: int = 200     # a fast search (playout-cap randomisation)
    full_share: float = 0.25   # share of moves that get a full search
    sample_plies: int = 20     # moves drawn in proportion to visits at the start
    games_per_chunk: int = 4
    player: str = "mcts"       # "mcts", or "net:weights=FILE" for a later generation
    max_moves: int = 0         # 0: four times the points (MarGo games end by themselves)


def _make_player(settings: SelfPlaySettings, seed: int):
    from margo_gtp.players import make_player

    # one thread (the workers are the parallelism); no early stop: a policy target needs every
    # visit it was promised
    spec = settings.player if ":" in settings.player else settings.player + ":threads=1,early_stop=off"
    return make_player(spec, seed)


def check_player(settings: SelfPlaySettings) -> None:
    """Build the player once, before any folder is touched: a bad spec or a damaged weights
    file raises ``PlayerSpecError`` here, not in the first game (a traceback after run.json)."""
    _make_player(settings, 0)


def play_game(settings: SelfPlaySettings, seed: int) -> dict[str, np.ndarray]:
    """One self-play game's positions as the arrays of a chunk (:mod:`.netdata`)."""
    rng = random.Random(seed)
    board = Board(Rules(size=settings.size))
    player = _make_player(settings, rng.randrange(2**31))
    points = board.geometry.count
    max_moves = settings.max_moves or 4 * points
    rows: list[tuple] = []
    while not board.is_game_over() and len(board.history) < max_moves:
        colour = board.to_move
        moves = board.legal_moves(colour)
        full = rng.random() < settings.full_share
        policy = np.zeros(points + 2, np.float32)
        if len(moves) == 1:
            move, full = moves[0], False
        else:
            root = player.search(board, colour, playouts=settings.visits if full else settings.fast_visits)
            children = [child for child in root.children or [] if child.n > 0]
            visits = np.array([child.n for child in children], np.float64)
            for child, n in zip(children, visits):
                policy[move_index(settings.size, child.move)] = n
            policy /= max(policy.sum(), 1.0)
            if len(board.history) < settings.sample_plies:
                move = children[rng.choices(range(len(children)), weights=visits)[0]].move
            else:
                move = children[int(np.argmax(visits))].move
        rows.append((point_features(board, colour), global_features(board, colour), policy, full, int(colour),
                     move_index(settings.size, move), len(board.history)))
        board.push(move, colour)
        player.notify(board, move, colour)
    outcome = board.outcome()
    winner = None if outcome is None else outcome.winner
    if outcome is None:  # capped: the score decides
        white_score, black_score = board.score()
        winner = Colour.WHITE if white_score > black_score else Colour.BLACK if black_score > white_score else None
    owner, white_margin = final_ownership(board)
    n = len(rows)
    packed = np.packbits(np.stack([r[0] for r in rows]), axis=2, bitorder="little") if n else \
        np.zeros((0, FEATURES, (points + 7) // 8), np.uint8)
    colours = np.array([r[4] for r in rows], np.int64)
    sign = np.where(colours == int(Colour.WHITE), 1, -1).astype(np.int8)
    if winner is None:
        value = np.ones(n, np.int8)
    else:
        value = np.where(colours == int(winner), 0, 2).astype(np.int8)
    return {
        "features": packed,
        "globals": np.stack([r[1] for r in rows]) if n else np.zeros((0, 2), np.float32),
        "policy": np.stack([r[2] for r in rows]).astype(np.float16) if n else np.zeros((0, points + 2), np.float16),
        "policy_mask": np.array([r[3] for r in rows], np.uint8),
        "value": value,
        "ownership": (sign[:, None] * owner[None, :]).astype(np.int8),
        "score": (sign * white_margin).astype(np.float32),
        "played": np.array([r[5] for r in rows], np.int16),
        "ply": np.array([r[6] for r in rows], np.int16),
    }


def play_chunk(folder: Path, number: int, settings: SelfPlaySettings, seed: int, header: dict) -> tuple[int, int, float]:
    """Play chunk ``number``'s games and write it; returns (games, positions, seconds)."""
    start = time.perf_counter()
    games = [play_game(settings, seed * 1_000_003 + number * settings.games_per_chunk + k)
             for k in range(settings.games_per_chunk)]
    arrays = {name: np.concatenate([game[name] for game in games]) for name in games[0]}
    write_chunk(chunk_path(folder, number), dict(header, size=settings.size, games=len(games), chunk=number,
                                                 seed=seed), arrays)
    return len(games), len(arrays["value"]), time.perf_counter() - start


def run_selfplay(folder: Path, settings: SelfPlaySettings, chunks: int, seed: int, parallel: int,
                 header: dict, progress=None) -> tuple[int, int]:
    """Play the chunks ``0 .. chunks-1`` of ``folder`` that are missing, ``parallel`` at a
    time in worker processes; ``progress(games, positions, done, total)`` after each.
    Returns the games and positions played now. The caller holds the folder's lock."""
    import multiprocessing

    for leftover in files.leftover_temporaries(folder, "chunk-*.npz"):  # a run killed while writing
        leftover.unlink()
    missing = [number for number in range(chunks) if not chunk_path(folder, number).exists()]
    games = positions = 0
    done = chunks - len(missing)
    if progress is not None:
        progress(0, 0, done, chunks)
    jobs = [(folder, number, settings, seed, header) for number in missing]
    if parallel <= 1:
        results = (play_chunk(*job) for job in jobs)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(parallel)
        results = pool.imap_unordered(_play_chunk_job, jobs)
    try:
        for played, rows, _seconds in results:
            games, positions, done = games + played, positions + rows, done + 1
            if progress is not None:
                progress(games, positions, done, chunks)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return games, positions


def _play_chunk_job(job: tuple) -> tuple[int, int, float]:
    return play_chunk(*job)
