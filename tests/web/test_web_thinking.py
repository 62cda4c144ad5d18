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
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp.engine import Board, Move, Rules  # noqa: E402
from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402
from web_helpers import screenshot  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
THINKING = "[data-role=thinking]"
SIZES = [pytest.param(390, 844, True, id="phone-390x844"), pytest.param(1280, 800, False, id="desktop-1280x800")]
SECONDS_RE = re.compile(r"^White \(mcts\) is thinking — (\d+\.\d) s of 60 s$")


@pytest.fixture
def open_page(browser: Browser):
    """``open_page(width, height, touch)``: a page of a fresh context of that size, failing
    the test on any JavaScript error."""
    contexts, errors = [], []

    def opener(width: int, height: int, touch: bool) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(20_000)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


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


@pytest.mark.parametrize("width, height, touch", SIZES)
def test_the_engine_shows_its_seconds_visits_and_best_move_and_resign_stops_it(
        open_page, live_server, width: int, height: int, touch: bool) -> None:
    page = open_page(width, height, touch)
    page.goto(f"{live_server.url}/?size=7&engine=mcts&human=black&seconds=60")
    expect(page.locator(STATUS)).to_have_text(SECONDS_RE)
    expect(page.locator(THINKING)).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    readings = samples(page, 5, 400)
    seconds, visits = [r[0] for r in readings], [r[1] for r in readings]
    assert all(b > a for a, b in zip(seconds, seconds[1:])), readings
    assert all(b > a for a, b in zip(visits, visits[1:])), readings
    best = page.locator(THINKING).get_attribute("data-best")
    assert Board(Rules(size=7)).is_legal(Move.from_gtp(best, 7)), best
    expect(page.locator(THINKING)).to_contain_text(f"best {best}")
    if touch:   # on the phone the thinking line is on screen with the board, no scrolling
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


@pytest.fixture
def client(registry: EngineRegistry, games_dir: Path):
    with TestClient(create_app(registry, GameStore(games_dir))) as test_client:
        yield test_client


def test_thinking_messages_carry_the_engines_own_search(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 5, "white": "mcts", "black": "human", "seconds": 2})
        state = receive_until(ws, lambda m: m["type"] == "state" and m["thinking"] == "W")
        assert state["think"] == {"colour": "W", "player": "mcts", "elapsed": None, "budget": 2.0, "ply": 0,
                                  "visits": None, "best": None, "winrate": None}
        received, times = [], []
        while (message := ws.receive_json())["type"] == "thinking":
            received.append(message)
            times.append(time.monotonic())
        assert message["type"] == "state" and message["think"] is None and len(message["moves"]) == 1
    assert {m["game"] for m in received} == {state["game"]} and {m["ply"] for m in received} == {0}
    reported = [m for m in received if m["visits"] is not None]
    assert len(reported) >= 4, received
    assert [m["visits"] for m in reported] == sorted(m["visits"] for m in reported)
    assert [m["elapsed"] for m in received] == sorted(m["elapsed"] for m in received)
    assert all(Board(Rules(size=5)).is_legal(Move.from_gtp(m["best"], 5)) for m in reported)
    assert all(0 <= m["winrate"] <= 1 for m in reported)
    # at most about 4 a second: the pusher waits PUSH_SECONDS between two messages
    assert all(b - a >= 0.2 for a, b in zip(times, times[1:])), times


def test_an_engine_that_dies_mid_think_ends_the_turn_with_the_lost_engine_state(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "new", "size": 7, "white": "mcts", "black": "human", "seconds": 60})
        receive_until(ws, lambda m: m["type"] == "thinking" and m["visits"])
        server = client.app.state.server
        engine = thinking_engine(server, next(iter(server.games)))
        os.kill(engine.pid, signal.SIGKILL)
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert (state["thinking"], state["think"], state["over"]) == (None, None, False)
        assert state["crashed"] == {"W": state["status"]}
        assert state["status"] == ("engine mcts failed: engine 'python' closed its output during "
                                   "'margo-genmove_analyze' (exit code -9)")


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
