"""Ownership counted by the C search tree (``search_tree.c``) against the Python search.

``MctsPlayer`` counts, for every point, how many simulations end with a White ball there
and how many with a Black one (:mod:`margo_gtp.players.ownership`). The Python search adds
each final position as it goes; the C tree counts them on its threads, each into its own
arrays, and hands the sums over when the search returns. Differential with one thread: the
same seed gives the same counts (and the same tree, visits and move) on the bench positions
and on random positions under random rules and options. With threads, the counts follow
the tree exactly: without a playout, each simulation ends at the node it reached, so the
counts are the balls of each node's position times the simulations that ended there.
The analysis and the review now search on the C tree with ownership; without the extension
the Python search counts as before.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Rules, core
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import native_search
from margo_gtp.players.c_tree import CTree
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.ownership import Ownership
from margo_gtp.analysis.game_analysis import analyse_game, analyse_position
from search_rules import search_rules

pytestmark = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                reason="native core or native search not built")


def counts(ownership: Ownership) -> tuple[list[int], list[int], int]:
    return ownership.white, ownership.black, ownership.playouts


def searched(board: Board, playouts: int, seed: int, c_tree: bool, **options) -> tuple:
    """One ``MctsPlayer.search`` with ownership: (ownership counts, root visits, the root
    children's visits, the chosen move, simulations, whether the C tree ran)."""
    player = MctsPlayer(random.Random(seed), reuse=False, c_tree=c_tree, **options)
    player.ownership = Ownership(board.geometry.points)
    root = player.search(board, board.to_move, playouts=playouts)
    return (counts(player.ownership), root.n, [(child.move, child.n) for child in root.children],
            player._best_child(root).move, player.last_simulations, player.last_tree_nodes > 0)


@pytest.mark.parametrize("playout_moves", [10, -1], ids=["playout-10", "to-the-end"])
@pytest.mark.parametrize("position", range(6), ids=["empty", *(f"midgame{k}" for k in range(5))])
def test_the_c_tree_counts_the_ownership_of_the_python_search(position, playout_moves):
    """Threads=1, a seed: the same counts, visits, move; the C tree ran, the Python one not."""
    board = core.board_on_core(([Board(Rules(size=9))] + midgame_positions())[position], "native")
    python = searched(board, 200, position + 11, c_tree=False, playout_moves=playout_moves)
    c = searched(board, 200, position + 11, c_tree=True, playout_moves=playout_moves)
    assert (python[-1], c[-1]) == (False, True)
    assert c[:-1] == python[:-1]
    white, black, playouts = c[0]
    assert playouts == c[4] <= 200  # the simulations run (the early stop may end them sooner)
    assert sum(white) + sum(black) > 200  # every final position holds balls


def test_counting_ownership_changes_nothing_else_in_the_c_tree():
    """The same search with and without ownership: the same tree, the same generator."""
    board = midgame_positions()[3]
    trees = []
    for ownership in (None, Ownership(board.geometry.points)):
        player = MctsPlayer(random.Random(4), reuse=False, early_stop=False)
        trees.append(native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board), 150,
                                               player._c_tree_priors(), ownership=ownership))
        trees[-1] += (player.rng.getstate(),)
    assert trees[1] == trees[0]


@st.composite
def positions(draw):
    """A position after a seeded random opening under random rules (sizes 3-9): it may be
    over, or end during the tree's moves (terminal nodes)."""
    size = draw(st.sampled_from([3, 4, 5, 7, 9]))
    board = core.board_on_core(Board(search_rules(draw, size)), "native")
    board.seeded_playout(draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, size * size)))
    return board


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(board=positions(), seed=st.integers(0, 2**32 - 1), playouts=st.integers(1, 100),
       expand_visits=st.sampled_from([1, 2, 4]), prior_depth=st.sampled_from([-1, 0, 2]),
       playout_moves=st.sampled_from([-1, 0, 3, 10]), evaluator=st.sampled_from(["heuristic", "territory"]),
       early_stop=st.booleans())
def test_the_c_tree_counts_the_ownership_of_the_python_search_under_random_rules(
        board, seed, playouts, expand_visits, prior_depth, playout_moves, evaluator, early_stop):
    options = dict(expand_visits=expand_visits, prior_depth=prior_depth, playout_moves=playout_moves,
                   evaluator=evaluator, early_stop=early_stop)
    if not board.legal_moves(board.to_move):
        return  # MctsPlayer.search needs a move to choose (select_move passes before)
    python = searched(board, playouts, seed, c_tree=False, **options)
    c = searched(board, playouts, seed, c_tree=True, **options)
    assert (python[-1], c[-1]) == (False, True)
    assert c[:-1] == python[:-1]
    assert c[0][2] == c[4]  # one counted position per simulation


def tree_children(nodes: list[tuple]) -> list[list[int]]:
    """For each node of a preorder listing (depth first), the indices of its children."""
    children: list[list[int]] = [[] for _ in nodes]
    stack: list[int] = []
    for k, node in enumerate(nodes):
        while stack and nodes[stack[-1]][0] >= node[0]:
            stack.pop()
        if stack:
            children[stack[-1]].append(k)
        stack.append(k)
    return children


def ownership_of_the_tree(board: Board, nodes: list[tuple]) -> tuple[list[int], list[int], int]:
    """Without playouts (``playout_moves=0``) and priors, each simulation ends in the
    position of the last node of its path, so the ownership counts are, over the nodes,
    (the node's visits - its children's) times the balls of the node's position."""
    expected = Ownership(board.geometry.points)
    children = tree_children(nodes)
    work = board.copy()

    def visit(k: int) -> None:
        ended_here = nodes[k][2] - sum(nodes[c][2] for c in children[k])
        assert ended_here >= 0
        for _ in range(ended_here):
            expected.add(work)
        for c in children[k]:
            work.push(native_search.move_of(work, nodes[c][1]), work.to_move)
            visit(c)
            work.pop()

    visit(0)
    return counts(expected)


@pytest.mark.parametrize("expand_visits", [1, 3])
@pytest.mark.parametrize("position", range(3))
def test_threaded_ownership_counts_the_positions_the_simulations_reached(position, expand_visits):
    """Two threads race for the tree, so the search is not reproducible; but each thread
    counts its own simulations, and the sums match the tree the search left exactly."""
    board = core.board_on_core(midgame_positions()[position], "native")
    player = MctsPlayer(random.Random(position), reuse=False, early_stop=False, prior_depth=-1, playout_moves=0,
                        expand_visits=expand_visits)
    ownership = Ownership(board.geometry.points)
    done, nodes, full = native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board),
                                                  600, None, threads=2, ownership=ownership)
    assert (done, full, nodes[0][2]) == (600, False, 600)
    assert counts(ownership) == ownership_of_the_tree(board, nodes)
    assert ownership.playouts == 600


@pytest.mark.parametrize("threads", [2, 3])
def test_threaded_ownership_with_playouts_is_consistent(threads):
    """With playouts the final positions are not known here, but each is counted once: as
    many positions as simulations, and no point holds a ball in more of them than that."""
    board = core.board_on_core(midgame_positions()[1], "native")
    player = MctsPlayer(random.Random(9), reuse=False, early_stop=False, threads=threads)
    player.ownership = Ownership(board.geometry.points)
    root = player.search(board, board.to_move, playouts=800)
    assert player.last_tree_nodes > 0 and player.last_simulations == 800
    white, black, playouts = counts(player.ownership)
    assert playouts == 800 == root.n  # the root has no prior visits: root.n counts simulations
    assert all(0 <= w and 0 <= b and w + b <= playouts for w, b in zip(white, black))
    assert 0 < sum(white) + sum(black) <= playouts * len(white)


def test_analysis_with_ownership_searches_on_the_c_tree(monkeypatch):
    """analyse_position with ownership runs the C tree (it fell back to Python before)
    and its ownership map is the Python search's for the same seed."""
    runs = []
    search = MctsPlayer.search

    def spy(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        root = search(self, *args, **kwargs)
        runs.append((self.last_tree_nodes > 0, self.ownership is not None))
        return root

    monkeypatch.setattr(MctsPlayer, "search", spy)
    board = midgame_positions()[2]
    answer = analyse_position(board, 150, seed=3, ownership=True)
    assert runs == [(True, True)]
    monkeypatch.setattr(CTree, "can_search", staticmethod(lambda board: False))
    assert analyse_position(board, 150, seed=3, ownership=True) == answer
    assert runs[1] == (False, True)  # the Python search, same answer
    ownership = answer["ownership"]
    assert len(ownership) == len(board.geometry.points)
    assert all(len(shares) == 3 and abs(sum(shares) - 1) < 0.005 for shares in ownership.values())
    assert answer["rootInfo"]["visits"] == 150 and isinstance(answer["rootInfo"]["scoreLead"], float)


def test_a_review_with_ownership_searches_on_the_c_tree(monkeypatch):
    """analyse_game (margo-review, the web review) with ownership and progress: every
    position searched on the C tree, the answers those of an unwatched analysis."""
    runs = []
    search = MctsPlayer.search

    def spy(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        root = search(self, *args, **kwargs)
        runs.append(self.last_tree_nodes > 0)
        return root

    monkeypatch.setattr(MctsPlayer, "search", spy)
    rules = Rules(size=5)
    moves = [(Colour.parse(c), Move.from_gtp(v, 5)) for c, v in [("W", "C3:1"), ("B", "B2:1"), ("W", "B3:1")]]
    seen = []
    watched = list(analyse_game(rules, moves, 80, ownership=True,
                                on_progress=lambda turn, p: seen.append((turn, p["visits"])), progress_interval=0))
    assert runs == [True] * 4 and sorted({turn for turn, _ in seen}) == [0, 1, 2, 3]
    # reported from the first simulation on (the C tree's tick also comes before it: skipped)
    assert all(0 < visits <= 80 for _, visits in seen)
    assert list(analyse_game(rules, moves, 80, ownership=True)) == watched
    for answer in watched:
        assert answer["rootInfo"]["visits"] == 80 and len(answer["ownership"]) == 25 + 16 + 9 + 4 + 1


def test_without_the_extension_the_python_search_counts_ownership(monkeypatch):
    """No C search (the extension missing): the Python search counts, and the analysis is
    the one the C tree gives."""
    board = midgame_positions()[0]
    with_c = analyse_position(board, 120, seed=8, ownership=True)
    monkeypatch.setattr(native_search, "_search", None)
    assert not native_search.can_search(board)
    player = MctsPlayer(random.Random(1), reuse=False, early_stop=False)
    player.ownership = Ownership(board.geometry.points)
    player.search(board, board.to_move, playouts=30)
    assert player.last_tree_nodes == 0 and player.ownership.playouts == 30
    assert analyse_position(board, 120, seed=8, ownership=True) == with_c


def test_on_the_python_core_the_python_search_counts_ownership():
    board = core.board_on_core(midgame_positions()[4], "python")
    player = MctsPlayer(random.Random(2), reuse=False, early_stop=False)
    player.ownership = Ownership(board.geometry.points)
    player.search(board, board.to_move, playouts=40)
    assert player.last_tree_nodes == 0 and player.ownership.playouts == 40
    native = searched(core.board_on_core(board, "native"), 40, 2, c_tree=True, early_stop=False)
    assert native[-1] and counts(player.ownership) == native[0]
