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

import contextlib
import random
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from margo_gtp import files, workers
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.game.faults import MAX_MOVES
from margo_gtp.game.loop import adjudicate, end_of
from margo_gtp.game.record import GameRecord
from margo_gtp.match.game_runner import colours_of_game
from margo_gtp.match.results_log import ResultsLog
from margo_gtp.lab.netdata import chunk_path, write_chunk
# final_ownership: the ownership target; it lives beside the features, since the net search
# scores its finished games' ownership the same way
from margo_gtp.players.net_features import FEATURES, final_ownership, global_features, move_index, point_features

__all__ = ["SelfPlaySettings", "check_player", "final_ownership", "game_number", "play_chunk", "play_game",
           "run_selfplay"]


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
    return _self_play(settings, seed, 1)[0]


def _self_play(settings: SelfPlaySettings, seed: int, game: int) -> tuple[dict[str, np.ndarray], dict, str | None]:
    """One self-play game, numbered ``game``: its arrays, and its ``results.jsonl`` line and
    SGF as the referee writes them (the one player is both engines, A holding White in
    odd games)."""
    rng = random.Random(seed)
    rules = Rules(size=settings.size)
    board = Board(rules)
    player = _make_player(settings, rng.randrange(2**31))
    points = board.geometry.count
    max_moves = settings.max_moves or 4 * points
    rows: list[tuple] = []
    colours = colours_of_game(game)
    holder = {colour: label for label, colour in colours.items()}
    played: list[dict] = []
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    while not board.is_game_over() and len(board.history) < max_moves:
        colour = board.to_move
        moves = board.legal_moves(colour)
        full = rng.random() < settings.full_share
        policy = np.zeros(points + 2, np.float32)
        thinking = time.perf_counter()
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
        played.append({"colour": colour.letter, "move": move.gtp(), "engine": holder[colour],
                       "seconds": round(time.perf_counter() - thinking, 6)})
        rows.append((point_features(board, colour), global_features(board, colour), policy, full, int(colour),
                     move_index(settings.size, move), len(board.history)))
        board.push(move, colour)
        player.notify(board, move, colour)
        if move.is_swap:  # the engines exchange colours, as in the referee's loop
            holder = {c: holder[c.opponent] for c in holder}
    outcome = board.outcome()
    record = GameRecord(rules, {"A": settings.player, "B": settings.player}, colours, board, game=game, started=started)
    record.finish(end_of(outcome, played) if outcome is not None else adjudicate(board, played, MAX_MOVES),
                  time.perf_counter() - clock)
    entry, sgf_text = record.results_entry()
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
    }, entry, sgf_text


def game_number(settings: SelfPlaySettings, chunk: int, k: int) -> int:
    """The ``results.jsonl`` number (from 1) of game ``k`` of chunk ``chunk``."""
    return chunk * settings.games_per_chunk + k + 1


def play_chunk(number: int, settings: SelfPlaySettings, seed: int) -> tuple[int, dict[str, np.ndarray], list]:
    """Play chunk ``number``'s games (in a worker): the chunk number, its arrays and each
    game's ``results.jsonl`` line and SGF. The caller writes them (:func:`run_selfplay`)."""
    games = [_self_play(settings, seed * 1_000_003 + number * settings.games_per_chunk + k, game_number(settings, number, k))
             for k in range(settings.games_per_chunk)]
    arrays = {name: np.concatenate([game[0][name] for game in games]) for name in games[0][0]}
    return number, arrays, [(entry, sgf_text) for _, entry, sgf_text in games]


def run_selfplay(folder: Path, settings: SelfPlaySettings, chunks: int, seed: int, parallel: int,
                 header: dict, progress=None) -> tuple[int, int]:
    """Play the chunks ``0 .. chunks-1`` of ``folder`` that are missing, ``parallel`` at a
    time in worker processes (:mod:`margo_gtp.workers`, spawned: a forked ONNX Runtime or
    PyTorch is not safe); ``progress(games, positions, done, total)`` after each. Returns
    the games and positions played now. The caller holds the folder's lock.

    Each game is also a line of ``folder/results.jsonl`` (and ``game-NNNN.sgf``), in the
    referee's format, so the match summary reads a self-play folder as it reads a match.
    This process writes a chunk's game lines first and the chunk after them: a run killed
    in between finds the chunk missing and plays it again (its seeds are its own), and the
    lines already written are kept, not written twice (:meth:`ResultsLog.write_game`); a
    game is never lost, nor counted twice."""
    for pattern in ("chunk-*.npz", "game-*.sgf"):  # a run killed while writing
        for leftover in files.leftover_temporaries(folder, pattern):
            leftover.unlink()
    log = ResultsLog(folder)
    log.load()  # the games written already; a torn last line is cut off
    missing = [number for number in range(chunks) if not chunk_path(folder, number).exists()]
    games = positions = 0
    done = chunks - len(missing)
    if progress is not None:
        progress(0, 0, done, chunks)
    jobs = [(number, settings, seed) for number in missing]
    with contextlib.closing(workers.as_done(play_chunk, jobs, parallel, start_method="spawn")) as played:
        for number, arrays, results in played:
            for entry, sgf_text in results:
                log.write_game(entry, sgf_text)
            write_chunk(chunk_path(folder, number), dict(header, size=settings.size, games=len(results), chunk=number,
                                                         seed=seed), arrays)
            games, positions, done = games + len(results), positions + len(arrays["value"]), done + 1
            if progress is not None:
                progress(games, positions, done, chunks)
    return games, positions
