"""A blocking GTP controller: start an engine process, send commands, read answers.

In the spirit of python-chess's ``SimpleEngine`` (blocking calls, a context manager, a
wire log) with gomill's controller errors::

    with GtpClient.popen("margo-gtp --player random", timeout=10) as engine:
        engine.send("boardsize", 5)
        move = engine.send("genmove", "w", timeout=2.0)     # -> "C3:1"

What is enforced:

- Framing as GTP 2 (``gtp.md`` section 1): every command is sent with a numeric id; an
  answer starts with ``=`` (success) or ``?`` (failure), optionally followed by the id, and
  ends at the first empty line. Empty lines before an answer are skipped. An answer
  carrying the id of an *earlier* command (the late answer to a command that timed out)
  is skipped; an answer with any other id is a :class:`GtpProtocolError`. An answer
  without an id is accepted (many engines do not echo ids).
- A first line that is neither empty nor starts with ``=``/``?`` is a
  :class:`GtpProtocolError` quoting the line (gomill does the same): a referee must not
  guess where an answer begins.
- Every wait has a deadline: ``timeout`` per command (default: the client's). Expiry
  raises :class:`GtpTimeout`; end of the engine's stdout (crash, exit, closed stdout) or
  a broken stdin raises :class:`GtpChannelClosed`; a ``?`` answer raises
  :class:`BadGtpResponse`.
- After a timeout, a protocol error or a closed channel the client is *broken*: its state
  is unknown, every further :meth:`GtpClient.send` raises :class:`GtpChannelClosed`
  until :meth:`GtpClient.restart`.

What is not: the meaning of answers (vertices, legality) - that is the referee's job.

The wire log: every line sent (``<<``), received (``>>``) and written to stderr (``!!``)
is logged at DEBUG on the ``margo_adapters.gtp`` logger and, when ``wire_log`` is given,
appended to that text stream or file.
"""

from __future__ import annotations

import logging
import math
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

LOGGER = logging.getLogger("margo_adapters.gtp")

#: Seconds ``close()`` waits for the engine to exit after ``quit`` before killing it.
QUIT_GRACE = 2.0


class GtpError(Exception):
    """Base class of every error raised by :class:`GtpClient`"""


class GtpChannelClosed(GtpError):
    """Raised when the engine's stdout ended or its stdin is closed (crash, exit, kill)"""


class GtpProtocolError(GtpError):
    """Raised when the engine wrote something that is not a GTP answer"""


class GtpTimeout(GtpError):
    """Raised when the engine did not answer a command within its timeout"""


class BadGtpResponse(GtpError):
    """Raised when the engine answered a command with a failure (``? message``)"""

    def __init__(self, command: str, args: Sequence[str], message: str) -> None:
        self.command = command
        self.args_sent = tuple(args)
        self.message = message
        shown = " ".join([command, *self.args_sent])
        super().__init__(f"{shown!r} failed: {message!r}")


class GtpClient:
    """A GTP engine running as a child process, driven by blocking calls.

    Create with :meth:`popen`. ``argv`` is a list or one shell-quoted command line
    (split with :func:`shlex.split`, never run through a shell). The engine runs in its own
    process session so that Ctrl-C at the terminal reaches only the controller, and
    :meth:`kill` reaches the engine's children too.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = 30.0,
        wire_log: str | os.PathLike[str] | IO[str] | None = None,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self.name = name or (Path(self.argv[0]).name if self.argv else "engine")
        self.cwd = cwd
        self._wire_lock = threading.Lock()
        self._owns_wire_log = isinstance(wire_log, (str, os.PathLike))
        self._wire: IO[str] | None = (
            open(wire_log, "a", encoding="utf-8") if isinstance(wire_log, (str, os.PathLike)) else wire_log
        )
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: deque[str] = deque()  # complete lines read but not yet consumed
        self._partial = b""  # bytes after the last line end
        self._next_id = 1
        self._broken: str | None = None
        self._eof = False
        #: The engine's last stderr lines (shown when it dies at start-up).
        self.stderr_tail: deque[str] = deque(maxlen=20)

    # -- life cycle ---------------------------------------------------------------------

    @classmethod
    def popen(
        cls,
        argv: str | Sequence[str],
        *,
        timeout: float | None = 30.0,
        wire_log: str | os.PathLike[str] | IO[str] | None = None,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> "GtpClient":
        """Start the engine. ``timeout`` is the default for every :meth:`send`."""
        words = shlex.split(argv) if isinstance(argv, str) else list(argv)
        if not words:
            raise ValueError(f"empty engine command: {argv!r}")
        client = cls(words, timeout=timeout, wire_log=wire_log, name=name, cwd=cwd)
        client.start()
        return client

    def start(self) -> None:
        """Start (or start again) the engine process (and the thread draining its stderr)."""
        if self._process is not None and self._process.poll() is None:
            raise RuntimeError(f"engine {self.name!r} is already running")
        self._lines = deque()
        self._partial = b""
        self._broken = None
        self._eof = False
        self._log("--", f"start {shlex.join(self.argv)}")
        self._process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            start_new_session=True,
        )
        # stdout is read in the caller's thread with poll() (no thread hop per answer);
        # stderr is drained by a thread so a chatty engine never blocks on a full pipe.
        self._stderr_reader = threading.Thread(target=self._read_stderr, args=(self._process,), daemon=True)
        self._stderr_reader.start()

    def last_stderr(self, wait: float = 2.0) -> list[str]:
        """The engine's last stderr lines; after it exited, waits up to ``wait`` seconds for
        the rest of its stderr to be read."""
        reader = getattr(self, "_stderr_reader", None)
        if reader is not None and self.returncode is not None:
            reader.join(timeout=wait)
        return list(self.stderr_tail)

    def restart(self) -> None:
        """Kill the engine (if running) and start a fresh one: the cure for a broken client."""
        self.kill()
        self.start()

    def kill(self) -> None:
        """Kill the engine and its process group at once; never raises for a dead engine."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
            pass
        self._close_pipes(process)
        self._broken = self._broken or "engine was killed"
        self._log("--", f"killed (exit code {process.returncode})")

    def close(self) -> None:
        """Say ``quit`` politely if the engine is healthy, then make sure it is gone."""
        process = self._process
        if process is not None and process.poll() is None and self._broken is None:
            try:
                self.send("quit", timeout=QUIT_GRACE)
                process.wait(timeout=QUIT_GRACE)
            except (GtpError, subprocess.TimeoutExpired):
                pass
        self.kill()
        if self._owns_wire_log and self._wire is not None:
            self._wire.close()
            self._wire = None

    def __enter__(self) -> "GtpClient":
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> int | None:
        """The engine's exit code once it has ended, else None."""
        return self._process.poll() if self._process is not None else None

    @property
    def is_usable(self) -> bool:
        """True when the engine runs and its channel is in a known state."""
        return self._process is not None and self._process.poll() is None and self._broken is None

    # -- commands -----------------------------------------------------------------------

    def send(self, command: str, *args: object, timeout: float | None = None) -> str:
        """Send one command and return its success text (without ``=`` and id).

        A multi-line answer is returned with its lines joined by ``\\n``. ``timeout``
        (seconds, default the client's; ``None`` waits for ever) bounds the wait.
        """
        if self._broken is not None or self._process is None or self._process.stdin is None:
            raise GtpChannelClosed(f"engine {self.name!r} is not usable: {self._broken or 'not started'}")
        words = [str(arg) for arg in args]
        command_id = self._next_id
        self._next_id += 1
        line = " ".join([str(command_id), command, *words])
        self._log("<<", line)
        try:
            self._process.stdin.write(line.encode("utf-8") + b"\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as error:
            raise self._break(GtpChannelClosed(f"engine {self.name!r} closed its input ({error})"))
        effective = self.timeout if timeout is None else timeout
        deadline = None if effective is None else time.monotonic() + effective
        is_success, text = self._read_answer(command_id, command, deadline, effective)
        if not is_success:
            raise BadGtpResponse(command, words, text)
        return text

    def known_command(self, command: str) -> bool:
        """``known_command`` as a bool: False when the engine answers anything but ``true``,
        including a failure (an engine that does not know ``known_command`` itself)."""
        try:
            return self.send("known_command", command).strip().lower() == "true"
        except BadGtpResponse:
            return False

    def list_commands(self) -> list[str]:
        return [line.strip() for line in self.send("list_commands").splitlines() if line.strip()]

    # -- reading ------------------------------------------------------------------------

    def _read_answer(
        self, command_id: int, command: str, deadline: float | None, timeout: float | None
    ) -> tuple[bool, str]:
        while True:
            first = self._next_line(command, deadline, timeout)
            if not first.strip():
                continue  # blank lines between answers are tolerated
            if first[0] not in "=?":
                raise self._break(GtpProtocolError(f"engine {self.name!r} answered {command!r} with a line that is not a GTP answer: {first!r}"))
            answer_id, first_text = _split_id(first[1:])
            body = [first_text]
            while True:
                line = self._next_line(command, deadline, timeout)
                if not line.strip():
                    break
                body.append(line)
            if answer_id is not None and answer_id != command_id:
                if answer_id < command_id:
                    self._log("--", f"skipped the late answer to command {answer_id}")
                    continue
                raise self._break(GtpProtocolError(f"engine {self.name!r} answered {command!r} (id {command_id}) with id {answer_id}"))
            if len(body) > 1 and not body[0].strip():
                body = body[1:]  # a multi-line answer may start on the line after "="
            text = body[0].strip() if len(body) == 1 else "\n".join(body).rstrip()
            return first[0] == "=", text

    def _next_line(self, command: str, deadline: float | None, timeout: float | None) -> str:
        while not self._lines:
            if self._eof:
                raise self._eof_error(command)
            self._fill(command, deadline, timeout)
        return self._lines.popleft()

    def _fill(self, command: str, deadline: float | None, timeout: float | None) -> None:
        """Wait (until ``deadline``) for output and split it into lines."""
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise self._break(GtpTimeout(f"engine {self.name!r} did not answer {command!r} within {timeout:g} s"))
        # poll, not select: select() cannot watch descriptors above FD_SETSIZE (1024)
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        if not poller.poll(None if remaining is None else max(1, math.ceil(remaining * 1000))):
            return  # the loop in _next_line checks the deadline again
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            if self._partial:  # a last line without its line end still counts
                chunk, self._partial = self._partial + b"\n", b""
            else:
                return
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        for raw in complete:
            line = _preprocess(raw.decode("utf-8", errors="replace"))
            self._log(">>", line)
            self._lines.append(line)

    def _eof_error(self, command: str) -> GtpChannelClosed:
        code = None
        if self._process is not None:
            try:
                code = self._process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        state = f"exit code {code}" if code is not None else "still running"
        return self._break(GtpChannelClosed(f"engine {self.name!r} closed its output during {command!r} ({state})"))

    def _break(self, error: GtpError) -> GtpError:
        self._broken = str(error)
        self._log("--", f"broken: {error}")
        return error

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        try:
            for raw in process.stderr:
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                self.stderr_tail.append(line)
                self._log("!!", line)
        except (OSError, ValueError):
            pass

    @staticmethod
    def _close_pipes(process: subprocess.Popen[bytes]) -> None:
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def _log(self, direction: str, line: str) -> None:
        LOGGER.debug("%s %s %s", self.name, direction, line)
        if self._wire is not None:
            with self._wire_lock:
                try:
                    self._wire.write(f"{self.name} {direction} {line}\n")
                    self._wire.flush()
                except (OSError, ValueError):
                    pass


def _preprocess(line: str) -> str:
    """Drop the line end, CR and control characters other than HT; HT becomes a space."""
    line = line.rstrip("\n")
    return "".join(" " if ch == "\t" else ch for ch in line if ch == "\t" or ch >= " " and ch != "\x7f")


def _split_id(rest: str) -> tuple[int | None, str]:
    """``'12 D4:1'`` -> ``(12, 'D4:1')``; ``' D4:1'`` -> ``(None, 'D4:1')``."""
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if digits == 0:
        return None, rest[1:] if rest.startswith(" ") else rest
    return int(rest[:digits]), rest[digits + 1 :] if rest[digits : digits + 1] == " " else rest[digits:]
