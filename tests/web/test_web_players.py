"""margo-web for players, round 2 (issue #37), the server's side: Resign while a slow engine
thinks, the state saying who thinks, and saved games with their date that a player may delete."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from web_helpers import need_the_web_extra, receive_until

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402



def test_the_human_resigns_while_a_slow_engine_thinks(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 7, "white": "mcts", "black": "human", "seconds": 60})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["thinking"] == "W")
        assert (state["status"], state["can"]["resign"], state["human_to_move"]) == ("White (mcts) is thinking", True, False)
        started = time.monotonic()
        ws.send_json({"type": "play", "move": "resign"})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["over"])
        assert time.monotonic() - started < 10      # not the engine's 60 s
        assert (state["result"], state["status"], state["thinking"], state["moves"]) == (
            "W+R", "White wins W+R (resignation)", None, [])
        ws.send_json({"type": "play", "move": "resign"})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: the game is over"}


def test_two_engines_leave_no_resign_to_the_page(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 7, "white": "mcts", "black": "mcts", "seconds": 60})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["thinking"] == "W")
        assert state["can"]["resign"] is False
        ws.send_json({"type": "play", "move": "resign"})
        assert receive_until(ws, lambda m: m["type"] == "error") == {
            "type": "error", "message": "illegal move: it is not your turn"}


def finished_game(ws) -> str:  # noqa: ANN001
    ws.send_json({"type": "new", "size": 3, "white": "human", "black": "human"})
    game = ws.receive_json()["game"]
    ws.send_json({"type": "play", "move": "resign"})
    assert ws.receive_json()["over"] is True
    return game


def test_a_saved_game_shows_its_date_and_can_be_deleted(client: TestClient, games_dir: Path) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        finished = finished_game(ws)
        ws.send_json({"type": "new", "size": 3, "white": "human", "black": "human"})
        abandoned = ws.receive_json()["game"]
        ws.send_json({"type": "play", "move": "B2:1"})
        ws.receive_json()
        # Still open in this page: not deleted under it.
        refused = client.delete(f"/api/saved/{abandoned}")
        assert (refused.status_code, refused.json()) == (409, {"error": f"cannot delete game {abandoned}: it is open in a page"})
    journal = games_dir / "unfinished" / f"{abandoned}.jsonl"
    sgf = games_dir / f"{finished}.sgf"
    os.utime(journal, (1_790_000_000, 1_790_000_000))
    os.utime(sgf, (1_780_000_000, 1_780_000_000))
    listed = client.get("/api/saved").json()["games"]
    assert [(g["id"], g.get("unfinished"), g["date"]) for g in listed] == [
        (abandoned, True, time.strftime("%Y-%m-%d %H:%M", time.localtime(1_790_000_000))),
        (finished, None, time.strftime("%Y-%m-%d %H:%M", time.localtime(1_780_000_000)))]
    # A page of another site is refused, as on every route, and nothing changes.
    cross = client.delete(f"/api/saved/{abandoned}", headers={"origin": "http://evil.example"})
    assert (cross.status_code, cross.json()) == (403, {"error": "refused: a page of http://evil.example may not use this server"})
    assert journal.exists()
    for game, path in ((abandoned, journal), (finished, sgf)):
        answer = client.delete(f"/api/saved/{game}", headers={"origin": "http://testserver"})
        assert (answer.status_code, answer.json()) == (200, {"deleted": game})
        assert not path.exists()
    assert client.get("/api/saved").json()["games"] == []
    again = client.delete(f"/api/saved/{finished}")
    assert (again.status_code, again.json()) == (404, {"error": f"no such game: {finished!r}"})
    bad = client.delete("/api/saved/..secret")   # not a server-made id: no file is even looked for
    assert (bad.status_code, bad.json()) == (404, {"error": "no such game: '..secret'"})
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "attach", "game": abandoned})
        assert ws.receive_json() == {"type": "error", "message": f"no such game: {abandoned!r}"}
