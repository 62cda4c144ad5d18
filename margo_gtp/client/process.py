"""A GTP engine as a child process: the :class:`~margo_gtp.client.wire.Transport` of the
client and of the 2-D proxy, and the helpers that find an engine program.

:class:`ProcessTransport` starts the process in its own session (Ctrl-C at the terminal
reaches only the controller; :meth:`~ProcessTransport.kill` reaches the engine's
children too), reads its output in the caller's thread with ``poll`` (no thread hop per
answer), and drains its standard error in a thread so a chatty engine never blocks on a
full pipe, keeping the last lines (the *stderr tail*) for error messages.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from margo_gtp.client.wire import Transport, TransportClosed

__all__ = ["STDERR_LINES", "EngineTransport", "ProcessTransport", "find_program", "program_missing"]

STDERR_LINES = 20        # how many of the engine's last stderr lines errors carry
_STDERR_PIECE = 4096     # bytes: a longer stderr line is kept as several lines


def find_program(argv: Sequence[str]) -> list[str]:
    """``argv`` with its program taken from beside the running Python when it is not on
    ``PATH`` but installed there: ``margo-gtp`` of a project's virtualenv that is not
    activated, started by that virtualenv's tools (margo-match, margo-gtp-2d, margo-web)."""
    words = [str(word) for word in argv]
    if words and os.sep not in words[0] and shutil.which(words[0]) is None:
        beside = Path(sys.executable).parent / words[0]
        if beside.exists():
            words[0] = str(beside)
    return words


def program_missing(argv: Sequence[str]) -> str | None:
    """Why ``argv``'s program cannot be started (not found, not executable), or None."""
    program = find_program(argv)[0] if argv else ""
    if not program:
        return "empty engine command"
    if os.sep in program:
        if not Path(program).is_file():
            return f"no such file: {program!r}"
        if not os.access(program, os.X_OK):
            return f"not executable: {program!r}"
        return None
    return None if shutil.which(program) else f"program not found: {program!r}"


class EngineTransport(Transport, Protocol):
    """What :class:`~margo_gtp.client.SimpleEngine` needs of a transport besides bytes:
    :class:`ProcessTransport` has it, and so has the tests' scripted mock."""

    stderr_tail: Sequence[str]

    @property
    def pid(self) -> int | None: ...

    @property
    def returncode(self) -> int | None: ...

    def wait(self, timeout: float) -> int | None: ...

    def kill(self) -> None: ...

    def join_stderr(self, timeout: float = 1.0) -> None: ...


class ProcessTransport:
    """The pipes of an engine process ``argv``; raises :class:`OSError` when it cannot start.

    ``capture_stderr`` keeps the engine's standard error: its last ``stderr_lines`` lines
    in :attr:`stderr_tail`, each line also given to ``on_stderr``. Without it the engine
    writes to the controller's own standard error (what a GUI shows for the proxy).
    ``popen_kwargs`` go to :class:`subprocess.Popen` (``cwd``, ``env``...).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        capture_stderr: bool = True,
        stderr_lines: int = STDERR_LINES,
        on_stderr: Callable[[str], None] | None = None,
        **popen_kwargs: Any,
    ) -> None:
        self.stderr_tail: deque[str] = deque(maxlen=stderr_lines)
        self._on_stderr = on_stderr
        self.process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if capture_stderr else None,
            start_new_session=True,
            **popen_kwargs,
        )
        self._stderr_thread: threading.Thread | None = None
        if capture_stderr:
            self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
            self._stderr_thread.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has ended, else None."""
        return self.process.poll()

    def write(self, data: bytes) -> None:
        stdin = self.process.stdin
        try:
            if stdin is None:
                raise ValueError("no stdin")
            stdin.write(data)
            stdin.flush()
        except (OSError, ValueError):  # BrokenPipeError, or a pipe closed by kill()
            raise TransportClosed() from None

    def read(self, timeout: float | None) -> bytes | None:
        stdout = self.process.stdout
        if stdout is None or stdout.closed:
            return b""
        fd = stdout.fileno()
        # poll, not select: select() cannot watch descriptors above FD_SETSIZE (1024)
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        if not poller.poll(None if timeout is None else max(1, int(timeout * 1000) + 1)):
            return None
        try:
            return os.read(fd, 65536)
        except OSError:
            return b""

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the process to exit: its code, or None."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Kill the process and its process group at once and close the pipes; never
        raises for a dead process."""
        process = self.process
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
            pass
        self.close_pipes()

    def close_pipes(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def join_stderr(self, timeout: float = 1.0) -> None:
        """Let the last stderr lines of an ended process in."""
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=timeout)

    def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            # read in bounded pieces: a line without an end cannot grow memory
            for raw in iter(lambda: stderr.readline(_STDERR_PIECE), b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                self.stderr_tail.append(line)
                if self._on_stderr is not None:
                    self._on_stderr(line)
        except (OSError, ValueError):
            pass
