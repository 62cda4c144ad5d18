"""Proof-number search over the exact solver: one question, "does the prover get at least
``claim`` balls of margin after this line?", answered by a best-first tree at the top and
:class:`~margo_gtp.players.solver.ExactSolver` at its leaves (docs/solving.md, "Proof-number
search at the top").

The exact solver deepens one horizon for a whole subtree, so a position with one hard reply
among many easy ones costs as much as its hardest line at every round. Here each leaf gets
the solver for at most ``leaf_nodes`` nodes; a leaf it does not settle is expanded, and the
proof and disproof numbers (Allis 1994) send the next expansion where the answer is nearest:
at the prover's turn the child with the fewest leaves left to prove, at the other side's
the one with the fewest left to disprove. The tree is a tree of lines (each node has its
whole history), so situational superko needs nothing more here: the solver judges it inside
each leaf.

Every leaf's answer is kept by its line, in ``answers``; a run given the answers of an
earlier one rebuilds the same tree without searching again (scripts/solve-pn's resume).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import Move

__all__ = ["INFINITE", "ProofNumberSearch", "line_text"]

INFINITE = 10**18
#: A leaf's answer: proven (the prover gets the claim), disproven, or not settled in its budget.
PROVEN, DISPROVEN, OPEN = 1, 0, None


def line_text(line: Sequence[int]) -> str:
    """A line as the answers' key: its point codes, space-separated ("" for the empty board)."""
    return " ".join(map(str, line))


@dataclass(eq=False)
class _Node:
    line: tuple[int, ...]
    prover_to_move: bool
    parent: "_Node | None" = None
    children: list["_Node"] = field(default_factory=list)
    proof: int = 1
    disproof: int = 1

    def settle(self, answer: int | None) -> None:
        if answer == PROVEN:
            self.proof, self.disproof = 0, INFINITE
        elif answer == DISPROVEN:
            self.proof, self.disproof = INFINITE, 0
        else:
            self.proof, self.disproof = 1, 1

    def recount(self) -> None:
        proofs = [child.proof for child in self.children]
        disproofs = [child.disproof for child in self.children]
        if self.prover_to_move:  # one move that proves is enough
            self.proof, self.disproof = min(proofs), min(sum(disproofs), INFINITE)
        else:  # every reply must be proven
            self.proof, self.disproof = min(sum(proofs), INFINITE), min(disproofs)


class ProofNumberSearch:
    """Does ``prover`` (0 White, 1 Black) get a margin of at least ``claim`` after ``line``?

    ``solver``: an :class:`ExactSolver` of the board (its table serves every leaf).
    ``answers``: leaf answers of an earlier run, by :func:`line_text` (filled as it goes)."""

    def __init__(self, solver, line: Sequence[int], prover: int, claim: int, leaf_nodes: int,
                 answers: dict[str, int | None] | None = None) -> None:
        self.solver, self.prover, self.claim, self.leaf_nodes = solver, prover, claim, leaf_nodes
        self.answers: dict[str, int | None] = answers if answers is not None else {}
        self.expanded = 0
        self.searched = 0  # leaves given to the solver (not answered from `answers`)
        self.root = _Node(tuple(line), self._to_move(line) == prover)
        self.root.settle(self._answer(self.root))

    # -- one leaf

    def _to_move(self, line: Sequence[int]) -> int:
        return len(line) % 2  # White first and no passing: the ply's parity is the side to move

    def _answer(self, node: _Node) -> int | None:
        key = line_text(node.line)
        if key in self.answers:
            return self.answers[key]
        # the mover's null-window test: the prover's own claim, or the other side's refutation
        mover_needs = self.claim if node.prover_to_move else 1 - self.claim
        stop, chunk = self.solver.stop, self.solver.chunk
        self.solver.stop, self.solver.chunk = (lambda: True), self.leaf_nodes
        try:
            answer = self.solver.value(list(node.line), mover_needs - 1, mover_needs)
        finally:
            self.solver.stop, self.solver.chunk = stop, chunk
        self.searched += 1
        if answer is None:
            result = OPEN
        else:
            mover_gets_it = answer[0] >= mover_needs
            result = PROVEN if mover_gets_it == node.prover_to_move else DISPROVEN
        self.answers[key] = result
        return result

    # -- the tree

    def _expand(self, node: _Node) -> None:
        core = PythonCore(Rules(size=self.solver.size))
        for code in node.line:
            core.push(Move(self.solver.point_of(code)))
        codes = sorted(self.solver.code_of(move.point) for move in core.legal_moves())
        self.expanded += 1
        for code in codes:
            child = _Node(node.line + (code,), not node.prover_to_move, node)
            child.settle(self._answer(child))
            node.children.append(child)
            # the node is settled by this child: the rest need not be searched
            if (child.proof == 0) if node.prover_to_move else (child.disproof == 0):
                break
        node.recount()  # a node is expanded only when open, so never at the game's end (one node)

    def _most_proving(self) -> _Node:
        node = self.root
        while node.children:
            if node.prover_to_move:
                node = min(node.children, key=lambda child: child.proof)
            else:
                node = min(node.children, key=lambda child: child.disproof)
        return node

    def step(self) -> None:
        """Expand the most-proving leaf and recount its ancestors."""
        node = self._most_proving()
        self._expand(node)
        node = node.parent
        while node is not None:
            before = (node.proof, node.disproof)
            node.recount()
            if (node.proof, node.disproof) == before:
                break
            node = node.parent

    def settled(self) -> int | None:
        """PROVEN (1), DISPROVEN (0), or None while the root is open."""
        if self.root.proof == 0:
            return PROVEN
        if self.root.disproof == 0:
            return DISPROVEN
        return OPEN

    def run(self, stop: Callable[[], bool] = lambda: False,
            on_step: Callable[["ProofNumberSearch"], None] | None = None) -> int | None:
        """Expand until the root is settled or ``stop()``; the root's answer (None: open)."""
        while self.settled() is OPEN and not stop():
            self.step()
            if on_step is not None:
                on_step(self)
        return self.settled()

    def proving_moves(self) -> dict[tuple[int, ...], int]:
        """The proven tree's moves: at each proven line where the prover is to move, the point
        code of a proven reply (the first found); the proof writer's moves at the top, where
        the solver alone would not settle them (:func:`.proof.result_proof_text`)."""
        moves: dict[tuple[int, ...], int] = {}
        stack = [self.root] if self.root.proof == 0 else []
        while stack:
            node = stack.pop()
            if node.prover_to_move:
                proven = next((child for child in node.children if child.proof == 0), None)
                if proven is not None:
                    moves[node.line] = proven.line[-1]
                    stack.append(proven)
            else:
                stack.extend(node.children)
        return moves

    def proven_move(self) -> int | None:
        """The point code of the prover's move at the root (the prover to move there) once the
        root is proven: its proven child, or, where the root's own leaf settled it, the move
        the solver's table now holds; None if the root is not proven."""
        if self.root.proof != 0 or not self.root.prover_to_move:
            return None
        code = self.proving_moves().get(self.root.line)
        if code is None:  # settled by the root's own leaf: the table has its move now
            value, code = self.solver.value(list(self.root.line), self.claim - 1, self.claim)
            if value < self.claim or code < 0:
                return None
        return code

    def size(self) -> int:
        count, stack = 0, [self.root]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(node.children)
        return count
