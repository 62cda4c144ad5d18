"""No game is lost: an unfinished game survives a server stop (Ctrl-C or kill -9) with every
acknowledged move, is listed after the restart, and goes on where it was (issue #26)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from web_helpers import need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402
from margo_gtp.web.journal import JournalError, read  # noqa: E402

MARGO_WEB = [sys.executable, "-c", "from margo_gtp.commands.web import main; main()"]


def play(ws, move: str) -> dict:  # noqa: ANN001
    ws.send_json({"type": "play", "move": move})
    return ws.receive_json()


def test_an_unfinished_game_is_listed_and_resumed_after_a_restart(registry: EngineRegistry, games_dir: Path) -> None:
    with TestClient(create_app(registry, GameStore(games_dir))) as first, first.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 3, "white": "human", "black": "human", "rules": {"swap": "on"}})
        game = ws.receive_json()["game"]
        for move in ("B2:1", "swap", "A1:1", "C3:1"):
            state = play(ws, move)
        ws.send_json({"type": "undo"})
        state = ws.receive_json()
        moves, seats = state["moves"], state["seats"]
        assert [m["move"] for m in moves] == ["B2:1", "swap", "A1:1"]
        ws.send_json({"type": "new", "size": 3, "white": "human", "black": "human"})
        empty = ws.receive_json()["game"]   # left before its first move: not listed, still resumable
    with TestClient(create_app(registry, GameStore(games_dir))) as second:
        date = time.strftime("%Y-%m-%d %H:%M", time.localtime((games_dir / "unfinished" / f"{game}.jsonl").stat().st_mtime))
        assert second.get("/api/saved").json()["games"] == [
            {"id": game, "size": 3, "white": "human", "black": "human", "result": None, "moves": 3, "unfinished": True,
             "date": date}]
        assert second.get(f"/api/games/{game}.sgf").status_code == 200
        with second.websocket_connect("/ws") as ws:
            ws.receive_json()
            ws.send_json({"type": "attach", "game": game})
            state = ws.receive_json()
            assert (state["moves"], state["seats"], state["over"]) == (moves, seats, False)
            ws.send_json({"type": "attach", "game": empty})
            assert ws.receive_json()["moves"] == []
            ws.send_json({"type": "attach", "game": game})
            ws.receive_json()
            state = play(ws, "resign")
            assert state["over"] is True
    # Finished: the SGF is the record and the journal is gone.
    assert not (games_dir / "unfinished" / f"{game}.jsonl").exists()
    with TestClient(create_app(registry, GameStore(games_dir))) as third:
        assert [(g["id"], g.get("unfinished")) for g in third.get("/api/saved").json()["games"]] == [(game, None)]


def test_a_broken_journal_is_refused_in_one_line(registry: EngineRegistry, games_dir: Path) -> None:
    (games_dir / "unfinished").mkdir(parents=True)
    path = games_dir / "unfinished" / "g1-1-abc.jsonl"
    path.write_text('{"type": "start", "game": "g1-1-abc", "rules": {"size": 3}, "seats": {"W": "human", "B": "human"},'
                    ' "seconds": 1}\n{"type": "move", "colour": "W", "move": "Z9:1", "seconds": null}\n')
    with TestClient(create_app(registry, GameStore(games_dir))) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "attach", "game": "g1-1-abc"})
        assert ws.receive_json() == {"type": "error", "message": "cannot resume game g1-1-abc: vertex is off board: 'Z9:1' (board size 3)"}
    # A last line cut short (the process died while writing it) was never acknowledged: it is ignored.
    path.write_text('{"type": "start", "game": "g1-1-abc", "rules": {"size": 3}, "seats": {"W": "human", "B": "human"},'
                    ' "seconds": 1}\n{"type": "move", "colour": "W", "mo')
    assert read(path)[1] == []
    path.write_text('{"type": "move"}\n')
    with pytest.raises(JournalError, match="g1-1-abc.jsonl: no start line"):
        read(path)


def serve(games_dir: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([*MARGO_WEB, "--port", "0", "--no-open", "--games-dir", str(games_dir)],
                               stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline()
    assert " serving on " in line, line
    return process, line.split(" on ")[1].split()[0].rstrip("/")


@pytest.mark.process
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL])
def test_a_game_survives_the_server_stopped_by(stop: signal.Signals, games_dir: Path) -> None:
    from websockets.sync.client import connect

    process, url = serve(games_dir)
    try:
        with connect(url.replace("http", "ws") + "/ws") as ws:
            json.loads(ws.recv())
            ws.send(json.dumps({"type": "new", "size": 4, "white": "human", "black": "random", "seconds": 0.05}))
            acknowledged = None
            for move in ("A1:1", "D4:1", "B1:1", "A4:1", "D1:1"):
                ws.send(json.dumps({"type": "play", "move": move}))
                while True:   # our move, the engine thinking, the engine's move (or an error)
                    message = json.loads(ws.recv())
                    if message["type"] == "state":
                        acknowledged = message
                    if message["type"] == "error" or message["human_to_move"] or message["over"]:
                        break
            game = acknowledged["game"]
        process.send_signal(stop)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    process, url = serve(games_dir)
    try:
        with urllib.request.urlopen(url + "/api/saved", timeout=30) as response:
            listed = json.load(response)["games"]
        assert [(g["id"], g["moves"], g.get("unfinished")) for g in listed] == [
            (game, len(acknowledged["moves"]), True)]
        with connect(url.replace("http", "ws") + "/ws") as ws:
            json.loads(ws.recv())
            ws.send(json.dumps({"type": "attach", "game": game}))
            state = json.loads(ws.recv())
            assert state["moves"] == acknowledged["moves"] and state["frame"] == acknowledged["frame"]
        with urllib.request.urlopen(f"{url}/api/games/{game}.sgf", timeout=30) as response:
            assert response.status == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
