"""margo-web for players, round 2 (issue #37), in Debian's Chromium: what a newcomer sees on a
phone (360x640 and 390x844, touch) and on a desktop (1280x800). Each test asserts what is on
the screen: boxes in the viewport, tap-target sizes, exact texts, no page wider than the window.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Browser, Page, expect  # noqa: E402

from web_helpers import FOUR_SIZES, screenshot  # noqa: E402
from web_helpers import contrast_ratio as ratio, move_cursor_to  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
PHONES = [(360, 640), (390, 844)]
TOUCH_TARGET = 44




def box(page: Page, selector: str) -> dict:
    return page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect();"
                                 " return {top: r.top, left: r.left, bottom: r.bottom, right: r.right, width: r.width, height: r.height}; }")


def assert_on_screen(page: Page, selector: str) -> dict:
    size = page.viewport_size
    rect = box(page, selector)
    assert rect["top"] >= 0 and rect["left"] >= 0, (selector, rect)
    assert rect["bottom"] <= size["height"] + 0.5 and rect["right"] <= size["width"] + 0.5, (selector, rect, size)
    return rect


def assert_no_page_overflow(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


def assert_tap_target(page: Page, selector: str) -> None:
    for rect in page.eval_on_selector_all(selector, "els => els.filter(e => e.offsetParent).map(e => {"
                                          " const r = e.getBoundingClientRect(); return [r.width, r.height]; })"):
        assert rect[0] >= TOUCH_TARGET - 0.5 and rect[1] >= TOUCH_TARGET - 0.5, (selector, rect)


def contrast(page: Page, selector: str, against: str) -> float:
    """WCAG contrast of one element's computed fill against another's."""
    return page.evaluate("""([a, b]) => {
        const lum = (sel) => {
            const [r, g, bl] = getComputedStyle(document.querySelector(sel)).fill.match(/\\d+/g).map(Number)
                .map((c) => c / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
            return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
        };
        const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
    }""", [selector, against])


@pytest.mark.parametrize("width, height", PHONES)
def test_start_on_a_phone_leaves_the_status_and_the_board_in_view(open_page, live_server, width: int, height: int) -> None:
    page = open_page(width, height)
    page.goto(live_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    page.select_option("[name=white]", "human")
    page.select_option("[name=black]", "human")
    page.locator("[data-role=new-game] button[type=submit]").tap()   # far down the page: it scrolls there
    expect(page.locator(STATUS)).to_have_text("White to move")
    page.wait_for_function("window.scrollY === 0")
    assert_on_screen(page, STATUS)
    assert_on_screen(page, "[data-role=board]")
    assert_no_page_overflow(page)
    # Every control a finger taps is 44 px at least; Resign asks first.
    assert_tap_target(page, "[data-role=play-buttons] button, [data-action=rules], .tab")
    page.locator("g[data-vertex='B2:1']").tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(1)
    page.locator("[data-action=resign]").tap()
    expect(page.locator("[data-role=resign-confirm]")).to_have_text(re.compile(r"^Resign this game\?\s+Yes, resign\s+No\s*$"))
    expect(page.locator("[data-action=resign]")).to_be_hidden()
    assert_tap_target(page, "[data-role=resign-confirm] button")
    page.locator("[data-action=resign-no]").tap()
    expect(page.locator(STATUS)).to_have_text("Black to move")
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    # The end: the winner named and marked, and what next, all on screen.
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    expect(page.locator("[data-role=winner]")).to_have_text("White wins")
    expect(page.locator("[data-role=result-why]")).to_have_text("— by resignation (W+R)")
    expect(page.locator("[data-seat=W] [data-role=winner-badge]")).to_have_text("winner")
    expect(page.locator("[data-seat=B] [data-role=winner-badge]")).to_have_count(0)
    for selector in ("[data-role=result-panel]", "[data-action=rematch]", "[data-action=show-new-game]", "[data-role=board]"):
        assert_on_screen(page, selector)
    assert_tap_target(page, "[data-role=result-panel] button, [data-role=result-panel] .button")
    screenshot(page, f"phone-{width}x{height}-result")
    page.locator("[data-action=rematch]").tap()
    expect(page.locator(STATUS)).to_have_text("White to move")
    expect(page.locator("[data-role=result-panel]")).to_be_hidden()
    expect(page.locator("[data-ball]")).to_have_count(0)


def test_legal_points_are_marked_before_a_tap_and_a_refusal_says_why(open_page, live_server) -> None:
    page = open_page(390, 844)
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    for vertex in ("A1:1", "B1:1", "A2:1", "B2:1", "B3:1", "C2:1"):
        page.locator(f"g[data-vertex='{vertex}']").tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(6)
    # White to move (the rules core says so, tests/web/test_web_view.py's frame): A1:2 rests on
    # the four balls and is legal, C1:1 would be suicide. Both are told apart without a hover.
    expect(page.locator("[data-mark=legal]")).to_have_count(1)
    expect(page.locator("g[data-vertex='A1:2'] [data-mark=legal]")).to_have_count(1)
    assert contrast(page, "[data-mark=legal]", ".wood") >= 3
    expect(page.locator("[data-mark=refused]")).to_have_count(1)
    expect(page.locator("g[data-vertex='C1:1'] [data-mark=refused]")).to_have_count(1)
    page.locator("g[data-vertex='C1:1']").tap()
    expect(page.locator(STATUS)).to_have_text("Not at C1:1: this ball would have no freedom and captures nothing")
    expect(page.locator(STATUS)).to_have_attribute("title", "illegal move: C1:1 for WHITE: suicide")
    page.locator("[data-rule=rules-freedoms]").tap()
    expect(page.locator("[data-role=rules]")).to_be_visible()
    expect(page.locator("[data-role=rules] figure[data-ready]")).to_have_count(12)   # the diagrams drawn
    assert_on_screen(page, "#rules-freedoms")
    assert_no_page_overflow(page)
    page.locator("[data-action=close-rules]").tap()
    expect(page.locator("[data-role=rules]")).to_be_hidden()
    # The rules from the header, on the smallest phone too: every section, inside the screen.
    small = open_page(360, 640)
    small.goto(live_server.url)
    small.locator("[data-action=rules]").tap()
    expect(small.locator("[data-role=rules] h3")).to_have_text(
        ["Placing", "Stacking", "Freedoms and capture", "Bridges", "Zombies and buried balls", "Ko: no repeating",
         "The end and the score", "Options of a game"])
    rules = box(small, "[data-role=rules]")
    assert rules["left"] >= 0 and rules["right"] <= 360 and rules["top"] >= 0 and rules["bottom"] <= 640, rules


def test_a_slow_engine_shows_its_clock_and_resign_works_while_it_thinks(open_page, live_server) -> None:
    page = open_page(390, 844)
    page.goto(f"{live_server.url}/?size=7&engine=mcts&human=black&seconds=60")
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^White \(mcts\) is thinking — 1\.\d s of 60 s$"))
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^White \(mcts\) is thinking — 2\.\d s of 60 s$"))
    expect(page.locator("[data-action=resign]")).to_be_enabled()
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    expect(page.locator("[data-role=winner]")).to_have_text("White wins")
    page.wait_for_timeout(1300)   # the clock stopped with the game
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")


@pytest.mark.parametrize("width, height", PHONES)
def test_on_a_phone_the_seats_clocks_and_visits_sit_between_the_status_and_the_board(
        open_page, live_server, width: int, height: int) -> None:
    """The seats (names, clocks, the thinking engine's visits) on screen with the board, on a
    phone too; the board keeps its size while the turn passes back and forth; a window made
    wide puts them back in the side panel, and Replay hides the strip."""
    page = open_page(width, height)
    # 200 s for the game: the engine's share of it, 200 s / 17 moves x 0.9 = 10.59 s, under the
    # 12 s asked, is shown to three digits (two decimals were cut at the phone's edge)
    page.goto(f"{live_server.url}/?size=5&engine=mcts&human=black&seconds=12&clock=200")
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^White \(mcts\) is thinking — \d+\.\d s of 10\.6 s$"))
    assert page.eval_on_selector(STATUS, "e => e.scrollWidth <= e.clientWidth")   # whole, not cut
    expect(page.locator("[data-role=thinking]")).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    for selector in ("[data-role=thinking]", "[data-role=players]", "[data-clock=W]", "[data-clock=B]"):
        assert_on_screen(page, selector)
    status, seats, board = box(page, STATUS), box(page, "[data-role=players]"), box(page, "[data-role=board]")
    assert status["bottom"] <= seats["top"] and seats["bottom"] <= board["top"], (status, seats, board)
    expect(page.locator("[data-seat=W]")).to_have_text(re.compile(r"^White: mcts \d:\d\d$"))
    expect(page.locator("[data-seat=B]")).to_have_text("Black: human 3:20")
    assert seats["height"] <= 48, seats   # two short rows, not the panel's three
    expect(page.locator(STATUS)).to_have_text("Black to move (you)", timeout=30_000)
    expect(page.locator("[data-role=thinking]")).to_have_count(0)
    assert box(page, "[data-role=board]") == board   # the row the visits left is kept
    page.locator("[data-target][data-legal=true]").first.tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(2)
    expect(page.locator("[data-role=thinking]")).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    assert box(page, "[data-role=board]") == board
    assert_no_page_overflow(page)
    page.set_viewport_size({"width": 1280, "height": 800})   # a phone turned into a desktop
    expect(page.locator("aside [data-role=players]")).to_be_visible()
    expect(page.locator("[data-role=players]")).not_to_have_class(re.compile(r"\bstrip\b"))
    page.set_viewport_size({"width": width, "height": height})
    expect(page.locator(".board-area > [data-role=players].strip")).to_be_visible()
    page.locator("[data-tab=replay]").tap()
    expect(page.locator("[data-role=players]")).to_be_hidden()
    page.locator("[data-tab=play]").tap()
    expect(page.locator("[data-role=players]")).to_be_visible()
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    assert box(page, "[data-role=players]")["height"] <= 30   # no engine to think: one row
    assert_on_screen(page, "[data-seat=W] [data-role=winner-badge]")



@pytest.mark.parametrize("width, height", [(640, 360), (844, 390)])
def test_a_phone_on_its_side_puts_the_board_beside_its_controls(open_page, live_server, tmp_path: Path,
                                                                 width: int, height: int) -> None:
    """Landscape: in a column the board was 160 px with the buttons under the fold. The board
    takes the window's height on the left, the status, seats and buttons stand on its right."""
    page = open_page(width, height)
    page.goto(f"{live_server.url}/?size=7&engine=mcts&human=black&seconds=3")
    expect(page.locator("[data-role=thinking]")).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    board = assert_on_screen(page, "[data-role=board]")
    assert board["height"] >= height - 80, board   # the header's 57 px and the margins only
    for selector in (STATUS, "[data-role=players]", "[data-role=thinking]", "[data-action=resign]", "[data-action=undo]"):
        rect = assert_on_screen(page, selector)
        assert rect["left"] >= board["right"], (selector, rect, board)
    assert page.eval_on_selector(STATUS, "e => e.scrollWidth <= e.clientWidth")   # whole, not cut
    assert_no_page_overflow(page)
    assert_tap_target(page, "[data-role=play-buttons] button, .tab")
    expect(page.locator(STATUS)).to_have_text("Black to move (you)", timeout=20_000)
    page.locator("[data-target][data-legal=true]").first.tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(2)
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    assert_on_screen(page, "[data-role=result-panel]")
    assert_on_screen(page, "[data-action=rematch]")
    badge = assert_on_screen(page, "[data-seat=W] [data-role=winner-badge]")
    assert badge["right"] <= box(page, "[data-seat=W]")["right"] + 0.5, badge   # whole, not cut
    assert box(page, "[data-role=board]")["height"] >= height - 80
    screenshot(page, f"landscape-{width}x{height}")
    page.locator("[data-action=result-review]").tap()   # Replay: the board not stuck, its bar beside it
    expect(page.locator("[data-role=ply]")).to_have_text(re.compile(r"^\d+/\d+$"))
    page.locator("[data-action=first]").tap()
    expect(page.locator("[data-role=ply]")).to_have_text(re.compile(r"^0/\d+$"))
    board = assert_on_screen(page, "[data-role=board]")
    assert board["height"] >= height - 80, board
    for selector in (STATUS, "[data-role=replay-bar]", "[data-action=next]"):
        assert assert_on_screen(page, selector)["left"] >= board["right"], selector
    assert_no_page_overflow(page)



def test_a_lost_server_marks_the_board_unplayable_until_it_is_back(open_page, registry, games_dir: Path) -> None:
    from margo_gtp.web.app import create_app
    from margo_gtp.web.store import GameStore
    from web_helpers import LiveServer

    page = open_page(390, 844)
    server = LiveServer(create_app(registry, GameStore(games_dir))).__enter__()
    port = int(server.url.rsplit(":", 1)[1])
    try:
        page.goto(f"{server.url}/?size=5&human=both")
        expect(page.locator(STATUS)).to_have_text("White to move")
        page.locator("g[data-vertex='C3:1']").tap()
        expect(page.locator("[data-role=moves] li")).to_have_count(1)
    finally:
        server.__exit__(None, None, None)
    expect(page.locator(STATUS)).to_have_text("Connection to the server lost: reconnecting…")
    expect(page.locator("[data-role=connection]")).to_have_text("reconnecting…")
    expect(page.locator("[data-role=board]")).to_have_class(re.compile(r"\boffline\b"))
    assert page.eval_on_selector("[data-role=board]", "e => getComputedStyle(e).pointerEvents") == "none"
    board = box(page, "[data-role=board]")
    page.touchscreen.tap(board["left"] + board["width"] * 0.2, board["top"] + board["height"] * 0.8)
    page.wait_for_timeout(300)
    expect(page.locator(STATUS)).to_have_text("Connection to the server lost: reconnecting…")
    with LiveServer(create_app(registry, GameStore(games_dir)), port=port):   # the game comes back from its journal
        expect(page.locator(STATUS)).to_have_text("Black to move", timeout=15_000)
        expect(page.locator("[data-role=board]")).not_to_have_class(re.compile(r"\boffline\b"))
        expect(page.locator("g[data-vertex='C3:1'] [data-ball=W]")).to_have_count(1)
        page.locator("g[data-vertex='B2:1']").tap()
        expect(page.locator("[data-role=moves] li")).to_have_count(2)


def test_watch_tables_fit_their_panel_and_the_phone(open_page, live_server, watch_dir: Path) -> None:
    long_white = "/usr/local/bin/some-very-long-engine-name-with-options --threads 8 --hash 4096"
    long_black = "/opt/engines/another-quite-long-engine-binary-name --level 10"
    lines = [{"game": n, "white": long_white, "black": long_black, "winner_colour": "W", "result": "W+123.5",
              "reason": "no legal move", "move_count": 200, "sgf": f"game-{n:04d}.sgf"} for n in range(1, 4)]
    (watch_dir / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    desktop = open_page(1280, 800, touch=False)
    desktop.goto(f"{live_server.url}/?tab=watch")
    expect(desktop.locator("[data-key='0-1'] td").nth(3)).to_have_text("W+123.5")
    panel = box(desktop, "[data-panel=watch]")
    for selector in ("[data-role=watch-games]", "[data-role=watch-games] tr:first-child th:last-child",
                     "[data-role=crosstable]", "[data-role=ratings]"):
        assert box(desktop, selector)["right"] <= panel["right"] + 0.5, selector
    phone = open_page(390, 844)
    phone.goto(f"{live_server.url}/?tab=watch")
    expect(phone.locator("[data-key='0-1'] td").nth(3)).to_have_text("W+123.5")
    assert_no_page_overflow(phone)
    assert box(phone, "[data-role=watch-games] tr:first-child th:last-child")["right"] <= 390


def test_saved_games_show_their_date_and_a_delete_that_asks_first(open_page, live_server, games_dir: Path) -> None:
    page = open_page(390, 844)
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    page.locator("g[data-vertex='B2:1']").tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(1)
    game = page.evaluate("window.margo.game.game")
    page.locator("[data-tab=replay]").tap()
    item = page.locator(f"[data-role=saved-list] [data-game='{game}']")
    expect(item.locator("[data-resume]")).to_be_visible()
    expect(item.locator("[data-delete]")).to_have_count(0)   # this page's own game: not deleted under it
    page.close()   # abandoned: no page plays it now
    page = open_page(390, 844)
    page.goto(f"{live_server.url}/?tab=replay")
    item = page.locator(f"[data-role=saved-list] [data-game='{game}']")
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime((games_dir / "unfinished" / f"{game}.jsonl").stat().st_mtime))
    expect(item.locator("[data-role=saved-date]")).to_have_text(date)
    expect(item.locator("[data-resume]")).to_contain_text("3×3 human – human: unfinished — resume (1 moves)")
    expect(item.locator("[data-download]")).to_have_count(0)   # only a journal: resumed, Play downloads it
    assert_tap_target(page, "[data-role=saved-list] button")
    item.locator("[data-delete]").tap()
    expect(item.locator("[data-delete]")).to_have_text("Delete for good?")
    assert (games_dir / "unfinished" / f"{game}.jsonl").exists()
    item.locator("[data-delete]").tap()
    expect(page.locator("[data-role=saved-list] li")).to_have_text(["none yet"])
    assert not (games_dir / "unfinished" / f"{game}.jsonl").exists()


@pytest.mark.parametrize("width, height", PHONES)
def test_a_review_on_a_phone_shows_the_board_and_the_mistakes_together(open_page, live_server, tmp_path: Path,
                                                                       width: int, height: int) -> None:
    from test_web_review import GAME, reviewed_text

    page = open_page(width, height)
    page.goto(f"{live_server.url}/?tab=replay")
    path = tmp_path / "game.reviewed.sgf"
    path.write_text(reviewed_text(GAME), encoding="utf-8")
    page.set_input_files("[data-role=sgf-file]", str(path))
    expect(page.locator(STATUS)).to_have_text("game.reviewed.sgf: move 0 of 10")
    rows = page.locator("[data-mistake]")
    expect(rows.first).to_be_visible()
    assert_tap_target(page, "[data-role=replay-bar] button, [data-mistake]")
    row = rows.last
    number = row.get_attribute("data-mistake")
    row.tap()
    expect(page.locator(STATUS)).to_contain_text(f"move {number} of 10")
    assert_on_screen(page, "[data-role=board]")
    assert_on_screen(page, STATUS)
    tapped = assert_on_screen(page, f"[data-mistake='{number}']")
    assert tapped["top"] >= box(page, ".board-area")["bottom"] - 0.5   # not under the board
    assert_no_page_overflow(page)
    assert box(page, "[data-role=ply]")["right"] <= width
    screenshot(page, f"phone-{width}x{height}-review")


def test_the_board_is_played_by_keyboard_and_names_its_points(open_page, live_server) -> None:
    page = open_page(1280, 800, touch=False)
    page.goto(f"{live_server.url}/?size=5&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    page.focus("[data-role=board]")
    expect(page.locator("[data-cursor]")).to_have_attribute("data-cursor", "C3:1")
    expect(page.locator("[data-role=hover]")).to_have_text("C3, level 1, empty, legal")
    for keys, ply in ((["Enter"], 1), (["ArrowLeft", "Enter"], 2), (["ArrowDown", "Enter"], 3), (["ArrowRight", " "], 4)):
        for key in keys:
            page.keyboard.press(key)
        expect(page.locator("[data-role=moves] li")).to_have_count(ply)
    expect(page.locator("[data-role=moves] li")).to_have_text(["W C3:1", "B B3:1", "W B2:1", "B C2:1"])
    expect(page.locator(STATUS)).to_have_text("White to move")   # the arrows moved the cursor, not back in time
    page.keyboard.press("PageUp")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-cursor]")).to_have_attribute("data-cursor", "B2:2")
    expect(page.locator("[data-role=hover]")).to_have_text("B2, level 2, empty, legal")
    page.keyboard.press("Enter")
    expect(page.locator("g[data-vertex='B2:2'] [data-ball=W]")).to_have_count(1)
    expect(page.locator("g[data-vertex='B2:2']")).to_have_attribute("aria-label", "B2, level 2, white")
    expect(page.locator("g[data-vertex='B2:1']")).to_have_attribute("aria-label", "B2, level 1, white")
    expect(page.locator("g[data-vertex='C2:1']")).to_have_attribute("aria-label", "C2, level 1, black")
    expect(page.locator("g[data-vertex='A1:1']")).to_have_attribute("aria-label", "A1, level 1, empty, legal")
    page.keyboard.press("Tab")   # focus gone: the arrows step through the game again
    page.keyboard.press("ArrowLeft")
    expect(page.locator(STATUS)).to_have_text("Looking back: move 4 of 5 (B C2:1) — → or End: back to the game")


def test_dark_mode_title_favicon_and_the_forms_help(browser: Browser, live_server) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/?size=3&engine=random&human=white&seconds=0.05")
        expect(page.locator(STATUS)).to_have_text("White to move (you)")
        expect(page).to_have_title("Your turn — margo-web")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(23, 24, 26)"
        assert page.evaluate("getComputedStyle(document.body).color") == "rgb(230, 227, 220)"
        assert page.eval_on_selector(".panel", "e => getComputedStyle(e).backgroundColor") == "rgb(35, 36, 39)"
        assert page.get_attribute("link[rel=icon]", "href").startswith("data:image/svg+xml,")
        page.click("[data-action=resign]")
        page.click("[data-action=resign-yes]")
        expect(page.locator("[data-role=winner]")).to_have_text("Black wins")
        expect(page).to_have_title("Black wins — margo-web")
        page.click("[data-action=show-new-game]")
        form = page.locator("[data-role=new-game]")
        expect(form.locator("[data-role=hint-ko-position]")).to_have_text(
            "what counts as a repeated position: full every ball, top_view only the balls seen from above (buried ones ignored)")
        expect(form.locator("[data-role=hint-own-freedomless]")).to_have_text(
            "when your move leaves another of your own groups without a freedom: capture takes it off, illegal forbids the move")
        expect(form.locator("fieldset [name=allow_pass]")).to_have_count(0)   # passing is not folded into the rules
        expect(form.locator("[name=allow_pass]")).to_be_visible()
    finally:
        context.close()


def test_a_long_replay_on_the_smallest_phone_keeps_its_bar_inside(open_page, live_server) -> None:
    page = open_page(360, 640)
    page.goto(f"{live_server.url}/?tab=replay")
    page.set_input_files("[data-role=sgf-file]", str(Path(__file__).resolve().parents[1] / "data" / "random_19x19_3000_moves.sgf"))
    expect(page.locator(STATUS)).to_have_text("random_19x19_3000_moves.sgf: move 0 of 3000")
    page.locator("[data-action=last]").tap()
    expect(page.locator("[data-role=ply]")).to_have_text("3000/3000")
    for selector in (STATUS, "[data-role=board]", "[data-role=replay-bar]", "[data-role=ply]"):
        assert_on_screen(page, selector)
    assert_tap_target(page, "[data-role=replay-bar] button")
    assert_no_page_overflow(page)


@pytest.mark.parametrize("width, height", PHONES)
def test_the_result_panel_reviews_and_downloads_the_game(open_page, live_server, width: int, height: int) -> None:
    from margo_gtp import sgf

    page = open_page(width, height)
    page.goto(f"{live_server.url}/?size=5&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    for vertex in ("C3:1", "B2:1", "C2:1", "B3:1"):
        page.locator(f"g[data-vertex='{vertex}']").tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(4)
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator("[data-role=winner]")).to_have_text("Black wins")
    for selector in ("[data-action=result-review]", "[data-role=result-download]"):
        assert_on_screen(page, selector)
    # Download SGF: the game as it ended.
    record = sgf.loads(page.request.get(live_server.url + page.get_attribute("[data-role=result-download]", "href")).text())
    assert [f"{colour.letter} {move.gtp()}" for colour, move in record.moves] == [
        "W C3:1", "B B2:1", "W C2:1", "B B3:1"]   # a resignation is the result, not a move
    assert record.result == "B+R"
    # Review: the game reviewed in Replay, its board and status on the screen.
    page.locator("[data-action=result-review]").tap()
    expect(page.locator("[data-tab=replay]")).to_have_class("tab active")
    expect(page.locator("[data-role=review-progress]")).to_have_text("Reviewed: 4 moves at 200 visits")
    expect(page.locator(STATUS)).to_contain_text("this game: move 4 of 4 (B B3:1)")
    assert_on_screen(page, STATUS)
    assert_on_screen(page, "[data-role=board]")
    assert_no_page_overflow(page)


@pytest.mark.parametrize("width, height, touch", FOUR_SIZES)
def test_a_whole_5x5_game_is_played_by_keyboard(open_page, live_server, width: int, height: int, touch: bool) -> None:
    """White by keyboard against random, from the first move to the result, at the four sizes
    of issue #37: each turn the arrows and Page Up/Down take the cursor to a point the board
    names legal, and Enter plays it; the result panel comes in view."""
    page = open_page(width, height, touch=touch)
    page.goto(f"{live_server.url}/?size=5&engine=random&human=white&seconds=0.05")
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    page.focus("[data-role=board]")
    for _ in range(200):
        if page.locator("[data-role=result-panel]").is_visible():
            break
        legal = page.eval_on_selector_all("g[data-vertex]", "els => els.filter(e => (e.getAttribute('aria-label') || '')"
                                          ".endsWith(', legal')).map(e => e.dataset.vertex)")
        target = sorted(legal, key=lambda v: -int(v.split(":")[1]))[0]   # the highest level: stacking too
        name, level = target.split(":")
        move_cursor_to(page, target)
        expect(page.locator("[data-role=hover]")).to_have_text(re.compile(rf"^{name}, level {level}, empty, legal$"))
        played = page.locator("[data-role=moves] li").count()
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.querySelectorAll('[data-role=moves] li').length >= {played + 2} || "
                               "!document.querySelector('[data-role=result-panel]').hidden")
        expect(page.locator("[data-role=moves] li").nth(played)).to_have_text(f"W {target}")
        if not page.locator("[data-role=result-panel]").is_visible():
            expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-role=result-panel]")).to_be_visible()
    # random is seeded (web_helpers.engine_commands), so the game is the same each time: White
    # stacks as soon as it may, and the board fills until the side to move has no move.
    expect(page.locator("[data-role=moves] li")).to_have_text([
        "W A5:1", "B A3:1", "W B5:1", "B E1:1", "W C5:1", "B E3:1", "W D5:1", "B B1:1", "W E5:1", "B D1:1", "W A4:1",
        "B E4:1", "W B4:1", "B C3:1", "W A4:2", "B C1:1", "W C4:1", "B E2:1", "W B4:2", "B A1:1", "W D4:1", "B B3:1",
        "W C4:2", "B D2:1", "W D4:2", "B A2:1", "W A3:2", "B B2:1", "W B3:2", "B D1:2", "W A3:3", "B A2:2"])
    expect(page.locator("[data-role=winner]")).to_have_text("Draw")
    expect(page.locator("[data-role=result-why]")).to_have_text("— the player to move had no legal move left (0)")
    assert_on_screen(page, "[data-role=result-panel]")
    assert_no_page_overflow(page)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_balls_and_marks_keep_a_contrast_of_3_to_1_on_the_board(open_page, live_server, dark: bool) -> None:
    """Issue 37 item 10, in both colour schemes (the board keeps its wood in dark mode): a white
    ball's edge, a black ball, the dots and crosses of the points, the last move's square and a
    zombie's cross on a ball of either colour. They were 1.9:1 (a white ball's edge, the dots of
    the other side's turn), 2.6:1 (a refused point's cross), 2.7:1 (the cross on a black ball)
    and 2.0:1 (dark mode's pink cross on a white ball)."""
    page = open_page(1280, 800, touch=False, dark=dark)
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    # The rules page's zombie diagram played on the board: Black's A1 and B1 stay as zombies.
    for vertex in ("A2:1", "A1:1", "B2:1", "B1:1", "A1:2", "C3:1", "C1:1"):
        page.locator(f"g[data-vertex='{vertex}']").click()
    expect(page.locator("[data-zombie]")).to_have_count(2)
    expect(page.locator("g[data-vertex='A1:1']")).to_have_attribute("aria-label", "A1, level 1, black, zombie")
    colours = page.evaluate("""() => {
        const svg = document.querySelector("[data-role=board]");
        const style = (selector) => getComputedStyle(svg.querySelector(selector));
        const probe = (cls) => {   // a mark this position does not show, drawn for its stylesheet colour
            const e = document.createElementNS("http://www.w3.org/2000/svg", "circle");
            e.setAttribute("class", cls); svg.appendChild(e);
            const s = getComputedStyle(e); const out = {fill: s.fill, stroke: s.stroke}; e.remove(); return out;
        };
        const base = (colour, level) => getComputedStyle(svg.querySelector(`#ball-${colour}-${level} stop[offset="55%"]`)).stopColor;
        return {
            wood: style(".wood").fill, whiteEdge: style(".ball-W").stroke, white: base("W", 0), black: base("B", 0),
            whiteTop: base("W", 4), blackTop: base("B", 4),
            cross: style("g[data-vertex='A1:1'] .zombie-mark").stroke,
            halo: style("g[data-vertex='A1:1'] .zombie-halo").stroke,
            last: style("[data-last]").fill, lastOnBlack: probe("last-mark last-mark-B"), slot: probe("slot").fill, legal: probe("slot slot-legal").fill,
            refused: probe("refused-mark").stroke,
        };
    }""")
    wood = colours["wood"]
    assert wood == "rgb(220, 180, 108)"   # the board's wood, in dark mode too
    for name in ("whiteEdge", "black", "slot", "legal", "refused"):
        assert ratio(colours[name], wood) >= 3, (name, colours[name], ratio(colours[name], wood))
    # A zombie's cross: red on a white ball, red on a white halo on a black one.
    assert colours["cross"] == "rgb(179, 38, 30)", colours["cross"]
    for ball in ("white", "whiteTop"):
        assert ratio(colours["cross"], colours[ball]) >= 3, (ball, ratio(colours["cross"], colours[ball]))
    assert ratio(colours["cross"], colours["halo"]) >= 3 and ratio(colours["halo"], colours["black"]) >= 3
    assert ratio(colours["halo"], colours["blackTop"]) >= 3
    # The last move's square: on a white ball (White played C1), and edged in white on a black one.
    expect(page.locator("g[data-vertex='C1:1'] [data-last]")).to_have_count(1)
    for ball in ("white", "whiteTop"):
        assert ratio(colours["last"], colours[ball]) >= 3, (ball, ratio(colours["last"], colours[ball]))
    on_black = colours["lastOnBlack"]
    assert ratio(on_black["fill"], on_black["stroke"]) >= 3
    assert ratio(on_black["stroke"], colours["black"]) >= 3 and ratio(on_black["stroke"], colours["blackTop"]) >= 3
    expect(page.locator("g[data-vertex='A1:2'] [data-zombie]")).to_have_count(0)
    expect(page.locator(".zombie-halo")).to_have_count(2)   # on the black balls only: red on white is 3.6:1


def test_a_finished_saved_game_downloads_its_record(open_page, live_server) -> None:
    from margo_gtp import sgf

    page = open_page(360, 640)
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    page.locator("g[data-vertex='B2:1']").tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(1)
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    game = page.evaluate("window.margo.game.game")
    page.locator("[data-tab=replay]").tap()
    item = page.locator(f"[data-role=saved-list] [data-game='{game}']")
    expect(item.locator("[data-saved]")).to_contain_text("3×3 human – human: W+R (1 moves)")
    link = item.locator("[data-download]")
    expect(link).to_have_text("Download")
    assert link.get_attribute("href") == f"/api/games/{game}.sgf"
    assert_tap_target(page, "[data-role=saved-list] [data-download]")
    record = sgf.loads(page.request.get(live_server.url + link.get_attribute("href")).text())
    assert ([f"{colour.letter} {move.gtp()}" for colour, move in record.moves], record.result) == (["W B2:1"], "W+R")
    assert_no_page_overflow(page)
