"""Review and analysis replay a record once, whatever they analyse (issue 36, bug 6): every
turn replayed from the start (``sgf.replay(record, turn)``) made them quadratic in the
game's length (4,000 moves took a minute at one visit a turn)."""

from __future__ import annotations

import json
import random

import pytest

from margo_gtp import sgf
from margo_gtp.analysis import analysis_json, game_analysis
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.sgf import SgfRecord, SgfError, positions, replay


def random_record(size: int, plies: int, seed: int = 7) -> SgfRecord:
    board, rng = Board(Rules(size=size)), random.Random(seed)
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return SgfRecord(rules=board.rules, moves=list(board.history))


@pytest.fixture
def boards_built(monkeypatch) -> list[int]:
    """How many boards the record readers build (a replay from the start builds one)."""
    built: list[int] = []

    class CountingBoard(Board):
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sgf, "Board", CountingBoard)
    return built


def test_positions_are_the_replays_of_their_turns_in_the_order_asked() -> None:
    record = random_record(5, 40)
    assert len(record.moves) == 40
    turns = [0, 5, 3, 5, len(record.moves)]
    got = list(positions(record, turns))
    assert [turn for turn, _ in got] == turns
    assert all(board == replay(record, turn) for turn, board in got)
    assert got[1][1] is not got[3][1]   # a turn asked twice: two boards of their own
    with pytest.raises(SgfError, match=r"^cannot replay 41 moves: the record has 40$"):
        list(positions(record, [41]))


def test_analysing_every_turn_of_a_game_builds_two_boards_not_one_per_turn(boards_built) -> None:
    record = random_record(5, 120)
    answers = list(game_analysis.analyse_game(record.rules, record.moves, 1, seed=1))
    assert [answer["turnNumber"] for answer in answers] == list(range(len(record.moves) + 1))
    assert len(boards_built) == 2   # one pass checks the moves, one gives the positions


def test_margo_analysis_replays_a_query_once(boards_built) -> None:
    record = random_record(5, 120)
    query = {"id": "q", "boardSize": 5, "maxVisits": 1,
             "moves": [[colour.letter, move.gtp()] for colour, move in record.moves]}
    out: list[str] = []
    analysis_json.serve([json.dumps(query)], out.append)
    assert len(out) == 1 and json.loads(out[0])["turnNumber"] == len(record.moves)
    query["analyzeTurns"] = list(range(len(record.moves) + 1))
    boards_built.clear()
    analysis_json.serve([json.dumps(query)], out.append)
    assert len(out) == 2 + len(record.moves) and len(boards_built) == 2

