"""Monte-Carlo tree search (UCT with RAVE) for MarGo: the ``mcts`` player, plus playout-based estimates.

Reading guide (as michi: three named steps, every tunable in one block)
----------------------------------------------------------------------
The search's settings are one frozen :class:`~.search_config.SearchConfig` (its defaults:
the tunables block of :mod:`.search_config`), filled from a spec by :mod:`.spec`. One
*simulation* is:

1. :meth:`PythonTree._descend <.python_tree.PythonTree._descend>` -- from the root, pick
   children by UCT blended with RAVE (:func:`_child_score`) and replay their moves on a copy
   of the board, until a node with no children; expand it (one child per legal move) once it
   has been visited ``expand_visits`` times. Children of the root and of its children start
   with a few virtual visits at the heuristic player's opinion of their move (progressive
   bias).
2. :func:`~.evaluate.playout` -- play ``playout_moves`` moves from there, uniformly random
   with the rules core's fast path (:meth:`Board.random_playout`, policy ``light``) or
   answering the last move's local fight first (policy ``heavy``, :mod:`.playout_policy`),
   then score the position with the evaluator: the exact result if the game is over,
   otherwise :func:`~.evaluate.heuristic_evaluator` or :func:`~.evaluate.territory_evaluator`.
3. :meth:`PythonTree._backup <.python_tree.PythonTree._backup>` -- add the result to every
   node on the path (from the view of the colour that made the node's move), and the
   all-moves-as-first (AMAF) statistics of their siblings for RAVE.

Two searchers run that search (:class:`~.searcher.Searcher` is their shape): the C tree
(:mod:`.c_tree`, ``search_tree.c``; one or more threads) whenever it can, and the Python
tree (:mod:`.python_tree`), the reference it is tested against, for what it cannot run --
the heavy policy, a Python evaluator, a custom clock, ``core=python`` -- which
:class:`MctsPlayer` says once on stderr. With one thread both give the same tree for a seed.

The move played is the most visited root child. The tree below that move and below the
opponent's reply is kept between moves (:meth:`MctsPlayer.notify`), so earlier work is
reused; its top levels (``prior_depth`` + 1), expanded deeper down without priors, get
them then, so a reused search starts as a fresh one would. With a playout budget
(``mcts:playouts=N``) and a seed, the search is deterministic: it reads no clock unless a
time budget is set too.

What is enforced: only legal moves are returned (children are the board's legal moves,
and terminal positions return ``Move.PASS``). What is not: the time budget is checked
between simulations, so one simulation (a few milliseconds) may run past it; callers
that must never overrun give a margin (:mod:`~margo_gtp.players.timecontrol`
does). Swap (rules option ``swap``) is valued for the colour, not the person: the
search treats it like any move of the colour to move.

Also here: :func:`estimate` (score estimate and dead balls from playout ownership, for
``final_score`` / ``final_status_list dead`` before the game is over) and
:func:`benchmark` (simulations per second and bytes per node, for ``scripts/bench``).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.engine.core import board_on_core
from margo_gtp.players import native_search
from margo_gtp.players.base import RESIGN, Budget, Resign
from margo_gtp.players.c_tree import CTree, Priors, cannot_run
# The evaluators and the playout (step 2), and the tunables block, named here as before.
from margo_gtp.players.evaluate import (  # noqa: F401
    EVALUATORS, can_escape, heuristic_evaluator, ladder_captures, playout, seeded_playout, territory_evaluator,
)
from margo_gtp.players.python_tree import PythonTree
from margo_gtp.players.search_config import (  # noqa: F401
    C_TREE_SHORTEST_INTERVAL, DECIDED_CHECK_EVERY, DEFAULT_SECONDS, EARLY_STOP, EVALUATOR, EXPAND_VISITS,
    MAX_LADDER_DEPTH, MAX_THREADS, MIN_MAX_NODES, PATTERN_MIX, PATTERNS, PLAYOUT_CAP, PLAYOUT_MOVES,
    PLAYOUT_POLICY, PRIOR_DEPTH, PRIOR_HEURISTIC_VISITS, PRIOR_HIGH, PRIOR_LOW, PRIOR_TEMPERATURE, PRIOR_VALUE,
    PRIOR_VISITS, PROGRESS_SECONDS, RAVE_EQUIVALENCE, RESIGN_MIN_VISITS, RESIGN_MOVES, RESIGN_THRESHOLD, UCT_C,
    SearchConfig,
)
from margo_gtp.players.searcher import (  # noqa: F401
    Analysis, Node, PatternChoice, Searcher, _child_score, analyse, best_child, choose_by_visits,
)
from margo_gtp.vertex import Point

__all__ = [
    "Analysis",
    "MctsPlayer",
    "Node",
    "SearchConfig",
    "benchmark",
    "estimate",
    "playout",
    "seeded_playout",
]


class MctsPlayer:
    """UCT + RAVE search (see the module docstring): a thin player over two searchers.

    Its settings are one :class:`SearchConfig`: ``config``, or the config of the keyword
    ``settings`` (its field names: ``MctsPlayer(uct_c=0.3, playouts=500)``), or ``config``
    with ``settings`` changed. ``seconds``/``playouts``: default budget per move when
    :class:`Budget` gives none. A budget's ``playouts`` replaces the player's; a budget's
    ``seconds`` caps the player's.

    ``clock``: the clock of deadlines (the C tree reads ``time.perf_counter``: another clock
    is searched by the Python tree). ``c_tree``: True searches with the C tree whenever it
    can run the config (:func:`.c_tree.cannot_run`) on the board's core, and says once on
    stderr when a setting keeps it from running; False always searches with the Python tree,
    the reference, and says nothing (tests of its internals ask for it).

    Attributes read by callers: :attr:`root` (the last search's root), :attr:`last_simulations`,
    :attr:`last_tree_nodes` (0: the Python tree ran), :attr:`last_winrate`, :attr:`last_visits`,
    :attr:`ownership` (an ``Ownership`` to count each simulation's final position in, or
    None), and every field of :attr:`config` by name (``player.prior_visits``).
    """

    name = "mcts"

    def __init__(self, rng: random.Random | None = None, *, config: SearchConfig | None = None,
                 clock: Callable[[], float] = time.perf_counter, c_tree: bool = True, **settings: Any) -> None:
        self.rng = rng if rng is not None else random.Random()
        if "evaluator" in settings:  # a built-in evaluator given as its function: by its name
            settings["evaluator"] = next((name for name, function in EVALUATORS.items()
                                          if function is settings["evaluator"]), settings["evaluator"])
        self.config = config.replace(**settings) if config is not None else SearchConfig(**settings)
        self.clock = clock
        self.c_tree = c_tree
        # The learned move patterns (docs/patterns.md): their weights are read now, so a
        # missing or broken file stops the player being built (PatternWeightsError, one line).
        weights = None
        if self.config.patterns:
            from margo_gtp.players.patterns import SHIPPED_WEIGHTS, load_weights

            weights = load_weights(self.config.pattern_weights or SHIPPED_WEIGHTS)
        self._patterns = PatternChoice(weights)
        self.patterns = weights
        self._python = PythonTree(self.config, self.rng, clock, self._patterns)
        self._c = CTree(self.config, self.rng, self._patterns)
        self._searcher: Searcher = self._python  # the searcher of the last search
        self._told = False  # the stderr line on a setting the C tree cannot run: said once
        self._low_streak = [0, 0]  # the colours' own moves in a row below the resign threshold
        self.last_winrate: float | None = None  # the chosen move's win rate (resignation analysis)
        self.last_visits = 0  # root visits behind it
        # An Ownership to count every simulation's final position in (None: not counted;
        # margo_gtp.analysis.game_analysis sets one for the positions it analyses). The
        # Python search adds each position as it goes, the C tree its sums when it returns.
        self.ownership = None
        # True once a search was asked for the score sums (search(scores=True): analysis,
        # margo-genmove_analyze): every later search counts them too, so the trees kept
        # between moves have them whole. Until then the searches compute no score at all.
        self.scores = False
        # Called with the root about every progress_interval seconds while select_move
        # searches (margo-genmove_analyze shows a genmove's search as it grows); None: not called.
        self.progress: Callable[[Node], object] | None = None
        self.progress_interval = PROGRESS_SECONDS

    def __getattr__(self, name: str) -> Any:
        """A setting by its field name (``player.prior_visits``): the config's."""
        config = self.__dict__.get("config")
        if config is not None and name in SearchConfig.__dataclass_fields__:
            return getattr(config, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- what the last search left

    @property
    def root(self) -> Node | None:
        """The root of the last search (the C tree's: a view of it), None before one."""
        return self._searcher.root

    @property
    def last_simulations(self) -> int:
        """Simulations run by the last search (for tests and bench); live while a C search reports."""
        return self._searcher.last_simulations

    @last_simulations.setter
    def last_simulations(self, value: int) -> None:
        self._searcher.last_simulations = value

    @property
    def last_tree_nodes(self) -> int:
        """Nodes of the last search's C tree (0: the Python tree ran)."""
        return self._searcher.last_tree_nodes

    @property
    def evaluator(self) -> Callable[[Board], float]:
        return self._python.evaluator

    @property
    def policy(self) -> Any:
        """The heavy playout policy (None: light, the core's fast path)."""
        return self._python.policy

    @property
    def _c_tree(self) -> Any:
        """The C tree kept between moves (reuse on), None when none is."""
        return self._c.tree

    # -- contract ----------------------------------------------------------------------

    def select_move(self, board: Board, colour: Colour, budget: Budget) -> Move | Resign:
        self.last_winrate, self.last_visits = None, 0
        moves = board.legal_moves(colour)
        if not moves:
            return Move.PASS
        if len(moves) == 1:
            self.last_simulations = 0
            return moves[0]
        playouts, deadline = self._limits(budget)
        # the score sums only for a search shown as it runs (margo-genmove_analyze's scoreLead)
        root = self.search(board, colour, playouts=playouts, deadline=deadline, on_progress=self.progress,
                           interval=self.progress_interval, scores=self.progress is not None)
        best = best_child(root)
        move, visits, rate = best.move, root.n, best.win_rate()
        if self.config.temperature > 0:  # a level below the strongest: the search's own liking, drawn
            children = root.children or []
            move = children[choose_by_visits([child.n for child in children], self.config.temperature, self.rng)].move
        self.last_winrate, self.last_visits = rate, visits
        config = self.config
        if config.resign > 0 and visits >= config.resign_min_visits and rate < config.resign:
            self._low_streak[int(colour)] += 1
            if self._low_streak[int(colour)] >= config.resign_moves:
                return RESIGN
        else:
            self._low_streak[int(colour)] = 0
        return move  # type: ignore[return-value]

    def notify(self, board: Board, move: Move, colour: Colour) -> None:
        """Follow the game: the searcher of the last search keeps the subtree below ``move``."""
        self._searcher.advance(board, move, colour)

    def reset(self, board: Board) -> None:
        """Drop the trees (the position changed other than by one move)."""
        self._python.reset()
        self._c.reset()
        self._low_streak = [0, 0]

    # -- search ------------------------------------------------------------------------

    def _limits(self, budget: Budget) -> tuple[int | None, float | None]:
        config = self.config
        return budget.limits(config.playouts, config.seconds, config.default_seconds, self.clock())

    def searcher_for(self, board: Board) -> Searcher:
        """The searcher of a search of ``board``: the C tree when :attr:`c_tree` is on and it
        can run this config on ``board``'s core, else the Python tree -- with one line on
        stderr, the first time only, when a setting keeps the C tree from running."""
        if not self.c_tree:
            return self._python
        refused = cannot_run(self.config, self.clock)
        if refused is None and self._c.can_search(board):
            return self._c
        if refused is not None and not self._told and native_search.available():
            self._told = True
            print(f"mcts: {refused} cannot run on the C tree: the Python tree searches instead (slower)",
                  file=sys.stderr, flush=True)
        return self._python

    def search(
        self,
        board: Board,
        colour: Colour,
        *,
        playouts: int | None = None,
        deadline: float | None = None,
        stop: Callable[[], bool] | None = None,
        on_progress: Callable[[Node], object] | None = None,
        interval: float = PROGRESS_SECONDS,
        restriction: Any = None,
        scores: bool = False,
    ) -> Node:
        """Run simulations for ``colour`` to move in ``board`` until ``playouts`` were run,
        ``deadline`` (on :attr:`clock`) passed or ``stop()`` is true; return the root.

        With none of the three it runs ``default_seconds``. ``on_progress(root)`` is called
        about every ``interval`` seconds while the search runs (analysis output); a true
        answer stops the search. An ``interval`` of 0 reports at every check: every
        ``decided_check_every`` simulations in Python, before each simulation of the C
        tree's first thread.

        ``stop`` is read before every simulation by the Python search. The C tree reads a
        :func:`.native_search.new_stop_flag` flag before every simulation too (a search
        stops within one simulation of its ``set()``, whichever thread sets it) and asks
        any other callable every few milliseconds; a stoppable C search also refreshes
        :attr:`root` (the same :class:`Node` objects, updated) every ``interval`` seconds,
        so another thread sees it grow as it sees the Python tree grow.

        ``restriction`` (a :class:`~.restriction.MoveRestriction`; None: none) leaves each
        node within its depth only the moves it allows the node's mover (KataGo's
        avoidMoves/allowMoves; a fresh tree, :meth:`.Searcher.search`).

        ``scores`` (what the analyses ask for) counts each simulation's final score in the
        nodes' score sums (``Node.score_mean``: ``scoreLead``); from then on the player's
        searches all count them (:attr:`scores`). Without it they stay 0.
        """
        if playouts is None and deadline is None and stop is None:
            deadline = self.clock() + self.config.default_seconds
        if self.config.core is not None:
            board = board_on_core(board, self.config.core)
        searcher = self.searcher_for(board)
        if searcher is not self._searcher:  # one searcher cannot go on from the other's tree
            self._searcher.reset()
            self._searcher = searcher
        searcher.last_tree_nodes = 0
        self.scores = self.scores or scores
        return searcher.search(board, colour, playouts=playouts, deadline=deadline, stop=stop,
                               on_progress=on_progress, interval=interval, ownership=self.ownership,
                               restriction=restriction, scores=self.scores)

    # -- the searchers' pieces, for tests and tools

    def _prior_rates(self, board: Board, moves: list[Move], to_move: int) -> list[float]:
        """The Python tree's prior win rates of ``moves`` (:meth:`.PythonTree.prior_rates`)."""
        return self._python.prior_rates(board, moves, to_move)

    def _c_tree_params(self, board: Board | None = None) -> SearchConfig:
        """What ``_search.tree_search`` reads the search's settings from, by field name: the config."""
        return self.config

    def _c_tree_priors(self, board: Board | None = None) -> Priors:
        """What the C tree reads the priors' settings from (:meth:`.CTree.priors`)."""
        return self._c.priors(board)

    @staticmethod
    def _best_child(root: Node) -> Node:
        return best_child(root)

    # -- analysis ----------------------------------------------------------------------

    def analysis(self, root: Node, max_moves: int = 10, pv_length: int = 8) -> list[Analysis]:
        """The root's most visited children, best first, with principal variations."""
        return analyse(root, max_moves, pv_length)


# ---------------------------------------------------------------------------------------
# Estimates for final_score / final_status_list


def estimate(board: Board, seconds: float | None = 0.5, *, playouts: int = 400, seed: int = 0,
             clock: Callable[[], float] = time.perf_counter) -> tuple[float, list[Point]]:
    """Score estimate ``white - black`` and the balls judged dead, from random playouts
    played to the end of the game (at most ``playouts``, at most ``seconds``; None: no
    time limit, so the answer depends on the seed and the budget only).

    A ball is dead when its point ends up not holding its colour (empty or the other
    colour: the ball was taken) in more than half of the playouts, or when it is a zombie now (gtp.md: ``dead`` includes zombies). The
    score is the mean final score difference (komi included), rounded to a half point.
    A finished game returns its exact score and its zombies.
    """
    outcome = board.outcome()
    zombies = board.zombies()
    if outcome is not None:
        return outcome.white_score - outcome.black_score, zombies
    rng = random.Random(seed)
    balls = board.balls()
    lost = {point: 0 for point in balls}
    total = 0.0
    done = 0
    deadline = None if seconds is None else clock() + seconds
    while done < playouts and (done == 0 or deadline is None or clock() < deadline):
        work = board.copy()
        work.random_playout(rng, max_moves=PLAYOUT_CAP)
        white, black = work.score()
        total += white - black
        for point, colour in balls.items():
            if work.get(point) != colour:
                lost[point] += 1
        done += 1
    dead = set(zombies) | {point for point, count in lost.items() if 2 * count > done}
    mean = total / done
    return round(mean * 2) / 2, sorted(dead, key=lambda p: (p.level, p.y, p.x))


# ---------------------------------------------------------------------------------------
# Benchmark (scripts/bench)


def _deep_size(node: Node) -> int:
    """Bytes of one expanded node: the object, its children list and its float fields."""
    size = sys.getsizeof(node)
    if node.children is not None:
        size += sys.getsizeof(node.children)
    size += sys.getsizeof(node.w) + sys.getsizeof(node.rave_w)
    return size


def _nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.children:
            stack.extend(node.children)


def benchmark(seconds: float = 2.0) -> dict:
    """MCTS simulations per second on 9x9 (empty board; median over the mid-game
    positions of :func:`margo_gtp.engine.positions.midgame_positions`) and mean bytes per tree node
    (the node object, its children list and its two float fields; the moves are shared
    with the board's move cache only in part, so they are counted too; on the native core
    the C tree runs the searches timed (``reuse=False``), and the bytes per node are those of
    the Python tree of a short search; ``mcts_c_tree_bytes_per_node`` gives the C tree's)."""
    from margo_gtp.engine.positions import midgame_positions

    def rate(board: Board, budget_seconds: float, policy: str = PLAYOUT_POLICY,
             threads: int = 1) -> tuple[float, MctsPlayer, Node]:
        # c_tree off for the heavy policy: the Python tree runs it either way, asked for by name
        player = MctsPlayer(random.Random(1), reuse=False, early_stop=False, playout_policy=policy, threads=threads,
                            c_tree=policy == "light")
        start = time.perf_counter()
        root = player.search(board, board.to_move, deadline=start + budget_seconds)
        return player.last_simulations / (time.perf_counter() - start), player, root

    empty_rate, empty_player, root = rate(Board(Rules(size=9)), seconds)
    positions = midgame_positions()
    per = max(seconds / max(len(positions), 1), 0.2)
    mid_rates = sorted(rate(board, per)[0] for board in positions)
    heavy_rates = sorted(rate(board, per, "heavy")[0] for board in positions)
    # two threads on the one C tree (mcts:threads=2), on the same positions, in the same run
    threaded = [rate(board, per, threads=2) for board in positions]
    threads2_rates = sorted(figure for figure, player, _ in threaded if player.last_tree_nodes)
    if empty_player.last_tree_nodes:  # the C tree ran: measure the Python tree of a short search
        empty = Board(Rules(size=9))
        root = MctsPlayer(random.Random(1), early_stop=False, c_tree=False).search(empty, empty.to_move, playouts=300)
    nodes = list(_nodes(root))
    moves_bytes = sum(sys.getsizeof(node.move) + sys.getsizeof(node.move.point) for node in nodes if node.move)
    node_count = len(nodes)
    bytes_per_node = (sum(_deep_size(node) for node in nodes) + moves_bytes) / node_count
    return {
        "mcts_sims_per_s_9x9_empty": round(empty_rate, 1),
        "mcts_sims_per_s_9x9_midgame": round(mid_rates[len(mid_rates) // 2], 1) if mid_rates else None,
        # the heavy playout policy (mcts:policy=heavy) on the same positions: its cost in speed
        "mcts_sims_per_s_9x9_midgame_heavy": round(heavy_rates[len(heavy_rates) // 2], 1) if heavy_rates else None,
        # two search threads (None when the C tree cannot run: the Python search has one)
        "mcts_sims_per_s_9x9_midgame_threads2": (round(threads2_rates[len(threads2_rates) // 2], 1)
                                                 if threads2_rates else None),
        "mcts_bytes_per_node": round(bytes_per_node, 1),
        "mcts_tree_nodes_measured": node_count,
        # a node of the C tree (players/search_tree.c), which the rates above measure on the native core,
        # in the searches timed: without the score sums of an analysis (24 bytes more a node)
        "mcts_c_tree_bytes_per_node": native_search.node_bytes(scores=False) if empty_player.last_tree_nodes else None,
        "mcts_playout_moves": PLAYOUT_MOVES,
    }
