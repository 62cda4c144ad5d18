"""Frozen move counts ("perft"): the number of legal move sequences of length 1, 2, 3.

The numbers were computed once with the reference implementation (reference_rules.py)
and are frozen here as regression data for the engine's move generator: any change in
legality (support, suicide, cascade, repetition, swap, pass, first capture) shows up as a
changed count. The reference is re-checked against them too, so the two cannot drift
apart silently.

Positions (GTP vertices):

stacked5 (5x5) -- a corner pyramid topped by A1:3 (B2:1 buried), white zombies A1:1 A1:2
(pinned under A1:3) and C1:1 (pinned under B1:2)::

    level 3:  A1:3 X          level 2:  2 X O            level 1:  5 . . . . .
                                        1 O X .                    4 . X . X .
                                          A B C D                  3 O X O . O
                                                                   2 X O X O .
                                                                   1 O X O X .
                                                                     A B C D E

zombie4 (4x4, Black to move) -- the white zombie D2:1 is pinned under C1:2 and C2:2::

    level 2:  3 O X            level 1:  4 X X O .
              2 X X X                    3 O X O X
              1     .                    2 O X X O
                A B C                    1 O . X X
                                           A B C D
"""

from __future__ import annotations

import pytest

import reference_rules as ref
from rules_cases import case_balls, engine_board

# Every test here runs on both rules cores, but those marked reference_only (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("rules_core")

STACKED5_WHITE = "A1:1 C1:1 B2:1 A3:1 C3:1 A1:2 B2:2 D2:1 E3:1"
STACKED5_BLACK = "B1:1 A2:1 C2:1 B3:1 B1:2 A2:2 A1:3 D1:1 D4:1 B4:1"
ZOMBIE4_WHITE = "A1:1 A2:1 A3:1 A3:2 C3:1 C4:1 D2:1"
ZOMBIE4_BLACK = "A2:2 A4:1 B2:1 B2:2 B3:1 B3:2 B4:1 C1:1 C2:1 C2:2 D1:1 D3:1"

#: (name, options, white, black, to_move, [perft(1), perft(2), perft(3)])
PERFT = [
    ("empty4", {"size": 4}, "", "", None, [16, 240, 3360]),
    ("empty4-swap-pass", {"size": 4, "swap": "on", "allow_pass": "on"}, "", "", None, [17, 289, 4368]),
    ("stacked5", {"size": 5}, STACKED5_WHITE, STACKED5_BLACK, "W", [12, 132, 1372]),
    (
        "stacked5-options",
        {"size": 5, "own_freedomless_group": "illegal", "all_freedoms": "on", "bridge_cutting": "off",
         "ko_position": "top_view"},
        STACKED5_WHITE, STACKED5_BLACK, "B", [12, 133, 1356],
    ),
    ("zombie4", {"size": 4}, ZOMBIE4_WHITE, ZOMBIE4_BLACK, "B", [4, 4, 17]),
    (
        "zombie4-simple-ko-first-capture",
        {"size": 4, "ko_rule": "simple", "first_capture_wins": "on"},
        ZOMBIE4_WHITE, ZOMBIE4_BLACK, "B", [4, 3, 5],
    ),
]


def engine_perft(board, depth: int) -> int:
    if depth == 0:
        return 1
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += engine_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("name, options, white, black, to_move, counts", PERFT, ids=[row[0] for row in PERFT])
def test_engine_perft_matches_frozen_counts(name, options, white, black, to_move, counts) -> None:
    board = engine_board(options, case_balls(options["size"], white, black), to_move)
    before = (board.balls(), board.zobrist_key, list(board.history))
    assert [engine_perft(board, depth) for depth in (1, 2, 3)] == counts
    assert (board.balls(), board.zobrist_key, list(board.history)) == before


@pytest.mark.reference_only
@pytest.mark.parametrize("name, options, white, black, to_move, counts", PERFT, ids=[row[0] for row in PERFT])
def test_reference_perft_matches_frozen_counts(name, options, white, black, to_move, counts) -> None:
    board = ref.ReferenceBoard(ref.RefRules.from_options(options))
    balls = case_balls(options["size"], white, black)
    if balls or to_move:
        board.setup(balls, to_move)
    assert [ref.perft(board, depth) for depth in (1, 2, 3)] == counts
