"""The proof checker: replays a proof file of :mod:`.proof` on the pure-Python rules core
(:class:`~margo_gtp.engine.python_core.PythonCore`, which keeps the whole history, so
situational superko is judged on every line) and confirms its value.

It shares nothing with the solver that wrote the proof. For each tree it checks, node by
node: the line parses, its depth follows its parent, the move is legal; where the
prover is to move there is exactly one child, where the other side is to move there is
one child per legal reply, no more, no fewer, no repeat; where the game has ended the
prover's margin is at least the claim. A file that breaks any of it is refused with one
line: ``PATH: line N: why`` (the first bad node), or ``PATH: why`` for the header.
"""

from __future__ import annotations

import os

from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import BLACK, WHITE, IllegalMoveError, Move
from margo_gtp.players.compact_check import CompactCheckError, check_compact_text, read_header, white_margin
from margo_gtp.textfile import TextFileError, read_text
from margo_gtp.vertex import InvalidVertexError, parse_vertex

__all__ = ["ProofCheckError", "check_proof", "check_proof_text", "check_strategy"]

FORMAT = "margo-proof 1"  # the writer's (proof.py); kept here too: the checker imports no writer
HEADER_KEYS = ("format", "rules", "size", "value", "nodes")


class ProofCheckError(ValueError):
    """A proof that does not check; ``str()`` is the one line to print."""


class _Tree:
    """One tree's replay: ``prover`` (0 White, 1 Black) keeps its margin >= ``claim``."""

    def __init__(self, where: str, lines: list[tuple[int, str]], size: int, prover: int, claim: int) -> None:
        self.where, self.lines, self.prover, self.claim = where, lines, prover, claim
        self.size = size
        self.core = PythonCore(Rules(size=size))
        self.at = 0  # the next line to read

    def fail(self, number: int, why: str) -> ProofCheckError:
        return ProofCheckError(f"{self.where}: line {number}: {why}")

    def node(self, depth: int, number: int) -> None:
        """Check the subtree of the position reached (``depth`` moves played; ``number``: its line)."""
        core = self.core
        legal = {move.point for move in core.legal_moves()}
        children = []
        while self.at < len(self.lines):
            child_number, text = self.lines[self.at]
            parts = text.split(" ")
            if len(parts) != 2 or not parts[0].isdigit():
                raise self.fail(child_number, f"not a node 'DEPTH VERTEX': {text!r}")
            child_depth = int(parts[0])
            if child_depth <= depth:
                break
            if child_depth != depth + 1:
                raise self.fail(child_number, f"depth {child_depth} under a node of depth {depth}")
            try:
                point = parse_vertex(parts[1], self.size)
            except InvalidVertexError as error:
                raise self.fail(child_number, str(error)) from None
            if point not in legal:
                raise self.fail(child_number, f"{parts[1]} is not a legal move here")
            if point in children:
                raise self.fail(child_number, f"{parts[1]} twice among the replies")
            children.append(point)
            self.at += 1
            try:
                core.push(Move(point))
            except IllegalMoveError as error:  # not reached: legal_moves said legal
                raise self.fail(child_number, str(error)) from None
            self.node(depth + 1, child_number)
            core.pop()
        if not legal:
            counts = core.ball_counts()
            margin = counts[WHITE] - counts[BLACK]
            if self.prover == 1:
                margin = -margin
            if margin < self.claim:
                raise self.fail(number, f"the game ends with the prover's margin {margin}, less than {self.claim}")
            return
        mover = core._to_move
        if mover == self.prover and len(children) != 1:
            raise self.fail(number, f"the prover is to move: one move expected, {len(children)} given")
        if mover != self.prover and len(children) != len(legal):
            missing = sorted(legal - set(children), key=lambda p: (p.level, p.y, p.x))
            raise self.fail(number, f"{len(legal) - len(children)} of {len(legal)} replies missing"
                            f" (first: {Move(missing[0]).gtp()})")


def check_strategy(lines: list[str], size: int, prover: int, claim: int, where: str) -> None:
    """Check one strategy tree alone (its node lines, numbered from 1): ``prover`` (0 White,
    1 Black) keeps its margin at least ``claim`` from the empty board. A one-sided bound,
    e.g. White's margin at least 5 on 3x3 (docs/solving.md); :class:`ProofCheckError` if not."""
    tree = _Tree(where, list(enumerate(lines, start=1)), size, prover, claim)
    tree.node(0, 0)
    if tree.at != len(tree.lines):
        number, line = tree.lines[tree.at]
        raise ProofCheckError(f"{where}: line {number}: a node outside the tree: {line!r}")


def check_proof_text(text: str, where: str) -> dict[str, str]:
    """Check a proof's text (``where`` names it in the messages); its header if it checks.
    A compact proof (``margo-proof 2``) is checked by :mod:`.compact_check`."""
    if text.startswith("format: margo-proof 2\n"):
        try:
            return check_compact_text(text, where)
        except CompactCheckError as error:
            raise ProofCheckError(str(error)) from None
    header, body = read_header(text, where, keys=HEADER_KEYS, format_name=FORMAT, counts=("nodes",), kind="margo proof",
                               readable=f"{FORMAT!r} and 'margo-proof 2'", error=ProofCheckError)
    size, margin = int(header["size"]), white_margin(header["value"])
    last_line = body.pop()[0]  # the 'end' line's number
    nodes = 0
    for title, prover, claim in ((f"tree white-at-least {margin}", 0, margin),
                                 (f"tree white-at-most {margin}", 1, -margin)):
        if not body or body[0][1] != title:
            number = body[0][0] if body else last_line
            raise ProofCheckError(f"{where}: line {number}: {title!r} expected")
        start = body[0][0]
        end = next((k for k, (_, line) in enumerate(body[1:], start=1) if line.startswith("tree ")), len(body))
        tree = _Tree(where, body[1:end], size, prover, claim)
        tree.node(0, start)
        if tree.at != len(tree.lines):
            number, line = tree.lines[tree.at]
            raise ProofCheckError(f"{where}: line {number}: a node outside the tree: {line!r}")
        nodes += len(tree.lines)
        body = body[end:]
    if body:
        raise ProofCheckError(f"{where}: line {body[0][0]}: text after the two trees: {body[0][1]!r}")
    if nodes != int(header["nodes"]):
        raise ProofCheckError(f"{where}: the header says {header['nodes']} nodes, the trees hold {nodes}")
    return header


def check_proof(path: str | os.PathLike[str]) -> dict[str, str]:
    """Check the proof file at ``path``; its header, or :class:`ProofCheckError`."""
    try:
        text = read_text(path)
    except TextFileError as error:
        raise ProofCheckError(str(error)) from None
    return check_proof_text(text, os.fspath(path))
