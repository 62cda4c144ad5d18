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
one thread, or processes; ``margo-review``: threads that wait on engine processes).

The Ray kind, :func:`ray_as_done`, is :class:`WorkerProcesses` on a cluster: long-lived
actors that keep state between jobs, results handed back as they finish, a dead actor
replaced and its job run again (the referee's ``--cluster`` backend,
:mod:`margo_gtp.match.cluster`, is its user). This module is the one place that imports
Ray, and only inside the Ray kind's functions: Ray is an optional extra
(``margo-gtp[cluster]``) that a run on one machine never loads.

On the ground floor: it imports nothing from the package.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import signal
from collections import deque
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
    """A worker could not be started: a process (the system's process limit), or Ray
    actors that die before they answer."""


class WorkersEnded(RuntimeError):
    """Every worker ended while results were still expected."""


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


# The Ray kind -------------------------------------------------------------------------

#: Ray's address for a private instance on this machine, started for the run.
RAY_LOCAL = "local"


def ray_module() -> Any:
    """Ray, imported here on first use (ImportError when the ``cluster`` extra is missing)."""
    import ray  # here, not at the top: a run on one machine never loads Ray

    return ray


def connect_ray(address: str, runtime_env: dict[str, Any] | None = None) -> bool:
    """Connect this process to Ray at ``address`` (:data:`RAY_LOCAL`: start a private
    instance); what ``ray.init`` raises is left to the caller. True when this call
    connected, and :func:`disconnect_ray` will end the connection (stopping a private
    instance); a process already connected keeps its connection."""
    ray = ray_module()
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "log_to_driver": False, "runtime_env": runtime_env,
        "logging_level": logging.WARNING,  # Ray's "connecting to..." chatter is not the caller's output
    }
    if address == RAY_LOCAL:
        options["include_dashboard"] = False  # only a new instance has a dashboard to leave out
    ray.init(address=address, **options)
    return True


def disconnect_ray() -> None:
    ray = ray_module()
    if ray.is_initialized():
        ray.shutdown()


def ray_cpus() -> int:
    """The connected cluster's CPUs (at least 1)."""
    return max(1, int(ray_module().cluster_resources().get("CPU", 1)))


class RemoteJobError(RuntimeError):
    """A Ray actor's method raised: ``cause`` is its exception (or Ray's report of it, when
    Ray could not send the exception itself back)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


_ACTOR_CLASSES: dict[tuple[type, int], Any] = {}


def _actor_class(worker_class: type, cpus: int) -> Any:
    """``worker_class`` as a Ray actor class, made once per process (a tournament runs many
    matches on the same class)."""
    key = (worker_class, cpus)
    if key not in _ACTOR_CLASSES:
        # max_restarts=0: a dead actor is replaced here (and its job run again), not
        # restarted by Ray behind the caller's back with the job silently half-done.
        _ACTOR_CLASSES[key] = ray_module().remote(num_cpus=cpus, max_restarts=0)(worker_class)
    return _ACTOR_CLASSES[key]


def ray_as_done(worker_class: type, args: tuple, method: str, jobs: Iterable[tuple], parallel: int, *,
                start: str, on_started: Callable[[Any], None] | None = None,
                on_retry: Callable[[tuple], None] | None = None, cpus: int = 1) -> Iterator[Any]:
    """``actor.method(*job)`` for every job, on ``parallel`` Ray actors of ``worker_class(*args)``
    (``cpus`` CPUs each), each result as soon as its job is done. Ray must be connected
    (:func:`connect_ray`).

    An actor runs one job at a time and keeps its state between jobs. Each new actor first
    answers ``start`` (a start-up check), whose answer goes to ``on_started``; only then
    does it take jobs. An actor that dies (its process killed, its node lost) is replaced
    by a new one, and its job is run again from the start by the next free actor
    (``on_retry(job)`` is told): a job's result is yielded only from a call that returned,
    so none is lost and none comes twice. A method that raises stops the run with
    :class:`RemoteJobError`; actors that keep dying before they answer ``start``
    (more than 2 × ``parallel`` in a row: none can start, say) with
    :class:`WorkerStartError`. Leaving the loop, however it ends, kills every actor.
    """
    ray = ray_module()
    from ray.exceptions import RayActorError, RayTaskError

    actor_class = _actor_class(worker_class, cpus)
    waiting: deque[tuple] = deque(jobs)
    starting: dict[Any, Any] = {}  # start future -> actor
    running: dict[Any, tuple[Any, tuple]] = {}  # job future -> (actor, job)
    idle: list[Any] = []
    actors: list[Any] = []
    # Actors that died before answering ``start``, since the last one that answered: a few
    # are a lost node; many in a row mean no actor can start at all (the workers cannot
    # import the package, say), which must not loop forever.
    stillborn = 0

    def new_actor() -> None:
        actor = actor_class.remote(*args)
        actors.append(actor)
        starting[getattr(actor, start).remote()] = actor

    for _ in range(parallel):
        new_actor()
    try:
        while waiting or running:
            while idle and waiting:
                actor, job = idle.pop(), waiting.popleft()
                running[getattr(actor, method).remote(*job)] = (actor, job)
            ready, _ = ray.wait([*starting, *running], num_returns=1, timeout=1.0)
            for future in ready:
                if future in starting:
                    actor = starting.pop(future)
                    try:
                        answer = ray.get(future)
                    except RayTaskError as error:
                        raise RemoteJobError(getattr(error, "cause", None) or error) from None
                    except RayActorError as error:
                        stillborn += 1
                        if stillborn > 2 * parallel:
                            raise WorkerStartError(f"Ray actors die before they can start: {_first_error_line(error)}") from None
                        new_actor()  # died before it could say anything: try another
                        continue
                    stillborn = 0
                    if on_started is not None:
                        on_started(answer)
                    idle.append(actor)
                    continue
                actor, job = running.pop(future)
                try:
                    result = ray.get(future)
                except RayTaskError as error:
                    raise RemoteJobError(getattr(error, "cause", None) or error) from None
                except RayActorError:
                    # The actor (or its node) is gone and the job with it: run it again.
                    waiting.appendleft(job)
                    if on_retry is not None:
                        on_retry(job)
                    new_actor()
                    continue
                idle.append(actor)
                yield result
            if not ready and not running and not idle and waiting and not starting:
                raise WorkersEnded("no Ray actor is left to run the remaining jobs")
    finally:
        for actor in actors:
            try:
                ray.kill(actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already dead, or the cluster is gone
                pass


def _first_error_line(error: BaseException) -> str:
    """The line of a Ray error that says what happened (its text is a whole report)."""
    for line in str(error).splitlines():
        if line.strip() and ("Error" in line or "error" in line):
            return line.strip()
    return type(error).__name__
