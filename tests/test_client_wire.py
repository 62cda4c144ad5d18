"""The GTP wire and SimpleEngine in-process, against a scripted mock transport.

As python-chess tests ``chess.engine``: the mock knows each command line the client
must send, in order, and the bytes the "engine" answers; a line that differs fails at
once, and ``assert_done`` checks the script was used up. Nothing here starts a process
(tests/test_client.py drives real ones) and nothing waits on a clock: a timeout is
either 0 or never reached.
"""

from __future__ import annotations

import io
import math
from collections import deque
from collections.abc import Sequence

import pytest

from margo_gtp.client import (
    EngineCommandError, EngineError, EngineProtocolError, EngineStartError, EngineTerminatedError, EngineTimeoutError,
    IllegalEngineMoveError, InvalidCommandError, Limit, PlayResult, SimpleEngine,
)
from margo_gtp.client.wire import (
    MAX_ANSWER_BYTES, Answer, BufferTransport, GtpWire, TransportClosed, WireClosed, WireProtocolError, WireTimeout,
    check_timeout,
)
from margo_gtp.client.wire import InvalidCommandError as WireInvalidCommandError
from margo_gtp.engine import Board, Move, Rules


class ScriptedTransport:
    """A mock engine: ``expect(line, *chunks)`` scripts one command line and the output
    chunks that follow it (bytes; ``b''`` ends the output). With nothing to read, a read
    reports that nothing came in time."""

    def __init__(self, *, exit_code: int | None = None) -> None:
        self.script: deque[tuple[str, Sequence[bytes]]] = deque()
        self.pending: deque[bytes] = deque()
        self.sent: list[str] = []
        self.read_timeouts: list[float | None] = []
        self.stderr_tail: list[str] = []
        self.exit_code = exit_code
        self.input_closed = False
        self.killed = False

    def expect(self, line: str, *chunks: bytes) -> "ScriptedTransport":
        self.script.append((line, chunks))
        return self

    def output(self, *chunks: bytes) -> "ScriptedTransport":
        """Output the engine writes before any command (an engine that talks first)."""
        self.pending.extend(chunks)
        return self

    def write(self, data: bytes) -> None:
        if self.input_closed:
            raise TransportClosed()
        line = data.decode("utf-8")
        self.sent.append(line)
        assert self.script, f"unexpected command {line!r}"
        expected, chunks = self.script.popleft()
        assert line == expected + "\n"
        self.pending.extend(chunks)

    def read(self, timeout: float | None) -> bytes | None:
        self.read_timeouts.append(timeout)
        return self.pending.popleft() if self.pending else None

    @property
    def pid(self) -> int | None:
        return 4242

    @property
    def returncode(self) -> int | None:
        return self.exit_code if self.killed or self.exit_code is not None else None

    def wait(self, timeout: float) -> int | None:
        return self.exit_code

    def kill(self) -> None:
        self.killed = True

    def join_stderr(self, timeout: float = 1.0) -> None:
        pass

    def assert_done(self) -> None:
        assert not self.script, f"commands never sent: {[line for line, _ in self.script]}"
        assert not self.pending, f"output never read: {list(self.pending)}"


def engine_over(mock: ScriptedTransport, **kwargs) -> SimpleEngine:
    return SimpleEngine.connect(mock, name="mock", **kwargs)


# -- the wire ---------------------------------------------------------------------------


def test_commands_go_out_numbered_and_answers_come_back_with_their_text():
    mock = ScriptedTransport()
    mock.expect("1 name", b"=1 margo-gtp\n\n").expect("2 boardsize 5", b"=2\n\n").expect("3 komi 0.5", b"= \n\n")
    wire = GtpWire(mock)
    assert wire.command("name") == Answer(True, 1, ("=1 margo-gtp",))
    assert wire.command("boardsize", [5]).text == ""
    assert wire.command("komi", ["0.5"]).text == ""  # an answer without an id is this command's
    mock.assert_done()


def test_without_ids_the_line_is_the_command_alone():
    mock = ScriptedTransport().expect("protocol_version", b"= 2\n\n").expect("play B D4:1", b"=\n\n")
    wire = GtpWire(mock, ids=False)
    assert wire.command("protocol_version").text == "2"
    assert wire.command("play", ["B", "D4:1"]).ok
    mock.assert_done()


def test_a_multi_line_answer_reads_as_text_and_verbatim():
    mock = ScriptedTransport().expect("1 showboard", b"=1 \n  A B\n1 . X  \n\n")
    answer = GtpWire(mock).command("showboard")
    assert answer.lines == ("=1 ", "  A B", "1 . X  ")
    assert answer.text == "  A B\n1 . X"  # the empty head text dropped, trailing space trimmed
    assert answer.verbatim == "\n  A B\n1 . X  "  # as written: a proxy relays it in this shape
    mock.assert_done()


def test_an_answer_split_across_reads_and_blank_lines_before_it():
    mock = ScriptedTransport().expect("1 genmove b", b"\n", b"\n=", b"1 C", b"3:1", b"\n", b"\n")
    assert GtpWire(mock).command("genmove", ["b"]).text == "C3:1"
    mock.assert_done()


def test_a_failure_answer_is_not_ok_and_carries_its_message():
    mock = ScriptedTransport().expect("1 play b A1:9", b"?1 illegal move\n\n")
    answer = GtpWire(mock).command("play", ["b", "A1:9"])
    assert (answer.ok, answer.id, answer.text) == (False, 1, "illegal move")
    mock.assert_done()


def test_received_lines_are_preprocessed_as_gtp_says():
    mock = ScriptedTransport().expect("1 name", b"=1 a\tb\x01c\r\n\r\n")
    assert GtpWire(mock).command("name").text == "a bc"


def test_the_wire_log_sees_both_directions():
    seen: list[tuple[str, str]] = []
    mock = ScriptedTransport().expect("1 name", b"=1 x\n\n")
    GtpWire(mock, log=lambda direction, line: seen.append((direction, line))).command("name")
    assert seen == [("<<", "1 name"), (">>", "=1 x"), (">>", "")]


@pytest.mark.parametrize(
    "command, args, message",
    [
        ("name\nversion", (), "invalid GTP command 'name\\nversion': the command name contains the control character '\\n'"),
        ("play", ("b", "D4:1\nquit"), "invalid GTP command 'play b D4:1\\nquit': argument 2 contains the control character '\\n'"),
        ("play", ("b\r", "D4:1"), "invalid GTP command 'play b\\r D4:1': argument 1 contains the control character '\\r'"),
        ("komi", ("6\x00",), "invalid GTP command 'komi 6\\x00': argument 1 contains the control character '\\x00'"),
        ("name\t", (), "invalid GTP command 'name\\t': the command name contains the control character '\\t'"),
        ("name\x7f", (), "invalid GTP command 'name\\x7f': the command name contains the control character '\\x7f'"),
        ("loadsgf", ("game#1.sgf",), "invalid GTP command 'loadsgf game#1.sgf': argument 1 contains '#', which starts a comment"),
    ],
)
def test_a_command_that_framing_would_split_or_change_is_refused_and_nothing_is_sent(command, args, message):
    mock = ScriptedTransport().expect("1 name", b"=1 margo-gtp\n\n")
    wire = GtpWire(mock)
    with pytest.raises(WireInvalidCommandError) as info:
        wire.command(command, args)
    assert str(info.value) == message + " (GTP framing would split or change it); nothing sent"
    assert isinstance(info.value, ValueError) and mock.sent == []
    assert wire.command("name").text == "margo-gtp"  # in step, and the refused command used no id
    mock.assert_done()


def test_an_answer_with_another_id_is_a_protocol_error():
    mock = ScriptedTransport().expect("1 name", b"=7 x\n\n")
    with pytest.raises(WireProtocolError) as info:
        GtpWire(mock).command("name")
    assert (info.value.reason, info.value.command_id, info.value.answer_id) == ("id", 1, 7)
    assert str(info.value) == "answer with id 7 to command id 1"


def test_without_ids_an_answer_id_is_not_checked():
    mock = ScriptedTransport().expect("name", b"=7 x\n\n")
    assert GtpWire(mock, ids=False).command("name") == Answer(True, 7, ("=7 x",))


def test_garbage_is_a_protocol_error_naming_the_line():
    mock = ScriptedTransport().expect("1 name", b"hello, I am not GTP\n")
    with pytest.raises(WireProtocolError) as info:
        GtpWire(mock).command("name")
    assert (info.value.reason, info.value.line, info.value.command) == ("garbage", "hello, I am not GTP", "name")
    assert str(info.value) == "not a GTP answer: 'hello, I am not GTP'"


def test_end_of_output_before_and_inside_an_answer():
    mock = ScriptedTransport().expect("1 name", b"")
    with pytest.raises(WireClosed) as before:
        GtpWire(mock).command("name")
    assert (before.value.stream, before.value.mid_answer, str(before.value)) == ("output", False, "output closed during 'name'")
    mock = ScriptedTransport().expect("1 list_commands", b"=1 name\nplay\n", b"")
    with pytest.raises(WireClosed) as inside:
        GtpWire(mock).command("list_commands")
    assert inside.value.mid_answer


def test_a_last_line_without_its_line_end_still_counts():
    wire = GtpWire(BufferTransport(b"=1 x\n\n=2 y"), ids=False)
    assert wire.read_answer().text == "x"
    with pytest.raises(WireClosed) as info:  # '=2 y' is read, then the output ends inside it
        wire.read_answer()
    assert info.value.mid_answer


def test_a_closed_input_is_a_closed_wire():
    mock = ScriptedTransport()
    mock.input_closed = True
    with pytest.raises(WireClosed) as info:
        GtpWire(mock).command("name")
    assert info.value.stream == "input"


def test_a_deadline_that_passes_is_a_timeout():
    mock = ScriptedTransport().expect("1 genmove b")  # the engine says nothing
    with pytest.raises(WireTimeout) as info:
        GtpWire(mock).command("genmove", ["b"], timeout=0)
    assert (info.value.timeout, str(info.value)) == (0, "no answer to 'genmove' within 0 s")


def test_a_huge_deadline_is_waited_for_in_slices_not_passed_to_the_os():
    mock = ScriptedTransport().expect("1 genmove b", b"=1 pass\n\n")
    assert GtpWire(mock).command("genmove", ["b"], timeout=1e20).text == "pass"
    assert mock.read_timeouts == [3600.0]


def test_an_answer_larger_than_the_bound_is_refused():
    line = b"=1 " + b"x" * (MAX_ANSWER_BYTES + 1)  # and still no line end
    mock = ScriptedTransport().expect("1 name", line)
    with pytest.raises(WireProtocolError) as info:
        GtpWire(mock).command("name")
    assert (info.value.reason, str(info.value)) == ("size", f"an answer longer than {MAX_ANSWER_BYTES} bytes")
    many_lines = [b"=1 start\n"] + [b"y" * 65535 + b"\n"] * (MAX_ANSWER_BYTES // 65536 + 1)
    mock = ScriptedTransport().expect("1 list_commands", *many_lines)
    with pytest.raises(WireProtocolError) as info:
        GtpWire(mock).command("list_commands")
    assert info.value.reason == "size"


@pytest.mark.parametrize("timeout", [float("nan"), -1, -0.5, -math.inf, "5", True])
def test_bad_timeouts_are_value_errors(timeout):
    with pytest.raises(ValueError) as info:
        check_timeout(timeout)
    assert str(info.value) == f"invalid timeout: {timeout!r} (a number of seconds >= 0, or None to wait for ever)"


def test_good_timeouts_pass_whatever_their_size():
    assert [check_timeout(t) for t in (None, 0, 2, 0.5, 1e20, math.inf)] == [None, 0.0, 2.0, 0.5, 1e20, math.inf]


# -- SimpleEngine on the mock ------------------------------------------------------------


def set_rules_line(command_id: int, rules: Rules) -> str:
    options = " ".join(f"{key}={value}" for key, value in rules.options().items() if key != "size")
    return f"{command_id} margo-set_rules {options}"


def expect_new_game(rules: Rules, commands: bytes) -> ScriptedTransport:
    """A mock expecting what play() sends first for an empty board under ``rules``:
    the set-up (commands 1-3, each answered ``=``), then ``list_commands``."""
    return (
        ScriptedTransport()
        .expect(f"1 boardsize {rules.size}", b"=\n\n").expect("2 clear_board", b"=\n\n")
        .expect(set_rules_line(3, rules), b"=\n\n")
        .expect("4 list_commands", b"= " + commands + b"\n\n")
    )


def test_play_sets_the_board_up_sends_the_limit_and_reads_the_move():
    rules = Rules(size=3)
    board = Board(rules)
    mock = (
        ScriptedTransport()
        .expect("1 boardsize 3", b"=1\n\n")
        .expect("2 clear_board", b"=2\n\n")
        .expect(set_rules_line(3, rules), b"=3\n\n")
        .expect("4 list_commands", b"=4 genmove\nmargo-set_limit\n\n")
        .expect("5 margo-set_limit playouts=20", b"=5\n\n")
        .expect("6 genmove W", b"=6 b2:1\n\n")
    )
    engine = engine_over(mock)
    assert engine.play(board, Limit(playouts=20)) == PlayResult(Move.from_gtp("B2:1", 3))
    mock.assert_done()
    # the engine's own move is counted as played: the next question sends only the difference
    board.push(Move.from_gtp("B2:1", 3))
    board.push(Move.from_gtp("A1:1", 3))
    mock.expect("7 play B A1:1", b"=7\n\n").expect("8 genmove W", b"=8 resign\n\n")
    assert engine.play(board, Limit(playouts=20)) == PlayResult(None, resigned=True)
    mock.assert_done()


def test_an_illegal_genmove_answer_is_an_illegal_move_error():
    board = Board(Rules(size=3))
    mock = expect_new_game(board.rules, b"genmove").expect("5 genmove W", b"= A1:2\n\n")
    with pytest.raises(IllegalEngineMoveError) as info:
        engine_over(mock).play(board)
    assert str(info.value) == "engine 'mock' answered genmove W with an illegal move: 'A1:2'"


def test_the_issue_27_newline_no_longer_desynchronises_the_client():
    mock = ScriptedTransport().expect("1 name", b"=1 margo-gtp\n\n").expect("2 version", b"=2 0.1.0\n\n")
    engine = engine_over(mock)
    with pytest.raises(InvalidCommandError) as info:
        engine.do_command("name\nversion")
    assert str(info.value) == (
        "invalid GTP command 'name\\nversion': the command name contains the control character '\\n'"
        " (GTP framing would split or change it); nothing sent"
    )
    assert isinstance(info.value, ValueError) and info.value.stderr == ()
    assert mock.sent == [] and engine.is_usable
    assert engine.do_command("name") == "margo-gtp"
    assert engine.do_command("version") == "0.1.0"
    mock.assert_done()


def test_a_failure_answer_is_a_command_error_and_the_engine_stays_usable():
    mock = ScriptedTransport().expect("1 play B A1:1", b"?1 illegal move\n\n").expect("2 name", b"=2 x\n\n")
    mock.stderr_tail = ["margo-gtp: illegal move: A1:1 for BLACK: point is occupied"]
    engine = engine_over(mock)
    with pytest.raises(EngineCommandError) as info:
        engine.do_command("play", "B", "A1:1")
    assert str(info.value) == "'play B A1:1' failed: 'illegal move'"
    assert info.value.stderr == ("margo-gtp: illegal move: A1:1 for BLACK: point is occupied",)
    assert engine.do_command("name") == "x" and not mock.killed


def test_garbage_kills_the_engine_and_later_calls_say_why():
    mock = ScriptedTransport(exit_code=-9).expect("1 genmove b", b"I think I will play tengen\n")
    engine = engine_over(mock)
    with pytest.raises(EngineProtocolError) as info:
        engine.do_command("genmove", "b")
    message = "engine 'mock' answered 'genmove' with a line that is not a GTP answer: 'I think I will play tengen'"
    assert str(info.value) == message and mock.killed
    with pytest.raises(EngineTerminatedError) as later:
        engine.do_command("name")
    assert str(later.value) == f"engine 'mock' is not running: {message}"


def test_another_id_is_a_protocol_error():
    mock = ScriptedTransport().expect("1 name", b"=2 x\n\n")
    with pytest.raises(EngineProtocolError) as info:
        engine_over(mock).do_command("name")
    assert str(info.value) == "engine 'mock' answered 'name' (id 1) with id 2"


def test_end_of_output_is_a_terminated_error_with_the_exit_code():
    mock = ScriptedTransport(exit_code=3).expect("1 die", b"")
    with pytest.raises(EngineTerminatedError) as info:
        engine_over(mock).do_command("die")
    assert str(info.value) == "engine 'mock' closed its output during 'die' (exit code 3)"
    assert info.value.returncode == 3


def test_a_timeout_kills_the_engine():
    mock = ScriptedTransport().expect("1 genmove b")
    engine = engine_over(mock)
    with pytest.raises(EngineTimeoutError) as info:
        engine.do_command("genmove", "b", timeout=0)
    assert str(info.value) == "engine 'mock' did not answer 'genmove' within 0 s" and mock.killed
    assert not engine.is_usable


def test_a_multi_line_answer_through_do_command():
    mock = ScriptedTransport().expect("1 list_commands", b"=1\nname\nplay\n\n")
    assert engine_over(mock).do_command("list_commands") == "name\nplay"


def test_the_wire_log_of_a_connected_engine():
    log = io.StringIO()
    mock = ScriptedTransport().expect("1 name", b"=1 x\n\n")
    engine_over(mock, wire_log=log).do_command("name")
    assert log.getvalue().splitlines() == ["mock << 1 name", "mock >> =1 x", "mock >> "]


def test_a_connected_engine_cannot_be_restarted():
    engine = engine_over(ScriptedTransport())
    with pytest.raises(EngineStartError) as info:
        engine.restart()
    assert str(info.value) == "engine 'mock' has no command to start (it was connected to a transport)"


# -- issue #27: bad arguments to the client -------------------------------------------------


@pytest.mark.parametrize("timeout", [float("nan"), -1, -0.001])
def test_popen_refuses_a_bad_timeout_before_starting_anything(timeout):
    with pytest.raises(ValueError) as info:
        SimpleEngine.popen("no-such-program-is-started", timeout=timeout)
    assert str(info.value) == f"invalid timeout: {timeout!r} (a number of seconds >= 0, or None to wait for ever)"


def test_a_timeout_of_any_size_and_a_long_limit_are_waited_for_in_slices():
    """Issue #27: a 1e20 s deadline overflowed the OS wait; now it is an hour at a time."""
    board = Board(Rules(size=3))
    mock = (
        expect_new_game(board.rules, b"genmove\nmargo-set_limit")
        .expect("5 margo-set_limit seconds=1e+06", b"=\n\n")
        .expect("6 genmove W", b"= B2:1\n\n")
    )
    engine = engine_over(mock, timeout=1e20)
    assert engine.play(board, Limit(seconds=1e6)).move == Move.from_gtp("B2:1", 3)
    assert set(mock.read_timeouts) == {3600.0}
    mock.assert_done()


def test_a_bad_per_call_timeout_is_refused_and_nothing_is_sent():
    mock = ScriptedTransport()
    with pytest.raises(ValueError) as info:
        engine_over(mock).do_command("name", timeout=float("nan"))
    assert str(info.value) == "invalid timeout: nan (a number of seconds >= 0, or None to wait for ever)"
    assert mock.sent == []


def test_popen_with_bad_shell_quoting_is_a_start_error():
    messages = []
    for command in ("margo-gtp --player 'random", 'margo-gtp "x\\'):
        with pytest.raises(EngineStartError) as info:
            SimpleEngine.popen(command)
        messages.append(str(info.value))
    assert messages == [
        "cannot split engine command \"margo-gtp --player 'random\": No closing quotation",
        "cannot split engine command 'margo-gtp \"x\\\\': No escaped character",
    ]


def test_a_limit_of_1e20_seconds_is_refused():
    with pytest.raises(ValueError) as info:
        Limit(seconds=1e20)
    assert str(info.value) == "invalid Limit seconds: 1e+20 (at most 1e+06)"
    assert Limit(seconds=1e6).gtp_args() == ["seconds=1e+06"]



# -- the analysis stream (margo-analyze) on the mock -------------------------------------


def info_line(move: str, visits: int, order: int, winrate: float = 0.5) -> bytes:
    return f"info move {move} visits {visits} winrate {winrate:.4f} prior 0.5000 order {order} pv {move}\n".encode()


def expect_stream_start(rules: Rules, *head: bytes, commands: bytes = b"margo-analyze") -> ScriptedTransport:
    """A mock expecting what analysis() sends for an empty board under ``rules``:
    ``list_commands``, the set-up (commands 2-4), then ``5 margo-analyze W 20``."""
    return (
        ScriptedTransport()
        .expect("1 list_commands", b"= " + commands + b"\n\n")
        .expect(f"2 boardsize {rules.size}", b"=\n\n").expect("3 clear_board", b"=\n\n")
        .expect(set_rules_line(4, rules), b"=\n\n")
        .expect("5 margo-analyze W 20", *head)
    )


def test_a_stream_gives_one_result_per_report_and_stops_at_a_blank_line():
    rules = Rules(size=3)
    mock = expect_stream_start(
        rules, b"=5 \n", info_line("B2:1", 10, 0, 0.6), info_line("A1:1", 4, 1),
        info_line("B2:1", 30, 0, 0.625), info_line("A1:1", 9, 1), info_line("C3:1", 2, 2),
    )
    engine = engine_over(mock)
    stream = engine.analysis(Board(rules), interval=0.2)
    first = next(stream)  # complete when the next report's order-0 line came
    assert [(c.move.gtp(), c.visits) for c in first.candidates] == [("B2:1", 10), ("A1:1", 4)]
    assert first.winrate == 0.6
    second = next(stream)  # complete when nothing more came for a moment
    assert [(c.move.gtp(), c.visits) for c in second.candidates] == [("B2:1", 30), ("A1:1", 9), ("C3:1", 2)]
    assert stream.latest == second and stream.updates == 2
    mock.expect("", info_line("B2:1", 41, 0), b"\n")  # the engine may write once more, then ends
    stream.stop()
    assert stream.ended and stream.latest.candidates[0].visits == 41
    assert list(stream) == []
    mock.expect("6 name", b"=6 mock\n\n")  # the wire is in step again
    assert engine.do_command("name") == "mock"
    mock.assert_done()


def test_a_command_during_a_stream_stops_the_stream_first():
    rules = Rules(size=3)
    mock = expect_stream_start(rules, b"=5 \n", info_line("B2:1", 10, 0))
    engine = engine_over(mock)
    with engine.analysis(Board(rules), interval=0.2) as stream:
        assert next(stream).candidates[0].visits == 10
        mock.expect("", b"\n").expect("6 name", b"=6 mock\n\n")
        assert engine.do_command("name") == "mock"
        assert stream.ended
    mock.assert_done()  # leaving the block sent nothing more: the stream had ended


def test_leaving_the_block_stops_and_drains_the_stream():
    rules = Rules(size=3)
    mock = expect_stream_start(rules, b"=5 \n", info_line("B2:1", 10, 0))
    with engine_over(mock).analysis(Board(rules), interval=0.2) as stream:
        next(stream)
        mock.expect("", info_line("B2:1", 20, 0), info_line("A1:1", 3, 1), b"\n")
    assert stream.ended and [c.visits for c in stream.latest.candidates] == [20, 3]
    mock.assert_done()


def test_a_playout_limit_stops_the_stream_after_the_report_that_reaches_it():
    rules = Rules(size=3)
    mock = expect_stream_start(rules, b"=5 \n", info_line("B2:1", 30, 0), info_line("A1:1", 10, 1),
                               info_line("B2:1", 70, 0), info_line("A1:1", 40, 1))
    stream = engine_over(mock).analysis(Board(rules), interval=0.2, limit=Limit(playouts=100))
    assert sum(c.visits for c in next(stream).candidates) == 40
    mock.expect("", b"\n")  # sent as soon as the second report (110 visits) was read
    assert sum(c.visits for c in next(stream).candidates) == 110
    assert list(stream) == [] and stream.ended
    mock.assert_done()


def test_a_refused_margo_analyze_is_a_command_error_and_the_engine_stays_usable():
    rules = Rules(size=3)
    mock = expect_stream_start(rules, b"=5 \n", b"\n")
    mock.script.pop()
    mock.expect("5 margo-analyze W 20", b"?5 syntax error\n\n").expect("6 name", b"=6 mock\n\n")
    engine = engine_over(mock)
    with pytest.raises(EngineCommandError) as info:
        engine.analysis(Board(rules), interval=0.2)
    assert str(info.value) == "'margo-analyze W 20' failed: 'syntax error'"
    assert engine.do_command("name") == "mock"
    mock.assert_done()


def test_a_bad_info_line_in_a_stream_is_a_protocol_error_and_kills_the_engine():
    rules = Rules(size=3)
    mock = expect_stream_start(rules, b"=5 \n", b"info move B2:1 visits many\n")
    engine = engine_over(mock)
    stream = engine.analysis(Board(rules), interval=0.2)
    with pytest.raises(EngineProtocolError) as info:
        next(stream)
    assert str(info.value).startswith("engine 'mock' wrote a bad info line in 'margo-analyze': 'info move B2:1 visits many'")
    assert mock.killed and not engine.is_usable


def test_a_report_longer_than_the_cap_is_refused(monkeypatch):
    from margo_gtp.client import stream as stream_module

    monkeypatch.setattr(stream_module, "MAX_REPORT_LINES", 2)
    rules = Rules(size=3)
    mock = expect_stream_start(rules, b"=5 \n", info_line("A1:1", 1, 0), info_line("B2:1", 1, 1),
                               info_line("C3:1", 1, 2))
    engine = engine_over(mock)
    with pytest.raises(EngineProtocolError) as info:
        next(engine.analysis(Board(rules), interval=0.2))
    assert str(info.value) == "engine 'mock' wrote a 'margo-analyze' report longer than 2 lines"
    assert mock.killed


def test_an_engine_without_margo_analyze_cannot_stream_and_nothing_else_is_sent():
    mock = ScriptedTransport().expect("1 list_commands", b"= genmove\nmargo-analyze_snapshot\n\n")
    with pytest.raises(EngineError) as info:
        engine_over(mock).analysis(Board(Rules(size=3)))
    assert str(info.value) == "engine 'mock' cannot stream analysis: it does not know 'margo-analyze'"
    mock.assert_done()


@pytest.mark.parametrize("interval", [-1, 601, "0.2", True, float("nan")])
def test_a_bad_interval_is_refused_before_anything_is_sent(interval):
    mock = ScriptedTransport()
    with pytest.raises(ValueError) as info:
        engine_over(mock).analysis(Board(Rules(size=3)), interval=interval)
    assert str(info.value) == f"invalid analysis interval: {interval!r} (seconds, 0..600)"
    assert mock.sent == []
