"""The leaf evaluator's ladder reading (mcts.can_escape, mcts.ladder_captures, LADDER_DEPTH)
on exact boards, on both rules cores; the C port's agreement over random positions is in
tests/test_native_core.py (the bulk-call tests run with the reading off and on)."""

from __future__ import annotations

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules, core
from margo_gtp.engine import Point
from margo_gtp.players import PlayerSpecError, make_player, mcts
from margo_gtp.players.heuristic import groups_with_freedoms

WHITE, BLACK = Colour.WHITE, Colour.BLACK

# A board-plane ladder on 7x7 (x right, y down): the Black ball at (2,2) has two freedoms,
# (3,2) and (2,3). White ataris at (2,3); Black runs to (3,2), White ataris at (4,2),
# Black runs to (3,1), White ataris at (4,1), Black runs to (3,0) on the edge, and the
# fourth atari leaves it one freedom whatever it does: taken after four ataris. (Ataris
# at (3,2), (2,4), (1,4), (0,4) run the mirror ladder down the left edge, also four.)
LADDER = {Point(2, 2): BLACK, Point(1, 2): WHITE, Point(2, 1): WHITE, Point(3, 3): WHITE}
CORES = ["python"] + (["native"] if core.native_available() else [])


@pytest.fixture(params=CORES)
def on_core(request):
    previous = core.core_name()
    core.set_core(request.param)
    yield request.param
    core.set_core(previous)


def ladder_board(extra: dict[Point, Colour] | None = None) -> tuple[Board, int, int]:
    board = Board(Rules(size=7))
    board.setup({**LADDER, **(extra or {})}, to_move=WHITE)
    ball = 1 << board.geometry.index[Point(2, 2)]
    liberties = next(freedoms for group, freedoms in groups_with_freedoms(board, int(BLACK)) if group & ball)
    return board, ball, liberties


def test_the_ladder_is_read_to_its_fourth_atari_and_no_further(on_core) -> None:
    board, ball, liberties = ladder_board()
    before = board.copy()
    index = board.geometry.index
    assert liberties == (1 << index[Point(3, 2)]) | (1 << index[Point(2, 3)])
    assert [mcts.ladder_captures(board, int(WHITE), ball, liberties, depth) for depth in range(7)] == [
        False, False, False, False, True, True, True]
    assert board == before and board.ply == 0  # every trial move was taken back


def test_ladder_breakers_on_both_paths_save_the_group(on_core) -> None:
    # Black balls at (4,1) and (1,4), one on each ladder's path: the first run reaches
    # one of them and the group then has three freedoms or more, whichever freedom White
    # ataris at each step.
    board, ball, liberties = ladder_board({Point(4, 1): BLACK, Point(1, 4): BLACK})
    assert [mcts.ladder_captures(board, int(WHITE), ball, liberties, depth) for depth in range(9)] == [False] * 9


def test_can_escape_at_depth_0_is_the_one_move_check(on_core) -> None:
    # After White's first atari at (2,3), Black's run to (3,2) reaches two freedoms: safe
    # for the one-move check, taken for a reader three ataris deep.
    board, _, _ = ladder_board()
    board.push(Move(Point(2, 3)), WHITE)
    last = 1 << board.geometry.index[Point(3, 2)]
    assert mcts.can_escape(board, int(BLACK), last, 0) is True
    assert mcts.can_escape(board, int(BLACK), last, 2) is True
    assert mcts.can_escape(board, int(BLACK), last, 3) is False
    assert board.ply == 1


def test_the_evaluator_counts_a_laddered_group_as_lost(on_core) -> None:
    # White to move: Black's ball has two freedoms. Off, it costs Black a share
    # (SHORT_OF_FREEDOMS_LOSS); read four ataris deep, the whole ball.
    board, _, _ = ladder_board()
    off = mcts.heuristic_evaluator(board, 0)
    on = mcts.heuristic_evaluator(board, 4)
    assert on > off  # better for White
    assert mcts.seeded_playout(board.copy(), 0, 0, mcts.heuristic_evaluator, 4) == on
    assert mcts.seeded_playout(board.copy(), 0, 0, mcts.heuristic_evaluator, 0) == off


def test_ladder_option_of_the_mcts_spec() -> None:
    assert make_player("mcts:ladder=4").ladder_depth == 4
    assert make_player("mcts").ladder_depth is None
    with pytest.raises(PlayerSpecError, match=r"^player option ladder must be between 0 and 8: '9'$"):
        make_player("mcts:ladder=9")
    with pytest.raises(PlayerSpecError, match=r"^player option ladder must be an integer: 'deep'$"):
        make_player("mcts:ladder=deep")
