"""The exact solver of small boards, from Python: :class:`ExactSolver` over the C search of
``solver.c`` (``_solver.Solver``; docs/solving.md has the method and the results).

A *line* is the moves played from the empty board, as point codes (the flat point index of
:mod:`margo_gtp.engine.geometry`); the solver replays it, history included, so situational
superko is judged on the real game. Values are ball margins for the side to move after the
line, under the default rules (``rules.md`` section 9) and perfect play.

The C search is called in chunks of nodes (``chunk``): what a chunk finished stays in its
transposition table, so the next chunk starts again from the root with that knowledge (a
restart is cheap, and it reorders the search by what was learnt, as iterative deepening
does). The exact margin comes from null-window tests ("is the margin at least v?"),
stepped from a guess, as MTD(f) does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from margo_gtp.engine.geometry import geometry
from margo_gtp.vertex import Point

__all__ = ["ExactSolver", "SolveProgress", "SolverUnavailable", "load_solver_type"]

#: The table of each size: 2^bits slots of 40 bytes (160 MiB on 4x4).
TABLE_BITS = {2: 12, 3: 20, 4: 22, 5: 22}
#: The bytes of one table slot (solver_core.h's SolverEntry): a saved table is 2^bits of them.
TABLE_SLOT_BYTES = 40
CHUNK = 1_000_000
#: :meth:`ExactSolver.result`'s answers in words, for the side to move.
RESULT_WORDS = {1: "wins", 0: "draws", -1: "loses"}


class SolverUnavailable(RuntimeError):
    """The C solver was not built (no compiler when installed): the solver needs it."""


def load_solver_type():
    """The C solver's type, or :class:`SolverUnavailable` saying how to build it."""
    try:
        from margo_gtp.players._solver import Solver
    except ImportError:
        raise SolverUnavailable("the exact solver needs the C extension margo_gtp.players._solver "
                                "(build it: python setup.py build_ext --inplace)") from None
    return Solver


@dataclass(frozen=True)
class SolveProgress:
    """What a chunk reports: nodes so far (all calls), seconds since the solver was made,
    the longest line searched, the filled table slots, and the horizon of the round it stopped
    in (plies from the searched position: the search's depth so far, docs/solving.md)."""

    nodes: int
    seconds: float
    deepest: int
    table_used: int
    horizon: int = 0

    @property
    def rate(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class ExactSolver:
    """The solver of one board size (2..5): ``value`` for a window, ``exact`` for the margin."""

    def __init__(self, size: int, table_bits: int | None = None, chunk: int = CHUNK,
                 on_chunk: Callable[[SolveProgress], None] | None = None) -> None:
        solver_type = load_solver_type()
        self.size = size
        self.table_bits = table_bits if table_bits is not None else TABLE_BITS.get(size, 22)
        self._solver = solver_type(size, self.table_bits)
        self._geometry = geometry(size)
        self.chunk = chunk
        self.on_chunk = on_chunk
        self._started = time.monotonic()
        self.stop: Callable[[], bool] = lambda: False

    # -- moves and codes

    def code_of(self, point: Point) -> int:
        return self._geometry.index[point]

    def point_of(self, code: int) -> Point:
        return self._geometry.points[code]

    # -- the table (checkpoints)

    def table(self) -> bytes:
        return self._solver.table()

    def load_table(self, data: bytes) -> None:
        self._solver.load_table(data)

    @property
    def nodes(self) -> int:
        return self._solver.nodes

    def progress(self) -> SolveProgress:
        return SolveProgress(self._solver.nodes, time.monotonic() - self._started, self._solver.deepest,
                             self._solver.table_used(), self._solver.horizon)

    @property
    def max_ply(self) -> int:
        """The longest line the solver searches (``SOLVER_MAX_PLY``): every horizon is below it."""
        from margo_gtp.players._solver import MAX_PLY

        return MAX_PLY

    @property
    def horizon(self) -> int:
        """The horizon of the round running or last run (plies from its root; 0 before any)."""
        return self._solver.horizon

    # -- searching

    def value(self, line: Sequence[int], alpha: int, beta: int,
              first_horizon: int = 0) -> tuple[int, int] | None:
        """The fail-soft value of the position after ``line`` in ``(alpha, beta)`` and a best
        move there (-1 at the end of the game), chunk after chunk; None when ``stop()`` said
        so between two chunks. ``first_horizon``: the rounds start there, not at the first
        (a run resumed in a new process goes on at the horizon its checkpoint had reached)."""
        while True:
            value, best, finished = self._solver.solve(list(line), alpha, beta, self.chunk, first_horizon)
            if self.on_chunk is not None:
                self.on_chunk(self.progress())
            if finished:
                return value, best
            if self.stop():
                return None

    def at_least(self, line: Sequence[int], margin: int) -> bool:
        """Does the side to move after ``line`` get a margin of at least ``margin``?"""
        answer = self.value(line, margin - 1, margin)
        if answer is None:
            raise InterruptedError("stopped")
        return answer[0] >= margin

    def result(self, line: Sequence[int]) -> int:
        """1, 0 or -1: the side to move after ``line`` wins, draws or loses under perfect
        play. At most two null-window tests ("at least 1?", then "at least 0?"): a win needs
        only the winner's strategy, where the exact margin also needs the other side's
        (on 3x3 the empty board's result took 5,551 nodes, its margin 1.3e8)."""
        if self.at_least(line, 1):
            return 1
        return 0 if self.at_least(line, 0) else -1

    def exact(self, line: Sequence[int], guess: int = 0) -> tuple[int, int]:
        """The exact margin for the side to move after ``line`` and a move that keeps it
        (-1 at the end of the game): null-window tests stepped from ``guess``."""
        lower, upper = -self._solver_inf(), self._solver_inf()
        test = guess
        while lower < upper:
            beta = test + 1 if test == lower else test
            answer = self.value(line, beta - 1, beta)
            if answer is None:
                raise InterruptedError("stopped")
            test = answer[0]
            if test < beta:
                upper = test
            else:
                lower = test
        full = self.value(line, lower - 1, lower + 1)  # the move that keeps the margin
        if full is None:
            raise InterruptedError("stopped")
        return lower, full[1]

    @staticmethod
    def _solver_inf() -> int:
        from margo_gtp.players._solver import INF

        return INF
