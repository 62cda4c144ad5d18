"""KataGo's avoidMoves/allowMoves to a depth (``margo_gtp/players/restriction.py``) in the
two MCTS trees: with the same seed, position and restriction, the C tree
(``search_tree.c``) and the Python tree build the same tree node for node, and walking
either tree shows that every expanded node got exactly the legal moves the restriction
leaves its mover at its depth -- so no forbidden move is ever searched before its
``untilDepth``, and a rule for one player never touches the other's plies. (The net's
tree: tests/test_net.py; the JSON field: tests/test_analysis_json.py.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Rules, core
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import native_search
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.restriction import MoveRestriction, MoveRule
from search_rules import search_rules
from test_native_search import python_nodes

pytestmark = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                reason="native core or native search not built")


def both_trees(board: Board, restriction: MoveRestriction | None, playouts: int, seed: int,
               **options) -> tuple[tuple, tuple, object]:
    """(Python tree, C tree) of one restricted search of ``board`` for its colour to move,
    each as (simulations, every node in preorder, the generator's state after), and the
    Python tree's root."""
    board = core.board_on_core(board, "native")
    colour = board.to_move
    python_player = MctsPlayer(random.Random(seed), c_tree=False, **options)
    # scores: the two trees' score sums are compared too, and the dead-end test reads `scored`
    root = python_player.search(board, colour, playouts=playouts, restriction=restriction, scores=True)
    native_player = MctsPlayer(random.Random(seed), reuse=False, **options)
    done, nodes, full = native_search.tree_search(board, colour, native_player.rng,
                                                  native_player._c_tree_params(board), playouts,
                                                  native_player._c_tree_priors(), restriction=restriction,
                                                  scores=True)
    assert not full
    return ((python_player.last_simulations, python_nodes(root, board), python_player.rng.getstate()),
            (done, nodes, native_player.rng.getstate()), root)


def expansions(nodes: list[tuple], board: Board) -> list[tuple[int, Colour, list[Move], list[Move]]]:
    """Each node with children in a preorder list of (depth, move code, ...) -- the C
    tree's, or :func:`python_nodes` of the Python tree -- as (depth, mover, the mover's
    legal moves, the children's moves), its position replayed from ``board``."""
    parent: list[int | None] = []
    children: dict[int, list[int]] = {}
    stack: list[int] = []
    for i, (depth, *_) in enumerate(nodes):
        del stack[depth:]
        parent.append(stack[-1] if stack else None)
        if stack:
            children.setdefault(stack[-1], []).append(i)
        stack.append(i)
    out = []
    for i, kids in children.items():
        line, j = [], i
        while parent[j] is not None:
            line.append(nodes[j][1])
            j = parent[j]
        work = board.copy()
        for code in reversed(line):
            work.push(native_search.move_of(work, code), work.to_move)
        mover = work.to_move
        out.append((nodes[i][0], mover, work.legal_moves(mover),
                    [native_search.move_of(work, nodes[k][1]) for k in kids]))
    return out


def left_out_by_depth(nodes: list[tuple], board: Board, restriction: MoveRestriction) -> dict[int, int]:
    """Checks that every expanded node has exactly the legal moves ``restriction`` allows
    its mover at its depth (none forbidden, none missing); returns how many legal moves it
    left out, by depth, so that a test can tell it bit."""
    left_out: dict[int, int] = {}
    for depth, mover, legal, moves in expansions(nodes, board):
        assert all(restriction.limit(mover, move) <= depth for move in moves), (depth, mover, moves)
        allowed = restriction.moves_at(legal, mover, depth)
        assert len(moves) == len(set(moves)) and set(moves) == set(allowed), (depth, mover)
        left_out[depth] = left_out.get(depth, 0) + len(legal) - len(allowed)
    return left_out


def rules_for(board: Board) -> dict[str, MoveRestriction]:
    """Restrictions of ``board`` (its mover ``me``, the other ``you``) reaching past the root."""
    me = board.to_move
    you = me.opponent
    mine, yours = board.legal_moves(me), board.legal_moves(you)
    return {
        "avoid-mine-to-3": MoveRestriction((MoveRule(me, frozenset(mine[::2]), 3),)),
        "allow-yours-to-2": MoveRestriction((MoveRule(you, frozenset(yours[::3]), 2, allow=True),)),
        "both-players": MoveRestriction((MoveRule(me, frozenset(mine[1::3]), 4),
                                         MoveRule(you, frozenset(yours[::2]), 3, allow=True))),
    }


@pytest.mark.parametrize("kind", ["avoid-mine-to-3", "allow-yours-to-2", "both-players"])
@pytest.mark.parametrize("position", range(3))
def test_both_trees_leave_the_same_moves_out_to_the_depth_asked(position, kind):
    board = midgame_positions()[position]
    restriction = rules_for(board)[kind]
    python_tree, c_tree, _ = both_trees(board, restriction, 300, seed=position, expand_visits=1)
    assert c_tree == python_tree
    for nodes in (python_tree[1], c_tree[1]):  # both walked, though equal: each tree is checked as it came
        left_out = left_out_by_depth(nodes, board, restriction)
        assert any(count for depth, count in left_out.items() if depth >= 1)  # below the root too
        assert not any(count for depth, count in left_out.items() if depth >= restriction.depth)


def test_a_rule_for_one_player_leaves_the_other_players_plies_alone():
    board = midgame_positions()[1]
    me, you = board.to_move, board.to_move.opponent
    theirs = frozenset(board.legal_moves(you)[::2])
    # the other's rule to depth 1 touches no node: the tree of no restriction, in both trees
    only_root = MoveRestriction((MoveRule(you, theirs, 1),))
    restricted = both_trees(board, only_root, 200, seed=4)
    free = both_trees(board, None, 200, seed=4)
    assert restricted[0] == free[0] and restricted[1] == free[1]
    # to depth 4: the other's plies 2 and 4 lose moves, every ply of the mover keeps them all
    deeper = MoveRestriction((MoveRule(you, theirs, 4),))
    python_tree, c_tree, _ = both_trees(board, deeper, 300, seed=4, expand_visits=1)
    assert c_tree == python_tree
    left_out_by_depth(c_tree[1], board, deeper)
    depths = {colour: set() for colour in (me, you)}
    for depth, mover, legal, moves in expansions(c_tree[1], board):
        depths[mover].add(depth)
        if mover == me:
            assert len(moves) == len(legal)
        else:
            assert len(moves) < len(legal) or depth >= 4
    assert {0, 2} <= depths[me] and {1, 3} <= depths[you]


def test_a_node_the_restriction_leaves_no_move_is_a_leaf_in_both_trees():
    """After W B2:1 on 3x3, Black may play A1:1 and C3:1 only, for five plies: once White
    has taken the other, Black's node has no child, and each visit plays out from it."""
    board = Board(Rules(size=3))
    board.push(Move.from_gtp("B2", 3), Colour.WHITE)
    restriction = MoveRestriction((MoveRule(Colour.BLACK, frozenset({Move.from_gtp("A1", 3),
                                                                     Move.from_gtp("C3", 3)}), 5, allow=True),))
    python_tree, c_tree, root = both_trees(board, restriction, 400, seed=1, expand_visits=1, early_stop=False)
    assert c_tree == python_tree and c_tree[0] == 400
    assert {str(child.move) for child in root.children} == {"A1:1", "C3:1"}
    left_out_by_depth(c_tree[1], board, restriction)
    dead_ends = []
    stack = [(root, board.copy(), 0)]
    while stack:
        node, position, depth = stack.pop()
        mover = position.to_move
        if (depth < restriction.depth and mover == Colour.BLACK and position.legal_moves(mover)
                and not restriction.moves_at(position.legal_moves(mover), mover, depth) and node.scored > 1):
            dead_ends.append(node)
        for child in node.children or []:
            after = position.copy()
            after.push(child.move, mover)
            stack.append((child, after, depth + 1))
    assert dead_ends and all(node.children == [] for node in dead_ends)


def test_two_c_threads_keep_the_restriction():
    board = core.board_on_core(midgame_positions()[2], "native")
    restriction = rules_for(board)["both-players"]
    player = MctsPlayer(random.Random(8), reuse=False, early_stop=False, expand_visits=1)
    done, nodes, full = native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board), 400,
                                                  player._c_tree_priors(), threads=2, restriction=restriction)
    assert (done, full) == (400, False)
    left_out = left_out_by_depth(nodes, board, restriction)
    assert any(count for depth, count in left_out.items() if depth >= 1)


def test_a_restricted_tree_is_not_searched_on():
    """A restricted search starts afresh and the next search (another restriction or none)
    does too, in both trees, even after the move played: the kept tree lacks moves."""
    board = core.board_on_core(midgame_positions()[0], "native")
    restriction = rules_for(board)["avoid-mine-to-3"]
    for c_tree in (False, True):
        player = MctsPlayer(random.Random(3), c_tree=c_tree, early_stop=False)
        root = player.search(board, board.to_move, playouts=60, restriction=restriction)
        move = max(root.children, key=lambda child: child.n).move
        after = board.copy()
        after.push(move, board.to_move)
        player.notify(after, move, board.to_move)
        again = player.search(after, after.to_move, playouts=30)
        assert again.n == 30 and len(again.children) == len(after.legal_moves(after.to_move))


@st.composite
def restricted_positions(draw):
    """A position after a seeded random opening under random rules (sizes 3-7), and a
    random restriction of its points for either player, to a random depth."""
    size = draw(st.sampled_from([3, 4, 5, 7]))
    board = core.board_on_core(Board(search_rules(draw, size)), "native")
    board.seeded_playout(draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, size * size)))
    moves = [Move(point) for point in board.geometry.points] + [Move.PASS, Move.SWAP]
    rules = []
    allow = draw(st.booleans())
    for _ in range(1 if allow else draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(moves), max_size=len(moves)))
        rules.append(MoveRule(draw(st.sampled_from([Colour.BLACK, Colour.WHITE])), frozenset(chosen),
                              draw(st.integers(1, 5)), allow=allow))
    return board, MoveRestriction(tuple(rules))


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=restricted_positions(), seed=st.integers(0, 2**32 - 1), playouts=st.integers(1, 120),
       expand_visits=st.sampled_from([1, 2]), prior_depth=st.sampled_from([-1, 0, 1, 2]),
       threads=st.sampled_from([1, 2]))
def test_random_restrictions_give_the_same_tree_in_c_as_in_python(case, seed, playouts, expand_visits, prior_depth,
                                                                  threads):
    board, restriction = case
    if not restriction.moves_at(board.legal_moves(board.to_move), board.to_move, 0):
        return  # nothing left at the root: margo-analysis answers that with an error, unsearched
    options = {"expand_visits": expand_visits, "prior_depth": prior_depth}
    if threads == 1:
        python_tree, c_tree, _ = both_trees(board, restriction, playouts, seed, **options)
        assert c_tree == python_tree
        nodes = c_tree[1]
    else:  # two threads: another tree, with the same rules
        player = MctsPlayer(random.Random(seed), reuse=False, **options)
        _, nodes, _ = native_search.tree_search(board, board.to_move, player.rng, player._c_tree_params(board),
                                                playouts, player._c_tree_priors(), threads=2,
                                                restriction=restriction)
    left_out_by_depth(nodes, board, restriction)
