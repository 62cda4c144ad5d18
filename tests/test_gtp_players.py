"""The player slot: spec parsing, the registry, entry-point discovery hook, the random player."""

from __future__ import annotations

import random

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp import players as players_module
from margo_gtp.players import (
    RESIGN,
    Budget,
    Player,
    PlayerSpecError,
    RandomPlayer,
    available_players,
    make_player,
    parse_player_spec,
    register_player,
)


@pytest.mark.parametrize(
    "spec, parsed",
    [
        ("random", ("random", {})),
        ("random:seed=3", ("random", {"seed": "3"})),
        ("mcts:seconds=1,seed=7", ("mcts", {"seconds": "1", "seed": "7"})),
        (" mcts : seconds = 1 , seed=7 ", ("mcts", {"seconds": "1", "seed": "7"})),
        ("mcts:", ("mcts", {})),
        ("x:a=", ("x", {"a": ""})),
    ],
)
def test_parse_player_spec(spec: str, parsed: tuple) -> None:
    assert parse_player_spec(spec) == parsed


@pytest.mark.parametrize(
    "read, spec, message",
    [
        # The spec's syntax: parse_player_spec alone refuses these.
        (parse_player_spec, "", "empty player name in spec ''"),
        (parse_player_spec, ":seed=1", "empty player name"),
        (parse_player_spec, "random:seed", "player option must be key=value: 'seed' in spec 'random:seed'"),
        (parse_player_spec, "random:=3", "player option must be key=value: '=3'"),
        # Well-formed specs that name no player, or options it does not take.
        (make_player, "nosuchplayer", "unknown player 'nosuchplayer' in spec 'nosuchplayer' \\(known: .*random.*\\)"),
        (make_player, "random:depth=3", "unknown option\\(s\\) for player 'random': depth"),
        (make_player, "random:seed=x", "player option seed must be an integer: 'x' in spec 'random:seed=x'"),
    ],
)
def test_bad_player_specs_are_refused(read, spec: str, message: str) -> None:
    with pytest.raises(PlayerSpecError, match=message):
        read(spec)


def test_player_spec_error_is_a_value_error() -> None:
    assert issubclass(PlayerSpecError, ValueError)


def test_random_player_satisfies_the_contract() -> None:
    player = make_player("random", 1)
    assert isinstance(player, Player) and isinstance(player, RandomPlayer) and player.name == "random"
    assert "random" in available_players()


def test_random_player_is_seeded_and_spec_seed_wins() -> None:
    board = Board(Rules(size=5))

    def first_moves(player) -> list[Move]:
        return [player.select_move(board, Colour.WHITE, Budget()) for _ in range(20)]

    assert first_moves(make_player("random", 7)) == first_moves(make_player("random", 7))
    assert first_moves(make_player("random:seed=7", 99)) == first_moves(make_player("random", 7))
    assert first_moves(make_player("random", 7)) != first_moves(make_player("random", 8))


def test_random_player_is_uniform_over_legal_moves() -> None:
    board = Board(Rules(size=3))
    player = RandomPlayer(random.Random(0))
    counts: dict[Move, int] = {}
    for _ in range(900):
        move = player.select_move(board, Colour.WHITE, Budget())
        counts[move] = counts.get(move, 0) + 1
    assert set(counts) == set(board.legal_moves(Colour.WHITE))  # all 9 board-plane points
    assert all(60 <= n <= 140 for n in counts.values())  # 100 expected each; ~4 sigma either side


def test_random_player_passes_when_blocked_and_leaves_the_board_alone() -> None:
    board = Board(Rules(size=2))
    rng = random.Random(3)
    player = RandomPlayer(rng)
    while board.legal_moves():
        before = board.balls()
        move = player.select_move(board, board.to_move, Budget(seconds=0.1))
        assert board.balls() == before and board.is_legal(move)
        board.push(move)
    assert player.select_move(board, board.to_move, Budget()) is Move.PASS


def test_register_player_adds_to_the_registry() -> None:
    made: list[tuple] = []

    def factory(options, seed):
        made.append((options, seed))
        return RandomPlayer(random.Random(seed))

    register_player("test-dummy", factory)
    try:
        player = make_player("test-dummy:depth=2,seed=5", 1)
        assert isinstance(player, RandomPlayer)
        assert made == [({"depth": "2"}, 5)]
        assert "test-dummy" in available_players()
    finally:
        players_module._REGISTRY.pop("test-dummy")


def test_resign_sentinel() -> None:
    assert repr(RESIGN) == "RESIGN" and RESIGN.gtp() == "resign"
    assert type(RESIGN)() is RESIGN


def test_budget_defaults_to_no_limit() -> None:
    assert Budget() == Budget(seconds=None, playouts=None)
