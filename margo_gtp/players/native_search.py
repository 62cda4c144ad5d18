"""The native MCTS search behind :mod:`.mcts` and :mod:`.playout_policy` (PEP 399 style).

``margo_gtp.players._search`` (``_search.c`` with ``search_eval.c``, ``search_policy.c``,
``search_uct.c``, ``search_prior.c`` and ``search_tree.c``) holds C ports of the search's
hot steps: the leaf evaluation with its seeded playout (:func:`simulate`), the heavy
playout policy (:func:`heavy_playout`), the UCT+RAVE selection (:func:`uct_select_for`),
the heuristic priors (:func:`prior_rates`), and the whole tree search on one or more
threads (:func:`search`). They work on the C state of a board on the native rules core
(:func:`margo_gtp.engine.core.native_state`); the Python functions they mirror stay the
readable reference and the fallback, and give the same answers (tests in
tests/test_native_core.py, test_native_search.py and test_search_prior.py).

Each function here answers None when the C path cannot run (the extension was not built,
or the board is on the Python core), and the caller then runs the Python code.
"""

from __future__ import annotations

import importlib
import os
import random
import threading
from array import array
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

#: Pool cap of the C tree by default: an eighth of the machine's memory, at most 2**31 - 1
#: nodes (a node at most :func:`node_bytes` bytes); a search that fills it stops growing the
#: tree, not the process.
MEMORY_SHARE = 8


def node_bytes(scores: bool = True) -> int:
    """Bytes of one node of the C tree: its ``TreeNode`` (``_search.NODE_BYTES``, 64) and,
    with ``scores``, its score sums (``NodeScore``, ``_search.SCORE_BYTES``, 24), which only
    a tree that counts scores keeps (:func:`search`'s ``scores``). With them, the most a node
    takes: what the memory caps count (:func:`default_max_nodes`, ``max_nodes=256MB``). The
    sizes of this build when the extension is not built."""
    node, score = (_search.NODE_BYTES, _search.SCORE_BYTES) if _search is not None else (64, 24)
    return node + score if scores else node


def default_max_nodes() -> int:
    """``MEMORY_SHARE``-th of the physical memory, in nodes (2**20 when it is unknown)."""
    return memory_share_nodes(node_bytes())


def memory_share_nodes(bytes_per_node: int) -> int:
    """How many nodes of ``bytes_per_node`` fill ``MEMORY_SHARE``-th of the physical memory,
    at most 2**31 - 1 (2**20 when the memory is unknown): the default cap of every tree."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 1 << 20
    return max(1, min(2**31 - 1, memory // MEMORY_SHARE // bytes_per_node))


def available() -> bool:
    """True if the native search extension was built and imports."""
    return _search is not None


class _PythonStopFlag:
    """``_search.StopFlag`` where the extension is not built (the Python search reads it)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    def is_set(self) -> bool:
        return self._event.is_set()

    def __call__(self) -> bool:
        return self._event.is_set()


def new_stop_flag() -> Any:
    """A flag to stop a search from another thread: ``set()``, ``clear()``, ``is_set()``,
    and calling it answers ``is_set()`` (so it is a ``stop`` callable of any search). The
    C tree reads a ``_search.StopFlag`` before every simulation without the GIL, so a
    search stops within one simulation of ``set()``; other ``stop`` callables are asked
    every few milliseconds (``POLL_SECONDS`` in ``_search.c``)."""
    return _search.StopFlag() if _search is not None else _PythonStopFlag()


def uct_select_for(board: Board) -> Callable[..., Any] | None:
    """``_search.uct_select(children, log_parent, uct_c, rave_k, prior_visits, prior_wins)``
    (the selection loop of ``PythonTree._descend`` in C) for a search on ``board``'s core,
    or None to run the Python loop."""
    if _search is None or native_state(board) is None:
        return None
    return _search.uct_select


def simulate(board: Board, seed: int, max_moves: int, evaluator: int, tunables: Any) -> float | None:
    """The MCTS bulk call: ``board.seeded_playout(seed, max_moves)``, then White's result --
    exact (1, 0 or 1/2) if the game is over, else the C port of ``evaluate.heuristic_evaluator``
    (``evaluator`` 0, with the tunables read by field name from ``tunables``: a
    ``SearchConfig`` or ``evaluate.EvalTunables``) or of ``evaluate.territory_evaluator``
    (1). One crossing of the Python/C boundary. None, with nothing played, off the C path."""
    state = native_state(board)
    if _search is None or state is None:
        return None
    rules = board.rules
    return _search.simulate(state, seed & 0xFFFFFFFFFFFFFFFF, max_moves, rules.komi, rules.scoring == "territory",
                            evaluator, tunables)


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


def pattern_features(board: Board, colour: Colour, codes: list[int]) -> bytes | None:
    """The learned patterns' features (``patterns.features``, ported in ``search_patterns.c``)
    of the placements ``codes`` (point indices) for ``colour``: ``_search.PATTERN_GROUPS``
    native int32 values per move, as bytes (``numpy.frombuffer`` or ``memoryview.cast("i")``
    read them). None off the C path. ValueError for a pass, a swap or an illegal move."""
    state = native_state(board)
    if _search is None or state is None:
        return None
    return _search.pattern_features(state, int(colour), codes)


def pattern_log_strengths(board: Board, colour: Colour, codes: list[int], table: bytes) -> list[float] | None:
    """``PatternWeights.log_strength`` of the features of each placement ``codes`` for
    ``colour``, computed in C from ``table`` (``PatternWeights.dense_table``): the same
    floats. None off the C path."""
    state = native_state(board)
    if _search is None or state is None:
        return None
    return _search.pattern_log_strengths(state, int(colour), codes, table)


def move_of(board: Board, code: int) -> Move:
    """The move of a C move code: a point index, -1 pass, -2 swap."""
    if code == -1:
        return Move.PASS
    if code == -2:
        return Move.SWAP
    return Move(board.geometry.points[code])


def prior_rates(board: Board, moves: list[Move], to_move: int, priors: Any) -> list[float]:
    """The C tree's prior win rates of ``moves`` for ``to_move`` in ``board`` (``search_prior.c``),
    for ``priors`` (``c_tree.Priors``, read by field name): those of the Python tree's
    ``PythonTree.prior_rates``, float for float. :func:`can_search` must hold."""
    return _search.prior_rates(native_state(board), to_move, [code_of(board, move) for move in moves], priors,
                               board.rules.komi)


def can_search(board: Board) -> bool:
    """True if the C tree can search ``board``: both extensions built, the board on the
    native core (the caller checks that its options are the C tree's)."""
    return _search is not None and native_state(board) is not None


def new_tree(max_nodes: int | None = None) -> Any:
    """A C tree to keep between searches (tree reuse): ``_search.Tree`` of at most
    ``max_nodes`` nodes (None: :func:`default_max_nodes`)."""
    return _search.Tree(max_nodes or default_max_nodes())


def code_of(board: Board, move: Move) -> int:
    """The C move code of ``move``: its point index, -1 pass, -2 swap."""
    if move.point is None:
        return -1 if move.kind == "pass" else -2
    return board.geometry.index[move.point]


def limit_table(board: Board, restriction: Any) -> bytes | None:
    """The C tree's ``move_limits`` for a :class:`~.restriction.MoveRestriction` (None:
    none): for each colour (White, then Black) and each move code ``c`` (swap -2, pass
    -1, then the point indices), at ``colour * (points + 2) + c + 2``, the depth from
    which the move may be played (0: from the root), as native 32-bit integers."""
    if restriction is None:
        return None
    codes = board.geometry.count + 2
    limits = array("i", bytes(4 * 2 * codes))
    for rule in restriction.rules:
        base = int(rule.player) * codes
        for code in range(-2, codes - 2):
            if rule.refuses(move_of(board, code)) and limits[base + code + 2] < rule.until_depth:
                limits[base + code + 2] = rule.until_depth
    return limits.tobytes()


def search(board: Board, colour: Colour, rng: random.Random, config: Any, playouts: int | None,
           deadline: float | None, priors: Any,
           max_nodes: int | None = None, tree: Any = None,
           threads: int = 1, stop: Callable[[], bool] | None = None,
           progress: Callable[..., object] | None = None,
           interval: float = 0.5, ownership: Any = None,
           restriction: Any = None,
           scores: bool = False) -> tuple[int, int, float, list[tuple], int, tuple[float, float, int]]:
    """One search by the C tree (``search_tree.c``) of ``board`` for ``colour``, drawing from
    ``rng`` as ``PythonTree.search`` does (its state goes in and comes back): until
    ``playouts`` simulations (None: no limit) or ``deadline`` (a ``time.perf_counter()``
    value; None: none). ``config``: the search's settings, a ``SearchConfig`` that the C
    glue reads by field name (komi and the scoring are ``board``'s rules'); ``priors``: the
    heuristic priors' settings (``c_tree.Priors``, by field name too), from which the C tree
    computes the priors itself (``search_prior.c``), or None for no priors. Returns (simulations, root
    visits, root wins, the root's children as (code, n, w, rave_n, rave_w, prior, pv,
    score_sum, score_sq, scored), the tree's size in nodes, the root's (score_sum,
    score_sq, scored)); ``pv`` lists (code, player, n, w, rave_n, rave_w, prior,
    score_sum, score_sq, scored) along the most visited line below the child. With ``tree`` (:func:`new_tree`) the search goes
    on from that tree's root (priming it as ``PythonTree._prime`` does) and the tree is
    kept; else a tree of ``max_nodes`` is made and freed. :func:`can_search` must hold.

    ``threads`` > 1 search the one tree together with the GIL released; each thread beside
    the first gets a generator seeded by ``rng.getrandbits(64)`` (drawn before the search),
    so only one thread leaves ``rng`` as the Python search does.

    ``stop`` (:func:`new_stop_flag`, or any callable) ends the search after the
    simulations in flight once it is set or true. ``progress(simulations, root visits,
    root wins, children, tree size, root score sums)`` -- as returned -- is called about every
    ``interval`` seconds from the search's first thread while it runs; a true answer
    stops it.

    ``ownership`` (an :class:`~margo_gtp.players.ownership.Ownership` of ``board``'s
    points, or None) gets the balls of every simulation's final position: each thread
    counts its own, and the sums are added (``add_counts``) once the search has returned,
    so its counts do not change while the search runs (nor when it fails); meanwhile its
    ``running`` holds the first thread's counts so far, set before each ``progress`` call
    (:meth:`~margo_gtp.players.ownership.Ownership.so_far` reads both).

    ``restriction`` (a :class:`~.restriction.MoveRestriction`, or None): a node this search
    expands within its depth gets only the legal moves it leaves the node's mover
    (avoidMoves/allowMoves, :func:`limit_table`).

    ``scores``: the tree counts each simulation's final score margin (the score sums above,
    what ``scoreLead``/``scoreStdev`` read) from this search on -- a kept ``tree`` in every
    later search too; otherwise the sums are zeros and no margin is computed, so a search
    nobody reads scores from pays nothing for them."""
    helpers = helper_states(rng, threads)
    version, internal, gauss = rng.getstate()
    relay = None
    if progress is not None:
        def relay(done: int, n: int, w: float, children: list, size: int, root_score: tuple, running: Any) -> object:
            if ownership is not None:
                ownership.running = running  # the first thread's counts so far (Ownership.so_far)
            return progress(done, n, w, children, size, root_score)
    try:
        done, internal, (n, w, children, size, root_score), _, *owned = _search.tree_search(
            native_state(board), int(colour), internal, config, board.rules.komi, board.rules.scoring == "territory",
            -1 if playouts is None else playouts,
            max_nodes or default_max_nodes(), priors, deadline, False, tree, helpers, stop=stop, progress=relay,
            interval=interval, ownership=ownership is not None, move_limits=limit_table(board, restriction),
            scores=scores)
    finally:
        if ownership is not None:
            ownership.running = None
    rng.setstate((version, internal, gauss))
    if ownership is not None:
        ownership.add_counts(*owned[0])
    return done, n, w, children, size, root_score


def helper_states(rng: random.Random, threads: int) -> tuple:
    """The generator states (``random.Random.getstate()[1]``) of the ``threads - 1`` search
    threads beside the first, each seeded by one ``rng.getrandbits(64)``: reproducible
    seeds for them, and no draw at all for one thread."""
    return tuple(random.Random(rng.getrandbits(64)).getstate()[1] for _ in range(threads - 1))


def tree_search(board: Board, colour: Colour, rng: random.Random, config: Any, playouts: int,
                priors: Any,
                max_nodes: int = 1 << 24, threads: int = 1, tree: Any = None,
                ownership: Any = None, restriction: Any = None,
                scores: bool = False) -> tuple[int, list[tuple], bool]:
    """As :func:`search` with a playout budget, returning every node in preorder as (depth,
    move code, n, w, rave_n, rave_w, prior, score_sum, score_sq, scored) and whether the
    pool reached ``max_nodes``: what the tests compare with the Python tree. ``ownership``,
    ``restriction`` and ``scores`` as in :func:`search`."""
    helpers = helper_states(rng, threads)
    version, internal, gauss = rng.getstate()
    done, internal, nodes, full, *owned = _search.tree_search(
        native_state(board), int(colour), internal, config, board.rules.komi, board.rules.scoring == "territory",
        playouts, max_nodes, priors, None, True, tree, helpers,
        ownership=ownership is not None, move_limits=limit_table(board, restriction), scores=scores)
    rng.setstate((version, internal, gauss))
    if ownership is not None:
        ownership.add_counts(*owned[0])
    return done, nodes, full
