"""The exact solver (issue 38): its values against the independent brute force, the proof
writer against the independent checker, and the checker's refusals, word for word."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("margo_gtp.players._solver", reason="the C solver is not built")

from margo_gtp.engine.types import Move  # noqa: E402
from margo_gtp.players.brute_force import brute_force_value  # noqa: E402
from margo_gtp.players.proof import proof_text  # noqa: E402
from margo_gtp.players.proof_check import ProofCheckError, check_proof, check_proof_text  # noqa: E402
from margo_gtp.players.solver import ExactSolver  # noqa: E402
from margo_gtp.vertex import parse_vertex  # noqa: E402

SHIPPED = Path(__file__).resolve().parent.parent / "margo_gtp" / "players" / "data" / "proofs"


def line_of(size: int, vertices: str) -> list[Move]:
    return [Move(parse_vertex(v, size)) for v in vertices.split()]


def test_2x2_value_from_the_empty_board():
    solver = ExactSolver(2)
    assert solver.exact([]) == (1, 0)  # White wins by one ball, starting at A1
    assert brute_force_value(2) == (1, 521)


# Lines of the 2x2 board through captures and ko fights, and late lines of the 3x3 board
# (seeded random games cut short; earlier 3x3 positions are beyond the brute force: their
# ko fights run to hundreds of plies).
LINES = [
    (2, "A1"), (2, "A1 B2"), (2, "A1 B2 B1"), (2, "A1 B2 B1 A2"), (2, "A1 B2 B1 A2 A1"),
    (2, "B2 A1 A2 B1"), (2, "A1 B1 A2"),
    (3, "B2:1 C2:1 A3:1 B1:1 B3:1 C1:1 B1:2 A2:1 A2:2 A1:1 A1:2 C3:1 B2:1 B1:2 A3:1 B3:1 A3:1 A2:1 C3:1 B1:1 "
        "C1:1 B3:1"),
    (3, "B3:1 A1:1 B2:1 B1:1 A2:1 A1:2 C1:1 C3:1 A3:1"),
    (3, "C2:1 C3:1 A3:1 B3:1 B2:1 B3:1 C1:1 A1:1 A2:1"),
    (3, "B3:1 A2:1 A1:1 C3:1 A3:1 C1:1 B2:1 B1:1 C2:1 C1:1"),
    (3, "B1:1 A2:1 C1:1 C2:1 C3:1 B3:1 B2:1 B1:2 C3:1 A1:1 A3:1"),
]


@pytest.mark.parametrize("size, vertices", LINES)
def test_the_solver_agrees_with_the_brute_force(size, vertices):
    moves = line_of(size, vertices)
    solver = ExactSolver(size)
    margin, best = solver.exact([solver.code_of(m.point) for m in moves])
    assert margin == brute_force_value(size, moves)[0]


def random_lines(size: int, games: int, seed: int) -> list[list[Move]]:
    """Every prefix of `games` seeded random games (to their end: the side to move has no move)."""
    import random

    from margo_gtp.engine.python_core import PythonCore
    from margo_gtp.engine.rules import Rules

    draw, lines = random.Random(seed), []
    for _ in range(games):
        core, line = PythonCore(Rules(size=size)), []
        while legal := core.legal_moves():
            lines.append(list(line))
            move = draw.choice(legal)
            core.push(move)
            line.append(move)
        lines.append(line)
    return lines


def test_one_table_across_many_histories_agrees_with_the_brute_force():
    # The table shares a result between histories of one position when no earlier position
    # could be one its subtree asked about (solver.c, "Sharing results between histories").
    # One solver answers every prefix of 40 random 2x2 games, so its table holds results of
    # other histories (a table keyed by the position alone fails this: A1 B2 B1 A2 A1 is the
    # line where the first design gave -1 for Black, not +3).
    solver = ExactSolver(2)
    lines = random_lines(2, 40, seed=7)
    assert len(lines) > 300 and max(map(len, lines)) > 15   # ko fights: captures and refills
    for line in lines + [line_of(2, "A1 B2 B1 A2 A1")]:
        margin, _ = solver.exact([solver.code_of(move.point) for move in line])
        assert margin == brute_force_value(2, line)[0], line


def test_the_shipped_2x2_proof_checks_and_is_what_the_writer_writes():
    path = SHIPPED / "proof-2x2.txt"
    header = check_proof(path)
    assert header == {"format": "margo-proof 1", "rules": "default", "size": "2", "value": "W+1", "nodes": "275"}
    assert path.read_text() == proof_text(2)


def refusal(text: str) -> str:
    with pytest.raises(ProofCheckError) as caught:
        check_proof_text(text, "p.txt")
    return str(caught.value)


def shipped_lines() -> list[str]:
    return (SHIPPED / "proof-2x2.txt").read_text().split("\n")


def with_line(number: int, text: str) -> str:
    lines = shipped_lines()
    lines[number - 1] = text
    return "\n".join(lines)


def test_a_damaged_node_is_named_by_its_line():
    assert refusal(with_line(8, "2 A1:1")) == "p.txt: line 8: A1:1 is not a legal move here"
    assert refusal(with_line(8, "2 Z9")) == "p.txt: line 8: vertex is off board: 'Z9' (board size 2)"
    assert refusal(with_line(8, "4 B1:1")) == "p.txt: line 8: depth 4 under a node of depth 1"
    assert refusal(with_line(8, "B1:1")) == "p.txt: line 8: not a node 'DEPTH VERTEX': 'B1:1'"


def test_a_missing_reply_and_a_wrong_leaf_are_refused():
    lines = shipped_lines()
    assert lines[6:8] == ["1 A1:1", "2 B1:1"]
    dropped = "\n".join(lines[:7] + lines[9:])  # Black's reply B1 and White's answer gone
    assert refusal(dropped) == "p.txt: line 7: 1 of 3 replies missing (first: B1:1)"
    wrong = "\n".join(lines).replace("value: W+1", "value: W+2").replace("at-least 1", "at-least 2").replace(
        "at-most 1", "at-most 2")
    assert refusal(wrong) == "p.txt: line 27: the game ends with the prover's margin 1, less than 2"


def test_a_foreign_or_broken_header_is_refused():
    text = "\n".join(shipped_lines())
    assert refusal(text.replace("rules: default", "rules: ko_rule=simple")) == (
        "p.txt: proof for rules 'ko_rule=simple'; this checker checks the default rules only")
    assert refusal(text.replace("margo-proof 1", "margo-proof 3")) == (
        "p.txt: format 'margo-proof 3', this checker reads 'margo-proof 1' and 'margo-proof 2'")
    # a tree proof that says it is compact goes to the compact checker, which refuses its header
    assert refusal(text.replace("margo-proof 1", "margo-proof 2")) == (
        "p.txt: line 5: not a proof header line: 'nodes: 275'")
    assert refusal(text.replace("nodes: 275", "nodes: 274")) == "p.txt: the header says 274 nodes, the trees hold 275"
    assert refusal(text.replace("\nend\n", "\n")) == "p.txt: truncated: no 'end' line"
    assert refusal("hello\n") == "p.txt: line 1: not a proof header line: 'hello'"


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(ProofCheckError) as caught:
        check_proof(tmp_path / "none.txt")
    assert str(caught.value).startswith(f"{tmp_path / 'none.txt'}: ")


def run_solve_script(*arguments: str, patch: str = ""):
    """``scripts/solve`` in a child process; ``patch``, Python run first in that process with this
    checkout importable, replaces what a test needs to fail mid-run (the script runs by runpy then)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    script = root / "scripts" / "solve"
    if not patch:
        return subprocess.run([sys.executable, str(script), *arguments], capture_output=True, text=True, timeout=120)
    program = (f"import runpy, sys\nsys.path.insert(0, {str(root)!r})\n{patch}\n"
               f"sys.argv = ['scripts/solve', *{list(arguments)!r}]\n"
               f"runpy.run_path({str(script)!r}, run_name='__main__')\n")
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)


def test_the_solve_script_checkpoints_resumes_and_refuses_another_size(tmp_path):
    import json

    out = tmp_path / "run"
    first = run_solve_script("--size", "2", "--out", str(out), "--proof", str(tmp_path / "p.txt"))
    assert first.returncode == 0, first.stderr
    assert "2x2: W+1 (White's margin 1) in 211 nodes" in first.stdout
    assert f"{tmp_path / 'p.txt'}: checked, 34 rules, " in first.stdout  # the compact proof
    state = json.loads((out / "state.json").read_text())
    assert (state["size"], state["lower"], state["upper"]) == (2, 1, 1)
    again = run_solve_script("--size", "2", "--out", str(out))
    assert again.stdout.startswith(f"resumed {out}: ")
    assert "White's margin in [1, 1]" in again.stdout.splitlines()[0]
    other = run_solve_script("--size", "3", "--out", str(out))
    assert (other.returncode, other.stderr) == (2, f"solve: {out / 'state.json'}: size 2, this run has 3\n")


def test_the_solve_script_says_which_test_settled_what_and_at_which_horizon(tmp_path):
    # a long run (4x4, docs/solving.md) is read from these lines: each MTD(f) test's verdict with
    # its horizon and nodes, and each chunk's test, horizon and table fill
    done = run_solve_script("--size", "2", "--out", str(tmp_path / "run"), "--chunk", "1000")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    verdicts = [line.rsplit(", ", 1)[0] for line in lines if line.startswith("test ")]
    assert verdicts == ["test White's margin >= 0: proven: White's margin >= 1, at horizon 12, 48 nodes",
                        "test White's margin >= 2: refuted: White's margin <= 1, at horizon 27, 211 nodes"]
    chunks = [line.split("  White's")[0] for line in lines if line.startswith("nodes ")]
    assert [chunk.split("  ", 2)[2] for chunk in chunks] == [
        "test >= 0  horizon 12  deepest 9  table 16 (0.4%)", "test >= 2  horizon 27  deepest 24  table 39 (1.0%)"]


def test_the_solve_script_with_result_stops_once_the_winner_is_known(tmp_path):
    # 3x3 is W+5; "White's margin >= 0?" comes back ">= 1" (fail-soft), which is the result,
    # so --result stops there, before the tests that pin the margin (5.4e7 nodes more)
    import json

    out = tmp_path / "run"
    done = run_solve_script("--size", "3", "--out", str(out), "--result", "--chunk", "1000")
    assert done.returncode == 0, done.stderr
    lines = [line.rsplit(" in ", 1)[0] for line in done.stdout.splitlines() if not line.startswith("nodes ")]
    lines = [line.rsplit(", ", 1)[0] if line.startswith("test ") else line for line in lines]   # no seconds
    assert lines == ["test White's margin >= 0: proven: White's margin >= 1, at horizon 12, 1848 nodes",
                     "3x3: White wins (White's margin in [1, 100])"]
    state = json.loads((out / "state.json").read_text())
    assert (state["lower"], state["upper"], state["test"]) == (1, 100, None)
    refused = run_solve_script("--size", "3", "--out", str(out), "--result", "--proof", str(tmp_path / "p.txt"))
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        2, "", "solve: --proof writes both strategies of the exact value; --result stops before it is known\n")


def test_a_resumed_solve_goes_on_in_the_round_its_checkpoint_had_reached(tmp_path):
    # 3x3 proves White >= 5 by 3,531 nodes; the test ">= 6" is in its round at 27 plies by
    # 20,702. Stopped there, the run's state names that round, and the resumed run's first
    # chunk is in it (not back at 8 plies, which on 4x4 cost a chunk of re-searching).
    import json
    import re

    out = tmp_path / "run"
    stop_at = ("from margo_gtp.players import solver\n"
               "value = solver.ExactSolver.value\n"
               "def stopping(self, line, alpha, beta, first_horizon=0):\n"
               "    self.stop = lambda: self.nodes >= {}\n"
               "    return value(self, line, alpha, beta, first_horizon)\n"
               "solver.ExactSolver.value = stopping\n")
    first = run_solve_script("--size", "3", "--out", str(out), "--chunk", "1000", patch=stop_at.format(20_000))
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"stopped after 20548 nodes, \d+ s: White's margin in \[5, 100\]; the same command resumes",
                        first.stdout.splitlines()[-1])
    state = json.loads((out / "state.json").read_text())
    assert (state["nodes"], state["lower"], state["upper"], state["test"], state["horizon"]) == (20548, 5, 100, 6, 27)
    again = run_solve_script("--size", "3", "--out", str(out), "--chunk", "1000", patch=stop_at.format(1_000))
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    assert re.fullmatch(rf"resumed {re.escape(str(out))}: 20548 nodes, \d+ s, White's margin in \[5, 100\], "
                        r"test >= 6 at horizon 27", lines[0])
    assert lines[1].startswith("nodes 21549  ") and "  test >= 6  horizon 27  deepest 27  " in lines[1]


def test_the_solve_script_refuses_a_proof_path_that_is_a_pipe_before_it_solves(tmp_path):
    # the proof is renamed over its path, which would replace a pipe or a device (as root,
    # /dev/zero itself) with a regular file: refused in one line, nothing written
    import os

    fifo = tmp_path / "proof.fifo"
    os.mkfifo(fifo)
    refused = run_solve_script("--size", "2", "--out", str(tmp_path / "run"), "--proof", str(fifo))
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"solve: --proof {fifo}: is a named pipe (FIFO), not a regular file\n"
    assert not (tmp_path / "run").exists() and os.listdir(tmp_path) == ["proof.fifo"]


def test_two_solves_on_one_folder_the_second_is_refused(tmp_path):
    """The folder's lock (margo_gtp/runlock.py, as margo-match holds it): a second solve would
    write its table and state over the first's."""
    from margo_gtp.runlock import lock_folder

    out = tmp_path / "s3"
    with lock_folder(out):   # this test process is the first run
        run = run_solve_script("--size", "3", "--out", str(out), "--seconds", "1")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f"solve: {out} is in use by another run: pid {os.getpid()} on host ")
    assert run.stderr.endswith("; wait for it or use another --out\n") and run.stderr.count("\n") == 1
    assert sorted(path.name for path in out.iterdir()) == []   # nothing written, the lock file gone


def test_the_solve_script_refuses_its_own_files_when_not_regular_or_damaged(tmp_path):
    # a resume reads OUT/state.json and OUT/table.bin: a pipe there would hang the read, and a
    # damaged one must not crash the solver; each is refused in one line naming the file
    import json
    import os

    out = tmp_path / "run"
    assert run_solve_script("--size", "2", "--out", str(out)).returncode == 0
    state_path, table_path = out / "state.json", out / "table.bin"
    good_state, good_table = state_path.read_text(), table_path.read_bytes()

    def refused_with(line: str) -> None:
        refused = run_solve_script("--size", "2", "--out", str(out))  # hangs past the timeout if it reads a pipe
        assert (refused.returncode, refused.stdout, refused.stderr) == (2, "", f"solve: cannot resume: {line}\n")

    for path in (state_path, table_path):
        path.unlink()
        os.mkfifo(path)
        refused_with(f"{path}: is a named pipe (FIFO), not a regular file")
        assert path.is_fifo()
        path.unlink()
        path.mkdir()
        refused_with(f"{path}: Is a directory")
        path.rmdir()
        state_path.write_text(good_state)
        table_path.write_bytes(good_table)
    table_path.write_bytes(good_table[:100])
    refused_with(f"{table_path}: 100 bytes, a table of 12 bits has 163840")
    table_path.write_bytes(good_table + b"\0")
    refused_with(f"{table_path}: is larger than 163840 bytes")
    table_path.unlink()
    refused_with(f"{table_path}: No such file or directory")
    table_path.write_bytes(good_table)
    state_path.write_text("garbage\n")
    refused_with(f"{state_path}: not JSON: Expecting value: line 1 column 1 (char 0)")
    state_path.write_text("[2]\n")
    refused_with(f"{state_path}: not a solve state")
    state_path.write_text(json.dumps({**json.loads(good_state), "lower": "1"}))
    refused_with(f"{state_path}: nodes, seconds, lower or upper missing or out of range")
    state_path.write_text(json.dumps({**json.loads(good_state), "upper": 101}))
    refused_with(f"{state_path}: nodes, seconds, lower or upper missing or out of range")
    state_path.write_text(json.dumps({**json.loads(good_state), "horizon": -1}))
    refused_with(f"{state_path}: test or horizon out of range")
    state_path.write_text(json.dumps({**json.loads(good_state), "test": 6, "horizon": 4000}))  # SOLVER_MAX_PLY
    refused_with(f"{state_path}: test or horizon out of range")
    state_path.write_text(json.dumps({**json.loads(good_state), "test": "6", "horizon": 27}))
    refused_with(f"{state_path}: test or horizon out of range")
    state_path.write_bytes(b" " * (64 * 1024 + 1))
    refused_with(f"{state_path}: is larger than 65536 bytes")
    state_path.write_text(good_state)
    resumed = run_solve_script("--size", "2", "--out", str(out))
    assert resumed.returncode == 0 and resumed.stdout.startswith(f"resumed {out}: 211 nodes, ")


def test_the_solve_script_says_in_one_line_that_a_proof_path_became_a_pipe(tmp_path):
    # --proof is checked before the solve, but the path may become a pipe while it runs: the
    # atomic write refuses to rename over it, and the script says so in one line (exit 1)
    import os

    proof = tmp_path / "proof.txt"
    make_pipe_first = (
        "import os\n"
        "import margo_gtp.players.proof as proof\n"
        "made = proof.compact_proof_text\n"
        f"proof.compact_proof_text = lambda *arguments: (os.mkfifo({str(proof)!r}), made(*arguments))[1]\n"
    )
    done = run_solve_script("--size", "2", "--out", str(tmp_path / "run"), "--proof", str(proof), patch=make_pipe_first)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1].startswith("2x2: W+1 (White's margin 1) in 211 nodes")
    assert done.stderr == f"solve: no proof written: {proof}: is a named pipe (FIFO), not a regular file\n"
    assert proof.is_fifo() and sorted(os.listdir(tmp_path)) == ["proof.txt", "run"]


def test_the_solve_script_says_in_one_line_that_a_checkpoint_could_not_be_written(tmp_path):
    # a full disk at a checkpoint: one line with the file and the bounds so far, exit 1,
    # and the atomic writer leaves no half-written table behind
    run = tmp_path / "run"
    full_disk = (   # the run's lock file (runlock.py) is written before the disk fills
        "import errno, os\n"
        "import margo_gtp.files as files\n"
        "real = files.write_atomically\n"
        "def full(path, data):\n"
        "    if path.name == '.lock':\n"
        "        return real(path, data)\n"
        "    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))\n"
        "files.write_atomically = full\n"
    )
    done = run_solve_script("--size", "2", "--out", str(run), patch=full_disk)
    assert done.returncode == 1
    assert done.stderr == (f"solve: no checkpoint written: {run / 'table.bin'}: No space left on device; "
                           "stopped after 211 nodes, White's margin in [1, 1]\n")
    assert "Traceback" not in done.stdout + done.stderr
    assert sorted(path.name for path in run.iterdir()) == []


def test_white_keeps_a_margin_of_5_on_3x3_by_a_checked_strategy():
    # The lower half of 3x3's value (W+5, docs/solving.md): White's margin is at least 5. The
    # solver's strategy for it is replayed by the independent checker, every reply of Black
    # with the whole history, and the same tree does not hold a margin of 6.
    from margo_gtp.players.proof import strategy_lines
    from margo_gtp.players.proof_check import check_strategy

    lines = strategy_lines(3, 0, 5, ExactSolver(3, 20))
    assert len(lines) == 7121
    assert lines[:3] == ["1 B2:1", "2 A1:1", "3 B1:1"]
    check_strategy(lines, 3, 0, 5, "w5")
    with pytest.raises(ProofCheckError) as caught:
        check_strategy(lines, 3, 0, 6, "w5")
    assert str(caught.value) == "w5: line 41: the game ends with the prover's margin 5, less than 6"
    with pytest.raises(ProofCheckError) as caught:
        check_strategy(lines[:99] + lines[100:], 3, 0, 5, "w5")
    assert str(caught.value) == "w5: line 100: C1:1 is not a legal move here"
