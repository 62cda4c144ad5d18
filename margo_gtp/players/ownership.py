"""Ownership: where the balls of a search's playouts end up, point by point.

Each simulation of :class:`~margo_gtp.players.mcts.MctsPlayer` ends in a position (the
tree's moves, then the playout's ``playout_moves`` random moves, or the end of the game
with ``playout_moves=-1``). :class:`Ownership` counts, for every point of the pyramid,
how often that final position holds a White ball there and how often a Black one; the
rest of the time the point is empty (a buried ball counts: it is still on the board).
``probabilities()`` turns the counts into ``(white, black, empty)`` per point, and
``expected_margin()`` into the mean ball margin ``white - black`` (komi not included).

What a search must provide to fill one: after each simulation, the final position's
ball bit sets (one int per colour over all pyramid levels, bit ``i`` = the flat point
index ``i`` of :attr:`Geometry.points`), passed to :meth:`Ownership.add_masks` -- what
the Python search does, as it goes; or the summed counts at once
(:meth:`Ownership.add_counts`) -- what the C tree (``search_tree.c``) does: each of its
threads counts the balls of its own simulations' final positions per point index (after
the playout and its evaluation, the same position the Python search counts), and
``native_search.search`` adds the threads' sums once the search has returned. So with the
C tree an Ownership's counts do not change while a search runs; what a progress callback
may read meanwhile is :meth:`Ownership.so_far`: the counts plus ``running``, the C
tree's first thread's counts so far (read by that thread itself between two of its
simulations, so without a race: all the simulations with one thread, a share of them
with more), which ``native_search.search`` sets before each progress report. With one thread and a seed both searches count the same positions, so the same
counts (tests/test_search_ownership.py). Counting is off unless a caller asks for it
(``MctsPlayer.ownership``), so games pay nothing for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from margo_gtp.engine import Colour
from margo_gtp.vertex import Point

__all__ = ["Ownership"]


class Ownership:
    """Per-point counts of White and Black balls at the ends of ``playouts`` simulations."""

    def __init__(self, points: Sequence[Point]) -> None:
        self.points = tuple(points)
        self.white = [0] * len(self.points)
        self.black = [0] * len(self.points)
        self.playouts = 0
        # (white, black, playouts) of a C search under way: its first thread's counts so far
        self.running: tuple[Sequence[int], Sequence[int], int] | None = None

    def so_far(self) -> "Ownership":
        """The counts as a search under way has them: these, plus a C search's ``running``
        counts (this object itself when there are none)."""
        if self.running is None:
            return self
        view = Ownership(self.points)
        view.add_counts(self.white, self.black, self.playouts)
        view.add_counts(*self.running)
        return view

    def add(self, board) -> None:  # noqa: ANN001 - any Board core
        """Count the balls of ``board``, the final position of one simulation."""
        self.add_masks(board.ball_mask(Colour.WHITE), board.ball_mask(Colour.BLACK))

    def add_masks(self, white_mask: int, black_mask: int) -> None:
        """Count one final position given as its two ball bit sets."""
        for counts, mask in ((self.white, white_mask), (self.black, black_mask)):
            while mask:
                low = mask & -mask
                counts[low.bit_length() - 1] += 1
                mask ^= low
        self.playouts += 1

    def add_counts(self, white: Sequence[int], black: Sequence[int], playouts: int) -> None:
        """Add counts summed over ``playouts`` simulations elsewhere (another process, a C search)."""
        if len(white) != len(self.points) or len(black) != len(self.points):
            raise ValueError(f"ownership counts must have {len(self.points)} entries")
        self.white = [a + b for a, b in zip(self.white, white)]
        self.black = [a + b for a, b in zip(self.black, black)]
        self.playouts += playouts

    def set_expected(self, values: Sequence[float], simulations: int) -> None:
        """Replace the counts by a search's expected owners: ``values[i]`` from -1 (Black's)
        to 1 (White's) for point ``i``, over ``simulations`` (the ``net`` player's averaged
        ownership head, which predicts an owner, not a ball). Each value is split into the
        least uncertain shares with that difference, ``max(v, 0)`` White, ``max(-v, 0)``
        Black and the rest empty, so :meth:`probabilities`' White less Black is ``v``."""
        if len(values) != len(self.points):
            raise ValueError(f"ownership values must have {len(self.points)} entries")
        self.running = None
        self.playouts = simulations
        self.white = [max(value, 0.0) * simulations for value in values]
        self.black = [max(-value, 0.0) * simulations for value in values]

    def probabilities(self) -> dict[Point, tuple[float, float, float]]:
        """``{point: (white, black, empty)}`` for every point, each in [0, 1] and summing
        to 1; all empty when no simulation was counted."""
        n = self.playouts
        if not n:
            return {point: (0.0, 0.0, 1.0) for point in self.points}
        return {point: (w / n, b / n, (n - w - b) / n) for point, w, b in zip(self.points, self.white, self.black)}

    def expected_margin(self) -> float:
        """Mean ``white balls - black balls`` over the counted final positions (0 when none)."""
        if not self.playouts:
            return 0.0
        return (sum(self.white) - sum(self.black)) / self.playouts
