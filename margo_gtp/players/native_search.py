"""The native MCTS search behind :mod:`.mcts` and :mod:`.playout_policy` (PEP 399 style).

``margo_gtp.players._search`` (``_search.c`` with ``search_eval.c``, ``search_policy.c`` and
``search_uct.c``) holds C ports of the search's hot steps: the leaf evaluation with its
seeded playout (:func:`simulate`), the heavy playout policy (:func:`heavy_playout`) and the
UCT+RAVE selection (:func:`uct_select_for`). They work on the C state of a board on the
native rules core (:func:`margo_gtp.engine.core.native_state`); the Python functions they
mirror stay the readable reference and the fallback, and give the same answers (tests in
tests/test_native_core.py).

Each function here answers None when the C path cannot run (the extension was not built,
or the board is on the Python core), and the caller then runs the Python code.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.engine.core import native_state


def _load() -> tuple[Any, str | None]:
    """``(module, None)``, or ``(None, why not)`` when the extension is missing or broken."""
    try:
        return importlib.import_module("margo_gtp.players._search"), None
    except ImportError as error:
        return None, str(error)


_search, unavailable_reason = _load()


def available() -> bool:
    """True if the native search extension was built and imports."""
    return _search is not None


def uct_select_for(board: Board) -> Callable[..., Any] | None:
    """``_search.uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins)``
    (the selection loop of ``MctsPlayer._descend`` in C) for a search on ``board``'s core,
    or None to run the Python loop."""
    if _search is None or native_state(board) is None:
        return None
    return _search.uct_select


def simulate(board: Board, seed: int, max_moves: int, evaluator: int, params: tuple[float, ...]) -> float | None:
    """The MCTS bulk call: ``board.seeded_playout(seed, max_moves)``, then White's result --
    exact (1, 0 or 1/2) if the game is over, else the C port of ``mcts.heuristic_evaluator``
    (``evaluator`` 0, with ``params`` = (scale_min, scale_per_point, freedom_value,
    short_of_freedoms_loss, group_cost, ladder_depth)) or of ``mcts.territory_evaluator``
    (1). One crossing of the Python/C boundary. None, with nothing played, off the C path."""
    state = native_state(board)
    if _search is None or state is None:
        return None
    rules = board.rules
    return _search.simulate(state, seed & 0xFFFFFFFFFFFFFFFF, max_moves, rules.komi, rules.scoring == "territory",
                            evaluator, params)


def heavy_playout(board: Board, rng: random.Random, max_moves: int, tactics: float) -> int | None:
    """``playout_policy.HeavyPolicy(tactics).play(board, rng, max_moves)`` in one C call: the
    same moves from the same draws of ``rng`` (a :class:`random.Random`, whose state goes
    in and comes back). None, with nothing played, off the C path or when ``rng`` is
    another generator: the Python policy then plays."""
    from margo_gtp.engine.native import uses_mersenne_twister

    state = native_state(board)
    if _search is None or state is None or not uses_mersenne_twister(rng):
        return None
    version, internal, gauss = rng.getstate()
    played, internal = _search.heavy_playout(state, internal, max_moves, tactics)
    rng.setstate((version, internal, gauss))
    return played


def _move_of(board: Board, code: int) -> Move:
    """The move of a C move code: a point index, -1 pass, -2 swap."""
    if code == -1:
        return Move.PASS
    if code == -2:
        return Move.SWAP
    return Move(board.geometry.points[code])


def tree_search(player: Any, board: Board, colour: Colour, playouts: int,
                max_nodes: int = 1 << 24) -> tuple[int, list[tuple], bool] | None:
    """``player.search(board, colour, playouts=playouts)`` (an :class:`.mcts.MctsPlayer`
    with reuse off, the light playout policy and a built-in evaluator) run by the C tree
    (``search_tree.c``), drawing from ``player.rng`` exactly as the Python search does.
    Returns (simulations, every node in preorder as (depth, move code, n, w, rave_n,
    rave_w, prior), whether the pool reached ``max_nodes``), or None off the C path.

    Not yet the player's search: tree reuse, time budgets, stop requests, analysis and
    threads are the next steps of issue #23."""
    from margo_gtp.players import mcts

    state = native_state(board)
    code = mcts._NATIVE_EVALUATORS.get(player.evaluator)
    if _search is None or state is None or code is None or player.policy is not None:
        return None

    def priors(path: list[int], to_move: int, codes: list[int]) -> list[float]:
        work = board.copy()
        for move_code in path:
            work.push(_move_of(work, move_code))
        return player._prior_rates(work, [_move_of(work, c) for c in codes], to_move)

    rules = board.rules
    params = (player.uct_c, player.rave_k, mcts.PRIOR_VISITS, mcts.PRIOR_VALUE * mcts.PRIOR_VISITS, mcts.PRIOR_VALUE,
              player.expand_visits, player.prior_depth, player.prior_visits, mcts.DECIDED_CHECK_EVERY,
              player.playout_moves if player.playout_moves >= 0 else mcts.PLAYOUT_CAP, player.early_stop,
              rules.scoring == "territory", code, rules.komi, mcts._native_params(player.ladder_depth))
    version, internal, gauss = player.rng.getstate()
    done, internal, nodes, full = _search.tree_search(state, int(colour), internal, params, playouts, max_nodes, priors)
    player.rng.setstate((version, internal, gauss))
    return done, nodes, full
