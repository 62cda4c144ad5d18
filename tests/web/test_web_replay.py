"""Replays served in bounded pieces, off the event loop, only to this server's own pages;
and what a record tells besides its positions (Go records, comments, variations)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from web_helpers import need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp import sgf  # noqa: E402
from margo_gtp.engine import Board, Move, Rules  # noqa: E402
from margo_gtp.web import replay as replay_module  # noqa: E402
from margo_gtp.web.replay import MAX_FRAMES_PER_REQUEST, MAX_REPLAY_MOVES  # noqa: E402
from margo_gtp.web.view import frame, replay_frames  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
LONG_GAME = (DATA / "random_19x19_3000_moves.sgf").read_text(encoding="utf-8")


def test_a_3000_move_record_opens_with_its_first_frames_only(client: TestClient) -> None:
    response = client.post("/api/replay", content=LONG_GAME)
    data = response.json()
    record, board = sgf.load_board(LONG_GAME)
    assert (response.status_code, data["plies"], len(data["moves"])) == (200, 3000, 3000)
    assert [f["ply"] for f in data["frames"]] == list(range(MAX_FRAMES_PER_REQUEST))
    assert len(response.content) < 500_000        # it was 150 MB with every frame in it
    # Any other piece on demand, equal to the frames of the whole replay.
    piece = client.get(f"/api/replay/{data['replay']}/frames?from=2990&count=100").json()
    assert piece["from"] == 2990 and [f["ply"] for f in piece["frames"]] == list(range(2990, 3001))
    assert piece["frames"][-1] == frame(board, with_targets=False)
    assert piece["frames"] == replay_frames(board, 2990)
    assert client.get(f"/api/replay/{data['replay']}/frames?from=40&count=999").json()["frames"] == (
        replay_frames(sgf.replay(record, 40 + MAX_FRAMES_PER_REQUEST - 1), 40))


def test_frame_requests_are_checked(client: TestClient) -> None:
    assert client.get("/api/replay/nope/frames?from=0&count=1").json() == {
        "error": "no such replay: 'nope' (load the record again)"}
    rid = client.post("/api/replay", content=LONG_GAME).json()["replay"]
    for query in ("from=-1&count=1", "from=x", "from=1&count=99999999"):
        response = client.get(f"/api/replay/{rid}/frames?{query}")
        assert response.status_code == 400 and response.json()["error"].startswith("invalid frames request: ")


def test_too_many_moves_are_refused(client: TestClient, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(replay_module, "MAX_REPLAY_MOVES", 2999)
    response = client.post("/api/replay", content=LONG_GAME)
    assert response.json() == {"error": "cannot load SGF: 3000 moves (at most 2999 are replayed)"}
    assert MAX_REPLAY_MOVES >= 3000


def test_the_page_is_served_while_a_replay_is_being_read(client: TestClient, monkeypatch) -> None:  # noqa: ANN001
    """The record is read in a worker thread: held there, the event loop still answers GET /."""
    reading, release = threading.Event(), threading.Event()
    real_loads = sgf.loads

    def held_loads(text: str):  # noqa: ANN202
        reading.set()
        assert release.wait(30)
        return real_loads(text)

    monkeypatch.setattr(replay_module.sgf, "loads", held_loads)
    answers: list[int] = []
    upload = threading.Thread(target=lambda: answers.append(client.post("/api/replay", content=LONG_GAME).status_code))
    upload.start()
    assert reading.wait(30)
    page = client.get("/")
    assert page.status_code == 200 and "<title>margo-web</title>" in page.text
    with client.websocket_connect("/ws") as ws:        # another tab plays on meanwhile
        ws.receive_json()
        ws.send_json({"type": "new", "size": 3, "white": "human", "black": "human"})
        ws.receive_json()
        ws.send_json({"type": "play", "move": "B2:1"})
        assert ws.receive_json()["moves"] == [{"colour": "W", "move": "B2:1"}]
    assert upload.is_alive() and answers == []       # the replay is still being read
    release.set()
    upload.join(60)
    assert answers == [200]


def test_a_page_of_another_site_is_refused(client: TestClient) -> None:
    evil = {"origin": "http://evil.example"}
    response = client.post("/api/replay", content=LONG_GAME, headers=evil)
    assert response.status_code == 403
    assert response.json() == {"error": "refused: a page of http://evil.example may not use this server"}
    for url in ("/api/saved", "/api/games/x.sgf", "/api/replay/x/frames?from=0"):
        assert client.get(url, headers=evil).status_code == 403
    # The server's own page (same Origin) and clients without an Origin are served.
    assert client.post("/api/replay", content=LONG_GAME, headers={"origin": "http://testserver"}).status_code == 200


def test_every_api_route_refuses_a_page_of_another_site(client: TestClient) -> None:
    """The cross-site check stands in front of the whole API, so a route added later is
    covered too: every /api route and method of the app's own table answers 403."""
    evil = {"origin": "http://evil.example"}
    checked = []
    for route in client.app.routes:
        path = getattr(route, "path", "")
        if not path.startswith("/api/"):
            continue
        url = path.replace("{game}", "x").replace("{replay}", "x").replace("{key}", "x")
        for method in sorted(route.methods - {"HEAD"}):
            response = client.request(method, url, headers=evil)
            assert (method, url, response.status_code) == (method, url, 403)
            checked.append(url)
    assert len(set(checked)) == 12  # the API's twelve routes (with the review's reviewed.sgf, the two of
    # variations and the rules' diagrams), none missed by the walk


GO_9X9 = "(;GM[1]FF[4]SZ[9]PB[Kim]PW[Lee];B[ee];W[ec];B[ce];W[gc])"   # every move on even lines
PLAIN_GO = "(;GM[1]FF[4]SZ[9];B[ee];W[ef];B[fe])"                    # W at ef is between lines


def test_a_go_record_is_read_through_the_projection_with_a_notice(client: TestClient) -> None:
    data = client.post("/api/replay", content=GO_9X9).json()
    assert data["notes"] == ["a Go record (GM[1], 9×9) read as a MarGo 5×5 game seen from above: "
                             "each Go move is lifted to the lowest empty point of its column"]
    assert data["rules"]["size"] == 5 and (data["black"], data["white"]) == ("Kim", "Lee")
    assert [m["move"] for m in data["moves"]] == ["C3:1", "C4:1", "B3:1", "D4:1"]


def test_a_go_game_that_is_no_margo_game_is_refused_saying_so(client: TestClient) -> None:
    response = client.post("/api/replay", content=PLAIN_GO)
    assert response.status_code == 400
    assert response.json()["error"] == (
        "cannot load SGF: a Go record (GM[1]) that is not a MarGo game seen from above: "
        "projected Go record: node 2: W at E4 names no empty MarGo point")


def test_game_information_comments_and_variations(client: TestClient) -> None:
    board = Board(Rules(size=3))
    for word in ("A1", "B1", "A2"):
        board.push(Move.from_gtp(word, 3))
    text = sgf.dumps(sgf.record_from_board(board, white_name="alice", black_name="bob"))
    head, tail = text.split(";W[", 1)
    text = head.replace("RU[MarGo]", r"RU[MarGo]DT[2026-11-24]EV[club night]C[a game \] to remember]") + (
        ";W[" + tail.replace(";B[", ";C[wait for it]B[", 1))
    data = client.post("/api/replay", content=text).json()
    assert (data["white"], data["black"], data["date"], data["event"], data["comment"]) == (
        "alice", "bob", "2026-11-24", "club night", "a game ] to remember")
    assert data["comments"] == [None, "wait for it", None]
    assert data["notes"] == []
    main, last = text.rstrip().removesuffix(")").rsplit(";", 1)
    varied = f"{main}(;{last})(;W[cc:1]))"   # a second choice for the last move
    data = client.post("/api/replay", content=varied).json()
    assert data["notes"] == ["the record has variations: the main line is shown"]
    assert len(data["moves"]) == 3
