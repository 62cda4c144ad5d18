"""Where a match's games are played: in this process, or in worker processes.

:func:`run_serial` plays the games one after the other with one
:class:`~margo_gtp.match.game_runner.GameRunner`; :func:`run_parallel` hands them to
``config.parallel`` worker processes (fork), each with its own runner and engines, and
commits what they send back. Either way only the referee's process writes results: each
finished game goes to the ``commit(record, sgf_text)`` step of
:func:`margo_gtp.match.referee.run_match`, which may raise :class:`MatchDecided` to stop the
match. A backend elsewhere (Ray: :mod:`margo_gtp.match.cluster`) has the same shape,
:data:`Backend`.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from margo_gtp.files import CappedLog
from margo_gtp.game.faults import EngineStartError

from margo_gtp.match.game_runner import GameRunner
from margo_gtp.match.match_config import MatchConfig

#: The step that writes one finished game: ``commit(record, sgf_text)``.
Commit = Callable[[dict[str, Any], "str | None"], None]

#: How a backend plays games: ``play(config, directory, game_numbers, commit)`` calls
#: ``commit(record, sgf_text)`` once per finished game, in this (the referee's) process.
Backend = Callable[[MatchConfig, Path, Sequence[int], Commit], None]


class MatchDecided(Exception):
    """Raised by the commit step when ``stop_when`` says the match needs no more games"""


def wire_stream(config: MatchConfig, directory: Path, worker: int) -> CappedLog | None:
    """Worker ``worker``'s wire log (``--wire-log``), shared by its two engines: capped, as
    their stderr goes into it and an engine decides how much it writes."""
    if not config.wire_log:
        return None
    return CappedLog.open(directory / f"wire-{worker}.log")


def run_serial(config: MatchConfig, directory: Path, games: Sequence[int], commit: Commit) -> None:
    wire = wire_stream(config, directory, 0)
    runner = GameRunner(config, wire, live_directory=directory)
    try:
        for game in games:
            commit(*runner.play(game))
    finally:
        runner.close()
        if wire is not None:
            wire.close()


def run_parallel(config: MatchConfig, directory: Path, games: Sequence[int], commit: Commit) -> None:
    """Worker processes play; only this (parent) process writes results."""
    # fork: a worker needs no re-import (spawn costs a Python start per worker); the
    # children touch neither the console nor any lock a parent thread may hold.
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    tasks: Any = context.Queue()
    results: Any = context.Queue()
    for game in games:
        tasks.put(game)
    count = min(config.parallel, len(games))
    for _ in range(count):
        tasks.put(None)
    workers = [
        context.Process(target=_worker_main, args=(config, str(directory), index, tasks, results, os.getpid()), daemon=True)
        for index in range(1, count + 1)
    ]
    remaining = len(games)
    try:
        for number, worker in enumerate(workers, 1):
            try:
                worker.start()
            except OSError as error:  # the process limit: one line, not a traceback per worker
                raise RuntimeError(f"cannot start worker process {number} of {count}: {error.strerror or error}; "
                                   "lower --parallel") from None
        while remaining:
            try:
                kind, payload = results.get(timeout=0.5)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    raise RuntimeError("every worker process ended before the match was finished") from None
                continue
            if kind == "start-error":
                raise EngineStartError(payload)
            if kind == "error":
                raise RuntimeError(f"a worker process failed: {payload}")
            commit(*payload)
            remaining -= 1
    except KeyboardInterrupt:
        # Keep the games the workers already finished and handed over.
        while True:
            try:
                kind, payload = results.get(timeout=0.1)
            except (queue.Empty, OSError, ValueError):
                break
            if kind == "game":
                try:
                    commit(*payload)
                except MatchDecided:
                    break
        raise
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        for worker in workers:
            if worker.pid is not None:  # started
                worker.join(timeout=10)


def _worker_main(config: MatchConfig, directory: str, index: int, tasks: Any, results: Any, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_worker)
    wire = wire_stream(config, Path(directory), index)
    runner = GameRunner(config, wire, live_directory=Path(directory))
    try:
        while True:
            if os.getppid() != parent:  # orphaned: the referee was killed, nobody reads results
                results.cancel_join_thread()  # do not block at exit on a pipe nobody drains
                return
            try:
                game = tasks.get(timeout=1.0)
            except queue.Empty:
                continue
            if game is None:
                return
            try:
                results.put(("game", runner.play(game)))
            except EngineStartError as error:
                results.put(("start-error", str(error)))
                return
            except Exception as error:  # noqa: BLE001 - reported to the parent, which stops the match
                results.put(("error", f"game {game}: {type(error).__name__}: {error}"))
                return
    finally:
        runner.close()
        if wire is not None:
            wire.close()


def _exit_worker(signum: int, frame: object) -> None:
    raise SystemExit(0)

