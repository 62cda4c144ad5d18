"""The margo-web websocket protocol and HTTP API, through Starlette's TestClient."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web_helpers import need_the_web_extra, receive_until

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp import __version__, sgf  # noqa: E402
from margo_gtp.engine import Board, Move, Rules  # noqa: E402
from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.presets import presets_view  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402
from margo_gtp.web.watch import WatchFolder  # noqa: E402


@pytest.fixture
def client(registry: EngineRegistry, games_dir: Path, watch_dir: Path):
    with TestClient(create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))) as test_client:
        yield test_client


def new_game(ws, **fields):  # noqa: ANN001, ANN201
    ws.send_json({"type": "new", **fields})
    return ws.receive_json()


def test_hello_lists_the_engine_names_only(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json() == {"type": "hello", "engines": ["random", "heuristic", "mcts", "crasher"],
                                     "labels": {}, "presets": presets_view(), "version": __version__, "watch": True}


@pytest.mark.parametrize("fields, message", [
    ({"size": 25}, "invalid value for size: '25' (allowed 2..19)"),
    ({"size": 3, "white": "rm -rf /"}, "unknown engine: 'rm -rf /'"),
    ({"size": 3, "black": "/bin/sh"}, "unknown engine: '/bin/sh'"),
    ({"size": 3, "black": ["python"]}, "invalid player for black: ['python']"),
    ({"size": 3, "rules": {"ko_rule": "sometimes"}},
     "invalid value for ko_rule: 'sometimes' (allowed situational, positional, simple, none)"),
    ({"size": 3, "seconds": 0}, "invalid seconds per move: 0 (allowed 0.05..60)"),
])
def test_a_bad_new_game_is_refused_with_one_error(client: TestClient, fields, message) -> None:  # noqa: ANN001
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        assert new_game(ws, **fields) == {"type": "error", "message": message}
        ws.send_json({"type": "play", "move": "A1:1"})
        assert ws.receive_json() == {"type": "error", "message": "no game: start one first"}


def test_bad_messages_get_errors_and_the_socket_goes_on(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_text("not json")
        assert ws.receive_json()["message"].startswith("bad message: ")
        ws.send_json(["new"])
        assert ws.receive_json() == {"type": "error", "message": "bad message: expected a JSON object"}
        ws.send_json({"type": "explode"})
        assert ws.receive_json() == {"type": "error", "message": "no game: start one first"}
        ws.send_json({"type": "attach", "game": "../../etc/passwd"})
        assert ws.receive_json() == {"type": "error", "message": "no such game: '../../etc/passwd'"}
        state = new_game(ws, size=2)
        assert state["type"] == "state"
        ws.send_json({"type": "explode"})
        assert ws.receive_json() == {"type": "error", "message": "unknown message type: 'explode'"}


def test_human_vs_human_play_illegal_undo_and_resign(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        state = new_game(ws, size=3, white="human", black="human")
        assert state["status"] == "White to move"
        assert state["frame"]["balls"] == []
        assert [t["v"] for t in state["frame"]["targets"]] == [
            "A1:1", "B1:1", "C1:1", "A2:1", "B2:1", "C2:1", "A3:1", "B3:1", "C3:1"]
        assert all(t["legal"] for t in state["frame"]["targets"])
        ws.send_json({"type": "play", "move": "b2"})
        state = ws.receive_json()
        assert state["status"] == "Black to move"
        assert state["moves"] == [{"colour": "W", "move": "B2:1"}]
        assert state["frame"]["balls"] == [
            {"v": "B2:1", "c": "W", "x": 1, "y": 1, "l": 0, "zombie": False, "buried": False}]
        assert state["frame"]["last"] == "B2:1"
        # An illegal click: one error, nothing changed.
        ws.send_json({"type": "play", "move": "B2:1"})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: B2:1 for BLACK: point is occupied"}
        ws.send_json({"type": "play", "move": "A1:2"})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: A1:2 for BLACK: point is not supported"}
        ws.send_json({"type": "play", "move": "Z9:1"})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: 'Z9:1' is not a vertex"}
        ws.send_json({"type": "play", "move": ["A1"]})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: ['A1'] is not a vertex"}
        ws.send_json({"type": "play"})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: None is not a vertex"}
        ws.send_json({"type": "play", "move": "pass"})
        assert ws.receive_json() == {
            "type": "error", "message": "illegal move: pass: passing is not allowed (allow_pass is off)"}
        ws.send_json({"type": "attach", "game": state["game"]})
        assert ws.receive_json()["moves"] == [{"colour": "W", "move": "B2:1"}]
        ws.send_json({"type": "undo"})
        state = ws.receive_json()
        assert (state["moves"], state["status"], state["can"]["undo"]) == ([], "White to move", False)
        ws.send_json({"type": "undo"})
        assert ws.receive_json() == {"type": "error", "message": "cannot undo"}
        ws.send_json({"type": "play", "move": "resign"})
        state = ws.receive_json()
        assert (state["over"], state["result"], state["status"]) == (True, "B+R", "Black wins B+R (resignation)")
        ws.send_json({"type": "play", "move": "A1:1"})
        assert ws.receive_json() == {"type": "error", "message": "illegal move: the game is over"}
        # Finished games go to disk and can be downloaded and replayed.
        text = client.get(f"/api/games/{state['game']}.sgf").text
        assert "RE[B+R]" in text and "PW[human]" in text
        saved = client.get("/api/saved").json()["games"]
        date = time.strftime("%Y-%m-%d %H:%M", time.localtime(
            (client.app.state.server.store.folder / f"{state['game']}.sgf").stat().st_mtime))
        assert saved == [{"id": state["game"], "size": 3, "white": "human", "black": "human", "result": "B+R", "moves": 0,
                          "date": date}]


def test_a_whole_game_against_random_ends_with_the_boards_result(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        state = new_game(ws, size=3, white="human", black="random", seconds=0.1)
        board = Board(Rules(size=3))
        while not state["over"]:
            if state["human_to_move"]:
                move = next(t["v"] for t in state["frame"]["targets"] if t["legal"])
                ws.send_json({"type": "play", "move": move})
            state = receive_until(ws, lambda m: m["type"] == "state" and (m["human_to_move"] or m["over"]))
        for item in state["moves"]:
            board.push(Move.from_gtp(item["move"], 3))
        outcome = board.outcome()
        assert outcome is not None and state["result"] == outcome.result()
        assert state["frame"]["score"] == {"W": board.ball_counts()[board.to_move.WHITE],
                                           "B": board.ball_counts()[board.to_move.BLACK]}


def children() -> set[int]:
    """Live (not zombie) child processes of this test process."""
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            out.add(int(entry))
    return out


@pytest.mark.process
def test_twenty_closed_games_leave_no_engine_process(client: TestClient) -> None:
    baseline = children()
    for _ in range(20):
        with client.websocket_connect("/ws") as ws:
            ws.receive_json()
            new_game(ws, size=5, white="random", black="human", seconds=0.1)
            receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"])  # the engine has moved
    deadline = time.monotonic() + 30
    while children() - baseline and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children() - baseline == set()


@pytest.mark.process
def test_pages_that_go_while_the_analysis_streams_leave_no_engine_process(client: TestClient) -> None:
    """The analysis engine is streaming (margo-analyze) when the page goes, or the game
    ends by resignation, or analysis is switched off: no process is left over."""
    baseline = children()
    for ending in ("close", "resign", "off"):
        with client.websocket_connect("/ws") as ws:
            ws.receive_json()
            new_game(ws, size=4, white="human", black="random", seconds=0.05)
            ws.send_json({"type": "analysis", "on": True})
            receive_until(ws, lambda m: m["type"] == "state" and m["analysis"] and m["analysis"].get("visits"))
            if ending == "resign":
                ws.send_json({"type": "play", "move": "resign"})
                receive_until(ws, lambda m: m["type"] == "state" and m["over"])
            elif ending == "off":
                ws.send_json({"type": "analysis", "on": False})
                receive_until(ws, lambda m: m["type"] == "state" and not m["analysis_on"])
    deadline = time.monotonic() + 30
    while children() - baseline and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children() - baseline == set()


def test_a_crashed_engine_is_reported_and_replaced(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new_game(ws, size=3, white="human", black="crasher", seconds=0.1)
        ws.send_json({"type": "play", "move": "A1:1"})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["crashed"])
        assert state["status"].startswith("engine crasher failed: ")
        assert "boom: engine fell over" in state["status"]  # the engine's stderr tail
        assert state["moves"] == [{"colour": "W", "move": "A1:1"}] and not state["over"]
        ws.send_json({"type": "seat", "colour": "B", "player": "crasher; rm -rf /"})
        assert ws.receive_json() == {"type": "error", "message": "unknown engine: 'crasher; rm -rf /'"}
        ws.send_json({"type": "seat", "colour": "B", "player": "random"})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"])
        assert state["seats"] == {"W": "human", "B": "random"}
        assert len(state["moves"]) == 2 and state["crashed"] == {}


def test_replay_upload_gives_a_frame_per_ply(client: TestClient) -> None:
    board = Board(Rules(size=3))
    for word in ("A1", "B1", "A2", "B2"):
        board.push(Move.from_gtp(word, 3))
    board.push(Move.from_gtp("A1:2", 3))
    text = sgf.dumps(sgf.record_from_board(board, white_name="w", black_name="b"))
    data = client.post("/api/replay", content=text).json()
    assert [frame["ply"] for frame in data["frames"]] == [0, 1, 2, 3, 4, 5]
    assert [ball["v"] for ball in data["frames"][5]["balls"]] == ["A1:1", "B1:1", "A2:1", "B2:1", "A1:2"]
    assert data["frames"][5]["targets"] == []
    assert (data["white"], data["black"]) == ("w", "b")
    response = client.post("/api/replay", content="(;GM[1]SZ[30])")
    assert response.status_code == 400 and response.json()["error"].startswith("cannot load SGF: ")


def test_no_request_reads_a_path(client: TestClient) -> None:
    assert client.get("/api/saved/..%2F..%2Fetc%2Fpasswd").status_code == 404
    assert client.get("/api/games/nope.sgf").json() == {"error": "no such game: 'nope'"}
    assert client.get("/api/watch/..%2Fx").status_code == 404
    assert client.get("/static/../pyproject.toml").status_code == 404


def test_engine_vs_engine_plays_to_the_end(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new_game(ws, size=3, white="random", black="heuristic", seconds=0.05)
        state = receive_until(ws, lambda m: m["type"] == "state" and m["over"], limit=200)
        board = Board(Rules(size=3))
        for item in state["moves"]:
            board.push(Move.from_gtp(item["move"], 3))
        assert state["result"] == board.outcome().result()
        assert state["can"] == {"pass": False, "swap": False, "resign": False, "undo": False}


def test_a_swap_exchanges_the_seats(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new_game(ws, size=3, white="random", black="human", seconds=0.05, rules={"swap": "on"})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"])
        assert state["can"]["swap"] is True and state["status"] == "Black to move (you)"
        ws.send_json({"type": "play", "move": "swap"})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"])
        # The engine now holds Black, still to move after the swap, and has moved; we are White.
        assert state["seats"] == {"W": "human", "B": "random"}
        assert [m["colour"] for m in state["moves"]] == ["W", "B", "B"] and state["moves"][1]["move"] == "swap"
        assert state["status"] == "White to move (you)"


def test_finished_games_survive_a_server_restart(registry: EngineRegistry, games_dir: Path) -> None:
    with TestClient(create_app(registry, GameStore(games_dir))) as first:
        with first.websocket_connect("/ws") as ws:
            ws.receive_json()
            game = new_game(ws, size=2, white="human", black="human")["game"]
            for move in ("A1", "B1", "resign"):
                ws.send_json({"type": "play", "move": move})
                state = ws.receive_json()
            assert state["result"] == "B+R"
    with TestClient(create_app(registry, GameStore(games_dir))) as second:
        assert [g["id"] for g in second.get("/api/saved").json()["games"]] == [game]
        replay = second.get(f"/api/saved/{game}").json()
        assert replay["moves"] == [{"colour": "W", "move": "A1:1"}, {"colour": "B", "move": "B1:1"}]
        assert replay["result"] == "B+R"
        assert "RE[B+R]" in second.get(f"/api/games/{game}.sgf").text


@pytest.mark.process
def test_watch_reads_a_real_margo_match_folder(registry: EngineRegistry, games_dir: Path, watch_dir: Path) -> None:
    import subprocess
    import sys

    engine = "{} -c 'from margo_gtp.commands.gtp import main; main()' --player {}"
    subprocess.run([sys.executable, "-c", "from margo_gtp.commands.match import main; main()",
                    engine.format(sys.executable, "random --seed 1"), engine.format(sys.executable, "heuristic"),
                    "--games", "2", "--size", "3", "--out", str(watch_dir)],
                   check=True, capture_output=True, timeout=120)
    with TestClient(create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))) as client:
        summary = client.get("/api/watch").json()
        assert [(g["key"], g["live"]) for g in summary["games"]] == [("0-1", False), ("0-2", False)]
        records = [json.loads(line) for line in (watch_dir / "results.jsonl").read_text().splitlines()]
        assert [g["result"] for g in summary["games"]] == [r["result"] for r in records]
        assert sum(cell["games"] for row in summary["crosstable"].values() for cell in row.values()) == 4
        for record in records:
            view = client.get(f"/api/watch/0-{record['game']}").json()
            assert view["result"] == record["result"]
            assert [m["move"] for m in view["moves"]] == [m["move"] for m in record["moves"]]
            assert len(view["frames"]) == len(record["moves"]) + 1


def test_watch_a_tournament_folder_with_pairings_and_ratings(registry: EngineRegistry, games_dir: Path,
                                                             tmp_path: Path) -> None:
    root = tmp_path / "tournament"
    board = Board(Rules(size=2))
    board.push(Move.from_gtp("A1", 2))
    for number, (white, black) in enumerate((("a", "b"), ("a", "c")), 1):
        folder = root / f"0{number}-{white}-vs-{black}"
        folder.mkdir(parents=True)
        (folder / "game-0001.sgf").write_text(sgf.dumps(sgf.record_from_board(board, result="W+R")))
        (folder / "results.jsonl").write_text(json.dumps(
            {"game": 1, "white": white, "black": black, "winner_colour": "W", "result": "W+R", "reason": "resignation",
             "move_count": 1, "sgf": "game-0001.sgf"}) + "\n" + '{"game": 2, "whi')  # a torn last line is skipped
    ratings = [{"name": "a", "elo": 120.0, "low": None, "high": None, "games": 2, "score": 2.0}]
    (root / "summary.json").write_text(json.dumps({"games": 2, "ratings": ratings, "crosstable": {}}))
    (root / "01-a-vs-b" / "live").mkdir()
    (root / "01-a-vs-b" / "live" / "game-0001.jsonl").write_text('{"type": "start"}\n')  # finished: ignored
    with TestClient(create_app(registry, GameStore(games_dir), WatchFolder(root))) as client:
        summary = client.get("/api/watch").json()
        assert [(g["key"], g["folder"], g["white"], g["black"], g["result"], g["live"]) for g in summary["games"]] == [
            ("0-1", "01-a-vs-b", "a", "b", "W+R", False), ("1-1", "02-a-vs-c", "a", "c", "W+R", False)]
        assert summary["crosstable"] == {"a": {"b": {"score": 1.0, "games": 1}, "c": {"score": 1.0, "games": 1}},
                                         "b": {"a": {"score": 0.0, "games": 1}}, "c": {"a": {"score": 0.0, "games": 1}}}
        assert summary["ratings"] == ratings
        assert client.get("/api/watch/1-1").json()["moves"] == [{"colour": "W", "move": "A1:1"}]
        assert client.get("/api/watch/2-1").json() == {"error": "no such game: '2-1'"}
        assert client.get("/api/watch/0-9").json() == {"error": "no such game: '0-9'"}


def test_undo_takes_back_a_swap_and_a_resignation(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new_game(ws, size=3, white="human", black="human", rules={"swap": "on"})
        for move in ("B2", "swap"):
            ws.send_json({"type": "play", "move": move})
            state = ws.receive_json()
        assert (state["status"], state["can"]["swap"]) == ("Black to move", False)
        ws.send_json({"type": "play", "move": "resign"})
        assert ws.receive_json()["result"] == "W+R"
        ws.send_json({"type": "undo"})
        state = ws.receive_json()
        assert (state["over"], state["result"], len(state["moves"])) == (False, None, 2)
        ws.send_json({"type": "undo"})
        state = ws.receive_json()
        assert [m["move"] for m in state["moves"]] == ["B2:1"] and state["can"]["swap"] is True


def test_undo_against_an_engine_returns_to_the_humans_turn(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        state = new_game(ws, size=3, white="human", black="random", seconds=0.05)
        ws.send_json({"type": "play", "move": "A1"})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"])
        assert len(state["moves"]) == 2
        ws.send_json({"type": "undo"})
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert (state["moves"], state["status"]) == ([], "White to move (you)")


def test_two_pages_on_one_game_see_each_others_moves(client: TestClient) -> None:
    with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
        first.receive_json()
        second.receive_json()
        game = new_game(first, size=3, white="human", black="human")["game"]
        second.send_json({"type": "attach", "game": game})
        assert second.receive_json()["game"] == game
        second.send_json({"type": "play", "move": "C3"})
        assert second.receive_json()["moves"] == [{"colour": "W", "move": "C3:1"}]
        assert first.receive_json()["moves"] == [{"colour": "W", "move": "C3:1"}]


GATED = Path(__file__).resolve().parent.parent / "fake_engines" / "gated.py"


def _wait_for(condition, what: str, timeout: float = 60.0) -> None:  # noqa: ANN001
    """Until ``condition()`` holds: a short poll of a file the other process writes, with a
    deadline (a failure, not a skip, if it never comes)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:.0f} s")
        time.sleep(0.05)


@pytest.mark.process
def test_watch_follows_a_running_margo_match(registry: EngineRegistry, games_dir: Path, watch_dir: Path,
                                             tmp_path: Path) -> None:
    """A real referee run: its live feed is listed and replayed while the game runs, and the
    finished record replaces it. Black plays behind tests/fake_engines/gated.py with the
    gate closed, so the game stops at Black's first move, after White's: the feed must be
    live with that one move then (no luck in the timing), and the test fails if it is not."""
    import shlex
    import subprocess
    import sys

    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "closed").touch()
    engine = [sys.executable, "-c", "from margo_gtp.commands.gtp import main; main()", "--player"]
    white = shlex.join([*engine, "mcts:seconds=0.15", "--seed", "1"])
    black = shlex.join([sys.executable, str(GATED), str(gate), "0", "--", *engine, "heuristic"])
    referee = subprocess.Popen(
        [sys.executable, "-c", "from margo_gtp.commands.match import main; main()", white, black,
         "--games", "1", "--size", "4", "--out", str(watch_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with TestClient(create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))) as client:
            _wait_for(lambda: any(gate.glob("held-*")) or referee.poll() is not None, "Black's held first move")
            assert referee.poll() is None, referee.stderr.read()
            games = client.get("/api/watch").json()["games"]
            assert [(g["key"], g["live"]) for g in games] == [("0-1", True)]
            view = client.get("/api/watch/0-1").json()
            assert view["error"] is None
            assert len(view["moves"]) == 1 and len(view["frames"]) == 2  # White's first move, and the start
            (gate / "closed").unlink()  # let the game finish
            assert referee.wait(timeout=120) == 0, referee.stderr.read()
            record = json.loads((watch_dir / "results.jsonl").read_text().splitlines()[0])
            games = client.get("/api/watch").json()["games"]
            assert [(g["key"], g["live"], g["result"]) for g in games] == [("0-1", False, record["result"])]
            finished = client.get("/api/watch/0-1").json()
            assert [m["move"] for m in finished["moves"]] == [m["move"] for m in record["moves"]]
            first = ("W", record["moves"][0]["move"])
            assert [(m["colour"], m["move"]) for m in (view["moves"][0], finished["moves"][0])] == [first, first]
            assert not (watch_dir / "live" / "game-0001.jsonl").exists()
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()


def test_a_page_of_another_site_cannot_open_the_game_socket(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/ws", headers={"origin": "http://evil.example"}):
            pass
    assert refused.value.code == 1008
    with client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "hello"


def test_only_the_loopback_names_reach_a_localhost_server(registry: EngineRegistry, games_dir: Path) -> None:
    app = create_app(registry, GameStore(games_dir), allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/saved").status_code == 200
        assert client.get("/api/saved", headers={"host": "rebound.example"}).status_code == 400


def test_illegal_targets_carry_the_rules_cores_reason(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new_game(ws, size=3, white="human", black="human", rules={"max_level": "0"})
        for move in ("A2", "C3", "B1"):
            ws.send_json({"type": "play", "move": move})
            state = ws.receive_json()
        targets = {t["v"]: (t["legal"], t.get("why")) for t in state["frame"]["targets"]}
        assert targets["A1:1"] == (False, "suicide")   # the core says "suicide or repetition"; the page says which
        assert targets["B2:1"] == (True, None)
        for move in ("B2", "A1"):  # White may take A1: now A1:2 rests on four balls
            ws.send_json({"type": "play", "move": move})
            state = ws.receive_json()
        targets = {t["v"]: (t["legal"], t.get("why")) for t in state["frame"]["targets"]}
        assert targets.get("A1:2") == (False, "level is above max_level 1")


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-5, 30) | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=6)
MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from(["new", "play", "undo", "seat", "analysis", "attach", "bogus"])},
    optional={"move": st.sampled_from(["A1", "b2:1", "C3:2", "pass", "swap", "resign", "Z9"]) | JSON_VALUES,
              "size": st.integers(1, 4) | JSON_VALUES, "white": st.just("human") | JSON_VALUES,
              "black": st.just("human") | JSON_VALUES, "rules": JSON_VALUES, "seconds": JSON_VALUES,
              "colour": st.sampled_from(["W", "B"]) | JSON_VALUES, "player": st.just("human") | JSON_VALUES,
              "game": JSON_VALUES, "on": JSON_VALUES})


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_message_gets_one_answer_and_an_error_changes_nothing(client: TestClient, data) -> None:  # noqa: ANN001
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        state = new_game(ws, size=3, white="human", black="human")
        for _ in range(40):
            message = data.draw(MESSAGES)
            if message["type"] == "attach":
                message["game"] = state["game"]
            if message["type"] == "analysis":
                message["on"] = False  # analysis answers later, out of this one-answer rhythm
            if message["type"] == "seat" and message.get("player") != "human":
                message["player"] = "no such engine"  # an engine would answer later too
            ws.send_json(message)
            answer = ws.receive_json()
            assert answer["type"] in ("state", "error"), answer
            assert not answer.get("message", "").startswith("internal error"), (message, answer)
            if answer["type"] == "state":
                state = answer
            else:
                ws.send_json({"type": "attach", "game": state["game"]})
                again = ws.receive_json()
                assert (again["moves"], again["frame"]) == (state["moves"], state["frame"])


def test_analysis_falls_back_to_an_engine_that_can_analyse(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new_game(ws, size=3, white="human", black="random", seconds=0.05)
        ws.send_json({"type": "analysis", "on": True})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["analysis"] is not None)
        analysis = state["analysis"]
        assert analysis["to_move"] == "W" and analysis["moves"]   # mcts answered, random cannot
        legal = {t["v"] for t in state["frame"]["targets"] if t["legal"]}
        assert {item["move"] for item in analysis["moves"]} <= legal
        assert analysis["winrate"] == analysis["moves"][0]["winrate"] == analysis["white_winrate"]
        assert state["winrates"] == [analysis["white_winrate"]]


def test_a_live_feed_is_read_from_any_ply_on(client: TestClient, watch_dir: Path) -> None:
    live = watch_dir / "live"
    live.mkdir()
    lines = [{"type": "start", "game": 3, "black": "b", "white": "w", "size": 3, "rules": Rules(size=3).options(),
              "setup": [["B", "B2:1"]]},
             {"type": "move", "ply": 1, "colour": "W", "move": "A1:1", "seconds": 0.1},
             {"type": "move", "ply": 2, "colour": "B", "move": "C3:1", "seconds": 0.1}]
    (live / "game-0003.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"type": "mo')
    whole = client.get("/api/watch/0-3").json()
    assert [f["ply"] for f in whole["frames"]] == [0, 1, 2] and whole["since"] == 0
    assert [b["v"] for b in whole["frames"][0]["balls"]] == ["B2:1"]   # the setup ball
    assert whole["moves"] == [{"colour": "W", "move": "A1:1", "seconds": 0.1}, {"colour": "B", "move": "C3:1", "seconds": 0.1}]
    tail = client.get("/api/watch/0-3?since=2").json()
    assert (tail["since"], tail["frames"]) == (2, whole["frames"][2:])
    assert client.get("/api/watch/0-3?since=-1").json() == {"error": "invalid since: '-1' (a ply number)"}


def test_a_move_during_analysis_keeps_one_analysis_engine(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        game = new_game(ws, size=4, white="human", black="random", seconds=0.05)["game"]
        ws.send_json({"type": "analysis", "on": True})
        ws.send_json({"type": "play", "move": "A1"})   # while the first analysis runs
        for _ in range(2):  # after the engine's answer: analysis of the new position, then of the next
            state = receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"] and m["analysis"])
            assert state["analysis"]["to_move"] == "W" and len(state["moves"]) % 2 == 0
            ws.send_json({"type": "play", "move": next(t["v"] for t in state["frame"]["targets"] if t["legal"])})
        processes = client.app.state.server.games[game]._processes
        assert len(processes) == 2   # the random engine and one analysis engine, nothing left over


def test_a_watched_live_game_is_pushed_until_its_record_replaces_it(client: TestClient, watch_dir: Path) -> None:
    live = watch_dir / "live"
    live.mkdir()
    feed = live / "game-0001.jsonl"
    start = {"type": "start", "game": 1, "black": "b", "white": "w", "size": 2, "rules": Rules(size=2).options(),
             "setup": []}
    feed.write_text(json.dumps(start) + "\n" + json.dumps({"type": "move", "ply": 1, "colour": "W", "move": "A1:1"}) + "\n")
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "watch", "key": "0-1", "since": 0})
        first = ws.receive_json()
        assert (first["type"], first["live"], first["since"], len(first["frames"])) == ("watch", True, 0, 2)
        with feed.open("a") as out:
            out.write(json.dumps({"type": "move", "ply": 2, "colour": "B", "move": "B1:1"}) + "\n")
        second = ws.receive_json()
        assert (second["since"], [f["ply"] for f in second["frames"]]) == (2, [2])
        assert [m["move"] for m in second["moves"]] == ["A1:1", "B1:1"]
        board = Board(Rules(size=2))
        for word in ("A1", "B1"):
            board.push(Move.from_gtp(word, 2))
        (watch_dir / "game-0001.sgf").write_text(sgf.dumps(sgf.record_from_board(board, result="B+R")))
        (watch_dir / "results.jsonl").write_text(json.dumps(
            {"game": 1, "white": "w", "black": "b", "winner_colour": "B", "result": "B+R", "sgf": "game-0001.sgf"}) + "\n")
        feed.unlink()
        final = ws.receive_json()
        assert (final["type"], final["live"], final["result"], final["since"], final["frames"]) == (
            "watch", False, "B+R", 3, [])
        ws.send_json({"type": "watch", "key": "7-1"})
        assert ws.receive_json() == {"type": "error", "message": "no such game: '7-1'"}
        ws.send_json({"type": "watch", "key": "0-1", "since": "x"})
        assert ws.receive_json() == {"type": "error", "message": "invalid watch request: key '0-1', since 'x'"}


def test_the_analysis_is_streamed_and_a_move_stops_it(client: TestClient) -> None:
    """margo-analyze through the page's socket: two updates of one position whose visits
    grow, then a move; once the next position's analysis came, no update of an older
    position follows it, and one analysis engine serves both positions."""
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        game = new_game(ws, size=4, white="human", black="random", seconds=0.05)["game"]
        ws.send_json({"type": "analysis", "on": True})
        first = receive_until(ws, lambda m: m["type"] == "state" and m["analysis"] and m["analysis"].get("visits"))
        assert first["analysis"]["ply"] == 0
        grown = receive_until(ws, lambda m: m["type"] == "state" and m["analysis"]
                              and m["analysis"]["visits"] > first["analysis"]["visits"])
        assert grown["analysis"]["ply"] == 0 and grown["winrates"] == [grown["analysis"]["white_winrate"]]
        ws.send_json({"type": "play", "move": next(t["v"] for t in grown["frame"]["targets"] if t["legal"])})
        receive_until(ws, lambda m: m["type"] == "state" and m["analysis"] and m["analysis"].get("ply") == 2)
        for _ in range(3):  # the new position's updates, and nothing of the old one among them
            state = receive_until(ws, lambda m: m["type"] == "state" and m["analysis"])
            assert state["analysis"]["ply"] == 2 and len(state["moves"]) == 2
        ws.send_json({"type": "analysis", "on": False})
        receive_until(ws, lambda m: m["type"] == "state" and not m["analysis_on"])
        server_game = client.app.state.server.games[game]
        assert len(server_game._processes) == 2   # the random engine and one analysis engine


def test_an_engine_without_margo_analyze_gives_a_snapshot() -> None:
    from margo_gtp.web.game import STREAM_INTERVAL, _start_analysis

    class SnapshotOnly:
        def __init__(self) -> None:
            self.asked: list[tuple] = []

        def known_command(self, command: str) -> bool:
            return command == "margo-analyze_snapshot"

        def analyse(self, board, limit):  # noqa: ANN001, ANN201
            self.asked.append(("analyse", limit))
            return "snapshot"

        def analysis(self, board, interval):  # noqa: ANN001, ANN201
            self.asked.append(("analysis", interval))
            return "stream"

    engine = SnapshotOnly()
    assert _start_analysis(engine, Board(Rules(size=3)), "limit") == "snapshot"
    assert engine.asked == [("analyse", "limit")]
    engine.known_command = lambda command: True  # type: ignore[method-assign]
    assert _start_analysis(engine, Board(Rules(size=3)), "limit") == "stream"
    assert engine.asked[-1] == ("analysis", STREAM_INTERVAL)
