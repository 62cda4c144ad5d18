"""The one worker pool: jobs played in worker processes, results handed back to this process.

Every tool that spreads work over cores uses it, so they share one set of rules:

- **Only this process writes.** A worker returns what it made (a game's record, a chunk's
  arrays, an analysis); the caller writes it. So resume, torn lines and durable appends
  stay the caller's one concern, whatever ran the job.
- **One process per job at a time, ``parallel`` at once; ``parallel`` 1 runs here.** No
  process is started for one worker: the job runs in this process, in order, which is
  also what a debugger or a profiler wants.
- **A dead worker is an error, never a hang.** :func:`as_done` and :func:`in_order` sit on
  :class:`~concurrent.futures.ProcessPoolExecutor`, which raises ``BrokenProcessPool``
  when a worker dies (``multiprocessing.Pool`` waits for its result for ever);
  :class:`WorkerProcesses` stops when every worker has ended.
- **Stopping stops the workers.** Leaving the loop early (Ctrl-C, an error, a caller that
  has what it wanted) cancels the jobs not started and terminates the running ones,
  rather than waiting minutes for a game or a chunk nobody will read.

The kinds: :func:`as_done` (results as they finish) and :func:`in_order` (in job order)
for independent jobs; :class:`WorkerProcesses` for long-lived workers that keep state
between jobs (the referee's, which keep their two engines running) and talk back through
a queue; :func:`executor` for a caller that submits jobs as they come (``margo-analysis``:
one thread, or processes; ``margo-review``: threads that wait on engine processes). The Ray kind is the referee's cluster backend
(:mod:`margo_gtp.match.cluster`): Ray is imported only when ``--cluster`` asks for it.

On the ground floor: it imports nothing from the package.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from typing import Any, TypeVar

Result = TypeVar("Result")

#: A worker start method: "fork" where the system has it (no re-import: a worker costs no
#: Python start), else "spawn"; ``None``: multiprocessing's default.
FORK_IF_POSSIBLE = "fork-if-possible"


def process_context(start_method: str | None = None) -> Any:
    """The multiprocessing context for ``start_method`` ("spawn", "fork",
    :data:`FORK_IF_POSSIBLE`, or ``None`` for the default)."""
    if start_method == FORK_IF_POSSIBLE:
        start_method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(start_method)


def executor(workers: int, *, threads: bool = False, start_method: str | None = None,
             initializer: Callable[..., None] | None = None, initargs: tuple = (),
             thread_name: str = "margo-worker") -> Executor:
    """An executor for a caller that submits jobs as they come: ``workers`` threads, or
    ``workers`` processes (each run through ``initializer(*initargs)`` first). The caller
    shuts it down."""
    if threads:
        return ThreadPoolExecutor(max_workers=workers, thread_name_prefix=thread_name,
                                  initializer=initializer, initargs=initargs)
    return ProcessPoolExecutor(max_workers=workers, mp_context=process_context(start_method),
                               initializer=initializer, initargs=initargs)


def stop(pool: ProcessPoolExecutor) -> None:
    """Cancel the jobs not started and terminate the workers running the others."""
    # ProcessPoolExecutor.shutdown can wait for running jobs but not stop them (that is
    # Python 3.14's terminate_workers()): its processes are terminated here by hand.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=10)


def as_done(function: Callable[..., Result], jobs: Iterable[tuple], parallel: int,
            start_method: str | None = None) -> Iterator[Result]:
    """``function(*job)`` for every job: in this process, in order, when ``parallel`` is 1
    or less; else in ``parallel`` worker processes, each result as soon as its job is done.
    A job's exception is raised here; so is ``BrokenProcessPool`` when a worker dies."""
    if parallel <= 1:
        yield from (function(*job) for job in jobs)
        return
    with _processes(parallel, start_method) as pool:
        pending: set[Future] = {pool.submit(function, *job) for job in jobs}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from (future.result() for future in done)


def in_order(function: Callable[..., Result], jobs: Iterable[tuple], parallel: int,
             start_method: str | None = None) -> Iterator[Result]:
    """As :func:`as_done`, but the results come in the order of the jobs."""
    if parallel <= 1:
        yield from (function(*job) for job in jobs)
        return
    with _processes(parallel, start_method) as pool:
        futures = [pool.submit(function, *job) for job in jobs]
        yield from (future.result() for future in futures)


@contextlib.contextmanager
def _processes(parallel: int, start_method: str | None) -> Iterator[ProcessPoolExecutor]:
    """``parallel`` worker processes: shut down once every job is done, stopped
    (:func:`stop`) when the block is left early (an error, Ctrl-C, a closed generator)."""
    pool = ProcessPoolExecutor(max_workers=parallel, mp_context=process_context(start_method))
    try:
        yield pool
    except BaseException:
        stop(pool)
        raise
    pool.shutdown(wait=True)


class WorkerStartError(RuntimeError):
    """A worker process could not be started (the system's process limit)."""


class WorkersEnded(RuntimeError):
    """Every worker process ended while messages were still expected."""


class WorkerProcesses:
    """Long-lived worker processes that take jobs from a queue and put messages on another.

    ``main(index, jobs, messages, *args)`` runs in each worker (``index`` from 1); it should
    call :func:`worker_setup` first and :func:`next_job` for each job (``None``: no more).
    The jobs are queued before the workers start, each worker's end marker after them.
    :meth:`receive` returns the next message a worker put, and raises :class:`WorkersEnded`
    once every worker has ended; leaving the ``with`` block terminates them.
    """

    def __init__(self, main: Callable[..., None], jobs: Iterable[Any], count: int, args: tuple = (),
                 start_method: str | None = FORK_IF_POSSIBLE) -> None:
        context = process_context(start_method)
        self.jobs: Any = context.Queue()
        self.results: Any = context.Queue()
        for job in jobs:
            self.jobs.put(job)
        for _ in range(count):
            self.jobs.put(None)
        self.processes = [context.Process(target=main, args=(index, self.jobs, self.results, *args), daemon=True)
                          for index in range(1, count + 1)]

    def __enter__(self) -> WorkerProcesses:
        for number, process in enumerate(self.processes, 1):
            try:
                process.start()
            except OSError as error:  # the process limit: one line, not a traceback per worker
                self.__exit__(None, None, None)
                raise WorkerStartError(f"cannot start worker process {number} of {len(self.processes)}: "
                                       f"{error.strerror or error}") from None
        return self

    def receive(self, timeout: float = 0.5) -> Any:
        """The next message; :class:`WorkersEnded` when every worker has ended and none is left."""
        while True:
            try:
                return self.results.get(timeout=timeout)
            except queue.Empty:
                if not any(process.is_alive() for process in self.processes):
                    raise WorkersEnded("every worker process ended before the work was finished") from None

    def leftovers(self) -> Iterator[Any]:
        """The messages already sent (after Ctrl-C: what the workers finished and handed over)."""
        while True:
            try:
                yield self.results.get(timeout=0.1)
            except (queue.Empty, OSError, ValueError):
                return

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            if process.pid is not None:  # started
                process.join(timeout=10)


def worker_setup() -> None:
    """In a :class:`WorkerProcesses` worker: Ctrl-C is the parent's to act on (it stops the
    workers), and SIGTERM ends the worker through its ``finally`` blocks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_worker)


def next_job(jobs: Any, results: Any, parent: int) -> Any:
    """In a :class:`WorkerProcesses` worker: the next job, or ``None`` when there is none
    left or the parent (pid ``parent``) is gone: nobody would read the results."""
    while True:
        if os.getppid() != parent:  # orphaned: the parent was killed
            results.cancel_join_thread()  # do not block at exit on a pipe nobody drains
            return None
        try:
            return jobs.get(timeout=1.0)
        except queue.Empty:
            continue


def _exit_worker(signum: int, frame: object) -> None:
    raise SystemExit(0)
