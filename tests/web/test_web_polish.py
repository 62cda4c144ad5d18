"""margo-web's polish for players (issue #37 item 11), in Debian's Chromium: the review graph
that grows with a large screen, and the optional move sound."""

from __future__ import annotations

from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402

from test_web_review import GAME, click_graph_at, open_sgf, reviewed_text  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
GRAPH = "[data-role=review-graph]"
MOVES = "[data-role=moves] li"
# WebAudio that counts the clicks it would play (a test cannot listen).
COUNTING_AUDIO = """
window.clicksPlayed = 0;
const param = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createOscillator() { return { frequency: param, connect: (node) => node, start() { window.clicksPlayed += 1; }, stop() {} }; }
  createGain() { return { gain: param, connect: (node) => node }; }
};
"""


def on_screen(page: Page, selector: str) -> dict:
    rect = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert rect["y"] >= 0 and rect["x"] >= 0, (selector, rect)
    assert rect["y"] + rect["height"] <= size["height"] + 0.5 and rect["x"] + rect["width"] <= size["width"] + 0.5
    return rect


@pytest.mark.parametrize("width, height, touch, graph_height", [
    (390, 844, True, 80), (1280, 800, False, 184), (1920, 1080, False, 260)])
def test_the_review_graph_grows_with_a_large_screen_and_keeps_its_clicks(open_page, live_server, tmp_path: Path,
                                                                        width: int, height: int, touch: bool,
                                                                        graph_height: int) -> None:
    page = open_page(width, height, touch=touch)
    page.goto(live_server.url)
    open_sgf(page, tmp_path, reviewed_text(GAME))
    expect(page.locator("[data-role=review-progress]")).to_have_text("Review read from the SGF (10 of 10 moves)")
    graph = page.locator(GRAPH).bounding_box()
    assert abs(graph["height"] - graph_height) < 1, graph
    # A taller scale, not a larger drawing: the viewBox has the box's shape, the labels their size.
    view_width, view_height = (float(n) for n in page.get_attribute(GRAPH, "viewBox").split()[2:])
    assert (view_width, view_height) == (300, max(80, round(300 * graph["height"] / graph["width"])))
    label = page.locator(f"{GRAPH} .graph-label").first.bounding_box()
    assert label["height"] < 16, label
    click_graph_at(page, 6, 10)
    expect(page.locator(STATUS)).to_contain_text("game.reviewed.sgf: move 6 of 10 (B B4:1)")
    expect(page.locator(f"{GRAPH} [data-role=winrate-current]")).to_have_attribute("data-current", "6")
    on_screen(page, STATUS)
    if not touch:   # a phone scrolls to its graph under the stuck board; a desktop shows the whole board beside it
        on_screen(page, "[data-role=board]")
        on_screen(page, GRAPH)


def play_one(page: Page, moves_before: int) -> None:
    """Play the first legal point as White and wait for the engine's answer."""
    page.locator("g[data-vertex]:has([data-target][data-legal=true])").first.click()
    expect(page.locator(MOVES)).to_have_count(moves_before + 2)


def test_the_move_sound_is_off_until_ticked_remembered_and_silent_once_off(open_page, live_server) -> None:
    page = open_page(1280, 800, touch=False)
    page.add_init_script(COUNTING_AUDIO)
    url = f"{live_server.url}/?size=5&engine=random&human=white&seconds=0.05"
    page.goto(url)
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    sound = page.locator("[data-role=sound]")
    expect(sound).not_to_be_checked()
    play_one(page, 0)
    assert page.evaluate("window.clicksPlayed") == 0   # off by default: never a sound
    sound.check()
    assert page.evaluate("localStorage.getItem('margo-web.sound')") == "on"
    play_one(page, 2)
    assert page.evaluate("window.clicksPlayed") == 2   # White's move and the engine's
    page.click("[data-action=undo]")
    expect(page.locator(MOVES)).to_have_count(2)
    assert page.evaluate("window.clicksPlayed") == 2   # a move taken back makes no sound
    # Remembered: a reload of the game (a state with its moves, no new one) is silent, the box ticked.
    page.reload()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-role=sound]")).to_be_checked()
    assert page.evaluate("window.clicksPlayed") == 0
    play_one(page, 2)
    assert page.evaluate("window.clicksPlayed") == 2
    page.locator("[data-role=sound]").uncheck()
    play_one(page, 4)
    assert page.evaluate("window.clicksPlayed") == 2   # off again: silent


def test_the_move_sound_plays_through_webaudio_without_an_error(open_page, live_server) -> None:
    page = open_page(390, 844)
    page.goto(f"{live_server.url}/?size=5&engine=random&human=white&seconds=0.05")
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    page.locator("[data-role=sound]").tap()
    page.locator("g[data-vertex]:has([data-target][data-legal=true])").first.tap()
    expect(page.locator(MOVES)).to_have_count(2)
    assert page.evaluate("localStorage.getItem('margo-web.sound')") == "on"
    # open_page fails the test on any JavaScript error: the real AudioContext played the clicks.


@pytest.mark.parametrize("width, height", [(1280, 800), (1920, 1080)])
def test_level_digits_stay_readable_over_a_buried_balls_ring(web_page, live_server, tmp_path: Path, width: int,
                                                              height: int) -> None:
    """A ball of level 3 and up carries its level; over a buried ball its ring crosses the digit,
    and drawn after the digit it hid half of it (the issue: "level digits are half hidden")."""
    from margo_gtp import sgf
    from margo_gtp.engine.positions import midgame_positions

    page = web_page
    page.set_viewport_size({"width": width, "height": height})
    board = max(midgame_positions(), key=lambda b: len(b.buried()))
    page.goto(f"{live_server.url}/?tab=replay")
    path = tmp_path / "crowded.sgf"
    path.write_text(sgf.dumps(sgf.record_from_board(board)), encoding="utf-8")
    page.set_input_files("[data-role=sgf-file]", str(path))
    plies = len(board.history)
    expect(page.locator(STATUS)).to_have_text(f"crowded.sgf: move 0 of {plies}")
    page.keyboard.press("End")
    colour, last = board.history[-1]
    expect(page.locator(STATUS)).to_have_text(f"crowded.sgf: move {plies} of {plies} ({colour.letter} {last.gtp()})")
    digits = page.eval_on_selector_all("text.level", """els => els.map(e => {
        const g = e.closest("g[data-vertex]"), parts = [...g.children], ring = g.querySelector("[data-buried-mark]");
        const box = e.getBoundingClientRect(), style = getComputedStyle(e);
        return {vertex: g.dataset.vertex, text: e.textContent, ring: ring ? parts.indexOf(ring) : -1,
                digit: parts.indexOf(e), height: box.height, fill: style.fill, outline: style.stroke};
    })""")
    over_rings = [d for d in digits if d["ring"] >= 0]
    # Every ring lies on a ball two levels up from the buried one, so level 3 or more: it has a digit.
    assert len(over_rings) == page.locator("[data-buried-mark]").count() > 0, over_rings
    for digit in over_rings:
        assert digit["digit"] > digit["ring"], digit   # painted over the ring
        assert digit["height"] >= 15, digit
        assert digit["text"] == digit["vertex"].split(":")[1], digit
        assert (digit["fill"], digit["outline"]) in {("rgb(221, 221, 221)", "rgb(0, 0, 0)"),
                                                       ("rgb(85, 85, 85)", "rgb(255, 255, 255)")}, digit
