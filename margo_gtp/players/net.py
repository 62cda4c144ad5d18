"""The net-guided search: PUCT over the policy/value network's priors and values.

Reading guide
-------------
* :func:`load_net` reads a weights file (ONNX with a ``margo-net`` header in its
  metadata, written by ``scripts/net-train``) and refuses, in one line naming the file,
  one that is missing, not a regular file, too large, truncated, foreign, of another
  version, or of features this program does not encode.
* :class:`NetEvaluator` runs it with ONNX Runtime (one intra-op thread per searcher:
  search threads are the unit of parallelism, as in the C tree). ``evaluate`` takes a
  batch of positions' features and returns the policy, the win/draw/loss chances,
  ownership and score.
* :class:`NetSearch` is AlphaZero's search (Silver et al. 2017) as KataGo runs it. One
  simulation descends by PUCT, ``Q + c_puct * P * sqrt(N) / (1 + n)``, where an unvisited
  child's ``Q`` is its parent's value less ``fpu_reduction`` (first-play urgency);
  ``batch`` leaves are gathered with virtual loss and evaluated in one call; their values
  are backed up the path, from the view of the colour that made each move. No playouts:
  the value head scores the leaves (mixing in playouts, AlphaGo's lambda, is not done,
  since no measurement asked for it). Game-over leaves are scored exactly.
* :class:`NetPlayer` is the ``net`` player: the most visited root move; the tree below
  the moves played is kept. A board size the weights were not trained for falls back to
  ``mcts`` with one line on stderr.

Ownership, as KataGo's: every evaluated node keeps its ownership head's output (White's
view, +1 White's; a finished game's exact owners, :func:`.net_features.final_ownership`),
and the root's ownership (:meth:`NetSearch.ownership`) is the mean, over the simulations
that reached the root, of the ownership of the node each one evaluated: the nodes'
outputs weighted by the visits that ended at them (1 for a node the net evaluated, every
visit for a finished game). It is computed from the tree once, then kept up to date
simulation by simulation while the root stays the same, so a stream's reports cost one
array each. The root's score is the same mean over the score head's predictions.
"""

from __future__ import annotations

import json
import math
import os
import random
import stat
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.players.base import Budget, Resign
from margo_gtp.players.searcher import Node, ScoredNode, choose_by_visits, position_key

__all__ = ["NetError", "NetEvaluator", "NetPlayer", "NetSearch", "load_net", "NET_FORMAT", "NET_VERSION"]

NET_FORMAT = "margo-net"
NET_VERSION = 1
MAX_WEIGHTS_BYTES = 64 << 20   # a few MB are shipped; anything far larger is not ours
DEFAULT_SECONDS = 1.0
C_PUCT = 1.5                   # exploration weight of the prior (AlphaZero's c_puct)
FPU_REDUCTION = 0.2            # an unvisited child starts at its parent's value less this
BATCH = 8                      # leaves per network call (virtual loss keeps them apart)
# Bytes a tree node may take, per point of the pyramid: measured 26 (7x7) and 19 (9x9)
# with tracemalloc per simulation; the default cap (default_max_nodes) counts 32.
NODE_BYTES_PER_POINT = 32
VIRTUAL_LOSS = 1               # visits of a pending leaf counted as losses while it waits
INSTALL_HINT = "pip install 'margo-gtp[net]'"


class NetError(ValueError):
    """Raised when a network weights file cannot be used; the message names the file"""


@dataclass(frozen=True)
class NetHeader:
    encoding: str
    size: int
    meta: dict


def _runtime():
    try:
        import numpy
        import onnxruntime
    except ImportError as error:
        raise NetError(f"the net player needs numpy and ONNX Runtime ({error.name} is missing): {INSTALL_HINT}") from None
    return numpy, onnxruntime


def load_net(path: str | os.PathLike[str]) -> tuple[NetHeader, bytes]:
    """Read and check a weights file; returns its header and the model bytes."""
    _runtime()  # first: without numpy the features module cannot even be imported
    from margo_gtp.players.net_features import ENCODINGS, FEATURES_VERSION

    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise NetError(f"{path}: not a regular file")
        if info.st_size > MAX_WEIGHTS_BYTES:
            raise NetError(f"{path}: {info.st_size} bytes, more than a weights file's {MAX_WEIGHTS_BYTES}")
        data = Path(path).read_bytes()[:MAX_WEIGHTS_BYTES + 1]
    except OSError as error:
        raise NetError(f"{path}: cannot read weights: {error.strerror or error}") from None
    try:
        import onnx

        proto = onnx.load_model_from_string(data)
        meta = {entry.key: entry.value for entry in proto.metadata_props}
    except ImportError:
        meta = None
    except Exception:  # noqa: BLE001 -- protobuf raises its own DecodeError on a damaged file
        raise NetError(f"{path}: not a readable ONNX weights file (truncated or damaged)") from None
    if meta is None:
        meta = _metadata_by_runtime(path, data)
    if meta.get("format") != NET_FORMAT:
        raise NetError(f"{path}: not a margo-net weights file (no '{NET_FORMAT}' header)")
    try:
        version, size, features_version = (int(meta.get(k, "")) for k in ("version", "size", "features_version"))
    except ValueError:
        raise NetError(f"{path}: damaged margo-net header") from None
    if version != NET_VERSION:
        raise NetError(f"{path}: margo-net version {version}, this program reads {NET_VERSION}")
    if features_version != FEATURES_VERSION:
        raise NetError(f"{path}: features of version {features_version}, this program encodes {FEATURES_VERSION}")
    encoding = meta.get("encoding", "")
    if encoding not in ENCODINGS:
        raise NetError(f"{path}: unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
    return NetHeader(encoding, size, meta), data


def _metadata_by_runtime(path, data: bytes) -> dict:
    _numpy, onnxruntime = _runtime()
    try:
        session = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 -- ONNX Runtime raises its own error types
        raise NetError(f"{path}: not a readable ONNX weights file (truncated or damaged)") from None
    return dict(session.get_modelmeta().custom_metadata_map)


class NetEvaluator:
    """One ONNX Runtime session of a weights file (module doc)."""

    def __init__(self, path: str | os.PathLike[str], threads: int = 1) -> None:
        self.path = str(path)
        self.header, data = load_net(path)  # first: it names a missing runtime
        from margo_gtp.players.net_features import encoding_for

        self.np, onnxruntime = _runtime()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        try:
            self.session = onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001
            raise NetError(f"{path}: not a readable ONNX weights file (truncated or damaged)") from None
        self.encoding = encoding_for(self.header.encoding, self.header.size)

    @property
    def size(self) -> int:
        return self.header.size

    def evaluate(self, features, globals_):
        """Policy logits (batch, points + 2), win/draw/loss probabilities (batch, 3),
        ownership (batch, points) and score (batch,) for a batch of features."""
        np = self.np
        planes = self.encoding.planes(features, globals_)
        policy, value, ownership, score = self.session.run(None, {"planes": planes})
        value = np.exp(value - value.max(axis=1, keepdims=True))
        value /= value.sum(axis=1, keepdims=True)
        return policy, value, ownership, score[:, 0]


class NetNode:
    """One position of the tree. Fields: ``moves`` (the legal moves), ``prior`` (their
    policy probabilities), ``child_n`` / ``child_w`` (visits and wins of each move for
    the colour to move here), ``child_s`` / ``child_s2`` (the sums of each move's
    evaluations' final scores for the colour to move here, and of their squares),
    ``children`` (a :class:`NetNode` per move once reached), ``n`` / ``w`` / ``s`` /
    ``s2`` (visits, wins and score sums of the move that led here, for its mover),
    ``value`` (the net's value of this position for the colour to move), ``terminal``
    (the exact value when the game is over here; the net's value where a move
    restriction leaves the mover no move, so that each visit scores this leaf again;
    else None), ``terminal_score`` (then its final score for the colour to move) and
    ``owner`` (the ownership of this position once evaluated, White's view, one value a
    point in the geometry's order)."""

    __slots__ = ("moves", "prior", "child_n", "child_w", "child_s", "child_s2", "children", "n", "w", "s", "s2",
                 "value", "terminal", "terminal_score", "to_move", "owner")

    def __init__(self, to_move: int) -> None:
        self.moves: list[Move] = []
        self.prior = self.child_n = self.child_w = self.child_s = self.child_s2 = None
        self.children: list[NetNode | None] = []
        self.n = 0
        self.w = self.s = self.s2 = 0.0
        self.value = 0.5
        self.terminal: float | None = None
        self.terminal_score = 0.0
        self.to_move = to_move
        self.owner = None

    @property
    def expanded(self) -> bool:
        return self.prior is not None or self.terminal is not None


class NetSearch:
    """PUCT search over one :class:`NetEvaluator` (module doc)."""

    def __init__(self, evaluator: NetEvaluator, *, c_puct: float = C_PUCT, fpu_reduction: float = FPU_REDUCTION,
                 batch: int = BATCH, threads: int = 1, clock: Callable[[], float] = time.perf_counter,
                 max_nodes: int | None = None) -> None:
        import numpy

        from margo_gtp.players.net_features import FEATURE_NAMES, final_ownership, global_features, point_features

        self.np = numpy
        self.features_of, self.globals_of = point_features, global_features  # numpy: imported here, not per batch
        self.final_ownership = final_ownership
        self.legal_row = FEATURE_NAMES.index("legal")
        self.threads = max(1, threads)
        self.lock = threading.Lock()
        self._done = self._in_flight = 0
        self._stopped = False
        self._progress: tuple = (None, 0.1, 0.0)
        self.evaluator = evaluator
        self.c_puct, self.fpu_reduction, self.batch = c_puct, fpu_reduction, max(1, batch)
        self.clock = clock
        # The tree's cap: each simulation adds at most one node, so a root of max_nodes
        # visits holds at most that many; a search (pondering, an endless analysis) stops
        # there instead of growing the process without bound, as the C tree's pool cap does.
        self.max_nodes = max_nodes or default_max_nodes(evaluator.size)
        self.root: NetNode | None = None
        self.root_key: tuple | None = None
        self.filtered = False  # the kept tree lacks moves (a restriction): no later search goes on from it
        self._restriction = None  # the MoveRestriction of the search running (None: none)
        self.last_simulations = 0
        # (root, the sum of its simulations' ownership): kept up to date by _backup once
        # ownership() has been asked for this root; None: nobody asked, nothing is summed
        self._owned: tuple[NetNode, object] | None = None

    # -- tree reuse ---------------------------------------------------------------------

    def root_for(self, board: Board, colour: Colour) -> NetNode:
        key = position_key(board, colour)
        if self.root is None or self.root_key != key:
            self.root, self.root_key = NetNode(int(colour)), key
        if self._owned is not None and self._owned[0] is not self.root:
            self._owned = None  # another root: its sum would be another tree's
        return self.root

    def advance(self, board: Board, move: Move) -> None:
        """Keep the subtree below ``move`` (just played on ``board``), if there is one."""
        root = self.root
        self.root, self.root_key, self._owned = None, None, None
        if root is None or root.prior is None:
            return
        for i, candidate in enumerate(root.moves):
            if candidate == move and root.children[i] is not None:
                self.root = root.children[i]
                self.root_key = position_key(board, board.to_move)
                if self.root.to_move != int(board.to_move):
                    self.root, self.root_key = None, None
                return

    # -- the search ---------------------------------------------------------------------

    def search(self, board: Board, colour: Colour, *, playouts: int | None = None, deadline: float | None = None,
               stop: Callable[[], bool] | None = None, on_progress: Callable[[NetNode], object] | None = None,
               interval: float = 0.1, restriction=None) -> NetNode:
        """Run simulations until ``playouts`` were run, ``deadline`` passed or ``stop()``;
        ``on_progress(root)`` is called (under the tree's lock) about every ``interval``
        seconds, and a true answer stops the search.

        With ``threads`` > 1 every thread gathers a batch under the tree's lock, evaluates it
        without the lock (ONNX Runtime releases the GIL, so one thread's network call runs
        while another walks the tree), and applies it under the lock again.

        ``restriction`` (a :class:`~.restriction.MoveRestriction`; None: none) leaves each
        node expanded within its depth only the legal moves it allows the node's mover,
        their policy renormalised (KataGo's avoidMoves/allowMoves); the tree starts afresh,
        and is never searched on."""
        if restriction is not None or self.filtered:
            self.root = None  # a kept tree has every move, or lacks some
        self.filtered = restriction is not None
        self._restriction = restriction
        root = self.root_for(board, colour)
        if not root.expanded:
            self._apply(self._compute([(root, board.copy(), [])]))
        self._done, self._in_flight, self._stopped = 0, 0, False
        limits = (playouts, deadline, stop)
        self._progress = (on_progress, interval, self.clock() + interval)
        if self.threads == 1:
            self._work(root, board, limits, reporter=True)
        else:
            workers = [threading.Thread(target=self._work, args=(root, board, limits), daemon=True)
                       for _ in range(self.threads - 1)]
            for worker in workers:
                worker.start()
            self._work(root, board, limits, reporter=True)
            for worker in workers:
                worker.join()
        self.last_simulations = self._done
        self._restriction = None
        return root

    def _restricted(self, result: tuple) -> tuple:
        """A leaf's evaluation with only the moves :attr:`_restriction` allows its mover at
        its depth (the length of its path), their priors renormalised; with none left, the
        leaf is scored by its value at every visit (``terminal``, :class:`NetNode`)."""
        node, path, value, moves, prior, score, owner = result
        restriction = self._restriction
        if moves is None or len(path) >= restriction.depth:
            return result
        allowed = set(restriction.moves_at(moves, node.to_move, len(path)))
        if len(allowed) == len(moves):
            return result
        if not allowed:
            return node, path, value, None, None, score, owner
        keep = [i for i, move in enumerate(moves) if move in allowed]
        kept = prior[keep]
        total = float(kept.sum())
        kept = kept / total if total > 0 else self.np.full(len(keep), 1.0 / len(keep))
        return node, path, value, [moves[i] for i in keep], kept, score, owner

    def _finished(self, root: NetNode, limits: tuple) -> bool:
        playouts, deadline, stop = limits
        return ((playouts is not None and self._done + self._in_flight >= playouts)
                or root.n + self._in_flight >= self.max_nodes
                or (deadline is not None and self.clock() >= deadline)
                or (stop is not None and stop()) or root.terminal is not None or self._stopped)

    def _work(self, root: NetNode, board: Board, limits: tuple, reporter: bool = False) -> None:
        """One search thread's loop: gather, evaluate, apply (see :meth:`search`)."""
        playouts = limits[0]
        while True:
            with self.lock:
                if self._finished(root, limits):
                    return
                want = min(self.batch, self.max_nodes - root.n - self._in_flight)
                if playouts is not None:
                    want = min(want, playouts - self._done - self._in_flight)
                pending, scored = [], 0
                for _ in range(want):
                    leaf = self._descend(root, board)
                    if leaf is None:
                        break
                    if leaf[0] == "done":  # a finished game, scored on the way down
                        scored += 1
                    else:
                        pending.append(leaf)
                self._done += scored
                if not pending and not scored and self._in_flight == 0:
                    return  # nothing to evaluate and nobody evaluating: the tree is exhausted
                self._in_flight += len(pending)
            if not pending:
                if not scored:
                    time.sleep(0.0002)  # another thread holds the leaves this walk wanted
                continue
            results = self._compute(pending)
            with self.lock:
                self._apply(results)
                self._in_flight -= len(pending)
                self._done += len(pending)
                on_progress, interval, next_report = self._progress
                if reporter and on_progress is not None and self.clock() >= next_report:
                    self.last_simulations = self._done
                    if on_progress(root):
                        self._stopped = True
                    self._progress = (on_progress, interval, self.clock() + interval)

    def _select(self, node: NetNode) -> int:
        np = self.np
        n = node.child_n
        parent_value = 1.0 - node.w / node.n if node.n else node.value  # w is for the mover into node
        q = np.where(n > 0, node.child_w / np.maximum(n, 1), max(0.0, parent_value - self.fpu_reduction))
        u = self.c_puct * node.prior * math.sqrt(max(1, int(n.sum()))) / (1 + n)
        return int(np.argmax(q + u))

    def _descend(self, root: NetNode, root_board: Board):
        """Walk to a leaf with virtual loss on the way; returns (leaf, board, path) with the
        leaf not yet evaluated, or None when the walk ended on a pending leaf."""
        board = root_board.copy()
        node, path = root, []
        while node.expanded and node.terminal is None:
            i = self._select(node)
            path.append((node, i))
            node.child_n[i] += VIRTUAL_LOSS
            board.push(node.moves[i], Colour(node.to_move))
            child = node.children[i]
            if child is None:
                child = node.children[i] = NetNode(int(board.to_move))
                return child, board, path
            node = child
        if node.terminal is not None:
            self._backup(path, node, node.terminal, node.terminal_score)
            return ("done", path)
        # a child reached twice in one batch, still waiting for the net: undo this walk
        for parent, i in path:
            parent.child_n[i] -= VIRTUAL_LOSS
        return None

    def _compute(self, leaves: list) -> list:
        """The network's (or the rules') verdict on each leaf; changes nothing in the tree."""
        np = self.np
        results, to_evaluate = [], []
        for node, board, path in leaves:
            outcome = board.outcome()
            if outcome is not None:
                margin = outcome.white_score - outcome.black_score  # White is colour 0
                owner = self.final_ownership(board)[0].astype(np.float32)
                results.append((node, path, 0.5 if outcome.winner is None else float(int(outcome.winner) == node.to_move),
                                None, None, margin if node.to_move == 0 else -margin, owner))
            else:
                to_evaluate.append((node, board, path))
        if not to_evaluate:
            return results
        features = np.stack([self.features_of(board, Colour(node.to_move)) for node, board, _ in to_evaluate])
        globals_ = np.stack([self.globals_of(board, Colour(node.to_move)) for node, board, _ in to_evaluate])
        policy, value, ownership, score = self.evaluator.evaluate(features, globals_)
        count = policy.shape[1] - 2
        # the score head predicts the final score (own minus other) over the board's points
        points = board_points(self.evaluator.size)
        for k, (node, board, path) in enumerate(to_evaluate):
            moves = board.legal_moves(Colour(node.to_move))
            # placements come first, in point order: the "legal" feature row has their indices
            # (no Point hashing in the hot loop); then swap and pass, if legal
            placements = np.flatnonzero(features[k, self.legal_row])
            specials = [count + 1 if move.is_swap else count for move in moves[len(placements):]]
            logits = policy[k][np.concatenate([placements, np.array(specials, np.int64)])]
            prior = np.exp(logits - logits.max())
            # the ownership head is for the colour to move (+1 its own): kept as White's view
            owner = ownership[k] if node.to_move == int(Colour.WHITE) else -ownership[k]
            results.append((node, path, float(value[k, 0] + 0.5 * value[k, 1]), moves, prior / prior.sum(),
                            float(score[k]) * points, owner))
        if self._restriction is not None:  # avoidMoves/allowMoves: no cost without them
            results = [self._restricted(result) for result in results]
        return results

    def _apply(self, results: list) -> None:
        """Expand the evaluated leaves and back their values up (under the tree's lock)."""
        np = self.np
        for node, path, value, moves, prior, score, owner in results:
            node.owner = owner
            if moves is None:
                node.terminal, node.terminal_score = value, score
            else:
                node.moves, node.prior = moves, prior
                node.child_n = np.zeros(len(moves), np.int64)
                node.child_w = np.zeros(len(moves), np.float64)
                node.child_s = np.zeros(len(moves), np.float64)
                node.child_s2 = np.zeros(len(moves), np.float64)
                node.children = [None] * len(moves)
                node.value = value
            self._backup(path, node, value, score, virtual=True)

    def _backup(self, path, leaf: NetNode, value: float, score: float, virtual: bool = True) -> None:
        """Add ``value`` and the final ``score`` (both for the colour to move at ``leaf``)
        along ``path``: each edge's wins and score are for the colour that made its move
        (the parent's colour to move)."""
        square = score * score
        leaf.n += 1
        leaf.w += 1.0 - value
        leaf.s -= score
        leaf.s2 += square
        for parent, i in reversed(path):
            if virtual:
                parent.child_n[i] -= VIRTUAL_LOSS
            parent.child_n[i] += 1
            same = parent.to_move == leaf.to_move
            mover_value = value if same else 1.0 - value
            mover_score = score if same else -score
            parent.child_w[i] += mover_value
            parent.child_s[i] += mover_score
            parent.child_s2[i] += square
            parent.n += 1
            parent.w += 1.0 - mover_value  # the parent's own wins are for whoever moved into it
            parent.s -= mover_score
            parent.s2 += square
        owned = self._owned
        if owned is not None and (path[0][0] if path else leaf) is owned[0] and leaf.owner is not None:
            total = owned[1]
            total += leaf.owner  # in place: one more simulation of the root whose ownership is watched

    # -- reading the tree -----------------------------------------------------------------

    def ownership(self, root: NetNode):
        """The root's ownership (module doc): a float64 array, one value a point in the
        geometry's order from -1 to 1, White's view (+1 White's); None before the root is
        evaluated. The first call for a root sums the tree; later ones read the sum that
        :meth:`_backup` keeps (call it under the tree's lock while a search runs: a
        progress callback is)."""
        if not root.n or root.owner is None:
            return None
        owned = self._owned
        if owned is None or owned[0] is not root:
            owned = self._owned = (root, self._ownership_sum(root))
        return owned[1] / root.n

    def _ownership_sum(self, root: NetNode):
        """The sum over ``root``'s simulations of the ownership each one evaluated: every
        node's own output times the visits that ended at it (its visits less its
        children's; a child still waiting for the net has none yet)."""
        np = self.np
        total = np.zeros(len(root.owner), np.float64)
        stack = [root]
        while stack:
            node = stack.pop()
            below = 0
            if node.child_n is not None:
                for i in np.flatnonzero(node.child_n):  # virtual loss may count a pending child
                    child = node.children[i]
                    if child is not None and child.n:
                        below += child.n
                        stack.append(child)
            if node.owner is not None and node.n > below:
                total += (node.n - below) * node.owner
        return total

    def best_move(self, root: NetNode) -> Move:
        return root.moves[int(self.np.argmax(root.child_n))]

    def principal_variation(self, root: NetNode, first: int, length: int = 8) -> list[Move]:
        line, node, i = [root.moves[first]], root.children[first], None
        while node is not None and node.prior is not None and len(line) < length and node.child_n.sum():
            i = int(self.np.argmax(node.child_n))
            line.append(node.moves[i])
            node = node.children[i]
        return line


class NetPlayer:
    """The ``net`` player (module doc): one weights file per board size it knows;
    ``seconds``/``playouts`` as ``mcts``'s."""

    name = "net"

    def __init__(self, weights: list[str | os.PathLike[str]], rng: random.Random | None = None, *,
                 seconds: float | None = None, playouts: int | None = None, c_puct: float = C_PUCT,
                 fpu_reduction: float = FPU_REDUCTION, batch: int = BATCH, threads: int = 1, reuse: bool = True,
                 temperature: float = 0.0, fallback: Callable[[], object] | None = None,
                 max_nodes: int | None = None) -> None:
        self.searches: dict[int, NetSearch] = {}
        for path in weights:
            evaluator = NetEvaluator(path)
            if evaluator.size in self.searches:
                raise NetError(f"{path}: a second weights file for {evaluator.size}x{evaluator.size}")
            self.searches[evaluator.size] = NetSearch(evaluator, c_puct=c_puct, fpu_reduction=fpu_reduction,
                                                      batch=batch, threads=threads, max_nodes=max_nodes)
        if not self.searches:
            raise NetError("the net player needs a weights file (net:weights=FILE)")
        self.rng = rng or random.Random()
        self.seconds, self.playouts, self.reuse = seconds, playouts, reuse
        self.temperature = temperature  # the move choice, as mcts's (searcher.choose_by_visits)
        self._fallback_factory = fallback
        self._fallback = None
        self._warned: set[int] = set()
        self.last_simulations = 0
        self.last_tree_nodes = 0  # the tree lives in Python (the Searcher shape's field)
        self.last_winrate: float | None = None
        self.root: Node | None = None
        self.clock = time.perf_counter
        # An Ownership that search() fills with the root's ownership (NetSearch.ownership),
        # before each progress report and at the end; None: not read (as MctsPlayer's)
        self.ownership = None
        # As MctsPlayer's: called with the root while select_move searches (margo-genmove_analyze).
        self.progress: Callable[[Node], object] | None = None
        self.progress_interval = 0.1

    def search_for(self, board: Board) -> NetSearch | None:
        return self.searches.get(board.size)

    def _fallback_for(self, board: Board):
        if board.size in self.searches:
            return None
        if self._fallback is None:
            from margo_gtp.players.mcts import MctsPlayer

            self._fallback = self._fallback_factory() if self._fallback_factory else MctsPlayer(self.rng)
        if board.size not in self._warned:
            self._warned.add(board.size)
            known = ", ".join(f"{size}x{size}" for size in sorted(self.searches))
            print(f"net: no network for {board.size}x{board.size} (weights for {known}): playing mcts instead",
                  file=sys.stderr)
        return self._fallback

    def select_move(self, board: Board, colour: Colour, budget: Budget) -> Move | Resign:
        fallback = self._fallback_for(board)
        if fallback is not None:
            fallback.progress, fallback.progress_interval = self.progress, self.progress_interval
            return fallback.select_move(board, colour, budget)
        moves = board.legal_moves(colour)
        if not moves:
            return Move.PASS
        if len(moves) == 1:
            return moves[0]
        tree = self.searches[board.size]
        if not self.reuse:
            tree.root = None
        playouts, deadline = budget.limits(self.playouts, self.seconds, DEFAULT_SECONDS, self.clock())
        report = None
        if self.progress is not None:
            def report(root: NetNode, progress: Callable[[Node], object] = self.progress) -> object:
                return progress(node_view(root, colour))
        root = tree.search(board, colour, playouts=playouts, deadline=deadline, on_progress=report,
                           interval=self.progress_interval)
        self.last_simulations = tree.last_simulations
        best = int(tree.np.argmax(root.child_n))
        n = root.child_n[best]
        self.last_winrate = float(root.child_w[best] / n) if n else None
        if self.temperature > 0:
            best = choose_by_visits([int(visits) for visits in root.child_n], self.temperature, self.rng)
        return root.moves[best]

    def search(self, board: Board, colour: Colour, *, playouts: int | None = None, deadline: float | None = None,
               stop: Callable[[], bool] | None = None, on_progress: Callable[[Node], object] | None = None,
               interval: float = 0.1, ownership: object = None, restriction=None, scores: bool = False) -> Node:
        """The search in the searchers' shape (:class:`~.searcher.Searcher`): a root of
        :class:`~.searcher.Node` objects whose children are exact, each with its ``prior``
        the policy's probability, and the principal variation below the visited ones.
        Self-play, ``margo-analyze`` and pondering read it. On a size without a net, the
        ``mcts`` fallback searches. ``restriction``: see :meth:`NetSearch.search`. When
        ``ownership`` (else :attr:`ownership`) is an :class:`~.ownership.Ownership`, its
        counts become the root's ownership (:meth:`fill_ownership`) before each progress
        report and at the end; the fallback counts its simulations into it instead.
        ``scores`` is the fallback's (:meth:`.MctsPlayer.search`): the net search keeps its
        score head's sums always."""
        target = self.ownership if ownership is None else ownership
        fallback = self._fallback_for(board)
        if fallback is not None:
            before, fallback.ownership = fallback.ownership, target
            try:
                return fallback.search(board, colour, playouts=playouts, deadline=deadline, stop=stop,
                                       on_progress=on_progress, interval=interval, restriction=restriction,
                                       scores=scores)
            finally:
                fallback.ownership = before
        tree = self.searches[board.size]
        report = None
        if on_progress is not None:
            def report(root: NetNode) -> object:
                self.last_simulations = tree.last_simulations
                if target is not None:
                    self.fill_ownership(target, tree, root)
                return on_progress(node_view(root, colour))
        root = tree.search(board, colour, playouts=playouts, deadline=deadline, stop=stop, on_progress=report,
                           interval=interval, restriction=restriction)
        self.last_simulations = tree.last_simulations
        if target is not None:
            self.fill_ownership(target, tree, root)
        self.root = node_view(root, colour)
        return self.root

    @staticmethod
    def fill_ownership(ownership, tree: NetSearch, root: NetNode) -> None:
        """Make ``ownership`` (an :class:`~.ownership.Ownership` of the board's points) the
        root's ownership over its ``root.n`` simulations (:meth:`NetSearch.ownership`), for
        every consumer of the MCTS's counts to read unchanged: White's share minus Black's
        is the averaged ownership exactly (:meth:`~.ownership.Ownership.set_expected`)."""
        values = tree.ownership(root)
        if values is not None:
            ownership.set_expected(values.tolist(), root.n)

    def analysis(self, root: Node, max_moves: int = 10, pv_length: int = 8) -> list:
        """``margo-analyze``'s lines of a root from :meth:`search`."""
        from margo_gtp.players.searcher import analyse

        return analyse(root, max_moves, pv_length)

    def notify(self, board: Board, move: Move, colour: Colour) -> None:
        tree = self.searches.get(board.size)
        if tree is None:
            if self._fallback is not None:
                self._fallback.notify(board, move, colour)
            return
        if self.reuse:
            tree.advance(board, move)

    def reset(self, board: Board) -> None:
        for tree in self.searches.values():
            tree.root = None
        if self._fallback is not None:
            self._fallback.reset(board)


def node_view(tree: NetNode, colour: Colour, principal: int = 10, pv_length: int = 8) -> Node:
    """A :class:`~.searcher.ScoredNode` view (the score head scores every evaluation) of a net
    search's root for ``colour`` to move: every child exact (visits, wins for ``colour``, the
    policy's probability as ``prior``), below the ``principal`` most visited its most visited line."""
    root = ScoredNode(None, int(colour) ^ 1, -1, None)
    root.n, root.w = tree.n, tree.w
    root.score_sum, root.score_sq, root.scored = tree.s, tree.s2, tree.n
    root.children = []
    if tree.prior is None:
        return root
    for i, move in enumerate(tree.moves):
        child = ScoredNode(move, int(colour), -1, root)
        child.n, child.w, child.prior = int(tree.child_n[i]), float(tree.child_w[i]), float(tree.prior[i])
        child.score_sum, child.score_sq, child.scored = float(tree.child_s[i]), float(tree.child_s2[i]), child.n
        root.children.append(child)
    ranked = sorted(range(len(tree.moves)), key=lambda i: -int(tree.child_n[i]))[:principal]
    for i in ranked:
        node, below = root.children[i], tree.children[i]
        for _ in range(pv_length - 1):
            if below is None or below.prior is None or not below.child_n.any():
                break
            j = int(below.child_n.argmax())
            step = ScoredNode(below.moves[j], below.to_move, -1, node)
            step.n, step.w, step.prior = int(below.child_n[j]), float(below.child_w[j]), float(below.prior[j])
            step.score_sum, step.score_sq, step.scored = float(below.child_s[j]), float(below.child_s2[j]), step.n
            node.children = [step]
            node, below = step, below.children[j]
    return root


def default_max_nodes(size: int) -> int:
    """The tree cap of ``size`` by default: the C tree's share of the physical memory
    (:func:`~.native_search.memory_share_nodes`) at NODE_BYTES_PER_POINT a point a node."""
    from margo_gtp.players.native_search import memory_share_nodes

    return memory_share_nodes(NODE_BYTES_PER_POINT * board_points(size))


def board_points(size: int) -> int:
    """The points of a ``size`` pyramid: what the score head's prediction is divided by."""
    return size * (size + 1) * (2 * size + 1) // 6


def header_json(path: str | os.PathLike[str]) -> str:
    """The weights file's header as JSON text (``scripts/net-train --show``)."""
    header, _ = load_net(path)
    return json.dumps(header.meta, indent=2, sort_keys=True)


def benchmark(seconds: float = 2.0, weights: str | os.PathLike[str] | None = None) -> dict:
    """``scripts/bench``'s net figures on 9x9 (the shipped weights unless ``weights``):
    evaluations a second through :class:`NetEvaluator` as the search calls it (a batch of
    ``BATCH`` positions' features, planes built each call), the same from two threads with
    an evaluator each, ONNX Runtime's own ``run`` on ready planes at the same batch, and
    the search's simulations a second from the empty board."""
    import threading

    import numpy

    from margo_gtp.engine import Rules
    from margo_gtp.players.net_features import global_features, point_features

    path = weights or Path(__file__).resolve().parent / "data" / "net-9x9.onnx"
    board = Board(Rules(size=9))
    rng = random.Random(1)
    positions = []
    for _ in range(BATCH):
        for _ in range(rng.randrange(10, 60)):
            if board.is_game_over():
                board = Board(Rules(size=9))
            board.push(rng.choice(board.legal_moves()))
        positions.append((point_features(board, board.to_move), global_features(board, board.to_move)))
    features = numpy.stack([p[0] for p in positions])
    globals_ = numpy.stack([p[1] for p in positions])

    def rate(evaluator: NetEvaluator, call: Callable[[], object]) -> float:
        call()  # warm-up
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            call()
            count += BATCH
        return count / (time.perf_counter() - start)

    one = NetEvaluator(path)
    planes = one.encoding.planes(features, globals_)
    # the two single-thread figures in alternating rounds, the median of each: on a shared
    # machine a load that comes and goes then weighs on both alike
    evaluator_rates, runtime_rates = [], []
    for _ in range(3):
        evaluator_rates.append(rate(one, lambda: one.evaluate(features, globals_)))
        runtime_rates.append(rate(one, lambda: one.session.run(None, {"planes": planes})))
    evaluator_rate, runtime_rate = sorted(evaluator_rates)[1], sorted(runtime_rates)[1]
    pair = [NetEvaluator(path), NetEvaluator(path)]
    rates = [0.0, 0.0]

    def worker(k: int) -> None:
        rates[k] = rate(pair[k], lambda: pair[k].evaluate(features, globals_))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    search = NetSearch(one)
    start = time.perf_counter()
    search.search(Board(Rules(size=9)), Colour.WHITE, deadline=start + seconds)
    search_rate = search.last_simulations / (time.perf_counter() - start)
    return {
        "net_evals_per_s_9x9": round(evaluator_rate),
        "net_evals_per_s_9x9_threads2": round(sum(rates)),
        "net_evals_per_s_9x9_onnxruntime": round(runtime_rate),
        "net_search_simulations_per_s_9x9": round(search_rate),
        "net_batch": BATCH,
    }
