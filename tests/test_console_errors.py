"""Every console script reports a bad command line the same way: one line on stderr,
``PROGRAM: MESSAGE (PROGRAM --help lists the options)``, exit code 2, nothing on stdout
(margo_gtp.console.run_app; typer alone would draw a boxed panel of several lines)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    ("program", "args", "message"),
    [
        ("margo-gtp", ["--size", "abc"], "Invalid value for '--size': Input should be a valid integer, unable to parse string as an integer"),
        ("margo-gtp", ["--threads", "3"], "No such option: --threads"),
        ("margo-gtp", ["--rule", "swap=on", "--rule", "swap=off"], "--rule swap given twice"),
        ("margo-gtp", ["--rule", "swap"], "--rule takes K=V: 'swap'"),
        ("margo-match", ["a", "b", "--games", "0"], "Invalid value for '--games': Input should be greater than or equal to 1"),
        ("margo-match", ["a"], "Missing argument 'ENGINE_B'."),
        ("margo-tournament", [], "Missing argument 'CONFIG.toml'."),
        ("margo-web", ["--port", "70000"], "Invalid value for '--port': Input should be less than or equal to 65535"),
        ("margo-review", ["game.sgf", "--visits", "0"], "Invalid value: --visits must be between 1 and 200000: '0'"),
        ("margo-review", ["game.sgf", "--visits", "1_0"], "Invalid value: --visits must be an integer: '1_0'"),
        ("margo-review", ["game.sgf", "--seconds", "nan"], "Invalid value: --seconds must be between 0.01 and 600: 'nan'"),
        ("margo-review", ["game.sgf", "--visits", "5", "--seconds", "1"], "Invalid value for --seconds: give --visits or --seconds, not both"),
        ("margo-review", [], "Missing argument 'GAME.sgf'."),
        ("margo-review", ["game.sgf", "--engine", "margo-gtp", "--player", "net"], "Invalid value for --player: give --engine or --player, not both"),
        ("margo-analysis", ["--threads", "0"], "Invalid value: --threads must be between 1 and 256: '0'"),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(program: str, args: list[str], message: str) -> None:
    done = subprocess.run([str(BIN / program), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"{program}: {message} ({program} --help lists the options)\n"


def test_a_refused_player_points_to_the_list_of_players() -> None:
    """A bad --player or --level is refused as above, but its line points to the place
    that lists what may be given (margo-gtp --list-players), not to --help."""
    done = subprocess.run([str(BIN / "margo-gtp"), "--player", "mcts:prior_temp=0"], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("margo-gtp: Invalid value for --player: player option prior_temp must be a finite number > 0: '0' "
                           "(margo-gtp --list-players lists the players, their options and the levels)\n")


@pytest.mark.parametrize(("spec", "message"), [
    ("random", "player 'random' has no search to analyse with (mcts, net and strongest have)"),
    ("net:weights=missing.onnx", "player 'net': missing.onnx: cannot read weights: No such file or directory"),
])
@pytest.mark.parametrize("program", ["margo-analysis", "margo-review"])
def test_a_player_without_a_search_is_refused_in_one_line(program: str, spec: str, message: str,
                                                          tmp_path: Path) -> None:
    """--player of margo-analysis and margo-review: built once before any query or game is
    read, so a bad spec or weights file is one line (pointing to the list of players),
    exit 2, nothing searched or written."""
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[77]FF[4]SZ[3];W[bb])\n")
    args = ["--player", spec] if program == "margo-analysis" else [str(game), "--player", spec]
    done = subprocess.run([str(BIN / program), *args], capture_output=True, text=True,
                          timeout=60, input='{"id": "a", "moves": [], "boardSize": 3}\n')
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"{program}: Invalid value for --player: {message} "
                           "(margo-gtp --list-players lists the players, their options and the levels)\n")
    assert [path.name for path in tmp_path.iterdir()] == ["game.sgf"]


def test_help_and_version_still_exit_0() -> None:
    for program in ("margo-gtp", "margo-match", "margo-tournament", "margo-web"):
        for flag in ("--help", "--version"):
            done = subprocess.run([str(BIN / program), flag], capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, (program, flag, done.stderr)
            assert done.stdout.strip(), (program, flag)


@pytest.mark.parametrize("program", ["margo-gtp", "margo-match", "margo-tournament", "margo-web", "margo-review", "margo-analysis"])
def test_help_through_a_pipe_is_plain(program: str) -> None:
    """Through a pipe rich would draw its boxes for 80 columns and squeeze the descriptions;
    run_app gives every typer console script click's plain help there."""
    env = {key: value for key, value in os.environ.items() if key != "TERMINAL_WIDTH"}
    done = subprocess.run([str(BIN / program), "--help"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: {program} [OPTIONS]")
    assert not set("╭│╰─") & set(done.stdout), done.stdout
