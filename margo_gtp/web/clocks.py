"""The game clocks of a margo-web game with a time control: Fischer time, each colour a bank.

A ``new`` message may carry ``"clock": {"main": 300, "increment": 5}`` (seconds; main
:data:`MIN_MAIN`..:data:`MAX_MAIN`, increment 0..:data:`MAX_INCREMENT`): each colour
starts with ``main`` seconds; the clock of the side to move runs, and a move played in time
adds ``increment`` (``increment`` 0 is sudden death). The rule is the project's one clock
(:func:`margo_gtp.players.clock.run_down`, ``fischer``), as the referee's. The clocks belong
to the colours (a swap exchanges the players, not the clocks).

When it runs: while the game is not over and a page has it open (with no page watching,
the clocks stop, as the engines do; so they do while a lost engine stalls the game). A human's clock that reaches zero ends the game at
once (``W+T``, :class:`~margo_gtp.engine.Termination` ``TIME``); an engine is given at
most its share of what is left (:func:`margo_gtp.players.timecontrol.budget`, and never more
than the game's seconds per move), counted from when it was asked for its move (an engine
being started is not charged), and loses on time as a human does if its answer comes late.

Each move's seconds are in the journal, so a restarted server gives the clocks back
(:meth:`GameClock.replay`); the time the server was down is not charged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from margo_gtp.engine import Colour
from margo_gtp.players.clock import ClockReading, TimeSettings, run_down
from margo_gtp.players.timecontrol import budget, moves_left_estimate

MIN_MAIN, MAX_MAIN = 5.0, 3 * 3600.0
MAX_INCREMENT = 600.0


class ClockError(ValueError):
    """A ``clock`` a page asked for that is not one (the message is shown as is)."""


@dataclass
class GameClock:
    """Two Fischer banks and which one runs (see the module docstring)."""

    main: float
    increment: float
    left: dict[Colour, float] = field(default_factory=dict)
    running: Colour | None = None
    since: float = 0.0   # time.monotonic() when the running clock started
    _flag: asyncio.TimerHandle | None = field(default=None, repr=False)   # a human's zero, on the event loop

    def __post_init__(self) -> None:
        if not self.left:
            self.left = {Colour.WHITE: self.main, Colour.BLACK: self.main}
        self.settings = TimeSettings("fischer", main_time=self.main, increment=self.increment)

    @classmethod
    def parse(cls, value: Any) -> "GameClock | None":
        """The clock of a ``new`` message's ``clock`` (None or absent: no clock)."""
        if value is None:
            return None
        if not isinstance(value, dict) or set(value) - {"main", "increment"} or "main" not in value:
            raise ClockError(f"invalid clock: {value!r} (expected {{\"main\": seconds, \"increment\": seconds}})")
        main, increment = value["main"], value.get("increment", 0)
        for number in (main, increment):
            if isinstance(number, bool) or not isinstance(number, (int, float)):
                raise ClockError(f"invalid clock: {value!r} (numbers of seconds)")
        if not MIN_MAIN <= main <= MAX_MAIN or not 0 <= increment <= MAX_INCREMENT:
            raise ClockError(f"invalid clock: {value!r} (main {MIN_MAIN:g}..{MAX_MAIN:g} s, "
                             f"increment 0..{MAX_INCREMENT:g} s)")
        return cls(float(main), float(increment))

    def settings_line(self) -> dict[str, float]:
        """What the journal keeps of it (and a ``new`` message gives)."""
        return {"main": self.main, "increment": self.increment}

    def replay(self, colour: Colour, seconds: float | None) -> bool:
        """Charge ``colour`` a move of ``seconds`` (None: 0); False when it was out of time."""
        reading, in_time = run_down(self.settings, ClockReading(self.left[colour]), seconds or 0.0)
        self.left[colour] = reading.seconds
        return in_time

    def start(self, colour: Colour) -> None:
        """Run ``colour``'s clock from now (nothing when it runs already)."""
        if self.running is not colour:
            self.pause()
            self.running, self.since = colour, time.monotonic()

    def pause(self) -> None:
        """Stop the running clock, charging what it used (no increment: no move was played)."""
        self.arm(False, None)
        if self.running is not None:
            self.left[self.running] = self.left_now(self.running)
            self.running = None

    def stop(self, colour: Colour, seconds: float | None = None) -> tuple[float, bool]:
        """``colour`` played: charge its turn (``seconds``, default the time its clock ran)
        and add the increment if in time. Returns ``(seconds charged, in time)``."""
        if seconds is None:
            seconds = self.turn_seconds(colour)
        if self.running is colour:
            self.running = None
        return seconds, self.replay(colour, seconds)

    def arm(self, human: bool, on_flag: Callable[[Colour], None] | None) -> None:
        """Call ``on_flag(colour)`` on the event loop when the running clock, a human's,
        reaches zero (an engine's turn ends with its answer, judged by :meth:`out_of_time`)."""
        if self._flag is not None:
            self._flag.cancel()
            self._flag = None
        colour = self.running
        if colour is not None and human and on_flag is not None:
            def fall() -> None:
                if self.running is colour and self.left_now(colour) <= 0:
                    on_flag(colour)
            self._flag = asyncio.get_running_loop().call_later(self.left_now(colour) + 0.05, fall)

    def out_of_time(self, colour: Colour, seconds: float) -> bool:
        """True when a turn of ``seconds`` runs past what ``colour`` had when it started."""
        return seconds >= self.left[colour]

    def turn_seconds(self, colour: Colour) -> float:
        """Seconds ``colour``'s clock has run this turn (0 when it does not run)."""
        return round(time.monotonic() - self.since, 3) if self.running is colour else 0.0

    def left_now(self, colour: Colour) -> float:
        """Seconds ``colour`` has left now (its running turn taken off; never below 0)."""
        used = time.monotonic() - self.since if self.running is colour else 0.0
        return max(0.0, self.left[colour] - used)

    def budget(self, colour: Colour, cap: float, open_points: int) -> float:
        """An engine's thinking time for this move: its share of its bank, at most ``cap``."""
        share = budget(self.settings, ClockReading(self.left_now(colour)),
                       moves_left=moves_left_estimate(open_points), default_seconds=cap).seconds
        return round(min(cap, share if share is not None else cap), 2)

    def view(self) -> dict[str, Any]:
        """``{"main", "increment", "W", "B", "running"}``: seconds left now, the running colour."""
        return {**self.settings_line(), "W": round(self.left_now(Colour.WHITE), 1),
                "B": round(self.left_now(Colour.BLACK), 1),
                "running": self.running.letter if self.running is not None else None}
