"""The game layer of the client: :class:`SimpleEngine`, :class:`Limit` and the results.

Play a game against ``margo-gtp`` from a script::

    from margo_gtp.client import Limit, SimpleEngine
    from margo_gtp.engine import Board

    board = Board()
    with SimpleEngine.popen(["margo-gtp", "--player", "random", "--seed", "1"]) as engine:
        while not board.is_game_over():
            board.push(engine.play(board, Limit(seconds=0.1)).move)

Reading guide
-------------
Two layers, as python-chess's ``SimpleEngine``:

* **The wire** (:mod:`margo_gtp.client.wire`, reached through
  :meth:`SimpleEngine.do_command`, gomill's ``do_command``): send one GTP command with a
  numeric id, wait (with a timeout) for its answer, return the text or raise. A ``?``
  answer raises :class:`EngineCommandError` and the engine stays usable. Anything else
  that goes wrong - the engine exits or closes its output
  (:class:`EngineTerminatedError`), writes something that is not a GTP answer
  (:class:`EngineProtocolError`), or does not answer in time
  (:class:`EngineTimeoutError`) - leaves the channel in an unknown state, so the engine is
  killed at once; every later call raises :class:`EngineTerminatedError` until
  :meth:`SimpleEngine.restart`. Every error carries the engine's last stderr lines
  (``error.stderr``). The process itself is a
  :class:`~margo_gtp.client.process.ProcessTransport`.
* **The game** (:meth:`SimpleEngine.play`, :meth:`SimpleEngine.analyse`,
  :meth:`SimpleEngine.configure`): the caller owns the :class:`~margo_gtp.engine.Board`;
  the client brings the engine to it before every question (see :meth:`SimpleEngine.sync`)
  and judges the answer with the rules core: a malformed or illegal ``genmove`` answer
  raises :class:`IllegalEngineMoveError`.

What is enforced: GTP 2 framing (answers start with ``=``/``?``, optionally the id sent,
and end at an empty line; an answer with another id is a protocol error), a deadline on
every wait, and the legality of every move the engine proposes. What is not: the
engine's strength or honesty beyond legality (an engine may ignore a :class:`Limit`).

The wire log: every line sent (``<<``), received (``>>``) and written to stderr (``!!``)
is logged at DEBUG on the ``margo_gtp.client`` logger and, when ``wire_log`` is given,
appended to that text stream or file as ``<name> <direction> <line>``. A file named by path
is a :class:`~margo_gtp.files.CappedLog` (at most ``LOG_CAP_BYTES``, then one cap line): an
engine that floods its stderr cannot fill the disk, and its stderr is still drained.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import shlex
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from margo_gtp.client.errors import (
    EngineCommandError, EngineError, EngineProtocolError, EngineStartError, EngineTerminatedError, EngineTimeoutError,
    IllegalEngineMoveError, InvalidCommandError,
)
from margo_gtp.client.process import EngineTransport, ProcessTransport, find_program
from margo_gtp.client.results import AnalysisInfo, AnalysisResult, parse_candidate
from margo_gtp.client.stream import MAX_REPORT_LINES, QUIET_SECONDS
from margo_gtp.client.wire import InvalidCommandError as WireInvalidCommandError
from margo_gtp.client.wire import GtpWire, WireClosed, WireProtocolError, WireTimeout, check_timeout
from margo_gtp.engine import Board, Colour, Move, Point, Rules
from margo_gtp.files import CappedLog
from margo_gtp.vertex import InvalidVertexError

if TYPE_CHECKING:
    from margo_gtp.client.stream import AnalysisStream

__all__ = [
    "AnalysisInfo", "AnalysisResult", "DEFAULT_TIMEOUT", "Limit", "MAX_LIMIT_SECONDS", "PlayResult", "READ_ONLY_COMMANDS",
    "SimpleEngine",
]


LOGGER = logging.getLogger("margo_gtp.client")

DEFAULT_TIMEOUT = 30.0   # seconds any command may take (plus Limit.seconds for play/analyse)
#: Longest Limit.seconds (11.6 days): a figure every engine's clock can hold.
MAX_LIMIT_SECONDS = 1e6
QUIT_GRACE = 2.0         # seconds quit() waits for the engine to exit before killing it

#: The default of every ``timeout`` parameter: the engine's own ``timeout``.
_DEFAULT: Any = object()

#: Commands that only read the engine's state: sending them through :meth:`SimpleEngine.do_command`
#: keeps the client's record of the position the engine holds. Any other command drops it.
READ_ONLY_COMMANDS = frozenset({
    "protocol_version", "name", "version", "known_command", "list_commands", "showboard",
    "final_score", "final_status_list", "reg_genmove", "time_settings", "time_left",
    "kgs-time_settings", "gogui-analyze_commands", "margo-board", "margo-legal_moves",
    "margo-get_rules", "margo-score", "margo-analyze_snapshot", "margo-set_limit",
})


# ---------------------------------------------------------------------------------------
# Values


@dataclass(frozen=True)
class Limit:
    """How long the engine may think: ``seconds`` of wall time and/or ``playouts``
    (simulations of an MCTS player); ``None`` leaves that kind to the engine's default.

    Sent to the engine with ``margo-set_limit`` (the engine applies the tighter of the
    limit and its clock). A player without a search (random, heuristic) ignores it.

    ``seconds`` is at most :data:`MAX_LIMIT_SECONDS`: the engine waits on it with its
    own clock, which need not take ``1e20``.
    """

    seconds: float | None = None
    playouts: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and not (isinstance(self.seconds, (int, float)) and math.isfinite(self.seconds) and self.seconds >= 0):
            raise ValueError(f"invalid Limit seconds: {self.seconds!r} (a number >= 0)")
        if self.seconds is not None and self.seconds > MAX_LIMIT_SECONDS:
            raise ValueError(f"invalid Limit seconds: {self.seconds!r} (at most {MAX_LIMIT_SECONDS:g})")
        if self.playouts is not None and not (isinstance(self.playouts, int) and not isinstance(self.playouts, bool) and self.playouts >= 1):
            raise ValueError(f"invalid Limit playouts: {self.playouts!r} (an integer >= 1)")

    def gtp_args(self) -> list[str]:
        """The ``margo-set_limit`` arguments, e.g. ``['seconds=0.5', 'playouts=200']``."""
        args = []
        if self.seconds is not None:
            args.append(f"seconds={self.seconds:g}")
        if self.playouts is not None:
            args.append(f"playouts={self.playouts}")
        return args


@dataclass(frozen=True)
class PlayResult:
    """What :meth:`SimpleEngine.play` returns: the engine's ``move`` (``None`` when it
    resigned), and ``resigned``. ``Move.PASS`` means the side to move has no legal move."""

    move: Move | None
    resigned: bool = False


@dataclass(frozen=True)
class _Position:
    """What the client last brought the engine to: enough to prove a board extends it."""

    rules: Rules
    root: tuple[tuple[Point, Colour], ...]
    root_to_move: Colour
    history: tuple[tuple[Colour, Move], ...] = field(default=())

    @classmethod
    def of(cls, board: Board) -> "_Position":
        root = tuple(sorted(board.root_balls().items(), key=lambda item: (item[0].level, item[0].y, item[0].x)))
        return cls(board.rules, root, board.root_to_move, tuple(board.history))


# ---------------------------------------------------------------------------------------
# The engine


class SimpleEngine:
    """A GTP engine running as a child process, driven by blocking calls.

    Create with :meth:`popen`. The engine runs in its own process session, so Ctrl-C at
    the terminal reaches only the controller and :meth:`kill` reaches the engine's
    children too. ``timeout`` (seconds; ``None`` waits for ever) is the default deadline
    of every call.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        name: str | None = None,
        wire_log: str | os.PathLike[str] | IO[str] | None = None,
        **popen_kwargs: Any,
    ) -> None:
        self.argv = list(argv)
        self.timeout = check_timeout(timeout)
        self.name = name or (Path(self.argv[0]).name if self.argv else "engine")
        self.popen_kwargs = popen_kwargs
        self._log_lock = threading.Lock()
        self._owns_wire_log = isinstance(wire_log, (str, os.PathLike))
        self._wire_log: IO[str] | None = (
            CappedLog.open(wire_log) if isinstance(wire_log, (str, os.PathLike)) else wire_log
        )
        self._transport: EngineTransport | None = None
        self._wire: GtpWire | None = None
        self._next_id = 1  # ids go on counting across restarts
        self._broken: str | None = "not started"
        self._commands: frozenset[str] | None = None
        self._position: _Position | None = None
        self._limit: Limit | None = None
        self._stream: Any = None  # the AnalysisStream running on the wire, if any

    # -- life cycle ---------------------------------------------------------------------

    @classmethod
    def popen(
        cls,
        command: str | Sequence[str],
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        name: str | None = None,
        wire_log: str | os.PathLike[str] | IO[str] | None = None,
        **popen_kwargs: Any,
    ) -> "SimpleEngine":
        """Start the engine: ``command`` is an argument list or one shell-quoted command
        line (split with :func:`shlex.split`, never run through a shell). ``popen_kwargs``
        go to :class:`subprocess.Popen` (e.g. ``cwd``, ``env``).

        Raises :class:`EngineStartError` when the command cannot be started or split
        (bad shell quoting), ValueError for a ``timeout`` that is not ``None`` or a
        number of seconds ``>= 0`` (any size: ``inf`` waits for ever, as ``None``).
        """
        check_timeout(timeout)
        if isinstance(command, str):
            try:
                words = shlex.split(command)
            except ValueError as error:
                raise EngineStartError(f"cannot split engine command {command!r}: {error}") from None
        else:
            words = [str(word) for word in command]
        if not words:
            raise EngineStartError(f"empty engine command: {command!r}")
        engine = cls(words, timeout=timeout, name=name, wire_log=wire_log, **popen_kwargs)
        engine.start()
        return engine

    @classmethod
    def connect(
        cls,
        transport: EngineTransport,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        name: str = "engine",
        wire_log: str | os.PathLike[str] | IO[str] | None = None,
    ) -> "SimpleEngine":
        """Drive an engine already behind ``transport`` (no process is started, and
        :meth:`restart` cannot start one): how the tests drive the client against a
        scripted mock transport, as python-chess tests ``chess.engine``."""
        engine = cls([], timeout=timeout, name=name, wire_log=wire_log)
        engine._transport = transport
        engine._wire = GtpWire(transport, log=engine._log)
        engine._broken = None
        return engine

    def start(self) -> None:
        """Start (or start again) the engine process and the thread draining its stderr."""
        if not self.argv:
            raise EngineStartError(f"engine {self.name!r} has no command to start (it was connected to a transport)")
        if self._transport is not None and self._transport.returncode is None:
            raise RuntimeError(f"engine {self.name!r} is already running")
        if self._wire is not None:
            self._next_id = self._wire.next_id
        self._wire = None
        self._commands = None
        self._position = None
        self._limit = None
        self._stream = None
        self._log("--", f"start {shlex.join(self.argv)}")
        try:
            # find_program: margo-gtp beside this Python when its venv is not activated
            self._transport = ProcessTransport(
                find_program(self.argv), on_stderr=lambda line: self._log("!!", line), **self.popen_kwargs
            )
        except OSError as error:
            self._transport = None
            self._broken = "not started"
            raise EngineStartError(f"cannot start engine {self.name!r}: {error.strerror or error}: {self.argv[0]!r}") from error
        self._wire = GtpWire(self._transport, next_id=self._next_id, log=self._log)
        self._broken = None

    def restart(self) -> None:
        """Kill the engine (if running) and start a fresh one: the cure after an error."""
        self.kill()
        self.start()

    def kill(self) -> None:
        """Kill the engine and its process group at once; never raises for a dead engine."""
        if self._transport is None:
            return
        self._transport.kill()
        self._broken = self._broken or "engine was killed"
        self._position = None
        self._log("--", f"killed (exit code {self._transport.returncode})")

    def quit(self) -> None:
        """Say ``quit`` if the engine is healthy, wait briefly for it to exit, then make
        sure it is gone. Never raises; safe to call twice."""
        transport = self._transport
        if transport is not None and transport.returncode is None and self._broken is None:
            try:
                self._command("quit", (), QUIT_GRACE)
                transport.wait(QUIT_GRACE)
            except EngineError:
                pass
        self.kill()
        self._broken = "engine has quit"
        if self._owns_wire_log and self._wire_log is not None:
            self._wire_log.close()
            self._wire_log = None

    close = quit

    def __enter__(self) -> "SimpleEngine":
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.quit()

    def __repr__(self) -> str:
        return f"<SimpleEngine {self.name!r} pid={self.pid}>"

    @property
    def pid(self) -> int | None:
        return self._transport.pid if self._transport is not None else None

    @property
    def returncode(self) -> int | None:
        """The engine's exit code once it has ended, else None."""
        return self._transport.returncode if self._transport is not None else None

    @property
    def is_usable(self) -> bool:
        """True when the engine runs and its channel is in a known state."""
        return self._transport is not None and self._transport.returncode is None and self._broken is None

    @property
    def stderr(self) -> list[str]:
        """The engine's last lines of standard error (at most :data:`~margo_gtp.client.process.STDERR_LINES`)."""
        return list(self._transport.stderr_tail) if self._transport is not None else []

    # -- the wire -----------------------------------------------------------------------

    def do_command(self, command: str, *args: object, timeout: float | None = _DEFAULT) -> str:
        """Send one GTP command and return its success text (without ``=`` and id).

        A multi-line answer comes with its lines joined by ``\\n``. ``timeout`` bounds the
        wait (seconds; default the engine's; ``None`` waits for ever). Unless ``command``
        only reads state (:data:`READ_ONLY_COMMANDS`), the client forgets which position
        the engine holds, so the next :meth:`play` sets it up again. A command or
        argument holding a line break or another control character raises
        :class:`InvalidCommandError` and nothing is sent (GTP framing would split it and
        every later answer would belong to the wrong command).
        """
        wait = self.timeout if timeout is _DEFAULT else check_timeout(timeout)
        if command not in READ_ONLY_COMMANDS:
            self._position = None
        if command == "margo-set_limit":
            self._limit = None  # the next play() or analyse() sends its own limit again
        return self._command(command, args, wait)

    def known_command(self, command: str) -> bool:
        """Whether the engine implements ``command`` (from ``list_commands``, asked once)."""
        return command in self.commands

    @property
    def commands(self) -> frozenset[str]:
        """The engine's ``list_commands``, asked once per process (empty if it fails)."""
        if self._commands is None:
            try:
                text = self._command("list_commands", (), self.timeout)
            except EngineCommandError:
                text = ""  # an engine without list_commands: assume nothing beyond the basics
            self._commands = frozenset(line.strip() for line in text.splitlines() if line.strip())
        return self._commands

    def _command(self, command: str, args: Sequence[object], timeout: float | None) -> str:
        """One command through the wire; its wire errors become the client's. A running
        :meth:`analysis` stream is stopped first (the engine would stop it anyway)."""
        self._check_running()
        if self._stream is not None:
            self._stream.stop()
            self._check_running()
        assert self._wire is not None
        with self._wire_errors(command):
            answer = self._wire.command(command, args, timeout=timeout)
        if not answer.ok:
            raise EngineCommandError(command, [str(arg) for arg in args], answer.text, stderr=self.stderr)
        return answer.text

    def _check_running(self) -> None:
        if self._broken is not None or self._wire is None:
            raise EngineTerminatedError(
                f"engine {self.name!r} is not running: {self._broken or 'not started'}",
                stderr=self.stderr, returncode=self.returncode,
            )

    @contextlib.contextmanager
    def _wire_errors(self, command: str) -> Iterator[None]:
        """The wire's errors as the client's (the engine is killed for all but a bad command)."""
        try:
            yield
        except WireInvalidCommandError as error:
            raise InvalidCommandError(str(error), stderr=self.stderr) from None
        except WireClosed as error:
            raise self._terminated(command, error.stream) from None
        except WireTimeout as error:
            raise self._fail(EngineTimeoutError, f"engine {self.name!r} did not answer {command!r} within {error.timeout:g} s") from None
        except WireProtocolError as error:
            if error.reason == "garbage":
                message = f"engine {self.name!r} answered {command!r} with a line that is not a GTP answer: {error.line!r}"
            elif error.reason == "id":
                message = f"engine {self.name!r} answered {command!r} (id {error.command_id}) with id {error.answer_id}"
            else:
                message = f"engine {self.name!r} answered {command!r} with {error}"
            raise self._fail(EngineProtocolError, message) from None

    def _terminated(self, command: str, stream: str = "output") -> EngineTerminatedError:
        """The error for a closed pipe: the exit code if the engine exits soon, else 'still
        running'."""
        code = self._transport.wait(0.5) if self._transport is not None else None
        state = "still running" if code is None else f"exit code {code}"
        error = self._fail(EngineTerminatedError, f"engine {self.name!r} closed its {stream} during {command!r} ({state})")
        error.returncode = code
        return error

    def _fail(self, kind: type[EngineError], message: str) -> Any:
        """Kill the engine (its channel is in an unknown state) and build the error."""
        self._broken = message
        self._log("--", f"broken: {message}")
        self.kill()
        if self._transport is not None:  # the engine is gone: let the last stderr lines in
            self._transport.join_stderr(timeout=1.0)
        return kind(message, stderr=self.stderr)

    def _log(self, direction: str, line: str) -> None:
        LOGGER.debug("%s %s %s", self.name, direction, line)
        if self._wire_log is not None:
            with self._log_lock:
                try:
                    self._wire_log.write(f"{self.name} {direction} {line}\n")
                    self._wire_log.flush()
                except (OSError, ValueError):
                    pass

    # -- the game -----------------------------------------------------------------------

    def configure(self, rules: Rules, *, timeout: float | None = _DEFAULT) -> None:
        """Give the engine ``rules`` and an empty board (a new game under those rules)."""
        self.sync(Board(rules), timeout=timeout)

    def sync(self, board: Board, *, timeout: float | None = _DEFAULT) -> None:
        """Bring the engine to ``board``: rules, root position, side to move, move history.

        When the client knows what it last sent (nothing but read-only commands went to
        the engine since) and ``board`` has the same rules and root, only the difference
        is sent: ``undo`` back to the common history, then ``play`` for the new moves -
        when that is fewer commands than starting over. Otherwise it starts over:
        ``boardsize``, ``clear_board``, ``margo-set_rules`` with every option,
        ``margo-setup`` for the root balls (a set-up position) and ``margo-to_move`` when
        the root's side to move is not the first player, then ``play`` for every move.
        Moves are replayed rather than the current position set up, because repetition
        (ko) and captures depend on the history: replay is the exact way.
        """
        wait = self.timeout if timeout is _DEFAULT else check_timeout(timeout)
        target = _Position.of(board)
        known, self._position = self._position, None  # unknown until every command succeeded
        if known is not None and known.rules == target.rules and known.root == target.root and known.root_to_move == target.root_to_move:
            common = 0
            for mine, theirs in zip(known.history, target.history):
                if mine != theirs:
                    break
                common += 1
            undos = len(known.history) - common
            restart_cost = 4 + len(target.history)
            if undos + len(target.history) - common < restart_cost:
                for _ in range(undos):
                    self._command("undo", (), wait)
                self._replay(target.history[common:], wait)
                self._position = target
                return
        self._command("boardsize", (target.rules.size,), wait)
        self._command("clear_board", (), wait)
        options = [f"{key}={value}" for key, value in target.rules.options().items() if key != "size"]
        self._command("margo-set_rules", options, wait)
        if target.root:
            self._command("margo-setup", [word for point, colour in target.root for word in (colour.letter, point.gtp())], wait)
        if target.root or target.root_to_move != target.rules.first_player:
            self._command("margo-to_move", (target.root_to_move.letter,), wait)
        self._replay(target.history, wait)
        self._position = target

    def _replay(self, moves: Sequence[tuple[Colour, Move]], timeout: float | None) -> None:
        for colour, move in moves:
            self._command("play", (colour.letter, move.gtp()), timeout)

    def _set_limit(self, limit: Limit, timeout: float | None) -> None:
        if limit == self._limit:
            return
        if "margo-set_limit" not in self.commands:
            if limit != Limit():
                raise EngineError(f"engine {self.name!r} cannot honour {limit!r}: it does not know 'margo-set_limit'", stderr=self.stderr)
            return
        self._command("margo-set_limit", limit.gtp_args(), timeout)
        self._limit = limit

    def _think_timeout(self, limit: Limit, timeout: float | None) -> float | None:
        if timeout is not _DEFAULT:
            return check_timeout(timeout)
        if self.timeout is None:
            return None
        return self.timeout + (limit.seconds or 0.0)

    def play(self, board: Board, limit: Limit = Limit(), *, timeout: float | None = _DEFAULT) -> PlayResult:
        """Ask the engine for its move for the side to move in ``board`` (``board`` is not changed).

        The engine is first brought to ``board`` (:meth:`sync`) and given ``limit``.
        ``timeout`` defaults to the engine's timeout plus ``limit.seconds``. Raises
        :class:`IllegalEngineMoveError` for a malformed or illegal answer; ``pass`` is
        accepted when the side to move has no legal move (the engine's way to say so).
        """
        colour = board.to_move
        self.sync(board)
        self._set_limit(limit, self.timeout)
        wait = self._think_timeout(limit, timeout)
        known, self._position = self._position, None
        answer = self._command("genmove", (colour.letter,), wait)
        return self._played(board, colour, known, answer)

    def play_analysed(self, board: Board, limit: Limit = Limit(), *, interval: float = 0.25,
                      on_report: Callable[[AnalysisResult], None] | None = None,
                      timeout: float | None = _DEFAULT) -> PlayResult:
        """:meth:`play` through ``margo-genmove_analyze C INTERVAL`` when the engine has it:
        the same move, and meanwhile ``on_report(result)`` (an :class:`AnalysisResult`,
        called in this thread; it must not raise) with the engine's own search so far,
        about every ``interval`` seconds. An engine without the command plays by
        :meth:`play` and reports nothing; a player without a search reports nothing.
        Memory is bounded: one report at a time (at most :data:`MAX_REPORT_LINES` lines)."""
        if "margo-genmove_analyze" not in self.commands:
            return self.play(board, limit, timeout=timeout)
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 <= interval <= 600:
            raise ValueError(f"invalid analysis interval: {interval!r} (seconds, 0..600)")
        colour = board.to_move
        self.sync(board)
        self._set_limit(limit, self.timeout)
        wait = self._think_timeout(limit, timeout)
        known, self._position = self._position, None
        answer = self._genmove_reports(colour, max(1, round(interval * 100)), board.size, wait, on_report)
        return self._played(board, colour, known, answer)

    def _genmove_reports(self, colour: Colour, centiseconds: int, size: int, wait: float | None,
                         on_report: Callable[[AnalysisResult], None] | None) -> str:
        """Send ``margo-genmove_analyze``, hand each complete report to ``on_report`` and
        return the move of its ``play`` line (the wire is in step again after it)."""
        name = "margo-genmove_analyze"
        self._check_running()
        assert self._wire is not None
        deadline = None if wait is None else time.monotonic() + wait
        report: list[tuple[int, Any]] = []

        def publish() -> None:
            report.sort(key=lambda item: item[0])
            if on_report is not None:
                on_report(AnalysisResult(colour, tuple(info for _, info in report)))
            report.clear()

        move = None
        with self._wire_errors(name):
            command_id = self._wire.send(name, (colour.letter, centiseconds))
            head = self._wire.read_head(name, deadline=deadline, timeout=wait)
            self._wire.check_id(head, name, command_id)
            if head.startswith("?"):  # refused: the rest is its message, and the wire is in step
                answer = self._wire.read_rest(head, name, command_id, deadline=deadline, timeout=wait)
                raise EngineCommandError(name, [colour.letter, str(centiseconds)], answer.text, stderr=self.stderr)
            while True:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                line = self._wire.poll_line(name, QUIET_SECONDS if report else left)
                if line is None:
                    if not report:
                        raise WireTimeout(name, wait if wait is not None else 0.0)
                    publish()  # the engine wrote the report's lines together, then searched on
                elif not line.strip():
                    break
                elif move is None and line.startswith("play "):
                    move = line.removeprefix("play ").strip()
                    if report:
                        publish()
                else:
                    try:
                        order, info = parse_candidate(line, size)
                    except (ValueError, KeyError) as error:
                        raise self._fail(EngineProtocolError, f"engine {self.name!r} wrote a bad line in {name!r}: {line!r} ({error})") from None
                    if order == 0 and report:
                        publish()
                    report.append((order, info))
                    if len(report) > MAX_REPORT_LINES:
                        raise self._fail(EngineProtocolError, f"engine {self.name!r} wrote a {name!r} report longer than {MAX_REPORT_LINES} lines")
        if move is None:
            raise self._fail(EngineProtocolError, f"engine {self.name!r} ended {name!r} without a 'play' line")
        return move

    def _played(self, board: Board, colour: Colour, known: Any, answer: str) -> PlayResult:
        """The result of a genmove answer: resign, or a move checked on ``board``."""
        token = answer.strip()
        if token.lower() == "resign":
            return PlayResult(None, resigned=True)  # the engine's state after resigning is its own: forget it
        try:
            move = Move.from_gtp(token, board.size) if token and len(token.split()) == 1 else None
        except (InvalidVertexError, ValueError):
            move = None
        if move is None:
            raise IllegalEngineMoveError(f"engine {self.name!r} answered genmove {colour.letter} with a malformed move: {answer!r}", answer, stderr=self.stderr)
        if board.is_legal(move, colour):
            if known is not None:
                self._position = _Position(known.rules, known.root, known.root_to_move, (*known.history, (colour, move)))
            return PlayResult(move)
        if move.is_pass and not board.legal_moves(colour):
            self._position = known  # no legal move: the engine says pass and plays nothing
            return PlayResult(move)
        raise IllegalEngineMoveError(f"engine {self.name!r} answered genmove {colour.letter} with an illegal move: {move.gtp()!r}", answer, stderr=self.stderr)

    def analyse(self, board: Board, limit: Limit = Limit(), *, timeout: float | None = _DEFAULT) -> AnalysisResult:
        """The engine's analysis of ``board`` for the side to move, from
        ``margo-analyze_snapshot`` (the non-streaming form of ``margo-analyze``).

        Raises :class:`EngineError` when the engine lacks the command (``margo-gtp``
        offers it with a searching player, e.g. ``--player mcts``), and
        :class:`EngineProtocolError` for an answer that is not ``info`` lines.
        """
        if "margo-analyze_snapshot" not in self.commands:
            raise EngineError(
                f"engine {self.name!r} cannot analyse: it does not know 'margo-analyze_snapshot' "
                "(margo-gtp has it, whatever its player)",
                stderr=self.stderr,
            )
        colour = board.to_move
        self.sync(board)
        self._set_limit(limit, self.timeout)
        text = self._command("margo-analyze_snapshot", (colour.letter,), self._think_timeout(limit, timeout))
        candidates = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                candidates.append(parse_candidate(line, board.size))
            except (ValueError, KeyError) as error:
                raise self._fail(EngineProtocolError, f"engine {self.name!r} answered 'margo-analyze_snapshot' with a bad info line: {line!r} ({error})") from None
        candidates.sort(key=lambda item: item[0])
        return AnalysisResult(colour, tuple(info for _, info in candidates))

    def analysis(self, board: Board, *, interval: float = 0.2, limit: Limit | None = None,
                 timeout: float | None = _DEFAULT) -> "AnalysisStream":
        """Start a streaming analysis of ``board`` for the side to move (``margo-analyze C
        INTERVAL``) and return its :class:`~margo_gtp.client.stream.AnalysisStream`: an
        iterator of :class:`AnalysisResult` updates, one every ``interval`` seconds (at
        least 0.01), and a context manager that stops the stream::

            with engine.analysis(board, interval=0.2) as stream:
                for result in stream:
                    print(result.best_moves[0].gtp(), result.candidates[0].visits)
                    if result.candidates[0].visits > 1000:
                        break

        The stream ends at :meth:`~margo_gtp.client.stream.AnalysisStream.stop` (from any
        thread), at ``limit`` (seconds since the start, or the candidates' visits
        together), or before the next command sent through this engine. ``timeout``
        bounds each wait for a line (default: the engine's timeout plus ``interval``).
        With no legal move for the side to move the stream is stopped at once and gives
        no update. Raises :class:`EngineError` when the engine lacks ``margo-analyze``
        (use :meth:`analyse` then), ValueError for an interval that is not a number of
        seconds in 0..600.
        """
        from margo_gtp.client.stream import AnalysisStream

        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 <= interval <= 600:
            raise ValueError(f"invalid analysis interval: {interval!r} (seconds, 0..600)")
        if limit is not None and not isinstance(limit, Limit):
            raise ValueError(f"invalid analysis limit: {limit!r} (a Limit or None)")
        if "margo-analyze" not in self.commands:
            raise EngineError(
                f"engine {self.name!r} cannot stream analysis: it does not know 'margo-analyze'", stderr=self.stderr)
        if self._stream is not None:
            self._stream.stop()  # one stream at a time on the wire
        colour = board.to_move
        self.sync(board)
        centiseconds = max(1, round(interval * 100))
        if timeout is _DEFAULT:
            wait = None if self.timeout is None else self.timeout + centiseconds / 100
        else:
            wait = check_timeout(timeout)
        self._check_running()
        assert self._wire is not None
        with self._wire_errors("margo-analyze"):
            command_id = self._wire.send("margo-analyze", (colour.letter, centiseconds))
            deadline = None if wait is None else time.monotonic() + wait
            head = self._wire.read_head("margo-analyze", deadline=deadline, timeout=wait)
            self._wire.check_id(head, "margo-analyze", command_id)
            if head.startswith("?"):  # refused: the rest is its message, and the wire is in step
                answer = self._wire.read_rest(head, "margo-analyze", command_id, deadline=deadline, timeout=wait)
                raise EngineCommandError("margo-analyze", [colour.letter, str(centiseconds)], answer.text,
                                         stderr=self.stderr)
        stream = AnalysisStream(self, colour, board.size, command_id, centiseconds / 100, limit, wait)
        self._stream = stream
        if not board.legal_moves(colour):
            stream.stop()  # nothing will ever be reported
        return stream

    # The stream's access to the wire (AnalysisStream calls these; they keep the errors
    # and the broken-engine rule of every other command).

    def _stream_line(self, wait: float | None) -> str | None:
        self._check_running()
        assert self._wire is not None
        with self._wire_errors("margo-analyze"):
            return self._wire.poll_line("margo-analyze", wait)

    def _stream_stop_line(self) -> None:
        if self._wire is None or self._broken is not None:
            return
        with self._wire_errors("margo-analyze"):
            self._wire.send_blank()

    def _stream_ended(self, stream: Any) -> None:
        if self._stream is stream:
            self._stream = None

    def _stream_fail(self, kind: type[EngineError], detail: str) -> Any:
        return self._fail(kind, f"engine {self.name!r} {detail}")

    def analyse_game(self, board: Board, limit: Limit = Limit(), *, turns: Sequence[int] | None = None,
                     timeout: float | None = _DEFAULT) -> Iterator[tuple[int, AnalysisResult]]:
        """:meth:`analyse` of every position of ``board``'s game, or of ``turns`` (0 = the
        position before the first move of ``board.history``), yielding ``(turn,
        result)`` as each is known, in the order of ``turns``. ``board`` is not changed.
        A turn outside 0..len(history) raises ValueError before anything is sent. The
        in-process twin (no engine, ownership too) is
        :func:`margo_gtp.analysis.game_analysis.analyse_game`."""
        moves = list(board.history)
        wanted = list(range(len(moves) + 1)) if turns is None else list(turns)
        for turn in wanted:
            if not (isinstance(turn, int) and 0 <= turn <= len(moves)):
                raise ValueError(f"turn {turn!r} is out of range 0..{len(moves)}")
        start = board.copy()
        while start.history:
            start.pop()
        for turn in wanted:
            position = start.copy()
            for colour, move in moves[:turn]:
                position.push(move, colour)
            yield turn, self.analyse(position, limit, timeout=timeout)
