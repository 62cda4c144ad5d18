"""Playout policies: how the moves of a Monte-Carlo playout are chosen.

``light`` is the rules core's uniform random playout (:meth:`Board.random_playout`): every
legal move equally likely. ``heavy`` looks at the last move first, as Pachi's and
Fuego's playout policies do for Go, and answers it when it creates a local fight:

=============  ========================================================================
rule           what the mover plays (checked in this order, each with probability
               :attr:`HeavyPolicy.tactics`)
=============  ========================================================================
``capture``    the last freedom of an enemy group next to the last move (the last
               mover's own group included: a self-atari is punished)
``escape``     the last freedom of an own group next to the last move, if playing there
               leaves the group with two freedoms or more (a one-move ladder check)
``connect``    an enemy ball sits on one crossing point of an own contact (R10) and the
               other one is free next to the last move: take it, so the contact can
               never be cut
``cut``        the same for an enemy contact crossed by one of our balls: take the free
               crossing point and cut it
random         otherwise a uniformly random legal move (the light policy's move)
=============  ========================================================================

Only the neighbourhood of the last move is read (the balls next to it, on its level and
above/below it), so a move costs a few small flood fills, not a scan of the board.
Groups and freedoms are the rules core's (:meth:`Board.group_at`: R9-R12, freedoms
following ``all_freedoms``), and every move the policy plays is checked by the rules
core (``Board.is_legal``), never assumed.

A policy is an object with ``name`` and ``play(board, rng, max_moves) -> moves played``.
The light policy delegates to ``Board.random_playout``. On the native core the heavy
policy is one C call (:func:`.native_search.heavy_playout`, a move-for-move port of
:func:`local_reply` and :meth:`HeavyPolicy.play`): the same draws of the same
Mersenne Twister, so the same game as this Python loop, which stays the reference (and
plays on the Python core, or with any other generator). Both are deterministic for a
seeded ``rng``.
"""

from __future__ import annotations

import random
from typing import Protocol

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players import native_search

__all__ = ["HeavyPolicy", "LightPolicy", "PlayoutPolicy", "POLICIES", "group_at", "local_reply"]

#: Probability that the heavy policy looks for a tactical reply at a move (Pachi uses
#: about 0.9: a little randomness keeps the playouts from being too predictable).
HEAVY_TACTICS = 0.9


class PlayoutPolicy(Protocol):
    """Chooses and plays the moves of a playout (see the module docstring)."""

    name: str

    def play(self, board: Board, rng: random.Random, max_moves: int) -> int: ...


class LightPolicy:
    """Uniform random legal moves: the rules core's fast path."""

    name = "light"

    def play(self, board: Board, rng: random.Random, max_moves: int) -> int:
        return board.random_playout(rng, max_moves=max_moves)


def group_at(board: Board, start: int, colour: int) -> tuple[int, int]:
    """``(group, freedoms)`` bit sets of ``colour``'s group holding the ball at point
    ``start`` (which must be a non-buried ball of ``colour``): :meth:`Board.group_at`, one
    group walked by the rules core (in C on the native core)."""
    found = board.group_at(start)
    if found is None or not board.ball_mask(Colour(colour)) >> start & 1:
        raise ValueError(f"no group of colour {colour} at point index {start}")
    return found


def _legal_at(board: Board, i: int, colour: int) -> Move | None:
    move = Move(board.geometry.points[i])
    return move if board.is_legal(move, Colour(colour)) else None


def local_reply(board: Board, rng: random.Random, colour: int) -> Move | None:
    """The heavy policy's tactical answer for ``colour`` (to move) to the last move, or
    ``None`` when none of its rules applies (see the module table). ``board`` is unchanged."""
    last = board.peek()
    if last is None or last.point is None:
        return None
    g = board.geometry
    p = g.index[last.point]
    enemy = colour ^ 1
    buried = board.buried_mask()
    balls = (board.ball_mask(Colour.WHITE) & ~buried, board.ball_mask(Colour.BLACK) & ~buried)
    near = (g.neighbours[p] | g.vertical[p] | (1 << p)) & (balls[0] | balls[1])
    captures: list[int] = []
    escapes: list[tuple[int, int]] = []
    seen = 0
    while near:
        low = near & -near
        near ^= low
        if low & seen:
            continue
        i = low.bit_length() - 1
        owner = 0 if balls[0] & low else 1
        group, freedoms = group_at(board, i, owner)
        seen |= group
        if freedoms and freedoms & (freedoms - 1) == 0:  # exactly one freedom
            if owner == enemy:
                captures.append(freedoms.bit_length() - 1)
            else:
                escapes.append((freedoms.bit_length() - 1, group))
    for i in captures:
        move = _legal_at(board, i, colour)
        if move is not None:
            return move
    for i, group in escapes:
        move = _legal_at(board, i, colour)
        if move is not None and _escapes(board, move, colour, group):
            return move
    # Bridges (R10): the crossing points the last move touched -- those resting on it
    # (it may have completed their support) and the other crossing points of the
    # contacts it sits on.
    if board.rules.bridge_cutting:
        mine, theirs = balls[colour], balls[enemy]
        near_crossings = g.resting[p]
        for _, other in g.under[p]:
            near_crossings |= other
        cuts = []
        for q in _empty_supported(board, near_crossings):
            for pair, other in g.under[q]:
                if mine & pair == pair and theirs & other:  # one more enemy ball cuts us: connect
                    move = _legal_at(board, q, colour)
                    if move is not None:
                        return move
                elif theirs & pair == pair and mine & other:  # we hold one crossing: cut
                    cuts.append(q)
        for q in cuts:
            move = _legal_at(board, q, colour)
            if move is not None:
                return move
    return None


def _empty_supported(board: Board, points: int) -> list[int]:
    """The points of the bit set ``points`` that are empty and supported (R2)."""
    g = board.geometry
    occupied = board.ball_mask(Colour.WHITE) | board.ball_mask(Colour.BLACK)
    out = []
    points &= ~occupied
    while points:
        low = points & -points
        points ^= low
        i = low.bit_length() - 1
        support = g.support[i]
        if occupied & support == support:
            out.append(i)
    return out


def _escapes(board: Board, move: Move, colour: int, group: int) -> bool:
    """True if ``move`` (legal) leaves ``colour``'s ``group`` with two freedoms or more,
    or captures something (a one-move ladder check)."""
    before = board.captured[Colour(colour)]
    board.push(move, Colour(colour))
    try:
        if board.captured[Colour(colour)] > before:
            return True
        i = board.geometry.index[move.point]  # type: ignore[index]
        _, freedoms = group_at(board, i, colour)
        return freedoms.bit_count() >= 2
    finally:
        board.pop()


class HeavyPolicy:
    """Answer the last move's local fight when there is one, else play at random."""

    name = "heavy"

    def __init__(self, tactics: float = HEAVY_TACTICS) -> None:
        self.tactics = tactics

    def play(self, board: Board, rng: random.Random, max_moves: int) -> int:
        played = native_search.heavy_playout(board, rng, max_moves, self.tactics)  # the same loop in C
        if played is not None:
            return played
        played = 0
        while played < max_moves:
            move = None
            if rng.random() < self.tactics:
                move = local_reply(board, rng, int(board.to_move))
            if move is not None:
                board.push(move)
            elif not board.random_playout(rng, max_moves=1):
                break  # no legal move or the game is over (the core's playout says so)
            played += 1
        return played


POLICIES = {"light": LightPolicy, "heavy": HeavyPolicy}
