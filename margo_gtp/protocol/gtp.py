"""The GTP 2 line protocol: preprocessing, ids, dispatch and response framing.

This layer knows nothing about MarGo. It turns input lines into ``(id, name, args)``,
looks the name up in one registry of handlers, and frames what the handler returns:

    success   ``=[id] result\\n\\n``   (``=\\n\\n`` when there is neither id nor result)
    failure   ``?[id] message\\n\\n``

One space always follows ``=id`` (gtp.md section 1), even when the result is empty or
starts on the next line (``=7 \\nLevel 1...``), as GNU Go writes it: GoGui's
``GtpClient.readResponse`` and gogui-regress take the answer to be everything after the
first space of the whole reply, so ``=7\\nLevel 1`` would lose the word ``Level``.

A handler is any callable ``handler(args: list[str]) -> str | None | GtpStream``. It
signals failure by raising :class:`GtpError` (``? message``), :class:`GtpFatalError`
(``? message`` then the session ends) or :class:`GtpQuit` (``=`` then the session ends).
Any other exception is contained: the answer is ``? internal error``, the traceback
goes to stderr and the session goes on.

What is enforced here (gtp.md section 1): every input line is preprocessed (CR and
other control characters except HT/LF dropped, ``#`` comments cut, HT turned into a
space, blank lines skipped without reply); a result never contains an empty line (empty
lines inside a multi-line result are dropped); a result that starts with a newline
(``showboard``) begins on the line after ``=[id] ``. What is not: argument syntax and game
state are the handlers' business (see :mod:`margo_gtp.protocol.session`).

Handlers may come from several groups (the game session, an analysis group, GoGui
extras): :meth:`GtpEngine.add_handlers` merges them into the one registry that
``list_commands`` and ``known_command`` read.

Streaming commands (``margo-analyze``, in the style of ``kata-analyze``) return a
:class:`GtpStream`; the session loop writes ``=[id] ``, lets the stream write lines
until the next input line arrives, then ends the response with an empty line.
"""

from __future__ import annotations

import queue
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import IO, NamedTuple, Protocol, runtime_checkable

from margo_gtp.players.native_search import new_stop_flag

__all__ = [
    "GtpEngine",
    "GtpError",
    "GtpFatalError",
    "GtpOutputClosed",
    "GtpQuit",
    "GtpStream",
    "Handler",
    "Idle",
    "Reply",
    "format_response",
    "parse_command",
    "preprocess_line",
    "run_gtp_session",
]


#: The longest stderr explanation of a failed command (it quotes the command's input).
EXPLAINED_LINE_CHARS = 400
#: The longest input line read (characters, newline included). A longer one is read and
#: dropped a piece at a time, never held whole, and answered ``? syntax error`` with one
#: line on stderr; the session goes on. A whole line was read before: a 600 MB line ended
#: in MemoryError. The longest real command (``margo-setup`` of every point of a 19x19
#: pyramid) is about 25 KB; ``margo-analysis`` queries have the same cap.
MAX_LINE_CHARS = 1 << 20


class OverlongLine(str):
    """What the reader gives for a line over :data:`MAX_LINE_CHARS`: its first piece only
    (enough for the id), the rest read and dropped."""


def read_bounded_line(src: IO[str], limit: int = MAX_LINE_CHARS) -> str:
    """One line of ``src`` ('' at the end of input), or an :class:`OverlongLine` for one
    longer than ``limit`` characters, which is skipped to its end a piece at a time."""
    line = src.readline(limit + 1)
    if len(line) <= limit or line.endswith("\n"):
        return line
    while True:
        rest = src.readline(limit + 1)
        if not rest or rest.endswith("\n"):
            return OverlongLine(line[:EXPLAINED_LINE_CHARS] + "\n")


class GtpError(Exception):
    """Raised by a handler to answer ``? message``; the session goes on.

    ``detail`` (optional) says why, for a human: the engine writes it on stderr, never
    in the answer, whose canonical text referees compare literally (gtp.md section 1).
    """

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class GtpFatalError(GtpError):
    """Raised by a handler to answer ``? message`` and then end the session"""


class GtpQuit(Exception):
    """Raised by a handler to answer ``=`` (or ``= result``) and then end the session"""

    def __init__(self, result: str = "") -> None:
        super().__init__(result)
        self.result = result


class GtpOutputClosed(Exception):
    """The answers cannot be written any more (the controller closed the pipe, the disk is
    full): the session ends. The ``OSError`` is the ``__cause__``."""


@runtime_checkable
class GtpStream(Protocol):
    """A streaming result: :meth:`run` writes result lines (no empty line, each ending
    in ``\\n``) through ``write`` until ``stop_requested()`` is true, then returns.

    ``stop_requested()`` turns true when the next input line arrives, and at the end of
    input unless the stream has an attribute ``stop_at_eof = False`` (a stream that
    ends by itself, such as a search with a time limit)."""

    def run(self, write: Callable[[str], None], stop_requested: Callable[[], bool]) -> None: ...


Handler = Callable[[list[str]], "str | None | GtpStream"]


class Idle(Protocol):
    """Work done while the session waits for input (pondering): ``start()`` before each
    wait, ``stop()`` (which must return only once the work has stopped) after it."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class Reply(NamedTuple):
    """What one input line produced, before framing."""

    command_id: str | None
    is_error: bool
    text: str | GtpStream
    end_session: bool

# Characters dropped by preprocessing: every C0 control character except HT and LF, and DEL.
_DROPPED_CONTROLS = {code: None for code in list(range(32)) + [127] if code not in (9, 10)}


def preprocess_line(line: str) -> str:
    """Apply gtp.md section 1 to one raw line; returns '' for a line that gets no reply.

    >>> preprocess_line("  12 play\\tw d4 # comment\\r\\n")
    '12 play w d4'
    """
    line = line.translate(_DROPPED_CONTROLS)
    hash_at = line.find("#")
    if hash_at >= 0:
        line = line[:hash_at]
    return line.replace("\t", " ").strip()


def parse_command(line: str) -> tuple[str | None, str | None, list[str]]:
    """Split a preprocessed, non-empty line into ``(id, name, args)``.

    The id is the leading token when it is all digits (GTP ids are integers); ``name``
    is None when the line holds an id and nothing else.
    """
    tokens = line.split()
    command_id = None
    if tokens and tokens[0].isascii() and tokens[0].isdigit():
        command_id = tokens.pop(0)
    if not tokens:
        return command_id, None, []
    return command_id, tokens[0], tokens[1:]


def format_response(command_id: str | None, is_error: bool, text: str) -> str:
    """Frame one response: ``=id text\\n\\n`` or ``?id text\\n\\n``.

    Empty lines inside ``text`` are dropped (a GTP response ends at the first empty
    line); a text starting with a newline starts on the line after ``=id ``. The space
    after the head is written whenever anything stands between it and the final empty
    line, so a reader that takes everything after the first space (GoGui) gets the
    whole answer:

    >>> format_response("7", False, "\\nLevel 1\\nrow")
    '=7 \\nLevel 1\\nrow\\n\\n'
    >>> format_response("7", False, ""), format_response(None, False, "")
    ('=7 \\n\\n', '=\\n\\n')
    """
    head = _response_head(command_id, is_error)
    lines = text.replace("\r", "").split("\n")
    body = [lines[0].rstrip()] + [line.rstrip() for line in lines[1:] if line.strip()]
    if body[0]:
        return head + "\n".join(body) + "\n\n"
    if len(body) == 1:
        return (head if command_id else head.rstrip()) + "\n\n"  # '=7 ' but a bare '='
    return head + "\n" + "\n".join(body[1:]) + "\n\n"


def _response_head(command_id: str | None, is_error: bool) -> str:
    """``'=7 '``, ``'? '``...: the sign, the id, one space."""
    return ("?" if is_error else "=") + (command_id or "") + " "


class GtpEngine:
    """Dispatches GTP commands to registered handlers and frames the answers.

    Owns the protocol-level commands ``protocol_version``, ``known_command``,
    ``list_commands`` and ``quit``; everything else comes from handler groups added with
    :meth:`add_handlers`. Exceptions other than the Gtp* ones become ``internal error``
    with the traceback written to ``stderr``.
    """

    def __init__(
        self, handlers: Mapping[str, Handler] | None = None, *, stderr: IO[str] | None = None, program: str = "margo-gtp"
    ) -> None:
        self.handlers: dict[str, Handler] = {
            "protocol_version": self._cmd_protocol_version,
            "known_command": self._cmd_known_command,
            "list_commands": self._cmd_list_commands,
            "quit": self._cmd_quit,
        }
        self._stderr = stderr
        self.program = program
        if handlers:
            self.add_handlers(handlers)

    def add_handlers(self, handlers: Mapping[str, Handler]) -> None:
        """Register (or replace) handlers by command name."""
        self.handlers.update(handlers)

    def commands(self) -> list[str]:
        """Every registered command name, sorted."""
        return sorted(self.handlers)

    def run_command(self, name: str, args: list[str]) -> tuple[bool, str | GtpStream, bool]:
        """Run one command: returns ``(is_error, text, end_session)``.

        ``text`` is the result or the error message (a :class:`GtpStream` for streaming
        commands). Never raises, except ``KeyboardInterrupt``/``SystemExit``.
        """
        handler = self.handlers.get(name)
        if handler is None:
            return True, "unknown command", False
        try:
            result = handler(list(args))
        except GtpQuit as quit_:
            return False, quit_.result, True
        except GtpFatalError as error:
            self._explain(name, args, error)
            return True, str(error), True
        except GtpError as error:
            self._explain(name, args, error)
            return True, str(error), False
        except Exception:  # noqa: BLE001 - containment is the point: the session must go on
            stream = self._stderr or sys.stderr
            stream.write(f"margo-gtp: internal error in {name!r} {args!r}:\n{traceback.format_exc()}")
            stream.flush()
            return True, "internal error", False
        if result is None:
            return False, "", False
        if not isinstance(result, (str, GtpStream)):
            stream = self._stderr or sys.stderr
            stream.write(f"margo-gtp: internal error: {name!r} returned {type(result).__name__}, not text\n")
            return True, "internal error", False
        return False, result, False

    def _explain(self, name: str, args: list[str], error: GtpError) -> None:
        """Write why a command failed on stderr: its detail, and for every syntax error
        at least the offending command (illegal moves explain themselves the same way)."""
        if error.detail is None and str(error) != "syntax error":
            return
        reason = f": {error.detail}" if error.detail else ""
        stream = self._stderr or sys.stderr
        line = f"{self.program}: {error}: {' '.join([name, *args])!r}{reason}"
        if len(line) > EXPLAINED_LINE_CHARS:  # a megabyte command is not echoed whole
            line = f"{line[:EXPLAINED_LINE_CHARS]}... ({len(line)} characters)"
        stream.write(line + "\n")
        stream.flush()

    def handle_line(self, raw_line: str) -> Reply | None:
        """Preprocess and run one raw input line; None when the line gets no reply."""
        if isinstance(raw_line, OverlongLine):   # refused unread, with its id when it has one
            head = preprocess_line(raw_line)
            command_id = parse_command(head)[0] if head else None
            stream = self._stderr or sys.stderr
            stream.write(f"{self.program}: syntax error: a line longer than {MAX_LINE_CHARS} characters, "
                         f"ignored: {raw_line[:40]!r}...\n")
            stream.flush()
            return Reply(command_id, True, "syntax error", False)
        line = preprocess_line(raw_line)
        if not line:
            return None
        command_id, name, args = parse_command(line)
        if name is None:
            self._explain(command_id or "", [], GtpError("syntax error", detail="an id and no command"))
            return Reply(command_id, True, "syntax error", False)
        is_error, text, end = self.run_command(name, args)
        return Reply(command_id, is_error, text, end)

    def respond(self, raw_line: str) -> tuple[str | None, bool]:
        """Run one raw line and return ``(framed response or None, end_session)``.

        Streaming results need the session loop (:func:`run_gtp_session`); here they
        are answered with ``? internal error``.
        """
        reply = self.handle_line(raw_line)
        if reply is None:
            return None, False
        if not isinstance(reply.text, str):
            return format_response(reply.command_id, True, "internal error"), reply.end_session
        return format_response(reply.command_id, reply.is_error, reply.text), reply.end_session

    # -- protocol-level commands ------------------------------------------------------

    def _cmd_protocol_version(self, args: list[str]) -> str:
        _no_arguments(args)
        return "2"

    def _cmd_known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error")
        return "true" if args[0] in self.handlers else "false"

    def _cmd_list_commands(self, args: list[str]) -> str:
        _no_arguments(args)
        return "\n".join(self.commands())

    def _cmd_quit(self, args: list[str]) -> None:
        _no_arguments(args)
        raise GtpQuit()


def _no_arguments(args: list[str]) -> None:
    if args:
        raise GtpError("syntax error")


class _LineReader:
    """Reads input lines; switches to a background reader thread the first time a
    stream needs to know whether another line is waiting (plain reads otherwise, so the
    common path costs nothing).

    With the reader thread, two stop flags (:func:`~margo_gtp.players.native_search.new_stop_flag`)
    say what is waiting -- a line or the end of input (:attr:`line_flag`), a command line
    (:attr:`command_flag`) -- set by the reader thread as a line arrives and brought up to
    date by :meth:`readline` (both under one lock, so neither misses a line). A stream
    hands one to a search as its ``stop``: the C tree then reads it before every
    simulation, without the GIL, instead of asking a callable every few milliseconds."""

    def __init__(self, src: IO[str]) -> None:
        self._src = src
        self._queue: queue.Queue[str] | None = None
        self._lock = threading.Lock()
        self.line_flag = new_stop_flag()
        self.command_flag = new_stop_flag()

    def readline(self) -> str:
        if self._queue is None:
            return read_bounded_line(self._src)
        line = self._queue.get()
        with self._lock:
            if line == "":
                self._queue.put("")  # keep EOF visible to later reads
            self._update_flags()
        return line

    def _update_flags(self) -> None:
        """The flags from the queue (under the lock)."""
        assert self._queue is not None
        with self._queue.mutex:
            waiting = [self._queue.queue[0]] if self._queue.queue else []
        for flag, up in ((self.line_flag, bool(waiting)), (self.command_flag, bool(waiting) and waiting[0] != "")):
            if up:
                flag.set()
            else:
                flag.clear()

    def line_waiting(self) -> bool:
        """True when a line, or the end of input, is waiting."""
        if self._queue is None:
            self._queue = queue.Queue()
            threading.Thread(target=self._pump, name="gtp-reader", daemon=True).start()
        return not self._queue.empty()

    def command_waiting(self) -> bool:
        """True when a line is waiting; the end of input does not count."""
        if not self.line_waiting():
            return False
        assert self._queue is not None
        with self._queue.mutex:
            return bool(self._queue.queue) and self._queue.queue[0] != ""

    def _pump(self) -> None:
        assert self._queue is not None
        for line in iter(lambda: read_bounded_line(self._src), ""):
            with self._lock:
                self._queue.put(line)
                self._update_flags()
        with self._lock:
            self._queue.put("")
            self._update_flags()


def run_gtp_session(
    engine: GtpEngine,
    src: IO[str],
    dst: IO[str],
    *,
    log: Callable[[str, str], None] | None = None,
    idle: Idle | None = None,
) -> None:
    """Read commands from ``src`` and write responses to ``dst`` until ``quit``, a fatal
    error or EOF (which ends the session cleanly, like ``quit``). Raises
    :class:`GtpOutputClosed` when ``dst`` cannot be written.

    ``log(direction, text)`` (optional) sees every raw line read (direction ``">>"``)
    and every response written (``"<<"``). ``idle`` (optional, e.g. pondering) is
    started before each wait for input and stopped as soon as a line (or EOF) arrives,
    before the line is handled.
    """
    reader = _LineReader(src)
    while True:
        if idle is not None:
            idle.start()
        try:
            raw_line = reader.readline()
        finally:
            if idle is not None:
                idle.stop()
        if raw_line == "":
            return
        if log is not None:
            log(">>", raw_line)
        reply = engine.handle_line(raw_line)
        if reply is None:
            continue
        if isinstance(reply.text, str):
            _write(dst, format_response(reply.command_id, reply.is_error, reply.text), log)
        else:
            _run_stream(engine, reply.text, reply.command_id, reader, dst, log)
        if reply.end_session:
            return


def _write(dst: IO[str], text: str, log: Callable[[str, str], None] | None) -> None:
    try:
        dst.write(text)
        dst.flush()
    except OSError as error:
        raise GtpOutputClosed(str(error)) from error
    if log is not None:
        log("<<", text)


def _run_stream(
    engine: GtpEngine,
    stream: GtpStream,
    command_id: str | None,
    reader: _LineReader,
    dst: IO[str],
    log: Callable[[str, str], None] | None,
) -> None:
    _write(dst, _response_head(command_id, False) + "\n", log)

    def write(line: str) -> None:
        text = "\n".join(part for part in line.split("\n") if part.strip())
        if text:
            _write(dst, text + "\n", log)

    # A stream that ends by itself (stop_at_eof False: a snapshot) keeps going at the end
    # of input and stops only for a command; an endless one stops at either.
    reader.line_waiting()  # the reader thread runs from here on: the flags follow the input
    stop = reader.line_flag if getattr(stream, "stop_at_eof", True) else reader.command_flag
    try:
        stream.run(write, stop)
    except GtpOutputClosed:
        raise  # nobody reads the rest: not the stream's fault
    except Exception:  # noqa: BLE001 - a failing stream still ends its response
        (engine._stderr or sys.stderr).write(f"margo-gtp: internal error in stream:\n{traceback.format_exc()}")
    _write(dst, "\n", log)

