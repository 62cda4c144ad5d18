"""Hypothesis fuzzing of the GTP engine with random bytes and near-valid GTP lines.

Invariants: every line that is not blank after preprocessing gets exactly one answer,
starting with ``=`` or ``?`` (with the line's id, if any); the session ends only on
``quit`` or EOF; a failed command leaves the whole state (board, history, rules, clocks)
as it was.
"""

from __future__ import annotations

import io
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.players import make_player
from margo_gtp.protocol.gtp import GtpEngine, run_gtp_session
from margo_gtp.protocol.session import GameSession, make_gtp_engine

COMMANDS = [
    "protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
    "clear_board", "komi", "play", "genmove", "reg_genmove", "undo", "showboard", "final_score",
    "final_status_list", "time_settings", "time_left", "kgs-time_settings", "loadsgf",
    "gogui-analyze_commands", "margo-setup", "margo-to_move", "margo-board", "margo-legal_moves",
    "margo-get_rules", "margo-set_rules", "margo-score", "printsgf", "quit",
]  # fmt: skip

WORDS = st.sampled_from(
    ["w", "b", "W", "black", "WHITE", "x", "pass", "swap", "resign", "alive", "dead", "seki", "none",
     "absolute", "byoyomi", "canadian", "swap=on", "size=3", "size=1", "ko_rule=simple", "komi=0.5",
     "allow_pass=on", "max_level=0", "first_player=black", "k=v", "=", "-1", "0", "1", "2", "3", "5",
     "19", "20", "6.5", "nan", "1e999", "#", "\t", "\r", "\x00", "\x1b", "é", "/nonexistent.sgf"]
)  # fmt: skip
VERTICES = st.builds(
    lambda col, row, level: f"{col}{row}" + ("" if level is None else f":{level}"),
    st.sampled_from("abcdefghijkzABCDEFGHJKZ"),
    st.integers(0, 21),
    st.one_of(st.none(), st.integers(0, 10)),
)
ARGS = st.lists(st.one_of(WORDS, VERTICES, st.integers(-3, 25).map(str)), max_size=6)


SMALL_VERTICES = st.builds(
    lambda col, row, level: f"{col}{row}:{level}", st.sampled_from("ABCDE"), st.integers(1, 5), st.sampled_from([1, 1, 1, 2, 3])
)
COLOURS = st.sampled_from(["w", "b"])
GAME_LINES = st.one_of(
    st.builds(lambda c, v: f"play {c} {v}", COLOURS, SMALL_VERTICES),
    st.builds(lambda c: f"genmove {c}", COLOURS),
    st.builds(lambda c, v, d, u: f"margo-setup {c} {v} {d} {u}", COLOURS, SMALL_VERTICES, COLOURS, SMALL_VERTICES),
    st.sampled_from(["undo", "boardsize 5", "boardsize 3", "clear_board", "komi 0.5", "margo-to_move b",
                     "margo-set_rules swap=on", "margo-set_rules allow_pass=on", "play w pass", "play b swap",
                     "time_left w 10 1", "final_score", "margo-legal_moves"]),
)  # fmt: skip


@st.composite
def near_valid_lines(draw) -> str:
    kind = draw(st.integers(0, 9))
    if kind < 5:
        name, *args = draw(GAME_LINES).split(" ")
    else:
        name = draw(st.one_of(st.sampled_from(COMMANDS), st.sampled_from(COMMANDS).map(str.upper), st.text(max_size=8)))
        args = draw(ARGS)
    if name == "printsgf":
        args = []  # never write files
    if name == "quit" and draw(st.booleans()):
        name = "quit!"  # keep most sessions going
    parts = [name, *args]
    if draw(st.booleans()):
        parts.insert(0, str(draw(st.integers(0, 999))))
    separator = draw(st.sampled_from([" ", "  ", "\t", " \t "]))
    line = separator.join(parts)
    if draw(st.integers(0, 9)) == 0:
        line += draw(st.sampled_from(["\r", " # comment", "#", "\x7f", "\x0c"]))
    return line.replace("\n", "")  # one line: random names may hold a newline


SCRIPT = st.lists(st.one_of(near_valid_lines(), st.text(max_size=20).map(lambda t: t.replace("\n", ""))), max_size=40)


def new_engine() -> GtpEngine:
    return make_gtp_engine(make_player("random", 0), stderr=io.StringIO())


def _clean(line: str) -> str:
    """gtp.md section 1 preprocessing, written again here so the test does not trust the engine."""
    kept = "".join(c for c in line if c == "\t" or (" " <= c and c != "\x7f")).split("#", 1)[0]
    return kept.replace("\t", " ").strip()


def _ends_session(line: str) -> bool:
    tokens = _clean(line).split()
    if tokens and tokens[0].isascii() and tokens[0].isdigit():
        tokens = tokens[1:]
    return tokens == ["quit"]


def _check_answers(lines: list[str], output: str) -> None:
    expected: list[str] = []
    for line in lines:
        if _clean(line):
            expected.append(line)
        if _ends_session(line):
            break
    blocks = output.split("\n\n")
    assert blocks[-1] == "", "output must end with an empty line"
    blocks = blocks[:-1]
    assert len(blocks) == len(expected), (expected, blocks)
    for line, block in zip(expected, blocks):
        tokens = _clean(line).split()
        command_id = tokens[0] if tokens[0].isascii() and tokens[0].isdigit() else ""
        assert re.match(rf"[=?]{command_id}(?:[ \n]|$)", block), (line, block)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCRIPT)
def test_every_line_answered_exactly_once(lines: list[str]) -> None:
    out = io.StringIO()
    run_gtp_session(new_engine(), io.StringIO("".join(line + "\n" for line in lines), newline="\n"), out)
    _check_answers(lines, out.getvalue())


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_are_answered_and_never_kill_the_engine(data: bytes) -> None:
    src = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="\n")
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = io.StringIO()
    run_gtp_session(new_engine(), src, out)
    _check_answers(lines, out.getvalue())


def _state(engine: GtpEngine) -> tuple:
    session: GameSession = engine.session  # type: ignore[attr-defined]
    board = session.board
    return (
        engine.respond("margo-board")[0],
        board.rules,
        list(board.history),
        board.root_balls(),
        board.root_to_move,
        repr(session.time_settings),
        repr(session._state),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(near_valid_lines(), max_size=30))
def test_state_changes_only_through_successful_commands(lines: list[str]) -> None:
    engine = new_engine()
    for line in lines:
        before = _state(engine)
        response, end = engine.respond(line)
        if response is None:
            assert _state(engine) == before
            continue
        assert response[0] in "=?"
        if response.startswith("?"):
            assert response.split(" ", 1)[-1] != "internal error\n\n", line
            assert _state(engine) == before, line
        if end:
            assert _ends_session(line)
            break
