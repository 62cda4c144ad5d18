"""The Python tree: the reference UCT+RAVE search, and the oracle the C tree is tested against.

:class:`PythonTree` is the search of :mod:`.mcts` written plainly, step by step (the three
steps of a simulation are its methods :meth:`~PythonTree._descend`, the playout of
:mod:`.evaluate`, and :meth:`~PythonTree._backup`). It is the readable definition of the
search: the C tree (``search_tree.c``, driven by :mod:`.c_tree`) is held to give the same
tree for a seed with one thread (tests/test_native_search.py), and the settings the C tree
cannot run -- the heavy playout policy, a Python evaluator, a custom clock, the Python
rules core -- are searched here (the player says so on stderr, once: :mod:`.mcts`). It
runs one thread; on the native core its hot steps are single C calls (the seeded playout
and its evaluation, the UCT selection over a node's children).

It has the :class:`~.searcher.Searcher` shape: settings from a
:class:`~.search_config.SearchConfig` when it is made, :meth:`search`, :meth:`advance`,
:meth:`reset`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players import evaluate, native_search
from margo_gtp.players.playout_policy import HeavyPolicy, PlayoutPolicy
from margo_gtp.players.restriction import MoveRestriction
from margo_gtp.players.search_config import PROGRESS_SECONDS, SearchConfig
from margo_gtp.players.searcher import Node, PatternChoice, ScoredNode, position_key

__all__ = ["PythonTree"]

_COLOURS = (Colour.WHITE, Colour.BLACK)  # Colour(c) without the enum call, in the hot loop


class PythonTree:
    """The reference search of one player (see the module docstring).

    ``rng`` is the player's generator (its draws make the tree: shuffles at expansion, a
    seed per playout), ``clock`` the player's clock (read only with a deadline),
    ``patterns`` the player's :class:`~.searcher.PatternChoice`."""

    def __init__(self, config: SearchConfig, rng: random.Random, clock: Callable[[], float],
                 patterns: PatternChoice | None = None) -> None:
        self.config = config
        self.rng = rng
        self.clock = clock
        self.patterns = patterns if patterns is not None else PatternChoice()
        evaluator = config.evaluator
        self.evaluator: Callable[[Board], float] = (evaluate.EVALUATORS[evaluator] if isinstance(evaluator, str)
                                                    else evaluator)
        # None = the light policy on the core's fast path (no extra call per playout).
        self.policy: PlayoutPolicy | None = (HeavyPolicy(config.heavy_tactics) if config.playout_policy == "heavy"
                                             else None)
        self.root: Node | None = None
        self._root_key: tuple[int, int, int] | None = None
        self.last_simulations = 0
        self.last_tree_nodes = 0  # the Python tree is counted in Nodes, not in a pool
        self._ownership: Any = None  # the Ownership of the search running
        self._restriction: MoveRestriction | None = None  # avoidMoves/allowMoves of the search running
        self._filtered = False  # the kept tree lacks moves (a restriction): no later search goes on from it
        self._root_scores = False  # the kept tree counts the score sums (since its first search asked for them)
        self._scores = False  # the search running counts them

    # -- the Searcher shape

    def advance(self, board: Board, move: Move, colour: Colour) -> None:
        """Keep the subtree below ``move`` (played by ``colour``) when it is in the tree."""
        root = self.root
        if root is None or self._root_key is None or not self.config.reuse:
            return
        child = None
        if root.children and self._root_key[2] == int(colour):
            for candidate in root.children:
                if candidate.move == move:
                    child = candidate
                    break
        if child is None:
            self.reset()
            return
        child.parent = None
        self.root = child
        self._root_key = position_key(board, board.to_move)

    def reset(self) -> None:
        self.root, self._root_key = None, None

    def _root_for(self, board: Board, colour: Colour, scores: bool) -> Node:
        """The kept root of this position, else a new one: a :class:`ScoredNode` when the
        search counts the score sums (``scores``), whose children are then ScoredNodes too
        (:meth:`_expand`), else a plain :class:`Node`, 24 bytes smaller."""
        key = position_key(board, colour)
        if self.config.reuse and self.root is not None and self._root_key == key:
            return self.root
        self.root = (ScoredNode if scores else Node)(None, int(colour) ^ 1, -1, None)
        self._root_key = key
        self._root_scores = scores
        return self.root

    def search(self, board: Board, colour: Colour, *, playouts: int | None = None, deadline: float | None = None,
               stop: Callable[[], bool] | None = None, on_progress: Callable[[Node], object] | None = None,
               interval: float = PROGRESS_SECONDS, ownership: Any = None,
               restriction: MoveRestriction | None = None, scores: bool = False) -> Node:
        """Simulations until ``playouts``, ``deadline`` (on :attr:`clock`) or ``stop()``
        (read before every simulation); the early-stop check and ``on_progress`` every
        ``decided_check_every`` simulations (``on_progress`` at most every ``interval``
        seconds; 0: at every check). ``restriction`` and ``scores``: see :meth:`.Searcher.search`."""
        self._ownership = ownership
        self._restriction = restriction
        if restriction is not None or self._filtered:
            self.reset()  # a kept tree has every move, or lacks some: start afresh
        if scores and self.root is not None and not self._root_scores:
            self.reset()  # a kept tree without score sums: start afresh, so every visit has its score
        self._filtered = restriction is not None
        every, early_stop = self.config.decided_check_every, self.config.early_stop
        root = self._root_for(board, colour, scores)
        # a kept tree that counts them goes on counting them (it is of ScoredNodes)
        self._scores = self._root_scores
        if root.children is None:
            self._expand(root, board, int(colour), depth=0)
        else:  # a reused tree: its top was expanded deeper down, without the priors
            self._prime(root, board, int(colour), depth=0)
        start_clock = self.clock() if deadline is not None else 0.0
        next_report = self.clock() + interval if on_progress is not None else math.inf
        done = 0
        while True:
            if playouts is not None and done >= playouts:
                break
            if stop is not None and stop():
                break
            now = self.clock() if deadline is not None else 0.0
            if deadline is not None and now >= deadline:
                break
            if done and done % every == 0:
                if early_stop and self._decided(root, done, start_clock, now, deadline, playouts):
                    break
                if on_progress is not None and self.clock() >= next_report:
                    if on_progress(root):
                        break
                    next_report = self.clock() + interval
            self._simulate(root, board, int(colour))
            done += 1
        self.last_simulations = done
        self._ownership = self._restriction = None
        return root

    def _decided(self, root: Node, done: int, start: float, now: float, deadline: float | None,
                 playouts: int | None) -> bool:
        """True when the most visited child leads the runner-up by more visits than the
        simulations left can give it (so more search cannot change the move)."""
        children = root.children
        if not children or len(children) < 2:
            return True
        first = second = 0
        for child in children:
            if child.n > first:
                first, second = child.n, first
            elif child.n > second:
                second = child.n
        left = math.inf
        if playouts is not None:
            left = playouts - done
        if deadline is not None and now > start:
            left = min(left, done / (now - start) * (deadline - now))
        return first - second > left

    def _simulate(self, root: Node, board: Board, colour: int) -> None:
        work = board.copy()
        path, to_move = self._descend(root, work, colour)
        start = work.ply  # moves after this index were played by the playout
        config = self.config
        if self.policy is None:  # light: the core's seeded playout (one native call on the C core)
            result = evaluate.seeded_playout(work, self.rng.getrandbits(64), config.playout_moves, self.evaluator,
                                             config.ladder_depth, config)
        else:  # heavy: the Python policy over the Board API (either core)
            result = evaluate.playout(work, self.rng, config.playout_moves, self.evaluator, self.policy,
                                      config.ladder_depth, config)
        if self._ownership is not None:
            self._ownership.add(work)
        # the final score only for a search that counts it: it costs a scoring of the position
        self._backup(path, result, evaluate.final_margin(work) if self._scores else None, work, start)

    # Step 1
    def _descend(self, root: Node, board: Board, colour: int) -> tuple[list[Node], int]:
        """Select down the tree, replaying moves on ``board``; expand the leaf when due.
        Returns the path (root first) and the colour to move at its end."""
        node = root
        path = [node]
        to_move = colour
        config = self.config
        uct_c, rave_k, prior_visits = config.uct_c, config.rave_k, config.uct_prior_visits
        prior_w = config.prior_value * prior_visits
        sqrt = math.sqrt
        native_select = native_search.uct_select_for(board)
        while native_select is not None and node.children:
            # The same loop in C (margo_gtp/players/search_uct.c): same floats, same choice.
            node = native_select(node.children, math.log(node.n + 1), uct_c, rave_k, prior_visits, prior_w)
            board.push(node.move, _COLOURS[to_move])
            to_move = int(board.to_move)
            path.append(node)
        while node.children:
            log_parent = math.log(node.n + 1)
            best, best_score = None, -1.0
            # The hot loop: _child_score inlined, the same operations in the same order
            # (so the same floats and the same choices); a call per child cost ~40%.
            for child in node.children:
                n = child.n + prior_visits
                q = (child.w + prior_w) / n
                rave_n = child.rave_n
                if rave_n:
                    beta = sqrt(rave_k / (3 * child.n + rave_k)) if rave_k else 0.0
                    q = beta * (child.rave_w / rave_n) + (1 - beta) * q
                score = q + uct_c * sqrt(log_parent / n)
                if score > best_score:
                    best, best_score = child, score
            node = best  # type: ignore[assignment]
            board.push(node.move, _COLOURS[to_move])
            to_move = int(board.to_move)
            path.append(node)
        if node.children is None and node.n + 1 >= config.expand_visits:
            self._expand(node, board, to_move, depth=len(path) - 1)
            if node.children:
                child = node.children[0]  # children are shuffled at expansion
                board.push(child.move, _COLOURS[to_move])
                to_move = int(board.to_move)
                path.append(child)
        return path, to_move

    def _expand(self, node: Node, board: Board, to_move: int, depth: int) -> None:
        """Give ``node`` one child per legal move. Near the root (``depth <=
        prior_depth``) each child starts with ``prior_visits`` virtual visits whose win
        rate comes from the heuristic player's one-ply score (progressive bias: captures
        and saving moves are tried first, self-atari last)."""
        index = board.geometry.index  # flat point index for AMAF keys
        moves = board.legal_moves(Colour(to_move))
        restriction = self._restriction
        if restriction is not None and depth < restriction.depth:  # avoidMoves/allowMoves: before the shuffle
            moves = restriction.moves_at(moves, to_move, depth)
        self.rng.shuffle(moves)  # seeded: ties between unvisited children break at random
        kind = type(node)  # a tree is of one kind: ScoredNodes when it counts the scores, else Nodes
        children = [kind(m, to_move, index[m.point] if m.point is not None else -1, node) for m in moves]
        if depth <= self.config.prior_depth:
            if self._give_priors(children, board, to_move):
                children.sort(key=lambda child: -child.w)  # stable: the shuffle still breaks ties
            node.primed = True
        node.children = children

    def _give_priors(self, children: list[Node], board: Board, to_move: int) -> bool:
        """Add ``prior_visits`` virtual visits at the heuristic's win rate to each child
        (added, not set, so that a visited child of a reused tree keeps its own visits);
        False when priors are off or there is no choice to bias."""
        visits = self.config.prior_visits
        if visits <= 0 or len(children) <= 1:
            return False
        rates = self.prior_rates(board, [child.move for child in children], to_move)  # type: ignore[misc]
        for child, rate in zip(children, rates):
            child.n += visits
            child.w += rate * visits
            child.prior = rate
        return True

    def prior_rates(self, board: Board, moves: list[Move], to_move: int) -> list[float]:
        """The prior win rate of each move: the heuristic's (:meth:`_heuristic_rates`), or
        with patterns on, ``(1 - pattern_mix) * heuristic + pattern_mix * pattern`` rate
        (:func:`.patterns.pattern_rates`, in the same ``prior_low``..``prior_high`` band; a
        pass or swap, which has no pattern, keeps its heuristic rate). ``board`` is unchanged."""
        weights = self.patterns.for_board(board)
        if weights is None:
            return self._heuristic_rates(board, moves, to_move)
        from margo_gtp.players.patterns import log_strengths, rates_of

        config = self.config
        mix = config.pattern_mix
        placements = [k for k, move in enumerate(moves) if move.point is not None]
        need_heuristic = mix < 1 or len(placements) < len(moves)
        heuristic = self._heuristic_rates(board, moves, to_move) if need_heuristic else [0.0] * len(moves)
        if not placements:
            return heuristic
        found = rates_of(log_strengths(weights, board, [moves[k] for k in placements], Colour(to_move)),
                         config.prior_low, config.prior_high)
        rates = list(heuristic)
        for k, rate in zip(placements, found):
            rates[k] = (1 - mix) * heuristic[k] + mix * rate
        return rates

    def _heuristic_rates(self, board: Board, moves: list[Move], to_move: int) -> list[float]:
        """The heuristic prior win rate of each move: ``prior_high`` for the heuristic
        player's favourite, falling by a factor e per ``prior_temp`` of score towards
        ``prior_low``. ``board`` is unchanged."""
        from margo_gtp.players.heuristic import HeuristicPlayer

        judge = HeuristicPlayer(self.rng)
        work = board.copy()
        colour = Colour(to_move)
        scores = [judge.evaluate(work, move, colour) for move in moves]
        top = max(scores)
        low, high, temp = self.config.prior_low, self.config.prior_high, self.config.prior_temp
        return [low + (high - low) * math.exp((score - top) / temp) for score in scores]

    def _prime(self, node: Node, board: Board, to_move: int, depth: int) -> None:
        """Give a reused tree the priors a fresh search would have given it: the nodes
        within ``prior_depth`` of the new root that were expanded deeper down (so without
        priors) get them now. Measured: without this, tree reuse lost 7/0/23 to
        ``reuse=off`` at 0.25 s on 9x9 (docs/strength.md, "Tree reuse")."""
        prior_depth = self.config.prior_depth
        if depth > prior_depth or not node.children:
            return
        if not node.primed:
            self._give_priors(node.children, board, to_move)
            node.primed = True
        if depth + 1 > prior_depth:
            return
        for child in node.children:
            if child.children:
                board.push(child.move, _COLOURS[to_move])
                self._prime(child, board, int(board.to_move), depth + 1)
                board.pop()

    # Step 3
    def _backup(self, path: list[Node], white_result: float, white_margin: float | None, board: Board,
                start: int) -> None:
        """Add the result and the final score margin (White's; None: not counted) along
        ``path``, and the AMAF statistics of the siblings."""
        played = board.played_points_since(start)  # the points of this playout, per colour
        rewards = (white_result, 1.0 - white_result)
        counted = white_margin is not None
        margins = (white_margin, -white_margin) if counted else (0.0, 0.0)
        square = white_margin * white_margin if counted else 0.0
        for node in reversed(path):
            node.n += 1
            node.w += rewards[node.player]
            if counted:
                node.score_sum += margins[node.player]
                node.score_sq += square
                node.scored += 1
            children = node.children
            if children:
                # Siblings share their player (one _expand made them all): one lookup of
                # that colour's played points and reward per node, not per child.
                player = children[0].player
                seen, reward = played[player], rewards[player]
                for child in children:
                    if child.point in seen:
                        child.rave_n += 1
                        child.rave_w += reward
            if node.point >= 0:
                played[node.player].add(node.point)
