"""Proof-number search over the exact solver (scripts/solve-pn, docs/solving.md): its answers
against the solver's own value and the brute force, its resume from earlier answers, and the
script's lines and refusals, word for word."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("margo_gtp.players._solver", reason="the C solver is not built")

from margo_gtp.players.brute_force import brute_force_value  # noqa: E402
from margo_gtp.players.proof_number import ProofNumberSearch  # noqa: E402
from margo_gtp.players.solver import ExactSolver  # noqa: E402
from margo_gtp.vertex import parse_vertex  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def codes(solver: ExactSolver, vertices: str) -> list[int]:
    return [solver.code_of(parse_vertex(text, solver.size)) for text in vertices.split()]


@pytest.mark.parametrize("prover, claim, answer", [(0, 5, 1), (0, 6, 0), (1, -5, 1), (1, -4, 0)])
def test_3x3_s_value_w5_from_either_side_with_leaves_too_small_to_settle_it(prover, claim, answer):
    # 1,000 nodes a leaf: the empty board is not settled in one, so the tree grows
    search = ProofNumberSearch(ExactSolver(3, 20), [], prover, claim, leaf_nodes=1000)
    assert search.run() == answer
    assert search.expanded > 0 and search.searched == len(search.answers)


# late 3x3 positions where the brute force finishes (tests/test_solver.py's lines)
LINES = ["B3:1 A1:1 B2:1 B1:1 A2:1 A1:2 C1:1 C3:1 A3:1", "C2:1 C3:1 A3:1 B3:1 B2:1 B3:1 C1:1 A1:1 A2:1",
         "B3:1 A2:1 A1:1 C3:1 A3:1 C1:1 B2:1 B1:1 C2:1 C1:1", "B1:1 A2:1 C1:1 C2:1 C3:1 B3:1 B2:1 B1:2 C3:1 A1:1 A3:1"]


@pytest.mark.parametrize("vertices", LINES)
def test_every_claim_around_the_brute_force_value_is_answered_alike(vertices):
    from margo_gtp.engine.types import Move

    solver = ExactSolver(3, 16)
    line = codes(solver, vertices)
    value = brute_force_value(3, [Move(parse_vertex(text, 3)) for text in vertices.split()])[0]
    mover = len(line) % 2
    for claim in (value - 1, value, value + 1):   # the mover's margin: at least `claim`?
        assert ProofNumberSearch(solver, line, mover, claim, leaf_nodes=1000).run() == int(value >= claim)
        # the same question for the other side: at least -claim + 1 means the mover gets less
        assert ProofNumberSearch(solver, line, 1 - mover, 1 - claim, leaf_nodes=1000).run() == int(value < claim)


def test_a_search_given_the_answers_of_an_earlier_one_searches_nothing_again():
    first = ProofNumberSearch(ExactSolver(3, 20), [], 0, 6, leaf_nodes=1000)
    assert first.run() == 0
    solver = ExactSolver(3, 20)
    again = ProofNumberSearch(solver, [], 0, 6, leaf_nodes=1000, answers=dict(first.answers))
    assert again.run() == 0
    assert (again.searched, solver.nodes, again.expanded, again.size()) == (0, 0, first.expanded, first.size())


def solve_pn(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "solve-pn"), *arguments], capture_output=True,
                          text=True, timeout=300)


def without_seconds(text: str) -> list[str]:
    import re

    return [re.sub(r"  rate [\d,]+/s  \d+ s$", "", line) for line in text.splitlines()]


def test_the_script_answers_resumes_and_refuses_another_question(tmp_path):
    out = tmp_path / "run"
    done = solve_pn("--size", "3", "--claim", "6", "--leaf-nodes", "1000", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert without_seconds(done.stdout) == [
        "expanded 156  tree 580  leaves searched 580  proof inf  disproof 0  solver nodes 329778",
        "disproven: White's margin >= 6 after 0 moves"]
    saved = json.loads((out / "answers.json").read_text())
    assert (saved["format"], saved["size"], saved["line"], saved["claim"], saved["solver_nodes"],
            len(saved["answers"])) == ("margo-solve-pn 1", 3, [], 6, 329778, 580)
    again = solve_pn("--size", "3", "--claim", "6", "--leaf-nodes", "1000", "--out", str(out))
    assert without_seconds(again.stdout) == [
        f"resumed {out / 'answers.json'}: 580 leaf answers, 329,778 solver nodes",
        "expanded 156  tree 580  leaves searched 0  proof inf  disproof 0  solver nodes 0",
        "disproven: White's margin >= 6 after 0 moves"]
    other = solve_pn("--size", "3", "--claim", "5", "--leaf-nodes", "1000", "--out", str(out))
    assert (other.returncode, other.stdout, other.stderr) == (
        2, "", f"solve-pn: {out / 'answers.json'}: claim 6, this run has 5\n")


def test_bad_options_a_bad_line_and_a_damaged_file_are_one_line(tmp_path):
    def refused(*arguments: str) -> str:
        run = solve_pn(*arguments, "--out", str(tmp_path / "run"))
        assert (run.returncode, run.stdout) == (2, ""), run.stderr
        return run.stderr

    assert refused("--size", "6") == "solve-pn: --size 6: the solver takes 2..5\n"
    assert refused("--size", "3", "--claim", "15") == "solve-pn: --claim 15: a margin of -14..14 on 3x3\n"
    assert refused("--leaf-nodes", "10") == "solve-pn: --leaf-nodes 10: at least 1000\n"
    assert refused("--seconds", "0") == "solve-pn: --seconds 0.0: more than 0\n"
    run = solve_pn("--size", "2", "--out", "/dev/zero")   # as root, a device is a path like any other
    assert (run.returncode, run.stderr) == (2, "solve-pn: --out /dev/zero: not a folder\n")
    assert refused("--size", "3", "--line", "B2 B2") == (
        "solve-pn: --line: move 2 (B2): illegal move: B2:1 for BLACK: point is occupied\n")
    assert refused("--size", "3", "--line", "Z9").startswith("solve-pn: --line: move 1 (Z9): ")
    assert refused("--size", "3", "--line", "B2 A1", "--proof", str(tmp_path / "p.txt")) == (
        "solve-pn: --proof proves from the empty board: the line may hold only White's first move, "
        "and only when White proves\n")
    assert refused("--size", "3", "--prover", "black", "--claim", "-5", "--line", "B2",
                   "--proof", str(tmp_path / "p.txt")).startswith("solve-pn: --proof proves from the empty board")
    assert refused("--size", "3", "--proof", str(tmp_path)) == f"solve-pn: --proof {tmp_path}: Is a directory\n"
    (tmp_path / "run").mkdir(exist_ok=True)   # the refused runs made it (their lock)
    (tmp_path / "run" / "answers.json").write_text('{"format": "margo-solve-pn 1", "size": 3')
    assert refused("--size", "3").startswith(f"solve-pn: cannot resume: {tmp_path / 'run' / 'answers.json'}: not JSON: ")
    (tmp_path / "run" / "answers.json").write_text(json.dumps(
        {"format": "margo-solve-pn 1", "size": 3, "line": [], "prover": "white", "claim": 1, "leaf_nodes": 1000000,
         "answers": {"": 7}}))
    assert refused("--size", "3") == (
        f"solve-pn: cannot resume: {tmp_path / 'run' / 'answers.json'}: answers must map lines to 1, 0 or null\n")


def test_a_second_run_on_one_folder_is_refused(tmp_path):
    from margo_gtp.runlock import lock_folder

    out = tmp_path / "run"
    with lock_folder(out):
        run = solve_pn("--size", "2", "--out", str(out))
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr.startswith(f"solve-pn: {out} is in use by another run: pid ")


def test_a_proven_question_is_written_as_a_one_sided_proof_that_the_checker_accepts(tmp_path):
    from margo_gtp.players.compact_check import check_compact

    out, proof = tmp_path / "run", tmp_path / "proof.txt"
    done = solve_pn("--size", "3", "--line", "B2", "--claim", "5", "--leaf-nodes", "1000", "--out", str(out))
    assert done.returncode == 0, done.stderr
    # a second command writes the proof from the kept answers alone: the top's moves are the tree's
    again = solve_pn("--size", "3", "--line", "B2", "--claim", "5", "--leaf-nodes", "1000", "--out", str(out),
                     "--proof", str(proof))
    assert again.returncode == 0, again.stderr
    lines = without_seconds(again.stdout)
    assert lines[:3] == [f"resumed {out / 'answers.json'}: 9 leaf answers, 1,707 solver nodes",
                         "expanded 1  tree 9  leaves searched 0  proof 0  disproof inf  solver nodes 0",
                         "proven: White's margin >= 5 after 1 moves"]
    assert lines[3].startswith(f"{proof}: written, ") and lines[4].startswith(f"{proof}: checked by the independent ")
    header = check_compact(proof)
    assert (header["value"], header["solver-nodes"]) == ("white-at-least 5", "1707")
    text = proof.read_text().split("\n")
    assert text[8:10] == ["strategy white-at-least 5", "W:.........|....|. B2:1"]


def test_the_proof_s_rules_are_checkpointed_and_the_writing_resumes_from_them(tmp_path):
    from margo_gtp.players.compact_check import check_compact

    out, proof = tmp_path / "run", tmp_path / "proof.txt"
    arguments = ("--size", "3", "--line", "B2", "--claim", "5", "--leaf-nodes", "1000", "--out", str(out),
                 "--proof", str(proof), "--every", "0.001")
    first = solve_pn(*arguments)
    assert first.returncode == 0, first.stderr
    saved = (out / "proof-rules.txt").read_text().splitlines()
    assert saved and all(line[:2] == "W:" for line in saved)
    again = solve_pn(*arguments)
    assert again.returncode == 0, again.stderr
    assert f"resumed {out / 'proof-rules.txt'}: {len(saved)} rules" in again.stdout.splitlines()
    assert check_compact(proof)["value"] == "white-at-least 5"
    (out / "proof-rules.txt").write_text("W:.........|....|. B2:1\nW:....O.... Z9\n")
    damaged = solve_pn(*arguments)
    assert (damaged.returncode, damaged.stderr) == (
        1, f"solve-pn: no proof written: {out / 'proof-rules.txt'}: line 2: not a rule: 'W:....O.... Z9'\n")
