"""The ``perfect`` player (issue 38): it plays the shipped 2x2 and 3x3 proofs and the 4x4
book, never loses from the winning side, and refuses other sizes and rules over GTP with one
exact line."""

from __future__ import annotations

import io
import random

import pytest

pytest.importorskip("margo_gtp.players._solver", reason="the C solver is not built")

from margo_gtp.engine.board import Board  # noqa: E402
from margo_gtp.engine.rules import Rules  # noqa: E402
from margo_gtp.engine.types import BLACK, WHITE  # noqa: E402
from margo_gtp.players import make_player  # noqa: E402
from margo_gtp.players.base import Budget  # noqa: E402
from margo_gtp.protocol.gtp import run_gtp_session  # noqa: E402
from margo_gtp.protocol.session import make_gtp_engine  # noqa: E402

REFUSAL = "perfect plays 2x2, 3x3 and 4x4 under the default rules only (the sizes with a shipped proof or book)"


def play_out(perfect_colour, seed: int, size: int = 2) -> int:
    """White's final margin when perfect plays ``perfect_colour`` against random moves."""
    rng = random.Random(seed)
    board = Board(Rules(size=size))
    perfect = make_player("perfect")
    while moves := board.legal_moves():
        move = perfect.select_move(board, board.to_move, Budget()) if board.to_move is perfect_colour else rng.choice(moves)
        board.push(move)
    counts = board.ball_counts()
    return counts[WHITE] - counts[BLACK]


@pytest.mark.parametrize("seed", range(12))
def test_perfect_keeps_the_value_against_any_play(seed):
    assert play_out(WHITE, seed) >= 1  # the value is W+1: White never gets less
    assert play_out(BLACK, seed) <= 1  # and Black never lets White get more


@pytest.mark.parametrize("seed", range(12))
def test_perfect_keeps_the_value_of_3x3_against_any_play(seed):
    # 3x3 is W+5; perfect plays the compact proof's strategies (docs/solving.md)
    assert play_out(WHITE, seed, 3) >= 5
    assert play_out(BLACK, seed, 3) <= 5


def gtp(commands: str) -> str:
    engine = make_gtp_engine(make_player("perfect"))
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(commands), out)
    return out.getvalue()


def test_perfect_over_gtp_plays_2x2_3x3_and_4x4_and_refuses_the_rest():
    answer = gtp("boardsize 2\ngenmove w\nboardsize 3\ngenmove w\ngenmove b\nboardsize 4\ngenmove w\n"
                 "boardsize 5\ngenmove w\nboardsize 2\nmargo-set_rules ko_rule=simple\ngenmove b\nquit\n")
    assert answer == ("=\n\n= A1:1\n\n=\n\n= B2:1\n\n= B1:1\n\n=\n\n= B3:1\n\n=\n\n"
                      f"? {REFUSAL}, not 5x5\n\n=\n\n=\n\n"
                      f"? {REFUSAL}, not these rules\n\n=\n\n")


def test_perfect_plays_after_the_referees_set_up_and_refuses_a_lower_top_level():
    # the referee sends every rule, max_level too (game/bots.py's new_game): max_level=2 is 3x3's
    # default, though the Rules object keeps it as 2 rather than None; it refused every game once
    referee_rules = " ".join(f"{name}={value}" for name, value in Rules(size=3).options().items()
                             if name not in ("size", "komi"))
    assert "max_level=2" in referee_rules
    answer = gtp(f"boardsize 3\nclear_board\nkomi 0\nmargo-set_rules {referee_rules}\ngenmove w\n"
                 "boardsize 3\nmargo-set_rules max_level=1\ngenmove w\nquit\n")
    assert answer == f"=\n\n=\n\n=\n\n=\n\n= B2:1\n\n=\n\n=\n\n? {REFUSAL}, not these rules\n\n=\n\n"


def test_perfect_is_in_the_catalogue():
    from margo_gtp.players.catalogue import catalogue

    assert "perfect: perfect play from the shipped proofs of small boards (2x2, 3x3 and 4x4; docs/solving.md)" in catalogue()


def test_the_4x4_book_opens_with_b3_and_answers_every_black_reply_or_leaves_it_to_the_solver():
    from margo_gtp.players.perfect import book

    prover, moves = book(4)
    assert (prover, moves[""], len(moves)) == ("white", "B3:1", 150)
    # every line of the book is a game of legal moves where White is to move, White's moves the book's
    for line, move in moves.items():
        board = Board(Rules(size=4))
        played = line.split()
        for ply, text in enumerate(played):
            if ply % 2 == 0:
                assert moves[" ".join(played[:ply])] == text
            board.push(_move(text))
        assert board.to_move is WHITE and _move(move) in board.legal_moves()


def _move(text: str):
    from margo_gtp.engine.types import Move
    from margo_gtp.vertex import parse_vertex

    return Move(parse_vertex(text, 4))


@pytest.mark.parametrize("seed", range(2))
def test_perfect_wins_4x4_as_white_against_any_play(seed):
    # 4x4 is a White win (docs/solving.md): the book, then the solver's winning moves
    assert play_out(WHITE, seed, 4) >= 1
