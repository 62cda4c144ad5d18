"""An engine that thinks (issue #37 item 4), in Debian's Chromium at 390x844 (touch) and
1280x800: the status counts its seconds against its budget, the seat shows the visits and
best move of its own search (margo-genmove_analyze) as they grow, Resign works meanwhile,
and an engine that dies mid-think leaves the page in the lost-engine state. Plus the
``thinking`` message at the protocol level."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra, receive_until

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp.engine import Board, Move, Rules  # noqa: E402
from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402
from web_helpers import FOUR_SIZES, screenshot  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
THINKING = "[data-role=thinking]"
SECONDS_RE = re.compile(r"^White \(mcts\) is thinking — (\d+\.\d) s of 60 s$")




def samples(page: Page, count: int, pause_ms: int) -> list[tuple[float, int]]:
    """``count`` readings of (the status's seconds, the seat's visits), ``pause_ms`` apart."""
    readings = []
    for _ in range(count):
        page.wait_for_timeout(pause_ms)
        status = page.locator(STATUS).text_content()
        match = SECONDS_RE.match(status)
        assert match, status
        visits = page.locator(THINKING).get_attribute("data-visits")
        readings.append((float(match.group(1)), int(visits) if visits else 0))
    return readings


@pytest.mark.parametrize("width, height, touch", FOUR_SIZES)
def test_the_engine_shows_its_seconds_visits_and_best_move_and_resign_stops_it(
        open_page, live_server, width: int, height: int, touch: bool) -> None:
    page = open_page(width, height, touch)
    page.goto(f"{live_server.url}/?size=7&engine=mcts&human=black&seconds=60")
    expect(page.locator(STATUS)).to_have_text(SECONDS_RE)
    expect(page.locator(THINKING)).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    readings = samples(page, 5, 400)
    seconds, visits = [r[0] for r in readings], [r[1] for r in readings]
    assert all(b > a for a, b in zip(seconds, seconds[1:])), readings
    # The visits grow over the two seconds and never fall; two readings 400 ms apart may
    # share one report when a loaded machine delays the engine's next (CI saw one such pair).
    assert all(b >= a for a, b in zip(visits, visits[1:])), readings
    assert visits[-1] > visits[0], readings
    best = page.locator(THINKING).get_attribute("data-best")
    assert Board(Rules(size=7)).is_legal(Move.from_gtp(best, 7)), best
    expect(page.locator(THINKING)).to_contain_text(f"best {best}")
    # on screen with the board at every size, no scrolling (on a phone in the seats' strip
    # over the board, on a desktop in the side panel)
    rect = page.eval_on_selector(THINKING, "e => e.getBoundingClientRect().toJSON()")
    assert rect["top"] >= 0 and rect["bottom"] <= height, rect
    screenshot(page, f"thinking-{width}x{height}")
    page.locator("[data-action=resign]").click()
    page.locator("[data-action=resign-yes]").click()
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    expect(page.locator(THINKING)).to_have_count(0)
    page.wait_for_timeout(600)   # no late thinking message brings the line back
    expect(page.locator(THINKING)).to_have_count(0)
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")


def thinking_engine(server, game_id: str):  # noqa: ANN001, ANN201
    """The one engine process of game ``game_id`` of a margo-web ``server`` (in this process);
    while it thinks its seat does not hold it yet, the game's set of started engines does."""
    (engine,) = server.games[game_id]._processes  # noqa: SLF001
    return engine


def test_thinking_messages_carry_the_engines_own_search(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 7, "white": "mcts", "black": "human", "seconds": 3})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["thinking"] == "W")
        assert state["think"] == {"colour": "W", "player": "mcts", "elapsed": None, "budget": 3.0, "ply": 0,
                                  "visits": None, "best": None, "winrate": None}
        received = []
        while (message := ws.receive_json())["type"] == "thinking":
            received.append(message)
        assert message["type"] == "state" and message["think"] is None and len(message["moves"]) == 1
    assert {m["game"] for m in received} == {state["game"]} and {m["ply"] for m in received} == {0}
    reported = [m for m in received if m["visits"] is not None]
    assert len(reported) >= 3, received
    assert [m["visits"] for m in reported] == sorted(m["visits"] for m in reported)
    assert [m["elapsed"] for m in received] == sorted(m["elapsed"] for m in received)
    assert all(Board(Rules(size=7)).is_legal(Move.from_gtp(m["best"], 7)) for m in reported)
    assert all(0 <= m["winrate"] <= 1 for m in reported)
    # at most 4 a second: the pusher waits PUSH_SECONDS (0.25 s) between two messages
    # (counted on the engine's seconds: the test may read messages late and bunched)
    assert len(received) <= (received[-1]["elapsed"] - received[0]["elapsed"]) / 0.25 + 2, received


def thinking_mcts(client: TestClient, ws):  # noqa: ANN001, ANN201
    """The engine process of a new 7x7 game whose White, mcts at 60 s a move, has reported
    visits of its first search."""
    ws.receive_json()
    ws.send_json({"type": "new", "size": 7, "white": "mcts", "black": "human", "seconds": 60})
    receive_until(ws, lambda m: m["type"] == "thinking" and m["visits"])
    server = client.app.state.server
    return thinking_engine(server, next(iter(server.games)))


def test_resign_while_the_engine_thinks_stops_its_search_at_once(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        engine = thinking_mcts(client, ws)
        ws.send_json({"type": "play", "move": "resign"})
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert (state["result"], state["thinking"], state["think"], state["moves"]) == ("W+R", None, None, [])
        deadline = time.monotonic() + 5
        while engine.returncode is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert engine.returncode is not None   # the process is gone, not searching on for 60 s
        time.sleep(0.6)   # no late thinking message or move follows the end
        ws.send_json({"type": "undo"})
        later = ws.receive_json()
        assert later["type"] == "state" and later["moves"] == [] and not later["over"]


def test_an_engine_that_dies_mid_think_ends_the_turn_with_the_lost_engine_state(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        engine = thinking_mcts(client, ws)
        os.kill(engine.pid, signal.SIGKILL)
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert (state["thinking"], state["think"], state["over"]) == (None, None, False)
        assert state["crashed"] == {"W": state["status"]}
        assert state["status"] == ("engine mcts failed: engine 'python' closed its output during "
                                   "'margo-genmove_analyze' (exit code -9)")



def test_a_lost_engine_stops_the_clocks_until_another_takes_the_seat(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 7, "white": "mcts", "black": "human", "seconds": 60,
                      "clock": {"main": 600, "increment": 0}})
        receive_until(ws, lambda m: m["type"] == "thinking" and m["visits"])
        server = client.app.state.server
        os.kill(thinking_engine(server, next(iter(server.games))).pid, signal.SIGKILL)
        lost = receive_until(ws, lambda m: m["type"] == "state")
        assert lost["crashed"] and lost["clock"]["running"] is None
        time.sleep(0.5)
        ws.send_json({"type": "seat", "colour": "W", "player": "random"})
        state = receive_until(ws, lambda m: m["type"] == "state" and not m["crashed"])
        assert abs(state["clock"]["W"] - lost["clock"]["W"]) <= 0.1   # nothing charged while it stood still
        moved = receive_until(ws, lambda m: m["type"] == "state" and m["moves"])
        assert moved["clock"]["running"] == "B" and moved["moves"][0]["colour"] == "W"


def test_the_page_shows_the_lost_engine_when_it_dies_mid_think(open_page, live_server) -> None:
    page = open_page(390, 844, True)
    page.goto(f"{live_server.url}/?size=7&engine=mcts&human=black&seconds=60")
    expect(page.locator(THINKING)).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    server = live_server.app.state.server
    os.kill(thinking_engine(server, next(iter(server.games))).pid, signal.SIGKILL)
    lost = "engine mcts failed: engine 'python' closed its output during 'margo-genmove_analyze' (exit code -9)"
    expect(page.locator(STATUS)).to_have_text(lost)
    expect(page.locator("[data-role=crash]")).to_be_visible()
    expect(page.locator(THINKING)).to_have_count(0)
    page.wait_for_timeout(600)   # the seconds stopped with the engine
    expect(page.locator(STATUS)).to_have_text(lost)


# -- game clocks ---------------------------------------------------------------------------

def clock_seconds(page: Page, colour: str) -> float:
    return float(page.locator(f"[data-clock={colour}]").get_attribute("data-seconds"))


@pytest.mark.parametrize("width, height, touch", FOUR_SIZES)
def test_with_a_time_control_both_clocks_show_and_the_running_one_ticks_down(
        open_page, live_server, width: int, height: int, touch: bool) -> None:
    page = open_page(width, height, touch)
    page.goto(f"{live_server.url}/?size=5&engine=mcts&human=white&seconds=1&clock=120&increment=2")
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-clock=W].running")).to_be_visible()
    expect(page.locator("[data-clock=B]")).to_have_text("2:00")
    first = clock_seconds(page, "W")
    page.wait_for_timeout(1300)
    second = clock_seconds(page, "W")
    assert 120 >= first > second > 117, (first, second)
    assert re.fullmatch(r"1:5\d", page.locator("[data-clock=W]").text_content())
    for colour in "WB":   # both clocks on screen with the board at every size, no scrolling
        rect = page.eval_on_selector(f"[data-clock={colour}]", "e => e.getBoundingClientRect().toJSON()")
        assert rect["top"] >= 0 and rect["bottom"] <= height and rect["right"] <= width, rect
    page.locator("g[data-vertex='C3:1']").click()
    expect(page.locator("[data-clock=B].running")).to_be_visible()
    page.wait_for_timeout(500)
    black = clock_seconds(page, "B")
    assert black < 120, black
    expect(page.locator("[data-role=moves] li")).to_have_count(2)   # the engine answered within its share
    expect(page.locator("[data-clock=W].running")).to_be_visible()
    white = clock_seconds(page, "W")
    assert second - 1.5 < white <= second + 2, (second, white)   # charged its turn, then 2 s back
    assert clock_seconds(page, "B") <= 122 and clock_seconds(page, "B") >= black - 1.2
    screenshot(page, f"clocks-{width}x{height}")


def test_clock_messages_a_flag_that_falls_and_bad_clocks(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        for clock, words in [({"main": 4}, "{'main': 4} (main 5..10800 s, increment 0..600 s)"),
                             ({"main": 60, "increment": 601}, "{'main': 60, 'increment': 601} (main 5..10800 s, increment 0..600 s)"),
                             ({"main": "60"}, "{'main': '60'} (numbers of seconds)"),
                             ({"main": True}, "{'main': True} (numbers of seconds)"),
                             ([60], '[60] (expected {"main": seconds, "increment": seconds})'),
                             ({"increment": 5}, "{'increment': 5} (expected {\"main\": seconds, \"increment\": seconds})")]:
            ws.send_json({"type": "new", "size": 5, "white": "human", "black": "human", "clock": clock})
            assert ws.receive_json() == {"type": "error", "message": f"invalid clock: {words}"}
        ws.send_json({"type": "new", "size": 5, "white": "human", "black": "human", "clock": {"main": 5, "increment": 1}})
        state = ws.receive_json()
        assert state["clock"] == {"main": 5.0, "increment": 1.0, "W": 5.0, "B": 5.0, "running": "W"}
        time.sleep(1)
        ws.send_json({"type": "play", "move": "C3:1"})
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert state["clock"]["running"] == "B" and 4.8 <= state["clock"]["W"] <= 5.0, state["clock"]
        started = time.monotonic()
        state = receive_until(ws, lambda m: m["type"] == "state")   # nobody moves: Black's flag falls
        assert 4.5 < time.monotonic() - started < 7
        assert (state["over"], state["result"], state["status"], state["can"]["undo"]) == (
            True, "W+T", "White wins W+T (time)", False)
        assert state["clock"]["B"] == 0.0 and state["clock"]["running"] is None
        ws.send_json({"type": "undo"})
        assert ws.receive_json() == {"type": "error", "message": "cannot undo"}
        sgf = client.get(f"/api/games/{state['game']}.sgf").text
        assert "RE[W+T]" in sgf


def test_the_clocks_come_back_after_a_restart(registry: EngineRegistry, games_dir: Path) -> None:
    with TestClient(create_app(registry, GameStore(games_dir))) as first, first.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 5, "white": "human", "black": "human", "clock": {"main": 60, "increment": 5}})
        game = ws.receive_json()["game"]
        time.sleep(0.5)
        ws.send_json({"type": "play", "move": "C3:1"})
        moved = receive_until(ws, lambda m: m["type"] == "state")["clock"]
    with TestClient(create_app(registry, GameStore(games_dir))) as second, second.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "attach", "game": game})
        state = ws.receive_json()
    assert state["clock"]["W"] == moved["W"] and 64 < moved["W"] < 64.6, (moved, state["clock"])
    assert state["clock"]["running"] == "B" and 59.5 < state["clock"]["B"] <= 60
