"""The page's layout in Debian's Chromium: the board is the largest square that fits the
window's width and height, and playing never scrolls the page (issue #26).

Each size leaves a screenshot ``web-layout-WxH.png`` in ``runs/web/``, or, with
``MARGO_DOC_IMAGES=1``, in ``docs/img/``, looked at by a person when the layout changes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402

from web_helpers import SCREENSHOTS  # noqa: E402

pytestmark = pytest.mark.process

# A test run leaves its screenshots with the test output (runs/web/), so running the suite
# never changes a tracked file; MARGO_DOC_IMAGES=1 writes them over the pictures in docs/img/
# when the layout has changed and the new pictures have been looked at.
IMAGES = (Path(__file__).resolve().parents[2] / "docs" / "img" if os.environ.get("MARGO_DOC_IMAGES") == "1"
          else SCREENSHOTS)
STATUS = "[data-role=status]"


def box(page: Page, selector: str) -> dict:
    return page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect();"
                                 " return {top: r.top, left: r.left, bottom: r.bottom, right: r.right, width: r.width}; }")


def assert_on_screen(page: Page, selector: str) -> dict:
    size = page.viewport_size
    rect = box(page, selector)
    assert rect["top"] >= 0 and rect["left"] >= 0, (selector, rect)
    assert rect["bottom"] <= size["height"] and rect["right"] <= size["width"], (selector, rect, size)
    return rect


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800), (1366, 768), (1920, 1080)])
def test_the_board_fits_the_window_and_stays_put_while_playing(web_page: Page, live_server, width: int, height: int) -> None:
    page = web_page
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{live_server.url}/?size=9&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    board = assert_on_screen(page, "[data-role=board]")
    # The largest square: as wide as its column or as tall as the window lets it be.
    column = box(page, "[data-role=board-box]")
    assert board["width"] >= min(column["width"], height * 0.6) - 1
    for selector in (STATUS, "[data-action=pass]", "[data-action=undo]"):   # above the fold, also on a phone
        assert_on_screen(page, selector)
    assert page.locator("[data-role=new-game-box]").evaluate("e => e.open") is False   # folded while the game runs
    for ply in range(1, 7):
        page.locator("[data-target][data-legal=true]").first.click()
        expect(page.locator("[data-role=moves] li")).to_have_count(ply)
        assert page.evaluate("window.scrollY") == 0
        assert box(page, "[data-role=board]") == board      # the board did not move nor shrink
    assert_on_screen(page, "[data-role=board]")
    page.screenshot(path=str(IMAGES / f"web-layout-{width}x{height}.png"))


def test_keys_step_back_through_a_running_game_and_undo(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=4&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    for vertex in ("A1:1", "B1:1", "A2:1"):
        page.click(f"g[data-vertex='{vertex}']")
    expect(page.locator("[data-role=moves] li")).to_have_count(3)
    page.keyboard.press("ArrowLeft")
    expect(page.locator(STATUS)).to_have_text("Looking back: move 2 of 3 (B B1:1) — → or End: back to the game")
    expect(page.locator("[data-ball]")).to_have_count(2)
    page.locator("[data-role=moves] li[data-ply='1']").click()
    expect(page.locator(STATUS)).to_contain_text("Looking back: move 1 of 3")
    expect(page.locator("[data-ball]")).to_have_count(1)
    page.keyboard.press("u")    # the game changes while the page looks back: it looks again
    expect(page.locator(STATUS)).to_have_text("Looking back: move 1 of 2 (W A1:1) — → or End: back to the game")
    expect(page.locator("[data-role=moves] li")).to_have_count(2)
    page.keyboard.press("End")
    expect(page.locator(STATUS)).to_have_text("White to move")
    expect(page.locator("[data-ball]")).to_have_count(2)
    # A click between the points says that no ball can go there.
    page.mouse.click(*(lambda r: (r["left"] + 3, r["top"] + 3))(box(page, "[data-role=board]")))
    expect(page.locator(STATUS)).to_have_text("No ball can go there: click a free point (White to move)")
    # Move numbers and the one-level view are drawing options only.
    page.check("[data-role=numbers]")
    expect(page.locator("[data-move-number]")).to_have_text(["1", "2"])
    page.locator("[data-role=level-view]").select_option("2")
    expect(page.locator("g.faint [data-ball]")).to_have_count(2)


def test_a_long_record_and_a_go_record_in_the_replay_tab(web_page: Page, live_server, tmp_path: Path) -> None:
    page = web_page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/?tab=replay")
    long_game = Path(__file__).resolve().parents[1] / "data" / "random_19x19_3000_moves.sgf"
    page.set_input_files("[data-role=sgf-file]", str(long_game))
    expect(page.locator(STATUS)).to_have_text("random_19x19_3000_moves.sgf: move 0 of 3000")
    page.keyboard.press("End")   # beyond the first frames: fetched on demand
    expect(page.locator(STATUS)).to_contain_text("move 3000 of 3000")
    from margo_gtp import sgf

    _, board = sgf.load_board(long_game.read_text(encoding="utf-8"))
    expect(page.locator("[data-ball]")).to_have_count(len(board.balls()))
    assert_on_screen(page, "[data-role=board]")
    page.screenshot(path=str(IMAGES / "web-replay-3000-moves.png"))
    go = tmp_path / "go.sgf"
    go.write_text("(;GM[1]FF[4]SZ[9]PB[Kim]PW[Lee]DT[2026-11-24]C[a club game];B[ee]C[centre];W[ec];B[ce];W[gc])")
    page.set_input_files("[data-role=sgf-file]", str(go))
    expect(page.locator("[data-role=note]")).to_have_text(
        "Note: a Go record (GM[1], 9×9) read as a MarGo 5×5 game seen from above: "
        "each Go move is lifted to the lowest empty point of its column")
    expect(page.locator("[data-role=game-info]")).to_contain_text("Black Kim")
    expect(page.locator("[data-role=game-info]")).to_contain_text("Date 2026-11-24")
    page.keyboard.press("ArrowRight")
    expect(page.locator("[data-role=comment]")).to_have_text("centre")
    page.screenshot(path=str(IMAGES / "web-replay-go-record.png"))
    go.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[ef])")
    page.set_input_files("[data-role=sgf-file]", str(go))
    expect(page.locator(STATUS)).to_have_text("cannot load SGF: a Go record (GM[1]) that is not a MarGo game seen from "
                                              "above: projected Go record: node 2: W at E4 names no empty MarGo point")


def test_a_capture_flashes_and_an_ended_game_takes_no_hover(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    for vertex in ("A3:1", "B3:1", "A1:1", "A2:1"):    # Black's A2 takes White's A3
        page.click(f"g[data-vertex='{vertex}']")
    expect(page.locator("[data-role=moves] li")).to_have_count(4)
    expect(page.locator("g[data-vertex='A3:1'] .capture-flash")).to_have_count(1)
    expect(page.locator("g[data-vertex='A3:1'] [data-ball]")).to_have_count(0)
    page.hover("g[data-vertex='A3:1']")
    expect(page.locator("[data-role=hover]")).to_have_text("A3:1: illegal (suicide)")
    page.click("[data-action=resign]")
    page.click("[data-action=resign-yes]")
    expect(page.locator(STATUS)).to_contain_text("wins")
    expect(page.locator("[data-role=board].idle")).to_have_count(1)   # no highlight, no ghost ball
    expect(page.locator("[data-role=board] .ghost")).to_have_count(0)
    page.hover("g[data-vertex='C1:1']")
    expect(page.locator("[data-role=hover]")).to_have_text("\u00a0")


def test_watch_names_engines_short_with_the_command_in_a_tooltip(web_page: Page, live_server, watch_dir: Path) -> None:
    import json

    long_name = "/usr/bin/python3 -c 'from margo_gtp.commands.gtp import main; main()' --player mcts --seed 3"
    line = {"game": 1, "white": long_name, "black": "gnugo", "winner_colour": "W", "result": "W+R",
            "reason": "resignation", "move_count": 4, "sgf": "game-0001.sgf"}
    (watch_dir / "results.jsonl").write_text(json.dumps(line) + "\n")
    page = web_page
    page.goto(f"{live_server.url}/?tab=watch")
    cell = page.locator("[data-key='0-1'] td").nth(1)
    expect(cell).to_have_text("mcts #3")
    assert cell.get_attribute("title") == long_name
    expect(page.locator("[data-role=crosstable] tr").first.locator("th[title]")).to_have_text(["mcts #3", "gnugo"])
