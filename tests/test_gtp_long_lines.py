"""GTP lines are capped in every reader (issue 36, bug 8): a line was read whole, about
4 bytes of memory per input byte, and a 600 MB line under a 1.6 GB limit ended in a
MemoryError traceback, in margo-gtp and margo-gtp-2d. Now a line over MAX_LINE_CHARS is
read and dropped a piece at a time and answered ``? syntax error`` with one line; the
session goes on."""

from __future__ import annotations

import io
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.players import make_player
from margo_gtp.protocol.gtp import MAX_LINE_CHARS, run_gtp_session
from margo_gtp.protocol.session import make_gtp_engine

BIN = Path(sys.executable).parent


def test_an_overlong_line_is_one_syntax_error_with_its_id_and_the_session_goes_on() -> None:
    stderr = io.StringIO()
    engine = make_gtp_engine(make_player("random", 1), stderr=stderr)
    out = io.StringIO()
    lines = ["1 name", "2 play w " + "x" * (3 * MAX_LINE_CHARS), "x" * MAX_LINE_CHARS + "y", "3 name",
             "4 komi " + "9" * (MAX_LINE_CHARS - 9)]   # 1 MiB exactly, newline included: read whole
    run_gtp_session(engine, io.StringIO("\n".join(lines) + "\n"), out)
    assert out.getvalue() == "=1 margo-gtp\n\n?2 syntax error\n\n? syntax error\n\n=3 margo-gtp\n\n?4 syntax error\n\n"
    assert stderr.getvalue().splitlines()[:2] == [
        "margo-gtp: syntax error: a line longer than 1048576 characters, ignored: '2 play w " + "x" * 31 + "'...",
        "margo-gtp: syntax error: a line longer than 1048576 characters, ignored: '" + "x" * 40 + "'..."]
    assert stderr.getvalue().splitlines()[2].startswith("margo-gtp: syntax error: 'komi 999")


def limit_memory(megabytes: int):  # noqa: ANN201
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return apply


@pytest.mark.process
@pytest.mark.parametrize("program", ["margo-gtp", "margo-gtp-2d"])
def test_a_400_mb_line_under_a_1500_mb_limit_is_refused_not_a_memory_error(program: str) -> None:
    argv = [str(BIN / program)]
    if program == "margo-gtp-2d":
        argv += ["--engine", f"{BIN / 'margo-gtp'} --player random"]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=limit_memory(1500))
    try:
        process.stdin.write(b"1 name\n2 play w ")
        block = b"x" * (4 << 20)
        for _ in range(100):   # 400 MB, streamed
            process.stdin.write(block)
        process.stdin.write(b"\n3 protocol_version\nquit\n")
        process.stdin.close()
        out = process.stdout.read().decode()
        err = process.stderr.read().decode()
        process.wait(timeout=120)
    finally:
        process.kill()
        process.wait()
    assert out == "=1 margo-gtp\n\n?2 syntax error\n\n=3 2\n\n=\n\n"   # the proxy forwards name
    assert "Traceback" not in err and "MemoryError" not in err
    assert (f"{program}: syntax error: a line longer than 1048576 characters, ignored: '2 play w " + "x" * 31 + "'...\n") in err
