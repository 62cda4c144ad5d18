"""Both cores give the same answer to numbers at their extremes (issue 36, bug 7 and 10):
``komi -5000`` was ``? internal error`` on the Python core (``math.exp`` overflow in the
evaluator) while the native core played; ``komi 1e308`` was accepted and then
``final_score`` failed (OverflowError); ``time_settings 99999999999999999999999 1 1`` was
accepted and the next ``genmove`` never returned. Komi is now -MAX_KOMI..MAX_KOMI and clock
numbers 0..MAX_CLOCK_NUMBER; beyond, one line and ``? syntax error``, on both cores."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import core
from margo_gtp.engine.rules import MAX_KOMI, Rules, RulesError
from margo_gtp.players import make_player
from margo_gtp.players.clock import MAX_CLOCK_NUMBER
from margo_gtp.players.evaluate import heuristic_evaluator
from margo_gtp.protocol.session import make_gtp_engine

CORES = [name for name in core.CORES if name != "native" or core.native_available()]


def transcript(core_name: str, lines: list[str], player: str = "mcts:playouts=8") -> list[tuple[str, str]]:
    """(answer, stderr) of each line, in a fresh session on ``core_name``."""
    previous = core.core_name()
    core.set_core(core_name)
    try:
        stderr = io.StringIO()
        engine = make_gtp_engine(make_player(player, 1), stderr=stderr)
        out = []
        for line in lines:
            before = len(stderr.getvalue())
            out.append((_answer(engine, line), stderr.getvalue()[before:]))
        return out
    finally:
        core.set_core(previous)


def _answer(engine, line: str) -> str:  # noqa: ANN001
    from margo_gtp.protocol.gtp import run_gtp_session

    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(line + "\n"), out)
    return out.getvalue()


def test_an_absurd_clock_is_refused_with_one_line_on_both_cores() -> None:
    for name in CORES:
        assert transcript(name, ["time_settings 99999999999999999999999 1 1", "time_left w 1000001 0",
                                 "kgs-time_settings byoyomi 10 1000001 1", f"time_settings {MAX_CLOCK_NUMBER} 0 0"]) == [
            ("? syntax error\n\n", "margo-gtp: syntax error: 'time_settings 99999999999999999999999 1 1': "
                                   "clock numbers must be at most 1000000\n"),
            ("? syntax error\n\n", "margo-gtp: syntax error: 'time_left w 1000001 0': "
                                   "clock numbers must be at most 1000000\n"),
            ("? syntax error\n\n", "margo-gtp: syntax error: 'kgs-time_settings byoyomi 10 1000001 1': "
                                   "clock numbers must be at most 1000000\n"),
            ("=\n\n", "")]


def test_komi_at_the_extremes_on_both_cores() -> None:
    lines = ["boardsize 3", "komi 1e308", "komi -5000", "genmove w", "final_score", "komi 10000.5", "komi -10000"]
    answers = {name: transcript(name, lines) for name in CORES}
    for name, got in answers.items():
        assert [answer for answer, _ in got][:3] == ["=\n\n", "? syntax error\n\n", "=\n\n"], name
        assert got[1][1] == "margo-gtp: syntax error: 'komi 1e308': komi must be between -10000 and 10000\n"
        assert got[3][0].startswith("= ") and got[4][0].startswith("= B+")   # a move, then Black far ahead
        assert got[5] == ("? syntax error\n\n",
                          "margo-gtp: syntax error: 'komi 10000.5': komi must be between -10000 and 10000\n")
        assert got[6] == ("=\n\n", "")
    assert len({tuple(got[index] for index in (0, 1, 2, 5, 6)) for got in answers.values()}) == 1


def test_the_rules_refuse_a_komi_beyond_the_range() -> None:
    assert Rules(komi=-MAX_KOMI).komi == -MAX_KOMI
    with pytest.raises(RulesError, match=r"^invalid komi: 1e\+308 \(allowed -10000..10000\)$"):
        Rules(komi=1e308)
    with pytest.raises(RulesError, match=r"^invalid komi: -10000.5 \(allowed -10000..10000\)$"):
        Rules().with_options({"komi": "-10000.5"})


def test_the_python_evaluator_gives_the_c_ones_zero_where_exp_overflows() -> None:
    from margo_gtp.engine import Board

    board = Board(Rules(size=3, komi=-MAX_KOMI))
    assert heuristic_evaluator(board) in (0.0, 1.0)


NUMBER_TEXT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(min_value=-10**25, max_value=10**25).map(str),
    st.sampled_from(["-5000", "1e308", "-1e308", "10000", "-10000", "10000.5", "5e-324", "-0", "1e-308"]))
CLOCK_TEXT = st.one_of(st.integers(min_value=0, max_value=10**25), st.sampled_from([0, 1, MAX_CLOCK_NUMBER,
                                                                                      MAX_CLOCK_NUMBER + 1])).map(str)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(komi=NUMBER_TEXT, main=CLOCK_TEXT, byo=CLOCK_TEXT, stones=CLOCK_TEXT)
def test_both_cores_answer_every_komi_and_clock_alike(komi: str, main: str, byo: str, stones: str) -> None:
    """The answers to komi and the clock are the same text on both cores, and the search
    and the score after them answer (never ``? internal error``); the clock is one that a
    search of 8 playouts never waits for."""
    lines = ["boardsize 3", f"komi {komi}", f"time_settings {main} {byo} {stones}", "genmove w", "final_score"]
    answers = {name: transcript(name, lines) for name in CORES}
    settings_answers = {tuple(got[:3]) for got in answers.values()}
    assert len(settings_answers) == 1, answers
    for got in answers.values():
        in_range = abs(float(komi)) <= MAX_KOMI
        assert got[1][0] == ("=\n\n" if in_range else "? syntax error\n\n")
        clock_ok = max(int(main), int(byo), int(stones)) <= MAX_CLOCK_NUMBER
        assert got[2][0] == ("=\n\n" if clock_ok else "? syntax error\n\n")
        assert got[3][0].startswith("= ") and got[4][0].startswith("= "), got
