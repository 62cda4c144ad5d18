"""The pieces every searcher shares, and the shape a searcher has (:class:`Searcher`).

A *searcher* runs the tree search behind a player: it is given a position, a budget and a
way to be stopped, and returns the root of its tree as :class:`Node` objects -- the root
and every child of it exact, each with its visits, wins, AMAF statistics and prior -- which
is all a player reads (the move to play: :func:`best_child`; what ``analyze`` prints:
:func:`analyse`). Two searchers have that shape today, both of the one UCT+RAVE search
(:mod:`.mcts`):

- :class:`.python_tree.PythonTree`, the Python tree: the reference (the oracle the C tree
  is tested against), and the searcher of what the C tree cannot run;
- :class:`.c_tree.CTree`, the driver of the C tree (``search_tree.c``): the same tree for a
  seed with one thread, more threads on one tree, a view of it back as Nodes.

A new search (a network-guided PUCT search, say) plugs in by the same protocol: it takes
its settings when it is made, keeps its tree between moves if it likes (:meth:`Searcher.advance`),
and answers :meth:`Searcher.search` with a root of Nodes, so the player's move choice,
resignation, analysis output, pondering and ``margo-analysis`` read it unchanged
(docs/players.md, "The searcher's shape").
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players.search_config import PRIOR_VALUE, PRIOR_VISITS, PROGRESS_SECONDS

__all__ = ["Analysis", "Node", "PatternChoice", "ScoredNode", "Searcher", "analyse", "best_child", "choose_by_visits",
           "position_key"]


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
    ``score_sum``, ``score_sq``, ``scored``  the final score sums (:class:`ScoredNode`);
                  a plain Node counts none, and reads 0 for each (class constants, which
                  cost a node no bytes, and cannot be written to)
    """

    __slots__ = ("move", "player", "point", "parent", "children", "n", "w", "rave_n", "rave_w", "prior", "primed")

    # A search nobody asks scores of (a plain genmove, the bench) pays nothing for them: its
    # nodes read "none counted" from the class (issue 33: 24 bytes a node, 8.5% of the Python
    # tree's node). ScoredNode's slots shadow these for a search that counts them.
    score_sum = 0.0
    score_sq = 0.0
    scored = 0

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
        # root, or a child of the root, by tree reuse is primed then (PythonTree._prime)
        self.primed = False

    def score_mean(self) -> float | None:
        """The mean final score lead for ``player`` of the evaluations below (None: none)."""
        return self.score_sum / self.scored if self.scored else None

    def score_stdev(self) -> float | None:
        """The standard deviation of those final scores (None: no evaluation)."""
        if not self.scored:
            return None
        mean = self.score_sum / self.scored
        return math.sqrt(max(self.score_sq / self.scored - mean * mean, 0.0))

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


class ScoredNode(Node):
    """A :class:`Node` of a search that counts the final scores: the ``scored`` evaluations
    below it, their score margins' sum for ``player`` (``score_sum``) and the sum of their
    squares (``score_sq``). The MCTS trees count each simulation's
    (:func:`.evaluate.final_margin`) in a search asked for them (:meth:`Searcher.search`'s
    ``scores``), the net search its score head's; no virtual prior visit is among them
    (:meth:`~Node.score_mean`, :meth:`~Node.score_stdev`). A tree is of one kind throughout:
    the Python tree makes a node's children of the node's own class."""

    __slots__ = ("score_sum", "score_sq", "scored")

    def __init__(self, move: Move | None, player: int, point: int, parent: Node | None) -> None:
        super().__init__(move, player, point, parent)
        self.score_sum = 0.0
        self.score_sq = 0.0
        self.scored = 0


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
    score: float | None = None  # mean final score lead for the colour to move (None: not counted)


def best_child(root: Node) -> Node:
    """The move a player chooses: the most visited child (then the most wins)."""
    assert root.children, "search needs a position with legal moves"
    return max(root.children, key=lambda child: (child.n, child.w))


def choose_by_visits(visits: Sequence[int], temperature: float, rng: random.Random) -> int:
    """The index of the move to play among the root's children, by their ``visits``: at
    temperature 0 the most visited (the first of equals); above 0 one drawn with chances in
    proportion to ``visits ** (1 / temperature)`` (AlphaZero's move temperature), from
    ``rng``. A weaker level plays a move its own search liked a little less, as a human
    does, never a move the search did not look at (0 visits: no chance)."""
    most = max(visits)
    if temperature <= 0 or most <= 0:
        return visits.index(most)
    # exp((log n - log most) / T) is (n / most) ** (1 / T) without overflow at a small T
    weights = [math.exp((math.log(n) - math.log(most)) / temperature) if n > 0 else 0.0 for n in visits]
    pick = rng.random() * math.fsum(weights)
    for index, weight in enumerate(weights):
        pick -= weight
        if pick < 0 and weight > 0:
            return index
    return max(index for index, weight in enumerate(weights) if weight > 0)  # rounding at the top end


def analyse(root: Node, max_moves: int = 10, pv_length: int = 8) -> list[Analysis]:
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
        out.append(Analysis(child.move, child.n, child.win_rate(), child.prior, order, tuple(pv), amaf,  # type: ignore[arg-type]
                            child.score_mean()))
    return out


def position_key(board: Board, colour: Colour | int) -> tuple[int, int, int]:
    """What a kept tree is the tree of: (Zobrist key, moves played, colour to move)."""
    return board.zobrist_key, len(board.history), int(colour)


class PatternChoice:
    """The learned pattern weights of a player's priors, and which board sizes they serve:
    one object per player, shared by its searchers (so a size is warned about once)."""

    def __init__(self, weights: Any = None) -> None:
        self.weights = weights
        self._warned: set[int] = set()  # board sizes already warned about

    def for_board(self, board: Board) -> Any:
        """The weights to use on ``board``: None with patterns off, or when they were not
        trained on its size (then the heuristic priors alone, and one warning line on
        stderr per size: the size is known only once a game starts, and GTP may change it)."""
        weights = self.weights
        if weights is None or board.size in weights.board_sizes:
            return weights
        if board.size not in self._warned:
            self._warned.add(board.size)
            trained = ", ".join(f"{size}x{size}" for size in weights.board_sizes)
            print(f"mcts: pattern weights {weights.path} were trained on {trained}, not {board.size}x{board.size}: "
                  "heuristic priors only", file=sys.stderr, flush=True)
        return None


class Searcher(Protocol):
    """The shape of a searcher (see the module docstring). Settings come in when it is made
    (a :class:`~.search_config.SearchConfig` for the MCTS searchers), never per call."""

    #: The root of the last search (None before one, or after :meth:`reset`): a Node whose
    #: children are exact; a stoppable search may refresh it while it runs.
    root: Node | None
    #: Simulations (or evaluations) run by the last search, and the size in nodes of the
    #: searcher's own tree when it keeps one outside Python (0: none).
    last_simulations: int
    last_tree_nodes: int

    def search(self, board: Board, colour: Colour, *, playouts: int | None = None, deadline: float | None = None,
               stop: Callable[[], bool] | None = None, on_progress: Callable[[Node], object] | None = None,
               interval: float = PROGRESS_SECONDS, ownership: Any = None, restriction: Any = None,
               scores: bool = False) -> Node:
        """Search ``board`` for ``colour`` to move until ``playouts`` simulations, the
        ``deadline`` (on the player's clock) or ``stop()``; report ``on_progress(root)``
        about every ``interval`` seconds (a true answer stops); count every simulation's
        final position in ``ownership`` when given. Returns :attr:`root`. The tree of the
        same position is searched on (reuse); another position's is dropped.
        ``restriction`` (a :class:`~.restriction.MoveRestriction`; None: none) gives each
        node it expands within its depth only the legal moves it leaves the node's mover
        (KataGo's avoidMoves/allowMoves): such a search starts a fresh tree, and its tree
        is never searched on. ``scores``: count each simulation's final score margin in the
        nodes' score sums (what ``scoreLead``/``scoreStdev`` read); a tree that counts them
        goes on counting them in every later search, and a kept tree that does not is not
        searched on by a search that asks for them (a fresh tree: every visit has its
        score). Without them no margin is computed: a plain ``genmove`` pays nothing for them."""
        ...

    def advance(self, board: Board, move: Move, colour: Colour) -> None:
        """``colour`` played ``move`` (``board`` is after it): keep the subtree below it as
        the tree of the new position, or drop the tree."""
        ...

    def reset(self) -> None:
        """Drop the tree (the position changed other than by one move)."""
        ...
