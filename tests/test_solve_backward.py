"""scripts/solve-backward (issue 38): one game's positions solved from its end backwards, each
judged move, the resume from its file, and one line for each bad option or file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("margo_gtp.players._solver", reason="the C solver is not built")

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "solve-backward"
GAME_2X2 = ["--size", "2", "--player", "mcts:playouts=50", "--seconds", "30"]
SECONDS = re.compile(r", \d+\.\d s")


def solve_backward(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=300)


def test_a_2x2_game_is_solved_back_to_the_empty_board_and_resumed_from_its_file(tmp_path: Path) -> None:
    out = tmp_path / "backward.json"
    run = solve_backward(*GAME_2X2, "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert run.stderr == "solve-backward: mcts:playouts=50 plays one 2x2 game (seed 1)\n"
    lines = [SECONDS.sub(", T s", line) for line in run.stdout.splitlines()]
    assert lines == [
        "2x2 game of mcts:playouts=50 (seed 1): 9 moves: A1:1 B2:1 A2:1 B1:1 A2:1 A1:1 A2:1 B1:1 A1:1",
        "ply 9 (0 before the end, 0 legal moves): Black to move gets -1, 3 nodes, T s; the game's end",
        "ply 8 (1 before the end, 2 legal moves): White to move gets 1, 109 nodes, T s; the game's move there: A1:1 keeps it",
        "ply 7 (2 before the end, 3 legal moves): Black to move gets -1, 112 nodes, T s; the game's move there: B1:1 keeps it",
        "ply 6 (3 before the end, 1 legal move): White to move gets 1, 103 nodes, T s; the game's move there: A2:1 keeps it",
        "ply 5 (4 before the end, 1 legal move): Black to move gets -1, 173 nodes, T s; the game's move there: A1:1 keeps it",
        "ply 4 (5 before the end, 2 legal moves): White to move gets 1, 162 nodes, T s; the game's move there: A2:1 keeps it",
        "ply 3 (6 before the end, 1 legal move): Black to move gets -1, 178 nodes, T s; the game's move there: B1:1 keeps it",
        "ply 2 (7 before the end, 2 legal moves): White to move gets 1, 167 nodes, T s; the game's move there: A2:1 keeps it",
        "ply 1 (8 before the end, 3 legal moves): Black to move gets -1, 189 nodes, T s; the game's move there: B2:1 keeps it",
        # the empty board: White's margin under perfect play is 2x2's value, W+1 (docs/solving.md)
        "ply 0 (9 before the end, 4 legal moves): White to move gets 1, 216 nodes, T s; the game's move there: A1:1 keeps it",
    ]
    state = json.loads(out.read_text())
    assert state["line"] == lines[0].split(": ")[-1].split()
    assert [record["ply"] for record in state["solved"]] == list(range(9, -1, -1))
    again = solve_backward(*GAME_2X2, "--out", str(out))   # all from the file: no game played, nothing solved
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout == run.stdout


def test_a_move_that_loses_balls_is_judged_and_an_unsettled_position_ends_the_run(tmp_path: Path) -> None:
    out = tmp_path / "backward.json"
    game = ["--size", "3", "--player", "mcts:playouts=300", "--chunk", "1000", "--out", str(out)]
    run = solve_backward(*game, "--seconds", "0.001")
    assert run.returncode == 0, run.stderr
    assert [SECONDS.sub(", T s", line) for line in run.stdout.splitlines()[1:]] == [
        "ply 17 (0 before the end, 0 legal moves): Black to move gets -6, 3 nodes, T s; the game's end",
        "ply 16 (1 before the end): not settled in 0.001 s (1008 nodes); stopped",
    ]
    assert solve_backward(*game, "--seconds", "0.001").stdout == run.stdout   # as far as that budget goes
    # a larger budget tries ply 16 again, and on; in chunks of 10^6 nodes each null-window test
    # that ends within one settles, and the first that does not stops the run (0.002 s are
    # gone by then): by nodes, not by the machine's speed
    more = solve_backward(*game[:4], "--chunk", "1000000", *game[6:], "--seconds", "0.002")
    lines = [re.sub(r", \d+ nodes, \d+\.\d s", ", N nodes, T s", line) for line in more.stdout.splitlines()]
    assert lines[2:] == [
        # W+6 at the end where W+7 was there to take; Black's reply cost it one more
        "ply 16 (1 before the end, 3 legal moves): White to move gets 7, N nodes, T s; the game's move there: C3:1 loses 1",
        "ply 15 (2 before the end, 2 legal moves): Black to move gets -6, N nodes, T s; the game's move there: C2:1 loses 1",
        "ply 14 (3 before the end, 2 legal moves): White to move gets 6, N nodes, T s; the game's move there: C1:1 keeps it",
        "ply 13 (4 before the end, 2 legal moves): Black to move gets -5, N nodes, T s; the game's move there: C3:1 loses 1",
        "ply 12 (5 before the end, 3 legal moves): White to move gets 5, N nodes, T s; the game's move there: B3:1 keeps it",
        "ply 11 (6 before the end, 2 legal moves): Black to move gets -5, N nodes, T s; the game's move there: A3:1 keeps it",
        "ply 10 (7 before the end, 3 legal moves): White to move gets 5, N nodes, T s; the game's move there: C3:1 keeps it",
        "ply 9 (8 before the end, 3 legal moves): Black to move gets -5, N nodes, T s; the game's move there: A1:2 keeps it",
        "ply 8 (9 before the end, 3 legal moves): White to move gets 5, N nodes, T s; the game's move there: A1:1 keeps it",
        "ply 7 (10 before the end): not settled in 0.002 s (1000001 nodes); stopped",   # its margin: 2.7e6 nodes
    ]


def test_result_only_on_3x3_proves_the_empty_board_a_white_win_in_thousands_of_nodes(tmp_path: Path) -> None:
    """--result: two null-window tests at most, win or not, draw or not. The exact margins of
    the same game took 2.7e6 nodes 10 plies before its end (the test above)."""
    run = solve_backward("--size", "3", "--player", "mcts:playouts=300", "--result", "--seconds", "30",
                         "--out", str(tmp_path / "result.json"))
    assert run.returncode == 0, run.stderr
    lines = [re.sub(r", \d+ nodes, \d+\.\d s", ", N nodes, T s", line) for line in run.stdout.splitlines()]
    assert len(lines) == 19
    assert lines[1] == "ply 17 (0 before the end, 0 legal moves): Black to move loses, N nodes, T s; the game's end"
    assert lines[2] == ("ply 16 (1 before the end, 3 legal moves): White to move wins, N nodes, T s; "
                        "the game's move there: C3:1 keeps it")   # it lost a ball, not the win
    # 3x3 is a White win (W+5, docs/solving.md): every Black position loses, every White one wins
    assert all(("White to move wins" if ply % 2 == 0 else "Black to move loses") in line
               for ply, line in zip(range(17, -1, -1), lines[1:]))
    nodes = [int(re.search(r", (\d+) nodes", line).group(1)) for line in run.stdout.splitlines()[1:]]
    assert nodes[-1] < 100_000, nodes   # the empty board: 2,394 nodes
    other = solve_backward("--size", "3", "--player", "mcts:playouts=300", "--out", str(tmp_path / "result.json"))
    assert other.returncode == 2 and "(size, player, seed and --result must match)" in other.stderr


def test_keep_going_notes_an_unsettled_position_and_goes_on_to_the_one_before(tmp_path: Path) -> None:
    run = solve_backward("--size", "3", "--player", "mcts:playouts=300", "--result", "--seconds", "0.001",
                         "--chunk", "1000", "--keep-going", "--out", str(tmp_path / "kept.json"))
    assert run.returncode == 0, run.stderr
    lines = [SECONDS.sub(", T s", line) for line in run.stdout.splitlines()]
    assert lines[-4:] == [   # ply 3 takes 601 nodes, ply 2 more than one chunk of 1,000
        "ply 3 (14 before the end, 6 legal moves): Black to move loses, 601 nodes, T s; "
        "the game's move there: C2:1 keeps it",
        "ply 2 (15 before the end): not settled in 0.001 s (1001 nodes)",
        "ply 1 (16 before the end): not settled in 0.001 s (1001 nodes)",
        "ply 0 (17 before the end): not settled in 0.001 s (1001 nodes)",
    ]
    assert len(lines) == 19   # every position, to the empty board
    # a run stopped at ply 2 without --keep-going goes on past it with it, to the same end
    stopped = tmp_path / "stopped.json"
    first = ["--size", "3", "--player", "mcts:playouts=300", "--result", "--seconds", "0.001", "--chunk", "1000",
             "--out", str(stopped)]
    assert solve_backward(*first).stdout.splitlines()[-1] == "ply 2 (15 before the end): not settled in 0.001 s (1001 nodes); stopped"
    assert solve_backward(*first, "--keep-going").stdout == run.stdout


def test_a_second_run_on_one_file_is_refused_while_the_first_holds_it(tmp_path: Path) -> None:
    import fcntl

    out = tmp_path / "backward.json"
    with open(tmp_path / "backward.json.lock", "w") as held:   # this test is the first run
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        run = solve_backward(*GAME_2X2, "--out", str(out))
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == f"solve-backward: --out {out} is in use by another run; wait for it or use another --out\n"
    assert not out.exists()
    assert solve_backward(*GAME_2X2, "--out", str(out)).returncode == 0   # the lock went with its holder


@pytest.mark.parametrize("arguments, line", [
    (["--size", "6"], "solve-backward: --size 6: the solver takes 2..5"),
    (["--seconds", "0"], "solve-backward: --seconds 0.0: more than 0"),
    (["--table-bits", "31"], "solve-backward: --table-bits 31: 10..30"),
    (["--chunk", "10"], "solve-backward: --chunk 10: at least 1000 nodes"),
    (["--player", "nobody"], "solve-backward: unknown player 'nobody' in spec 'nobody' (known: "),
])
def test_bad_options_get_one_line(arguments: list[str], line: str) -> None:
    run = solve_backward(*arguments)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(line) and run.stderr.count("\n") == 1, run.stderr


def test_a_file_of_another_game_damaged_or_not_a_file_is_refused_untouched(tmp_path: Path) -> None:
    out = tmp_path / "backward.json"
    assert solve_backward(*GAME_2X2, "--out", str(out)).returncode == 0
    before = out.read_bytes()
    other = solve_backward(*GAME_2X2, "--seed", "2", "--out", str(out))
    assert (other.returncode, other.stdout) == (2, "")
    assert other.stderr == (f"solve-backward: cannot resume: {out}: not this command's game "
                            "(size, player, seed and --result must match)\n")
    assert out.read_bytes() == before
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    run = solve_backward(*GAME_2X2, "--out", str(garbage))
    assert run.returncode == 2 and run.stderr.startswith(f"solve-backward: cannot resume: {garbage}: not JSON (")
    assert garbage.read_text() == "{not json"
    state = json.loads(before)
    for damage, words in [(lambda state: state["solved"].__setitem__(3, {}), "solved position 4 is not ply 6"),
                          (lambda state: state["solved"][0].__setitem__("margin", "W+1"), "solved position 1 is not ply 9"),
                          (lambda state: state["solved"].pop(2), "solved position 3 is not ply 7"),
                          (lambda state: state.__setitem__("unsettled", {"ply": 0}), "the unsettled position"),
                          (lambda state: state["line"].__setitem__(2, "Z9:1"), "move 3, 'Z9:1', is not a legal move there"),
                          (lambda state: state["line"].__setitem__(2, "A1:1"), "move 3, 'A1:1', is not a legal move there"),
                          (lambda state: state["line"].pop(), "the game does not end after its 8 moves")]:
        damaged = json.loads(before)
        damage(damaged)
        out.write_text(json.dumps(damaged))
        run = solve_backward(*GAME_2X2, "--out", str(out))
        assert (run.returncode, run.stdout) == (2, "")
        assert run.stderr.startswith(f"solve-backward: cannot resume: {out}: damaged ({words}"), run.stderr
    assert state["solved"][0]["ply"] == 9
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    run = solve_backward(*GAME_2X2, "--out", str(fifo))
    assert (run.returncode, run.stderr) == (2, f"solve-backward: --out {fifo}: is a named pipe (FIFO), not a regular file\n")
    run = solve_backward(*GAME_2X2, "--out", str(tmp_path))
    assert (run.returncode, run.stderr) == (2, f"solve-backward: --out {tmp_path}: Is a directory\n")
