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

from margo_gtp.engine import Board
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
