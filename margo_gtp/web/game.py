"""One game in the browser: the board, who holds each colour, and the engine subprocesses.

The rules core (:class:`~margo_gtp.engine.Board`) is the only judge: a human's click is an
intent ("play C3:1") that :meth:`WebGame.play` checks with the board, and an engine's move
is checked the same way. Engines are GTP subprocesses driven through the public client
:mod:`margo_gtp.client`; the blocking client calls run in a worker thread
(a thread pool of their own, :data:`ENGINE_THREADS`) so the event loop keeps serving the page.

How it uses the house game loop (:mod:`margo_gtp.game`): the page is interactive (human
seats, undo, engines that come and go), so it cannot hand the game to
:func:`~margo_gtp.game.loop.play_game`, which runs a game from start to end. It shares the
loop's pieces instead: an engine's answer is judged by :func:`~margo_gtp.game.loop.judge`
(an answer the referee would forfeit stops the game here with the same fault reason and
detail), the end of the game is the loop's (:func:`~margo_gtp.game.loop.end_of`: what the
rules core says, or a resignation), and the SGF is written from the one game record
(:class:`~margo_gtp.game.record.GameRecord`, :meth:`WebGame.record`).

Engine processes live only while a page watches the game: :meth:`WebGame.detach` of the last
page quits them, and the next engine turn after a reconnect starts them again (the client
sends the whole game to a fresh engine, so nothing is lost). This is how closed tabs leak no
processes.

Choices where the brief is silent (as GoGui and Sabaki do):
* Undo against an engine takes back moves until it is a human's turn again.
* After a swap the two seats exchange colours, as the players do (rules R7).
* An engine that crashes, times out or plays an illegal move stops the game with a message
  naming the engine; the game (and its SGF) is kept and can go on against another engine
  (:meth:`WebGame.set_seat`). This is where the page differs from the referee, which
  records a forfeit: here a person is at the board and decides.

No game is lost: every move of an unfinished game is in its journal on disk before any page
hears of it (:mod:`margo_gtp.web.journal`, kept by :class:`~margo_gtp.web.store.GameStore`); a restarted server
lists the unfinished games and :meth:`~margo_gtp.web.store.GameStore.restore` takes one up again when a page
asks for it (a reload, a link, the list under *Replay*).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from margo_gtp.web import journal
from margo_gtp.engine import Board, Colour, IllegalMoveError, InvalidVertexError, Move, Outcome, Rules, Termination
from margo_gtp.game.faults import EngineFault
from margo_gtp.game.loop import end_of, judge
from margo_gtp.game.record import GameRecord
from margo_gtp.machine import available_cores
from margo_gtp.web.clocks import GameClock
from margo_gtp.web.thinking import REPORT_INTERVAL, Think, push_reports
from margo_gtp.web.view import SUICIDE_OR_REPETITION, frame, which_illegal

log = logging.getLogger(__name__)

HUMAN = "human"
ANALYSIS_SECONDS = 1.0      # thinking time of one analysis snapshot (an engine without margo-analyze)
STREAM_INTERVAL = 0.2       # seconds between the reports of a streamed analysis (margo-analyze)
STREAM_PUSH_SECONDS = 0.25  # the pages get at most one overlay update per this many seconds
ENGINE_START_TIMEOUT = 10.0  # seconds for an engine to start and answer its first command
ENGINE_GAME_PAUSE = 0.2     # seconds between moves of an engine vs engine game, to watch it

#: Threads for the blocking client calls. Each engine turn holds one for its thinking time,
#: so the default executor (a handful of threads on a small machine) would queue the engine
#: moves of concurrent games behind each other.
ENGINE_THREADS = ThreadPoolExecutor(max_workers=64, thread_name_prefix="margo-engine")

#: At most this many engines start at once (one per core, two at least); the others wait
#: their turn. Starting is the costly part of an engine's life (a Python interpreter
#: importing the package: about a second of one core), and a hundred games started at once
#: made every start so slow that most missed ENGINE_START_TIMEOUT. The timeout counts from
#: an engine's own turn to start, never the wait in the queue.
MAX_STARTING_ENGINES = max(2, available_cores())
_starting_engines = threading.BoundedSemaphore(MAX_STARTING_ENGINES)


class GameError(ValueError):
    """Raised when a page asks for something the game cannot do (message shown as is)"""


@dataclass(frozen=True)
class EngineRegistry:
    """Engine names the page may choose, each with the command line this server was started
    with. The browser only ever sends a name; an unknown name is refused."""

    commands: Mapping[str, Sequence[str]]
    #: What the page shows for a name (``Level 3 — about 1,200``); a name without one is shown as it is.
    labels: Mapping[str, str] = field(default_factory=dict)

    def names(self) -> list[str]:
        return list(self.commands)

    def command(self, name: str) -> list[str]:
        if name not in self.commands:
            raise GameError(f"unknown engine: {name!r}")
        return list(self.commands[name])

    def open(self, name: str) -> Any:
        """Start engine ``name`` (a :class:`margo_gtp.client.SimpleEngine`) once it is its
        turn (:data:`MAX_STARTING_ENGINES`), and wait for its first answer
        (``list_commands``, which the game asks anyway): started means ready."""
        from margo_gtp import client

        argv = self.command(name)
        with _starting_engines:
            engine = client.SimpleEngine.popen(argv, timeout=ENGINE_START_TIMEOUT)
            try:
                engine.commands
            except BaseException:
                engine.kill()
                raise
        return engine


@dataclass
class Seat:
    """Who holds a colour: ``HUMAN`` or an engine name (and its process while it runs)."""

    player: str
    engine: Any = None
    crashed: str | None = None

    @property
    def is_human(self) -> bool:
        return self.player == HUMAN


Listener = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass
class WebGame:
    """A game between two seats; see the module docstring."""

    game_id: str
    rules: Rules
    seats: dict[Colour, Seat]
    seconds: float
    registry: EngineRegistry
    store: Any = None   # a margo_gtp.web.store.GameStore (which imports this module), or None
    clock: GameClock | None = None   # the game clocks of a time control (margo_gtp.web.clocks)
    preset: str | None = None   # the rule preset it was started with (margo_gtp.web.presets), if any
    board: Board = field(init=False)
    outcome: Outcome | None = field(default=None, init=False)
    message: str | None = field(default=None, init=False)   # last error (engine crash ...)
    analysis_on: bool = field(default=False, init=False)
    analysis: dict[str, Any] | None = field(default=None, init=False)
    winrates: list[float | None] = field(default_factory=list, init=False)
    times: list[float | None] = field(default_factory=list, init=False)
    listeners: set[Listener] = field(default_factory=set, init=False)
    _generation: int = field(default=0, init=False)
    _wakeup: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _task: asyncio.Task | None = field(default=None, init=False)
    _thinking: Colour | None = field(default=None, init=False)
    _think: Think | None = field(default=None, init=False)   # the thinking engine's turn, for the pages
    _analyst: Any = field(default=None, init=False)    # engine process for the analysis (streams or snapshots)
    _analyst_name: str | None = field(default=None, init=False)
    _stream: Any = field(default=None, init=False)     # the analysis stream running now, if any
    _cannot_analyse: set = field(default_factory=set, init=False)  # engines that lack margo-analyze
    _busy: set = field(default_factory=set, init=False)  # engines inside a blocking call now
    _processes: set = field(default_factory=set, init=False)  # every engine started and not yet quit

    def __post_init__(self) -> None:
        self.board = Board(self.rules)

    # ------------------------------------------------------------------ what the page sees

    def state(self) -> dict[str, Any]:
        """The whole view of the game, sent after every change."""
        view = frame(self.board)
        human_to_move = self.outcome is None and self.seats[self.board.to_move].is_human and self._thinking is None
        if not human_to_move:
            why = "the game is over" if self.outcome is not None else "not your turn"
            view["targets"] = [dict(target, legal=False, why=why) for target in view["targets"]]
        legal_words = {move.gtp() for move in self.board.legal_moves()} if human_to_move else set()
        return {
            "type": "state",
            "game": self.game_id,
            "rules": self.rules.options(), "preset": self.preset,
            "seats": {colour.letter: seat.player for colour, seat in self.seats.items()},
            "seconds": self.seconds,
            "frame": view,
            "moves": [{"colour": colour.letter, "move": move.gtp()} for colour, move in self.board.history],
            "status": self.status(),
            "over": self.outcome is not None,
            "result": self.outcome.result() if self.outcome is not None else None,
            "human_to_move": human_to_move,
            "can": {"pass": "pass" in legal_words, "swap": "swap" in legal_words,
                    "resign": self._resigner() is not None, "undo": self._can_undo()},
            "thinking": self._thinking.letter if self._thinking is not None else None,
            "think": self._think.view() if self._think is not None and self._thinking is not None else None,
            "analysis_on": self.analysis_on,
            "analysis": self.analysis,
            "winrates": self.winrates,
            "clock": self.clock.view() if self.clock is not None else None,
            "crashed": {colour.letter: seat.crashed for colour, seat in self.seats.items() if seat.crashed},
        }

    def status(self) -> str:
        """The status line: the turn, the result, or what went wrong."""
        if self.outcome is not None:
            return describe_outcome(self.outcome)
        if self.message is not None:
            return self.message
        colour = self.board.to_move
        seat = self.seats[colour]
        name = colour.name.capitalize()
        if seat.is_human:
            both_human = all(s.is_human for s in self.seats.values())
            return f"{name} to move" + ("" if both_human else " (you)")
        return f"{name} ({seat.player}) is thinking"

    def _resigner(self) -> Colour | None:
        """The colour a page's Resign gives up: the human to move or, while an engine
        thinks, the one human seat (a player need not wait out a slow engine to resign)."""
        if self.outcome is not None:
            return None
        if self.seats[self.board.to_move].is_human and self._thinking is None:
            return self.board.to_move
        humans = [colour for colour, seat in self.seats.items() if seat.is_human]
        return humans[0] if self._thinking is not None and len(humans) == 1 else None

    def _can_undo(self) -> bool:
        if self.outcome is not None and self.outcome.termination is Termination.TIME:
            return False   # the flag fell: taking a move back would give the clock nothing to run on
        resigned = self.outcome is not None and self.outcome.termination is Termination.RESIGNATION
        return (bool(self.board.move_stack) or resigned) and any(seat.is_human for seat in self.seats.values())

    # ------------------------------------------------------------------ listeners

    def attach(self, listener: Listener) -> None:
        self.listeners.add(listener)
        self._run_clock()
        self._wake()

    def detach(self, listener: Listener) -> None:
        """Forget a page; when none is left, quit the engines (they restart on demand).
        Does not await: it runs in the ``finally`` of a page's task that may be cancelled."""
        self.listeners.discard(listener)
        if not self.listeners:
            self.stop_engines_now()
            if self.clock is not None:
                self.clock.pause()   # nobody is at the board: the clocks stop, as the engines do

    async def broadcast(self, message: dict[str, Any] | None = None) -> None:
        """Send every page ``message`` (default: the whole state)."""
        if message is None:
            message = self.state()
        for listener in list(self.listeners):
            try:
                await listener(message)
            except Exception:  # noqa: BLE001 - a dead socket is the socket's problem
                self.listeners.discard(listener)

    # ------------------------------------------------------------------ intents from a page

    async def play(self, text: str) -> None:
        """A human's move (vertex, ``pass``, ``swap`` or ``resign``). Raises GameError with
        the canonical text (``illegal move: ...``) and changes nothing when it is refused."""
        if self.outcome is not None:
            raise GameError("illegal move: the game is over")
        if isinstance(text, str) and text.strip().lower() == "resign" and self._resigner() is not None:
            colour = self._resigner()
            thinking = self._thinking
            if thinking is not None:   # the engine's answer is dropped, its search stopped now
                self._generation += 1
                self._thinking = None   # its process: the seat holds it only once it has answered
                await self._retire(self._think.engine if self._think is not None else self.seats[thinking].engine)
                self.seats[thinking].engine = None
            self._finish(self.board.outcome_by_resignation(colour))
            await self.broadcast()
            return
        colour = self.board.to_move
        if not self.seats[colour].is_human or self._thinking is not None:
            raise GameError("illegal move: it is not your turn")
        if not isinstance(text, str):
            raise GameError(f"illegal move: {text!r} is not a vertex")
        try:
            move = Move.from_gtp(text, self.board.size)
        except InvalidVertexError as error:
            raise GameError(f"illegal move: {text!r} is not a vertex") from error
        seconds = self.clock.turn_seconds(colour) if self.clock is not None else None
        if self.clock is not None and self.clock.out_of_time(colour, seconds):
            self._finish(self.board.outcome_by_time(colour))   # the move came after the flag fell
        else:
            self._push(move, colour, seconds)
            self._clock_moved(colour, seconds)
        await self.broadcast()
        self._wake()

    def initial_seats(self) -> dict[str, str]:
        """Who held each colour at the start (the seats follow a swap; this does not)."""
        names = {colour.letter: seat.player for colour, seat in self.seats.items()}
        if self.board.swapped:
            names = {Colour.parse(letter).opponent.letter: name for letter, name in names.items()}
        return names

    def journal_lines(self) -> list[dict[str, Any]]:
        """The whole game as journal lines (:mod:`margo_gtp.web.journal`)."""
        start = journal.start_line(self.game_id, self.rules.options(), self.initial_seats(), self.seconds,
                                   self.clock.settings_line() if self.clock is not None else None, self.preset)
        moves = [journal.move_line(colour.letter, move.gtp(), seconds)
                 for (colour, move), seconds in zip(self.board.history, _padded(self.times, len(self.board.history)))]
        return [start, *moves]

    def _journal_rewrite(self) -> None:
        if self.store is not None and self.outcome is None:
            self.store.write_journal(self)

    async def undo(self) -> None:
        if not self._can_undo():
            raise GameError("cannot undo")
        self._generation += 1          # an engine answer still on its way is dropped
        self._thinking = None
        resigned = self.outcome is not None and self.outcome.termination is Termination.RESIGNATION
        self.outcome = None
        self.message = None
        if not resigned:  # undoing a resignation takes back only the resignation
            self._pop()
            while self.board.move_stack and not self.seats[self.board.to_move].is_human:
                self._pop()
        self._journal_rewrite()
        if self.clock is not None:
            self.clock.pause()
            self._run_clock()
        await self.broadcast()
        self._wake()

    def _pop(self) -> None:
        if self.board.pop().is_swap:  # the players take their colours back
            self.seats[Colour.WHITE], self.seats[Colour.BLACK] = self.seats[Colour.BLACK], self.seats[Colour.WHITE]
        self._trim()

    async def set_seat(self, colour: Colour, player: str) -> None:
        """Give ``colour`` to another player (after a crash, or to change opponent)."""
        if player != HUMAN:
            self.registry.command(player)  # refuses unknown names
        seat = self.seats[colour]
        self._generation += 1
        await self._retire(seat.engine)
        self.seats[colour] = Seat(player)
        self.message = None
        self._thinking = None
        self._run_clock()   # armed for a human, not for an engine
        self._journal_rewrite()
        await self.broadcast()
        self._wake()

    async def set_analysis(self, on: bool) -> None:
        self.analysis_on = bool(on)
        if not on:
            self.analysis = None
            self._stop_stream()
        await self.broadcast()
        self._wake()

    def _push(self, move: Move, colour: Colour, seconds: float | None = None) -> None:
        try:
            self.board.push(move, colour)
        except IllegalMoveError as error:
            text = str(error)
            if text.endswith(": " + SUICIDE_OR_REPETITION):
                text = text.removesuffix(SUICIDE_OR_REPETITION) + which_illegal(self.board, move, colour)
            raise GameError(text) from None
        if self.store is not None:
            try:   # on disk before any page is told (a restarted server goes on from here)
                self.store.journal_move(self, colour, move, seconds)
            except OSError as error:
                self.board.pop()
                raise GameError(f"cannot save the move, so it is not played: {error}") from None
        self.times.append(seconds)
        self.message = None
        self.analysis = None
        self._stop_stream()  # its position is the past now
        if move.is_swap:
            self.seats[Colour.WHITE], self.seats[Colour.BLACK] = self.seats[Colour.BLACK], self.seats[Colour.WHITE]
        outcome = self.board.outcome()
        if outcome is not None:
            self._finish(outcome)

    def _clock_moved(self, colour: Colour, seconds: float | None) -> None:
        """``colour`` moved in ``seconds``: charge it, and run the clock of the side to move."""
        if self.clock is not None and self.outcome is None:   # a game it ended charged it already
            self.clock.stop(colour, seconds)
            self._run_clock()

    def _run_clock(self) -> None:
        """Run the clock of the side to move (a page watches), armed to end a human's turn at zero."""
        if self.clock is not None and self.outcome is None and self.listeners:
            self.clock.start(self.board.to_move)
            self.clock.arm(self.seats[self.board.to_move].is_human, self._lose_on_time)

    def _lose_on_time(self, colour: Colour) -> None:
        if self.outcome is None:
            self._finish(self.board.outcome_by_time(colour))
            asyncio.get_running_loop().create_task(self.broadcast())

    def _trim(self) -> None:
        ply = len(self.board.move_stack)
        del self.times[ply:]
        del self.winrates[ply + 1:]
        self.analysis = None
        self._stop_stream()

    def _finish(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self._stop_stream()
        if self.clock is not None:
            self.clock.pause()
        if self.store is not None and self.store.save(self):   # unsaved: the journal stays, the game with it
            self.store.end_journal(self)

    # ------------------------------------------------------------------ the game task

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"game {self.game_id}")
        self._wake()

    def _wake(self) -> None:
        self._wakeup.set()

    async def _run(self) -> None:
        """Let engines move whenever one is to move and a page is watching."""
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            try:
                await self._turns()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - a bug here must show, not freeze the game
                log.exception("game %s: internal error", self.game_id)
                self._thinking = None
                self.message = f"internal error: {type(error).__name__}: {error}"
                await self.broadcast()

    async def _turns(self) -> None:
        while self.listeners and self.outcome is None and self.message is None:
            colour = self.board.to_move
            seat = self.seats[colour]
            if seat.is_human:
                if self.analysis_on and self.analysis is None:
                    await self._analyse()
                return
            if not any(s.is_human for s in self.seats.values()) and self.board.move_stack:
                await asyncio.sleep(ENGINE_GAME_PAUSE)  # engine vs engine: slow enough to watch
                if not self.listeners:
                    return
            await self._engine_turn(colour, seat)

    async def _engine_turn(self, colour: Colour, seat: Seat) -> None:
        generation = self._generation
        budget = self.seconds if self.clock is None else \
            self.clock.budget(colour, self.seconds, len(self.board.legal_moves(colour)))
        think = Think(colour, seat.player, budget, len(self.board.move_stack))
        self._thinking, self._think = colour, think
        await self.broadcast()
        started = time.monotonic()
        pusher = asyncio.get_running_loop().create_task(
            push_reports(think, lambda: generation == self._generation and self._think is think, self.broadcast,
                         self.game_id))
        try:
            engine, result, error = await self._call_engine(seat.engine, seat.player, generation, _play_reporting(think),
                                                            self.board.copy(), budget)
        finally:
            pusher.cancel()
            if self._think is think:
                self._think = None
        if generation != self._generation:
            return
        seat.engine = engine
        self._thinking = None
        if error is not None:
            seat.crashed = engine_failure_text(seat.player, error)
            self.message = seat.crashed
            await self._retire(engine)
            seat.engine = None
            if self.clock is not None:
                self.clock.pause()   # stalled until a player chooses another engine (set_seat runs it again)
            if self.store is not None:
                self.store.save(self)
        else:
            seconds = round(time.monotonic() - started, 3)
            answer = "resign" if result.resigned else result.move.gtp()
            try:  # the client has checked legality already; the board is the judge all the same
                move = judge(self.board, answer, colour)
            except EngineFault as fault:
                seat.crashed = f"engine {seat.player} played an illegal move ({fault.reason}: {fault.detail})"
                self.message = seat.crashed
            else:
                seconds = seconds if self.clock is None else self.clock.turn_seconds(colour)
                if self.clock is not None and self.clock.out_of_time(colour, seconds):
                    self._finish(self.board.outcome_by_time(colour))
                elif move is None:
                    self._finish(self.board.outcome_by_resignation(colour))
                else:
                    self._push(move, colour, seconds)
                    self._clock_moved(colour, seconds)
        await self.broadcast()

    async def _call_engine(self, engine: Any, name: str, generation: int, method: str | Callable[..., Any],
                           board: Board, seconds: float) -> tuple[Any, Any, BaseException | None]:
        """Run ``engine.<method>(board, Limit(seconds))`` (or ``method(engine, board, Limit(seconds))``)
        in a worker thread, starting the engine first when ``engine`` is None. Returns
        ``(engine, result, error)``; never raises.

        An engine started or answering after the game moved on (``generation`` changed: undo,
        a new seat, the last page gone) is quit here, so no process outlives its game.
        """
        from margo_gtp import client

        def call() -> tuple[Any, Any, BaseException | None]:
            nonlocal engine
            try:
                if engine is None:
                    engine = self.registry.open(name)
                self._processes.add(engine)
                if generation != self._generation:
                    return engine, None, None
                self._busy.add(engine)
                try:
                    limit = client.Limit(seconds=seconds)
                    ask = method if callable(method) else getattr(engine, method)
                    return engine, (ask(engine, board, limit) if callable(method) else ask(board, limit)), None
                finally:
                    self._busy.discard(engine)
            except Exception as error:  # noqa: BLE001 - every engine failure is shown, never raised
                return engine, None, error

        engine, result, error = await asyncio.get_running_loop().run_in_executor(ENGINE_THREADS, call)
        if generation != self._generation and engine is not None and not self._in_use(engine):
            await self._retire(engine)
        return engine, result, error

    def _in_use(self, engine: Any) -> bool:
        return engine is self._analyst or any(seat.engine is engine for seat in self.seats.values())

    async def _retire(self, engine: Any) -> None:
        if engine is None:
            return
        self._processes.discard(engine)
        if engine in self._busy:  # still inside a call in a worker thread: quit would race it
            _kill(engine)
        await asyncio.to_thread(_quit, engine)

    def _analysis_candidates(self) -> list[str]:
        """Engines to ask for analysis, in order: the one that answered before, the game's
        engines, then ``mcts`` (an engine without ``margo-analyze_snapshot`` is skipped)."""
        names = [self._analyst_name] if self._analyst_name else []
        names += [seat.player for seat in self.seats.values() if not seat.is_human]
        names.append("mcts")
        return [name for i, name in enumerate(names)
                if name in self.registry.commands and name not in names[:i] and name not in self._cannot_analyse]

    async def _analyse(self) -> None:
        """The analysis of the position for the side to move: streamed (``margo-analyze``,
        the overlay updated as the search grows, :meth:`_follow`) when the engine has it,
        else one snapshot (``margo-analyze_snapshot``)."""
        generation = self._generation
        ply = len(self.board.move_stack)
        to_move = self.board.to_move
        failure = "no engine here can analyse (margo-analyze_snapshot)"
        for name in self._analysis_candidates():
            engine = self._analyst if name == self._analyst_name else None
            engine, result, error = await self._call_engine(engine, name, generation, _start_analysis,
                                                            self.board.copy(), ANALYSIS_SECONDS)
            if generation != self._generation:
                if result is not None and _is_stream(result):
                    result.request_stop()  # a stream started as the game moved on (the engine is being retired)
                return  # the engine was retired by _call_engine
            if error is None and _is_stream(result):
                if engine is not self._analyst:
                    await self._retire(self._analyst)
                self._analyst, self._analyst_name = engine, name  # kept for the next position too
                error = await self._follow(engine, result, generation, ply, to_move)
                if error is None and result.updates == 0 and ply == len(self.board.move_stack) \
                        and generation == self._generation and self.analysis_on:
                    self._show_analysis(result.latest, ply, to_move)  # no legal move: nothing to report
                    await self.broadcast()
                if error is None or generation != self._generation:
                    return
            elif error is None:
                if engine is not self._analyst:
                    await self._retire(self._analyst)
                self._analyst, self._analyst_name = engine, name  # kept for the next position too
                if ply != len(self.board.move_stack):
                    return  # a move was played meanwhile: this analysis is of the past
                self._show_analysis(result, ply, to_move)
                await self.broadcast()
                return
            if engine is self._analyst:
                self._analyst, self._analyst_name = None, None
            await self._retire(engine)
            if "cannot analyse" in str(error):
                self._cannot_analyse.add(name)
            failure = engine_failure_text(name, error)
        self.analysis = {"error": failure}
        await self.broadcast()

    def _show_analysis(self, result: Any, ply: int, to_move: Colour) -> None:
        self.analysis = analysis_view(result.candidates, to_move)
        self.analysis["ply"] = ply
        while len(self.winrates) <= ply:
            self.winrates.append(None)
        self.winrates[ply] = self.analysis["white_winrate"]

    async def _follow(self, engine: Any, stream: Any, generation: int, ply: int,
                      to_move: Colour) -> BaseException | None:
        """Read ``stream`` (a :class:`margo_gtp.client.AnalysisStream`) in a worker thread
        until it ends, and show its newest report to the pages at most every
        :data:`STREAM_PUSH_SECONDS`. The stream is stopped (:meth:`_stop_stream`) when a move
        is played or taken back, the game ends, analysis is switched off or the last page
        goes; an update is shown only while the game is still at the stream's position,
        so no report of an old position overwrites the overlay of the new one. Returns the
        engine's error, if any (the engine has then been killed by the client)."""

        def read() -> BaseException | None:
            self._busy.add(engine)
            try:
                for _ in stream:
                    pass  # stream.latest holds the newest report; this thread only keeps the wire read
                return None
            except Exception as error:  # noqa: BLE001 - shown by the caller, as any engine failure
                return error
            finally:
                self._busy.discard(engine)

        self._stream = stream
        reader = asyncio.get_running_loop().run_in_executor(ENGINE_THREADS, read)
        shown = 0
        try:
            while True:
                await asyncio.wait({reader}, timeout=STREAM_PUSH_SECONDS)
                current = (generation == self._generation and ply == len(self.board.move_stack)
                           and self.analysis_on and self.outcome is None)
                if not current:
                    stream.request_stop()
                elif stream.updates != shown:
                    shown = stream.updates
                    self._show_analysis(stream.latest, ply, to_move)
                    await self.broadcast()
                if reader.done():
                    return reader.result()
        finally:
            if self._stream is stream:
                self._stream = None
            if not reader.done():  # the game task was cancelled: the thread reads on to the end
                stream.request_stop()

    def _stop_stream(self) -> None:
        """Stop the running analysis stream now, without waiting (its reading thread drains it)."""
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.request_stop()
            except Exception:  # noqa: BLE001 - a dead engine's stream is over anyway
                log.debug("stopping an analysis stream failed", exc_info=True)

    async def stop_engines(self) -> None:
        """Quit every engine process of this game (they restart when needed)."""
        self.stop_engines_now()

    def stop_engines_now(self) -> threading.Thread | None:
        """Quit every engine process of this game, from a thread of its own, without awaiting.

        Nothing here awaits, so a page's task that is being cancelled (a closed tab) cannot
        skip the clean-up. Returns the thread doing the quitting (None if nothing runs).
        """
        self._generation += 1
        self._thinking = None
        self._stop_stream()
        for seat in self.seats.values():
            seat.engine = None
        self._analyst, self._analyst_name = None, None
        engines = list(self._processes)
        self._processes.clear()
        if not engines:
            return None
        for engine in engines:  # one still thinking in a worker thread is killed, not asked to quit
            if engine in self._busy:
                _kill(engine)
        thread = threading.Thread(target=lambda: [_quit(engine) for engine in engines], daemon=True,
                                  name=f"quit engines of {self.game_id}")
        thread.start()
        return thread

    def forget(self) -> None:
        """Stop the game task of a game with no page and no engine (it stays on disk)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def close(self) -> None:
        self.forget()
        thread = self.stop_engines_now()
        if thread is not None:
            await asyncio.to_thread(thread.join)

    # ------------------------------------------------------------------ records

    def record(self) -> GameRecord:
        """The game so far as the one game record; its players are labelled by the colour
        each held at the start (the seats follow a swap, the labels do not)."""
        names = {colour.letter: seat.player for colour, seat in self.seats.items()}
        if self.board.swapped:
            names = {Colour.parse(letter).opponent.letter: name for letter, name in names.items()}
        moves = [{"colour": colour.letter, "move": move.gtp(), "engine": None, "seconds": seconds}
                 for (colour, move), seconds in zip(self.board.history, self.times, strict=False)]
        return GameRecord(self.rules, names, {"W": Colour.WHITE, "B": Colour.BLACK}, self.board, moves=moves,
                          end=end_of(self.outcome, moves) if self.outcome is not None else None,
                          root_properties={journal.PRESET_PROPERTY: [self.preset]} if self.preset else {})

    def sgf(self) -> str:
        return self.record().sgf_text()


def _is_stream(result: Any) -> bool:
    """True for a streamed analysis (an AnalysisStream), False for a snapshot (an AnalysisResult)."""
    return hasattr(result, "request_stop")


def _start_analysis(engine: Any, board: Board, limit: Any) -> Any:
    """A streamed analysis of ``board`` when the engine has ``margo-analyze``, else one
    snapshot of ``limit`` (``margo-analyze_snapshot``)."""
    if engine.known_command("margo-analyze"):
        return engine.analysis(board, interval=STREAM_INTERVAL)
    return engine.analyse(board, limit)


def _play_reporting(think: Think) -> Callable[[Any, Board, Any], Any]:
    """The engine's move, its search handed to ``think`` as it grows (margo-genmove_analyze)."""
    def play(engine: Any, board: Board, limit: Any) -> Any:
        think.begin(engine)
        return engine.play_analysed(board, limit, interval=REPORT_INTERVAL, on_report=think.take)
    return play


def _padded(values: list[Any], length: int) -> list[Any]:
    return values[:length] + [None] * (length - len(values))


def _kill(engine: Any) -> None:
    try:
        engine.kill()
    except Exception:  # noqa: BLE001
        log.debug("engine kill failed", exc_info=True)


def _quit(engine: Any) -> None:
    if engine is None:
        return
    try:
        engine.quit()
    except Exception:  # noqa: BLE001 - quitting a dead engine is fine
        log.debug("engine quit failed", exc_info=True)


def engine_failure_text(name: str, error: BaseException) -> str:
    """One line for the status: which engine, what happened, and the last lines the engine
    wrote to stderr (where a crashing engine says why)."""
    detail = " ".join(str(error).split()) or type(error).__name__
    tail = [line.strip() for line in getattr(error, "stderr", ()) if line.strip()][-3:]
    if tail:
        detail += "; stderr: " + " | ".join(tail)
    if len(detail) > 300:
        detail = detail[:297] + "..."
    return f"engine {name} failed: {detail}"


def describe_outcome(outcome: Outcome) -> str:
    """``'White wins W+3 (no legal move)'``, ``'Black wins B+R (resignation)'``, ``'Draw 0 (...)'``."""
    how = outcome.termination.value
    if outcome.winner is None:
        return f"Draw {outcome.result()} ({how})"
    return f"{outcome.winner.name.capitalize()} wins {outcome.result()} ({how})"


def analysis_view(candidates: Sequence[Any], to_move: Colour) -> dict[str, Any]:
    """The analysis the page overlays, from :class:`margo_gtp.client.AnalysisInfo` items
    (best first): top moves with visits and win rates for the side to move, White's win
    rate for the graph, and ``visits``, all the candidates' together (how far the search
    has gone: it grows while a stream runs). :meth:`WebGame._show_analysis` adds ``ply``,
    the position analysed."""
    items = [{"move": info.move.gtp(), "visits": int(info.visits), "winrate": float(info.winrate)}
             for info in candidates if info.move is not None and not info.move.is_pass]
    best = items[0]["winrate"] if items else None
    white = None if best is None else (best if to_move is Colour.WHITE else 1.0 - best)
    visits = sum(int(info.visits) for info in candidates)
    return {"to_move": to_move.letter, "moves": items[:8], "winrate": best, "white_winrate": white, "visits": visits}
