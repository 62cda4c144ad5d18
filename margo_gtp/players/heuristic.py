"""The heuristic player: a one-ply evaluation a beginner would recognise.

Every legal move is tried (push, look, pop) and the resulting position is scored for
the mover by a few weighted features, each one a rule of thumb from Go or MarGo:

=====================  =================================================================
feature                rule of thumb
=====================  =================================================================
``captures``           take balls: each enemy ball removed by the move
``own_in_atari``       don't leave (or put) your balls down to one freedom: self-atari,
                       or a group in atari not saved (counts the balls at risk)
``enemy_in_atari``     put enemy groups down to one freedom (balls threatened)
``own_groups``         fewer own groups is better: climbing onto a pyramid point links
                       the groups under it (R9a), so "climb to link groups" scores here
``enemy_groups``       more enemy groups is better: a ball on a crossing point cuts an
                       enemy contact (R10, "cut with bridges")
``freedoms``           own freedoms minus enemy freedoms (board-plane points, R12)
``centre``             early in the game, prefer points near the centre of the plane
=====================  =================================================================

A pass (legal only with ``allow_pass``, R20) is not scored by these features, which
would rate it above every move because it risks nothing. It is valued by what it leads
to: when it ends the game (the opponent passed just before) it is the best move if the
game is then won and the worst if not; otherwise it scores below every real move, so
the player passes first only when it has nothing else.

Ties are broken by a seeded random number (``seed`` option), so the player is
deterministic for a seed. It ignores the time budget (one ply is fast: one push, a
flood fill of the groups and one pop per legal move).

What is enforced: only moves from ``board.legal_moves(colour)``. What is not: any
look-ahead beyond the move itself; it does not resign.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players.base import Budget

__all__ = ["HeuristicPlayer", "Weights", "group_report", "groups_with_freedoms"]


@dataclass(frozen=True)
class Weights:
    """Feature weights (see the module table). The defaults were set by hand and checked
    with short ``scripts/strength`` runs against ``random``."""

    captures: float = 10.0
    own_in_atari: float = -6.0
    enemy_in_atari: float = 2.0
    own_groups: float = -1.5
    enemy_groups: float = 1.0
    freedoms: float = 0.3
    centre: float = 1.0
    centre_moves: int = 12     # plies (of the whole game) during which the centre counts
    noise: float = 0.01        # size of the seeded tie-break
    decisive: float = 1e6      # a pass that ends the game: + this when won, - when not; else below any move


def groups_with_freedoms(board: Board, colour: int) -> list[tuple[int, int]]:
    """Every group of ``colour`` in ``board`` as ``(balls, freedoms)`` bit sets.

    The rules core's bit sets (:meth:`Board.group_freedoms`); buried
    balls belong to no group (R8), and freedoms are empty board-plane points (R12; with
    ``all_freedoms`` the supported empty points of any level).
    """
    return board.group_freedoms(colour)


def group_report(board: Board, colour: int) -> tuple[int, int, int, int]:
    """For ``colour`` in ``board``: ``(groups, balls in groups with exactly one freedom,
    total freedoms over groups, freedomless groups)``."""
    groups = in_atari = freedoms = freedomless = 0
    for group, liberties in groups_with_freedoms(board, colour):
        count = liberties.bit_count()
        groups += 1
        freedoms += count
        if count == 1:
            in_atari += group.bit_count()
        elif count == 0:
            freedomless += 1
    return groups, in_atari, freedoms, freedomless


class HeuristicPlayer:
    """One-ply evaluation (see the module docstring); ``Move.PASS`` when there is no move."""

    name = "heuristic"

    def __init__(self, rng: random.Random | None = None, weights: Weights | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.weights = weights or Weights()

    def evaluate(self, board: Board, move: Move, colour: Colour) -> float:
        """Score of ``move`` for ``colour`` (``move`` must be legal; ``board`` is unchanged)."""
        w = self.weights
        if move.is_pass:
            return self._pass_value(board, colour)
        c = int(colour)
        captured_before = board.captured[colour]
        board.push(move, colour)
        try:
            captures = board.captured[colour] - captured_before
            own_groups, own_atari, own_freedoms, _ = group_report(board, c)
            enemy_groups, enemy_atari, enemy_freedoms, _ = group_report(board, c ^ 1)
        finally:
            board.pop()
        score = (w.captures * captures + w.own_in_atari * own_atari + w.enemy_in_atari * enemy_atari
                 + w.own_groups * own_groups + w.enemy_groups * enemy_groups
                 + w.freedoms * (own_freedoms - enemy_freedoms))
        plies = len(board.history)
        if move.point is not None and plies < w.centre_moves:
            centre = (board.size - 1 - move.point.level) / 2
            distance = abs(move.point.x - centre) + abs(move.point.y - centre)
            score -= w.centre * distance * (1 - plies / w.centre_moves)
        return score

    def _pass_value(self, board: Board, colour: Colour) -> float:
        """R20: a pass that ends the game is worth its result; any other pass only
        hands the opponent the choice, so it ranks below every real move."""
        board.push(Move.PASS, colour)
        try:
            outcome = board.outcome()
        finally:
            board.pop()
        if outcome is None:
            return -self.weights.decisive / 2
        return self.weights.decisive if outcome.winner == colour else -self.weights.decisive

    def select_move(self, board: Board, colour: Colour, budget: Budget) -> Move:
        moves = board.legal_moves(colour)
        if not moves:
            return Move.PASS
        work = board.copy()
        best, best_score = moves[0], -float("inf")
        for move in moves:
            score = self.evaluate(work, move, colour) + self.weights.noise * self.rng.random()
            if score > best_score:
                best, best_score = move, score
        return best

    def notify(self, board: Board, move: Move, colour: Colour) -> None:
        """Stateless: nothing to follow."""

    def reset(self, board: Board) -> None:
        """Stateless: nothing to reset."""


def make_heuristic(options: dict[str, str], seed: int | None) -> HeuristicPlayer:
    """Registry factory: ``heuristic`` or ``heuristic:seed=3`` (no other options)."""
    from margo_gtp.players import PlayerSpecError

    if options:
        raise PlayerSpecError(f"unknown option(s) for player 'heuristic': {', '.join(sorted(options))}")
    return HeuristicPlayer(random.Random(seed))
