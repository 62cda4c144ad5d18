"""Fixed positions for benchmarks and tests: seeded, so every run and every core sees the same boards."""

from __future__ import annotations

import random

from margo_gtp.engine.board import Board
from margo_gtp.engine.rules import Rules

MIDGAME_SEEDS = (11, 23, 37, 41, 59, 67, 73, 89)
# A seeded random game is searched up to this many plies for a mid-game position.
SEARCH_PLIES = 2000


def midgame_positions(size: int = 9, count: int = 5) -> list[Board]:
    """Fixed mid-game positions with stacks (level 3) and zombies, from seeded random games."""
    positions = []
    for seed in MIDGAME_SEEDS:
        rng = random.Random(seed)
        board = Board(Rules(size=size))
        for ply in range(SEARCH_PLIES):
            if board.random_playout(rng, max_moves=1) == 0:
                break
            if ply >= 150 and any(p.level >= 2 for p in board.balls()) and board.zombies():
                positions.append(board)
                break
        if len(positions) == count:
            break
    return positions
