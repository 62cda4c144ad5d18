"""The one clock (margo_gtp/players/clock.py): its invariants under hypothesis, Fischer
increment, and the referee's and the engine's views of it agreeing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.match.match_config import TimeControl
from margo_gtp.players.clock import Clock, ClockReading, TimeSettings, run_down
from margo_gtp.players.timecontrol import budget, charge, usable_seconds

seconds = st.floats(0, 120, allow_nan=False)
counts = st.integers(1, 10)


@st.composite
def time_settings(draw) -> TimeSettings:
    system = draw(st.sampled_from(["absolute", "byoyomi", "canadian", "fischer"]))
    main = draw(st.floats(0, 600, allow_nan=False))
    if system == "absolute":
        return TimeSettings("absolute", main)
    if system == "fischer":
        return TimeSettings("fischer", main, increment=draw(st.floats(0, 30, allow_nan=False)))
    period = draw(st.floats(0.5, 60, allow_nan=False))
    if system == "byoyomi":
        return TimeSettings("byoyomi", main, period, 1, draw(counts))
    return TimeSettings("canadian", main, period, draw(counts))


@settings(max_examples=300, deadline=None)
@given(time_settings(), st.lists(seconds, max_size=40))
def test_a_clock_never_reads_negative_stays_flagged_and_agrees_with_charge(time_system, moves):
    """Also: the session's charge() (a reading between two time_left) runs the same clock."""
    clock = Clock(time_system)
    reading, flagged = None, False
    for elapsed in moves:
        in_time = run_down(time_system, clock.reading, elapsed)[1]
        assert clock.spend(elapsed) == (in_time and not flagged)
        flagged = flagged or not in_time
        assert clock.reading.seconds >= 0 and clock.reading.stones >= 0
        assert clock.time_left() == (int(clock.reading.seconds), clock.reading.stones)
        reading = ClockReading(*charge(time_system, reading, elapsed))
        assert reading == clock.reading


@settings(max_examples=300, deadline=None)
@given(time_settings(), st.floats(0, 600, allow_nan=False), seconds)
def test_a_move_in_main_time_costs_its_seconds_and_gains_the_increment(time_system, left, elapsed):
    after, in_time = run_down(time_system, ClockReading(left, 0), elapsed)
    if elapsed <= left:
        assert in_time and after.stones == 0
        assert after.seconds == pytest.approx(left - elapsed + time_system.increment)
    elif not time_system.has_overtime:
        assert (after, in_time) == (ClockReading(0.0, 0), False)  # no increment for a move out of time


@settings(max_examples=200, deadline=None)
@given(st.floats(1, 60, allow_nan=False), counts, st.data())
def test_a_byoyomi_period_kept_is_whole_again(period, periods, data):
    time_system = TimeSettings("byoyomi", 0, period, 1, periods)
    clock = Clock(time_system)
    for elapsed in data.draw(st.lists(st.floats(0, period, allow_nan=False), max_size=20)):
        assert clock.spend(elapsed)
        assert clock.reading == ClockReading(period, periods)
    if periods > 1:  # an overrun costs one period
        assert clock.spend(period + 1) and clock.reading == ClockReading(period, periods - 1)


@settings(max_examples=200, deadline=None)
@given(st.floats(1, 60, allow_nan=False), counts, st.integers(1, 5))
def test_canadian_stones_count_down_and_the_period_starts_afresh(period, stones, rounds):
    clock = Clock(TimeSettings("canadian", 0, period, stones))
    per_stone = period / stones / 2  # well inside the period
    for _ in range(rounds):
        for played in range(1, stones + 1):
            assert clock.spend(per_stone)
            if played < stones:
                assert clock.reading.stones == stones - played
                assert clock.reading.seconds == pytest.approx(period - played * per_stone)
        assert clock.reading == ClockReading(period, stones)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 600, allow_nan=False), st.floats(0, 30, allow_nan=False), st.integers(0, 200))
def test_fischer_budget_never_exceeds_the_bank(main, increment, moves_left):
    time_system = TimeSettings("fischer", main, increment=increment)
    usable = usable_seconds(time_system, None)
    assert usable == main  # the increment comes after the move
    assert 0 <= budget(time_system, None, moves_left=moves_left).seconds <= usable


def test_fischer_budget_spends_the_increment():
    # 30 moves left: a 30th of 60 s plus the 2 s increment, times the 0.9 safety factor
    assert budget(TimeSettings("fischer", 60, increment=2), None).seconds == pytest.approx((60 / 30 + 2) * 0.9)


@pytest.mark.parametrize("call, message", [
    (lambda: TimeSettings("hourglass"), "time system must be one of none, absolute, byoyomi, canadian, fischer: 'hourglass'"),
    (lambda: TimeSettings("absolute", -1), "time setting main_time must be a finite number >= 0: -1"),
    (lambda: TimeSettings("fischer", increment=float("inf")), "time setting increment must be a finite number >= 0: inf"),
    (lambda: TimeSettings("canadian", 60, 10, True), "time setting period_stones must be a finite number >= 0: True"),
    (lambda: TimeSettings.from_kgs("fischer", [60, 5]),
     "kgs-time_settings system must be one of none, absolute, byoyomi, canadian: 'fischer'"),
    (lambda: TimeSettings.from_kgs("byoyomi", [60, 5]), "kgs-time_settings byoyomi takes 3 values, not 2"),
])
def test_time_settings_refused(call, message):
    with pytest.raises(ValueError) as caught:
        call()
    assert str(caught.value) == message


def test_time_settings_from_gtp_and_kgs():
    assert TimeSettings.from_gtp(300, 30, 0) == TimeSettings()  # GTP 2: byo-yomi time, no stones = no limit
    assert TimeSettings.from_gtp(300, 0, 5) == TimeSettings("absolute", 300)
    assert TimeSettings.from_gtp(300, 30, 5) == TimeSettings("canadian", 300, 30, 5)
    assert TimeSettings.from_kgs("byoyomi", [600, 30, 5]) == TimeSettings("byoyomi", 600, 30, 1, 5)
    assert TimeSettings.from_kgs("canadian", [600, 300, 25]) == TimeSettings("canadian", 600, 300, 25)


# -- the referee's time control ---------------------------------------------------------------


def test_referee_fischer():
    control = TimeControl.parse("10+2")
    assert control == TimeControl(10.0, 0.0, 0, 2.0)
    assert control.gtp_args() == (10, 0, 0)  # plain GTP: sudden death, then time_left with the bank
    clock = Clock(control.settings())  # the one clock, under the referee's time control
    assert [clock.spend(s) for s in (4.0, 7.0)] == [True, True]  # 10 -4 +2 = 8, 8 -7 +2 = 3
    assert clock.time_left() == (3, 0)
    assert not clock.spend(4.0)  # over the bank: out, and no increment
    assert clock.time_left() == (0, 0)
    assert TimeControl.parse("10 + 0.5").identity() == {"main_time": 10.0, "byo_yomi_time": 0.0,
                                                        "byo_yomi_stones": 0, "increment": 0.5}
    assert TimeControl(60.0).identity() == {"main_time": 60.0, "byo_yomi_time": 0.0, "byo_yomi_stones": 0}
