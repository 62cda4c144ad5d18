"""Time control: turn a clock (GTP ``time_settings``/``kgs-time_settings`` plus the last
``time_left``) into a thinking :class:`~margo_gtp.players.Budget` for one move.

The systems, the reading (``time_left C T S``: ``S == 0`` main time, ``S > 0`` overtime)
and how a move runs the clock down are the one clock's, :mod:`margo_gtp.players.clock`.
Without a clock (``none``) the per-move default applies (``default_seconds``; ``None``
lets the player use its own default); without any ``time_left`` the clock is taken as
untouched.

How the share is chosen, with ``T`` the seconds left on the running clock:

* main time: ``T / moves_left`` (``moves_left`` is the caller's estimate of this
  player's remaining moves, at least ``MIN_MOVES_LEFT``); when overtime follows, at
  least the share overtime would give a move, since main time spent there is not lost;
* fischer: the main-time share plus the increment (spent as it comes);
* canadian overtime: ``T / S``; byo-yomi overtime: ``BYOYOMI_SHARE`` of ``T``;
* every share is then scaled by ``SAFETY_FACTOR``.

The guarantee (what the tests check with a fake clock): the budget never exceeds the time
that may still be used without losing, minus a safety margin of ``OVERHEAD_SECONDS`` plus
``OVERHEAD_FRACTION`` of that time, which covers the search's last simulation and the
protocol's round trip. What is not guaranteed: a player that ignores its budget, or a
controller whose clock disagrees with the ``time_left`` it sent.
"""

from __future__ import annotations

from margo_gtp.players.base import Budget
from margo_gtp.players.clock import ClockReading, TimeSettings, run_down

__all__ = ["budget", "charge", "moves_left_estimate", "usable_seconds"]

# Tunables
MIN_MOVES_LEFT = 10          # never plan as if fewer moves remain (the game may go long)
OVERHEAD_SECONDS = 0.1       # fixed safety margin: the last simulation (tens of ms on a loaded machine) and the GTP round trip
OVERHEAD_FRACTION = 0.05     # plus this share of the usable time
BYOYOMI_SHARE = 0.8          # share of a byo-yomi period to think in (keeps the periods)
SAFETY_FACTOR = 0.9          # every share is scaled by this (slack for the clock's granularity)
MIN_BUDGET = 0.001           # the smallest budget handed out (a player always gets to move)


def _current(settings: TimeSettings, clock: ClockReading | None) -> ClockReading:
    """The clock now: the last ``time_left``, or the untouched clock of ``settings``."""
    if clock is not None:
        return ClockReading(float(clock.seconds), int(clock.stones))
    return settings.untouched()


def usable_seconds(settings: TimeSettings, clock: ClockReading | None) -> float | None:
    """Seconds this move may take without losing on time (None: no limit).

    Main time with overtime after it counts main time plus the first overtime slice
    (a byo-yomi period, or a canadian period divided by its stones: spending more
    would starve the later stones of that period)."""
    if settings.system == "none":
        return None
    now = _current(settings, clock)
    overtime = settings.has_overtime
    if now.stones == 0:  # main time (fischer's increment comes after the move: not usable now)
        if not overtime:
            return now.seconds
        if settings.system == "byoyomi":
            return now.seconds + settings.period_time if settings.periods > 0 else now.seconds
        return now.seconds + settings.period_time / max(settings.period_stones, 1)
    if settings.system == "byoyomi":
        return now.seconds  # the current period; overrunning it costs a period or the game
    return now.seconds / now.stones if settings.system == "canadian" else now.seconds


def budget(settings: TimeSettings, clock: ClockReading | None, *, moves_left: int = 30,
           default_seconds: float | None = None) -> Budget:
    """The thinking budget for the next move (see the module docstring)."""
    if settings.system == "none":
        return Budget(seconds=default_seconds)
    now = _current(settings, clock)
    usable = usable_seconds(settings, clock)
    assert usable is not None
    overtime = settings.has_overtime
    if now.stones == 0:
        share = now.seconds / max(moves_left, MIN_MOVES_LEFT)
        if settings.system == "fischer":
            share += settings.increment  # spent as it comes, the increment keeps the bank steady
        if overtime:
            per_stone = (settings.period_time * BYOYOMI_SHARE if settings.system == "byoyomi"
                         else settings.period_time / max(settings.period_stones, 1))
            share = max(share, per_stone)
    elif settings.system == "byoyomi":
        share = now.seconds * BYOYOMI_SHARE
    else:
        share = now.seconds / now.stones
    limit = usable - OVERHEAD_SECONDS - OVERHEAD_FRACTION * usable
    seconds = min(share * SAFETY_FACTOR, limit)
    if default_seconds is not None:
        seconds = min(seconds, default_seconds)
    return Budget(seconds=max(seconds, min(MIN_BUDGET, usable / 4)))


def moves_left_estimate(empty_supported_points: int) -> int:
    """This player's remaining moves, guessed from the points still open: half of them
    (the two sides alternate), stacking and captures keep a game going a while longer."""
    return max(MIN_MOVES_LEFT, empty_supported_points // 2 + 5)


def charge(settings: TimeSettings, clock: ClockReading | None, elapsed: float) -> tuple[float, int] | None:
    """The clock ``(seconds, stones)`` after a move that took ``elapsed`` seconds, in the
    ``time_left`` convention (``stones == 0``: main time), by the one clock's
    :func:`~margo_gtp.players.clock.run_down`. None when there is no clock.

    Used between two ``time_left`` commands, so a controller that never sends one still
    gets budgets from a clock that runs down. Running out is not modelled beyond its
    effect on the numbers: an exhausted clock reads ``(0.0, 0)`` (absolute) or keeps the
    last period with no seconds in it.
    """
    if settings.system == "none":
        return None
    after, _ = run_down(settings, _current(settings, clock), elapsed)
    return after.seconds, after.stones
