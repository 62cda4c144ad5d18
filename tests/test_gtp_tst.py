"""GTP regression files run by tests/gtp_runner.py: ``tests/gtp/*.tst`` (GNU Go format,
read as gogui-regress reads it) and ``tests/gtp/*.errors`` (ours: expected failures),
and the runner's own behaviour (expectations, negation, known failures, framing, CLI)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gtp_runner
from gtp_runner import Outcome, Reply, parse_commands, parse_tst, run_file, run_text, split_answers, split_replies

TST_FILES = gtp_runner.tst_files()
ERRORS_FILES = gtp_runner.errors_files()
RUNNER = Path(gtp_runner.__file__).resolve()


def test_the_suites_are_there() -> None:
    assert {p.name for p in TST_FILES} >= {"framing.tst", "commands.tst", "positions.tst"}
    assert {p.name for p in ERRORS_FILES} >= {"canonical.errors", "framing.errors", "positions.errors"}


@pytest.mark.parametrize("path", TST_FILES + ERRORS_FILES, ids=lambda path: path.name)
def test_regression_file(path: Path) -> None:
    outcomes = run_file(path)
    assert outcomes, f"{path.name} has no expectations"
    surprises = [outcome.describe() for outcome in outcomes if not outcome.passed]
    assert surprises == []


@pytest.mark.parametrize("path", TST_FILES, ids=lambda path: path.name)
def test_tst_files_never_quit(path: Path) -> None:
    """gogui-regress (GoGui 1.6, tools/regress/Regress.java) sends ``cputime`` after the
    last line of each file and subtracts the start value; after a ``quit`` the engine is
    gone, cputime reads 0 and the file's CPU time comes out negative."""
    names = [command.command.split()[0] for command in parse_commands(path.read_bytes().decode("utf-8"))]
    assert "quit" not in names


def test_testing_md_gives_the_number_of_tst_tests() -> None:
    """The count gogui-regress prints (one test per numbered command with a ``#?``)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "testing.md").read_text(encoding="utf-8")
    [stated] = re.findall(r"printed, in `summary.dat`:\s+(\d+) tests, 0 FAIL, (?:\d+) pass", text)
    counted = sum(len(parse_tst(path.read_bytes().decode("utf-8"))) for path in TST_FILES)
    assert int(stated) == counted
    assert f"{counted} tests, 0 FAIL, {counted} pass" in " ".join(text.split())


@pytest.mark.parametrize("path", TST_FILES, ids=lambda path: path.name)
def test_tst_files_expect_no_failure(path: Path) -> None:
    """gogui-regress fails every ``?`` answer: a .tst file holds no expected-error
    pattern, and every one of its commands, numbered or not, succeeds."""
    text = path.read_bytes().decode("utf-8")
    assert [c.pattern for c in parse_commands(text) if c.pattern and c.pattern.startswith("\\?")] == []
    replies = split_replies(gtp_runner.in_process_session(text))
    assert len(replies) == len(parse_commands(text))
    assert [r.full for r in replies if not r.ok] == []


@pytest.mark.parametrize("path", ERRORS_FILES, ids=lambda path: path.name)
def test_errors_files_hold_failures(path: Path) -> None:
    outcomes = run_file(path)
    assert sum(1 for o in outcomes if o.reply is not None and not o.reply.ok) >= 3


def _fake_session(replies: dict[str, str]):
    """An engine that answers each command of the text with ``replies[number]`` (an
    unnumbered command gets ``=``)."""

    def run(text: str) -> str:
        return "".join(replies.get(c.number or "", "=\n\n") for c in parse_commands(text))

    return run


CASES = "1 a\n#? [ok]\n2 b\n#? [o]\n3 c\n#? [!bad]\n4 d\n#? [fixed]*\n5 e\n#? [broken]*\n6 f\n#? [\\? no]\n7 g\n#? [x]\n8 h\n"
REPLIES = {
    "1": "=1 ok\n\n",
    "2": "=2 ok\n\n",
    "3": "=3 good\n\n",
    "4": "=4 fixed\n\n",
    "5": "=5 other\n\n",
    "6": "?6 no\n\n",
    "7": "=7\nx y\n\n",
    "8": "?8 nope\n\n",
}


def test_tst_reading_is_gogui_regress() -> None:
    """.tst: fullmatch, negation, stars; a ``?`` answer fails whatever the pattern
    (6, 8); the answer is what follows the first space (7 reads ``y``, not ``x y``)."""
    results = {o.expectation.number: (o.matched, o.passed) for o in run_text(CASES, _fake_session(REPLIES), "tst")}
    assert results == {
        "1": (True, True),
        "2": (False, False),  # fullmatch, not search
        "3": (True, True),
        "4": (True, False),  # known failure that now passes: a surprise to report
        "5": (False, True),
        "6": (False, False),  # gogui-regress: any '?' fails
        "7": (False, False),  # '=7\nx y' reads 'y' the GoGui way
        "8": (False, False),  # no pattern: the command must succeed
    }


def test_errors_reading_matches_failure_texts() -> None:
    results = {o.expectation.number: o.passed for o in run_text(CASES, _fake_session(REPLIES), "errors")}
    assert results == {"1": True, "2": False, "3": True, "4": False, "5": True, "6": True, "7": False, "8": False}


def test_unnumbered_commands_must_succeed_and_replies_must_keep_step() -> None:
    text = "boardsize 5\n1 name\n#? [x]\n"
    [outcome] = run_text(text, lambda _: "? unacceptable size\n\n=1 x\n\n")[:1]
    assert outcome.expectation.number is None and not outcome.passed
    assert "unnumbered 'boardsize 5'" in outcome.describe()
    # a reply with the wrong id is no reply to this command
    [lost] = run_text("1 name\n#? [x]\n", lambda _: "=2 x\n\n")
    assert lost.reply is None and not lost.passed


def test_split_replies_and_the_gogui_answer() -> None:
    output = "= x\n\n=3 a b\n\n?4 syntax error\n\n=5 \nLevel 1\nrow\n\n=6 \n\n=\n\n=7\nLevel 1\n\n"
    replies = split_replies(output)
    assert [(r.ok, r.number, r.gogui_answer) for r in replies] == [
        (True, None, "x"),
        (True, "3", "a b"),
        (False, "4", "syntax error"),
        (True, "5", "Level 1\nrow"),
        (True, "6", ""),
        (True, None, ""),
        (True, "7", "1"),  # no space after '=7': GoGui cuts the first word
    ]
    assert split_answers(output) == {"3": "a b", "4": "? syntax error", "5": "Level 1\nrow", "6": "", "7": "1"}
    with pytest.raises(ValueError):
        split_replies("garbage\n\n")
    assert Reply(True, None, "=  \x01x \x7f").gogui_answer == "x \x7f"  # Java trim: chars <= U+0020


@pytest.mark.parametrize(
    "text, message",
    [
        ("#? [x]\n", "without a numbered command"),
        ("1 a\n#? x\n", "malformed expectation"),
        ("1 a\n1 b\n", "used twice"),
        ("1 a\n#? [x]\n#? [y]\n", "without a numbered command"),
        ("1 a\nb\n#? [x]\n", "without a numbered command"),
    ],
)
def test_parse_tst_rejects_bad_files(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_tst(text)


def test_parse_commands_sees_what_the_engine_sees() -> None:
    text = "\x00\x1b5 name\r\n\t\n# c\n  6\tplay\tw d4 # x\n7\n#? [\\? syntax error]\n\u0665 name\n"
    commands = parse_commands(text)
    assert [(c.number, c.command, c.pattern) for c in commands] == [
        ("5", "name", None),
        ("6", "play w d4", None),
        ("7", "", "\\? syntax error"),
        (None, "\u0665 name", None),  # a non-ASCII digit is no command id (gtp.md section 1)
    ]


def test_describe_names_the_surprise() -> None:
    [command] = parse_tst("12 name\n#? [nobody]\n")
    assert Outcome(command, Reply(True, "12", "=12 margo-gtp")).describe() == (
        "line 2: 12 'name': got 'margo-gtp', want [nobody]: FAILED"
    )
    assert Outcome(command, Reply(False, "12", "?12 no")).describe() == (
        "line 2: 12 'name': got '? no', want [nobody]: FAILED"
    )


def _run_runner(*args: str, cwd: Path, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([python, str(RUNNER), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_runner_cli_prints_totals_and_fails_on_a_surprise(tmp_path: Path) -> None:
    good = tmp_path / "good.tst"
    good.write_text("1 name\n#? [margo-gtp]\n2 protocol_version\n#? [2]\n")
    bad = tmp_path / "bad.errors"
    bad.write_text("1 play w z99\n#? [\\? illegal move]\n")
    done = _run_runner(str(good), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{good}: 2 passed, 0 failed\ntotal: 2 passed, 0 failed\n"
    done = _run_runner(str(good), str(bad), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{good}: 2 passed, 0 failed",
        f"{bad}: line 2: 1 'play w z99': got '? syntax error', want [\\? illegal move]: FAILED",
        f"{bad}: 0 passed, 1 failed",
        "total: 2 passed, 1 failed",
    ]


def test_runner_cli_help_and_bad_usage(tmp_path: Path) -> None:
    done = _run_runner("--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: gtp_runner.py") and "Traceback" not in done.stderr
    done = _run_runner("missing.tst", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.endswith("error: missing.tst: no such file\n")
    other = tmp_path / "x.txt"
    other.write_text("")
    done = _run_runner(str(other), cwd=tmp_path)
    assert done.returncode == 2 and "not a .tst or .errors file" in done.stderr


@pytest.mark.skipif(shutil.which("python3") is None, reason="no system python3")
def test_runner_works_outside_the_venv(tmp_path: Path) -> None:
    """Run by a Python that is not the venv's, from another directory: every suite
    passes (the runner finds the checkout, and its venv when a dependency is missing)."""
    done = _run_runner(cwd=tmp_path, python=shutil.which("python3") or "python3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.fullmatch(r"total: [0-9]+ passed, 0 failed", done.stdout.splitlines()[-1])


def test_runner_drives_an_engine_command(tmp_path: Path) -> None:
    engine = f"{Path(sys.executable).parent / 'margo-gtp'} --player random --seed 0"
    done = _run_runner("--engine", engine, *map(str, TST_FILES + ERRORS_FILES), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].endswith("passed, 0 failed")
