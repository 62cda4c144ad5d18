"""scripts/tune (SPSA self-play: reproducible, resumable) and scripts/ladder (a real
tournament on a tiny board, written into a page with a PNG plot, hand-written parts kept)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

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
    assert 'command = "' in config and "--player mcts:seconds=0.01" in config
