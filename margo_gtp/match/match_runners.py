"""Where a match's games are played: in this process, or in worker processes.

:func:`run_serial` plays the games one after the other with one
:class:`~margo_gtp.match.game_runner.GameRunner`; :func:`run_parallel` hands them to
``config.parallel`` worker processes (fork; the pool's
:class:`~margo_gtp.workers.WorkerProcesses`), each with its own runner and engines, and
commits what they send back. Either way only the referee's process writes results: each
finished game goes to the ``commit(record, sgf_text)`` step of
:func:`margo_gtp.match.referee.run_match`, which may raise :class:`MatchDecided` to stop the
match. A backend elsewhere (Ray: :mod:`margo_gtp.match.cluster`) has the same shape,
:data:`Backend`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from margo_gtp.files import CappedLog
from margo_gtp.game.faults import EngineStartError
from margo_gtp.workers import WorkerProcesses, WorkersEnded, WorkerStartError, next_job, worker_setup

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
    # fork where there is fork (the pool's FORK_IF_POSSIBLE): a worker needs no re-import
    # (spawn costs a Python start per worker); the children touch neither the console nor
    # any lock a parent thread may hold.
    count = min(config.parallel, len(games))
    remaining = len(games)
    try:
        with WorkerProcesses(_worker_main, games, count, args=(config, str(directory), os.getpid())) as workers:
            try:
                while remaining:
                    kind, payload = workers.receive()
                    if kind == "start-error":
                        raise EngineStartError(payload)
                    if kind == "error":
                        raise RuntimeError(f"a worker process failed: {payload}")
                    commit(*payload)
                    remaining -= 1
            except KeyboardInterrupt:
                # Keep the games the workers already finished and handed over.
                for kind, payload in workers.leftovers():
                    if kind == "game":
                        try:
                            commit(*payload)
                        except MatchDecided:
                            break
                raise
    except WorkerStartError as error:
        raise RuntimeError(f"{error}; lower --parallel") from None
    except WorkersEnded:
        raise RuntimeError("every worker process ended before the match was finished") from None


def _worker_main(index: int, tasks: Any, results: Any, config: MatchConfig, directory: str, parent: int) -> None:
    worker_setup()  # Ctrl-C is the parent's; SIGTERM runs the finally below
    wire = wire_stream(config, Path(directory), index)
    runner = GameRunner(config, wire, live_directory=Path(directory))
    try:
        while (game := next_job(tasks, results, parent)) is not None:
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
