"""scripts/strength: alternating colours, progress lines, the JSON lines file, the summary
with its Wilson interval and Elo difference."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import subprocess
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
        "a vs b: W/D/L 8/0/2 of 10; score 0.800 (Wilson 95% 0.490-0.943); Elo +241 [+36, inf]")
    assert strength.format_summary(strength.summary("a", "b", 3, 0, 0)).endswith("Elo inf [inf, inf]")


@pytest.mark.process
def test_runs_games_with_alternating_colours_and_writes_them(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "match.jsonl"
    out.parent.mkdir()
    result = subprocess.run([str(SCRIPT), "heuristic", "random", "--games", "3", "--size", "4", "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["game 1/3", "game 2/3", "game 3/3"]
    assert [line.split()[4] for line in lines[:3]] == ["W", "B", "W"]  # A's colour alternates
    assert lines[3].startswith("heuristic vs random: W/D/L ")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert "start" in records[0] and "summary" in records[-1]
    games = records[1:-1]
    assert [(g["white"], g["black"]) for g in games] == [("heuristic", "random"), ("random", "heuristic"),
                                                         ("heuristic", "random")]
    summary = records[-1]["summary"]
    assert summary["wins"] + summary["draws"] + summary["losses"] == 3
    assert summary["wins"] == sum(g["a_result"] == "W" for g in games)
