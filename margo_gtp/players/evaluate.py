"""How a playout's last position is scored, and the playout itself (step 2 of a simulation).

:func:`heuristic_evaluator` (the R19 territory count corrected for groups in atari, weak
shape and freedoms, as a winning chance) and :func:`territory_evaluator` (the sign of the
count) score a position for White; :func:`playout` and :func:`seeded_playout` play random
moves first. Both searchers use them: the Python tree (:mod:`.python_tree`) through these
functions, the C tree through their C ports (``search_eval.c``, the same floats). The
evaluator's tunables are a :class:`~.search_config.SearchConfig`'s ``eval_*`` fields when
a search passes its ``config``, else the tunables block of :mod:`.search_config` as it is
at the call (so a test may change ``search_config.LADDER_DEPTH``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, NamedTuple

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players import native_search
from margo_gtp.players import search_config as tunables
from margo_gtp.players.playout_policy import PlayoutPolicy

__all__ = ["EVALUATORS", "can_escape", "final_margin", "heuristic_evaluator", "ladder_captures", "playout",
           "seeded_playout", "territory_evaluator"]

_COLOURS = (Colour.WHITE, Colour.BLACK)  # Colour(c) without the enum call


class EvalTunables(NamedTuple):
    """The heuristic evaluator's tunables, by the field names of :class:`SearchConfig` (the C
    evaluator reads them by name from either)."""

    eval_scale_min: float
    eval_scale_per_point: float
    freedom_value: float
    short_of_freedoms_loss: float
    group_cost: float
    ladder: int  # ataris read ahead (SearchConfig.ladder)


def eval_tunables(ladder_depth: int | None = None, config: Any = None) -> Any:
    """``config`` (a SearchConfig) when given, else the tunables block as it is now, with
    ``ladder_depth`` (None: ``LADDER_DEPTH``)."""
    if config is not None:
        return config
    return EvalTunables(tunables.EVAL_SCALE_MIN, tunables.EVAL_SCALE_PER_POINT, tunables.FREEDOM_VALUE,
                        tunables.SHORT_OF_FREEDOMS_LOSS, tunables.GROUP_COST,
                        tunables.LADDER_DEPTH if ladder_depth is None else ladder_depth)


def final_margin(board: Board) -> float:
    """White's score minus Black's, komi included, of a simulation's final position: the
    final score when the game is over (the scores :meth:`Board.outcome` compares), else the
    R19 territory count that both evaluators start from. What the searches back up as a
    score (``Node.score_sum``): a ball count of an unfinished position would mostly say
    who moved last. The C tree's twin is ``final_margin`` in ``search_eval.c``."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome.white_score - outcome.black_score
    white, black = board.score("territory")
    return white - black


def territory_evaluator(board: Board) -> float:
    """White's result from the sign of the R19 territory count (komi included): 1, 1/2 or 0."""
    white, black = board.score("territory")
    if white == black:
        return 0.5
    return 1.0 if white > black else 0.0


def _freedoms_through(board: Board, colour: int, ball: int) -> int | None:
    """The freedoms (bit set) of ``colour``'s group holding the ball at bit ``ball``;
    None when no group of ``colour`` holds it (the ball was taken, or is buried)."""
    index = ball.bit_length() - 1
    if not board.ball_mask(_COLOURS[colour]) & ball:
        return None
    found = board.group_at(index)  # None: buried
    return None if found is None else found[1]


def can_escape(board: Board, colour: int, freedom: int, depth: int = 0) -> bool:
    """True if ``colour``, to move, saves its group whose last freedom is the bit
    ``freedom`` by playing there: the move is legal and captures, or leaves the group
    with three freedoms or more, or with two that the opponent cannot take by a ladder of
    at most ``depth`` more ataris (:func:`ladder_captures`; ``depth`` 0: two freedoms are
    safe, the one-move check). ``board`` is unchanged."""
    i = freedom.bit_length() - 1
    move = Move(board.geometry.points[i])
    if not board.is_legal(move, Colour(colour)):
        return False
    captured = board.captured[Colour(colour)]
    board.push(move, Colour(colour))
    try:
        if board.captured[Colour(colour)] > captured:
            return True
        liberties = _freedoms_through(board, colour, freedom)
        count = 0 if liberties is None else liberties.bit_count()
        if count >= 3 or (count == 2 and depth <= 0):
            return True
        if count < 2:
            return False
        return not ladder_captures(board, colour ^ 1, freedom, liberties, depth)  # type: ignore[arg-type]
    finally:
        board.pop()


def ladder_captures(board: Board, attacker: int, ball: int, liberties: int, depth: int) -> bool:
    """True if ``attacker``, to move, takes the group holding the ball at bit ``ball``,
    whose two freedoms are ``liberties``, by an atari on one of them that the group cannot
    escape (:func:`can_escape` with ``depth - 1``): a ladder read to ``depth`` ataris.
    Both freedoms are tried, so nets count as well as ladders. ``board`` is unchanged."""
    defender = attacker ^ 1
    rest = liberties
    while rest:
        point = rest & -rest
        rest ^= point
        move = Move(board.geometry.points[point.bit_length() - 1])
        if not board.is_legal(move, Colour(attacker)):
            continue
        board.push(move, Colour(attacker))
        try:
            left = _freedoms_through(board, defender, ball)
            count = 0 if left is None else left.bit_count()
            if count == 0:
                return True  # taken by the atari itself
            if count == 1 and not can_escape(board, defender, left, depth - 1):  # type: ignore[arg-type]
                return True
        finally:
            board.pop()
    return False


def heuristic_evaluator(board: Board, ladder_depth: int | None = None, config: Any = None) -> float:
    """White's winning chance from a static reading of the position, squashed by a logistic.

    The margin (White minus Black) is the R19 territory count (balls plus the pyramids
    each side's walls can still hold; komi included), corrected for groups down to one
    freedom: those of the side *not* to move are counted as lost (the mover takes them);
    those of the mover too unless playing on the last freedom saves them
    (:func:`can_escape`, reading ladders ``ladder_depth`` ataris deep; None:
    ``LADDER_DEPTH``). Groups down to two freedoms: those of the side not to move that the
    mover takes by a ladder (:func:`ladder_captures`) are counted as lost, the others
    lose a share (``SHORT_OF_FREEDOMS_LOSS``). Plus the freedom
    difference and a cost per group (connected shape, as the heuristic player judges). The logistic's
    scale shrinks as the board plane fills (``EVAL_SCALE_MIN`` + ``EVAL_SCALE_PER_POINT``
    per empty board-plane point): an early lead is less certain than a late one. The
    tunables are ``config``'s when given (a SearchConfig: its ``ladder_depth`` too), else
    the tunables block's (:func:`eval_tunables`).
    """
    from margo_gtp.players.heuristic import groups_with_freedoms

    t = eval_tunables(ladder_depth, config)
    depth = t.ladder
    white, black = board.score("territory")
    margin = white - black
    mover = int(board.to_move)
    for colour, sign in ((0, 1.0), (1, -1.0)):
        freedoms = 0
        groups = groups_with_freedoms(board, colour)
        for group, liberties in groups:
            count = liberties.bit_count()
            freedoms += count
            if count == 1 and (colour != mover or not can_escape(board, colour, liberties, depth)):
                margin -= sign * group.bit_count()
            elif count == 2:
                taken = (colour != mover and depth > 0
                         and ladder_captures(board, mover, group & -group, liberties, depth))
                margin -= sign * (1.0 if taken else t.short_of_freedoms_loss) * group.bit_count()
        margin += sign * (t.freedom_value * freedoms - t.group_cost * len(groups))
    occupied = board.ball_mask(Colour.WHITE) | board.ball_mask(Colour.BLACK)
    empty = (board.geometry.board_plane & ~occupied).bit_count()
    scale = t.eval_scale_min + t.eval_scale_per_point * empty
    return _logistic(margin / scale)


def _logistic(x: float) -> float:
    """``1 / (1 + e^-x)`` as the C twin computes it (search_eval.c): where ``e^-x``
    overflows (a komi of -5000 makes a margin that large) C's ``exp`` gives infinity and
    the rate 0; Python's raises OverflowError, so it is given the same infinity here."""
    try:
        power = math.exp(-x)
    except OverflowError:
        power = math.inf
    return 1.0 / (1.0 + power)


EVALUATORS: dict[str, Callable[[Board], float]] = {
    "heuristic": heuristic_evaluator,
    "territory": territory_evaluator,
}
_NATIVE_EVALUATORS = {heuristic_evaluator: 0, territory_evaluator: 1}


def playout(board: Board, rng: random.Random, max_moves: int = tunables.PLAYOUT_MOVES,
            evaluator: Callable[[Board], float] = heuristic_evaluator,
            policy: PlayoutPolicy | None = None, ladder_depth: int | None = None, config: Any = None) -> float:
    """Play random moves on ``board`` (changing it) and return White's result in [0, 1].

    At most ``max_moves`` moves (0: none, just evaluate; a negative number: to the end,
    at most ``PLAYOUT_CAP`` moves, or ``config.playout_cap``), chosen by ``policy``
    (default: uniform random, the rules core's :meth:`Board.random_playout`; see
    :mod:`.playout_policy`). The result is the exact outcome when the game is over (1 White
    win, 0 Black win, 1/2 draw), otherwise ``evaluator(board)`` (a built-in one with
    ``config``'s tunables, see :func:`heuristic_evaluator`).
    """
    if max_moves:
        limit = max_moves if max_moves > 0 else _cap(config)
        if policy is None:
            board.random_playout(rng, max_moves=limit)
        else:
            policy.play(board, rng, limit)
    return _result(board, evaluator, ladder_depth, config)


def _cap(config: Any) -> int:
    return tunables.PLAYOUT_CAP if config is None else config.playout_cap


def _result(board: Board, evaluator: Callable[[Board], float], ladder_depth: int | None = None,
            config: Any = None) -> float:
    """White's result: exact if the game is over, else ``evaluator(board)`` (a built-in
    evaluator with :func:`eval_tunables`)."""
    code = _NATIVE_EVALUATORS.get(evaluator)
    if code is not None:  # the same evaluation in C, no moves played (None: not on the C path)
        result = native_search.simulate(board, 0, 0, code, eval_tunables(ladder_depth, config))
        if result is not None:
            return result
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.5
        return 1.0 if outcome.winner is Colour.WHITE else 0.0
    if evaluator is heuristic_evaluator:
        return heuristic_evaluator(board, ladder_depth, config)
    return evaluator(board)


def seeded_playout(board: Board, seed: int, max_moves: int = tunables.PLAYOUT_MOVES,
                   evaluator: Callable[[Board], float] = heuristic_evaluator,
                   ladder_depth: int | None = None, config: Any = None) -> float:
    """:func:`playout` with the random moves drawn from splitmix64 seeded by ``seed``
    (:meth:`Board.seeded_playout`), so a seeded search plays the same simulations on both
    rules cores. On the native core with a built-in evaluator, the playout and the
    evaluation are one call (:func:`.native_search.simulate`: C ports of
    :func:`heuristic_evaluator` and :func:`territory_evaluator`, reading the tunables of
    :func:`eval_tunables` by name); otherwise the Python evaluator runs.
    """
    code = _NATIVE_EVALUATORS.get(evaluator)
    if code is not None:
        result = native_search.simulate(board, seed, max_moves if max_moves >= 0 else _cap(config), code,
                                        eval_tunables(ladder_depth, config))
        if result is not None:
            return result
    if max_moves:
        board.seeded_playout(seed, max_moves=max_moves if max_moves > 0 else _cap(config))
    return _result(board, evaluator, ladder_depth, config)
