"""scripts/bench's contract: JSON keys on stdout, progress on stderr, the positions it times.

No figure is checked here (speed is measured by the bench, never asserted in tests).
"""

import json
import os
import subprocess
import sys

import pytest

from margo_gtp.speed_figures import playout_figures
from margo_gtp.engine import core_name
from margo_gtp.engine.positions import midgame_positions


def test_midgame_positions_have_stacks_and_zombies():
    positions = midgame_positions()
    assert len(positions) == 5
    for board in positions:
        assert len(board.history) >= 150
        assert any(point.level >= 2 for point in board.balls())
        assert board.zombies()
        assert board.legal_moves()


def test_playout_figures_keys():
    figures = playout_figures(4, repeats=1, min_seconds=0.0)
    assert set(figures) == {"random_playouts_per_s_4x4", "random_moves_per_s_4x4",
                            "mean_playout_length_4x4", "playouts_capped_4x4"}
    assert figures["mean_playout_length_4x4"] > 0 and figures["playouts_capped_4x4"] == 0


def test_json_on_stdout_progress_on_stderr():
    done = subprocess.run([sys.executable, "-m", "margo_gtp.speed_figures", "--only", "gtp", "--json",
                           "--gtp-commands", "20"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for command in ("name", "play", "margo_legal_moves"):
        assert 0 < result[f"gtp_{command}_p50_ms"] <= result[f"gtp_{command}_p95_ms"]
    assert {"python", "git_sha", "load_average"} <= set(result)
    assert result["core"] == core_name()  # the core in use is named (MARGO_CORE or the default)
    assert "GTP round trips over a pipe: done" in done.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--only", "nonsense"], "Invalid value for '--only': unknown section 'nonsense' (choose from core, gtp, mcts, net, web)"),
        (["--seconds", "-1"], "Invalid value for '--seconds': must be a positive, finite number of seconds: -1.0"),
        (["--seconds", "inf"], "Invalid value for '--seconds': must be a positive, finite number of seconds: inf"),
        (["--gtp-commands", "0"], "Invalid value for '--gtp-commands'"),
    ],
)
def test_bad_options_are_refused_before_measuring(option, message):
    done = subprocess.run([sys.executable, "-m", "margo_gtp.speed_figures", "--json", *option], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert (done.returncode, done.stdout) == (2, "")
    assert message in done.stderr and "Traceback" not in done.stderr
