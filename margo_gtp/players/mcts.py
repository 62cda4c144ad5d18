"""Monte-Carlo tree search (UCT with RAVE) for MarGo, plus playout-based estimates.

Reading guide (as michi: three named steps, every tunable in one block)
----------------------------------------------------------------------
One *simulation* is:

1. :meth:`MctsPlayer._descend` -- from the root, pick children by UCT blended with RAVE
   (:func:`_child_score`) and replay their moves on a copy of the board, until a node
   with no children; expand it (one child per legal move) once it has been visited
   ``EXPAND_VISITS`` times. Children of the root and of its children start with a few
   virtual visits at the heuristic player's opinion of their move (progressive bias).
2. :func:`playout` -- play ``PLAYOUT_MOVES`` moves from there, uniformly random with the
   rules core's fast path (:meth:`Board.random_playout`, policy ``light``) or answering
   the last move's local fight first (policy ``heavy``, :mod:`.playout_policy`), then
   score the position
   with the injected evaluator: the exact result if the game is over, otherwise
   :func:`heuristic_evaluator` (the R19 territory count corrected for groups in atari,
   weak shape and freedoms, as a winning chance) or :func:`territory_evaluator`.
3. :meth:`MctsPlayer._backup` -- add the result to every node on the path (from the view
   of the colour that made the node's move), and the all-moves-as-first (AMAF) statistics
   of their siblings for RAVE.

The move played is the most visited root child. The tree below that move and below the
opponent's reply is kept between moves (:meth:`MctsPlayer.notify`), so earlier work is
reused; its top levels (``prior_depth`` + 1), expanded deeper down without priors, get
them then (:meth:`MctsPlayer._prime`), so a reused search starts as a fresh one would.
With a playout budget (``mcts:playouts=N``) and a seed, the search is deterministic: it
reads no clock unless a time budget is set too.

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

import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.engine.core import board_on_core
from margo_gtp.players import native_search
from margo_gtp.players.base import RESIGN, Budget, Resign
from margo_gtp.players.playout_policy import POLICIES, HeavyPolicy, PlayoutPolicy
from margo_gtp.vertex import Point

__all__ = [
    "Analysis",
    "MctsPlayer",
    "Node",
    "benchmark",
    "estimate",
    "playout",
    "seeded_playout",
]

# ---------------------------------------------------------------------------------------
# Tunables (one block; each can be overridden per player, see MctsPlayer.__init__)
DEFAULT_SECONDS = 1.0         # thinking time per move when neither spec nor budget sets one
UCT_C = 0.2                   # exploration constant of the UCT term c * sqrt(ln N / n) (0.4 until
                              # the 9x9 runs of docs/strength.md: the search was too flat to read tactics)
RAVE_EQUIVALENCE = 300        # visits at which UCT and AMAF values weigh equally (Gelly-Silver k)
PRIOR_VISITS = 1              # virtual visits each new child starts with ...
PRIOR_VALUE = 0.5             # ... at this win rate (keeps unvisited children comparable)
EXPAND_VISITS = 2             # a leaf gets children on its this-many-th visit (1 = at once)
PLAYOUT_MOVES = 10            # random moves per playout before evaluating (0 = none, -1 = to the end)
PLAYOUT_CAP = 2000            # a playout "to the end" stops here (ko_rule=none games can cycle)
EVALUATOR = "heuristic"       # how a playout's last position is scored: heuristic | territory
PLAYOUT_POLICY = "light"      # how playout moves are chosen: light (uniform) | heavy (playout_policy.py)
HEAVY_TACTICS = 0.9           # heavy policy: chance of looking for a tactical reply at each move
EVAL_SCALE_MIN = 1.5          # heuristic margin (balls) worth one logistic unit on a full board ...
EVAL_SCALE_PER_POINT = 0.15   # ... plus this per empty board-plane point (early leads are less sure)
FREEDOM_VALUE = 0.3           # balls' worth of one freedom in the heuristic margin
SHORT_OF_FREEDOMS_LOSS = 0.25 # share of a group with two freedoms counted as lost (weak shape)
GROUP_COST = 0.5              # balls' worth of each separate group (connected shape is stronger)
MAX_LADDER_DEPTH = 8          # the deepest ladder reading a spec may ask for (ladder=N; the
                              # attacker tries both freedoms, so the work can double per atari)
LADDER_DEPTH = 0              # ataris the evaluator reads ahead to judge a group down to one or two
                              # freedoms (0: only the escape move itself, see can_escape)
PRIOR_DEPTH = 1               # heuristic priors for nodes this deep (0 = root only, -1 = none)
PRIOR_HEURISTIC_VISITS = 10   # virtual visits of a heuristic prior
PRIOR_TEMPERATURE = 4.0       # heuristic score gap (a capture is 10) that divides the prior by e
PRIOR_LOW = 0.1               # prior win rate of the worst-looking moves ...
PRIOR_HIGH = 0.9              # ... and of the heuristic's favourite
PATTERNS = False              # learned move patterns in the priors (mcts:patterns=on; off: the 9x9 SPRT
                              # did not accept them, +10 Elo over 200 games, docs/patterns.md)
PATTERN_MIX = 0.25            # with patterns: prior = (1 - mix) * heuristic prior + mix * pattern prior
                              # (0.25 predicted held-out self-play moves best, docs/patterns.md)
RESIGN_THRESHOLD = 0.0        # resign when the best move's win rate is below this (0 = never, the
                              # default: on 9x9 against heuristic, 7 of 48 games that mcts won had
                              # 3 moves in a row below 0.5% first, one of them 33 moves in a row;
                              # MarGo's late mass captures overturn what the evaluator calls lost,
                              # docs/strength.md#resignation)
RESIGN_MIN_VISITS = 400       # ... and the root has at least this many visits (when resign > 0)
RESIGN_MOVES = 3              # ... at this many of the colour's moves in a row
EARLY_STOP = True             # stop when the most visited move can no longer be overtaken
DECIDED_CHECK_EVERY = 8       # simulations between early-stop checks (the clock is read every one)
PROGRESS_SECONDS = 0.1        # a stoppable search (pondering, analysis) reports progress this often
C_TREE_SHORTEST_INTERVAL = 1e-6  # seconds: the C tree's progress interval for 0, shorter than any
                              # simulation, so it reports before each of its first thread's ones
MAX_THREADS = 256             # search threads on the one C tree (mcts:threads=N)
# The smallest pool cap (mcts:max_nodes): the root and one child per move of the largest
# board (19x19: 2,470 points, swap, pass), so the root's children always fit.
MIN_MAX_NODES = 1 + 2470 + 2


class Node:
    """One position of the search tree, reached from its parent by ``move``.

    Fields (``__slots__``; nothing else is stored, boards are replayed from the root):

    ``move``      the move leading here (``None`` at the root)
    ``player``    colour (int) that played ``move``; the root holds the colour that made
                  the last move, i.e. the opponent of the colour to move
    ``point``     flat point index of ``move`` (-1 for pass, swap and the root): AMAF key
    ``parent``    parent node (``None`` at the root)
    ``children``  ``None`` until expanded; then one node per legal move ([] when the
                  position is terminal)
    ``n``, ``w``  visits and wins for ``player`` (a draw counts half)
    ``rave_n``, ``rave_w``  AMAF visits and wins for ``player``: simulations through the
                  parent in which ``player`` played ``point`` later on
    ``prior``     the heuristic prior win rate of ``move``; ``primed``: see __init__
    """

    __slots__ = ("move", "player", "point", "parent", "children", "n", "w", "rave_n", "rave_w", "prior", "primed")

    def __init__(self, move: Move | None, player: int, point: int, parent: "Node | None") -> None:
        self.move = move
        self.player = player
        self.point = point
        self.parent = parent
        self.children: list[Node] | None = None
        self.n = 0
        self.w = 0.0
        self.rave_n = 0
        self.rave_w = 0.0
        self.prior = PRIOR_VALUE  # the heuristic prior win rate given at expansion, if any
        # True once the children have had their chance at priors (they get them only
        # within prior_depth of the root): a node expanded deeper and later made the
        # root, or a child of the root, by tree reuse is primed then (MctsPlayer._prime)
        self.primed = False

    def win_rate(self) -> float:
        """Wins for ``player`` per visit (``PRIOR_VALUE`` when unvisited)."""
        return self.w / self.n if self.n else PRIOR_VALUE

    def size(self) -> int:
        """Nodes in this subtree (iterative: trees can be deep)."""
        count, stack = 0, [self]
        while stack:
            node = stack.pop()
            count += 1
            if node.children:
                stack.extend(node.children)
        return count

    def __repr__(self) -> str:
        label = "root" if self.move is None else self.move.gtp()
        return f"<Node {label} n={self.n} w={self.w:g} rave={self.rave_w:g}/{self.rave_n}>"


_COLOURS = (Colour.WHITE, Colour.BLACK)  # Colour(c) without the enum call, in the hot loop


def _child_score(child: Node, log_parent: float, uct_c: float, rave_k: float) -> float:
    """UCT value of ``child`` blended with its AMAF value (Gelly & Silver 2007)."""
    n = child.n + PRIOR_VISITS
    q = (child.w + PRIOR_VALUE * PRIOR_VISITS) / n
    if child.rave_n:
        amaf = child.rave_w / child.rave_n
        beta = math.sqrt(rave_k / (3 * child.n + rave_k)) if rave_k else 0.0
        q = beta * amaf + (1 - beta) * q
    return q + uct_c * math.sqrt(log_parent / n)


# ---------------------------------------------------------------------------------------
# Step 2: the playout


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


def heuristic_evaluator(board: Board, ladder_depth: int | None = None) -> float:
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
    per empty board-plane point): an early lead is less certain than a late one.
    """
    from margo_gtp.players.heuristic import groups_with_freedoms

    depth = LADDER_DEPTH if ladder_depth is None else ladder_depth
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
                margin -= sign * (1.0 if taken else SHORT_OF_FREEDOMS_LOSS) * group.bit_count()
        margin += sign * (FREEDOM_VALUE * freedoms - GROUP_COST * len(groups))
    occupied = board.ball_mask(Colour.WHITE) | board.ball_mask(Colour.BLACK)
    empty = (board.geometry.board_plane & ~occupied).bit_count()
    scale = EVAL_SCALE_MIN + EVAL_SCALE_PER_POINT * empty
    return 1.0 / (1.0 + math.exp(-margin / scale))


EVALUATORS: dict[str, Callable[[Board], float]] = {
    "heuristic": heuristic_evaluator,
    "territory": territory_evaluator,
}


def playout(board: Board, rng: random.Random, max_moves: int = PLAYOUT_MOVES,
            evaluator: Callable[[Board], float] = heuristic_evaluator,
            policy: PlayoutPolicy | None = None, ladder_depth: int | None = None) -> float:
    """Play random moves on ``board`` (changing it) and return White's result in [0, 1].

    At most ``max_moves`` moves (0: none, just evaluate; a negative number: to the end,
    at most ``PLAYOUT_CAP`` moves), chosen by ``policy`` (default: uniform random, the
    rules core's :meth:`Board.random_playout`; see :mod:`.playout_policy`).
    The result is the exact outcome when the game is over (1 White win, 0 Black win,
    1/2 draw), otherwise ``evaluator(board)``.
    """
    if max_moves:
        limit = max_moves if max_moves > 0 else PLAYOUT_CAP
        if policy is None:
            board.random_playout(rng, max_moves=limit)
        else:
            policy.play(board, rng, limit)
    return _result(board, evaluator, ladder_depth)


def _result(board: Board, evaluator: Callable[[Board], float], ladder_depth: int | None = None) -> float:
    """White's result: exact if the game is over, else ``evaluator(board)`` (the
    heuristic evaluator reads ladders ``ladder_depth`` deep; None: ``LADDER_DEPTH``)."""
    code = _NATIVE_EVALUATORS.get(evaluator)
    if code is not None:  # the same evaluation in C, no moves played (None: not on the C path)
        result = native_search.simulate(board, 0, 0, code, _native_params(ladder_depth))
        if result is not None:
            return result
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.5
        return 1.0 if outcome.winner is Colour.WHITE else 0.0
    if evaluator is heuristic_evaluator:
        return heuristic_evaluator(board, ladder_depth)
    return evaluator(board)


def seeded_playout(board: Board, seed: int, max_moves: int = PLAYOUT_MOVES,
                   evaluator: Callable[[Board], float] = heuristic_evaluator,
                   ladder_depth: int | None = None) -> float:
    """:func:`playout` with the random moves drawn from splitmix64 seeded by ``seed``
    (:meth:`Board.seeded_playout`), so a seeded search plays the same simulations on both
    rules cores. On the native core with a built-in evaluator, the playout and the
    evaluation are one call (:func:`.native_search.simulate`: C ports of
    :func:`heuristic_evaluator` and :func:`territory_evaluator`, same tunables, read from
    this module on each call); otherwise the Python evaluator runs.
    """
    code = _NATIVE_EVALUATORS.get(evaluator)
    if code is not None:
        result = native_search.simulate(board, seed, max_moves if max_moves >= 0 else PLAYOUT_CAP, code,
                                        _native_params(ladder_depth))
        if result is not None:
            return result
    if max_moves:
        board.seeded_playout(seed, max_moves=max_moves if max_moves > 0 else PLAYOUT_CAP)
    return _result(board, evaluator, ladder_depth)


_NATIVE_EVALUATORS = {heuristic_evaluator: 0, territory_evaluator: 1}


def _native_params(ladder_depth: int | None) -> tuple[float, ...]:
    """The tunables of the C evaluators, read from this module at each call (so tests and
    scripts/tune may change them)."""
    return (EVAL_SCALE_MIN, EVAL_SCALE_PER_POINT, FREEDOM_VALUE, SHORT_OF_FREEDOMS_LOSS, GROUP_COST,
            LADDER_DEPTH if ladder_depth is None else ladder_depth)


# ---------------------------------------------------------------------------------------
# The player


@dataclass(frozen=True)
class Analysis:
    """One candidate move of the current search, as ``margo-analyze`` prints it."""

    move: Move
    visits: int
    winrate: float  # for the colour to move
    prior: float    # prior win rate from the heuristic at expansion (PRIOR_VALUE when none)
    order: int      # 0 = the move the player would choose now
    pv: tuple[Move, ...]
    amaf: float = PRIOR_VALUE  # all-moves-as-first (RAVE) win rate for the colour to move


class MctsPlayer:
    """UCT + RAVE search (see the module docstring). Options mirror the tunables.

    ``seconds``/``playouts``: default budget per move when :class:`Budget` gives none. A
    budget's ``playouts`` replaces the player's; a budget's ``seconds`` caps the player's.
    """

    name = "mcts"

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        seconds: float | None = None,
        playouts: int | None = None,
        uct_c: float = UCT_C,
        rave_k: float = RAVE_EQUIVALENCE,
        playout_moves: int = PLAYOUT_MOVES,
        evaluator: Callable[[Board], float] | str = EVALUATOR,
        playout_policy: str = PLAYOUT_POLICY,
        heavy_tactics: float = HEAVY_TACTICS,
        ladder_depth: int | None = None,
        expand_visits: int = EXPAND_VISITS,
        prior_depth: int = PRIOR_DEPTH,
        prior_visits: int = PRIOR_HEURISTIC_VISITS,
        prior_temp: float = PRIOR_TEMPERATURE,
        patterns: bool = PATTERNS,
        pattern_mix: float = PATTERN_MIX,
        pattern_weights: str | None = None,
        resign: float = RESIGN_THRESHOLD,
        resign_min_visits: int = RESIGN_MIN_VISITS,
        resign_moves: int = RESIGN_MOVES,
        reuse: bool = True,
        early_stop: bool = EARLY_STOP,
        threads: int = 1,
        max_nodes: int | None = None,
        core: str | None = None,
        clock: Callable[[], float] = time.perf_counter,
        c_tree: bool = True,
    ) -> None:
        self.rng = rng if rng is not None else random.Random()
        # Threads of the C tree's search (players/search_tree.c): one tree, virtual loss, the
        # GIL released. One thread draws exactly as the Python search (the same tree for a
        # seed); more make a valid but not reproducible search. The Python search (the
        # fallback) runs one thread.
        self.threads = max(1, threads)
        # Pool cap of the C tree in nodes (None: native_search.default_max_nodes()); a full
        # pool stops the tree growing, not the search. Room for the root's children at least.
        if max_nodes is not None and not (isinstance(max_nodes, int) and MIN_MAX_NODES <= max_nodes <= 2**31 - 1):
            raise ValueError(f"max_nodes must be a whole number from {MIN_MAX_NODES} to {2**31 - 1}: {max_nodes!r}")
        self.max_nodes = max_nodes
        self.seconds = seconds
        self.playouts = playouts
        self.uct_c = uct_c
        self.rave_k = rave_k
        self.playout_moves = playout_moves
        self.evaluator = EVALUATORS[evaluator] if isinstance(evaluator, str) else evaluator
        # None = the light policy on the core's fast path (no extra call per playout).
        self.policy: PlayoutPolicy | None = HeavyPolicy(heavy_tactics) if playout_policy == "heavy" else None
        self.ladder_depth = ladder_depth  # None: the module's LADDER_DEPTH at each evaluation
        self.expand_visits = max(1, expand_visits)
        self.prior_depth = prior_depth
        self.prior_visits = prior_visits
        self.prior_temp = prior_temp
        # The learned move patterns (docs/patterns.md): their weights are read now, so a
        # missing or broken file stops the player being built (PatternWeightsError, one line).
        self.pattern_mix = pattern_mix
        self.patterns = None
        if patterns:
            from margo_gtp.players.patterns import SHIPPED_WEIGHTS, load_weights

            self.patterns = load_weights(pattern_weights or SHIPPED_WEIGHTS)
        self._pattern_size_warned: set[int] = set()  # board sizes already warned about
        self.resign = resign
        self.resign_min_visits = resign_min_visits
        self.resign_moves = max(1, resign_moves)
        self._low_streak = [0, 0]  # the colours' own moves in a row below the resign threshold
        self.reuse = reuse
        self.early_stop = early_stop
        # None: search on the board's own core; "native"/"python": on a copy on that core
        # (so one process can pit the cores against each other, docs/strength.md).
        self.core = core
        self.clock = clock
        self.root: Node | None = None
        self._root_key: tuple[int, int, int] | None = None  # (zobrist, moves, colour to move)
        self.last_simulations = 0  # simulations run by the last search (for tests and bench)
        self.last_tree_nodes = 0  # nodes of the last search's C tree (0: the Python tree ran)
        # True: search with the C tree (players/search_tree.c) whenever it can run this
        # player's search (_c_tree_can_search); False: always the Python search, the
        # reference (tests of its internals ask for it)
        self.c_tree = c_tree
        self._c_tree = None  # the C tree kept between moves (reuse on), when the C search runs
        self.last_winrate: float | None = None  # the chosen move's win rate (resignation analysis)
        self.last_visits = 0  # root visits behind it
        # An Ownership to count every simulation's final position in (None: not counted;
        # margo_gtp.protocol.game_analysis sets one for the positions it analyses). The
        # Python search adds each position as it goes, the C tree its sums when it returns.
        self.ownership = None

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
        root = self.search(board, colour, playouts=playouts, deadline=deadline)
        best = self._best_child(root)
        move, visits, rate = best.move, root.n, best.win_rate()
        self.last_winrate, self.last_visits = rate, visits
        if self.resign > 0 and visits >= self.resign_min_visits and rate < self.resign:
            self._low_streak[int(colour)] += 1
            if self._low_streak[int(colour)] >= self.resign_moves:
                return RESIGN
        else:
            self._low_streak[int(colour)] = 0
        return move  # type: ignore[return-value]

    def notify(self, board: Board, move: Move, colour: Colour) -> None:
        """Follow the game: keep the subtree below ``move`` when it is in the tree."""
        root = self.root
        if root is None or self._root_key is None or not self.reuse:
            return
        if self._c_tree is not None:  # the C tree keeps the subtree itself; root is its view
            if self._root_key[2] == int(colour) and self._c_tree.advance(native_search.code_of(board, move), int(colour)):
                self.root = next((child for child in root.children or [] if child.move == move), None)
                self._root_key = (board.zobrist_key, len(board.history), int(board.to_move))
            else:
                self._c_tree, self.root, self._root_key = None, None, None
            return
        child = None
        if root.children and self._root_key[2] == int(colour):
            for candidate in root.children:
                if candidate.move == move:
                    child = candidate
                    break
        if child is None:
            self.root, self._root_key = None, None
            return
        child.parent = None
        self.root = child
        self._root_key = (board.zobrist_key, len(board.history), int(board.to_move))

    def reset(self, board: Board) -> None:
        """Drop the tree (the position changed other than by one move)."""
        self.root, self._root_key = None, None
        self._c_tree = None
        self._low_streak = [0, 0]

    # -- search ------------------------------------------------------------------------

    def _limits(self, budget: Budget) -> tuple[int | None, float | None]:
        playouts = budget.playouts if budget.playouts is not None else self.playouts
        seconds = self.seconds
        if budget.seconds is not None:
            seconds = budget.seconds if seconds is None else min(seconds, budget.seconds)
        if seconds is None and playouts is None:
            seconds = DEFAULT_SECONDS
        deadline = None if seconds is None else self.clock() + seconds
        return playouts, deadline

    def _root_for(self, board: Board, colour: Colour) -> Node:
        key = (board.zobrist_key, len(board.history), int(colour))
        if self.reuse and self.root is not None and self._root_key == key:
            return self.root
        self.root = Node(None, int(colour) ^ 1, -1, None)
        self._root_key = key
        self._c_tree = None  # it was the tree of another position
        return self.root

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
    ) -> Node:
        """Run simulations for ``colour`` to move in ``board`` until ``playouts`` were run,
        ``deadline`` (on :attr:`clock`) passed or ``stop()`` is true; return the root.

        With none of the three it runs ``DEFAULT_SECONDS``. ``on_progress(root)`` is called
        about every ``interval`` seconds while the search runs (analysis output); a true
        answer stops the search. An ``interval`` of 0 reports at every check: every
        ``DECIDED_CHECK_EVERY`` simulations in Python, before each simulation of the C
        tree's first thread.

        ``stop`` is read before every simulation by the Python search. The C tree reads a
        :func:`.native_search.new_stop_flag` flag before every simulation too (a search
        stops within one simulation of its ``set()``, whichever thread sets it) and asks
        any other callable every few milliseconds; a stoppable C search also refreshes
        :attr:`root` (the same :class:`Node` objects, updated) every ``interval`` seconds,
        so another thread sees it grow as it sees the Python tree grow.
        """
        if playouts is None and deadline is None and stop is None:
            deadline = self.clock() + DEFAULT_SECONDS
        if self.core is not None:
            board = board_on_core(board, self.core)
        self.last_tree_nodes = 0
        if self._c_tree_can_search(board):
            # The same search in C (players/search_tree.c): the same tree, a view of it back.
            return self._c_tree_search(board, colour, playouts, deadline, stop, on_progress, interval)
        if self._c_tree is not None:  # the Python search cannot go on from the C tree's view
            self._c_tree, self.root = None, None
        root = self._root_for(board, colour)
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
            if done and done % DECIDED_CHECK_EVERY == 0:
                if self.early_stop and self._decided(root, done, start_clock, now, deadline, playouts):
                    break
                if on_progress is not None and self.clock() >= next_report:
                    if on_progress(root):
                        break
                    next_report = self.clock() + interval
            self._simulate(root, board, int(colour))
            done += 1
        self.last_simulations = done
        return root

    # -- the same search by the C tree (margo_gtp/players/search_tree.c) ------------------

    def _c_tree_can_search(self, board: Board) -> bool:
        """True if the C tree can run this player's search of ``board``: the native core and
        search built and in use, the light playout policy, a built-in evaluator, and the
        clock ``time.perf_counter`` (the C search reads that clock). It counts
        :attr:`ownership` too: each search thread its own counts, added when the search
        returns (:mod:`.ownership`)."""
        return (self.c_tree and self.policy is None and self.evaluator in _NATIVE_EVALUATORS
                and self.clock is time.perf_counter and native_search.can_search(board))

    def _c_tree_params(self, board: Board) -> tuple:
        """This player's options and this module's tunables, as ``_search.tree_search`` reads them."""
        rules = board.rules
        return (self.uct_c, self.rave_k, PRIOR_VISITS, PRIOR_VALUE * PRIOR_VISITS, PRIOR_VALUE, self.expand_visits,
                self.prior_depth, self.prior_visits, DECIDED_CHECK_EVERY,
                self.playout_moves if self.playout_moves >= 0 else PLAYOUT_CAP, self.early_stop,
                rules.scoring == "territory", _NATIVE_EVALUATORS[self.evaluator], rules.komi,
                _native_params(self.ladder_depth))

    def _c_tree_priors(self, board: Board | None = None) -> tuple:
        """What the C tree needs to give :meth:`_prior_rates`'s priors itself (in
        ``search_prior.c``, on the search threads): the heuristic player's weights, then
        ``PRIOR_LOW``, ``PRIOR_HIGH`` and ``prior_temp``; with patterns on (and, given a
        ``board``, trained on its size: :meth:`_patterns_for`), then their dense table of log
        gammas and ``pattern_mix``."""
        from margo_gtp.players.heuristic import Weights

        w = Weights()
        heuristic = (w.captures, w.own_in_atari, w.enemy_in_atari, w.own_groups, w.enemy_groups, w.freedoms,
                     w.centre, w.centre_moves, w.decisive, PRIOR_LOW, PRIOR_HIGH, self.prior_temp)
        weights = self.patterns if board is None else self._patterns_for(board)
        if weights is None:
            return heuristic
        return heuristic + (weights.dense_table, self.pattern_mix)

    def _c_tree_search(self, board: Board, colour: Colour, playouts: int | None, deadline: float | None,
                       stop: Callable[[], bool] | None = None, on_progress: Callable[[Node], object] | None = None,
                       interval: float = PROGRESS_SECONDS) -> Node:
        """:meth:`search` by the C tree, returning a view of the tree as :class:`Node` objects:
        the root and all its children exact, below each child only its principal variation
        (the most visited child, then its most visited child, ...): what ``select_move``
        and :meth:`analysis` read. With ``reuse`` the C tree is kept for the next
        move (:meth:`notify` keeps the subtree of the move played), else freed. A stoppable
        search (``stop`` or ``on_progress``) refreshes the view every ``interval`` seconds."""
        key = (board.zobrist_key, len(board.history), int(colour))
        tree = None
        if self.reuse:
            if self._c_tree is None or self._root_key != key:
                self._c_tree = native_search.new_tree(self.max_nodes)
            tree = self._c_tree
        if self._root_key != key:
            self.root = None  # the view of another position: not to be refreshed
        self._root_key = key
        progress = None
        if stop is not None or on_progress is not None:
            def progress(done: int, n: int, w: float, children: list[tuple], size: int) -> object:
                if not done:  # nothing searched yet (a short interval, slow priors): the Python
                    return None  # search never reports before its first simulations either
                self.last_simulations, self.last_tree_nodes = done, size
                root = self._refresh_view(board, colour, n, w, children)
                return on_progress(root) if on_progress is not None else None
        done, n, w, children, size = native_search.search(
            board, colour, self.rng, self._c_tree_params(board), playouts, deadline, self._c_tree_priors(board),
            max_nodes=self.max_nodes, tree=tree, threads=self.threads, stop=stop, progress=progress,
            interval=max(interval, C_TREE_SHORTEST_INTERVAL), ownership=self.ownership)
        self.last_simulations, self.last_tree_nodes = done, size
        return self._refresh_view(board, colour, n, w, children)

    def _refresh_view(self, board: Board, colour: Colour, n: int, w: float, children: list[tuple]) -> Node:
        """The C tree's root, its ``children`` and their principal variations into
        :attr:`root`: the Node objects of the view already there (the same root children,
        in the same order) updated in place, so that a caller holding them sees them grow
        (a child of :attr:`root` is the root after :meth:`notify`), else new ones."""
        root = self.root
        if root is None:
            root = self.root = Node(None, int(colour) ^ 1, -1, None)
        root.parent = None
        root.n, root.w = n, w
        old = root.children or []
        if len(old) != len(children) or any(native_search.code_of(board, node.move) != entry[0]  # type: ignore[arg-type]
                                            for node, entry in zip(old, children)):
            old = [self._view_node(board, root, code, int(colour), 0, 0.0, 0, 0.0, PRIOR_VALUE)
                   for code, *_ in children]
            root.children = old
        for child, (code, child_n, child_w, rave_n, rave_w, prior, pv) in zip(old, children):
            child.n, child.w, child.rave_n, child.rave_w, child.prior = child_n, child_w, rave_n, rave_w, prior
            node = child
            node.children = None
            for entry in pv:
                below = self._view_node(board, node, *entry)
                node.children = [below]
                node = below
        return root

    @staticmethod
    def _view_node(board: Board, parent: Node, code: int, player: int, n: int, w: float, rave_n: int,
                   rave_w: float, prior: float) -> Node:
        node = Node(native_search.move_of(board, code), player, code if code >= 0 else -1, parent)
        node.n, node.w, node.rave_n, node.rave_w, node.prior = n, w, rave_n, rave_w, prior
        return node

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
        if self.policy is None:  # light: the core's seeded playout (one native call on the C core)
            result = seeded_playout(work, self.rng.getrandbits(64), self.playout_moves, self.evaluator,
                                    self.ladder_depth)
        else:  # heavy: the Python policy over the Board API (either core)
            result = playout(work, self.rng, self.playout_moves, self.evaluator, self.policy, self.ladder_depth)
        if self.ownership is not None:
            self.ownership.add(work)
        self._backup(path, result, work, start)

    # Step 1
    def _descend(self, root: Node, board: Board, colour: int) -> tuple[list[Node], int]:
        """Select down the tree, replaying moves on ``board``; expand the leaf when due.
        Returns the path (root first) and the colour to move at its end."""
        node = root
        path = [node]
        to_move = colour
        uct_c, rave_k = self.uct_c, self.rave_k
        prior_w = PRIOR_VALUE * PRIOR_VISITS
        sqrt = math.sqrt
        native_select = native_search.uct_select_for(board)
        while native_select is not None and node.children:
            # The same loop in C (margo_gtp/players/search_uct.c): same floats, same choice.
            node = native_select(node.children, math.log(node.n + 1), uct_c, rave_k, PRIOR_VISITS, prior_w)
            board.push(node.move, _COLOURS[to_move])
            to_move = int(board.to_move)
            path.append(node)
        while node.children:
            log_parent = math.log(node.n + 1)
            best, best_score = None, -1.0
            # The hot loop: _child_score inlined, the same operations in the same order
            # (so the same floats and the same choices); a call per child cost ~40%.
            for child in node.children:
                n = child.n + PRIOR_VISITS
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
        if node.children is None and node.n + 1 >= self.expand_visits:
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
        self.rng.shuffle(moves)  # seeded: ties between unvisited children break at random
        children = [Node(m, to_move, index[m.point] if m.point is not None else -1, node) for m in moves]
        if depth <= self.prior_depth:
            if self._give_priors(children, board, to_move):
                children.sort(key=lambda child: -child.w)  # stable: the shuffle still breaks ties
            node.primed = True
        node.children = children

    def _give_priors(self, children: list[Node], board: Board, to_move: int) -> bool:
        """Add ``prior_visits`` virtual visits at the heuristic's win rate to each child
        (added, not set, so that a visited child of a reused tree keeps its own visits);
        False when priors are off or there is no choice to bias."""
        if self.prior_visits <= 0 or len(children) <= 1:
            return False
        rates = self._prior_rates(board, [child.move for child in children], to_move)  # type: ignore[misc]
        for child, rate in zip(children, rates):
            child.n += self.prior_visits
            child.w += rate * self.prior_visits
            child.prior = rate
        return True

    def _prior_rates(self, board: Board, moves: list[Move], to_move: int) -> list[float]:
        """The prior win rate of each move: the heuristic's (:meth:`_heuristic_rates`), or
        with patterns on, ``(1 - pattern_mix) * heuristic + pattern_mix * pattern`` rate
        (:func:`.patterns.pattern_rates`, in the same ``PRIOR_LOW``..``PRIOR_HIGH`` band; a
        pass or swap, which has no pattern, keeps its heuristic rate). ``board`` is unchanged."""
        weights = self._patterns_for(board)
        if weights is None:
            return self._heuristic_rates(board, moves, to_move)
        from margo_gtp.players.patterns import log_strengths, rates_of

        mix = self.pattern_mix
        placements = [k for k, move in enumerate(moves) if move.point is not None]
        need_heuristic = mix < 1 or len(placements) < len(moves)
        heuristic = self._heuristic_rates(board, moves, to_move) if need_heuristic else [0.0] * len(moves)
        if not placements:
            return heuristic
        found = rates_of(log_strengths(weights, board, [moves[k] for k in placements], Colour(to_move)),
                         PRIOR_LOW, PRIOR_HIGH)
        rates = list(heuristic)
        for k, rate in zip(placements, found):
            rates[k] = (1 - mix) * heuristic[k] + mix * rate
        return rates

    def _patterns_for(self, board: Board):
        """The pattern weights to use on ``board``: None with patterns off, or when they were
        not trained on its size (then the heuristic priors alone, and one warning line on
        stderr per size: the size is known only once a game starts, and GTP may change it)."""
        weights = self.patterns
        if weights is None or board.size in weights.board_sizes:
            return weights
        if board.size not in self._pattern_size_warned:
            self._pattern_size_warned.add(board.size)
            trained = ", ".join(f"{size}x{size}" for size in weights.board_sizes)
            print(f"mcts: pattern weights {weights.path} were trained on {trained}, not {board.size}x{board.size}: "
                  "heuristic priors only", file=sys.stderr, flush=True)
        return None

    def _heuristic_rates(self, board: Board, moves: list[Move], to_move: int) -> list[float]:
        """The heuristic prior win rate of each move: ``PRIOR_HIGH`` for the heuristic
        player's favourite, falling by a factor e per ``prior_temp`` of score towards
        ``PRIOR_LOW``. ``board`` is unchanged."""
        from margo_gtp.players.heuristic import HeuristicPlayer

        judge = HeuristicPlayer(self.rng)
        work = board.copy()
        colour = Colour(to_move)
        scores = [judge.evaluate(work, move, colour) for move in moves]
        top = max(scores)
        return [PRIOR_LOW + (PRIOR_HIGH - PRIOR_LOW) * math.exp((score - top) / self.prior_temp) for score in scores]

    def _prime(self, node: Node, board: Board, to_move: int, depth: int) -> None:
        """Give a reused tree the priors a fresh search would have given it: the nodes
        within ``prior_depth`` of the new root that were expanded deeper down (so without
        priors) get them now. Measured: without this, tree reuse lost 7/0/23 to
        ``reuse=off`` at 0.25 s on 9x9 (docs/strength.md, "Tree reuse")."""
        if depth > self.prior_depth or not node.children:
            return
        if not node.primed:
            self._give_priors(node.children, board, to_move)
            node.primed = True
        if depth + 1 > self.prior_depth:
            return
        for child in node.children:
            if child.children:
                board.push(child.move, _COLOURS[to_move])
                self._prime(child, board, int(board.to_move), depth + 1)
                board.pop()

    # Step 3
    def _backup(self, path: list[Node], white_result: float, board: Board, start: int) -> None:
        """Add the result along ``path`` and the AMAF statistics of the siblings."""
        played = board.played_points_since(start)  # the points of this playout, per colour
        rewards = (white_result, 1.0 - white_result)
        for node in reversed(path):
            node.n += 1
            node.w += rewards[node.player]
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

    @staticmethod
    def _best_child(root: Node) -> Node:
        assert root.children, "search needs a position with legal moves"
        return max(root.children, key=lambda child: (child.n, child.w))

    # -- analysis ----------------------------------------------------------------------

    def analysis(self, root: Node, max_moves: int = 10, pv_length: int = 8) -> list[Analysis]:
        """The root's most visited children, best first, with principal variations."""
        children = sorted(root.children or [], key=lambda child: (child.n, child.w), reverse=True)
        out = []
        for order, child in enumerate(children[:max_moves]):
            if child.n == 0:
                break
            pv = [child.move]
            node = child
            while node.children and len(pv) < pv_length:
                node = max(node.children, key=lambda c: (c.n, c.w))
                if node.n == 0:
                    break
                pv.append(node.move)
            amaf = child.rave_w / child.rave_n if child.rave_n else PRIOR_VALUE
            out.append(Analysis(child.move, child.n, child.win_rate(), child.prior, order, tuple(pv), amaf))  # type: ignore[arg-type]
        return out


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
        player = MctsPlayer(random.Random(1), reuse=False, early_stop=False, playout_policy=policy, threads=threads)
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
        # a node of the C tree (players/search_tree.c), which the rates above measure on the native core
        "mcts_c_tree_bytes_per_node": native_search.node_bytes() if empty_player.last_tree_nodes else None,
        "mcts_playout_moves": PLAYOUT_MOVES,
    }
