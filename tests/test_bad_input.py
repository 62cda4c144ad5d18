"""Bad input on the command lines, tried as a new user would (issue 14): each gets one
clear error and exit code 2 (or the canonical GTP failure), never a traceback, and
changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
MARGO_GTP = str(BIN / "margo-gtp")
MARGO_GTP_2D = str(BIN / "margo-gtp-2d")
MARGO_MATCH = str(BIN / "margo-match")
MARGO_TOURNAMENT = str(BIN / "margo-tournament")


def run(argv: list[str], stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout)


def one_error(done: subprocess.CompletedProcess[str]) -> str:
    """The error text of a usage failure, whitespace and box drawing folded (typer draws
    a box around it); asserts exit 2 and no traceback."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    return " ".join(done.stderr.replace("│", " ").replace("╭", " ").replace("╰", " ").replace("─", " ").replace("╮", " ").replace("╯", " ").split())


@pytest.mark.parametrize(
    "log, reason",
    [("/nonexistent/dir/log", "No such file or directory"), ("/", "Is a directory")],
)
def test_margo_gtp_log_that_cannot_be_written(log: str, reason: str) -> None:
    text = one_error(run([MARGO_GTP, "--log", log], "name\n"))
    assert f"Invalid value for --log: cannot open '{log}' for appending: {reason}" in text


def test_margo_gtp_size_and_rule_size_must_agree() -> None:
    text = one_error(run([MARGO_GTP, "--size", "5", "--rule", "size=7"], "name\n"))
    assert "--size 5 contradicts the rule size=7: give one of them" in text
    agreed = run([MARGO_GTP, "--size", "7", "--rule", "size=07"], "margo-get_rules\n")
    assert agreed.returncode == 0 and agreed.stdout.startswith('= {"size":7,')


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--size", "5", "--rule", "size=7"], "margo-match: --size 5 contradicts the rule size=7: give one of them"),
        (["--komi", "2", "--rule", "komi=5"], "margo-match: --komi 2.0 contradicts the rule komi=5: give one of them"),
    ],
)
def test_margo_match_flag_and_rule_must_agree(tmp_path: Path, flags: list[str], message: str) -> None:
    done = run([MARGO_MATCH, "margo-gtp", "margo-gtp", "--games", "1", "--out", str(tmp_path / "m"), *flags])
    assert (done.returncode, done.stderr.strip()) == (2, message)
    assert not (tmp_path / "m").exists()  # nothing was written


def test_margo_match_flag_and_rule_that_agree() -> None:
    from margo_gtp.match.referee_cli import match_config_from_options

    config = match_config_from_options("a", "b", games=1, size=5, rules=["size=5", "komi=0.5"], komi=0.5)
    assert (config.rules.size, config.rules.komi) == (5, 0.5)
    config = match_config_from_options("a", "b", games=1, rules=["size=7"])
    assert config.rules.size == 7


def test_tournament_config_size_and_rules_size_must_agree(tmp_path: Path) -> None:
    from margo_gtp.match.tournament import TournamentConfig, TournamentConfigError

    path = tmp_path / "t.toml"
    path.write_text('size = 5\nkomi = 2\n[rules]\nkomi = 5\n[[engines]]\nname = "a"\ncommand = "x"\n[[engines]]\nname = "b"\ncommand = "y"\n')
    with pytest.raises(TournamentConfigError, match=r"rules: 'komi' 2.0 contradicts the rule komi=5: give one of them"):
        TournamentConfig.load(path)


@pytest.mark.parametrize("hole", ["X", "O", "x", "o"])
def test_proxy_hole_may_not_look_like_a_stone(hole: str) -> None:
    done = run([MARGO_GTP_2D, "--hole", hole], "name\n")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == f"margo-gtp-2d: error: --hole {hole!r} would draw the holes as stones: use '?' or '.'"


@pytest.mark.parametrize(
    "engine, reason",
    [
        ("cat", "it is not a GTP engine: it answered 'protocol_version' with 'protocol_version'"),
        ("false", "it exited with code 1"),
        (f"{sys.executable} -c 'import time; time.sleep(600)'", "no answer to 'protocol_version' within 0.5 s"),
    ],
    ids=["cat", "false", "silent"],
)
def test_proxy_with_an_engine_that_is_not_gtp(engine: str, reason: str) -> None:
    """No hang, no 'unknown command': every command that needs the engine answers
    'engine is not running', quit still works, and stderr says why once."""
    script = "name\n2 boardsize 9\ngogui-rules_board\nplay b e5\nxyzzy\nquit\n"
    done = run([MARGO_GTP_2D, "--engine", engine, "--timeout", "0.5"], script)
    assert done.returncode == 0
    assert done.stdout == "? engine is not running\n\n?2 engine is not running\n\n" + "? engine is not running\n\n" * 3 + "=\n\n"
    assert done.stderr.splitlines() == [f"margo-gtp-2d: engine {engine!r} is not usable: {reason}"]


def test_proxy_engine_that_stops_answering_mid_game(tmp_path: Path) -> None:
    """An engine that answers the start-up check, then goes silent on a later command,
    is stopped after --timeout; the proxy goes on answering."""
    fake = tmp_path / "silent_after_start.py"
    fake.write_text(
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    if line.split()[:1] == ['protocol_version']:\n"
        "        print('= 2\\n', flush=True)\n"
        "    elif line.split()[:1] == ['list_commands']:\n"
        "        print('= name\\n', flush=True)\n"
        "    else:\n"
        "        time.sleep(600)\n"
    )
    done = run([MARGO_GTP_2D, "--engine", f"{sys.executable} {fake}", "--timeout", "0.5"], "name\nname\nquit\n")
    assert (done.returncode, done.stdout) == (0, "? engine is not running\n\n? engine is not running\n\n=\n\n")
    assert "no answer to 'name' within 0.5 s" in done.stderr


@pytest.mark.parametrize("timeout", ["0", "-1", "inf", "x"])
def test_proxy_timeout_must_be_positive(timeout: str) -> None:
    done = run([MARGO_GTP_2D, "--timeout", timeout])
    assert done.returncode == 2 and "--timeout" in done.stderr.splitlines()[-1]


def test_syntax_errors_give_a_reason_on_stderr() -> None:
    script = "play red a1\nplay w i5\nboardsize\n12\nkomi 1_0\nplay w a1\nplay w a1\nfinal_status_list zombie\n"
    done = run([MARGO_GTP], script)
    assert done.stdout == "? syntax error\n\n" * 3 + "?12 syntax error\n\n? syntax error\n\n=\n\n? illegal move\n\n? syntax error\n\n"
    assert done.stderr.splitlines() == [
        "margo-gtp: syntax error: 'play red a1': invalid colour: 'red'",
        "margo-gtp: syntax error: 'play w i5': malformed vertex: 'i5'",
        "margo-gtp: syntax error: 'boardsize': expected 1 argument, got 0",
        "margo-gtp: syntax error: '12': an id and no command",
        "margo-gtp: syntax error: 'komi 1_0': not a decimal number: '1_0'",
        "margo-gtp: illegal move: A1:1 for WHITE: point is occupied",
        "margo-gtp: syntax error: 'final_status_list zombie': status must be alive, dead or seki, not 'zombie'",
    ]


def test_proxy_syntax_errors_give_a_reason_on_stderr() -> None:
    done = run([MARGO_GTP_2D], "play b\nplay red a1\nquit\n")
    assert done.stdout == "? syntax error\n\n? syntax error\n\n=\n\n"
    assert done.stderr.splitlines() == [
        "margo-gtp-2d: syntax error: 'play b'",
        "margo-gtp-2d: syntax error: 'play red a1'",
    ]


@pytest.mark.parametrize("path", ["/dev/zero", "/", "/nonexistent.sgf"])
def test_loadsgf_of_endless_or_unreadable_files(path: str) -> None:
    done = run([MARGO_GTP], f"play w c3\nloadsgf {path}\nmargo-board\n")
    assert done.stdout.split("\n\n")[1] == "? cannot load file"
    assert '"balls":{"C3:1":"W"}' in done.stdout  # nothing changed
    assert done.stderr.startswith(f"margo-gtp: loadsgf {path!r}: ")


def test_sgf_read_file_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from margo_gtp import sgf

    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;GM[77]SZ[3]" + b" " * 200 + b")")
    monkeypatch.setattr(sgf, "MAX_SGF_BYTES", 100)
    with pytest.raises(sgf.SgfError, match="file is larger than 100 bytes"):
        sgf.read_file(big)
    monkeypatch.setattr(sgf, "MAX_SGF_BYTES", 1000)
    assert sgf.read_file(big).startswith("(;GM[77]")


def test_loadsgf_and_printsgf_never_block_on_a_named_pipe(tmp_path: Path) -> None:
    """A FIFO nobody writes to (loadsgf) or reads from (printsgf) is an error at once: the
    session goes on answering."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = run([MARGO_GTP], f"loadsgf {fifo}\nprintsgf {fifo}\nname\n", timeout=60)
    assert done.stdout == "? cannot load file\n\n? cannot save file\n\n= margo-gtp\n\n"
    assert done.stderr.splitlines() == [
        f"margo-gtp: loadsgf {str(fifo)!r}: is a named pipe (FIFO), not a regular file",
        f"margo-gtp: printsgf {str(fifo)!r}: is a named pipe (FIFO), not a regular file",
    ]


def test_printsgf_writes_no_record_into_the_answer_stream(tmp_path: Path) -> None:
    """``printsgf /dev/stdout`` put the record between two answers (a controller read
    ``(;FF[4]...`` where it expected ``=7``); stdout redirected to a file, /dev/stdout is a
    regular file, and was even replaced. A document goes to a regular file of its own only."""
    out = tmp_path / "answers.txt"
    with open(out, "w") as answers:
        done = subprocess.run([str(MARGO_GTP)], input="6 printsgf /dev/stdout\n7 printsgf /proc/self/fd/1\n"
                              "8 printsgf /dev/null\n9 printsgf /dev/stderr\n10 name\n",
                              stdout=answers, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 0
    assert out.read_text() == ("?6 cannot save file\n\n?7 cannot save file\n\n?8 cannot save file\n\n"
                               "?9 cannot save file\n\n=10 margo-gtp\n\n")
    assert done.stderr.splitlines() == [
        "margo-gtp: printsgf '/dev/stdout': is this process's standard output, not a file of its own",
        "margo-gtp: printsgf '/proc/self/fd/1': is this process's standard output, not a file of its own",
        "margo-gtp: printsgf '/dev/null': is a character device, not a regular file",
        "margo-gtp: printsgf '/dev/stderr': is a named pipe (FIFO), not a regular file"]
    done = run([MARGO_GTP], "6 printsgf /dev/stdout\n7 name\n", timeout=60)   # stdout a pipe
    assert done.stdout == "?6 cannot save file\n\n=7 margo-gtp\n\n"
    assert done.stderr == "margo-gtp: printsgf '/dev/stdout': is a named pipe (FIFO), not a regular file\n"
    done = run([MARGO_GTP, "--log", "/dev/stdout"], "name\n", timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot open '/dev/stdout' for appending: is this process's standard output" in done.stderr


def test_margo_gtp_log_to_a_named_pipe_without_a_reader_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = one_error(run([MARGO_GTP, "--log", str(fifo)], "name\n", timeout=60))
    assert f"Invalid value for --log: cannot open '{fifo}' for appending: a named pipe (FIFO) that no process reads" in text


def test_textfile_reads_only_regular_files_within_the_cap(tmp_path: Path) -> None:
    from margo_gtp import textfile

    small = tmp_path / "small.txt"
    small.write_text("hello\n")
    assert textfile.read_text(small, 6) == "hello\n"
    with pytest.raises(textfile.TextFileError) as error:
        textfile.read_text(small, 5)
    assert (str(error.value), error.value.reason) == (f"{small}: is larger than 5 bytes", "is larger than 5 bytes")
    (tmp_path / "bin").write_bytes(b"\xff")
    for path, reason in [
        (tmp_path / "bin", "is not UTF-8 text"),
        (tmp_path, "Is a directory"),
        (tmp_path / "missing", "No such file or directory"),
        (Path("/dev/zero"), "is a character device, not a regular file"),
    ]:
        with pytest.raises(textfile.TextFileError) as error:
            textfile.read_text(path)
        assert str(error.value) == f"{path}: {reason}"


SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo"])
def test_endless_inputs_are_refused_before_a_byte_is_read(tmp_path: Path, kind: str) -> None:
    """/dev/zero was read until memory ran out; a FIFO blocked open() for ever."""
    path = Path(kind)
    reason = "is a character device, not a regular file"
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
        reason = "is a named pipe (FIFO), not a regular file"
    cases = [
        ([MARGO_TOURNAMENT, str(path)], f"margo-tournament: {path}: {reason}"),
        ([MARGO_MATCH, "a", "b", "--cluster", "local", "--runtime-env", f"@{path}"],
         f"margo-match: --runtime-env: cannot read {path}: {reason}"),
        ([MARGO_MATCH, "a", "b", "--openings", str(path), "--out", str(tmp_path / "m")],
         f"margo-match: --openings: cannot read opening book {path}: {reason}"),
        ([sys.executable, str(SCRIPTS / "strength-report"), str(path)], f"strength-report: {path}: {reason}"),
        ([sys.executable, str(SCRIPTS / "resign-check"), str(path)], f"resign-check: {path}: {reason}"),
    ]
    for argv, message in cases:
        done = run(argv, timeout=60)
        assert (done.returncode, done.stderr.splitlines()[-1:]) == (2, [message]), argv
        assert "Traceback" not in done.stderr
