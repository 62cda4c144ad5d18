"""The real ``margo-gtp`` process (.venv/bin/margo-gtp): pexpect sessions on a pty, plus
pipe sessions where a pty would interpret the bytes (control characters, 10,000 lines)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pexpect
import pytest

import gtp_runner
from margo_gtp.protocol.latency import measure_roundtrips
from margo_gtp.protocol.session import format_result

pytestmark = pytest.mark.process

MARGO_GTP = str(Path(sys.executable).parent / "margo-gtp")
#: margo-gtp with the fast random player: these tests are about the wire, not the default
#: player (which searches for a second a move; tests/test_levels.py covers it).
FAST = [MARGO_GTP, "--player", "random"]


def fast(args: tuple[str, ...] | list[str]) -> list[str]:
    """``args`` with ``--player random`` unless they choose a player themselves."""
    return list(args) if "--player" in args else ["--player", "random", *args]


class Engine:
    """A pexpect-driven engine: ``ask(line)`` sends one command and returns the response."""

    def __init__(self, *args: str) -> None:
        # A pty merges stderr into stdout; the engine's stderr details go to /dev/null.
        command = f"exec {shlex.join([MARGO_GTP, *fast(args)])} 2>/dev/null"
        self.child = pexpect.spawn("/bin/sh", ["-c", command], encoding="utf-8", echo=False, timeout=30)

    def ask(self, line: str) -> str:
        self.child.sendline(line)
        self.child.expect("\r\n\r\n")
        return self.child.before.replace("\r\n", "\n") + "\n\n"

    def board(self) -> dict:
        return json.loads(self.ask("margo-board")[2:])

    def quit(self) -> int:
        assert self.ask("quit") == "=\n\n"
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus

    def kill(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def engine():
    running: list[Engine] = []

    def start(*args: str) -> Engine:
        running.append(Engine(*args))
        return running[-1]

    yield start
    for child in running:
        child.kill()


def run_pipe(input_text: str | bytes, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    data = input_text.encode("utf-8") if isinstance(input_text, str) else input_text
    env = dict(os.environ, COLUMNS="200")  # typer's error box: no wrapping inside messages
    return subprocess.run([MARGO_GTP, *fast(args)], input=data, capture_output=True, timeout=timeout, env=env)


def test_full_game_by_genmove_to_the_end(engine) -> None:
    gtp = engine("--seed", "11")
    assert gtp.ask("boardsize 5") == "=\n\n"
    assert gtp.ask("komi 0.5") == "=\n\n"
    colour, moves = "w", 0
    while True:
        answer = gtp.ask(f"genmove {colour}")
        if answer == "= pass\n\n":
            break
        assert gtp.board()["balls"].get(answer[2:-2]) == colour.upper()
        moves += 1
        assert moves < 200
        colour = "b" if colour == "w" else "w"
    state = gtp.board()
    assert state["over"] is True and state["moves"] == moves and moves >= 25
    assert gtp.ask(f"genmove {colour}") == "= pass\n\n"  # and keeps answering pass
    assert gtp.ask(f"play {colour} pass") == "=\n\n"
    white = sum(1 for c in state["balls"].values() if c == "W") + 0.5
    black = sum(1 for c in state["balls"].values() if c == "B")
    assert gtp.ask("final_score") == f"= {format_result(white, black)}\n\n"
    assert gtp.ask("margo-legal_moves") == "=\n\n"
    assert gtp.quit() == 0


def test_undo_through_the_process(engine) -> None:
    gtp = engine()
    empty = gtp.board()
    assert gtp.ask("play w e5") == "=\n\n"
    after_one = gtp.board()
    assert gtp.ask("genmove b").startswith("= ")
    assert gtp.ask("undo") == "=\n\n"
    assert gtp.board() == after_one
    assert gtp.ask("undo") == "=\n\n"
    assert gtp.board() == empty
    assert gtp.ask("undo") == "? cannot undo\n\n"
    assert gtp.quit() == 0


def _pexpect_session(text: str) -> str:
    """Run a .tst text through the real process, one command at a time."""
    gtp = Engine()
    try:
        out = []
        for line in text.split("\n"):
            if gtp_runner.engine_view(line):
                out.append(gtp.ask(line))
        return "".join(out)
    finally:
        gtp.kill()


def test_positions_md_examples_by_setup_and_play() -> None:
    for name in ("positions.tst", "positions.errors"):
        outcomes = gtp_runner.run_file(gtp_runner.TST_DIR / name, _pexpect_session)
        assert len(outcomes) >= 7
        assert [o.describe() for o in outcomes if not o.passed] == []


@pytest.mark.parametrize("path", gtp_runner.tst_files() + gtp_runner.errors_files(), ids=lambda path: path.name)
def test_tst_files_through_a_pipe(path: Path) -> None:
    """The same suites, bytes and all (control characters, CR), through the real stdin."""

    def pipe_session(text: str) -> str:
        result = run_pipe(text.encode("utf-8"))
        assert result.returncode == 0
        return result.stdout.decode("utf-8")

    outcomes = gtp_runner.run_file(path, pipe_session)
    assert [o.describe() for o in outcomes if not o.passed] == []


def test_ten_thousand_commands() -> None:
    cycle = [
        "{i} name",
        "{i} play w {v}",
        "{i} margo-legal_moves",
        "{i} undo",
        "{i} xyzzy",
        "{i} play w Z99",
        "",
        "# comment",
        "{i} showboard",
        "{i} margo-score",
    ]
    vertices = [f"{c}{r}" for c in "ABCDEFGHJ" for r in range(1, 10)]
    lines, expected_ids = [], []
    i = 0
    while len(expected_ids) < 10_000:
        template = cycle[i % len(cycle)]
        line = template.format(i=i, v=vertices[i % len(vertices)])
        lines.append(line)
        if "{i}" in template:
            expected_ids.append(str(i))
        i += 1
    proc = subprocess.Popen(FAST, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    writer = threading.Thread(target=lambda: (proc.stdin.write(("\n".join(lines) + "\n").encode()), proc.stdin.close()))
    writer.start()
    output = proc.stdout.read().decode()
    writer.join()
    assert proc.wait(timeout=60) == 0
    blocks = output.split("\n\n")
    assert blocks.pop() == ""
    assert len(blocks) == 10_000
    ids = [block.split("\n")[0].split(" ")[0][1:] for block in blocks]
    assert ids == expected_ids
    kinds = {block.split(" ", 1)[0][0] + (block.split(" ", 1)[1] if block[0] == "?" else "") for block in blocks}
    assert kinds == {"=", "?unknown command", "?syntax error"}
    assert blocks[-1].endswith(" W 0 B 0")  # every play was undone


def test_eof_ends_cleanly_and_quit_stops_reading() -> None:
    result = run_pipe("1 name\n2 boardsize 5")
    assert (result.returncode, result.stdout) == (0, b"=1 margo-gtp\n\n=2 \n\n")
    result = run_pipe("quit\nname\n")
    assert (result.returncode, result.stdout) == (0, b"=\n\n")
    result = run_pipe(b"")
    assert (result.returncode, result.stdout) == (0, b"")


def test_invalid_utf8_and_binary_noise_are_answered() -> None:
    result = run_pipe(b"\xff\xfe name\n\x80\x81\n1 name\n")
    assert result.returncode == 0
    assert result.stdout == b"? unknown command\n\n? unknown command\n\n=1 margo-gtp\n\n"


# -- command-line options -------------------------------------------------------------------


def test_cli_size_and_rules() -> None:
    result = run_pipe("margo-get_rules\n", "--size", "7", "--rule", "komi=0.5", "--rule", "swap=on")
    rules = json.loads(result.stdout.decode()[2:])
    assert (rules["size"], rules["komi"], rules["swap"], rules["max_level"]) == (7, 0.5, "on", 6)


def test_cli_seed_makes_genmove_reproducible() -> None:
    script = "genmove w\ngenmove b\ngenmove w\ngenmove b\n"
    first = run_pipe(script, "--seed", "5").stdout
    assert first == run_pipe(script, "--seed", "5").stdout
    assert first == run_pipe(script, "--player", "random:seed=5", "--seed", "9").stdout
    assert first != run_pipe(script, "--seed", "6").stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rule", "colour=red"], "unknown rule option: 'colour'"),
        (["--rule", "swap"], "margo-gtp: --rule takes K=V: 'swap'"),
        (["--rule", "swap=on", "--rule", " swap=off"], "margo-gtp: --rule swap given twice"),
        (["--size", "1"], "invalid value for size: '1' (allowed 2..19)"),
        (["--player", "nosuch"], "unknown player 'nosuch'"),
        (["--player", "random:depth=2"], "unknown option(s) for player 'random': depth"),
    ],
)
def test_cli_rejects_bad_options(args: list[str], message: str) -> None:
    result = run_pipe("name\n", *args)
    assert result.returncode == 2 and result.stdout == b""
    assert message in " ".join(result.stderr.decode().replace("│", " ").split())


def test_cli_help_explains_every_option_with_an_example() -> None:
    result = subprocess.run([MARGO_GTP, "--help"], capture_output=True, text=True, timeout=30, env=dict(os.environ, COLUMNS="200"))
    assert result.returncode == 0
    text = result.stdout
    for option, example in [
        ("--size", "--size 7"),
        ("--rule", "--rule ko_rule=simple"),
        ("--player", "--player random:seed=3"),
        ("--seed", "--seed 42"),
        ("--log", "--log wire.log"),
    ]:
        assert option in text and f"Example: {example}" in text


def test_cli_wire_log(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    result = run_pipe("1 name\n\nshowboard x\nboardsize 2\nshowboard\n", "--log", str(log))
    assert result.returncode == 0
    assert log.read_text() == (
        ">> 1 name\n<< =1 margo-gtp\n>> \n>> showboard x\n<< ? syntax error\n>> boardsize 2\n<< =\n>> showboard\n"
        "<< = \n<< Level 1\n<<     A B\n<<   2 . . 2\n<<   1 . . 1\n<<     A B\n<< White to move; moves played: 0\n"
        "<< Balls: White (O) 0, Black (X) 0\n<< Captured by: White 0, Black 0\n"
    )


def test_a_wire_log_stops_at_its_cap_and_the_session_goes_on(tmp_path: Path) -> None:
    """The controller decides how much is logged: nine lines of almost 1 MiB pass the 8 MiB
    cap, so the log ends with one cap line and every command is still answered."""
    log = tmp_path / "wire.log"
    word = "x" * ((1 << 20) - 100)
    result = run_pipe("".join(f"{n} known_command {word}\n" for n in range(1, 10)) + "10 name\n", "--log", str(log))
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout == b"".join(b"=%d false\n\n" % n for n in range(1, 10)) + b"=10 margo-gtp\n\n"
    data = log.read_bytes()
    assert len(data) <= 8 << 20 and data.count(b"\n") == 17
    assert data.endswith(b"\n<< =8 false\n[log capped at 8388608 bytes]\n") and data.count(b"[log capped") == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device that is always full)")
def test_a_log_that_cannot_be_written_stops_logging_not_the_session() -> None:
    result = run_pipe("1 name\n2 version\n", "--log", "/dev/full")
    assert (result.returncode, result.stdout) == (0, b"=1 margo-gtp\n\n=2 0.1.0\n\n")
    assert result.stderr == (b"margo-gtp: --log: cannot write '/dev/full' (No space left on device); "
                             b"logging stops, the session goes on\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device that is always full)")
def test_answers_that_cannot_be_written_end_the_session_with_one_line() -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run(FAST, input=b"name\n", stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert (result.returncode, result.stderr) == (1, b"margo-gtp: cannot write the answers: No space left on device\n")


def test_a_controller_that_leaves_during_analysis_ends_the_engine_quietly() -> None:
    """A GUI closed while margo-analyze streams: the next write finds the pipe closed; the
    engine must exit at once with no traceback (and not abort on its reader thread)."""
    engine = subprocess.Popen(FAST, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert engine.stdin is not None and engine.stdout is not None
    engine.stdin.write(b"boardsize 5\nmargo-analyze w 5\n")
    engine.stdin.flush()
    assert engine.stdout.readline() == b"=\n"  # boardsize
    engine.stdout.readline()
    assert engine.stdout.readline().startswith(b"=")  # the stream has begun
    engine.stdout.close()  # the controller stops reading; stdin stays open, as a GUI's pipe may
    try:
        assert engine.wait(timeout=60) == 0
        assert engine.stderr.read() == b""
    finally:
        engine.stdin.close()
        engine.kill()


def test_measure_roundtrips_reports_each_command() -> None:
    report = measure_roundtrips(FAST, 20)
    assert report["n"] == 20 and report["position"].startswith("margo-setup ")
    assert set(report["commands"]) == {"name", "play", "margo-legal_moves"}
    for figures in report["commands"].values():
        assert set(figures) == {"p50_ms", "p95_ms", "mean_ms", "max_ms"}
        assert 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["max_ms"]


def test_measure_roundtrips_fails_loudly_on_a_refusing_engine() -> None:
    refuser = "import sys\nfor line in sys.stdin:\n    print('? nope\\n', flush=True)\n"
    with pytest.raises(RuntimeError, match="engine refused 'boardsize 9'"):
        measure_roundtrips([sys.executable, "-c", refuser], 1)
