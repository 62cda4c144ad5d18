"""The referee: plays matches between two GTP engines and judges every move.

Reading guide (each piece in a module of its own)
    The game loop, the bots and the game record are the house's one set
    (:mod:`margo_gtp.game`): :func:`~margo_gtp.game.loop.play_game` asks the mover,
    judges its answer with our own rules core, informs the other player and repeats until
    the rules core says the game is over; :class:`~margo_gtp.game.bots.GtpBot` drives a GTP
    engine through the public client and turns every way an engine can misbehave into an
    :class:`~margo_gtp.game.faults.EngineFault` (the forfeit reasons are in
    :mod:`margo_gtp.game.faults`). :class:`~margo_gtp.match.game_runner.GameRunner` sets up
    and plays one numbered game between two engines and returns its record and SGF;
    :mod:`margo_gtp.match.live_feed` writes the live feed; :mod:`margo_gtp.match.results_log`
    keeps the match directory durable; :mod:`margo_gtp.match.match_runners` plays games in
    this process or in worker processes. This module's :func:`run_match` plays the missing
    games of a match, in-process, in worker processes or through a *backend* (the Ray one
    is :mod:`margo_gtp.match.cluster`), and writes every finished game (``results.jsonl`` +
    ``game-NNNN.sgf``) before it moves on; its ``stop_when`` ends a match early (the SPRT of
    :mod:`margo_gtp.match.sprt`). The configuration is :mod:`margo_gtp.match.match_config`.

What the referee enforces
    - Every move is checked by :class:`margo_gtp.engine.Board`: a malformed answer, an
      illegal move (``pass`` included, unless the rules allow passing), a failure answer to
      ``genmove``, a move timeout, a lost time control, an engine that crashes, closes its
      output or talks garbage, or refuses a legal move relayed with ``play``, loses the game
      by forfeit; the reason is recorded. An engine whose channel is in an unknown state is
      killed at once and restarted before its next game. The match goes on.
    - The game ends when the referee's own board says so (the side to move has no legal
      move, two passes with ``allow_pass``, first capture with ``first_capture_wins``), on
      ``resign``, or when it is adjudicated with the rules' own ``scoring`` (komi added to
      White): after ``max_moves`` engine moves, or when one side has led by an
      :class:`~margo_gtp.match.match_config.Adjudication` margin for its number of moves
      (cutechess ``-resign``).
    - Colours alternate: engine A holds White in odd-numbered games. A ``swap`` exchanges the
      colours of the two engines; per-colour statistics use the colour held at the end.
      With an opening book, games ``2k-1`` and ``2k`` start from opening ``k`` (relayed to
      both engines with ``play``), so each opening is played with both colours.
    - An engine that dies before it ever got ready (a bad option, a missing file) stops
      the match with :class:`~margo_gtp.game.faults.EngineStartError` and its last stderr
      lines: it is the match that is misconfigured, and a match of crash losses would hide it.

What it does not: judge the engines' ``final_score``, or check what an engine believes the
position is (a confused engine shows up as an illegal move or a refused ``play``).

Durability (:mod:`margo_gtp.match.results_log`): a game counts as finished exactly when its
line is in ``results.jsonl``; a resumed match plays only the games not yet there. A game
number already written is never written again (a game replayed after a lost Ray worker).

Live feed: while a game runs, ``OUT/live/game-NNNN.jsonl`` holds its moves so far
(:mod:`margo_gtp.match.live_feed`); it is deleted once the game is written.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from margo_gtp.engine import Rules

from margo_gtp.match.live_feed import LIVE_DIRECTORY, live_path
from margo_gtp.match.match_config import EngineSpec, MatchConfig, default_names
from margo_gtp.match.match_runners import Backend, MatchDecided, run_parallel, run_serial
from margo_gtp.match.results_log import ResultsLog, prepare_directory


@dataclass
class MatchRun:
    """What :func:`run_match` returns: every finished record (old and new, by game
    number), and whether it stopped early on Ctrl-C."""

    records: list[dict[str, Any]]
    interrupted: bool = False
    stopped: bool = False      # stop_when said the match is decided (an SPRT bound was crossed)
    games_played: int = 0      # games finished by this run (not those found on disk)
    seconds: float = 0.0       # wall time of this run, engine start-up included

    @property
    def games_per_second(self) -> float | None:
        return self.games_played / self.seconds if self.games_played and self.seconds > 0 else None


def pending_games(config: MatchConfig, finished: Iterable[Mapping[str, Any]]) -> list[int]:
    done = {int(record["game"]) for record in finished}
    return [game for game in range(1, config.games + 1) if game not in done]


def run_match(
    config: MatchConfig,
    directory: Path,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[list[dict[str, Any]], list[int]], None] | None = None,
    stop_when: Callable[[list[dict[str, Any]]], bool] | None = None,
    backend: Backend | None = None,
) -> MatchRun:
    """Play the games of ``config`` not yet in ``directory``; resumable; Ctrl-C safe.

    ``on_start(finished_records, pending_game_numbers)`` is called once, ``on_game(record)``
    after each game is durably written. KeyboardInterrupt (and SIGTERM) stop the match
    after the finished games are written; the run is then marked ``interrupted``.
    ``stop_when(records)`` is asked after each written game (and once before the first,
    for a resumed match): True stops the match, games still being played are abandoned,
    and the run is marked ``stopped``. ``backend`` plays the games somewhere else (the Ray
    backend of :mod:`margo_gtp.match.cluster`); this process stays the only writer of the
    results and SGFs either way.
    """
    started = time.monotonic()
    finished = prepare_directory(config, directory)
    pending = pending_games(config, finished)
    records = list(finished)
    if stop_when is not None and stop_when(records):
        pending = []
    if on_start is not None:
        on_start(finished, pending)
    log = ResultsLog(directory)
    log.written = {int(record["game"]) for record in finished}

    def commit(record: dict[str, Any], sgf_text: str | None) -> None:
        if not log.write_game(record, sgf_text):  # a replayed game whose first play also came back: keep the first
            return
        live_path(directory, int(record["game"])).unlink(missing_ok=True)
        records.append(record)
        if on_game is not None:
            on_game(record)
        if stop_when is not None and stop_when(records):
            raise MatchDecided

    interrupted = stopped = False
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous_term = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt) if in_main_thread else None
    try:
        if not pending:
            pass
        elif backend is not None:
            backend(config, directory, pending, commit)
        elif config.parallel <= 1 or len(pending) <= 1:
            run_serial(config, directory, pending, commit)
        else:
            run_parallel(config, directory, pending, commit)
    except KeyboardInterrupt:
        interrupted = True
    except MatchDecided:
        stopped = True
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous_term)
    # No game runs any more: a live feed left by an abandoned game (Ctrl-C, a decided
    # SPRT, a lost worker) describes nothing.
    for leftover in (directory / LIVE_DIRECTORY).glob("game-*.jsonl"):
        leftover.unlink(missing_ok=True)
    if (directory / LIVE_DIRECTORY).is_dir() and not any((directory / LIVE_DIRECTORY).iterdir()):
        (directory / LIVE_DIRECTORY).rmdir()
    # Read back from disk: an interrupt may land between a durable append and the
    # bookkeeping in memory, and the log is the truth.
    final = log.load()
    return MatchRun(final, interrupted, stopped, len(final) - len(finished), time.monotonic() - started)


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt




def measure_parallel(
    command_a: str,
    command_b: str,
    directory: Path,
    games: int = 40,
    size: int = 5,
    parallels: Sequence[int] = (1, 2),
) -> dict[int, float | None]:
    """Games per second of the same fresh match at each ``--parallel`` value (wall time
    of :func:`run_match`, engine start-up included), played under ``directory``::

        measure_parallel("margo-gtp --player random", "margo-gtp --player random", Path("/tmp/bench"))
    """
    rates: dict[int, float | None] = {}
    for parallel in parallels:
        out = directory / f"parallel-{parallel}"
        if out.exists():
            raise FileExistsError(f"{out} exists: measure into a fresh directory")
        names = default_names(command_a, command_b)
        config = MatchConfig(
            EngineSpec("A", names[0], command_a), EngineSpec("B", names[1], command_b), games, Rules(size=size), parallel=parallel
        )
        rates[parallel] = run_match(config, out).games_per_second
    return rates
