"""margo-match as a real process: resume after kill -9, Ctrl-C, --json, and matches
between real ``margo-gtp`` engines."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from margo_gtp import sgf
from margo_gtp.match.referee_cli import match_config_from_options
from margo_gtp.engine import Board, Colour, Move, Rules

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
MARGO_MATCH = str(BIN / "margo-match")
MARGO_GTP = str(BIN / "margo-gtp")
FAULTY = Path(__file__).parent / "fake_engines" / "faulty_engine.py"


GATED = Path(__file__).parent / "fake_engines" / "gated.py"


def faulty(*args: str) -> str:
    return shlex.join([sys.executable, str(FAULTY), *args])


def gated(gate: Path, open_games: int, engine: str) -> str:
    """``engine`` behind tests/fake_engines/gated.py: while ``gate/closed`` exists, only the
    first ``open_games`` games (counted over all its processes) can finish."""
    gate.mkdir(exist_ok=True)
    return shlex.join([sys.executable, str(GATED), str(gate), str(open_games), "--", *shlex.split(engine)])


def wait_for_held_game(gate: Path, timeout: float = 60.0) -> None:
    """Until some gated engine holds a genmove (a game beyond the open ones has begun)."""
    deadline = time.monotonic() + timeout
    while not any(gate.glob("held-*")):
        if time.monotonic() > deadline:
            raise AssertionError(f"no game was held at {gate}")
        time.sleep(0.05)


def results(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def wait_for_lines(path: Path, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {count} lines")


def processes_mentioning(text: str) -> list[int]:
    """Pids of live processes whose command line contains ``text``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = next(line for line in (entry / "status").read_text().splitlines() if line.startswith("State:"))
            except (OSError, StopIteration):
                continue
            if text in cmdline and "zombie" not in state:
                pids.append(int(entry.name))
    return pids


@pytest.mark.parametrize("parallel", ["1", "2"])
def test_kill_9_then_the_same_command_finishes_with_exactly_n_games(tmp_path, parallel):
    out = tmp_path / "out"
    # Engine A behind a gate: with the gate closed exactly 2 games can finish, so the kill
    # lands mid-match by construction; the engine's --log names this test.
    marker = str(tmp_path / "engine.log")
    gate = tmp_path / "gate"
    command = [
        MARGO_MATCH, gated(gate, 2, faulty("--seed", "1", "--log", marker)), faulty("--seed", "2"),
        "--games", "6", "--size", "3", "--out", str(out), "--json", "--no-progress", "--parallel", parallel,
    ]
    (gate / "closed").touch()
    referee = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_lines(out / "results.jsonl", 2)
    wait_for_held_game(gate)
    referee.send_signal(signal.SIGKILL)
    referee.wait()
    with open(out / "results.jsonl", "ab") as handle:  # as if the kill had landed mid-write
        handle.write(b'{"game": 99, "engine_a": "torn')
    finished_before = {record["game"] for record in results_tolerant(out)}
    assert len(finished_before) == 2
    (gate / "closed").unlink()
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = results(out)
    assert sorted(record["game"] for record in records) == [1, 2, 3, 4, 5, 6]
    assert {record["game"] for record in records[: len(finished_before)]} == finished_before
    summary = json.loads(done.stdout)
    assert summary["games"] == 6 and summary["run"]["games_played"] == 6 - len(finished_before)
    assert sorted(p.name for p in out.glob("game-*.sgf")) == [f"game-000{i}.sgf" for i in range(1, 7)]
    # Nothing is left running: engines of the killed referee saw EOF, orphaned workers quit.
    deadline = time.monotonic() + 30
    while processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_mentioning(marker) == []


def results_tolerant(out: Path) -> list[dict]:
    records = []
    for line in (out / "results.jsonl").read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


@pytest.mark.parametrize(
    ("stop_signal", "sigint_at_start"),
    [
        # Ctrl-C at a terminal: SIGINT at its default in the referee even when this suite
        # was launched with it ignored (nohup, `cmd &` in a script), which Python and every
        # child would otherwise inherit -- and an ignored SIGINT cannot stop anything.
        (signal.SIGINT, signal.SIG_DFL),
        # Under nohup SIGINT stays ignored, as in any Unix program; SIGTERM stops the
        # match the same clean way (docs/referee.md).
        (signal.SIGTERM, signal.SIG_IGN),
    ],
    ids=["ctrl-c", "sigterm-under-nohup"],
)
def test_ctrl_c_stops_cleanly_keeps_finished_games_and_resumes(tmp_path, stop_signal, sigint_at_start):
    out = tmp_path / "out"
    gate = tmp_path / "gate"
    command = [
        MARGO_MATCH, gated(gate, 1, faulty()), faulty("--seed", "3"),
        "--games", "5", "--size", "3", "--out", str(out), "--json", "--no-progress",
    ]
    (gate / "closed").touch()
    referee = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint_at_start),
    )
    wait_for_held_game(gate)  # game 1 is written, game 2 is being played
    referee.send_signal(stop_signal)
    stdout, stderr = referee.communicate(timeout=60)
    assert referee.returncode == 130
    summary = json.loads(stdout)
    assert summary["interrupted"] is True
    assert summary["games"] == len(results(out)) == 1
    (gate / "closed").unlink()
    assert f"games finished and kept in {out}; run the same command to resume" in stderr
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert sorted(record["game"] for record in results(out)) == [1, 2, 3, 4, 5]


def test_margo_gtp_random_match_with_json_summary(tmp_path):
    out = tmp_path / "out"
    engine = f"{MARGO_GTP} --player random"
    done = subprocess.run(
        [MARGO_MATCH, engine, engine, "--games", "4", "--size", "4", "--out", str(out), "--json", "--parallel", "2", "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    a, b = summary["engines"]["A"], summary["engines"]["B"]
    assert summary["games"] == 4
    assert a["wins"] + a["draws"] + a["losses"] == 4 and (a["wins"], a["losses"]) == (b["losses"], b["wins"])
    assert sum(a["as_white"].values()) == 2 and sum(a["as_black"].values()) == 2
    assert a["forfeits"] == {} and b["forfeits"] == {}
    assert set(summary["endings"]) == {"no legal move"}
    assert (a["name"], b["name"]) == (f"{engine} (A)", f"{engine} (B)")
    assert json.loads((out / "summary.json").read_text())["games"] == 4
    for record in results(out):
        game = sgf.loads((out / record["sgf"]).read_text())
        board = Board(Rules(size=4))
        for move in record["moves"]:
            board.push(Move.from_gtp(move["move"], 4), Colour.WHITE if move["colour"] == "W" else Colour.BLACK)
        assert board.outcome() is not None and board.outcome().result() == record["result"]
        assert sgf.replay(game).balls() == board.balls()


def test_margo_gtp_match_with_rules_and_adjudication_prints_tables(tmp_path):
    engine = f"{MARGO_GTP} --player random"
    done = subprocess.run(
        [MARGO_MATCH, f"{engine} --seed 1", f"{engine} --seed 5", "--games", "2", "--size", "5", "--rule", "swap=on", "--komi", "0.5",
         "--max-moves", "6", "--out", str(tmp_path), "--no-progress"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stderr
    assert "2 games" in done.stdout and "Score of A:" in done.stdout and "Elo A - B:" in done.stdout
    assert "Endings: adjudicated at max moves 2" in done.stdout
    for record in results(tmp_path):
        assert record["reason"] == "adjudicated at max moves" and record["move_count"] == 6
        white, black = record["balls"]["W"] + 0.5, record["balls"]["B"]
        assert record["result"] == (f"W+{white - black:g}" if white > black else f"B+{black - white:g}")
        game = sgf.loads((tmp_path / record["sgf"]).read_text())
        assert game.rules.swap and game.rules.komi == 0.5


def test_a_different_match_in_the_same_directory_is_refused(tmp_path):
    engine = f"{MARGO_GTP} --player random"
    first = subprocess.run([MARGO_MATCH, engine, engine, "--games", "1", "--size", "3", "--out", str(tmp_path), "--no-progress"], capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    second = subprocess.run([MARGO_MATCH, engine, engine, "--games", "1", "--size", "4", "--out", str(tmp_path), "--no-progress"], capture_output=True, text=True, timeout=60)
    assert second.returncode == 2
    assert "holds a different match (differs in: rules); use another --out" in second.stderr


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"rules": ["swap"]}, "--rule takes K=V: 'swap'"),
        ({"rules": ["=on"]}, "--rule takes K=V: '=on'"),
        ({"rules": ["ko_rule=never"]}, "invalid value for ko_rule: 'never'"),
        ({"time_control": "1 2"}, "time control must be"),
        ({"size": 1}, "invalid value for size: '1'"),
    ],
)
def test_bad_options_are_value_errors_quoting_the_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        match_config_from_options("a", "b", games=1, **kwargs)


def test_margo_gtp_heuristic_against_mcts_with_swap_and_time_control(tmp_path):
    done = subprocess.run(
        [MARGO_MATCH, f"{MARGO_GTP} --player heuristic --seed 1", f"{MARGO_GTP} --player mcts:playouts=30 --seed 2",
         "--games", "2", "--size", "3", "--rule", "swap=on", "--time-control", "60 5 5", "--out", str(tmp_path), "--json", "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 2
    assert summary["engines"]["A"]["forfeits"] == {} and summary["engines"]["B"]["forfeits"] == {}
    assert set(summary["endings"]) <= {"no legal move", "resignation"}
    rules = Rules(size=3, swap=True)
    for record in results(tmp_path):
        board = Board(rules)
        for move in record["moves"]:
            board.push(Move.from_gtp(move["move"], 3), Colour.WHITE if move["colour"] == "W" else Colour.BLACK)
        assert sgf.replay(sgf.loads((tmp_path / record["sgf"]).read_text())).balls() == board.balls()
        assert record["swapped"] == board.swapped


def _records(winners: list[str | None]) -> list[dict]:
    """results.jsonl records of games 1, 2, ... won by ``winners`` ("A", "B" or None)."""
    return [{"game": number, "winner": winner, "a_colour_final": "W", "reason": "no legal move", "forfeit": None,
             "moves": []} for number, winner in enumerate(winners, 1)]


@pytest.mark.parametrize(
    "winners, line",
    [
        (["A", "A"], "Elo A - B: n/a (no losses)"),
        (["B", "B", "B"], "Elo A - B: n/a (no wins)"),
        (["A", "B"], "Elo A - B: +0 (95%: -inf to +inf)"),
        (["B", None, "B"], "Elo A - B: -280 (95%: -inf to -47)"),  # score 1/6, margin 0.267
    ],
)
def test_printed_summary_shows_signed_infinite_elo(winners, line):
    from rich.console import Console

    from margo_gtp.match.referee_cli import print_match_summary
    from margo_gtp.match.stats import summarize_match

    records = _records(winners)
    console = Console(record=True, width=200)
    print_match_summary(console, summarize_match(records, {"A": "a", "B": "b"}))
    assert line in console.export_text().splitlines()


@pytest.mark.parametrize(
    "winners, paired, line",
    [
        (["A", "A"], False, "Trinomial [0, 0, 2]: n/a (every game ended the same way)"),
        (["B", "B", "B"], False, "Trinomial [3, 0, 0]: n/a (every game ended the same way)"),
        (["A", "B", "B", "A"], True, "Pentanomial [0, 0, 2, 0, 0]: n/a (every pair ended the same way)"),
        (["A", "B", "A", "B"], False, "Trinomial [2, 0, 2]: Elo +0.0 +/- 796.0, LOS 50.0%, nElo +0.0 +/- 340.4"),
    ],
)
def test_printed_statistics_have_no_estimate_when_every_game_ended_alike(winners, paired, line):
    # Fishtest's regularized figures for [0, 0, 2] (Elo +1199.8, nElo +6944.9 +/- 177757.9)
    # say nothing about two games; the line must say n/a, as the Elo line of a sweep does.
    # [2, 0, 2]: sd 1/2 a game, so Elo +/- ~798 (logistic of 0.5 +/- 1.96 * 0.5 / 2, the
    # epsilon draw cell trims it to 796.0) and nElo +/- 347.4 * 1.96 / 2 = 340.4.
    from rich.console import Console

    from margo_gtp.match.referee_cli import print_match_summary
    from margo_gtp.match.stats import match_statistics, summarize_match

    records = _records(winners)
    summary = summarize_match(records, {"A": "a", "B": "b"})
    summary["statistics"] = match_statistics(records, paired)
    console = Console(record=True, width=200)
    print_match_summary(console, summary)
    assert line in console.export_text().splitlines()
    assert ("no_estimate" in summary["statistics"]) == ("n/a" in line)
