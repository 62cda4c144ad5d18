"""The MCTS tree in C (``margo_gtp/players/search_tree.c``) against the Python search.

Differential, as for the playouts and ``uct_select``: with the same seed, the C tree search
(:func:`margo_gtp.players.native_search.tree_search`) and ``MctsPlayer.search`` build the
same tree -- every node's move, visits, wins, AMAF statistics, prior and final score
sums (their sum, sum of squares and count), compared as floats with ``==`` -- and leave the player's generator in the same state, on the bench
positions and on random positions under random rules and random player options. The
searches here count the score sums (``scores=True``, as the analyses ask) unless a test
says otherwise; a search that does not builds the same tree with zero sums. The pool
cap (``max_nodes``) bounds the tree without stopping the search.
"""

from __future__ import annotations

import dataclasses
import random
from array import array
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Rules, core
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import native_search
from margo_gtp.players.mcts import MctsPlayer, Node
from margo_gtp.players.restriction import MoveRestriction
from margo_gtp.players.search_config import SearchConfig
from search_rules import search_rules

pytestmark = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                reason="native core or native search not built")


def python_nodes(root: Node, board: Board) -> list[tuple]:
    """Every node in preorder as the C search lists them: (depth, move code, n, w, rave_n,
    rave_w, prior, score_sum, score_sq, scored), the move code being the point index, -1
    pass, -2 swap, -3 the root."""
    index = board.geometry.index
    out, stack = [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.move is None:
            code = -3
        else:
            code = {"pass": -1, "swap": -2}.get(node.move.kind) if node.move.point is None else index[node.move.point]
        out.append((depth, code, node.n, node.w, node.rave_n, node.rave_w, node.prior, node.score_sum, node.score_sq,
                    node.scored))
        stack.extend((child, depth + 1) for child in reversed(node.children or []))
    return out


def c_tree(player: MctsPlayer, board: Board, colour, playouts: int, max_nodes: int = 1 << 24,
           scores: bool = True) -> tuple:
    """``player``'s search by the C tree, every node in preorder: (simulations, nodes, full)."""
    return native_search.tree_search(board, colour, player.rng, player._c_tree_params(board), playouts,
                                     player._c_tree_priors(), max_nodes, scores=scores)


def both_searches(board: Board, playouts: int, seed: int, colour=None, scores: bool = True,
                  **options) -> tuple[tuple, tuple]:
    """(Python tree, C tree): each as (simulations, nodes, the generator's state after)."""
    board = core.board_on_core(board, "native")
    colour = board.to_move if colour is None else colour
    python_player = MctsPlayer(random.Random(seed), c_tree=False, **options)
    root = python_player.search(board, colour, playouts=playouts, scores=scores)
    native_player = MctsPlayer(random.Random(seed), reuse=False, **options)
    done, nodes, full = c_tree(native_player, board, colour, playouts, scores=scores)
    assert not full
    return ((python_player.last_simulations, python_nodes(root, board), python_player.rng.getstate()),
            (done, nodes, native_player.rng.getstate()))


@pytest.mark.parametrize("early_stop", [False, True], ids=["all-playouts", "early-stop"])
@pytest.mark.parametrize("position", range(6), ids=["empty", *(f"midgame{k}" for k in range(5))])
def test_the_c_tree_is_the_python_tree_on_the_bench_positions(position, early_stop):
    board = ([Board(Rules(size=9))] + midgame_positions())[position]
    python_tree, c_tree = both_searches(board, 250, seed=position + 3, early_stop=early_stop)
    assert c_tree == python_tree
    assert len(c_tree[1]) > 250  # expanded beyond the root's children


@pytest.mark.parametrize("position", [1, 3])
def test_a_search_not_asked_for_scores_builds_the_same_tree_with_zero_score_sums(position):
    """Without ``scores`` (a plain genmove, the bench) neither tree computes a final score:
    the same tree, node for node and draw for draw, as a search that counts them, its
    score sums all zero; and the counted sums are not all zero (the test can fail)."""
    board = midgame_positions()[position]
    counted = both_searches(board, 200, seed=position)
    plain = both_searches(board, 200, seed=position, scores=False)
    assert plain[0] == plain[1]
    zeroed = [node[:7] + (0.0, 0.0, 0) for node in counted[0][1]]
    assert (plain[0][0], plain[0][1], plain[0][2]) == (counted[0][0], zeroed, counted[0][2])
    assert any(node[9] for node in counted[0][1]) and not any(node[9] for node in plain[0][1])


def test_the_c_tree_searches_for_the_colour_not_to_move_as_the_python_tree():
    """select_move(board, colour) may name the colour that is not to move: the moves below
    the root (and those the priors replay) are played by the colours of the tree."""
    for position, board in enumerate(midgame_positions()):
        python_tree, c_tree = both_searches(board, 120, seed=position, colour=Colour(int(board.to_move) ^ 1),
                                            expand_visits=1)
        assert c_tree == python_tree


@st.composite
def positions(draw):
    """A position after a seeded random opening under random rules (sizes 3-9)."""
    size = draw(st.sampled_from([3, 4, 5, 7, 9]))
    rules = search_rules(draw, size)
    board = core.board_on_core(Board(rules), "native")
    board.seeded_playout(draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, size * size)))
    return board


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(board=positions(), seed=st.integers(0, 2**32 - 1), playouts=st.integers(1, 120),
       uct_c=st.sampled_from([0.0, 0.2, 0.7]), rave_k=st.sampled_from([0.0, 50.0, 300.0]),
       expand_visits=st.sampled_from([1, 2, 4]), prior_depth=st.sampled_from([-1, 0, 1, 2]),
       prior_visits=st.sampled_from([0, 1, 10]), playout_moves=st.sampled_from([-1, 0, 3, 10]),
       evaluator=st.sampled_from(["heuristic", "territory"]), ladder=st.sampled_from([None, 0, 2]),
       early_stop=st.booleans())
def test_the_c_tree_is_the_python_tree_under_random_rules_and_options(board, seed, playouts, uct_c, rave_k,
                                                                      expand_visits, prior_depth, prior_visits,
                                                                      playout_moves, evaluator, ladder, early_stop):
    python_tree, c_tree = both_searches(
        board, playouts, seed, uct_c=uct_c, rave_k=rave_k, expand_visits=expand_visits, prior_depth=prior_depth,
        prior_visits=prior_visits, playout_moves=playout_moves, evaluator=evaluator, ladder_depth=ladder,
        early_stop=early_stop)
    assert c_tree == python_tree


def test_the_pool_cap_bounds_the_tree_and_the_search_goes_on():
    board = midgame_positions()[0]
    player = MctsPlayer(random.Random(5), reuse=False, early_stop=False)
    done, nodes, full = c_tree(player, board, board.to_move, 400)
    assert (done, full) == (400, False)
    cap = len(nodes) // 3
    done, capped, full = c_tree(MctsPlayer(random.Random(5), reuse=False, early_stop=False), board, board.to_move,
                                400, max_nodes=cap)
    assert (done, full) == (400, True) and len(capped) <= cap
    assert sum(node[2] for node in capped if node[0] == 1) >= 400  # every simulation went through a root child
    # a cap the uncapped tree fits in changes nothing
    same = c_tree(MctsPlayer(random.Random(5), reuse=False, early_stop=False), board, board.to_move, 400,
                  max_nodes=len(nodes))
    assert same == (400, nodes, False)


def test_bad_arguments_to_the_tree_search_raise():
    from margo_gtp.players import _search

    board = core.board_on_core(Board(Rules(size=5)), "native")
    state = core.native_state(board)
    mt = random.Random(1).getstate()[1]
    params = (SearchConfig(early_stop=False), 0.5, False)  # the config, komi, territory scoring
    with pytest.raises(ValueError, match="^max_nodes must be 1..2\\*\\*31-1$"):
        _search.tree_search(state, 0, mt, *params, 10, 0, None)
    with pytest.raises(ValueError, match="^colour must be 0 or 1$"):
        _search.tree_search(state, 2, mt, *params, 10, 100, None)
    priors = MctsPlayer()._c_tree_priors()
    with pytest.raises(TypeError, match=r"^no field 'weights' in the priors \(int given\)$"):
        _search.tree_search(state, 0, mt, *params, 10, 100, 7)
    no_mix = types.SimpleNamespace(**{name: getattr(priors, name) for name in ("weights", "low", "high", "temp")})
    with pytest.raises(TypeError, match=r"^no field 'pattern_mix' in the priors \(types.SimpleNamespace given\)$"):
        _search.tree_search(state, 0, mt, *params, 10, 100, no_mix)
    with pytest.raises(TypeError, match="^'float' object cannot be interpreted as an integer$"):
        _search.tree_search(state, 0, mt, *params, 10, 100,
                            dataclasses.replace(priors, weights=dataclasses.replace(priors.weights, centre_moves=1.5)))
    done, _, nodes, full = _search.tree_search(state, 0, mt, *params, 10, 1, None)
    assert (done, len(nodes), full) == (10, 1, True)  # room for the root only: ten playouts from it
    with pytest.raises(ValueError, match=r"^move_limits must be None or bytes of 2 \* \(points \+ 2\) int32$"):
        _search.tree_search(state, 0, mt, *params, 10, 100, None, move_limits=bytes(8))
    negative = array("i", [0, -1] * (board.geometry.count + 2)).tobytes()
    with pytest.raises(ValueError, match="^move_limits must not be negative$"):
        _search.tree_search(state, 0, mt, *params, 10, 100, None, move_limits=negative)


@pytest.mark.parametrize("position", range(5))
def test_the_player_on_the_c_tree_chooses_and_analyses_as_on_the_python_tree(position):
    """MctsPlayer.search with reuse=off runs the C tree and returns a view of it (the root,
    its children, their principal variations): the move chosen, the visits behind it and
    the analysis (visits, win rates, priors, AMAF, PVs) are those of the Python search."""
    from margo_gtp.players.base import Budget

    board = midgame_positions()[position]
    results = []
    for python in (True, False):
        player = MctsPlayer(random.Random(position), playouts=300, c_tree=not python)
        player.scores = True  # as after an analysis: the genmove counts the score sums too (Analysis.score)
        move = player.select_move(board, board.to_move, Budget())
        results.append((move, player.last_visits, player.last_winrate, player.last_simulations,
                        player.analysis(player.root, max_moves=40, pv_length=12), player.rng.getstate()))
        assert (player.last_tree_nodes > 0) == (not python)
    assert results[1] == results[0]


def root_stats(root: Node) -> list[tuple]:
    return [(c.move, c.n, c.w, c.prior, c.score_sum, c.score_sq, c.scored) for c in root.children]


@pytest.mark.parametrize("position", range(3))
def test_the_c_tree_leaves_out_the_root_moves_the_python_tree_leaves_out(position):
    """A restriction at the root (allowMoves to depth 1): both trees give the root only the
    legal moves allowed, filtered before the shuffle, so the trees stay the same node for
    node (score sums included); the player's view on the C tree has them too."""
    board = core.board_on_core(midgame_positions()[position], "native")
    colour = board.to_move
    allowed = frozenset(board.legal_moves(colour)[::3])
    restriction = MoveRestriction.only_at_root(colour, allowed)
    python_player = MctsPlayer(random.Random(position), c_tree=False)
    root = python_player.search(board, colour, playouts=150, restriction=restriction, scores=True)
    native_player = MctsPlayer(random.Random(position), reuse=False)
    done, nodes, full = native_search.tree_search(board, colour, native_player.rng, native_player._c_tree_params(board),
                                                  150, native_player._c_tree_priors(), restriction=restriction,
                                                  scores=True)
    assert (done, nodes, native_player.rng.getstate()) == (
        python_player.last_simulations, python_nodes(root, board), python_player.rng.getstate())
    assert {child.move for child in root.children} == allowed and len(allowed) > 1
    viewer = MctsPlayer(random.Random(position))
    view = viewer.search(board, colour, playouts=150, restriction=restriction, scores=True)
    assert viewer.last_tree_nodes > 0  # the C tree ran
    assert root_stats(view) == root_stats(root)
    assert (view.score_sum, view.score_sq, view.scored) == (root.score_sum, root.score_sq, root.scored)
    assert root.scored == root.n == python_player.last_simulations > 0
    # the next search of the same position, without the filter, starts afresh with every move
    for player in (python_player, viewer):
        again = player.search(board, colour, playouts=20)
        # (a fresh root's visits are its simulations; the early stop may end them before 20)
        assert len(again.children) == len(board.legal_moves(colour)) and again.n == player.last_simulations <= 20


def test_the_c_tree_stops_at_the_deadline():
    """The C search reads time.perf_counter's clock: a deadline in the past runs no
    simulation (the root is still expanded), a near one runs some and stops."""
    import time

    player = MctsPlayer(random.Random(2), reuse=False)
    board = midgame_positions()[1]
    root = player.search(board, board.to_move, deadline=time.perf_counter() + 0.05)
    assert player.last_tree_nodes > 0 and root.n == player.last_simulations >= 1
    past = player.search(board, board.to_move, deadline=time.perf_counter() - 1.0)
    assert player.last_simulations == 0 and past.n == 0 and past.children


@pytest.mark.parametrize("prior_depth", [0, 1, 2])
def test_tree_reuse_keeps_the_same_tree_in_c_as_in_python(prior_depth):
    """A game of eight moves between two players of each kind, with tree reuse: the C tree
    keeps the subtree of each move played (compacted into a fresh pool) and gives the nodes
    near its new root the priors they missed (MctsPlayer._prime), so every move, its visits
    and the analysis are those of the Python players (the score sums, which the players
    count as after an analysis, follow their nodes into the fresh pool)."""
    from margo_gtp.players.base import Budget

    records = []
    for python in (True, False):
        board = core.board_on_core(midgame_positions()[2], "native")
        players = [MctsPlayer(random.Random(seed), playouts=200, prior_depth=prior_depth, c_tree=not python)
                   for seed in (1, 2)]
        for player in players:
            player.scores = True
        record = []
        for ply in range(8):
            colour = board.to_move
            player = players[ply % 2]
            move = player.select_move(board, colour, Budget())
            root = player.root
            record.append((move, player.last_visits, player.last_winrate, player.last_simulations,
                           player.analysis(root, max_moves=5), (root.score_sum, root.score_sq, root.scored)))
            assert (player.last_tree_nodes > 0) == (not python) and root.scored > 0
            board.push(move, colour)
            for each in players:
                each.notify(board, move, colour)
        records.append(record)
    assert records[1] == records[0]


@pytest.mark.parametrize("python", [True, False], ids=["python-tree", "c-tree"])
def test_a_search_asked_for_scores_starts_afresh_on_a_kept_tree_without_them_and_then_keeps_them(python):
    """A kept tree grown without score sums is not searched on by a search that asks for
    them (its visits would lack their scores): that search starts a fresh tree. From then
    on the player counts them in every search (MctsPlayer.scores), so the kept tree's sums
    stay whole: every simulation through the root has its score."""
    board = core.board_on_core(midgame_positions()[1], "native")
    colour = board.to_move
    player = MctsPlayer(random.Random(4), c_tree=not python, early_stop=False)
    plain = player.search(board, colour, playouts=60)
    assert (plain.n, plain.scored, player.scores) == (60, 0, False)
    assert (player.last_tree_nodes > 0) == (not python)
    counted = player.search(board, colour, playouts=50, scores=True)
    assert (counted.n, counted.scored) == (50, 50)  # afresh: not on the 60 visits without scores
    again = player.search(board, colour, playouts=40)  # a plain search of this player now counts them
    assert (again.n, again.scored, player.scores) == (90, 90, True)
