"""The line protocol layer (margo_gtp.protocol.gtp) with toy handlers: preprocessing, ids,
framing, error containment, session end, streaming, typed argument conversion."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pytest

from margo_gtp.protocol.gtp import (
    GtpEngine,
    GtpError,
    GtpFatalError,
    GtpQuit,
    format_response,
    parse_command,
    preprocess_line,
    run_gtp_session,
)
from margo_gtp.engine import Rules
from margo_gtp.players.random_player import RandomPlayer
from margo_gtp.protocol.handlers import HandlerGroup, _count_words, typed_handler
from margo_gtp.protocol.session import make_gtp_engine


def _boom(args: list[str]) -> str:
    raise KeyError("boom")


def _fatal(args: list[str]) -> str:
    raise GtpFatalError("engine on fire")


def _bye(args: list[str]) -> str:
    raise GtpQuit("bye")


TOY_HANDLERS: dict[str, Callable[[list[str]], object]] = {
    "echo": lambda args: " ".join(args),
    "nothing": lambda args: None,
    "lines": lambda args: "one\n\ntwo\n   \nthree",
    "board": lambda args: "\nrow 2\nrow 1",
    "fail": lambda args: (_ for _ in ()).throw(GtpError("illegal move")),
    "boom": _boom,
    "fatal": _fatal,
    "bye": _bye,
    "number": lambda args: 42,
}


def session(text: str, stderr: io.StringIO | None = None) -> str:
    engine = GtpEngine(TOY_HANDLERS, stderr=stderr or io.StringIO())
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(text, newline="\n"), out)
    return out.getvalue()


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("play w d4\n", "play w d4"),
        ("play w d4\r\n", "play w d4"),
        ("  12 play\tw\td4  \n", "12 play w d4"),
        ("play w d4 # a comment\n", "play w d4"),
        ("# only a comment\n", ""),
        ("#? [=]\n", ""),
        ("\n", ""),
        ("   \t \r\n", ""),
        ("pl\x00ay w\x1b d4\x7f\n", "play w d4"),
        ("\x01\x02\x03\n", ""),
        ("name#x\n", "name"),
        ("na\rme\n", "name"),
    ],
)
def test_preprocess_line(raw: str, clean: str) -> None:
    assert preprocess_line(raw) == clean


@pytest.mark.parametrize(
    "line, parsed",
    [
        ("name", (None, "name", [])),
        ("12 name", ("12", "name", [])),
        ("007 play w d4", ("007", "play", ["w", "d4"])),
        ("12", ("12", None, [])),
        ("-1 name", (None, "-1", ["name"])),
        ("1.5 name", (None, "1.5", ["name"])),
        ("play  w   d4", (None, "play", ["w", "d4"])),
    ],
)
def test_parse_command(line: str, parsed: tuple) -> None:
    assert parse_command(line) == parsed


@pytest.mark.parametrize(
    "command_id, is_error, text, framed",
    [
        (None, False, "", "=\n\n"),
        ("7", False, "", "=7 \n\n"),  # GoGui would read "7" from "=7\n\n"
        (None, False, "true", "= true\n\n"),
        ("7", False, "true", "=7 true\n\n"),
        (None, True, "syntax error", "? syntax error\n\n"),
        ("7", True, "syntax error", "?7 syntax error\n\n"),
        (None, False, "a\nb", "= a\nb\n\n"),
        (None, False, "a\n\nb\n", "= a\nb\n\n"),
        ("3", False, "\nrow\n\nrow", "=3 \nrow\nrow\n\n"),
        (None, False, "\nrow", "= \nrow\n\n"),
        (None, True, "\nwhy", "? \nwhy\n\n"),
        (None, False, "a  \nb\t\n", "= a\nb\n\n"),
    ],
)
def test_format_response(command_id: str | None, is_error: bool, text: str, framed: str) -> None:
    assert format_response(command_id, is_error, text) == framed


TRANSCRIPTS = [
    ("echo hello world\n", "= hello world\n\n"),
    ("5 echo hi\n", "=5 hi\n\n"),
    ("nothing\n7 nothing\n", "=\n\n=7 \n\n"),
    ("xyzzy\n8 xyzzy\n", "? unknown command\n\n?8 unknown command\n\n"),
    ("ECHO\n", "? unknown command\n\n"),
    ("PROTOCOL_VERSION\n", "? unknown command\n\n"),
    ("protocol_version\n1 protocol_version\n", "= 2\n\n=1 2\n\n"),
    ("protocol_version extra\n", "? syntax error\n\n"),
    ("known_command echo\nknown_command xyzzy\nknown_command\n", "= true\n\n= false\n\n? syntax error\n\n"),
    ("known_command list_commands\nxyzzy\nquit\n", "= true\n\n? unknown command\n\n=\n\n"),
    ("list_commands\n", "= board\nboom\nbye\necho\nfail\nfatal\nknown_command\nlines\nlist_commands\nnothing\nnumber\nprotocol_version\nquit\n\n"),
    ("lines\n", "= one\ntwo\nthree\n\n"),
    ("board\n4 board\n", "= \nrow 2\nrow 1\n\n=4 \nrow 2\nrow 1\n\n"),
    ("fail\n9 fail\n", "? illegal move\n\n?9 illegal move\n\n"),
    ("boom\necho still here\n", "? internal error\n\n= still here\n\n"),
    ("number\necho still here\n", "? internal error\n\n= still here\n\n"),
    ("fatal\necho never\n", "? engine on fire\n\n"),
    ("bye\necho never\n", "= bye\n\n"),
    ("quit\necho never\n", "=\n\n"),
    ("3 quit\n", "=3 \n\n"),
    ("\n\n   \n# comment\necho x\n", "= x\n\n"),
    ("echo a # b c\n", "= a\n\n"),
    ("\techo\ta\tb\n", "= a b\n\n"),
    ("echo a\r\necho b\r\n", "= a\n\n= b\n\n"),
    ("ec\x00ho \x07z\n", "= z\n\n"),
    ("12\n", "?12 syntax error\n\n"),
    ("echo no newline at eof", "= no newline at eof\n\n"),
    ("", ""),
]


@pytest.mark.parametrize("text, expected", TRANSCRIPTS)
def test_transcript(text: str, expected: str) -> None:
    assert session(text) == expected


def test_internal_error_writes_traceback_to_stderr() -> None:
    stderr = io.StringIO()
    assert session("boom\n", stderr) == "? internal error\n\n"
    assert "Traceback" in stderr.getvalue() and "KeyError: 'boom'" in stderr.getvalue()


def test_run_command_triple() -> None:
    engine = GtpEngine(TOY_HANDLERS, stderr=io.StringIO())
    assert engine.run_command("echo", ["a", "b"]) == (False, "a b", False)
    assert engine.run_command("fail", []) == (True, "illegal move", False)
    assert engine.run_command("fatal", []) == (True, "engine on fire", True)
    assert engine.run_command("quit", []) == (False, "", True)
    assert engine.run_command("nope", []) == (True, "unknown command", False)
    assert engine.run_command("boom", []) == (True, "internal error", False)


def test_add_handlers_extends_the_registry_read_by_list_commands() -> None:
    engine = GtpEngine(TOY_HANDLERS)
    engine.add_handlers({"margo-extra": lambda args: "x"})
    assert engine.respond("known_command margo-extra") == ("= true\n\n", False)
    assert "margo-extra" in engine.respond("list_commands")[0].split()
    assert engine.respond("margo-extra") == ("= x\n\n", False)


def test_respond_skips_blank_lines() -> None:
    engine = GtpEngine(TOY_HANDLERS)
    assert engine.respond("  # nothing\n") == (None, False)
    assert engine.respond("quit") == ("=\n\n", True)


def test_log_sees_every_line_in_and_out() -> None:
    seen: list[tuple[str, str]] = []
    out = io.StringIO()
    engine = GtpEngine(TOY_HANDLERS)
    run_gtp_session(engine, io.StringIO("echo a\n\n1 xyzzy\n"), out, log=lambda d, t: seen.append((d, t)))
    assert seen == [
        (">>", "echo a\n"),
        ("<<", "= a\n\n"),
        (">>", "\n"),
        (">>", "1 xyzzy\n"),
        ("<<", "?1 unknown command\n\n"),
    ]


class _CountingStream:
    """Writes numbered lines until told to stop (or 1000 lines, so a bug cannot hang)."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.stop_after = stop_after

    def run(self, write: Callable[[str], None], stop_requested: Callable[[], bool]) -> None:
        for i in range(1000):
            if self.stop_after is not None and i == self.stop_after:
                return
            if self.stop_after is None and stop_requested():
                return
            write(f"info {i}\n\n")


def test_stream_ends_with_an_empty_line_and_the_next_line_is_a_command() -> None:
    engine = GtpEngine({"count": lambda args: _CountingStream(stop_after=3), "echo": lambda args: " ".join(args)})
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO("5 count\necho after\n"), out)
    assert out.getvalue() == "=5 \ninfo 0\ninfo 1\ninfo 2\n\n= after\n\n"


def test_stream_stops_when_a_line_is_waiting() -> None:
    engine = GtpEngine({"count": lambda args: _CountingStream(), "echo": lambda args: " ".join(args)})
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO("count\n\necho after\n"), out)
    head, _, tail = out.getvalue().partition("\n\n")
    assert head.startswith("=") and all(line.startswith("info ") for line in head.split("\n")[1:])
    assert tail == "= after\n\n"


def test_stream_answers_internal_error_outside_a_session() -> None:
    engine = GtpEngine({"count": lambda args: _CountingStream(stop_after=1)})
    assert engine.respond("count") == ("? internal error\n\n", False)


# -- typed handlers ----------------------------------------------------------------------


class _Toy(HandlerGroup):
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def commands(self) -> dict:
        return {"add": self.cmd_add, "scale": self.cmd_scale, "opt": self.cmd_opt, "many": self.cmd_many}

    def cmd_add(self, a: int, b: int) -> str:
        return str(a + b)

    def cmd_scale(self, x: float, label: str = "x") -> str:
        return f"{label}={x:g}"

    def cmd_opt(self, n: int | None = None) -> str:
        return "none" if n is None else str(n)

    def cmd_many(self, head: str, *rest: int) -> str:
        return head + ":" + ",".join(map(str, rest))


@pytest.mark.parametrize(
    "line, answer",
    [
        ("add 2 3", "= 5\n\n"),
        ("add -2 3", "= 1\n\n"),
        ("add 2", "? syntax error\n\n"),
        ("add 2 3 4", "? syntax error\n\n"),
        ("add 2 x", "? syntax error\n\n"),
        ("add 2 +3", "? syntax error\n\n"),
        ("add 2 3.0", "? syntax error\n\n"),
        ("add 2 1_0", "? syntax error\n\n"),
        ("add 2 \u0663", "? syntax error\n\n"),
        ("scale 1.5", "= x=1.5\n\n"),
        ("scale -2 y", "= y=-2\n\n"),
        ("scale nan", "? syntax error\n\n"),
        ("scale inf", "? syntax error\n\n"),
        ("scale", "? syntax error\n\n"),
        ("opt", "= none\n\n"),
        ("opt 4", "= 4\n\n"),
        ("opt 4 5", "? syntax error\n\n"),
        ("many h", "= h:\n\n"),
        ("many h 1 2 3", "= h:1,2,3\n\n"),
        ("many h 1 z", "? syntax error\n\n"),
        ("many", "? syntax error\n\n"),
    ],
)
def test_typed_handlers(line: str, answer: str) -> None:
    engine = GtpEngine(_Toy().handlers())
    assert engine.respond(line) == (answer, False)


def test_typed_handler_keeps_name_and_doc() -> None:
    toy = _Toy()
    handler = typed_handler(toy.cmd_add, toy.converters)
    assert handler.__name__ == "cmd_add"


def test_a_failed_commands_explanation_is_bounded() -> None:
    """A megabyte of garbage gets its answer and one bounded stderr line, not a megabyte."""
    stderr = io.StringIO()
    engine = make_gtp_engine(RandomPlayer(random.Random(1)), Rules(size=3), stderr=stderr)
    reply = engine.handle_line("play w " + "x" * 100_000 + "\n")
    assert (reply.is_error, reply.text) == (True, "syntax error")
    line = stderr.getvalue()
    assert line.endswith("characters)\n") and line.count("\n") == 1 and len(line) < 500


@pytest.mark.parametrize(("required", "fixed", "more", "words"), [
    (1, 1, False, "1 argument"), (2, 2, False, "2 arguments"), (1, 2, False, "1 to 2 arguments"),
    (1, 1, True, "at least 1 argument"), (2, 2, True, "at least 2 arguments"),
])
def test_argument_counts_are_said_in_english(required: int, fixed: int, more: bool, words: str) -> None:
    assert _count_words(required, fixed, more) == words
