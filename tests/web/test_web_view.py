"""The page's words for an illegal point: the rules core's "suicide or repetition" told apart."""

from __future__ import annotations

import pytest

from web_helpers import need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp.engine import Board, Move, Rules  # noqa: E402
from margo_gtp.web.view import frame, which_illegal  # noqa: E402

SUICIDE = (["A3:1", "B3:1", "A1:1", "A2:1"], "A3:1")
REPETITION = (["A3:1", "B3:1", "A1:1", "A2:1", "C3:1", "C2:1", "C1:1", "A3:1", "B2:1", "A2:2", "C3:1", "B3:1",
               "A2:1", "C2:1"], "C3:1")


def board_after(words: list[str], **rules: str) -> Board:
    board = Board(Rules(size=3, **rules))
    for word in words:
        board.push(Move.from_gtp(word, 3))
    return board


@pytest.mark.parametrize("case, why", [(SUICIDE, "suicide"), (REPETITION, "repetition (ko_rule situational)")])
def test_targets_say_which_of_suicide_or_repetition(case, why: str) -> None:  # noqa: ANN001
    words, point = case
    board = board_after(words)
    target = next(t for t in frame(board)["targets"] if t["v"] == point)
    assert (target["legal"], target["why"]) == (False, why)
    assert which_illegal(board, Move.from_gtp(point, 3), board.to_move) == why
    # Without a ko rule the repetition is a legal move, and the suicide still is not.
    free = board_after(words, ko_rule="none")
    assert free.is_legal(Move.from_gtp(point, 3)) == (why != "suicide")


def test_a_refused_click_names_the_cause(registry, games_dir) -> None:  # noqa: ANN001
    from margo_gtp.web.app import create_app
    from margo_gtp.web.store import GameStore

    words, point = REPETITION
    with TestClient(create_app(registry, GameStore(games_dir))) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 3, "white": "human", "black": "human"})
        ws.receive_json()
        for word in words:
            ws.send_json({"type": "play", "move": word})
            assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "play", "move": point})
        assert ws.receive_json() == {"type": "error",
                                     "message": "illegal move: C3:1 for WHITE: repetition (ko_rule situational)"}
