"""scripts/oracle (issue 38): a player held to the perfect player on a solved board, with its
report line by line, and its refusals of bad options in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("margo_gtp.players._solver", reason="the C solver is not built")

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "oracle"


def oracle(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=300)


def test_the_oracle_counts_errors_on_2x2():
    run = oracle("--size", "2", "--games", "2", "perfect", "random", "mcts:playouts=50")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "2x2: White's margin under perfect play 1; 2 games a spec against perfect",
        # perfect against itself: no error, and the game from White's side (the winning
        # one: W+1) is won
        "perfect: moves 15, margin errors 0 (0.0%), result errors 0 (0.0%), won 1 of 1 from the winning side",
        "random: moves 4, margin errors 2 (50.0%), result errors 1 (25.0%), won 0 of 1 from the winning side",
        "mcts:playouts=50: moves 12, margin errors 0 (0.0%), result errors 0 (0.0%), won 1 of 1 from the winning side",
    ]
    # each game's progress on stderr, the report alone on stdout
    progress = run.stderr.splitlines()
    assert len(progress) == 6, run.stderr
    assert progress[2].startswith("oracle: random: game 1 of 2 as White: White's margin -3, 3 moves, 1 margin errors, ")
    assert progress[3].startswith("oracle: random: game 2 of 2 as Black: White's margin +2, 1 moves, 1 margin errors, ")


def test_the_oracle_judges_results_alone_with_result():
    """--result: no margins, only the result of each position (win, draw or loss), so weak
    players' 3x3 games, which leave the solve's lines, are judged in seconds."""
    run = oracle("--size", "3", "--games", "4", "--result", "random", "mcts:playouts=25")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "3x3: White wins under perfect play; 4 games a spec against perfect",
        "random: moves 23, result errors 2 (8.7%), won 0 of 2 from the winning side",
        "mcts:playouts=25: moves 25, result errors 1 (4.0%), won 1 of 2 from the winning side",
    ]
    progress = run.stderr.splitlines()
    assert progress[0].startswith("oracle: random: game 1 of 4 as White: White's margin -4, 5 moves, 1 result errors, ")
    assert progress[4].startswith("oracle: mcts:playouts=25: game 1 of 4 as White: White's margin -7, 7 moves, 1 result errors, ")


def test_the_oracle_refuses_bad_options_in_one_line():
    for arguments, line in [
        (("--size", "5"), "oracle: --size 5: the sizes with a shipped proof or book are 2, 3, 4"),
        (("--size", "4", "--judge-nodes", "10"), "oracle: --judge-nodes 10: at least 1000"),
        (("--size", "2", "--games", "0"), "oracle: --games 0: 1..1000"),
        (("--size", "3", "--table-bits", "31"), "oracle: --table-bits 31: 10..30"),
        (("--size", "2", "--table-bits", "9"), "oracle: --table-bits 9: 10..30"),
        (("--size", "2", "nobody"), "oracle: unknown player 'nobody' in spec 'nobody' (known: "),
    ]:
        run = oracle(*arguments)
        assert run.returncode == 2
        assert run.stdout == ""
        assert run.stderr.startswith(line) and run.stderr.count("\n") == 1
