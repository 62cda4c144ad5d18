"""The heuristic priors in C (``margo_gtp/players/search_prior.c``) against the Python ones.

Differential: ``_search.prior_rates`` (what the C tree computes at its expansions, on its
search threads) and ``MctsPlayer._prior_rates`` (``HeuristicPlayer.evaluate`` per move)
give the same rate to every legal move, compared as floats with ``==``, on random
positions under random rules, for either colour, at several temperatures; the Python
rates are taken on both rules cores.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Rules, core
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import _search, native_search
from margo_gtp.players.mcts import MctsPlayer
from search_rules import search_rules

pytestmark = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                reason="native core or native search not built")


@st.composite
def positions(draw):
    """A position after a seeded random opening of 0 to size**2 moves under random rules
    (sizes 2-9 and 13): openings of 0-1 moves leave the swap legal, long ones end games."""
    size = draw(st.sampled_from([2, 3, 4, 5, 7, 9, 13]))
    rules = search_rules(draw, size)
    board = core.board_on_core(Board(rules), "native")
    board.seeded_playout(draw(st.integers(0, 2**64 - 1)), draw(st.sampled_from([0, 1, 2, size, size * size])))
    return board


def both_rates(board: Board, colour: Colour, prior_temp: float) -> tuple[list[float], list[float], list[float]]:
    """(Python rates on the native core, Python rates on the Python core, C rates) of every
    legal move of ``colour``."""
    player = MctsPlayer(random.Random(0), prior_temp=prior_temp)
    moves = board.legal_moves(colour)
    if not moves:  # the Python search never asks (it gives priors to two moves or more)
        return [], [], native_search.prior_rates(board, moves, int(colour), player._c_tree_priors())
    on_python_core = core.board_on_core(board, "python")
    return (player._prior_rates(board, moves, int(colour)), player._prior_rates(on_python_core, moves, int(colour)),
            native_search.prior_rates(board, moves, int(colour), player._c_tree_priors()))


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(board=positions(), other_colour=st.booleans(), prior_temp=st.sampled_from([0.5, 4.0, 7.3]))
def test_the_c_priors_are_the_python_priors(board, other_colour, prior_temp):
    colour = Colour(int(board.to_move) ^ other_colour)
    before = (board.zobrist_key, board.ply, board.to_move)
    on_native, on_python, in_c = both_rates(board, colour, prior_temp)
    assert in_c == on_native == on_python
    assert (board.zobrist_key, board.ply, board.to_move) == before  # nothing left played


@pytest.mark.parametrize("position", range(5))
def test_the_c_priors_on_the_bench_positions(position):
    board = core.board_on_core(midgame_positions()[position], "native")
    before = (board.zobrist_key, board.ply, board.to_move)
    on_native, _, in_c = both_rates(board, board.to_move, 4.0)
    assert in_c == on_native and max(in_c) == 0.9 and min(in_c) >= 0.1
    assert (board.zobrist_key, board.ply, board.to_move) == before


def test_a_pass_is_valued_by_what_it_ends():
    """A pass that ends the game (after the opponent's pass) is the best move when it wins
    and worse than any other when it does not; any other pass ranks below every move."""
    for komi, expected in ((-0.5, 0.9), (0.5, None)):
        board = core.board_on_core(Board(Rules(size=3, allow_pass=True, komi=komi)), "native")
        board.push(Move.PASS, board.to_move)
        colour = board.to_move  # Black, after White's pass: the empty board is a draw but for komi
        on_native, _, in_c = both_rates(board, colour, 4.0)
        assert in_c == on_native
        if expected is None:
            assert in_c[-1] == min(in_c) < max(in_c[:-1])
        else:
            assert in_c[-1] == expected
    board = core.board_on_core(Board(Rules(size=3, allow_pass=True)), "native")
    _, _, in_c = both_rates(board, board.to_move, 4.0)
    assert in_c[-1] < min(in_c[:-1])


def test_bad_arguments_to_prior_rates_raise():
    board = core.board_on_core(midgame_positions()[0], "native")
    state = core.native_state(board)
    priors = MctsPlayer()._c_tree_priors()
    occupied = next(i for i in range(board.geometry.count) if board.get(board.geometry.points[i]) is not None)
    with pytest.raises(ValueError, match="^move code 999 is off the board$"):
        _search.prior_rates(state, 0, [999], priors, 0.5)
    with pytest.raises(ValueError, match="^move code -3 is off the board$"):
        _search.prior_rates(state, 0, [-3], priors, 0.5)
    with pytest.raises(ValueError, match="^prior_rates: a move is illegal$"):
        _search.prior_rates(state, 0, [occupied], priors, 0.5)
    with pytest.raises(TypeError, match=r"^no field 'weights' in the priors \(tuple given\)$"):
        _search.prior_rates(state, 0, [occupied], (1.0, 2.0, 3.0), 0.5)
    with pytest.raises(ValueError, match="^colour must be 0 or 1$"):
        _search.prior_rates(state, 2, [occupied], priors, 0.5)
    assert _search.prior_rates(state, 0, [], priors, 0.5) == []
