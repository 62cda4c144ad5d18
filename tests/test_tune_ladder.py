"""scripts/tune (SPSA self-play: reproducible, resumable) and scripts/ladder (a real
tournament on a tiny board, written into a page with a PNG plot, hand-written parts kept)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from margo_gtp.machine import available_cores

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"

pytestmark = pytest.mark.process


def tune(*args: str) -> list[str]:
    done = subprocess.run([str(SCRIPTS / "tune"), "--size", "3", "--playouts", "8", *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_tune_is_reproducible_and_resumes_where_it_stopped(tmp_path: Path) -> None:
    straight = tune("--iterations", "3", "--seed", "4", "--params", "c,prior_visits")
    first = tmp_path / "t.jsonl"
    tune("--iterations", "2", "--seed", "4", "--params", "c,prior_visits", "--out", str(first))
    resumed = tune("--iterations", "3", "--seed", "4", "--params", "c,prior_visits", "--out", str(first))
    assert resumed == straight[2:]  # iteration 3 and the final spec, exactly as in one go
    assert straight[-1].startswith("mcts:playouts=8,c=") and ",prior_visits=" in straight[-1]
    lines = [json.loads(line) for line in first.read_text().splitlines()]
    assert "start" in lines[0] and [line["iteration"] for line in lines[1:]] == [1, 2, 3]
    for line in lines[1:]:  # every step follows the SPSA rule
        shrink = line["iteration"] ** -0.101
        expected = line["theta_before"]["c"] + 0.25 * 0.1 * shrink * line["r"] * line["delta"]["c"]
        assert line["theta_after"]["c"] == pytest.approx(min(2.0, max(0.05, expected)))


def test_tune_rejects_unknown_parameters() -> None:
    done = subprocess.run([str(SCRIPTS / "tune"), "--params", "c,depth"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        "error: unknown parameter 'depth' (known: c, rave, prior_visits, prior_temp, playout_moves, expand, tactics)")


def test_ladder_writes_the_page_and_the_plot(tmp_path: Path) -> None:
    doc = tmp_path / "docs" / "strength.md"
    doc.parent.mkdir()
    doc.write_text("# Strength\n\nHand-written intro.\n\n<!-- scripts/ladder: begin -->\nold\n"
                   "<!-- scripts/ladder: end -->\n\n## Levers\n\nHand-written table.\n")
    done = subprocess.run([str(SCRIPTS / "ladder"), "--sizes", "3", "--times", "0.01", "--games", "2",
                           "--out", str(tmp_path / "ladder"), "--doc", str(doc)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = doc.read_text()
    assert text.startswith("# Strength\n\nHand-written intro.\n\n<!-- scripts/ladder: begin -->\n## The ladder\n")
    assert text.endswith("<!-- scripts/ladder: end -->\n\n## Levers\n\nHand-written table.\n")
    assert "old" not in text.split("\n")
    assert "| engine | random | heuristic | mcts-0.01s | total |" in text
    assert "6 games. Crosstable" in text  # 3 pairings x 2 games
    ratings = [line for line in text.splitlines() if line.startswith("| random | +0 |")]
    assert len(ratings) == 1  # anchored: random is 0
    png = (tmp_path / "docs" / "strength-ladder.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    config = (tmp_path / "ladder" / "size-3" / "tournament.toml").read_text()
    threads = available_cores()  # one game at a time (--parallel 1) gets every core
    assert f'margo-gtp --player mcts:seconds=0.01,threads={threads}"\n' in config
    assert (f"`mcts:seconds=T,threads={threads}` and `net:seconds=T,threads={threads}` (T = 0.01 s per move; "
            "the net only on the sizes it ships weights for), 2 games per pairing") in text
    assert "net-0.01s" not in text  # no weights for 3x3: the net would only repeat the mcts rung
    assert json.loads((tmp_path / "ladder" / "ladder.json").read_text())["threads"] == threads


def test_ladder_shares_the_cores_out_among_the_games_side_by_side(tmp_path: Path) -> None:
    """Thinking time is wall time: two games at once on 2 cores get one search thread each,
    not two (the mcts default) that would oversubscribe the cores."""
    done = subprocess.run(["taskset", "-c", "0,1", str(SCRIPTS / "ladder"), "--sizes", "3", "--times", "0.01",
                           "--games", "2", "--parallel", "2", "--out", str(tmp_path / "ladder"),
                           "--doc", str(tmp_path / "strength.md")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    config = (tmp_path / "ladder" / "size-3" / "tournament.toml").read_text()
    assert '--player mcts:seconds=0.01,threads=1"\n' in config and "parallel = 2\n" in config
    assert "Each searching engine searches with 1 thread: the machine's cores shared out" in (
        tmp_path / "strength.md").read_text()


def test_ladder_gives_the_net_a_rung_at_every_time_where_it_ships_weights() -> None:
    loader = importlib.machinery.SourceFileLoader("ladder_script", str(SCRIPTS / "ladder"))
    ladder = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(ladder)
    config = ladder.tournament_toml(7, [0.1, 1.0], 2, 2, 1, ("mcts", "net"))
    names = [line.split('"')[1] for line in config.splitlines() if line.startswith("name = ")]
    assert names == ["random", "heuristic", "mcts-0.1s", "mcts-1s", "net-0.1s", "net-1s"]
    assert '--player net:seconds=1,threads=1"\n' in config
    assert ladder.sized_searchers(3, ("mcts", "net")) == ("mcts",)  # no 3x3 weights are shipped
    assert ladder.sized_searchers(9, ("net",)) == ("net",)


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--searchers", "mcts,gnugo"], "--searchers takes mcts and/or net, comma-separated, each once: 'mcts,gnugo'"),
        (["--searchers", "net,net"], "--searchers takes mcts and/or net, comma-separated, each once: 'net,net'"),
        (["--games", "0"], "--games and --parallel must be at least 1"),
        (["--times", "0.1,inf"], "sizes must be 2..19 and times positive"),
        (["--times", "1,1.0"], "--sizes and --times must not repeat a value: '7,9', '1,1.0'"),
        (["--sizes", "7,7"], "--sizes and --times must not repeat a value: '7,7', None"),
        (["--out", "/proc/no/such"], "--out: cannot create the directory '/proc/no/such': No such file or directory"),
        (["--doc", "/proc/no/strength.md"], "--doc: cannot write in the directory '/proc/no': No such file or directory"),
    ],
)
def test_ladder_refuses_bad_options_before_playing(tmp_path: Path, options: list[str], error: str) -> None:
    defaults = {"--out": str(tmp_path / "ladder"), "--doc": str(tmp_path / "strength.md")}
    for option in options[::2]:
        defaults.pop(option, None)
    args = [*options, *(item for pair in defaults.items() for item in pair)]
    done = subprocess.run([str(SCRIPTS / "ladder"), *args], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"ladder: error: {error}"
    assert not (tmp_path / "ladder").exists() and not (tmp_path / "strength.md").exists()  # nothing played


@pytest.mark.parametrize(
    ("record", "error"),
    [
        ({"command": "scripts/ladder"}, "KeyError: 'started'"),
        ({"command": "scripts/ladder", "started": "2026-11-24 21:00", "commit": "abc", "games": 2,
          "loads": ["0", "0"], "threads": "2; rm -rf /"},
         "ValueError: threads must be a whole number of at least 1, not '2; rm -rf /'"),
    ],
)
def test_ladder_report_only_refuses_a_damaged_run_record(tmp_path: Path, record: dict, error: str) -> None:
    (tmp_path / "ladder").mkdir()
    (tmp_path / "ladder" / "ladder.json").write_text(json.dumps(record) + "\n")
    done = subprocess.run([str(SCRIPTS / "ladder"), "--report-only", "--sizes", "3", "--out", str(tmp_path / "ladder"),
                           "--doc", str(tmp_path / "strength.md")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"ladder: error: {tmp_path / 'ladder' / 'ladder.json'}: not a ladder record ({error}); "
        "delete it to write the page without the run's command and load")
    assert not (tmp_path / "strength.md").exists()


def test_ctrl_c_stops_the_ladder_and_keeps_its_games(tmp_path: Path) -> None:
    out, doc = tmp_path / "ladder", tmp_path / "strength.md"
    # Ctrl-C at a terminal reaches the whole foreground process group (the ladder, the
    # tournament and its engines), with SIGINT at its default disposition.
    ladder = subprocess.Popen(
        [str(SCRIPTS / "ladder"), "--sizes", "3", "--times", "0.01", "--games", "200", "--out", str(out), "--doc", str(doc)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first_pairing = out / "size-3" / "games" / "01-random-vs-heuristic" / "results.jsonl"
    deadline = time.monotonic() + 120
    while not (first_pairing.exists() and first_pairing.read_text().count("\n") >= 2):
        assert time.monotonic() < deadline and ladder.poll() is None, "no game finished"
        time.sleep(0.05)
    os.killpg(ladder.pid, signal.SIGINT)
    stdout, stderr = ladder.communicate(timeout=60)
    assert ladder.returncode == 130
    assert stderr.splitlines()[-1] == (f"ladder: stopped; the finished games are kept under {out}: "
                                       "run the same command to continue")
    assert "Traceback" not in stderr
    kept = [json.loads(line) for line in first_pairing.read_text().splitlines()]
    assert len(kept) >= 2 and len({record["game"] for record in kept}) == len(kept)
    assert not doc.exists() and not (out / "ladder.json").exists()  # no page from a half-played ladder


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--size", "1"], "invalid value for size: '1' (allowed 2..19)"),
        (["--params", ","], "--params names no parameter (known: c, rave, prior_visits, prior_temp, playout_moves, expand, tactics)"),
        (["--rule", "swap"], "--rule takes K=V: 'swap'"),
        (["--rule", "colour=green"], "unknown rule option: 'colour'"),
        (["--size", "3", "--rule", "size=5"], "--size 3 contradicts the rule size=5: give one of them"),
        (["--base", "heuristic"], "--base must be an mcts spec (the tuned parameters are its options): 'heuristic'"),
        (["--base", "mcts:playouts=x"], "player option playouts must be a whole number >= 1: 'x'"),
        (["--max-moves", "0"], "--iterations, --playouts and --max-moves must be at least 1, --rate positive"),
        (["--rate", "nan"], "--iterations, --playouts and --max-moves must be at least 1, --rate positive"),
        (["--out", "/proc/no/tune.jsonl"], "--out: cannot write '/proc/no/tune.jsonl': No such file or directory"),
    ],
)
def test_tune_refuses_bad_options_before_playing(options: list[str], error: str) -> None:
    done = subprocess.run([str(SCRIPTS / "tune"), *options], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"tune: error: {error}"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"start": "scripts/tune"}\nnot json\n', "{out}:2: not a JSON line"),
        ('{"start": "scripts/tune"}\n[1, 2]\n', "{out}:2: not a scripts/tune line"),
        ('{"iteration": 3, "theta_after": 7}\n', "{out}: its last iteration line has no theta_after"),
        (b"\xff", "{out}: cannot read: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    ],
)
def test_tune_refuses_to_resume_from_a_file_that_is_not_its_own(tmp_path: Path, text: str | bytes, error: str) -> None:
    out = tmp_path / "t.jsonl"
    out.write_bytes(text if isinstance(text, bytes) else text.encode())
    done = subprocess.run([str(SCRIPTS / "tune"), "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == "tune: error: --out: cannot resume: " + error.format(out=out)
    assert out.read_bytes() == (text if isinstance(text, bytes) else text.encode())  # left as it was


def test_ctrl_c_stops_tune_and_the_same_command_continues(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    command = [str(SCRIPTS / "tune"), "--size", "3", "--playouts", "8", "--iterations", "400", "--seed", "4",
               "--params", "c", "--out", str(out)]
    tuning = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not (out.exists() and out.read_text().count("\n") >= 3):  # the start line and two iterations
        assert time.monotonic() < deadline and tuning.poll() is None, "no iteration finished"
        time.sleep(0.05)
    tuning.send_signal(signal.SIGINT)
    _, stderr = tuning.communicate(timeout=60)
    assert tuning.returncode == 130
    assert stderr.splitlines()[-1] == f"tune: stopped; run the same command to continue from {out}"
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    iterations = [line["iteration"] for line in kept[1:]]
    assert iterations == list(range(1, len(iterations) + 1)) and len(iterations) >= 2
    straight = tune("--iterations", str(len(iterations) + 1), "--seed", "4", "--params", "c")
    resumed = tune("--iterations", str(len(iterations) + 1), "--seed", "4", "--params", "c", "--out", str(out))
    assert resumed == straight[-2:]  # the next iteration and the spec, as in one go


def _file_size_limit(limit: int):
    """preexec_fn: writes past ``limit`` bytes fail with EFBIG ("File too large") as on a
    full disk (SIGXFSZ ignored, and an ignored signal stays ignored across exec)."""
    import resource
    import signal

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize(
    "script, args, out_name, results, limit",
    [
        ("tune", ["--size", "3", "--playouts", "8", "--iterations", "3", "--params", "c"], "out.jsonl", "out.jsonl", 300),
        # strength's --out is a folder laid out as margo-match's: its results.jsonl takes a
        # game's line (about 900 bytes) before the limit cuts a later write
        ("strength", ["random", "random", "--size", "3", "--games", "3"], "out", "out/results.jsonl", 2000),
    ],
)
def test_a_full_disk_mid_run_is_one_line_and_exit_2(tmp_path, script, args, out_name, results, limit):
    out = tmp_path / out_name
    done = subprocess.run([str(SCRIPTS / script), *args, "--out", str(out)], capture_output=True, text=True, timeout=120,
                          preexec_fn=_file_size_limit(limit))
    assert (done.returncode, done.stderr.splitlines()[-1:]) == (2, [f"{script}: cannot write {str(out)!r}: File too large"])
    assert "Traceback" not in done.stderr
    lines = (tmp_path / results).read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)  # only complete lines were kept


@pytest.mark.parametrize(
    "script, args, message",
    [
        ("strength", ["random", "random", "--size", "3", "--games", "1"], "strength: error: --out: not a folder: '/dev/full'"),
        ("tune", ["--size", "3", "--iterations", "1"],
         "tune: error: --out: cannot resume: /dev/full: is a character device, not a regular file"),
        ("openings", ["--size", "3", "--count", "1"], "openings: error: --out: not a regular file: '/dev/full'"),
    ],
)
def test_scripts_writing_to_dev_full_fail_in_one_line(script, args, message):
    done = subprocess.run([str(SCRIPTS / script), *args, "--out", "/dev/full"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr.splitlines()[-1:]) == (2, [message])
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["match.json", "results.jsonl", "summary.json"])
def test_strength_refuses_a_run_file_that_is_a_pipe_before_any_game(tmp_path: Path, name: str) -> None:
    # match.json and summary.json are renamed over their paths, which would replace a pipe
    # with a regular file (summary.json after all the games); reading a pipe hung
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / name)
    done = subprocess.run([sys.executable, str(SCRIPTS / "strength"), "random", "random", "--size", "3", "--games", "1",
                           "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"strength: {out / name}: is a named pipe (FIFO), not a regular file\n"
    assert stat.S_ISFIFO(os.lstat(out / name).st_mode) and [p.name for p in out.iterdir()] == [name]


def test_ladder_report_only_without_games_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    """It raised matplotlib's ValueError, after writing tournament.toml files."""
    out = tmp_path / "ladder"
    (out / "size-3").mkdir(parents=True)
    done = subprocess.run([str(SCRIPTS / "ladder"), "--report-only", "--sizes", "3,5", "--out", str(out),
                           "--doc", str(tmp_path / "strength.md")], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr.splitlines()) == (2, [
        f"ladder: --report-only: no finished games under {out} for sizes 3,5; play them first (without --report-only)"])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["ladder", "ladder/size-3"]


def test_pages_and_plots_that_are_named_pipes_are_refused_before_anything_runs(tmp_path: Path) -> None:
    fifo = tmp_path / "page.md"
    os.mkfifo(fifo)
    done = subprocess.run([str(SCRIPTS / "ladder"), "--report-only", "--doc", str(fifo), "--out", str(tmp_path / "l")],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, f"ladder: error: --doc: not a regular file: {str(fifo)!r}")
    plot = tmp_path / "plot.png"
    os.mkfifo(plot)
    done = subprocess.run([str(SCRIPTS / "strength-report"), str(tmp_path / "run.jsonl"), "--plot", str(plot)],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, f"strength-report: error: --plot: not a regular file: {str(plot)!r}")
