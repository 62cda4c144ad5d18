"""One writer per output folder: the lock margo-match and margo-tournament hold on ``--out``.

Two referees started on one folder would each play the missing games and append them to
the same ``results.jsonl``: ten games written twice, with different results. So a run
takes an exclusive ``flock`` on the folder itself before it reads anything there and
holds it until it exits. The kernel releases the lock when the process ends, however it
ends (Ctrl-C, ``kill -9``, a crash), so a lock is never stale and nothing needs cleaning
up. A second run refuses at once with one line naming who holds the folder::

    margo-match: runs/m1 is in use by another run: pid 4242 on host box, since
    2026-11-24T11:50:01Z: margo-match a b --out runs/m1; wait for it or use another --out

Who holds it is written to ``DIR/.lock`` (JSON: ``pid``, ``host``, ``started``,
``command``) while the lock is held, for that message only, and removed on release (at
the latest when the interpreter exits); one left by a killed run is simply overwritten.
The lock is the ``flock``, never the file. ``flock`` works on local file systems; on NFS
it depends on the server (Linux maps it to POSIX locks there).
"""

from __future__ import annotations

import atexit
import datetime
import fcntl
import json
import os
import shlex
import socket
import sys
from pathlib import Path
from typing import Any

from margo_gtp import files, textfile

LOCK_FILE = ".lock"
#: Longest command line stored for the message (a command line can be megabytes long).
MAX_COMMAND_CHARACTERS = 300


class FolderInUse(ValueError):
    """Raised when another process holds an output folder's lock; the message names it"""


class FolderLock:
    """The held lock on one folder; :meth:`release` (or the process's exit) lets it go."""

    def __init__(self, directory: Path, descriptor: int) -> None:
        self.directory = directory
        self._descriptor: int | None = descriptor

    def release(self) -> None:
        if self._descriptor is not None:
            (self.directory / LOCK_FILE).unlink(missing_ok=True)  # first: the lock still guards it
            os.close(self._descriptor)  # closing the last descriptor drops the flock
            self._descriptor = None
            _HELD.discard(self)

    def __enter__(self) -> "FolderLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_folder(directory: Path, option: str = "--out") -> FolderLock:
    """Create ``directory`` if needed and take its lock; :class:`FolderInUse` when another
    process has it (``option`` is how the user named the folder, for the advice)."""
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise FolderInUse(f"{directory} is in use by another run: {_holder(directory / LOCK_FILE)}; "
                          f"wait for it or use another {option}") from None
    except BaseException:
        os.close(descriptor)
        raise
    holder = {
        "pid": os.getpid(), "host": socket.gethostname(),
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else "python",
    }
    if len(holder["command"]) > MAX_COMMAND_CHARACTERS:  # it is quoted in another run's error line
        holder["command"] = holder["command"][:MAX_COMMAND_CHARACTERS] + "..."
    lock = FolderLock(directory, descriptor)
    _HELD.add(lock)
    try:
        files.write_atomically(directory / LOCK_FILE, json.dumps(holder) + "\n")
    except BaseException:
        lock.release()
        raise
    return lock


#: The locks this process holds: released on an error exit (:func:`release_all`) and, at
#: the latest, when the interpreter exits, so the holder file goes with them.
_HELD: set[FolderLock] = set()


@atexit.register
def release_all() -> None:
    """Release every lock this process holds (a command line that stops with an error
    calls it, so a long-lived process - tests, the Python API - does not keep them)."""
    for lock in list(_HELD):
        lock.release()


def _holder(path: Path) -> str:
    """Who holds the lock, from what it wrote into the file (it may not have written yet)."""
    try:
        holder: Any = json.loads(textfile.read_text(path, 64 * 1024))
        return f"pid {holder['pid']} on host {holder['host']}, since {holder['started']}: {holder['command']}"
    except (ValueError, KeyError, TypeError, RecursionError):
        return "a process that has not said who it is yet"
