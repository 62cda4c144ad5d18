"""GtpClient against a real child process (tests/fake_engines/echo_engine.py)."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import pytest

from margo_adapters.gtp_client import (
    BadGtpResponse,
    GtpChannelClosed,
    GtpClient,
    GtpProtocolError,
    GtpTimeout,
)

pytestmark = pytest.mark.process

ECHO = [sys.executable, str(Path(__file__).parent / "fake_engines" / "echo_engine.py")]


@pytest.fixture
def engine():
    with GtpClient.popen(ECHO, timeout=10, name="echo") as client:
        yield client


@pytest.mark.parametrize(
    "command, args, expected",
    [
        ("echo", ("D4:1",), "D4:1"),
        ("echo", (), ""),
        ("echo", ("a", 2, 3.5), "a 2 3.5"),
        ("multi", (3,), "line 1\nline 2\nline 3"),
        ("board", (), "  A B\n2 . .\n1 . ."),
        ("noid", ("x", "y"), "x y"),
        ("blank", (), "ok"),
    ],
)
def test_send_returns_the_answer_text(engine, command, args, expected):
    assert engine.send(command, *args) == expected
    assert engine.send("echo", "still", "in", "step") == "still in step"


def test_failure_answer_raises_bad_gtp_response_and_the_client_stays_usable(engine):
    with pytest.raises(BadGtpResponse) as info:
        engine.send("fail", "illegal", "move")
    assert (info.value.command, info.value.args_sent, info.value.message) == ("fail", ("illegal", "move"), "illegal move")
    assert str(info.value) == "'fail illegal move' failed: 'illegal move'"
    with pytest.raises(BadGtpResponse) as info:
        engine.send("xyzzy")
    assert info.value.message == "unknown command"
    assert engine.is_usable
    assert engine.send("echo", "ok") == "ok"


def test_known_command_and_list_commands_helpers(engine):
    assert engine.known_command("echo") is True
    assert engine.known_command("fly") is False
    assert engine.list_commands() == ["echo", "multi", "quit"]


def test_known_command_is_false_when_the_engine_lacks_known_command():
    with GtpClient.popen(ECHO, timeout=10) as client:
        client.send("echo", "x")
        assert client.known_command.__func__(_FailingSend(client), "echo") is False


class _FailingSend:
    """Stands in for an engine that answers every command with '? unknown command'."""

    def __init__(self, client):
        self.client = client

    def send(self, command, *args, timeout=None):
        return self.client.send("fail", "unknown", "command")


def test_garbage_is_a_protocol_error_that_breaks_the_client(engine):
    with pytest.raises(GtpProtocolError, match="not a GTP answer: 'hello, I am not GTP'"):
        engine.send("garbage")
    assert not engine.is_usable
    with pytest.raises(GtpChannelClosed, match="not usable"):
        engine.send("echo", "x")
    engine.restart()
    assert engine.send("echo", "x") == "x"


def test_answer_with_an_unexpected_id_is_a_protocol_error(engine):
    with pytest.raises(GtpProtocolError, match=r"answered 'wrongid' \(id 1\) with id 101"):
        engine.send("wrongid")


def test_timeout_raises_and_restart_gives_a_fresh_engine(engine):
    first_pid = engine.pid
    with pytest.raises(GtpTimeout, match="did not answer 'hang' within 0.3 s"):
        engine.send("hang", timeout=0.3)
    assert not engine.is_usable
    engine.restart()
    assert engine.pid != first_pid
    assert engine.send("echo", "again") == "again"


def test_late_answer_of_an_earlier_command_is_skipped():
    # Without a restart the late answer arrives while the next command waits: its id is
    # older, so it is skipped rather than taken for the new command's answer.
    with GtpClient.popen(ECHO, timeout=10) as client:
        with pytest.raises(GtpTimeout):
            client.send("late", 0.5, timeout=0.05)
        client._broken = None  # simulate a caller that chooses to carry on
        assert client.send("echo", "fresh") == "fresh"


def test_engine_exit_is_a_closed_channel_with_its_exit_code(engine):
    with pytest.raises(GtpChannelClosed, match=r"closed its output during 'die' \(exit code 3\)"):
        engine.send("die")
    assert engine.returncode == 3


def test_closed_stdout_is_a_closed_channel_while_the_engine_still_runs(engine):
    with pytest.raises(GtpChannelClosed, match=r"closed its output during 'closeout' \(still running\)"):
        engine.send("closeout")
    assert engine.returncode is None
    engine.kill()
    assert engine.returncode is not None


def test_wire_log_records_both_directions_and_stderr():
    wire = io.StringIO()
    with GtpClient.popen(ECHO, timeout=10, wire_log=wire, name="e") as client:
        client.send("echo", "hi")
        client.send("stderr", "note")
        deadline = time.monotonic() + 5
        while "e !! note" not in wire.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = wire.getvalue().splitlines()
    assert "e << 1 echo hi" in lines
    assert "e >> =1 hi" in lines
    assert "e !! note" in lines
    assert "e << 3 quit" in lines


def test_popen_splits_a_shell_quoted_command_line():
    command = f"{sys.executable} '{ECHO[1]}'"
    with GtpClient.popen(command, timeout=10) as client:
        assert client.argv == ECHO
        assert client.send("echo", "quoted") == "quoted"


def test_close_sends_quit_and_the_engine_exits_cleanly():
    client = GtpClient.popen(ECHO, timeout=10)
    client.close()
    assert client.returncode == 0


def test_missing_executable_raises_os_error():
    with pytest.raises(FileNotFoundError):
        GtpClient.popen(["/nonexistent/engine"], timeout=1)
