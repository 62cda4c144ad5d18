"""The uniform random player: every legal move equally likely, from a seeded RNG."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from margo_gtp.players.base import Budget

if TYPE_CHECKING:
    from margo_gtp.engine import Board, Colour, Move

__all__ = ["RandomPlayer"]


class RandomPlayer:
    """Chooses uniformly among ``board.legal_moves(colour)`` (pass and swap included when
    the rules make them legal); ``Move.PASS`` when there is none. Ignores the budget.
    Deterministic for a given seed and sequence of calls."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()

    def select_move(self, board: "Board", colour: "Colour", budget: Budget) -> "Move":
        from margo_gtp.engine import Move

        moves = board.legal_moves(colour)
        if not moves:
            return Move.PASS
        return self.rng.choice(moves)

    def notify(self, board: "Board", move: "Move", colour: "Colour") -> None:
        """Stateless: nothing to follow."""

    def reset(self, board: "Board") -> None:
        """Stateless: nothing to reset."""
