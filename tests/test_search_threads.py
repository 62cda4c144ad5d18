"""Threads on the one C tree (``mcts:threads=N``, ``players/search_tree.c``).

With more than one thread the search is not reproducible (the threads race for the tree),
so these tests check what every such search must satisfy: the budget is spent exactly, the
root's children are its legal moves, visits add up down the tree, no virtual loss is left
behind, the pool cap holds, and the GIL is released (another Python thread runs during a
search). One thread is the Python search node for node: tests/test_native_search.py.
"""

from __future__ import annotations

import random
import sys
import threading
import time

import pytest

from margo_gtp.engine import Board, Rules, core
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import make_player, native_search
from margo_gtp.players.base import Budget
from margo_gtp.players.mcts import MIN_MAX_NODES, MctsPlayer
from margo_gtp.machine import available_cores

pytestmark = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                reason="native core or native search not built")


def threaded_tree(board: Board, playouts: int, threads: int, seed: int = 1, max_nodes: int = 1 << 24,
                  tree=None, **options) -> tuple[int, list[tuple], bool]:
    """(simulations, every node in preorder as (depth, code, n, w, rave_n, rave_w, prior),
    pool full) of a ``threads``-thread search without priors (so visits are only
    simulations)."""
    player = MctsPlayer(random.Random(seed), reuse=False, early_stop=False, prior_depth=-1, **options)
    return native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board), playouts,
                                     None, max_nodes, threads=threads, tree=tree)


def children_of(nodes: list[tuple]) -> list[tuple[tuple, list[tuple]]]:
    """Each node of a preorder listing with its children."""
    out, stack = [], []
    for node in nodes:
        while stack and stack[-1][0][0] >= node[0]:
            stack.pop()
        entry = (node, [])
        if stack:
            stack[-1][1].append(node)
        stack.append(entry)
        out.append(entry)
    return out


def legal_codes(board: Board) -> set[int]:
    return {native_search.code_of(board, move) for move in board.legal_moves()}


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("position", range(3))
def test_a_threaded_search_spends_the_budget_on_legal_moves(position, threads):
    board = core.board_on_core(midgame_positions()[position], "native")
    done, nodes, full = threaded_tree(board, 600, threads, seed=position)
    assert (done, full) == (600, False)
    (root, children), *rest = children_of(nodes)
    assert root[0] == 0 and root[2] == 600
    assert sum(child[2] for child in children) == 600  # every simulation went through one root child
    assert sorted(child[1] for child in children) == sorted(legal_codes(board))
    for node, below in rest:  # a node is visited once per simulation through it, its children after it
        assert sum(child[2] for child in below) <= node[2]
        assert all(child[4] >= 0 and 0 <= child[3] <= child[2] for child in below)
    assert len(nodes) > len(children) + 1  # expanded below the root's children


def test_one_thread_through_the_threaded_entry_is_the_single_thread_tree():
    board = core.board_on_core(midgame_positions()[1], "native")
    assert threaded_tree(board, 300, 1, seed=4) == threaded_tree(board, 300, 1, seed=4)
    player = MctsPlayer(random.Random(4), reuse=False, early_stop=False, prior_depth=-1)
    plain = native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board), 300, None)
    assert threaded_tree(board, 300, 1, seed=4) == plain


def test_repeated_threaded_searches_with_priors_and_early_stop():
    """Many short searches of two to four threads with the priors (computed by the search
    threads, search_prior.c) and the early stop: no crash, every budget honoured."""
    board = core.board_on_core(midgame_positions()[3], "native")
    for run in range(30):
        threads = 2 + run % 3
        player = MctsPlayer(random.Random(run), playouts=200, reuse=False, threads=threads)
        root = player.search(board, board.to_move, playouts=200)
        assert player.last_tree_nodes > 0
        assert root.n == player.last_simulations <= 200
        assert {child.move for child in root.children} == set(board.legal_moves())


def test_threads_expand_each_node_once_with_its_legal_moves():
    """The threads make a leaf's children outside the lock, and a leaf being expanded is
    marked so that no other thread expands it too: every node of the pool is in the tree
    (an expansion made twice would leave the first children orphaned), and every expanded
    node's children are the legal moves of its position, each once (checked by replaying
    its path on a board). Small boards, greedy selection (uct_c=0) and expansion at the
    first visit make threads meet on the same leaves often (without the mark, 3x3 and 4x4
    searches like these orphaned nodes in 6 of 10 runs each)."""
    expanded = 0
    for size, seed in [(3, seed) for seed in range(5)] + [(4, seed) for seed in range(5)] + [(9, 0)]:
        board = core.board_on_core(midgame_positions()[4] if size == 9 else Board(Rules(size=size)), "native")
        tree = native_search.new_tree(1 << 20)
        _, nodes, _ = threaded_tree(board, 2000, 3, seed=seed, tree=tree, expand_visits=1, uct_c=0.0)
        assert tree.size == len(nodes)
        path: list[int] = []
        for node, below in children_of(nodes):
            del path[node[0]:]
            path.append(node[1])
            if not below:
                continue
            position = board.copy()
            for code in path[1:]:
                position.push(native_search.move_of(position, code), position.to_move)
            codes = [child[1] for child in below]
            assert sorted(codes) == sorted(legal_codes(position)) and len(set(codes)) == len(codes)
            expanded += 1
    assert expanded > 1000


def test_no_virtual_loss_is_left_in_the_tree():
    board = core.board_on_core(midgame_positions()[0], "native")
    tree = native_search.new_tree(1 << 20)
    for seed in range(3):
        threaded_tree(board, 500, 2, seed=seed, tree=tree)
        assert tree.size > 500 and tree.in_flight() == 0


def test_a_full_pool_stops_the_tree_not_the_search():
    board = core.board_on_core(midgame_positions()[2], "native")
    done, nodes, full = threaded_tree(board, 2000, 2, max_nodes=300)
    assert (done, full) == (2000, True) and len(nodes) <= 300
    assert nodes[0][2] == 2000
    player = MctsPlayer(random.Random(3), playouts=3000, early_stop=False, threads=2, max_nodes=MIN_MAX_NODES)
    move = player.select_move(Board(Rules(size=9)), Board(Rules(size=9)).to_move, Budget())
    assert player.last_simulations == 3000 and 0 < player.last_tree_nodes <= MIN_MAX_NODES
    assert move in Board(Rules(size=9)).legal_moves()


def test_the_search_releases_the_gil():
    """Another Python thread runs while a search runs. The switch interval is made so long
    that the main thread never gives the GIL up on its own: the counter can only move while
    the search has released it (no priors, so the search calls no Python code)."""
    board = core.board_on_core(midgame_positions()[0], "native")
    go, stop, counter = threading.Event(), threading.Event(), [0]

    def count():
        go.wait()
        while not stop.is_set():
            counter[0] += 1
            time.sleep(1e-4)  # a blocking call: gives the GIL back, so the main thread can take it

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    other = threading.Thread(target=count)
    try:
        other.start()
        go.set()
        before = counter[0]
        threaded_tree(board, 3000, 1)
        during = counter[0]
    finally:
        stop.set()
        sys.setswitchinterval(interval)
        other.join()
    assert before == 0 and during > 0


def test_a_tree_being_searched_refuses_other_calls():
    """A search holds the tree without the GIL: another Python thread asking the tree
    (advance, size, in_flight) meanwhile is refused. The asking thread runs from before the
    search starts until after it ends, so it asks while the search runs (the search gives
    the GIL up for its whole length)."""
    board = core.board_on_core(midgame_positions()[0], "native")
    tree = native_search.new_tree(1 << 20)
    refused, searched = set(), threading.Event()
    asks = {"size": lambda: tree.size, "in_flight": tree.in_flight, "advance": lambda: tree.advance(-3, 0)}

    def ask():
        while not searched.is_set():
            for name, call in asks.items():
                try:
                    call()  # allowed before and after the search: advance(-3, ...) matches no child
                except RuntimeError as error:
                    assert str(error) == "this search tree is being searched"
                    refused.add(name)

    other = threading.Thread(target=ask)
    other.start()
    try:
        player = MctsPlayer(random.Random(1), reuse=False, early_stop=False)
        for _ in range(50):  # one search is enough unless the machine starves the asking thread
            if len(refused) == 3:
                break
            native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board), 2000,
                                      player._c_tree_priors(), threads=2, tree=tree)
    finally:
        searched.set()
        other.join()
    assert refused == set(asks) and tree.in_flight() == 0 and tree.size > 2000


@pytest.mark.parametrize("threads", [2, 3])
def test_an_error_in_a_search_thread_reaches_the_caller(threads):
    """A negative rave_k makes the score of a child with AMAF statistics the square root of
    a negative number: the first thread to meet one stops every thread, the caller gets the
    ValueError, and no virtual loss is left in the tree."""
    board = core.board_on_core(midgame_positions()[0], "native")
    player = MctsPlayer(random.Random(1), reuse=False, early_stop=False, rave_k=-1.0)
    tree = native_search.new_tree(1 << 20)
    with pytest.raises(ValueError, match="^search tree: a child's score is not a number$"):
        native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board), 400,
                                  player._c_tree_priors(), threads=threads, tree=tree)
    assert tree.in_flight() == 0


def test_the_spec_defaults_one_thread_when_seeded_else_the_cores():
    assert make_player("mcts:seed=3").threads == 1
    assert make_player("mcts").threads == min(256, available_cores())
    assert make_player("mcts:threads=auto,seed=3").threads == min(256, available_cores())
    assert make_player("mcts:threads=2,max_nodes=5000").max_nodes == 5000
