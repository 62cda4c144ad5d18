"""The plain brute force that checks the exact solver: full-width negamax with alpha-beta
and nothing else (no table, no symmetry, no move ordering), on the pure-Python rules core
(:class:`~margo_gtp.engine.python_core.PythonCore`), which keeps the whole history and so
judges situational superko on every line exactly.

It shares no code with the solver (``solver.c`` plays through the C rules core, with its
own keys, table and ordering): where the two agree, the table's handling of superko did no
harm. It is exponential; it serves the 2x2 board and late positions of the 3x3 board
(tests/test_solver.py, docs/solving.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import BLACK, WHITE, Move

__all__ = ["brute_force_value", "BruteForceTooBig"]


class BruteForceTooBig(RuntimeError):
    """The search passed its node or depth limit."""


def _margin_for_mover(core: PythonCore) -> int:
    counts = core.ball_counts()
    white, black = counts[WHITE], counts[BLACK]
    return white - black if core._to_move == 0 else black - white


def brute_force_value(size: int, line: Iterable[Move] = (), node_limit: int = 10_000_000,
                      depth_limit: int = 400) -> tuple[int, int]:
    """``(margin, nodes)``: the exact ball margin for the side to move after ``line`` (moves
    from the empty board, default rules), and the nodes it took."""
    core = PythonCore(Rules(size=size))
    for move in line:
        core.push(move)
    nodes = 0

    def negamax(alpha: int, beta: int, depth: int = 0) -> int:
        nonlocal nodes
        nodes += 1
        if nodes > node_limit:
            raise BruteForceTooBig(f"more than {node_limit} nodes")
        if depth > depth_limit:  # Python's stack, not the rules, ends the line here
            raise BruteForceTooBig(f"a line of more than {depth_limit} plies")
        moves = core.legal_moves()
        if not moves:
            return _margin_for_mover(core)
        best = -1000
        for move in moves:
            core.push(move)
            value = -negamax(-beta, -max(alpha, best), depth + 1)
            core.pop()
            if value > best:
                best = value
                if best >= beta:
                    break
        return best

    return negamax(-1000, 1000), nodes
