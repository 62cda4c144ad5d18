"""The one clock: time systems, a clock reading, and how a move's thinking time runs it down.

Everything that keeps time uses this module: the GTP session (``time_settings``,
``time_left``, ``kgs-time_settings``), the players' budget (:mod:`.timecontrol`) and the
referee (``margo_gtp.match.match_config``), so an engine and its referee never disagree
about whose flag fell.

Systems (the names of ``kgs-time_settings``, plus ``fischer``):

==========  ==================================================================================
``none``    no limit
absolute    ``main_time`` for the whole game (sudden death)
byoyomi     ``main_time``, then ``periods`` periods of ``period_time``; a move that stays
            inside its period keeps the period, one that overruns it loses one (Japanese)
canadian    ``main_time``, then ``period_time`` for every ``period_stones`` stones
fischer     ``main_time``, and ``increment`` seconds added after every move played in
            time (Fischer, as KGS's "Fischer" and cutechess's ``tc=M+I``); what is left is
            kept, without a cap. No GTP 2 or KGS command sets it (KataGo's private
            ``kata-time_settings fischer`` does); the referee gives it to engines as
            ``time_settings M 0 0`` plus ``time_left`` with the grown bank before every move
==========  ==================================================================================

A :class:`ClockReading` is GTP 2's ``time_left T S``: ``stones == 0`` means ``seconds`` of
main time are left; ``stones > 0`` means overtime, ``seconds`` for ``stones`` stones
(canadian) or ``seconds`` of the current period with ``stones`` periods left (byo-yomi,
the KGS convention). :func:`run_down` is the clock's only rule; the invariants the tests
check with hypothesis: a reading is never negative, a move within the time left leaves
``seconds - elapsed`` (plus the increment), a byo-yomi period kept is whole again, a
canadian period completed starts afresh with its stones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["KGS_ARITY", "MAX_CLOCK_NUMBER", "SYSTEMS", "Clock", "ClockReading", "TimeSettings", "run_down"]

SYSTEMS = ("none", "absolute", "byoyomi", "canadian", "fischer")
#: ``kgs-time_settings SYSTEM values...``: KGS's systems and how many values each takes.
KGS_ARITY = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}


#: The largest number a clock is given (seconds, stones or periods): about 11.5 days a
#: colour. GTP's integers have no bound, and ``time_settings 99999999999999999999999 1 1``
#: made a move's budget ages long; a clock beyond this is refused with one line.
MAX_CLOCK_NUMBER = 1_000_000


@dataclass(frozen=True)
class TimeSettings:
    """A time system and its numbers (seconds; stones and periods counted).

    ``system`` is ``none``, ``absolute``, ``byoyomi`` (``periods`` periods of
    ``period_time``), ``canadian`` (``period_time`` for ``period_stones`` stones) or
    ``fischer`` (``increment`` added after each move)."""

    system: str = "none"
    main_time: float = 0
    period_time: float = 0
    period_stones: int = 0
    periods: int = 0
    increment: float = 0

    def __post_init__(self) -> None:
        if self.system not in SYSTEMS:
            raise ValueError(f"time system must be one of {', '.join(SYSTEMS)}: {self.system!r}")
        for name in ("main_time", "period_time", "period_stones", "periods", "increment"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"time setting {name} must be a finite number >= 0: {value!r}")

    @classmethod
    def from_gtp(cls, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> "TimeSettings":
        """GTP 2 ``time_settings M B S``: ``B > 0`` with ``S == 0`` means no limit, ``B == 0``
        sudden death, anything else canadian."""
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            return cls()
        if byo_yomi_time == 0:
            return cls("absolute", main_time)
        return cls("canadian", main_time, byo_yomi_time, byo_yomi_stones)

    @classmethod
    def from_kgs(cls, system: str, values: Sequence[float]) -> "TimeSettings":
        """``kgs-time_settings SYSTEM values...`` (:data:`KGS_ARITY`); ValueError when the
        system is unknown or the count of values is wrong."""
        if system not in KGS_ARITY:
            raise ValueError(f"kgs-time_settings system must be one of {', '.join(KGS_ARITY)}: {system!r}")
        if KGS_ARITY[system] != len(values):
            raise ValueError(f"kgs-time_settings {system} takes {KGS_ARITY[system]} values, not {len(values)}")
        if system == "none":
            return cls()
        if system == "absolute":
            return cls("absolute", values[0])
        if system == "byoyomi":
            return cls("byoyomi", values[0], values[1], 1, int(values[2]))
        return cls("canadian", values[0], values[1], int(values[2]))

    @property
    def has_overtime(self) -> bool:
        """Byo-yomi or canadian with periods that give time."""
        return self.system in ("byoyomi", "canadian") and self.period_time > 0

    def untouched(self) -> "ClockReading":
        """The reading before any move: main time, or the first overtime period without it."""
        if self.main_time > 0:
            return ClockReading(float(self.main_time), 0)
        if self.system == "byoyomi":
            return ClockReading(float(self.period_time), max(self.periods, 1))
        return ClockReading(float(self.period_time), max(self.period_stones, 1) if self.system != "none" else self.period_stones)


@dataclass(frozen=True)
class ClockReading:
    """One colour's clock in GTP's ``time_left`` convention (``stones == 0``: main time)."""

    seconds: float
    stones: int = 0


def run_down(settings: TimeSettings, reading: ClockReading | None, elapsed: float) -> tuple[ClockReading, bool]:
    """The reading after a move that took ``elapsed`` seconds, and whether it was played in
    time. ``reading`` None: the untouched clock. A lost clock reads ``(0, 0)`` (no overtime)
    or ``(0, 1)`` (the last overtime period overrun); ``none`` never runs down."""
    now = reading if reading is not None else settings.untouched()
    if settings.system == "none":
        return now, True
    byoyomi = settings.system == "byoyomi" and settings.period_time > 0 and settings.periods > 0
    canadian = settings.system == "canadian" and settings.period_time > 0 and settings.period_stones > 0
    if now.stones == 0:
        left = now.seconds - elapsed
        if left >= 0:
            return ClockReading(left + (settings.increment if settings.system == "fischer" else 0.0), 0), True
        if not (byoyomi or canadian):
            return ClockReading(0.0, 0), False
        elapsed = -left  # the part of the move played in overtime
        now = ClockReading(float(settings.period_time), settings.periods if byoyomi else settings.period_stones)
    if byoyomi:
        if elapsed <= now.seconds:
            return ClockReading(float(settings.period_time), now.stones), True
        if now.stones > 1:
            return ClockReading(float(settings.period_time), now.stones - 1), True
        return ClockReading(0.0, 1), False
    left = now.seconds - elapsed
    if canadian and now.stones <= 1:
        if left >= 0:
            return ClockReading(float(settings.period_time), settings.period_stones), True
        return ClockReading(0.0, 1), False
    if canadian:
        return ClockReading(max(left, 0.0), now.stones - 1), left >= 0
    # overtime stones under a system without overtime (a controller's time_left as canadian)
    return ClockReading(max(left, 0.0), now.stones), left >= 0


class Clock:
    """One colour's running clock: a :class:`TimeSettings` and its current reading."""

    def __init__(self, settings: TimeSettings, reading: ClockReading | None = None) -> None:
        self.settings = settings
        self.reading = reading if reading is not None else settings.untouched()
        self.flagged = False

    def spend(self, seconds: float) -> bool:
        """Charge one move; False when it ran out of time (and from then on)."""
        self.reading, in_time = run_down(self.settings, self.reading, seconds)
        self.flagged = self.flagged or not in_time
        return not self.flagged

    def time_left(self) -> tuple[int, int]:
        """GTP ``time_left`` arguments: whole seconds (rounded down) and stones."""
        return (max(0, int(self.reading.seconds)), self.reading.stones)
