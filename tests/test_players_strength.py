"""scripts/strength: alternating colours, progress lines, the --out folder (the referee's
results.jsonl and summary.json), the summary with its Wilson interval and Elo difference."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "strength"


def load_script():
    loader = importlib.machinery.SourceFileLoader("strength_script", str(SCRIPT))
    spec = importlib.util.spec_from_loader("strength_script", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_summary_figures_and_text() -> None:
    strength = load_script()
    s = strength.summary("a", "b", 8, 0, 2)
    assert s["games"] == 10 and s["score"] == 0.8
    assert s["wilson95"] == pytest.approx([0.4902, 0.9433], abs=1e-4)
    assert strength.format_summary(s) == (
        "a vs b: W/D/L 8/0/2 of 10; score 0.800 (Wilson 95% 0.490-0.943); Elo +241 [+36, +inf]")
    assert strength.format_summary(strength.summary("a", "b", 3, 0, 0)).endswith("Elo n/a (no losses)")
    assert strength.format_summary(strength.summary("a", "b", 0, 0, 3)).endswith("Elo n/a (no wins)")
    assert strength.format_summary(strength.summary("a", "b", 2, 0, 8)).endswith("Elo -241 [-inf, -36]")


@pytest.mark.process
def test_runs_games_with_alternating_colours_and_writes_them(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "match"
    out.parent.mkdir()
    result = subprocess.run([sys.executable, str(SCRIPT), "heuristic", "random", "--games", "3", "--size", "4",
                             "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["game 1/3", "game 2/3", "game 3/3"]
    assert [line.split()[4] for line in lines[:3]] == ["W", "B", "W"]  # A's colour alternates
    assert lines[3].startswith("heuristic vs random: W/D/L ")
    games = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(g["game"], g["white"], g["black"]) for g in games] == [
        (1, "heuristic", "random"), (2, "random", "heuristic"), (3, "heuristic", "random")]
    assert json.loads((out / "match.json").read_text()) == {
        "program": "scripts/strength", "engines": {"A": "heuristic", "B": "random"}, "rules": {"size": "4"},
        "seed": 1, "max_moves": 3000}
    summary = json.loads((out / "summary.json").read_text())["strength"]
    assert summary["wins"] + summary["draws"] + summary["losses"] == 3
    assert summary["wins"] == sum(g["winner"] == "A" for g in games)


@pytest.mark.process
def test_parallel_games_are_the_games_of_a_serial_run(tmp_path: Path) -> None:
    """--parallel changes only the order games finish in: colours and seeds come from the
    game number, so a playout-budget run plays the very same games."""
    runs = {}
    for parallel in ("1", "2"):
        out = tmp_path / f"run{parallel}"
        result = subprocess.run([sys.executable, str(SCRIPT), "mcts:playouts=20", "heuristic", "--games", "4", "--size", "4",
                                 "--seed", "3", "--parallel", parallel, "--out", str(out)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        runs[parallel] = sorted(records, key=lambda record: record["game"])
        summary_line = result.stdout.splitlines()[4]
        assert summary_line.startswith("mcts:playouts=20 vs heuristic: W/D/L ")
        if parallel == "2":  # finishing order varies; the count of finished games does not
            heads = [line.split(":")[0] for line in result.stdout.splitlines()[:4]]
            assert [head.split(" (")[1] for head in heads] == ["1 done)", "2 done)", "3 done)", "4 done)"]
            assert sorted(head.split(" (")[0] for head in heads) == ["game 1/4", "game 2/4", "game 3/4", "game 4/4"]
    def played(record: dict) -> dict:  # without the wall-clock figures
        moves = [{k: v for k, v in move.items() if k != "seconds"} for move in record["moves"]]
        return {**{k: v for k, v in record.items() if k not in ("started", "duration")}, "moves": moves}

    assert [played(r) for r in runs["1"]] == [played(r) for r in runs["2"]]
    assert [r["game"] for r in runs["1"]] == [1, 2, 3, 4]


@pytest.mark.parametrize("arguments, message", [
    (["--games", "0"], "strength: error: argument --games: must be at least 1: '0'"),
    (["--games", "x"], "strength: error: argument --games: not an integer: 'x'"),
    (["--size", "1"], "strength: error: argument --size: must be between 2 and 19: '1'"),
    (["--parallel", "65"], "strength: error: argument --parallel: must be between 1 and 64: '65'"),
    (["--rule", "komi"], "strength: error: --rule takes K=V: 'komi'"),
    (["--rule", "komi=1", "--rule", "komi=2"], "strength: error: --rule komi given twice"),
    (["--rule", "ko_rule=bad"],
     "strength: error: invalid value for ko_rule: 'bad' (allowed situational, positional, simple, none)"),
    (["--out", "/nonexistent-dir/run.jsonl"], "strength: error: --out: no such directory: '/nonexistent-dir'"),
    (["--size", "3", "--rule", "size=5"], "strength: error: --size 3 contradicts the rule size=5: give one of them"),
])
def test_bad_command_lines_are_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "random", "random", *arguments], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == message
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_bad_player_spec_is_one_line_and_exit_2() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "random", "nope"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == \
        "strength: error: unknown player 'nope' in spec 'nope' (known: heuristic, mcts, net, perfect, random, strongest)"
