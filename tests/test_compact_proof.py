"""The compact proof (issue 38, format ``margo-proof 2``): the winner's move per position,
checked by walking the game with its real history (compact_check.py). The shipped 3x3 proof
checks whole; the walk's reuse of checked subtrees is held to a walk without it and to
random games; damaged, foreign and truncated files are refused in one exact line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("margo_gtp.players._solver", reason="the C solver is not built")

from margo_gtp.engine.python_core import PythonCore  # noqa: E402
from margo_gtp.engine.rules import Rules  # noqa: E402
from margo_gtp.engine.types import BLACK, WHITE, Move  # noqa: E402
from margo_gtp.players.compact_check import (StrategyWalk, header_lines, parse_rules,  # noqa: E402
                                             rule_chooser)
from margo_gtp.players.proof import compact_proof_text  # noqa: E402
from margo_gtp.players.proof_check import ProofCheckError, check_proof, check_proof_text  # noqa: E402
from margo_gtp.players.solver import ExactSolver  # noqa: E402

SHIPPED_3X3 = Path(__file__).resolve().parent.parent / "margo_gtp" / "players" / "data" / "proofs" / "proof-3x3.txt"


@pytest.fixture(scope="module")
def proof_2x2() -> str:
    return compact_proof_text(2, ExactSolver(2), "abc1234", 213)


def refusal(text: str) -> str:
    with pytest.raises(ProofCheckError) as caught:
        check_proof_text(text, "p.txt")
    return str(caught.value)


def with_body(text: str, body: list[str], white_margin: int = 1) -> str:
    """``text`` with another body, under a header whose digest and count fit it."""
    return "\n".join([*header_lines(2, white_margin, "abc1234", 213, body), *body]) + "\n"


def body_of(text: str) -> list[str]:
    return text.split("\n")[8:-1]


def test_the_2x2_compact_proof_is_written_and_checks(proof_2x2):
    lines = proof_2x2.split("\n")
    assert lines[:7] == ["format: margo-proof 2", "rules: default", "size: 2", "value: W+1", "solver: abc1234",
                         "solver-nodes: 213", "rules-count: 34"]
    assert lines[8:11] == ["strategy white-at-least 1", "W:....|. A1:1", "W:..XO|. A1:1"]
    assert lines[23:25] == ["strategy white-at-most 1", "B:...O|. A1:1"]
    assert check_proof_text(proof_2x2, "p.txt")["rules-count"] == "34"


def test_a_damaged_foreign_or_truncated_compact_proof_is_refused(proof_2x2):
    assert refusal(proof_2x2.replace("W:....|. A1:1", "W:....|. B1:1")) == (
        "p.txt: damaged: the body does not match the header's digest")
    assert refusal(proof_2x2.replace("\nend\n", "\n")) == "p.txt: truncated: no 'end' line"
    assert refusal(proof_2x2.replace("rules: default", "rules: ko_rule=simple")) == (
        "p.txt: proof for rules 'ko_rule=simple'; this checker checks the default rules only")
    assert refusal(proof_2x2.replace("rules-count: 34", "rules-count: 35")) == (
        "p.txt: the header says 35 rules, the strategies hold 34")
    assert refusal(proof_2x2.replace("solver-nodes: 213", "nodes: 213")) == (
        "p.txt: line 6: not a proof header line: 'nodes: 213'")


def test_a_wrong_rule_is_named_by_its_line(proof_2x2):
    body = body_of(proof_2x2)
    assert body[1] == "W:....|. A1:1"  # line 10
    opened = list(body)
    opened[1] = "W:....|. B2:1"  # a first move that loses: the last rule played on the line is named
    assert refusal(with_body(proof_2x2, opened)) == (
        "p.txt: line 20: the game after 6 moves (B2:1 A1:1 B1:1 A2:1 B2:1 B1:1) ends with the prover's "
        "margin -3, less than 1")
    illegal = list(body)
    illegal[2] = "W:..XO|. B1:1"  # line 11: B1 would repeat an earlier position in this game
    assert refusal(with_body(proof_2x2, illegal)) == (
        "p.txt: line 11: B1:1 is not legal after 14 moves (... B1:1 A2:1 B2:1 A1:1 B2:1 B1:1 B2:1 A2:1)")
    assert refusal(with_body(proof_2x2, body[:3] + body[4:])) == (
        "p.txt: line 9: no rule for the position W:..XX|. after 4 moves (A1:1 B2:1 B1:1 A2:1)")
    assert refusal(with_body(proof_2x2, body[:1] + ["W:O.O.|. B2:1"] + body[1:])) == (
        "p.txt: line 10: a rule the strategy never plays")
    assert refusal(with_body(proof_2x2, body[:1] + ["W:OO|. B2:1"] + body[1:])) == (
        "p.txt: line 10: not a rule 'POSITION VERTEX [if POSITION ...]': 'W:OO|. B2:1'")
    assert refusal(with_body(proof_2x2, body[:1] + ["W:....|. Z9"] + body[1:])) == (
        "p.txt: line 10: vertex is off board: 'Z9' (board size 2)")
    claims_two = [line.replace("at-least 1", "at-least 2").replace("at-most 1", "at-most 2") for line in body]
    assert refusal(with_body(proof_2x2, claims_two, white_margin=2)) == (
        "p.txt: line 19: the game after 15 moves (... A2:1 B2:1 A1:1 B2:1 B1:1 B2:1 A1:1 B1:1) ends with the "
        "prover's margin 1, less than 2")


def shipped_strategies() -> tuple[dict, dict]:
    lines = list(enumerate(SHIPPED_3X3.read_text().split("\n"), start=1))
    headings = [k for k, (_, line) in enumerate(lines) if line.startswith("strategy ")]
    return (parse_rules(lines[headings[0] + 1:headings[1]], 3, "p"),
            parse_rules(lines[headings[1] + 1:-2], 3, "p"))


def test_the_shipped_3x3_proof_checks_whole():
    header = check_proof(SHIPPED_3X3)
    assert {key: header[key] for key in ("format", "rules", "size", "value", "solver-nodes")} == {
        "format": "margo-proof 2", "rules": "default", "size": "3", "value": "W+5", "solver-nodes": "133494881"}
    assert SHIPPED_3X3.stat().st_size < 200_000


def test_dropping_a_superko_rule_of_the_3x3_proof_is_caught():
    # A rule with "if": the position's usual move repeats an earlier position of some games
    # reaching it. Without it the usual move is played there, and the checker must see that
    # it is illegal in THAT history although it is legal where the position was first met.
    text = SHIPPED_3X3.read_text()
    lines = text.split("\n")
    number = next(k for k, line in enumerate(lines) if line.startswith("B:") and " if " in line and
                  lines[k + 1].split(" ")[0] == line.split(" ")[0])
    body = lines[8:number] + lines[number + 1:-1]
    damaged = "\n".join([*header_lines(3, 5, "abc1234", 133494881, body), *body]) + "\n"
    with pytest.raises(ProofCheckError) as caught:
        check_proof_text(damaged, "p.txt")
    assert number + 1 == 751  # the first of Black's 22 such rules; each one dropped is caught
    assert str(caught.value) == (
        "p.txt: line 751: B3:1 is not legal after 45 moves (... A3:1 C1:1 A2:1 B3:1 A2:1 A3:1 B2:1 C2:1)")


def test_the_walk_without_reuse_agrees_on_white_s_3x3_strategy():
    # every line to its end: the tree the reuse stands for (7,786 positions against 963)
    white, _ = shipped_strategies()

    def fail(number: int, why: str) -> ProofCheckError:
        return ProofCheckError(f"line {number}: {why}")

    reusing = StrategyWalk(3, 0, 5, rule_chooser(white), fail)
    reusing.run()
    full = StrategyWalk(3, 0, 5, rule_chooser(white), fail, reuse=False)
    full.run()
    assert (reusing.nodes, full.nodes, full.used == reusing.used) == (1083, 7786, True)


def rule_move(core: PythonCore, rules: dict) -> Move | None:
    position = (core._balls[0], core._balls[1], core._to_move)
    for rule in rules.get(position, ()):
        if all(key in core._position_count for key in rule.needs):
            return Move(rule.point)
    return None


@pytest.mark.parametrize("seed", range(4))
def test_random_games_against_the_3x3_strategies_keep_the_value(seed):
    # a check that shares nothing with the walk's reuse: games with every reply at random
    rng = random.Random(seed)
    white, black = shipped_strategies()
    for prover, rules in ((0, white), (1, black)):
        for _ in range(50):
            core = PythonCore(Rules(size=3))
            while moves := core.legal_moves():
                move = rule_move(core, rules) if core._to_move == prover else rng.choice(moves)
                assert move in moves
                core.push(move)
            counts = core.ball_counts()
            margin = counts[WHITE] - counts[BLACK]
            assert margin >= 5 if prover == 0 else margin <= 5


def test_a_one_sided_proof_holds_one_strategy_and_is_refused_where_it_fails():
    # the result only (issue 38's 4x4 proof): White's strategy for "at least 1" on 2x2
    from margo_gtp.players.proof import result_proof_text

    solver = ExactSolver(2)
    text = result_proof_text(2, solver, "abc1234", 213, 0, 1)
    lines = text.split("\n")
    assert lines[3] == "value: white-at-least 1" and lines[8:10] == ["strategy white-at-least 1", "W:....|. A1:1"]
    assert lines[-2:] == ["end", ""] and not any(line.startswith("strategy white-at-most") for line in lines)
    assert check_proof_text(text, "p.txt")["value"] == "white-at-least 1"
    body = body_of(text)

    def one_sided(body: list[str], value: str = "white-at-least 1") -> str:
        return "\n".join([*header_lines(2, value, "abc1234", 213, body), *body]) + "\n"

    assert refusal(one_sided(body[:2] + body[3:])) == (
        "p.txt: line 9: no rule for the position W:..XX|. after 4 moves (A1:1 B2:1 B1:1 A2:1)")
    assert refusal(one_sided([line.replace("at-least 1", "at-least 2") for line in body], "white-at-least 2")) == (
        "p.txt: line 13: the game after 9 moves (... B2:1 B1:1 A2:1 B1:1 A1:1 B1:1 A2:1 A1:1) ends with the "
        "prover's margin 1, less than 2")
    assert refusal(one_sided(body, "white-at-most 1")) == "p.txt: line 9: 'strategy white-at-most 1' expected"
    extra = body[:-1] + ["strategy white-at-most 1", "end"]  # a second strategy after a bound's one
    assert refusal(one_sided(extra)) == f"p.txt: line {8 + len(body)}: text after the strategies: 'strategy white-at-most 1'"
    # Black's side of the same board: White at most 1
    black = result_proof_text(2, solver, "abc1234", 213, 1, -1)
    assert black.split("\n")[3] == "value: white-at-most 1"
    assert check_proof_text(black, "p.txt")["rules-count"] == black.split("\n")[6].split(" ")[1]


def test_a_rule_that_loses_under_a_new_history_is_mended_before_the_walk_goes_down():
    # 3x3 with a 2^24 table: Black's strategy meets a position again under another history
    # in which its rule's move loses; the writer asks the solver there and puts a rule for
    # this history before it, instead of failing deep below and walking again from the top.
    from margo_gtp.players.compact_check import check_compact_text
    from margo_gtp.players.proof import _CompactWriter

    solver = ExactSolver(3, 24)
    margin, _ = solver.exact([])
    counts = []
    for prover, claim in ((0, margin), (1, -margin)):
        writer = _CompactWriter(3, solver, prover, claim)
        walk = writer.walk()
        counts.append((writer.walks, writer.repairs, writer.mended, walk.nodes))
    assert (margin, counts) == (5, [(1, 0, 0, 1260), (2, 0, 1, 13215)])
    text = compact_proof_text(3, solver, "abc1234", solver.nodes)
    assert check_compact_text(text, "p.txt")["value"] == "W+5"


def test_the_writer_falls_back_to_proof_number_search_where_the_solver_does_not_settle_at_once(monkeypatch):
    # with 1,000 nodes for the plain solver, most of 3x3's moves come from the proof-number
    # search over it (1,000 nodes a leaf); the strategy it makes still checks
    from margo_gtp.players import proof
    from margo_gtp.players.compact_check import check_compact_text

    monkeypatch.setattr(proof, "MOVE_NODES", 1000)
    calls = []
    original = proof._CompactWriter._proof_number_move
    monkeypatch.setattr(proof._CompactWriter, "_proof_number_move",
                        lambda self, line: calls.append(len(line)) or original(self, line))
    text = proof.result_proof_text(3, ExactSolver(3, 20, chunk=100), "abc1234", 5790, 0, 5)  # stops between chunks
    assert check_compact_text(text, "p.txt")["value"] == "white-at-least 5"
    assert calls and calls[0] == 0  # the empty board's move among them


def test_a_proof_past_the_size_cap_is_refused_in_one_line(tmp_path, monkeypatch):
    from margo_gtp.players import compact_check

    monkeypatch.setattr(compact_check, "MAX_PROOF_BYTES", 1000)
    path = tmp_path / "big.txt"
    path.write_text("x" * 1001)
    with pytest.raises(compact_check.CompactCheckError) as caught:
        compact_check.check_compact(path)
    assert str(caught.value) == f"{path}: is larger than 1000 bytes"


def test_the_shipped_4x4_proof_is_whole_and_opens_with_b3():
    # 4x4's one-sided proof (White wins), xz-compressed: 1,744,616 rules, 72 MB of text. Its
    # check (compact_check.check_compact on the unpacked file) takes about three minutes and
    # 8 GB, so here only its header, digest and first rule (docs/solving.md has the check).
    import hashlib
    import lzma

    packed = SHIPPED_3X3.parent / "proof-4x4-white-wins.txt.xz"
    lines = lzma.decompress(packed.read_bytes()).decode("utf-8").split("\n")
    assert lines[:8] == ["format: margo-proof 2", "rules: default", "size: 4", "value: white-at-least 1",
                         "solver: 7e829c1", "solver-nodes: 936974129", "rules-count: 1744616",
                         "digest: sha256:3aeddb55bfeceebdf9e03739dc21f29e9dc8f4b1f6b81357c4fde1d2edfc32e0"]
    body = lines[8:-1]
    assert hashlib.sha256("".join(line + "\n" for line in body).encode()).hexdigest() == lines[7][len("digest: sha256:"):]
    assert body[0] == "strategy white-at-least 1" and body[-1] == "end" and len(body) == 1744616 + 2
    assert "W:................|.........|....|. B3:1" in body
