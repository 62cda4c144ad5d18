"""Hostile input to margo-web (issue 36): a bad file in the games folder, a JSON bomb on the
socket, idle and half-open connections, and a hundred engines asked for at once."""

from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path

import pytest

from web_helpers import LiveServer, need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402

FINISHED = "(;FF[4]GM[77]SZ[2]PW[alice]PB[bob]RE[B+R];W[aa:1])"


def test_an_undecodable_sgf_in_the_games_folder_is_skipped_with_one_log_line(
        registry: EngineRegistry, games_dir: Path, caplog) -> None:
    games_dir.mkdir()
    (games_dir / "g1-1-aaa.sgf").write_text(FINISHED, encoding="utf-8")
    (games_dir / "g2-2-bbb.sgf").write_bytes(b"(;FF[4]GM[77]SZ[2]PW[\xff\xfe]RE[B+R])")
    os.utime(games_dir / "g1-1-aaa.sgf", (1_780_000_000, 1_780_000_000))
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime(1_780_000_000))
    with caplog.at_level(logging.WARNING, logger="margo_gtp.web.store"), \
            TestClient(create_app(registry, GameStore(games_dir))) as client:
        response = client.get("/api/saved")
        assert (response.status_code, response.json()) == (200, {"games": [
            {"id": "g1-1-aaa", "size": 2, "white": "alice", "black": "bob", "result": "B+R", "moves": 1, "date": date}]})
        assert client.get("/api/saved/g2-2-bbb").json() == {"error": "no such game: 'g2-2-bbb'"}
    assert caplog.messages == ["saved games: skipping g2-2-bbb.sgf: 'utf-8' codec can't decode byte 0xff "
                               "in position 21: invalid start byte"]


def test_deeply_nested_json_on_the_socket_is_one_error_and_the_socket_goes_on(
        registry: EngineRegistry, games_dir: Path, caplog) -> None:
    with TestClient(create_app(registry, GameStore(games_dir))) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        for bomb in ("[" * 100_000, '{"a":' * 100_000):
            ws.send_text(bomb)
            assert ws.receive_json() == {"type": "error", "message": "bad message: JSON nested too deeply"}
        ws.send_json({"type": "undo"})
        assert ws.receive_json() == {"type": "error", "message": "no game: start one first"}
    assert [record for record in caplog.records if record.levelno >= logging.WARNING] == []


def closed_within(connection: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closes ``connection`` (None: still open after ``seconds``)."""
    connection.settimeout(seconds)
    started = time.monotonic()
    try:
        while connection.recv(65536):
            pass
    except TimeoutError:
        return None
    return time.monotonic() - started


@pytest.mark.parametrize("sent", [b"", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a",
                                  b"GET /api/saved HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"],
                         ids=["silent", "half-headers", "keep-alive"])
def test_an_idle_connection_is_closed(registry: EngineRegistry, games_dir: Path, sent: bytes) -> None:
    """200 idle connections were kept forever: no header timeout. Now each one is closed
    after the idle time (0.5 s here, margo_gtp.web.serving.IDLE_SECONDS by default)."""
    with LiveServer(create_app(registry, GameStore(games_dir)), idle_seconds=0.5) as server:
        port = int(server.url.rsplit(":", 1)[1])
        connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        for connection in connections:
            connection.sendall(sent)
        waits = [closed_within(connection, 5.0) for connection in connections]
        for connection in connections:
            connection.close()
    assert all(wait is not None and wait < 2.0 for wait in waits), waits


SLOW_STARTING_ENGINE = """#!/bin/sh
# A GTP engine that takes 50 ms to start and says when it starts and when it is ready.
echo "start $$" >> "$MARGO_START_LOG"
sleep 0.05
echo "ready $$" >> "$MARGO_START_LOG"
while read -r line; do
  printf '= \\n\\n'
  case "$line" in quit*) exit 0;; esac
done
"""


def test_a_hundred_engines_asked_for_at_once_all_start_a_few_at_a_time(tmp_path: Path, monkeypatch) -> None:
    """100 games started at once: 60 of them failed, every engine starting at once. Now
    at most MAX_STARTING_ENGINES start together, the others wait their turn, and the
    start timeout counts from an engine's own turn."""
    from concurrent.futures import ThreadPoolExecutor

    from margo_gtp.web import game as web_game

    script = tmp_path / "slow-engine"
    script.write_text(SLOW_STARTING_ENGINE)
    script.chmod(0o755)
    log = tmp_path / "starts.log"
    monkeypatch.setenv("MARGO_START_LOG", str(log))
    monkeypatch.setattr(web_game, "ENGINE_START_TIMEOUT", 2.0)  # 100 starts take 100 x 50 ms / the cap
    registry = EngineRegistry({"slow": [str(script)]})
    with ThreadPoolExecutor(max_workers=100) as pool:
        engines = list(pool.map(lambda _: registry.open("slow"), range(100)))
    try:
        assert all(engine.is_usable for engine in engines)
    finally:
        for engine in engines:
            engine.kill()
    starting, most = set(), 0
    for kind, pid in (line.split() for line in log.read_text().splitlines()):
        (starting.add if kind == "start" else starting.discard)(pid)
        most = max(most, len(starting))
    assert len(log.read_text().splitlines()) == 200
    assert most <= web_game.MAX_STARTING_ENGINES
