"""Variations in Replay and Review (issue #37 item 9): a side line tried from a replayed
position, every move judged by the server's rules core, and Play from here, a new saved game
from any position against an engine. The routes, with hostile input and other sites' pages,
then the page in Debian's Chromium at 390x844 (touch) and 1280x800.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web_helpers import need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp import sgf  # noqa: E402
from margo_gtp.engine import Board, Move, Rules  # noqa: E402
from margo_gtp.web import journal  # noqa: E402
from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402
from margo_gtp.web.variation import MAX_REQUEST_BYTES, MAX_VARIATION_MOVES  # noqa: E402
from margo_gtp.web.view import frame  # noqa: E402
from web_helpers import receive_until  # noqa: E402

# A 5x5 game, White first: after 4 moves White may stack on B2:2 (over B2, C2, B3, C3).
GAME = ("(;FF[4]GM[77]SZ[5]KM[0.5]PW[alice]PB[bob]\n"
        ";W[cc:1];B[bd:1];W[cd:1];B[bc:1];W[db:1];B[bb:1];W[cb:1];B[dd:1];W[be:1];B[ad:1])")
PLY = 4
SIDE = ["B2:2", "E5:1", "A1:1"]        # White, Black, White
EVIL = {"origin": "http://evil.example"}
REFUSED = {"error": "refused: a page of http://evil.example may not use this server"}


def board_at(text: str, ply: int, moves: list[str] = ()) -> Board:
    board = sgf.replay(sgf.loads(text), ply)
    for word in moves:
        board.push(Move.from_gtp(word, board.size))
    return board


def record(size: int, words: list[str], **rules: str) -> str:
    board = Board(Rules(size=size).with_options({k: str(v) for k, v in rules.items()}) if rules else Rules(size=size))
    for word in words:
        board.push(Move.from_gtp(word, size))
    return sgf.dumps(sgf.record_from_board(board))


@pytest.fixture
def app(registry: EngineRegistry, games_dir: Path):
    return create_app(registry, GameStore(games_dir))


@pytest.fixture
def client(app):  # noqa: ANN001, ANN201
    with TestClient(app) as test_client:
        yield test_client


def load(client: TestClient, text: str = GAME) -> str:
    response = client.post("/api/replay", content=text)
    assert response.status_code == 200, response.json()
    return response.json()["replay"]


# ---------------------------------------------------------------- the side line


def test_a_side_line_is_played_by_the_server_and_answers_its_position(client: TestClient) -> None:
    rid = load(client)
    answer = client.post(f"/api/replay/{rid}/variation", json={"ply": PLY, "moves": SIDE})
    assert answer.status_code == 200
    board = board_at(GAME, PLY, SIDE)
    assert answer.json() == {
        "replay": rid, "ply": PLY,
        "moves": [{"colour": "W", "move": "B2:2"}, {"colour": "B", "move": "E5:1"}, {"colour": "W", "move": "A1:1"}],
        "frame": frame(board), "result": None}
    assert answer.json()["frame"]["to_move"] == "B" and answer.json()["frame"]["ply"] == PLY + 3
    # No moves: the main-line position itself, with its points to try (what the page clicks on).
    start = client.post(f"/api/replay/{rid}/variation", json={"ply": PLY}).json()
    assert (start["moves"], start["frame"]) == ([], frame(board_at(GAME, PLY)))
    assert {t["v"] for t in start["frame"]["targets"] if t["legal"]} >= {"B2:2", "A1:1"}


def test_a_side_line_that_ends_the_game_says_its_result(client: TestClient) -> None:
    line = ["A1:1", "A2:1", "B1:1", "B2:1", "A1:1", "B1:1"]   # on 2x2 White is left with no legal move
    rid = load(client, record(2, []))
    answer = client.post(f"/api/replay/{rid}/variation", json={"ply": 0, "moves": line}).json()
    assert answer["result"] == "B+3"
    assert all(not target["legal"] for target in answer["frame"]["targets"])
    more = client.post(f"/api/replay/{rid}/variation", json={"ply": 0, "moves": [*line, "A1:1"]})
    assert (more.status_code, more.json()) == (400, {"error": "illegal move: the game is over"})


@pytest.mark.parametrize("text, ply, moves, error", [
    (GAME, PLY, ["C3:1"], "illegal move: C3:1 for WHITE: point is occupied"),
    (GAME, PLY, ["B2:2", "C4:2"], "illegal move: C4:2 for BLACK: point is not supported"),
    (record(3, ["A3:1", "B3:1", "A1:1", "A2:1"]), 4, ["A3:1"], "illegal move: A3:1 for WHITE: suicide"),
    (GAME, PLY, ["Z9:1"], "illegal move: 'Z9:1' is not a vertex"),
    (GAME, PLY, ["pass"], "illegal move: pass: passing is not allowed (allow_pass is off)"),
    (GAME, PLY, [None], "illegal move: None is not a vertex"),
    (GAME, PLY, [["A1:1"]], "illegal move: ['A1:1'] is not a vertex"),
    (GAME, PLY, ["A1:1" * 5], "illegal move: 'A1:1A1:1A1:1A1:1A1:1' is not a vertex"),
    (GAME, -1, [], "invalid ply: -1 (a move number 0..10)"),
    (GAME, 11, [], "invalid ply: 11 (a move number 0..10)"),
    (GAME, True, [], "invalid ply: True (a move number 0..10)"),
    (GAME, "4", [], "invalid ply: '4' (a move number 0..10)"),
    (GAME, 4.0, [], "invalid ply: 4.0 (a move number 0..10)"),
    (GAME, None, [], "invalid ply: None (a move number 0..10)"),
    (GAME, PLY, "A1:1", f"invalid moves: expected a list of at most {MAX_VARIATION_MOVES} moves"),
    (GAME, PLY, {"0": "A1:1"}, f"invalid moves: expected a list of at most {MAX_VARIATION_MOVES} moves"),
    (GAME, PLY, ["A1:1"] * (MAX_VARIATION_MOVES + 1), f"invalid moves: expected a list of at most {MAX_VARIATION_MOVES} moves"),
])
def test_a_refused_side_line_gets_one_line(client: TestClient, text: str, ply, moves, error: str) -> None:  # noqa: ANN001
    rid = load(client, text)
    answer = client.post(f"/api/replay/{rid}/variation", json={"ply": ply, "moves": moves})
    assert (answer.status_code, answer.json()) == (400, {"error": error})


@pytest.mark.parametrize("route", ["variation", "play"])
@pytest.mark.parametrize("body, status, error", [
    (b"", 400, "bad request: not JSON (Expecting value: line 1 column 1 (char 0))"),
    (b"{ply: 1}", 400, "bad request: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
    (b"[4, []]", 400, "bad request: expected a JSON object"),
    (b'"ply"', 400, "bad request: expected a JSON object"),
    (b"[" * 5000 + b"]" * 5000, 400, "bad request: JSON nested too deeply"),
    (b"\xff\xfe{}", 400, "bad request: not JSON (Expecting value: line 1 column 1 (char 0))"),
    (json.dumps({"ply": 0, "moves": ["A1:1"] * 4000}).encode(), 413, f"request too large (over {MAX_REQUEST_BYTES} bytes)"),
])
def test_a_body_that_is_no_request_gets_one_line(client: TestClient, route: str, body: bytes, status: int,
                                                 error: str) -> None:
    rid = load(client)
    answer = client.post(f"/api/replay/{rid}/{route}", content=body)
    assert (answer.status_code, answer.json()) == (status, {"error": error})


@pytest.mark.parametrize("route", ["variation", "play"])
def test_an_unknown_replay_is_named(client: TestClient, route: str) -> None:
    answer = client.post(f"/api/replay/nope/{route}", json={"ply": 0, "moves": []})
    assert (answer.status_code, answer.json()) == (404, {"error": "no such replay: 'nope' (load the record again)"})
    assert client.get(f"/api/replay/nope/{route}").status_code == 405   # POST only


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["ply", "moves", "white", "black", "seconds"]),
                       st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False, allow_infinity=False)
                                    | st.sampled_from(["A1:1", "B2:2", "E5:1", "C3:1", "pass", "swap", "random", "human", "x"]),
                                    lambda inner: st.lists(inner, max_size=4), max_leaves=8)))
def test_any_side_line_request_gets_a_position_or_one_line(client: TestClient, body: dict) -> None:
    rid = load(client)
    answer = client.post(f"/api/replay/{rid}/variation", json=body)
    data = answer.json()
    if answer.status_code == 200:
        assert data["frame"] == frame(board_at(GAME, body["ply"], [m["move"] for m in data["moves"]]))
    else:
        assert answer.status_code == 400 and list(data) == ["error"] and "\n" not in data["error"]
    # Nothing is kept: the record's own frames are as they were.
    assert client.get(f"/api/replay/{rid}/frames?from=10&count=1").json()["frames"] == [frame(board_at(GAME, 10), with_targets=False)]


# ---------------------------------------------------------------- play from here


def test_play_from_here_starts_a_saved_game_at_that_position(client: TestClient, games_dir: Path) -> None:
    rid = load(client)
    answer = client.post(f"/api/replay/{rid}/play", json={"ply": PLY, "moves": SIDE[:2], "white": "human",
                                                           "black": "random", "seconds": 0.5})
    assert answer.status_code == 200 and list(answer.json()) == ["game"]
    gid = answer.json()["game"]
    board = board_at(GAME, PLY, SIDE[:2])
    # On disk before any page sees it: the whole line that led there, then the players asked for.
    start, moves = journal.read(games_dir / "unfinished" / f"{gid}.jsonl")
    assert (start["seats"], start["seconds"], start["rules"]) == ({"W": "human", "B": "random"}, 0.5,
                                                                  sgf.loads(GAME).rules.options())
    assert [(m["colour"], m["move"]) for m in moves] == [(c.letter, m.gtp()) for c, m in board.history]
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()   # hello
        ws.send_json({"type": "attach", "game": gid})
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert state["frame"] == frame(board)
        assert (state["status"], state["human_to_move"], state["seats"]) == (
            "White to move (you)", True, {"W": "human", "B": "random"})
        ws.send_json({"type": "play", "move": "A1:1"})    # the game goes on, and the engine answers
        state = receive_until(ws, lambda m: m["type"] == "state" and len(m["moves"]) == PLY + 4)
        assert state["moves"][PLY + 2] == {"colour": "W", "move": "A1:1"} and state["moves"][-1]["colour"] == "B"


def test_play_from_here_with_the_engine_to_move_lets_it_move(client: TestClient) -> None:
    rid = load(client)
    gid = client.post(f"/api/replay/{rid}/play", json={"ply": PLY, "moves": SIDE, "white": "human",
                                                       "black": "random"}).json()["game"]
    line = [{"colour": c.letter, "move": m.gtp()} for c, m in board_at(GAME, PLY, SIDE).history]
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "attach", "game": gid})
        first = receive_until(ws, lambda m: m["type"] == "state")
        assert (first["moves"], first["frame"]["to_move"]) == (line, "B")
        state = receive_until(ws, lambda m: m["type"] == "state" and m["human_to_move"])
    assert state["moves"][:-1] == line and state["moves"][-1]["colour"] == "B"
    assert state["status"] == "White to move (you)"


def test_play_from_here_after_a_swap_gives_the_seats_asked_for(client: TestClient, registry: EngineRegistry,
                                                              games_dir: Path) -> None:
    text = record(3, ["B2:1", "swap"], swap="on")
    rid = load(client, text)
    gid = client.post(f"/api/replay/{rid}/play", json={"ply": 2, "moves": ["A1:1"], "white": "human",
                                                       "black": "random"}).json()["game"]
    line = [{"colour": "W", "move": "B2:1"}, {"colour": "B", "move": "swap"}, {"colour": "B", "move": "A1:1"}]
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "attach", "game": gid})
        state = receive_until(ws, lambda m: m["type"] == "state")
    assert (state["moves"], state["seats"], state["status"]) == (line, {"W": "human", "B": "random"}, "White to move (you)")
    # The journal names the seats before the swap, so a restarted server gives the same game back.
    start, _ = journal.read(games_dir / "unfinished" / f"{gid}.jsonl")
    assert start["seats"] == {"W": "random", "B": "human"}
    again = GameStore(games_dir).restore(gid, registry)
    assert {c.letter: seat.player for c, seat in again.seats.items()} == {"W": "human", "B": "random"}


@pytest.mark.parametrize("body, error", [
    ({"ply": PLY, "white": "human", "black": "nosuch"}, "unknown engine: 'nosuch'"),
    ({"ply": PLY, "white": 3, "black": "random"}, "invalid player for white: 3"),
    ({"ply": PLY, "white": "human", "black": "random", "seconds": 0}, "invalid seconds per move: 0 (allowed 0.05..60)"),
    ({"ply": PLY, "white": "human", "black": "random", "seconds": "1"}, "invalid seconds per move: '1' (allowed 0.05..60)"),
    ({"ply": PLY, "moves": ["C3:1"], "white": "human", "black": "random"}, "illegal move: C3:1 for WHITE: point is occupied"),
    ({"ply": 99, "white": "human", "black": "random"}, "invalid ply: 99 (a move number 0..10)"),
])
def test_a_refused_play_from_here_starts_nothing(client: TestClient, app, games_dir: Path, body: dict,  # noqa: ANN001
                                                  error: str) -> None:
    rid = load(client)
    answer = client.post(f"/api/replay/{rid}/play", json=body)
    assert (answer.status_code, answer.json()) == (400, {"error": error})
    assert app.state.server.games == {} and not games_dir.exists()


def test_no_game_is_played_from_an_ended_position_or_a_set_up_record(client: TestClient, app) -> None:  # noqa: ANN001
    rid = load(client, record(2, []))
    line = ["A1:1", "A2:1", "B1:1", "B2:1", "A1:1", "B1:1"]
    answer = client.post(f"/api/replay/{rid}/play", json={"ply": 0, "moves": line, "white": "human", "black": "random"})
    assert (answer.status_code, answer.json()) == (400, {"error": "cannot play from here: the game is over at this position (B+3)"})
    set_up = "(;FF[4]GM[77]SZ[3]AB[aa:1]PW[a]PB[b];W[bb:1])"
    rid = load(client, set_up)
    answer = client.post(f"/api/replay/{rid}/play", json={"ply": 1, "white": "human", "black": "random"})
    assert (answer.status_code, answer.json()) == (400, {"error": "cannot play from here: the record starts from set-up "
                                                                  "balls, and a game here starts from the empty board"})
    assert app.state.server.games == {}


def test_a_page_of_another_site_can_neither_try_nor_play_from_here(client: TestClient, app, games_dir: Path) -> None:  # noqa: ANN001
    rid = load(client)
    for route in ("variation", "play"):
        body = {"ply": PLY, "moves": SIDE, "white": "human", "black": "random"}
        answer = client.post(f"/api/replay/{rid}/{route}", json=body, headers=EVIL)
        assert (answer.status_code, answer.json()) == (403, REFUSED)
    assert app.state.server.games == {} and not games_dir.exists()
    # The server's own page (the same Origin) is served.
    same = {"origin": "http://testserver"}
    assert client.post(f"/api/replay/{rid}/variation", json={"ply": PLY, "moves": SIDE}, headers=same).status_code == 200
    assert client.post(f"/api/replay/{rid}/play", json={"ply": PLY, "white": "human", "black": "human"},
                       headers=same).status_code == 200


# ---------------------------------------------------------------- the page

from needs import need_module  # noqa: E402
from web_helpers import PLAYWRIGHT, screenshot  # noqa: E402

playwright = need_module("playwright.sync_api", PLAYWRIGHT)
expect = playwright.expect

STATUS = "[data-role=status]"
BAR = "[data-role=variation-text]"
SIZES = [pytest.param(390, 844, True, id="390x844-touch"), pytest.param(1280, 800, False, id="1280x800")]


def balls_on_page(page) -> dict[str, str]:  # noqa: ANN001
    return page.eval_on_selector_all("[data-ball]", "els => Object.fromEntries(els.map(e => [e.dataset.vertex, e.dataset.ball]))")


def balls_of(board: Board) -> dict[str, str]:
    return {point.gtp(): colour.letter for point, colour in board.balls().items()}


def tried_on_page(page) -> list[list[str]]:  # noqa: ANN001
    return page.eval_on_selector_all("[data-tried]", "els => els.map(e => [e.closest('[data-vertex]').dataset.vertex, "
                                     "e.dataset.tried]).sort((a, b) => a[1] - b[1])")


def on_screen(page, selector: str) -> dict:  # noqa: ANN001
    """The element's box, asserted whole inside the viewport."""
    rect = page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect();"
                                 " return {top: r.top, left: r.left, bottom: r.bottom, right: r.right}; }")
    size = page.viewport_size
    assert rect["top"] >= 0 and rect["left"] >= 0, (selector, rect)
    assert rect["bottom"] <= size["height"] + 0.5 and rect["right"] <= size["width"] + 0.5, (selector, rect, size)
    return rect




def open_replay_at(page, url: str, folder: Path, ply: int, text: str = GAME) -> None:  # noqa: ANN001
    """Load ``text`` (GAME, or GAME reviewed) in Replay, show move ``ply``, and wait for its points to try."""
    path = folder / "game.sgf"
    path.write_text(text, encoding="utf-8")
    page.goto(f"{url}/?tab=replay")
    page.set_input_files("[data-role=sgf-file]", str(path))
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 0 of 10")
    page.locator("[data-role=slider]").fill(str(ply))
    expect(page.locator(STATUS)).to_have_text(f"game.sgf: move {ply} of 10 (B B3:1)")
    expect(page.locator("g[data-vertex='B2:2'] [data-target][data-legal=true]")).to_have_count(1)


@pytest.mark.process
@pytest.mark.parametrize("width, height, touch", SIZES)
def test_a_side_line_is_tried_undone_left_and_played_from(open_page, live_server, tmp_path: Path,  # noqa: ANN001
                                                          width: int, height: int, touch: bool) -> None:
    page = open_page(width, height, touch)
    open_replay_at(page, live_server.url, tmp_path, PLY)
    expect(page.locator(BAR)).to_have_text("Try a move on the board")
    expect(page.locator("[data-action=variation-undo]")).to_be_disabled()
    hit = (lambda v: page.locator(f"g[data-vertex='{v}']").tap()) if touch else (lambda v: page.click(f"g[data-vertex='{v}']"))
    before = on_screen(page, "[data-role=board]")
    # Three moves on a side line: White stacks on B2:2, then Black, then White; each drawn ringed and numbered.
    for k, vertex in enumerate(SIDE, 1):
        hit(vertex)
        expect(page.locator(BAR)).to_have_text(f"Variation: {k} move{'s' if k > 1 else ''}")
    board = board_at(GAME, PLY, SIDE)
    expect(page.locator(STATUS)).to_have_text("Variation: W A1:1 — Black to move")
    assert balls_on_page(page) == balls_of(board)
    assert tried_on_page(page) == [["B2:2", "1"], ["E5:1", "2"], ["A1:1", "3"]]
    expect(page.locator("g[data-vertex='B2:2']")).to_have_attribute("aria-label", "B2, level 2, white, variation move 1")
    expect(page.locator("g[data-vertex='D4:1']")).to_have_attribute("aria-label", "D4, level 1, empty, legal")
    expect(page.locator("[data-role=slider]")).to_have_value(str(PLY))    # the main line stays where it was
    expect(page.locator("[data-role=moves] li")).to_have_count(10)
    # All in view, nothing wider than the window, the board as large as before, every button a finger's size.
    assert on_screen(page, "[data-role=board]") == before
    for selector in (STATUS, "[data-role=try-bar]", "[data-action=variation-undo]", "[data-action=play-from-here]"):
        on_screen(page, selector)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if touch:
        sizes = page.eval_on_selector_all("[data-role=try-bar] button", "els => els.map(e => e.getBoundingClientRect().height)")
        assert len(sizes) == 3 and min(sizes) >= 44, sizes
    screenshot(page, f"variation-{width}x{height}")
    # A refused point says why in one plain sentence, and changes nothing.
    hit("C3:1")
    expect(page.locator(STATUS)).to_have_text("Not at C3:1: a ball is already there")
    assert page.locator(STATUS).get_attribute("title") == "illegal move: C3:1 for BLACK: point is occupied"
    expect(page.locator(BAR)).to_have_text("Variation: 3 moves")
    assert balls_on_page(page) == balls_of(board)
    # Undo takes back the last move of the side line.
    page.locator("[data-action=variation-undo]").click()
    expect(page.locator(BAR)).to_have_text("Variation: 2 moves")
    expect(page.locator(STATUS)).to_have_text("Variation: B E5:1 — White to move")
    assert balls_on_page(page) == balls_of(board_at(GAME, PLY, SIDE[:2]))
    assert tried_on_page(page) == [["B2:2", "1"], ["E5:1", "2"]]
    # Back to game: the main line as it was.
    page.locator("[data-action=variation-back]").click()
    expect(page.locator(BAR)).to_have_text("Try a move on the board")
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 4 of 10 (B B3:1)")
    assert balls_on_page(page) == balls_of(board_at(GAME, PLY))
    assert tried_on_page(page) == []
    expect(page.locator("[data-action=variation-back]")).to_be_disabled()
    # Play from here, at a side-line position: a new game with exactly that board, the human to move.
    for vertex in SIDE[:2]:
        hit(vertex)
    expect(page.locator(BAR)).to_have_text("Variation: 2 moves")
    page.locator("[data-action=play-from-here]").click()
    expect(page.locator("[data-role=play-here-what]")).to_have_text("From move 4 and 2 variation moves: White to move.")
    assert page.locator("[data-role=play-here-form] [name=human]").input_value() == "W"
    page.locator("[data-role=play-here-form] [name=engine]").select_option("random")
    page.locator("[data-action=play-here-start]").click()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-tab=play]")).to_have_class("tab active")
    played = board_at(GAME, PLY, SIDE[:2])
    assert balls_on_page(page) == balls_of(played)
    expect(page.locator("[data-role=moves] li")).to_have_text([f"{c.letter} {m.gtp()}" for c, m in played.history])
    expect(page.locator("[data-seat=B]")).to_have_text("Black: random")
    expect(page.locator("[data-role=try-bar]")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # The game goes on from there: the human's move, then the engine's.
    hit("A1:1")
    expect(page.locator("[data-role=moves] li")).to_have_count(PLY + 4)
    expect(page.locator(STATUS)).to_have_text("White to move (you)")


@pytest.mark.process
def test_a_side_line_by_keyboard_in_review_and_play_from_the_main_line(open_page, live_server, tmp_path: Path) -> None:  # noqa: ANN001
    from margo_gtp.analysis.game_review import review_game, reviewed_sgf

    page = open_page(1280, 800, False)
    game = sgf.loads(GAME)
    text = reviewed_sgf(game, list(review_game(game, 20, seed=0, seconds=5.0)))
    open_replay_at(page, live_server.url, tmp_path, PLY, text)
    expect(page.locator("[data-role=review-progress]")).to_have_text("Review read from the SGF (10 of 10 moves)")
    best_line = page.eval_on_selector_all("[data-pv]", "els => els.map(e => e.dataset.pv).sort()")
    assert best_line[:1] == ["1"]   # the review's best line from here, drawn on the board
    page.focus("[data-role=board]")
    expect(page.locator("[data-cursor]")).to_have_attribute("data-cursor", "C3:1")
    for key in ("PageUp", "ArrowLeft", "ArrowDown"):
        page.keyboard.press(key)
    expect(page.locator("[data-cursor]")).to_have_attribute("data-cursor", "B2:2")
    expect(page.locator("[data-role=hover]")).to_have_text("B2, level 2, empty, legal")
    page.keyboard.press("Enter")
    expect(page.locator(BAR)).to_have_text("Variation: 1 move")
    expect(page.locator("g[data-vertex='B2:2'] [data-ball=W]")).to_have_count(1)
    expect(page.locator("[data-pv]")).to_have_count(0)   # the best line is the game's, not the side line's
    page.keyboard.press("Tab")   # off the board: ← takes back the side line's move, Esc leaves it
    page.keyboard.press("ArrowLeft")
    expect(page.locator(BAR)).to_have_text("Try a move on the board")
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 4 of 10 (B B3:1)")
    expect(page.locator("[data-pv]")).to_have_count(len(best_line))
    page.locator("g[data-vertex='A1:1']").click()
    expect(page.locator(BAR)).to_have_text("Variation: 1 move")
    page.keyboard.press("Escape")
    expect(page.locator(BAR)).to_have_text("Try a move on the board")
    page.keyboard.press("ArrowLeft")   # with no side line, ← steps the game back as before
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 3 of 10 (W C2:1)")
    # Play from the main line: Black to move, the human takes White, so the engine moves first.
    expect(page.locator("g[data-vertex='A1:1'] [data-target]")).to_have_count(1)
    page.locator("[data-action=play-from-here]").click()
    expect(page.locator("[data-role=play-here-what]")).to_have_text("From move 3: Black to move.")
    page.locator("[data-role=play-here-form] [name=human]").select_option("W")
    page.locator("[data-role=play-here-form] [name=engine]").select_option("random")
    page.locator("[data-action=play-here-start]").click()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    moves = page.locator("[data-role=moves] li")
    expect(moves).to_have_count(4)
    assert moves.all_text_contents()[:3] == ["W C3:1", "B B2:1", "W C2:1"] and moves.nth(3).text_content().startswith("B ")
