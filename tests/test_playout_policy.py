"""Playout policies: the heavy policy's flood fill agrees with the rules core, its four
tactical rules pick the moves a Go player would, and its playouts are legal and seeded."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import Budget, make_player
from margo_gtp.players.mcts import MctsPlayer, playout, territory_evaluator
from margo_gtp.players.playout_policy import HeavyPolicy, LightPolicy, group_at, local_reply
from margo_gtp.vertex import Point


def board_from(size: int, text: dict[str, str], to_move: Colour, **rules: object) -> Board:
    """A board with White balls at ``text['W']`` and Black at ``text['B']`` (GTP vertices)."""
    board = Board(Rules(size=size, **rules))
    balls = {}
    for letter, colour in (("W", Colour.WHITE), ("B", Colour.BLACK)):
        for vertex in text.get(letter, "").split():
            balls[Move.from_gtp(vertex, size).point] = colour
    board.setup(balls, to_move=to_move)
    return board


def played(board: Board, vertex: str, colour: Colour) -> Board:
    board.push(Move.from_gtp(vertex, board.size), colour)
    return board


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(3, 7), plies=st.integers(0, 120),
       cutting=st.booleans())
def test_group_at_matches_the_rules_core(seed: int, size: int, plies: int, cutting: bool) -> None:
    board = Board(Rules(size=size, bridge_cutting=cutting))
    board.random_playout(random.Random(seed), max_moves=plies)
    for colour in (0, 1):
        for group, freedoms in board.group_freedoms(Colour(colour)):
            start = (group & -group).bit_length() - 1
            assert group_at(board, start, colour) == (group, freedoms)


def test_capture_the_group_in_atari_next_to_the_last_move() -> None:
    # Black C2 is down to one freedom (C1) after White's B2; Black's last move
    # is C2 itself: White (to move) takes it.
    board = board_from(5, {"W": "C3 D2", "B": ""}, Colour.WHITE)
    played(board, "B2", Colour.WHITE)
    played(board, "C2", Colour.BLACK)
    assert local_reply(board, random.Random(0), int(Colour.WHITE)) == Move.from_gtp("C1", 5)


def test_escape_from_atari_only_when_it_gains_freedoms() -> None:
    # White A1 is in atari (freedom A2) after Black B1: escaping to A2 gives it A3 and B2.
    board = board_from(5, {"W": "A1", "B": ""}, Colour.BLACK)
    played(board, "B1", Colour.BLACK)
    assert local_reply(board, random.Random(0), int(Colour.WHITE)) == Move.from_gtp("A2", 5)
    # With A3 and B2 Black as well, A2 would still be one freedom short: no escape, no reply.
    board = board_from(5, {"W": "A1", "B": "A3 B2"}, Colour.BLACK)
    played(board, "B1", Colour.BLACK)
    assert local_reply(board, random.Random(0), int(Colour.WHITE)) is None


def test_connect_a_contact_the_last_move_threatens_to_cut() -> None:
    # White B2-C2 is crossed by B1:2 and B2:2 (R10). Black took B2:2: White takes B1:2.
    board = board_from(5, {"W": "B2 C2 B1 C3", "B": "B3 C1 D1"}, Colour.BLACK)
    played(board, "B2:2", Colour.BLACK)
    reply = local_reply(board, random.Random(0), int(Colour.WHITE))
    assert reply == Move.from_gtp("B1:2", 5)
    board.push(reply, Colour.WHITE)
    played(board, "E5", Colour.BLACK)
    group, _ = group_at(board, board.geometry.index[Point(1, 1, 0)], 0)  # B2 and C2 stay one group
    assert group & (1 << board.geometry.index[Point(2, 1, 0)])


def test_cut_when_the_last_move_frees_the_second_crossing_point() -> None:
    # Black B1:2 crosses White's contact B2-C2; White's C3 completes the support of the
    # other crossing point B2:2 (on B2 C2 B3 C3): Black cuts there.
    board = board_from(5, {"W": "B2 C2 B1", "B": "C1 D1 B3 B1:2"}, Colour.WHITE)
    played(board, "C3", Colour.WHITE)
    reply = local_reply(board, random.Random(0), int(Colour.BLACK))
    assert reply == Move.from_gtp("B2:2", 5)
    board.push(reply, Colour.BLACK)
    group, _ = group_at(board, board.geometry.index[Point(1, 1, 0)], 0)
    assert not group & (1 << board.geometry.index[Point(2, 1, 0)])  # cut (R10)


def test_no_reply_after_a_quiet_move_or_at_the_root() -> None:
    board = Board(Rules(size=7))
    assert local_reply(board, random.Random(0), 0) is None
    played(board, "D4", Colour.WHITE)
    assert local_reply(board, random.Random(0), 1) is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(2, 7), moves=st.integers(1, 60))
def test_heavy_playouts_are_legal_and_seeded(seed: int, size: int, moves: int) -> None:
    board = Board(Rules(size=size))
    count = HeavyPolicy().play(board, random.Random(seed), moves)
    assert count == len(board.history) <= moves
    replay = Board(Rules(size=size))
    for colour, move in board.history:
        replay.push(move, colour)  # raises if any move was illegal
    again = Board(Rules(size=size))
    HeavyPolicy().play(again, random.Random(seed), moves)
    assert again.history == board.history
    if count < moves:
        assert board.is_game_over()


def test_light_policy_is_the_cores_random_playout() -> None:
    a, b = Board(Rules(size=5)), Board(Rules(size=5))
    assert LightPolicy().play(a, random.Random(3), 20) == b.random_playout(random.Random(3), 20)
    assert a.history == b.history


def test_playout_with_a_policy_scores_the_end() -> None:
    board = Board(Rules(size=3))
    result = playout(board, random.Random(1), -1, territory_evaluator, HeavyPolicy())
    assert board.is_game_over()
    outcome = board.outcome()
    assert result == (0.5 if outcome.winner is None else 1.0 if outcome.winner is Colour.WHITE else 0.0)


def test_heavy_spec_builds_a_heavy_player_and_is_deterministic() -> None:
    player = make_player("mcts:policy=heavy,tactics=0.5,playouts=30", seed=4)
    assert isinstance(player, MctsPlayer)
    assert isinstance(player.policy, HeavyPolicy) and player.policy.tactics == 0.5
    assert make_player("mcts").policy is None  # light: the core's fast path

    def first_moves(seed: int) -> list[Move]:
        board = Board(Rules(size=5))
        moves = []
        player = make_player("mcts:policy=heavy,playouts=40", seed=seed)
        for _ in range(6):
            move = player.select_move(board, board.to_move, Budget())
            colour = board.to_move
            board.push(move, colour)
            player.notify(board, move, colour)
            moves.append(move)
        return moves

    assert first_moves(5) == first_moves(5)
