"""Root-parallel MCTS (``mcts:workers=N``): merged visits, determinism for a seed and a
playout budget, helpers that follow the game, and clean process shutdown."""

from __future__ import annotations

import io
import os
import pickle
import random

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import Budget, make_player
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.parallel import Helper, game_message, serve


def play_out(player: MctsPlayer, plies: int, size: int = 5) -> list[str]:
    board = Board(Rules(size=size))
    player.reset(board)
    moves = []
    while len(moves) < plies and not board.is_game_over():
        colour = board.to_move
        choice = player.select_move(board, colour, Budget())
        board.push(choice, colour)
        player.notify(board, choice, colour)
        moves.append(choice.gtp())
    return moves


def test_two_workers_are_deterministic_and_run_twice_the_simulations() -> None:
    first = make_player("mcts:workers=2,playouts=40,early_stop=off", seed=3)
    second = make_player("mcts:workers=2,playouts=40,early_stop=off", seed=3)
    try:
        moves = play_out(first, 8)
        assert moves == play_out(second, 8)
        assert first.last_simulations == 80  # 40 here + 40 in the helper
        assert len(first._helpers) == 1 and first._helpers[0].alive
    finally:
        first.close()
        second.close()


def test_merged_result_sums_the_helpers_root_visits() -> None:
    board = Board(Rules(size=4))
    player = MctsPlayer(random.Random(1), workers=2, playouts=30, early_stop=False, reuse=False)
    try:
        move = player.select_move(board, Colour.WHITE, Budget())
        own = {child.move.gtp(): child.n for child in player.root.children}
        # The helper is an identical player seeded with the first draw of our generator.
        twin_seed = random.Random(1).getrandbits(63)
        twin = MctsPlayer(random.Random(twin_seed), playouts=30, early_stop=False, reuse=False)
        twin_root = twin.search(board, Colour.WHITE, playouts=30)
        theirs = {child.move.gtp(): child.n for child in twin_root.children}
        merged = {key: own[key] + theirs.get(key, 0) for key in own}
        best = max(merged.values())
        assert merged[move.gtp()] == best
    finally:
        player.close()


def test_close_ends_the_helpers_and_a_later_search_starts_new_ones() -> None:
    player = make_player("mcts:workers=3,playouts=10", seed=1)
    play_out(player, 1)
    helpers = list(player._helpers)
    assert len(helpers) == 2 and all(h.alive for h in helpers)
    pids = [h.pid for h in helpers]
    player.close()
    assert not any(h.alive for h in helpers)
    assert all(h.process.returncode == 0 for h in helpers)  # exited on end of input, not killed
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left behind
    play_out(player, 1)
    assert len(player._helpers) == 2 and player._helpers[0].pid not in pids
    player.close()


def test_a_dropped_player_takes_its_helpers_with_it() -> None:
    player = make_player("mcts:workers=2,playouts=10", seed=1)
    play_out(player, 1)
    helper = player._helpers[0]
    process = helper.process
    del player, helper
    import gc

    gc.collect()
    assert process.poll() == 0


def test_helper_follows_the_game_with_notify_and_rebuilds_after_a_jump() -> None:
    """A real helper: its tree follows the game (notify) and starts over after a jump."""
    priors = MctsPlayer().prior_visits
    helper = Helper(5, {"early_stop": False})
    try:
        board = Board(Rules(size=4))
        helper.start(board, Colour.WHITE, 200, None)
        first = helper.result()
        assert first.simulations == 200
        best = max(first.children, key=lambda key: first.children[key][0])
        board.push(Move.from_gtp(best, 4), Colour.WHITE)
        helper.start(board, Colour.BLACK, 20, None)
        second = helper.result()
        # The subtree below the played move was kept: its children carry the visits
        # of the first search on top of this search's 20 (and their priors).
        visits = sum(n for n, _ in second.children.values()) - priors * len(second.children)
        assert second.simulations == 20 and visits > 20
        other = Board(Rules(size=4))
        other.push(Move.from_gtp("A1", 4), Colour.WHITE)
        helper.start(other, Colour.BLACK, 20, None)
        third = helper.result()
        visits = sum(n for n, _ in third.children.values()) - priors * len(third.children)
        assert visits == 20  # a fresh tree: only this search's simulations
        assert set(third.children) == {m.gtp() for m in other.legal_moves()}
    finally:
        helper.close()
    assert helper.process.returncode == 0


def test_serve_ends_quietly_at_end_of_input() -> None:
    source = io.BytesIO()
    pickle.dump({"seed": 5, "options": {}}, source)
    pickle.dump(game_message(Board(Rules(size=3)), Colour.WHITE, 5, None), source)
    source.seek(0)
    sink = io.BytesIO()
    serve(source, sink)
    sink.seek(0)
    assert pickle.load(sink)["simulations"] == 5
    serve(io.BytesIO(), io.BytesIO())  # no set-up message at all: nothing to do


def test_helper_reports_a_dead_process_clearly() -> None:
    helper = Helper(1, {})
    helper.process.kill()
    helper.process.wait()
    with pytest.raises((RuntimeError, BrokenPipeError)):
        helper.start(Board(Rules(size=3)), Colour.WHITE, 5, None)
        helper.result()
    helper.close()
