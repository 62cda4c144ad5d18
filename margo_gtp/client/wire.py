"""The GTP wire: one command line out, exactly one answer back, over any transport.

This is the only GTP answer reader of the project's controllers: the client
(:class:`margo_gtp.client.SimpleEngine`), the 2-D proxy
(:mod:`margo_gtp.gtp2d.projected_session`) and the tests' regression runner
(``tests/gtp_runner.py``) all read answers here. It knows GTP 2 framing (``gtp.md``
section 1) and nothing of MarGo:

* :meth:`GtpWire.send` refuses a command that framing would split or change (a line
  break, CR or other control character, or a ``#`` that would start a comment, in the
  name or an argument:
  :class:`InvalidCommandError`, nothing sent), numbers it (unless ``ids=False``) and
  writes one line;
* :meth:`GtpWire.read_answer` reads one answer (:meth:`GtpWire.read_head` and
  :meth:`GtpWire.poll_line` read a streaming one, ``margo-analyze``, a line at a time): blank lines before it are skipped, its
  head starts with ``=`` or ``?`` (optionally the id), it ends at the first empty line;
  every line is preprocessed as GTP says (control characters but HT dropped, HT a
  space). A deadline bounds the whole answer, and an answer larger than
  :data:`MAX_ANSWER_BYTES` is refused, so no engine can make a controller wait past its
  timeout or grow its memory without bound.

What goes wrong is a :class:`WireError` carrying the facts (the command, the line, the
timeout); each controller words its own message. The channel after any
:class:`WireError` is in an unknown state: the caller should stop the engine.

The bytes move through a :class:`Transport`: :class:`margo_gtp.client.process.ProcessTransport`
for a child process, :class:`BufferTransport` for output already at hand (the regression
runner), and in the tests a scripted mock that checks every line sent, in the way
python-chess tests ``chess.engine`` against a mock transport.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "MAX_ANSWER_BYTES", "Answer", "BufferTransport", "GtpWire", "InvalidCommandError",
    "Transport", "TransportClosed", "WireClosed", "WireError", "WireProtocolError", "WireTimeout",
    "check_timeout", "preprocess",
]

#: Largest answer (and line) the wire reads, in bytes: far above any real answer (a 19x19
#: showboard is a few kB), small enough that a runaway engine cannot exhaust memory.
MAX_ANSWER_BYTES = 8 << 20
#: Longest single wait on the transport, in seconds: a longer deadline (``1e20``, ``inf``)
#: is waited for in slices, so a timeout of any size means what it says and never
#: overflows an operating-system wait.
_WAIT_SLICE = 3600.0


class InvalidCommandError(ValueError):
    """Raised before sending a command that GTP framing would split or change; nothing is sent"""


class TransportClosed(Exception):
    """Raised by a transport whose input can no longer be written"""


class WireError(Exception):
    """Raised when no proper answer came; ``command`` is the command's name. The channel
    is in an unknown state afterwards."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


class WireClosed(WireError):
    """Raised when the engine's ``stream`` (``'input'`` or ``'output'``) closed;
    ``mid_answer`` when output ended inside an answer."""

    def __init__(self, command: str, stream: str, *, mid_answer: bool = False) -> None:
        super().__init__(f"{stream} closed during {command!r}", command)
        self.stream = stream
        self.mid_answer = mid_answer


class WireTimeout(WireError):
    """Raised when the whole answer did not come within ``timeout`` seconds"""

    def __init__(self, command: str, timeout: float) -> None:
        super().__init__(f"no answer to {command!r} within {timeout:g} s", command)
        self.timeout = timeout


class WireProtocolError(WireError):
    """Raised for output that is not a GTP answer to the command sent. ``reason`` is
    ``'garbage'`` (``line`` is not an answer head), ``'id'`` (the answer carries
    ``answer_id``, not ``command_id``) or ``'size'`` (more than :data:`MAX_ANSWER_BYTES`)."""

    def __init__(self, message: str, command: str, reason: str, *, line: str = "",
                 command_id: int | None = None, answer_id: int | None = None) -> None:
        super().__init__(message, command)
        self.reason = reason
        self.line = line
        self.command_id = command_id
        self.answer_id = answer_id


class Transport(Protocol):
    """Bytes to and from an engine."""

    def write(self, data: bytes) -> None:
        """Write ``data`` to the engine's input; raise :class:`TransportClosed` if it is closed."""

    def read(self, timeout: float | None) -> bytes | None:
        """Wait at most ``timeout`` seconds (``None``: for ever) for output: some bytes,
        ``b''`` at the end of output, or ``None`` when nothing came in time."""


class BufferTransport:
    """A transport over output already at hand (``data``), e.g. a whole session's output
    to split into answers; what is written is kept in ``written``."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.written = bytearray()

    def write(self, data: bytes) -> None:
        self.written += data

    def read(self, timeout: float | None) -> bytes | None:
        data, self._data = self._data, b""
        return data


def check_timeout(timeout: object, what: str = "timeout") -> float | None:
    """``timeout`` if it is ``None`` or a number of seconds ``>= 0`` (``inf`` waits for
    ever, as ``None``); ValueError naming it otherwise (NaN, negative, not a number)."""
    if timeout is None:
        return None
    if (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
            or math.isnan(timeout) or timeout < 0):
        raise ValueError(f"invalid {what}: {timeout!r} (a number of seconds >= 0, or None to wait for ever)")
    return float(timeout)


def preprocess(line: str) -> str:
    """A received line as GTP reads it: control characters other than HT dropped (CR
    included), HT a space."""
    return "".join(" " if ch == "\t" else ch for ch in line if ch == "\t" or ch >= " " and ch != "\x7f")


def _split_id(rest: str) -> tuple[int | None, str]:
    """``'12 D4:1'`` -> ``(12, 'D4:1')``; ``' D4:1'`` -> ``(None, 'D4:1')``."""
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if digits == 0:
        return None, rest[1:] if rest.startswith(" ") else rest
    return int(rest[:digits]), rest[digits + 1 :] if rest[digits : digits + 1] == " " else rest[digits:]


@dataclass(frozen=True)
class Answer:
    """One GTP answer. ``lines`` are its lines as read (preprocessed), the head
    (``=12 text``) first, without the final empty line."""

    ok: bool
    id: int | None
    lines: tuple[str, ...]

    @property
    def body(self) -> list[str]:
        """The answer's text lines: the head's text (after ``=``, the id and one space),
        then the following lines."""
        return [_split_id(self.lines[0][1:])[1], *self.lines[1:]]

    @property
    def text(self) -> str:
        """The answer as the client returns it: a one-line answer trimmed; a multi-line
        one without the empty head text before it and trailing white space."""
        body = self.body
        if len(body) > 1 and not body[0].strip():
            body = body[1:]  # a multi-line answer may start on the line after "="
        return body[0].strip() if len(body) == 1 else "\n".join(body).rstrip()

    @property
    def verbatim(self) -> str:
        """The answer's lines joined as sent: ``'\\nrow\\nrow'`` for an answer starting on
        the line after its head, so a proxy can relay it in the same shape."""
        return "\n".join(self.body)


class GtpWire:
    """One GTP channel over ``transport``: :meth:`command` sends and reads one answer.

    ``ids`` numbers the commands 1, 2, ... (from ``next_id``) and checks that an answer
    carrying an id carries the one sent. ``log(direction, line)`` sees every line sent
    (``'<<'``) and received (``'>>'``).
    """

    def __init__(self, transport: Transport, *, ids: bool = True, next_id: int = 1,
                 log: Callable[[str, str], None] | None = None) -> None:
        self.transport = transport
        self.ids = ids
        self.next_id = next_id
        self._log = log or (lambda direction, line: None)
        self._lines: deque[str] = deque()  # complete lines read but not yet consumed
        self._partial = b""  # bytes after the last line end
        self._ended = False

    def command(self, command: str, args: Sequence[object] = (), *, timeout: float | None = None) -> Answer:
        """Send ``command args`` and read its answer within ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        command_id = self.send(command, args)
        return self.read_answer(command, command_id, deadline=deadline, timeout=timeout)

    def send(self, command: str, args: Sequence[object] = ()) -> int | None:
        """Write one command line; its id (None without ids). Raises
        :class:`InvalidCommandError` (nothing written) or :class:`WireClosed`."""
        words = [command, *(str(arg) for arg in args)]
        for index, word in enumerate(words):
            bad = next((ch for ch in word if ch < " " or ch == "\x7f" or ch == "#"), None)
            if bad is not None:
                where = "the command name" if index == 0 else f"argument {index}"
                what = "'#', which starts a comment" if bad == "#" else f"the control character {bad!r}"
                raise InvalidCommandError(
                    f"invalid GTP command {' '.join(words)!r}: {where} contains {what}"
                    " (GTP framing would split or change it); nothing sent"
                )
        command_id = None
        if self.ids:
            command_id, self.next_id = self.next_id, self.next_id + 1
            words.insert(0, str(command_id))
        line = " ".join(words)
        self._log("<<", line)
        try:
            self.transport.write(line.encode("utf-8") + b"\n")
        except TransportClosed:
            raise WireClosed(command, "input") from None
        return command_id

    def read_answer(self, command: str = "", command_id: int | None = None, *,
                    deadline: float | None = None, timeout: float | None = None) -> Answer:
        """Read the next answer (to ``command``, sent with ``command_id``) before
        ``deadline`` (a :func:`time.monotonic` time; ``timeout`` is the figure errors quote).
        Raises :class:`WireClosed`, :class:`WireTimeout` or :class:`WireProtocolError`."""
        head = self.read_head(command, deadline=deadline, timeout=timeout)
        return self.read_rest(head, command, command_id, deadline=deadline, timeout=timeout)

    def read_head(self, command: str = "", *, deadline: float | None = None, timeout: float | None = None) -> str:
        """Read the head line of the next answer (``=12 text``; blank lines before it are
        skipped): the first step of :meth:`read_answer`, taken alone when the answer is
        a stream (``margo-analyze``) whose lines the caller reads with :meth:`poll_line`."""
        while not (head := self._next_line(command, deadline, timeout, mid_answer=False)).strip():
            pass  # blank lines between answers are tolerated
        if head[0] not in "=?":
            raise WireProtocolError(f"not a GTP answer: {head!r}", command, "garbage", line=head)
        return head

    def check_id(self, head: str, command: str, command_id: int | None) -> int | None:
        """The id an answer ``head`` carries; :class:`WireProtocolError` when it is not ``command_id``."""
        answer_id, _ = _split_id(head[1:])
        if self.ids and answer_id is not None and answer_id != command_id:
            raise WireProtocolError(f"answer with id {answer_id} to command id {command_id}", command, "id",
                                    line=head, command_id=command_id, answer_id=answer_id)
        return answer_id

    def read_rest(self, head: str, command: str = "", command_id: int | None = None, *,
                  deadline: float | None = None, timeout: float | None = None) -> Answer:
        """Read the lines of an answer after its ``head`` (from :meth:`read_head`) up to
        its empty line."""
        answer_id, _ = _split_id(head[1:])
        lines = [head]
        size = len(head)
        while (line := self._next_line(command, deadline, timeout, mid_answer=True)).strip():
            lines.append(line)
            size += len(line) + 1
            if size > MAX_ANSWER_BYTES:
                raise self._too_large(command)
        self.check_id(head, command, command_id)
        return Answer(head[0] == "=", answer_id, tuple(lines))

    def poll_line(self, command: str = "", timeout: float | None = None) -> str | None:
        """The next line of output if one comes within ``timeout`` seconds (``None``: wait
        for ever; 0: only what is already there or arrives at once), else ``None``.
        Reads at least once, so a timeout of 0 still sees output already sent. Raises
        :class:`WireClosed` at the end of output, :class:`WireProtocolError` for a line
        longer than :data:`MAX_ANSWER_BYTES`. How a stream's lines are read, one at a time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._lines:
            if self._ended:
                raise WireClosed(command, "output", mid_answer=True)
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            chunk = self.transport.read(_WAIT_SLICE if remaining is None else min(remaining, _WAIT_SLICE))
            if chunk is None:
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                continue
            self._take(chunk, command, mid_answer=True)
        return self._lines.popleft()

    def send_blank(self) -> None:
        """Write an empty line: GTP answers nothing to it, and a streaming command
        (``margo-analyze``) stops at it. Raises :class:`WireClosed` when input is closed."""
        self._log("<<", "")
        try:
            self.transport.write(b"\n")
        except TransportClosed:
            raise WireClosed("", "input") from None

    def _too_large(self, command: str) -> WireProtocolError:
        return WireProtocolError(f"an answer longer than {MAX_ANSWER_BYTES} bytes", command, "size")

    def _next_line(self, command: str, deadline: float | None, timeout: float | None, *, mid_answer: bool) -> str:
        while not self._lines:
            self._fill(command, deadline, timeout, mid_answer)
        return self._lines.popleft()

    def _fill(self, command: str, deadline: float | None, timeout: float | None, mid_answer: bool) -> None:
        """Wait (until ``deadline``) for output and split it into lines."""
        if self._ended:
            raise WireClosed(command, "output", mid_answer=mid_answer)
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise WireTimeout(command, timeout if timeout is not None else 0.0)
        chunk = self.transport.read(_WAIT_SLICE if remaining is None else min(remaining, _WAIT_SLICE))
        if chunk is None:
            return  # nothing yet: _fill is called again and checks the deadline
        self._take(chunk, command, mid_answer)

    def _take(self, chunk: bytes, command: str, mid_answer: bool) -> None:
        """Split output just read (``b''``: the end of output) into lines."""
        if not chunk:
            self._ended = True
            if not self._partial:
                raise WireClosed(command, "output", mid_answer=mid_answer)
            chunk = b"\n"  # a last line without its line end still counts
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        if len(self._partial) > MAX_ANSWER_BYTES:
            self._partial = b""
            raise self._too_large(command)
        for raw in complete:
            line = preprocess(raw.decode("utf-8", errors="replace"))
            self._log(">>", line)
            self._lines.append(line)
