"""The one player contract of the game loop, and its two implementations.

A :class:`Bot` is what a GTP engine is to a controller (OpenSpiel's ``GTPBot`` turns an
external engine into a bot the same way): ``genmove(colour)`` answers a move as GTP text
(a vertex, ``pass``, ``swap`` or ``resign``) with the seconds it took, and plays it on its
own board; ``play(colour, move)`` tells it of a move made by the other side. The loop
(:mod:`margo_gtp.game.loop`) judges every answer with its own Board, so a bot may be wrong
and only loses the game for it. Every method may raise
:class:`~margo_gtp.game.faults.EngineFault`.

- :class:`PlayerBot`: an in-process player (:mod:`margo_gtp.players`: random, heuristic,
  mcts, plugins) following the game on a board of its own.
- :class:`GtpBot`: a GTP engine process driven through the public client
  :class:`margo_gtp.client.SimpleEngine` (its ``do_command``: the referee sends genmove,
  play and the clocks itself); every way an engine can misbehave becomes an EngineFault.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import IO, Protocol

from margo_gtp.client import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineStartError as ClientStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    SimpleEngine,
)
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import RESIGN, Budget, Player

from margo_gtp.game.faults import (
    CRASH,
    EOF,
    GENMOVE_FAILED,
    PROTOCOL_ERROR,
    REJECTED_MOVE,
    SETUP_FAILED,
    START_FAILED,
    TIME_CONTROL,
    TIMEOUT,
    EngineFault,
    EngineStartError,
)

__all__ = ["Bot", "EngineCommand", "GameClock", "GtpBot", "PlayerBot", "TimeSettings"]


class Bot(Protocol):
    """What :func:`margo_gtp.game.loop.play_game` needs from a player (see the module docstring)."""

    label: str

    def genmove(self, colour: Colour) -> tuple[str, float]:
        """The bot's move for ``colour`` as GTP text, and the seconds it took."""
        ...

    def play(self, colour: Colour, move: Move) -> None:
        """Tell the bot that ``colour`` played ``move``."""
        ...


class PlayerBot:
    """An in-process :class:`~margo_gtp.players.Player` as a :class:`Bot`.

    It keeps a board of its own, as an engine does: :meth:`new_game` sets it (and resets
    the player), :meth:`genmove` plays the chosen move on it, :meth:`play` the other side's;
    the player is notified of each. A move the player's own board refuses is answered all
    the same, for the loop to judge (a bug in a player forfeits its game, it does not stop
    the run). Its ``player`` is public: self-play reads a search's ``last_winrate`` there."""

    def __init__(self, player: Player, label: str | None = None, budget: Budget | None = None) -> None:
        self.player = player
        self.label = player.name if label is None else label
        self.budget = budget if budget is not None else Budget()
        self.board: Board | None = None

    def new_game(self, board: Board) -> None:
        self.board = board.copy()
        self.player.reset(self.board)

    def genmove(self, colour: Colour) -> tuple[str, float]:
        board = self._board()
        started = time.perf_counter()
        move = self.player.select_move(board, colour, self.budget)
        seconds = time.perf_counter() - started
        if move is RESIGN:
            return "resign", seconds
        assert isinstance(move, Move)
        if board.is_legal(move, colour):
            self._apply(move, colour)
        return move.gtp(), seconds

    def play(self, colour: Colour, move: Move) -> None:
        self._apply(move, colour)

    def close(self) -> None:
        """Nothing to release: the player lives in this process, and its search threads end
        with each search."""

    def _apply(self, move: Move, colour: Colour) -> None:
        board = self._board()
        board.push(move, colour)
        self.player.notify(board, move, colour)

    def _board(self) -> Board:
        if self.board is None:
            raise RuntimeError(f"bot {self.label}: new_game() was not called")
        return self.board


class EngineCommand(Protocol):
    """How to start an engine (the referee's EngineSpec): its label, command text and argv."""

    label: str
    command: str

    def argv(self) -> list[str]: ...


class TimeSettings(Protocol):
    """A GTP ``time_settings`` (the referee's TimeControl)."""

    def gtp_args(self) -> tuple[int, int, int]: ...


class GameClock(Protocol):
    """One engine's clock: ``spend`` says whether it is still running after ``seconds``."""

    def spend(self, seconds: float) -> bool: ...

    def time_left(self) -> tuple[int, int]: ...


class GtpBot:
    """A GTP engine as a :class:`Bot`: translates every GTP failure into an :class:`EngineFault`.

    The engine process lives across games; :meth:`ensure_running` (re)starts it when it
    is not usable, so a crashed or hung engine is replaced before its next game.
    """

    def __init__(
        self,
        spec: EngineCommand,
        *,
        move_timeout: float | None,
        command_timeout: float,
        wire_log: IO[str] | None = None,
    ) -> None:
        self.spec = spec
        self.label = spec.label
        self.move_timeout = move_timeout
        self.command_timeout = command_timeout
        self.wire_log = wire_log
        self.client: SimpleEngine | None = None
        self.clock: GameClock | None = None
        self.starts = 0
        self.ready = False  # set up a game at least once: later failures are the engine's, not the command's

    def ensure_running(self) -> None:
        if self.client is not None and self.client.is_usable:
            return
        if self.client is not None:
            self.client.kill()
        self.starts += 1
        try:
            self.client = SimpleEngine.popen(
                self.spec.argv(), timeout=self.command_timeout, wire_log=self.wire_log, name=self.spec.label
            )
        except ClientStartError as error:
            self.client = None
            message = f"cannot start engine {self.label} {self.spec.command!r}: {error.__cause__ or error}"
            if self.starts == 1:  # never ran: the match is misconfigured, not the engine unlucky
                raise EngineStartError(message) from None
            raise EngineFault(START_FAILED, message, restart=True) from None

    def new_game(self, rules: Rules, time_control: TimeSettings | None = None, clock: GameClock | None = None) -> None:
        """Start the engine if needed and set up an empty board with ``rules``; with a time
        control, send it and keep ``clock`` (which must run under it) for this game."""
        self.ensure_running()
        options = [f"{name}={value}" for name, value in rules.options().items() if name not in ("size", "komi")]
        commands: list[tuple[str, Sequence[object]]] = [
            ("boardsize", [rules.size]),
            ("clear_board", []),
            ("komi", [_number(rules.komi)]),
            ("margo-set_rules", options),
        ]
        if time_control is not None:
            commands.append(("time_settings", time_control.gtp_args()))
        for command, args in commands:
            self._send(command, args, self.command_timeout, SETUP_FAILED)
        self.ready = True
        self.clock = clock if time_control is not None else None

    def genmove(self, colour: Colour) -> tuple[str, float]:
        if self.clock is not None:
            self._send("time_left", [colour.letter, *self.clock.time_left()], self.command_timeout, SETUP_FAILED)
        started = time.monotonic()
        answer = self._send("genmove", [colour.letter], self.move_timeout, GENMOVE_FAILED)
        seconds = time.monotonic() - started
        if self.clock is not None and not self.clock.spend(seconds):
            raise EngineFault(TIME_CONTROL, f"{seconds:.3f} s for this move ran the clock out")
        return answer, seconds

    def play(self, colour: Colour, move: Move) -> None:
        self._send("play", [colour.letter, move.gtp()], self.command_timeout, REJECTED_MOVE)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def identify(self) -> str:
        """Start the engine if needed; its answers to ``name`` and ``version``, space-separated."""
        self.ensure_running()
        name = self._send("name", [], self.command_timeout, SETUP_FAILED)
        return f"{name} {self._send('version', [], self.command_timeout, SETUP_FAILED)}"

    def start_failure(self, fault: EngineFault) -> EngineStartError:
        """The error that stops a match whose engine died before it ever got ready (a bad
        option in its command line, a missing file): its own last words, not forfeits."""
        tail = self.client.stderr if self.client is not None else []
        shown = "".join(f"\n  {line}" for line in tail[-10:]) if tail else " (it wrote nothing to stderr)"
        return EngineStartError(f"engine {self.label} {self.spec.command!r} stopped during start-up: {fault.detail}; its stderr:{shown}")

    def _send(self, command: str, args: Sequence[object], timeout: float | None, failure_reason: str) -> str:
        """One command; every client error becomes the matching forfeit. The client has
        already killed the engine on anything but a failure answer (its channel is then in
        an unknown state), so ``restart`` is set for those."""
        if self.client is None or not self.client.is_usable:
            raise EngineFault(CRASH, f"engine is not running before {command!r}", restart=True)
        try:
            return self.client.do_command(command, *args, timeout=timeout)
        except EngineCommandError as error:
            raise EngineFault(failure_reason, f"{' '.join([command, *map(str, args)])!r} answered {error.message!r}") from None
        except EngineTimeoutError as error:
            raise EngineFault(TIMEOUT, str(error), restart=True) from None
        except EngineProtocolError as error:
            raise EngineFault(PROTOCOL_ERROR, str(error), restart=True) from None
        except EngineTerminatedError as error:
            reason = CRASH if error.returncode is not None else EOF
            raise EngineFault(reason, _with_stderr(str(error), error.stderr), restart=True) from None
        except EngineError as error:  # pragma: no cover - every client error is handled above
            self.client.kill()
            raise EngineFault(PROTOCOL_ERROR, str(error), restart=True) from None


def _with_stderr(detail: str, stderr: Sequence[str]) -> str:
    """A crash's detail with the engine's last stderr line, where it usually says why."""
    return f"{detail}; last stderr line: {stderr[-1]!r}" if stderr else detail


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
