"""The C tree's driver: the search of :mod:`.mcts` run by ``search_tree.c``, as a searcher.

:class:`CTree` hands one search to the C tree (:func:`.native_search.search`) and turns
what comes back into a view of :class:`~.searcher.Node` objects: the root and all its
children exact, below each child only its principal variation -- what a player reads
(the move, resignation, analysis). The C tree runs the same search as the Python tree
(:mod:`.python_tree`, the reference): with one thread, the same tree for a seed; with more,
one tree searched by every thread (virtual loss, the GIL released).

Its settings are the player's :class:`~.search_config.SearchConfig`, which the C glue
reads by field name (``_search.c``, ``read_search_params``), and the heuristic priors'
settings, a :class:`Priors` read by field name too (``read_priors``). What it cannot run
(:func:`cannot_run`) is searched by the Python tree.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players import evaluate, native_search
from margo_gtp.players.heuristic import Weights
from margo_gtp.players.search_config import C_TREE_SHORTEST_INTERVAL, PRIOR_VALUE, PROGRESS_SECONDS, SearchConfig
from margo_gtp.players.searcher import Node, PatternChoice, ScoredNode, position_key

__all__ = ["CTree", "Priors", "cannot_run"]


@dataclass(frozen=True)
class Priors:
    """What the C tree needs to give the Python tree's priors (``PythonTree.prior_rates``)
    itself, in ``search_prior.c`` on the search threads; ``_search.c`` reads it by field
    name: the heuristic player's ``weights``, the prior band ``low``..``high`` and
    ``temp`` (the config's ``prior_low``, ``prior_high``, ``prior_temp``), and with
    patterns on (and trained on the board's size) their dense table of log gammas and
    ``pattern_mix``."""

    weights: Weights
    low: float
    high: float
    temp: float
    pattern_table: bytes | None = None
    pattern_mix: float = 0.0

    @classmethod
    def of(cls, config: SearchConfig, pattern_weights: Any = None) -> "Priors":
        if pattern_weights is None:
            return cls(Weights(), config.prior_low, config.prior_high, config.prior_temp)
        return cls(Weights(), config.prior_low, config.prior_high, config.prior_temp, pattern_weights.dense_table,
                   config.pattern_mix)


def cannot_run(config: SearchConfig, clock: Callable[[], float]) -> str | None:
    """The setting of ``config`` (or the clock) that the C tree cannot run, as the spec
    writes it (``policy=heavy``, ``core=python``; ``evaluator=NAME`` and ``clock=NAME`` for
    Python callables), or None when it can run them all. The C tree plays the light policy
    with a built-in evaluator on the native core, and reads ``time.perf_counter``."""
    if config.playout_policy != "light":
        return f"policy={config.playout_policy}"
    if config.evaluator not in evaluate.EVALUATORS:
        return f"evaluator={_name(config.evaluator)}"
    if clock is not time.perf_counter:
        return f"clock={_name(clock)}"
    if config.core == "python":
        return "core=python"
    return None


def _name(value: object) -> str:
    return getattr(value, "__qualname__", None) or type(value).__qualname__


class CTree:
    """The C tree of one player (see the module docstring). ``rng`` is the player's
    generator (its state goes into the C search and comes back), ``patterns`` the player's
    :class:`~.searcher.PatternChoice`."""

    def __init__(self, config: SearchConfig, rng: random.Random, patterns: PatternChoice | None = None) -> None:
        self.config = config
        self.rng = rng
        self.patterns = patterns if patterns is not None else PatternChoice()
        self.tree: Any = None  # the C tree kept between moves (reuse on): a _search.Tree
        self.root: Node | None = None  # the view of the tree
        self._root_key: tuple[int, int, int] | None = None
        self._filtered = False  # the kept tree lacks moves (a restriction): no later search goes on from it
        self._tree_scores = False  # the kept tree counts the score sums (since its first search asked for them)
        self.last_simulations = 0
        self.last_tree_nodes = 0  # nodes of the last search's C tree

    @staticmethod
    def can_search(board: Board) -> bool:
        """True if the C tree can search ``board``: the extensions built, the board on the native core."""
        return native_search.can_search(board)

    def priors(self, board: Board | None = None) -> Priors:
        """The priors' settings for a search of ``board`` (patterns only when trained on its
        size, :meth:`.PatternChoice.for_board`); without a board, with the player's patterns."""
        weights = self.patterns.weights if board is None else self.patterns.for_board(board)
        return Priors.of(self.config, weights)

    # -- the Searcher shape

    def advance(self, board: Board, move: Move, colour: Colour) -> None:
        """The C tree keeps the subtree of ``move`` itself; :attr:`root` becomes its view's child."""
        root = self.root
        if root is None or self._root_key is None or not self.config.reuse:
            return
        if (self.tree is not None and self._root_key[2] == int(colour)
                and self.tree.advance(native_search.code_of(board, move), int(colour))):
            self.root = next((child for child in root.children or [] if child.move == move), None)
            self._root_key = position_key(board, board.to_move)
        else:
            self.reset()

    def reset(self) -> None:
        self.tree, self.root, self._root_key = None, None, None

    def search(self, board: Board, colour: Colour, *, playouts: int | None = None, deadline: float | None = None,
               stop: Callable[[], bool] | None = None, on_progress: Callable[[Node], object] | None = None,
               interval: float = PROGRESS_SECONDS, ownership: Any = None, restriction: Any = None,
               scores: bool = False) -> Node:
        """The search by the C tree, returning a view of the tree as :class:`Node` objects:
        the root and all its children exact, below each child only its principal variation
        (the most visited child, then its most visited child, ...). With ``reuse`` the C tree
        is kept for the next move (:meth:`advance` keeps the subtree of the move played),
        else freed. A stoppable search (``stop`` or ``on_progress``) refreshes the view every
        ``interval`` seconds. :meth:`can_search` must hold. ``restriction`` and ``scores``:
        see :meth:`.Searcher.search` (the C tree filters the moves, and counts the scores, as
        the Python tree does)."""
        config = self.config
        key = position_key(board, colour)
        if restriction is not None or self._filtered:
            self.reset()  # a kept tree has every move, or lacks some: start afresh
        if scores and self.tree is not None and not self._tree_scores:
            self.reset()  # a kept tree without score sums: start afresh, so every visit has its score
        self._filtered = restriction is not None
        tree = None
        if config.reuse:
            if self.tree is None or self._root_key != key:
                self.tree = native_search.new_tree(config.max_nodes)
                self._tree_scores = False
            tree = self.tree
            scores = self._tree_scores = scores or self._tree_scores
        if self._root_key != key:
            self.root = None  # the view of another position: not to be refreshed
        self._root_key = key
        progress = None
        if stop is not None or on_progress is not None:
            def progress(done: int, n: int, w: float, children: list[tuple], size: int, root_score: tuple) -> object:
                if not done:  # nothing searched yet (a short interval, slow priors): the Python
                    return None  # search never reports before its first simulations either
                self.last_simulations, self.last_tree_nodes = done, size
                root = self._refresh_view(board, colour, n, w, children, root_score)
                return on_progress(root) if on_progress is not None else None
        done, n, w, children, size, root_score = native_search.search(
            board, colour, self.rng, config, playouts, deadline, self.priors(board),
            max_nodes=config.max_nodes, tree=tree, threads=config.threads, stop=stop, progress=progress,
            interval=max(interval, C_TREE_SHORTEST_INTERVAL), ownership=ownership, restriction=restriction,
            scores=scores)
        self.last_simulations, self.last_tree_nodes = done, size
        return self._refresh_view(board, colour, n, w, children, root_score)

    def _refresh_view(self, board: Board, colour: Colour, n: int, w: float, children: list[tuple],
                      root_score: tuple[float, float, int]) -> Node:
        """The C tree's root, its ``children`` and their principal variations into
        :attr:`root`: the Node objects of the view already there (the same root children,
        in the same order) updated in place, so that a caller holding them sees them grow
        (a child of :attr:`root` is the root after :meth:`advance`), else new ones.

        The view's nodes are ScoredNodes whether or not the search counts the scores (then
        the C tree hands back zero sums): the view is a few hundred nodes, not a tree's
        worth, and a view kept in place need not change its kind when a later search asks."""
        root = self.root
        if root is None:
            root = self.root = ScoredNode(None, int(colour) ^ 1, -1, None)
        root.parent = None
        root.n, root.w = n, w
        root.score_sum, root.score_sq, root.scored = root_score
        old = root.children or []
        if len(old) != len(children) or any(native_search.code_of(board, node.move) != entry[0]  # type: ignore[arg-type]
                                            for node, entry in zip(old, children)):
            old = [self._view_node(board, root, code, int(colour), 0, 0.0, 0, 0.0, PRIOR_VALUE, 0.0, 0.0, 0)
                   for code, *_ in children]
            root.children = old
        for child, (code, child_n, child_w, rave_n, rave_w, prior, pv, *score) in zip(old, children):
            child.n, child.w, child.rave_n, child.rave_w, child.prior = child_n, child_w, rave_n, rave_w, prior
            child.score_sum, child.score_sq, child.scored = score
            node = child
            node.children = None
            for entry in pv:
                below = self._view_node(board, node, *entry)
                node.children = [below]
                node = below
        return root

    @staticmethod
    def _view_node(board: Board, parent: Node, code: int, player: int, n: int, w: float, rave_n: int,
                   rave_w: float, prior: float, score_sum: float, score_sq: float, scored: int) -> Node:
        node = ScoredNode(native_search.move_of(board, code), player, code if code >= 0 else -1, parent)
        node.n, node.w, node.rave_n, node.rave_w, node.prior = n, w, rave_n, rave_w, prior
        node.score_sum, node.score_sq, node.scored = score_sum, score_sq, scored
        return node

