"""The proof writer: the exact margin of a small board as two strategy trees that
:mod:`.proof_check` replays on the pure-Python rules core.

A proof file (format ``margo-proof 1``) is text. Its header (``key: value`` lines) names the
format, the rules (``default``: rules.md section 9), the size, the value (White's margin
under perfect play, ``W+1``, ``B+2`` or ``0``) and the node count; then two trees:

* ``tree white-at-least N``: White's strategy that ends every game with White's margin at
  least N: one move where White is to move, every legal reply of Black;
* ``tree white-at-most N``: Black's strategy that holds White to at most N.

Together they prove the value exactly. A node is one line, ``DEPTH VERTEX`` (the move
played at that depth, 1 for the first move), in preorder; a game that ends has no child.
The file ends with ``end``. The strategies are the solver's (:mod:`.solver`); the proof
does not trust it: the checker replays every line with the whole history.
"""

from __future__ import annotations

from pathlib import Path

from margo_gtp.engine.board import Board
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import WHITE, Move
from margo_gtp.files import write_atomically
from margo_gtp.players.solver import ExactSolver
from margo_gtp.vertex import format_vertex

__all__ = ["FORMAT", "ProofError", "format_value", "proof_text", "strategy_lines", "write_proof"]

FORMAT = "margo-proof 1"


class ProofError(RuntimeError):
    """The solver's move did not keep the claimed margin (the table misled it)."""


def format_value(white_margin: int) -> str:
    """White's margin as a result: ``W+1``, ``B+2``, ``0``."""
    if white_margin == 0:
        return "0"
    return f"W+{white_margin}" if white_margin > 0 else f"B+{-white_margin}"


def _strategy(solver: ExactSolver, board: Board, line: list[int], prover: int, claim: int, out: list[str]) -> None:
    """Append the subtree at ``board`` (after ``line``): ``prover`` (0 White, 1 Black) keeps
    its margin at least ``claim`` (from its own side)."""
    moves = board.legal_moves()
    if not moves:
        return
    depth = len(line) + 1
    mover = 0 if board.to_move is WHITE else 1
    if mover == prover:
        value, best = solver.value(line, claim - 1, claim) or (claim - 1, -1)
        if value < claim or best < 0:
            raise ProofError(f"after {len(line)} moves the solver found no move keeping {claim}")
        moves = [Move(solver.point_of(best))]
    for move in moves:
        out.append(f"{depth} {format_vertex(move.point)}")
        board.push(move)
        line.append(solver.code_of(move.point))
        _strategy(solver, board, line, prover, claim, out)
        line.pop()
        board.pop()


def strategy_lines(size: int, prover: int, claim: int, solver: ExactSolver | None = None) -> list[str]:
    """One strategy tree from the empty board, as node lines: ``prover`` (0 White, 1 Black)
    keeps its margin at least ``claim``; a one-sided bound where the value is not known
    (:func:`.proof_check.check_strategy` checks it). :class:`ProofError` if the solver
    cannot keep the claim."""
    out: list[str] = []
    _strategy(solver or ExactSolver(size), Board(Rules(size=size)), [], prover, claim, out)
    return out


def proof_text(size: int, solver: ExactSolver | None = None) -> str:
    """The whole proof file of a ``size`` board under the default rules."""
    solver = solver or ExactSolver(size)
    margin, _ = solver.exact([])  # White moves first: the root's margin is White's
    at_least: list[str] = []
    at_most: list[str] = []
    _strategy(solver, Board(Rules(size=size)), [], 0, margin, at_least)
    _strategy(solver, Board(Rules(size=size)), [], 1, -margin, at_most)
    header = [f"format: {FORMAT}", "rules: default", f"size: {size}", f"value: {format_value(margin)}",
              f"nodes: {len(at_least) + len(at_most)}"]
    return "\n".join([*header, f"tree white-at-least {margin}", *at_least,
                      f"tree white-at-most {margin}", *at_most, "end"]) + "\n"


def write_proof(path: Path, size: int, solver: ExactSolver | None = None) -> str:
    text = proof_text(size, solver)
    write_atomically(path, text)
    return text
