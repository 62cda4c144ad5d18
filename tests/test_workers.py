"""The one worker pool (margo_gtp/workers.py): jobs run here with one worker, in worker
processes otherwise; a job's error and a dead worker are raised, never a hang; leaving
early stops the running jobs; the referee's long-lived workers report a failed start and
workers that all ended in one line each."""

from __future__ import annotations

import errno
import multiprocessing.process
import os
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from margo_gtp import workers


def pid_and_square(number: int) -> tuple[int, int]:
    return os.getpid(), number * number


def square_after(number: int, seconds: float) -> int:
    time.sleep(seconds)
    return number * number


def refuse(number: int) -> int:
    raise ValueError(f"no {number}")


def die(number: int) -> int:
    os._exit(3)


def test_one_worker_runs_the_jobs_here_in_order():
    results = list(workers.as_done(pid_and_square, [(n,) for n in range(4)], 1))
    assert results == [(os.getpid(), n * n) for n in range(4)]
    assert list(workers.in_order(pid_and_square, [(3,)], 0)) == [(os.getpid(), 9)]


def test_processes_run_the_jobs_elsewhere_and_hand_every_result_back():
    results = list(workers.as_done(pid_and_square, [(n,) for n in range(6)], 2))
    assert sorted(square for _, square in results) == [n * n for n in range(6)]
    assert os.getpid() not in {pid for pid, _ in results}


def test_in_order_keeps_the_order_of_the_jobs_though_the_first_ends_last():
    jobs = [(1, 0.6), (2, 0.0), (3, 0.0)]
    assert list(workers.in_order(square_after, jobs, 3)) == [1, 4, 9]
    assert list(workers.as_done(square_after, jobs, 3))[-1] == 1  # as_done: as they finish


def test_a_jobs_error_is_raised_here():
    with pytest.raises(ValueError, match="^no 2$"):
        list(workers.as_done(refuse, [(2,)], 2))


def test_a_dead_worker_is_an_error_not_a_hang():
    started = time.monotonic()
    with pytest.raises(BrokenProcessPool):
        list(workers.as_done(die, [(1,), (2,)], 2))
    assert time.monotonic() - started < 30


def test_leaving_early_stops_the_running_jobs():
    started = time.monotonic()
    results = workers.as_done(square_after, [(1, 0.0), (2, 60.0)], 2)
    assert next(results) == 1
    results.close()  # what a for loop left by Ctrl-C or an error does (contextlib.closing)
    assert time.monotonic() - started < 30


def echo_worker(index: int, jobs, results, parent: int) -> None:
    workers.worker_setup()
    while (job := workers.next_job(jobs, results, parent)) is not None:
        results.put((index, job * 10))


def quit_worker(index: int, jobs, results, parent: int) -> None:
    workers.worker_setup()


def test_long_lived_workers_take_every_job_and_send_back_what_they_made():
    with workers.WorkerProcesses(echo_worker, [1, 2, 3, 4], 2, args=(os.getpid(),)) as pool:
        answers = [pool.receive() for _ in range(4)]
    assert sorted(value for _, value in answers) == [10, 20, 30, 40]
    assert {index for index, _ in answers} <= {1, 2}
    assert all(not process.is_alive() for process in pool.processes)


def test_workers_that_all_ended_are_one_error():
    with workers.WorkerProcesses(quit_worker, [1], 2, args=(os.getpid(),)) as pool:
        with pytest.raises(workers.WorkersEnded, match="^every worker process ended before the work was finished$"):
            pool.receive(timeout=0.1)


def test_a_worker_that_cannot_start_is_one_line_and_the_started_ones_stop(monkeypatch):
    started = []
    real_start = multiprocessing.process.BaseProcess.start

    def start_until_the_process_limit(process):
        if started:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        started.append(process)
        real_start(process)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start_until_the_process_limit)
    pool = workers.WorkerProcesses(echo_worker, [1], 2, args=(os.getpid(),))
    with pytest.raises(workers.WorkerStartError) as error:
        with pool:
            pass
    assert str(error.value) == "cannot start worker process 2 of 2: Resource temporarily unavailable"
    assert not started[0].is_alive()
