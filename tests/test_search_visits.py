"""scripts/search-visits: root visits a move of player specs on fixed mid-game positions."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "search-visits"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_each_spec_reports_its_visits_each_round() -> None:
    done = run("mcts:playouts=60,seed=1,early_stop=off", "mcts:playouts=30,seed=1,early_stop=off",
               "--positions", "2", "--rounds", "2", "--size", "7")
    assert done.returncode == 0, done.stderr
    line = re.compile(r"round (\d)  (\S+): ([\d,]+) root visits a move, \d+\.\d{3} s wall, load \d+\.\d\d")
    rows = [line.fullmatch(text).groups() for text in done.stdout.splitlines()]
    # a playout budget without early stop gives exactly that many simulations at the root
    assert rows == [("1", "mcts:playouts=60,seed=1,early_stop=off", "60"),
                    ("1", "mcts:playouts=30,seed=1,early_stop=off", "30"),
                    ("2", "mcts:playouts=60,seed=1,early_stop=off", "60"),
                    ("2", "mcts:playouts=30,seed=1,early_stop=off", "30")]


@pytest.mark.parametrize("args, message", [
    (["mcts:bogus=1"], "search-visits: error: unknown option for player 'mcts': 'bogus' (known: seconds, playouts, c, "
                       "rave, playout_moves, eval, policy, tactics, ladder, expand, prior_depth, prior_visits, "
                       "prior_temp, patterns, pattern_mix, pattern_weights, resign, resign_visits, resign_moves, "
                       "reuse, early_stop, threads, max_nodes, core, temperature, seed)"),
    (["random", "--positions", "0"], "search-visits: error: --positions must be 1..50, --rounds 1..20 and --size 2..19"),
    (["random", "--size", "40"], "search-visits: error: --positions must be 1..50, --rounds 1..20 and --size 2..19"),
    (["random", "--rounds", "x"], "search-visits: error: argument --rounds: invalid int value: 'x'"),
])
def test_bad_arguments_get_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = run(*args)
    assert (done.returncode, done.stderr.splitlines()[-1], done.stdout) == (2, message, "")
    assert "Traceback" not in done.stderr
