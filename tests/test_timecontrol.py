"""Time control: exact budgets per system, the invariant that a budget never exceeds the
usable time, and whole games on a fake clock in which the engine never loses on time.

The fake clock advances a fixed step at every reading, so an MCTS search costs one step
per simulation (plus two readings to start): no real time is measured anywhere.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Colour, Rules
from margo_gtp.players import Budget
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.timecontrol import (
    OVERHEAD_SECONDS,
    budget,
    charge,
    moves_left_estimate,
    usable_seconds,
)
from margo_gtp.players.clock import ClockReading as Left
from margo_gtp.protocol.session import TimeSettings as Settings
from margo_gtp.protocol.session import make_gtp_engine


ABSOLUTE = Settings("absolute", 300)
CANADIAN = Settings("canadian", 600, 300, 25)
BYOYOMI = Settings("byoyomi", 600, 30, 1, 5)

BUDGETS = [
    # (case, settings, time_left or None, expected seconds or None for Budget())
    ("no clock", Settings(), None, None),
    ("absolute, untouched", ABSOLUTE, None, 300 / 30 * 0.9),
    ("absolute, 30 s left", ABSOLUTE, Left(30, 0), 30 / 30 * 0.9),
    ("absolute, 1 s left", ABSOLUTE, Left(1, 0), 1 / 30 * 0.9),
    ("absolute, out of time", ABSOLUTE, Left(0, 0), 0.0),
    ("canadian, main time: overtime share is larger", Settings("canadian", 60, 300, 25), None, 300 / 25 * 0.9),
    ("canadian, untouched", CANADIAN, None, 600 / 30 * 0.9),
    ("canadian, overtime 100 s for 10 stones", CANADIAN, Left(100, 10), 10 * 0.9),
    ("canadian, last second for last stone", CANADIAN, Left(1, 1), 1 - OVERHEAD_SECONDS - 0.05),
    ("byoyomi, untouched: a period's share", BYOYOMI, None, 30 * 0.8 * 0.9),
    ("byoyomi, in a period", BYOYOMI, Left(30, 5), 30 * 0.8 * 0.9),
    ("byoyomi, 2 s of main then periods", BYOYOMI, Left(2, 0), 30 * 0.8 * 0.9),
    ("byoyomi, no main time", Settings("byoyomi", 0, 10, 1, 3), None, 10 * 0.8 * 0.9),
    ("absolute with stones (time_left as canadian)", ABSOLUTE, Left(30, 5), 30 / 5 * 0.9),
]


@pytest.mark.parametrize("case, time_system, left, expected", BUDGETS, ids=[b[0] for b in BUDGETS])
def test_budget_table(case: str, time_system: Settings, left: Left | None, expected: float | None) -> None:
    result = budget(time_system, left)
    if expected is None:
        assert result == Budget()
    else:
        assert result.seconds == pytest.approx(expected)
        assert result.playouts is None


def test_default_seconds_apply_without_a_clock_and_cap_with_one() -> None:
    assert budget(Settings(), None, default_seconds=2.0) == Budget(seconds=2.0)
    assert budget(ABSOLUTE, None, default_seconds=2.0) == Budget(seconds=2.0)


systems = st.sampled_from(["absolute", "byoyomi", "canadian"])


@settings(max_examples=300, deadline=None)
@given(system=systems, main=st.integers(0, 3600), period=st.integers(0, 120), stones=st.integers(1, 30),
       left=st.none() | st.tuples(st.integers(0, 3600), st.integers(0, 30)), moves_left=st.integers(0, 200))
def test_budget_never_exceeds_the_usable_time(system: str, main: int, period: int, stones: int,
                                              left: tuple[int, int] | None, moves_left: int) -> None:
    time_system = Settings(system, main, period, stones if system == "canadian" else 1, stones)
    reading = None if left is None else Left(*left)
    usable = usable_seconds(time_system, reading)
    seconds = budget(time_system, reading, moves_left=moves_left).seconds
    assert usable is not None and seconds is not None
    assert 0 <= seconds <= usable
    if usable > 2 * OVERHEAD_SECONDS:
        assert seconds <= usable - OVERHEAD_SECONDS


CHARGES = [
    ("absolute", ABSOLUTE, Left(30, 0), 12.5, (17.5, 0)),
    ("absolute runs out", ABSOLUTE, Left(3, 0), 5, (0.0, 0)),
    ("canadian main into overtime", Settings("canadian", 10, 60, 5), Left(10, 0), 15, (55.0, 4)),
    ("canadian overtime stone", CANADIAN, Left(100, 10), 20, (80.0, 9)),
    ("canadian period completed", CANADIAN, Left(100, 1), 20, (300.0, 25)),
    ("byoyomi main into a period", BYOYOMI, Left(5, 0), 20, (30.0, 5)),
    ("byoyomi period kept", BYOYOMI, Left(30, 5), 29, (30.0, 5)),
    ("byoyomi period lost", BYOYOMI, Left(30, 5), 31, (30.0, 4)),
    ("no clock", Settings(), None, 5, None),
]


@pytest.mark.parametrize("case, time_system, left, elapsed, expected", CHARGES, ids=[c[0] for c in CHARGES])
def test_charge_table(case: str, time_system: Settings, left: Left | None, elapsed: float, expected: tuple | None) -> None:
    assert charge(time_system, left, elapsed) == expected


def test_moves_left_estimate() -> None:
    assert moves_left_estimate(0) == 10
    assert moves_left_estimate(81) == 45


# -- whole games on a fake clock -------------------------------------------------------------


class FakeClock:
    """Advances ``step`` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Referee:
    """An independent game clock for one player: raises AssertionError on a flag fall."""

    def __init__(self, time_system: Settings) -> None:
        self.s = time_system
        self.main = float(time_system.main_time)
        self.in_overtime = time_system.main_time == 0
        self.period_left = float(time_system.period_time)
        self.stones = time_system.period_stones
        self.periods = time_system.periods

    def time_left(self) -> tuple[int, int]:
        """GTP ``time_left`` arguments (whole seconds, rounded down)."""
        if not self.in_overtime:
            return math.floor(self.main), 0
        if self.s.system == "byoyomi":
            return self.s.period_time, self.periods
        return math.floor(self.period_left), self.stones

    def spend(self, elapsed: float) -> None:
        if not self.in_overtime:
            self.main -= elapsed
            if self.main >= 0:
                return
            assert self.s.system != "absolute", f"lost on time: main time over by {-self.main:.3f}s"
            elapsed, self.in_overtime = -self.main, True
        if self.s.system == "byoyomi":
            while elapsed > self.s.period_time:
                self.periods -= 1
                elapsed -= self.s.period_time
                assert self.periods > 0, "lost on time: byo-yomi periods used up"
            return
        self.period_left -= elapsed
        assert self.period_left >= 0, f"lost on time: canadian period over by {-self.period_left:.3f}s"
        self.stones -= 1
        if self.stones == 0:
            self.period_left, self.stones = float(self.s.period_time), self.s.period_stones


GAMES = [
    ("absolute", "kgs-time_settings absolute 3", Settings("absolute", 3)),
    ("canadian", "kgs-time_settings canadian 1 2 4", Settings("canadian", 1, 2, 4)),
    ("byoyomi", "kgs-time_settings byoyomi 1 1 2", Settings("byoyomi", 1, 1, 1, 2)),
    ("time_settings canadian", "time_settings 1 2 3", Settings("canadian", 1, 2, 3)),
    ("time_settings absolute", "time_settings 2 0 0", Settings("absolute", 2)),
]


@pytest.mark.parametrize("send_time_left", [True, False], ids=["time_left", "no time_left"])
@pytest.mark.parametrize("case, command, time_system", GAMES, ids=[g[0] for g in GAMES])
def test_engine_never_loses_on_time(case: str, command: str, time_system: Settings, send_time_left: bool) -> None:
    clock = FakeClock(step=0.01)
    player = MctsPlayer(random.Random(1), clock=clock, early_stop=False)
    engine = make_gtp_engine(player, Rules(size=4))
    if not send_time_left:
        # the session charges its own clock with real (tiny) thinking times: make them fake
        import margo_gtp.protocol.session as session_module

        monkey = pytest.MonkeyPatch()
        monkey.setattr(session_module.time, "monotonic", clock)
    try:
        assert engine.respond(command + "\n")[0] == "=\n\n"
        referee = Referee(time_system)
        opponent = random.Random(2)
        engine_colour, moves = Colour.WHITE, 0
        while moves < 60:
            if send_time_left:
                seconds, stones = referee.time_left()
                assert engine.respond(f"time_left w {seconds} {stones}\n")[0] == "=\n\n"
            before = clock.now
            answer, _ = engine.respond("genmove w\n")
            referee.spend(clock.now - before)
            if answer in ("= pass\n\n", "= resign\n\n"):
                break
            legal = engine.session.board.legal_moves(Colour.BLACK)
            if not legal:
                break
            assert engine.respond(f"play b {opponent.choice(legal).gtp()}\n")[0] == "=\n\n"
            moves += 1
        assert moves >= 3
    finally:
        if not send_time_left:
            monkey.undo()
    del engine_colour
