"""Review mode of margo-web: a reviewed SGF opened, a live review streamed per move, in
bounds and only to the server's own pages; and the page's graph, mistakes, best line and
ownership map in Debian's Chromium.

The expected reviews come from the library (``margo_gtp.analysis.game_review``) at a few
visits, so the tests stay fast. The screenshot ``web-review.png`` (1280x800) goes to
``runs/web/``, or with ``MARGO_DOC_IMAGES=1`` to ``docs/img/``; ``web-review-390x844.png`` to
``runs/web/`` (docs/img's is scripts/web-screenshots').
"""

from __future__ import annotations

import collections
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web_helpers import need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp import sgf  # noqa: E402
from margo_gtp.engine import Board, Colour, Rules  # noqa: E402
from margo_gtp.players import make_player  # noqa: E402
from margo_gtp.players.base import Budget  # noqa: E402
from margo_gtp.analysis import game_review as review_library  # noqa: E402
from margo_gtp.analysis.game_review import read_reviewed, review_game, reviewed_sgf  # noqa: E402
from margo_gtp.web import review_mode as web_review  # noqa: E402
from margo_gtp.web.review_mode import SECONDS_PER_POSITION, page_entry  # noqa: E402
from needs import need_module  # noqa: E402
from web_helpers import PLAYWRIGHT, SCREENSHOTS  # noqa: E402

VISITS = 20
GAME = ("(;FF[4]GM[77]SZ[5]KM[0.5]PW[alice]PB[bob]\n"
        ";W[cc:1];B[bd:1];W[cd:1];B[bc:1];W[db:1];B[bb:1];W[cb:1];B[dd:1];W[be:1];B[ad:1])")
IMAGES = (Path(__file__).resolve().parents[2] / "docs" / "img" if os.environ.get("MARGO_DOC_IMAGES") == "1"
          else SCREENSHOTS)


def live_entries(text: str, visits: int = VISITS) -> list[dict]:
    """The review the server runs of ``text``'s game, computed here by the library."""
    return list(review_game(sgf.loads(text), visits, seed=0, ownership=True, seconds=SECONDS_PER_POSITION))


def reviewed_text(text: str, visits: int = VISITS) -> str:
    return reviewed_sgf(sgf.loads(text), live_entries(text, visits))


def played_game(size: int, moves: int, seed: int) -> str:
    """A seeded game, ``heuristic`` (White) against ``random`` (Black), as SGF: a game with
    something to review (Black's mistakes)."""
    board = Board(Rules(size=size))
    players = {Colour.WHITE: make_player("heuristic", seed), Colour.BLACK: make_player("random", seed)}
    while len(board.history) < moves and not board.is_game_over():
        colour = board.to_move
        board.push(players[colour].select_move(board, colour, Budget()), colour)
    return sgf.dumps(sgf.record_from_board(board, white_name="heuristic", black_name="random"))


def receive_review(ws) -> list[dict]:  # noqa: ANN001
    """The review messages of one review, up to its end."""
    messages = [ws.receive_json()]
    while not messages[-1].get("done"):
        messages.append(ws.receive_json())
    return messages


def wait_until(condition, seconds: float = 60) -> None:  # noqa: ANN001
    """Wait for ``condition()`` (a state another thread reaches), failing after ``seconds``."""
    deadline = threading.Event()
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        deadline.wait(0.02)
    raise AssertionError(f"not reached in {seconds} s: {condition}")


class HeldReview:
    """review_game that gives its first ``held`` entries, then waits for :meth:`release`."""

    def __init__(self, held: int) -> None:
        self.held = held
        self.waiting, self.go_on = threading.Event(), threading.Event()
        self.real = review_library.review_game

    def __call__(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN204
        for number, entry in enumerate(self.real(*args, **kwargs), start=1):
            yield entry
            if number == self.held:
                self.waiting.set()
                assert self.go_on.wait(60)

    def release(self) -> None:
        self.go_on.set()


class PacedReview:
    """review_game whose search stops for ``pause`` seconds after each of the first
    ``paused`` progresses of a position: the review searches on one thread and calls the
    progress on it, so the search waits while the server's loop takes the progress and
    sends it. Only the first few: after a pause the next progress is due at once, so
    pausing after every one would pause after nearly every simulation."""

    def __init__(self, pause: float = 0.02, paused: int = 2) -> None:
        self.pause, self.paused = pause, paused
        self.real = review_library.review_game

    def __call__(self, *args, on_progress=None, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN204
        reported: collections.Counter[int] = collections.Counter()

        def watch(turn: int, found: dict) -> None:
            on_progress(turn, found)
            reported[turn] += 1
            if reported[turn] <= self.paused:
                time.sleep(self.pause)
        return self.real(*args, on_progress=watch if on_progress is not None else None, **kwargs)


# ---------------------------------------------------------------------------- the server


def test_read_reviewed_gives_back_what_reviewed_sgf_wrote() -> None:
    entries = live_entries(GAME)
    read = read_reviewed(sgf.loads(reviewed_sgf(sgf.loads(GAME), entries)))
    assert [e["move_number"] for e in read] == list(range(1, 11))
    for wrote, back in zip(entries, read):
        assert (back["colour"], back["move"], back["judgement"], back["best"], back["pv"], back["agrees"]) == (
            wrote["colour"], wrote["move"], wrote["judgement"], wrote["best"], wrote["pv"], wrote["agrees"])
        assert back["winrate_after"] == pytest.approx(wrote["winrate_after"], abs=5e-5)   # SBKV: 0.01 %
        for key in ("winrate_before", "loss"):                                           # the comment: 0.1 %
            assert back[key] == pytest.approx(wrote[key], abs=6e-4)
        assert back["score_lead"] == pytest.approx(wrote["score_lead"], abs=0.051)
    assert read_reviewed(sgf.loads(GAME)) == []


def test_sabakis_own_win_rates_are_read_without_the_rest() -> None:
    """A file with SBKV and marks but no margo-review comment: the graph and the marks only."""
    text = GAME.replace(";B[bd:1]", ";B[bd:1]SBKV[61.5]BM[1]C[nice try]").replace(";W[cd:1]", ";W[cd:1]SBKV[55]")
    assert read_reviewed(sgf.loads(text)) == [
        {"move_number": 2, "colour": "B", "move": "B2:1", "winrate_before": None, "winrate_after": 0.615, "loss": None,
         "best": None, "pv": [], "agrees": None, "score_lead": None, "judgement": "mistake"},
        {"move_number": 3, "colour": "W", "move": "C2:1", "winrate_before": None, "winrate_after": 0.45, "loss": None,
         "best": None, "pv": [], "agrees": None, "score_lead": None, "judgement": None}]


def test_a_reviewed_sgf_opens_as_a_replay_with_its_review(client: TestClient) -> None:
    text = reviewed_text(GAME)
    data = client.post("/api/replay", content=text).json()
    assert data["notes"] == ["the record has variations: the main line is shown"]   # the best lines
    review = data["review"]
    assert (review["source"], review["done"], review["total"]) == ("sgf", True, 10)
    assert review["entries"] == [page_entry(e) for e in read_reviewed(sgf.loads(text))]
    first = review["entries"][0]
    assert first["white"] == first["winrate_after"] and "ownership" not in first   # an SGF holds no ownership
    assert client.post("/api/replay", content=GAME).json()["review"] is None


def test_a_live_review_streams_one_entry_per_move_then_the_reviewed_sgf(client: TestClient) -> None:
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    assert client.get(f"/api/replay/{replay}/reviewed.sgf").json() == {
        "error": "no review of this replay yet (review it first)"}
    expected = live_entries(GAME)
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "review", "replay": replay, "visits": VISITS})
        messages = receive_review(ws)
    base = {"type": "review", "replay": replay, "visits": VISITS, "total": 10}
    assert messages[0] == {**base, "entries": [], "done": False}
    assert messages[1:-1] == [{**base, "entries": [page_entry(e)], "done": False} for e in expected]
    assert messages[-1] == {**base, "entries": [], "done": True}
    owners = messages[1]["entries"][0]["ownership"]
    assert owners and all(-1 <= lean <= 1 and abs(lean) >= web_review.OWNERSHIP_SHOWN for lean in owners.values())
    sgf_text = client.get(f"/api/replay/{replay}/reviewed.sgf").text
    assert sgf_text == reviewed_sgf(sgf.loads(GAME), [{k: v for k, v in e.items() if k != "ownership"} for e in expected])


def test_a_review_asked_with_progress_sends_each_position_while_it_is_searched(client: TestClient,  # noqa: ANN001
                                                                               monkeypatch) -> None:  # noqa: ANN001
    """Between the entries, the position being searched as it grows (Lizzie/KaTrain's live
    view): each progress message is of the position after the last entry sent, its visits
    grow within a position, and the entries are the ones a review without progress gives.
    These small searches take milliseconds, so progress is passed on at every check here."""
    monkeypatch.setattr(web_review, "PROGRESS_SECONDS", 0.0)
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    visits = 400
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "review", "replay": replay, "visits": visits, "progress": True})
        messages = receive_review(ws)
    entries = [m["entries"][0] for m in messages if m["entries"]]
    assert entries == [page_entry(e) for e in live_entries(GAME, visits)]
    reviewed, seen = 0, {}
    for message in messages:
        if message["entries"]:
            reviewed = message["entries"][0]["move_number"]
        elif "progress" in message:
            progress = message["progress"]
            assert set(progress) == {"turn", "visits", "best", "pv", "white"}
            # turns 0 and 1 are searched before entry 1 (it needs both), turn k + 1 after entry k
            assert progress["turn"] in ({0, 1} if reviewed == 0 else {reviewed + 1})
            assert 0 < progress["visits"] <= visits + 1 and 0 <= progress["white"] <= 1
            assert progress["pv"][0] == progress["best"]
            seen.setdefault(progress["turn"], []).append(progress["visits"])
    assert seen and all(counts == sorted(counts) for counts in seen.values())


@pytest.mark.parametrize("message, error", [
    ({"type": "review", "replay": "REPLAY", "progress": "yes"}, "invalid review progress: 'yes' (true or false)"),
    ({"type": "review", "replay": "nope", "visits": 20}, "no such replay: 'nope' (load the record again)"),
    ({"type": "review", "replay": ["x"]}, "no such replay: ['x'] (load the record again)"),
    ({"type": "review", "replay": "REPLAY", "visits": 0}, "invalid review visits: 0 (a whole number 1..1600)"),
    ({"type": "review", "replay": "REPLAY", "visits": 1601}, "invalid review visits: 1601 (a whole number 1..1600)"),
    ({"type": "review", "replay": "REPLAY", "visits": "20"}, "invalid review visits: '20' (a whole number 1..1600)"),
    ({"type": "review", "replay": "EMPTY"}, "cannot review: the game has no moves to review"),
])
def test_bad_review_requests_get_one_line_and_start_nothing(client: TestClient, message: dict, error: str) -> None:
    ids = {"REPLAY": client.post("/api/replay", content=GAME).json()["replay"],
           "EMPTY": client.post("/api/replay", content="(;FF[4]GM[77]SZ[5])").json()["replay"]}
    message = {**message, "replay": ids.get(message["replay"], message["replay"])} if isinstance(message["replay"], str) else message
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json(message)
        assert ws.receive_json() == {"type": "error", "message": error}
    assert client.app.state.server.reviews.running == 0


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-5, 30) | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=6)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_review_request_gets_one_answer(client: TestClient, data) -> None:  # noqa: ANN001
    """A review request is refused with one error, or starts a review (and nothing else)."""
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    message = data.draw(st.fixed_dictionaries({"type": st.just("review")}, optional={
        "replay": st.just(replay) | JSON_VALUES, "visits": st.integers(-2, 5) | st.just(1601) | JSON_VALUES}))
    valid = message.get("replay") == replay and (
        "visits" not in message or type(message["visits"]) is int and 1 <= message["visits"] <= 1600)
    if valid and "visits" not in message:
        message["visits"] = 5   # the default (200) is slow for a property test
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json(message)
        answer = ws.receive_json()
        if valid:
            assert answer == {"type": "review", "replay": replay, "visits": message["visits"], "total": 10,
                              "entries": [], "done": False}
            assert len(receive_review(ws)) == 11   # ten entries and the end
        else:
            assert answer["type"] == "error" and "\n" not in answer["message"]
        ws.send_json({"type": "undo"})             # nothing else was queued for this socket
        assert ws.receive_json() == {"type": "error", "message": "no game: start one first"}
    wait_until(lambda: client.app.state.server.reviews.running == 0)


def test_a_game_over_the_move_cap_is_not_reviewed(client: TestClient, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(web_review, "MAX_REVIEW_MOVES", 9)
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "review", "replay": replay})
        assert ws.receive_json() == {"type": "error", "message": "cannot review: 10 moves (at most 9 are reviewed)"}


def test_a_record_with_passes_its_replay_skips_is_not_reviewed(client: TestClient) -> None:
    over = played_game(2, 40, seed=1)                      # 2x2: over after three moves
    with_passes = over.rstrip().removesuffix(")") + ";W[];B[])"   # passes of a 2-D referee after the end
    data = client.post("/api/replay", content=with_passes).json()
    assert (data["plies"], len(sgf.loads(with_passes).moves)) == (3, 5)
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "review", "replay": data["replay"]})
        assert ws.receive_json() == {"type": "error", "message": (
            "cannot review: the record holds passes that were no move (the game over, or no legal move), "
            "which its replay skips")}


def test_one_review_at_a_time_and_a_page_that_leaves_frees_it(client: TestClient, monkeypatch) -> None:  # noqa: ANN001
    held = HeldReview(held=2)
    monkeypatch.setattr(web_review.review_library, "review_game", held)
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    server = client.app.state.server
    with client.websocket_connect("/ws") as first:
        first.receive_json()
        first.send_json({"type": "review", "replay": replay, "visits": VISITS})
        assert held.waiting.wait(60)
        assert [len(first.receive_json()["entries"]) for _ in range(3)] == [0, 1, 1]   # streamed, not at the end
        with client.websocket_connect("/ws") as second:
            second.receive_json()
            second.send_json({"type": "review", "replay": replay, "visits": VISITS})
            assert second.receive_json() == {"type": "error", "message": (
                "a review is already running on this server (at most 1 at a time): wait for it to end or stop it")}
    # The first page went away: its review stops after the position being searched.
    wait_until(lambda: server.reviews.streams == 0)    # the server saw it go
    assert server.reviews.running == 1                  # the search of position 3 goes on ...
    held.release()
    wait_until(lambda: server.reviews.running == 0)    # ... and is the last
    assert len(server.replays.get(replay).review_entries) == 2
    monkeypatch.setattr(web_review.review_library, "review_game", held.real)
    with client.websocket_connect("/ws") as again:
        again.receive_json()
        again.send_json({"type": "review", "replay": replay, "visits": VISITS})
        assert receive_review(again)[-1]["done"] is True


def test_a_review_still_searching_when_the_server_stops_ends_quietly(registry, games_dir: Path,  # noqa: ANN001
                                                                      monkeypatch) -> None:  # noqa: ANN001
    """The server's loop closes under a review thread still searching (margo-web stopped, a
    test's server torn down): its next entry has nowhere to go, and the thread ends without a
    traceback (it printed three, "Event loop is closed")."""
    from margo_gtp.web.app import create_app
    from margo_gtp.web.store import GameStore

    held = HeldReview(held=1)
    monkeypatch.setattr(web_review.review_library, "review_game", held)
    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    with TestClient(create_app(registry, GameStore(games_dir))) as client:
        replay = client.post("/api/replay", content=GAME).json()["replay"]
        with client.websocket_connect("/ws") as ws:
            ws.receive_json()
            ws.send_json({"type": "review", "replay": replay, "visits": VISITS})
            assert held.waiting.wait(60)
        (thread,) = [t for t in threading.enumerate() if t.name.startswith("review-")]
    held.release()   # the server is gone; the search goes on to its next entry
    thread.join(60)
    assert not thread.is_alive()
    assert failures == []


def test_stop_review_ends_it_and_keeps_what_was_found(client: TestClient, monkeypatch) -> None:  # noqa: ANN001
    held = HeldReview(held=3)
    monkeypatch.setattr(web_review.review_library, "review_game", held)
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "review", "replay": replay, "visits": VISITS})
        assert held.waiting.wait(60)
        assert [len(ws.receive_json()["entries"]) for _ in range(4)] == [0, 1, 1, 1]
        ws.send_json({"type": "stop_review"})
        ws.send_json({"type": "undo"})   # answered after the stop: the next message, no more review
        assert ws.receive_json() == {"type": "error", "message": "no game: start one first"}
        held.release()
        wait_until(lambda: client.app.state.server.reviews.running == 0)
    text = client.get(f"/api/replay/{replay}/reviewed.sgf").text
    assert [e["move_number"] for e in read_reviewed(sgf.loads(text))] == [1, 2, 3]


def test_a_page_of_another_site_can_neither_review_nor_read_a_review(client: TestClient) -> None:
    evil = {"origin": "http://evil.example"}
    refused = {"error": "refused: a page of http://evil.example may not use this server"}
    response = client.post("/api/replay", content=reviewed_text(GAME), headers=evil)
    assert (response.status_code, response.json()) == (403, refused)
    replay = client.post("/api/replay", content=GAME).json()["replay"]
    for method in ("GET", "POST"):
        response = client.request(method, f"/api/replay/{replay}/reviewed.sgf", headers=evil)
        assert (response.status_code, response.json()) == (403, refused)
    from starlette.websockets import WebSocketDisconnect
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers=evil) as ws:
        ws.send_json({"type": "review", "replay": replay})
    assert client.app.state.server.reviews.running == 0


@pytest.mark.parametrize("text, status, error", [
    ("hello", 400, "cannot load SGF: malformed SGF: no SGF data found"),
    ("(;GM[1]FF[4]SZ[9];B[ee];W[ef];B[fe])", 400, "cannot load SGF: a Go record (GM[1]) that is not a MarGo game "
     "seen from above: projected Go record: node 2: W at E4 names no empty MarGo point"),
    ("(;GM[77]FF[4]SZ[25];W[aa:1])", 400, "cannot load SGF: unsupported board size: SZ[25] (allowed 2..19)"),
    ("(;GM[77]FF[4]SZ[3];W[dd:1])", 400, "cannot load SGF: node 1: point is off board: 'dd:1' (board size 3)"),
    ("(" + " " * 1_000_001 + ")", 413, "SGF too large (over 1000000 bytes)"),
])
def test_a_bad_file_to_review_gets_the_replay_paths_one_line(client: TestClient, text: str, status: int, error: str) -> None:
    """A reviewed SGF opens through the replay path, so a bad one gets its messages."""
    response = client.post("/api/replay", content=text)
    assert (response.status_code, response.json()) == (status, {"error": error})


# ---------------------------------------------------------------------------- the page

playwright = need_module("playwright.sync_api", PLAYWRIGHT)
Page, expect = playwright.Page, playwright.expect
STATUS = "[data-role=status]"
PROGRESS = "[data-role=review-progress]"


def balls_on_page(page) -> dict[str, str]:  # noqa: ANN001
    return page.eval_on_selector_all("[data-ball]", "els => Object.fromEntries(els.map(e => [e.dataset.vertex, e.dataset.ball]))")


def balls_at(text: str, ply: int) -> dict[str, str]:
    board = sgf.replay(sgf.loads(text), ply)
    return {point.gtp(): colour.letter for point, colour in board.balls().items()}


def click_graph_at(page, ply: int, plies: int) -> None:  # noqa: ANN001
    """Click the review graph where ply ``ply`` is drawn (viewBox 300 wide, scale from x=30 to 294)."""
    rect = page.locator("[data-role=review-graph]").bounding_box()
    x = rect["x"] + (30 + ply / plies * 264) / 300 * rect["width"]
    page.mouse.click(x, rect["y"] + rect["height"] * 0.5)


def drawn_line(page) -> list[tuple[str, str]]:  # noqa: ANN001
    return page.eval_on_selector_all(
        "[data-pv]", "els => els.map(e => [e.closest('[data-vertex]').dataset.vertex, e.dataset.pv])"
        ".sort((a, b) => a[1] - b[1])")


def open_sgf(page, folder: Path, text: str, name: str = "game.reviewed.sgf") -> None:  # noqa: ANN001
    path = folder / name
    path.write_text(text, encoding="utf-8")
    page.click("[data-tab=replay]")
    page.set_input_files("[data-role=sgf-file]", str(path))


@pytest.mark.process
def test_a_reviewed_sgf_shows_its_graph_and_mistakes_and_jumps_from_both(web_page, live_server, tmp_path: Path) -> None:  # noqa: ANN001
    page = web_page
    page.set_viewport_size({"width": 1280, "height": 800})
    text = reviewed_text(GAME)
    entries = read_reviewed(sgf.loads(text))
    judged = [e for e in entries if e["judgement"] in ("blunder", "mistake", "inaccuracy")]
    page.goto(live_server.url)
    open_sgf(page, tmp_path, text)
    expect(page.locator(PROGRESS)).to_have_text("Review read from the SGF (10 of 10 moves)")
    expect(page.locator("[data-role=review-graph] [data-role=winrate-line]")).to_have_count(1)
    expect(page.locator("[data-role=review-graph] .graph-label")).to_have_text(["100%", "50%", "0%"])
    assert page.eval_on_selector_all("[data-role=review-graph] [data-mark]", "els => els.map(e => [+e.dataset.ply, e.dataset.mark])") == (
        [[e["move_number"], e["judgement"]] for e in judged])
    expect(page.locator("[data-mistake]")).to_have_count(len(judged))
    first = judged[0]
    expect(page.locator("[data-mistake]").first).to_have_text(
        f"{first['move_number']}. {first['colour']} {first['move']} {first['judgement']} −{100 * first['loss']:.1f}"
        + (f" (best {first['best']})" if first["best"] != first["move"] else ""))
    # A click on the graph jumps to that move: its number, its board, the marker there.
    click_graph_at(page, 6, 10)
    expect(page.locator(STATUS)).to_contain_text("game.reviewed.sgf: move 6 of 10 (B B4:1)")
    assert balls_on_page(page) == balls_at(text, 6)
    expect(page.locator("[data-role=review-graph] [data-role=winrate-current]")).to_have_attribute("data-current", "6")
    # The best line of the position shown: the engine's choice for move 7, numbered in order.
    assert drawn_line(page) == [[v, str(n)] for n, v in enumerate(entries[6]["pv"], start=1)]
    expect(page.locator(f"g[data-vertex='{entries[6]['best']}'] .pv-best")).to_have_count(1)
    expect(page.locator("[data-role=review-move]")).to_contain_text(f"Best here: {' '.join(entries[6]['pv'])}")
    # A click on a mistake jumps to it.
    last = judged[-1]
    page.locator(f"[data-mistake='{last['move_number']}']").click()
    number = last["move_number"]
    expect(page.locator(STATUS)).to_contain_text(f"move {number} of 10 ({last['colour']} {last['move']})")
    assert balls_on_page(page) == balls_at(text, number)
    expect(page.locator(f"[data-mistake='{number}']")).to_have_class(f"judgement-{last['judgement']} current")
    expect(page.locator("[data-role=review-move]")).to_contain_text(f"Move {number} ({last['colour']} {last['move']}): {last['judgement']}")
    expect(page.locator("[data-owner]")).to_have_count(0)   # a reviewed SGF has no ownership map


@pytest.mark.process
def test_a_live_review_fills_in_while_it_runs(web_page, live_server, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    held = HeldReview(held=3)
    monkeypatch.setattr(web_review.review_library, "review_game", held)
    page = web_page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(live_server.url)
    open_sgf(page, tmp_path, GAME, "game.sgf")
    expect(page.locator(PROGRESS)).to_contain_text("Not reviewed")
    page.locator("[data-role=review-visits]").select_option("50")
    page.click("[data-action=review]")
    # Held after three positions: the page already shows them, the review still runs.
    expect(page.locator(PROGRESS)).to_have_text("Reviewing at 50 visits: 3 of 10 moves…")
    expect(page.locator("[data-action=stop-review]")).to_be_visible()
    points = page.locator("[data-role=review-graph] [data-role=winrate-line]").get_attribute("points")
    assert len(points.split()) == 3
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")   # move 2: its ownership and move 3's best line are in
    expect(page.locator(STATUS)).to_contain_text("move 2 of 10")
    expected = live_entries(GAME, 50)
    expect(page.locator("[data-pv]")).to_have_count(len(set(expected[2]["pv"])))
    shown = page.eval_on_selector_all("[data-owner]", "els => Object.fromEntries(els.map(e => [e.closest('[data-vertex]').dataset.vertex, e.dataset.owner]))")
    owners = {v: "B" if lean > 0 else "W" for v, lean in page_entry(expected[1])["ownership"].items()}
    balls = balls_at(GAME, 2)   # a ball is marked only when the map gives its point to the other colour
    assert shown == {v: owner for v, owner in owners.items() if v not in balls or balls[v] != owner}
    assert shown
    # Not by its shade alone: each marked point says for whom to a screen reader.
    for vertex, owner in shown.items():
        side = {"B": "Black", "W": "White"}[owner]
        label = page.get_attribute(f"g[data-vertex='{vertex}']", "aria-label")
        if vertex in balls:
            assert label.endswith(f", likely lost to {side}"), label
        else:   # "A4, level 1, empty, legal, White's area": a side line may be tried there
            assert ", empty, " in label and label.endswith(f", {side}'s area"), label
    page.uncheck("[data-role=ownership]")
    expect(page.locator("[data-owner]")).to_have_count(0)
    page.check("[data-role=ownership]")
    held.release()
    expect(page.locator(PROGRESS)).to_have_text("Reviewed: 10 moves at 50 visits")
    assert len(page.locator("[data-role=review-graph] [data-role=winrate-line]").get_attribute("points").split()) == 10
    judged = [e for e in expected if e["judgement"] in ("blunder", "mistake", "inaccuracy")]
    expect(page.locator("[data-mistake]")).to_have_count(len(judged))
    expect(page.locator("[data-role=reviewed-sgf]")).to_be_visible()


RECORD_SEARCHES = """() => {
  // Every state of the review line, in order: [position searched, its visits so far,
  // moves reviewed, points on the graph].
  window.searches = [];
  const line = document.querySelector('[data-role=review-progress]');
  new MutationObserver(() => {
    if (!line.dataset.searchingTurn) return;
    const graph = document.querySelector('[data-role=review-graph] [data-role=winrate-line]');
    const points = graph ? graph.getAttribute('points').trim().split(/\\s+/).length : 0;
    window.searches.push([Number(line.dataset.searchingTurn), Number(line.dataset.searchingVisits),
                          Number(line.dataset.reviewed), points, line.textContent]);
  }).observe(line, { attributes: true, attributeFilter: ['data-searching-visits', 'data-searching-turn'] });
}"""
GROWN_SEARCH = """() => window.searches.some(([turn, visits, reviewed], i) => turn >= 1 &&
  window.searches.slice(i + 1).some(([t, v, r]) => t === turn && v > visits && r === reviewed))"""


@pytest.mark.process
def test_a_live_review_shows_a_position_while_it_is_searched(web_page, live_server, tmp_path: Path,  # noqa: ANN001
                                                             monkeypatch) -> None:  # noqa: ANN001
    """As Lizzie and KaTrain: the position being searched is drawn before its search ends
    (its visits grow while the moves reviewed stay the same), its point on the graph next
    to the reviewed ones. The C tree searches a position of this 5x5 game at 800 visits in
    about 10 ms here, so the progress is sent every millisecond, not every 0.25 s, to see
    it grow, and the search pauses after the first two progresses of each position
    (:class:`PacedReview`): else on a busy machine the server's loop may not run between
    two progresses, and the second is dropped as the first still waits (as it must be: at
    most one waits)."""
    monkeypatch.setattr(web_review, "PROGRESS_SECONDS", 0.001)
    monkeypatch.setattr(web_review.review_library, "review_game", PacedReview())
    page = web_page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(live_server.url)
    open_sgf(page, tmp_path, GAME, "game.sgf")
    page.evaluate(RECORD_SEARCHES)
    page.locator("[data-role=review-visits]").select_option("800")
    page.click("[data-action=review]")
    page.wait_for_function(GROWN_SEARCH, timeout=60_000)
    searches = page.evaluate("window.searches")
    for turn, visits, reviewed, points, text in searches:
        assert turn == reviewed + 1 or (reviewed == 0 and turn in (0, 1))   # the entry of that move is not in yet
        assert 0 < visits <= 801
        assert f"searching position {turn}: {visits} visits, best " in text
        if reviewed >= 1:
            assert points == reviewed + 1   # the reviewed moves and the one being searched
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / "web-review-searching.png"))
    expect(page.locator(PROGRESS)).to_have_text("Reviewed: 10 moves at 800 visits", timeout=60_000)
    assert page.locator(PROGRESS).get_attribute("data-searching-turn") == ""   # the search under way is gone
    assert len(page.locator("[data-role=review-graph] [data-role=winrate-line]").get_attribute("points").split()) == 10


@pytest.mark.process
def test_a_dropped_connection_says_the_review_stopped(web_page, live_server, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    held = HeldReview(held=3)
    monkeypatch.setattr(web_review.review_library, "review_game", held)
    page = web_page
    page.goto(live_server.url)
    open_sgf(page, tmp_path, GAME, "game.sgf")
    page.locator("[data-role=review-visits]").select_option("50")
    page.click("[data-action=review]")
    expect(page.locator(PROGRESS)).to_have_text("Reviewing at 50 visits: 3 of 10 moves…")
    page.evaluate("window.margo.socket.close()")
    expect(page.locator(PROGRESS)).to_have_text(
        "the connection dropped: the review stopped after 3 of 10 moves (Review again to redo it)")
    expect(page.locator("[data-role=connection]")).to_have_text("connected")   # reconnected
    wait_until(lambda: live_server.app.state.server.reviews.streams == 0)
    held.release()
    wait_until(lambda: live_server.app.state.server.reviews.running == 0)
    page.click("[data-action=review]")
    expect(page.locator(PROGRESS)).to_have_text("Reviewed: 10 moves at 50 visits")


@pytest.mark.process
def test_the_running_game_is_reviewed_from_play(web_page, live_server) -> None:  # noqa: ANN001
    page = web_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/?size=5&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    expect(page.locator("[data-action=review-game]")).to_be_disabled()
    for vertex in ("C3:1", "B2:1", "C2:1", "B3:1", "D4:1", "B4:1"):
        page.click(f"g[data-vertex='{vertex}']")
    expect(page.locator("[data-role=moves] li")).to_have_count(6)
    page.click("[data-action=review-game]")
    expect(page.locator("[data-tab=replay]")).to_have_class("tab active")
    expect(page.locator(PROGRESS)).to_have_text("Reviewed: 6 moves at 200 visits")
    expect(page.locator(STATUS)).to_contain_text("this game: move 6 of 6 (B B4:1)")
    click_graph_at(page, 3, 6)
    expect(page.locator(STATUS)).to_contain_text("this game: move 3 of 6 (W C2:1)")
    expect(page.locator("[data-pv]").first).to_be_attached()
    expect(page.locator("[data-owner]").first).to_be_attached()
    assert page.evaluate("window.scrollY") == 0


@pytest.mark.process
def test_review_pictures(web_page, live_server, tmp_path: Path) -> None:  # noqa: ANN001
    """A 7x7 game reviewed live at 200 visits, shown before its last blunder, at 1280x800 and on a phone."""
    page = web_page
    page.set_viewport_size({"width": 1280, "height": 800})
    text = played_game(7, 60, seed=3)
    page.goto(live_server.url)
    open_sgf(page, tmp_path, text, "game-7x7.sgf")
    page.click("[data-action=review]")
    expect(page.locator(PROGRESS)).to_have_text("Reviewed: 60 moves at 200 visits", timeout=120_000)
    blunder = page.locator("[data-mistake].judgement-blunder").last
    number = int(blunder.get_attribute("data-mistake"))
    blunder.click()
    expect(page.locator(STATUS)).to_contain_text(f"game-7x7.sgf: move {number} of 60")
    page.keyboard.press("ArrowLeft")    # the position before it: the best line that was missed
    expect(page.locator(STATUS)).to_contain_text(f"move {number - 1} of 60")
    expect(page.locator("[data-pv]").first).to_be_attached()
    page.mouse.move(0, 0)   # no hover highlight in the picture
    page.screenshot(path=str(IMAGES / "web-review.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("window.margo.fitBoard()")
    page.locator("[data-role=review-box]").scroll_into_view_if_needed()
    # The stuck board and the review under it, as the phone shows them: a full-page shot drew
    # the stuck board where the scroll left it, over an empty band and the panel's top. The
    # phone picture of docs/img is scripts/web-screenshots' (web-review-390x844.png).
    page.screenshot(path=str(SCREENSHOTS / "web-review-390x844.png"))
