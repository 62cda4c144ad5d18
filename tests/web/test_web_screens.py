"""What the screenshots of every mode showed (issue #37; ``scripts/web-screenshots`` writes them
to docs/img/), each fix held by what a player sees in Debian's Chromium:

* a refusal's "Why? Read the rule" is a 44 px target on a phone, and its coming moves nothing;
* a phone's stuck board in Replay keeps its size whatever the scroll, and at least 30% of the
  screen's height (its rows left it 160 px at 360x640);
* the thinking engine's status is whole on the smallest phone;
* dark mode's own colours win over the light ones written after them, and a live game's
  badge is readable in it.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402

from margo_gtp.engine import Rules  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
PHONES = [pytest.param(360, 640, id="360x640"), pytest.param(390, 844, id="390x844")]
TOUCH_TARGET = 44
# A 5x5 game, White first (tests/web/test_web_variation.py's): ten moves to replay.
GAME = ("(;FF[4]GM[77]SZ[5]KM[0.5]PW[alice]PB[bob]\n"
        ";W[cc:1];B[bd:1];W[cd:1];B[bc:1];W[db:1];B[bb:1];W[cb:1];B[dd:1];W[be:1];B[ad:1])")


def rect(page: Page, selector: str) -> dict:
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")


def assert_fits(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def colour(page: Page, selector: str, prop: str = "color") -> str:
    return page.eval_on_selector(selector, f"e => getComputedStyle(e).{prop}")


def open_record(page: Page, url: str, folder: Path, text: str = GAME) -> None:
    path = folder / "game.sgf"
    path.write_text(text, encoding="utf-8")
    page.goto(f"{url}/?tab=replay")
    page.set_input_files("[data-role=sgf-file]", str(path))
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 0 of 10")


@pytest.mark.parametrize("width, height", PHONES)
def test_a_refusals_rule_link_is_a_finger_sized_target_that_moves_nothing(open_page, live_server, width: int,
                                                                         height: int) -> None:
    page = open_page(width, height)
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    for vertex in ("A1:1", "B1:1", "A2:1", "B2:1", "B3:1", "C2:1"):
        page.locator(f"g[data-vertex='{vertex}']").tap()
    expect(page.locator("[data-role=moves] li")).to_have_count(6)
    board, row = rect(page, "[data-role=board]"), rect(page, "[data-role=hover]")
    page.locator("g[data-vertex='C1:1']").tap()   # suicide: refused, with the rule's link under the board
    expect(page.locator(STATUS)).to_have_text("Not at C1:1: this ball would have no freedom and captures nothing")
    link = page.locator("[data-role=hover] a[data-rule=rules-freedoms]")
    expect(link).to_have_text("Why? Read the rule")
    # The board and the row stay where they were: the link's box reaches over the gaps around its row.
    assert rect(page, "[data-role=board]") == board
    assert rect(page, "[data-role=hover]") == row
    target = rect(page, "[data-role=hover] a[data-rule]")
    assert target["height"] >= TOUCH_TARGET - 0.5 and target["width"] >= TOUCH_TARGET, target
    assert target["top"] >= 0 and target["bottom"] <= height, target
    # ... over no point of the board, and over none of the buttons under it.
    lowest_point = page.evaluate("Math.max(...[...document.querySelectorAll('[data-role=board] .hit')]"
                                 ".map(e => e.getBoundingClientRect().bottom))")
    assert target["top"] >= lowest_point, (target, lowest_point)
    first_button = rect(page, "[data-role=play-buttons] button:not([hidden])")
    assert target["bottom"] <= first_button["top"], (target, first_button)
    # A tap on the link's top edge, outside its words, is the link's: the rules open at the rule.
    x, y = target["left"] + target["width"] / 2, target["top"] + 2
    assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).dataset.rule", [x, y]) == "rules-freedoms"
    page.touchscreen.tap(x, y)
    expect(page.locator("[data-role=rules]")).to_be_visible()
    assert_fits(page)


@pytest.mark.parametrize("width, height", PHONES)
def test_a_phones_stuck_board_keeps_its_size_whatever_the_scroll(open_page, live_server, tmp_path: Path, width: int,
                                                                  height: int) -> None:
    page = open_page(width, height)
    open_record(page, live_server.url, tmp_path)
    page.locator("[data-action=next]").tap()
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 1 of 10 (W C3:1)")
    board = rect(page, "[data-role=board]")
    # At least 30% of the screen's height (the rows under it left 160 px at 360x640), no more
    # than its status and rows leave of 55%, and the stuck part leaves 30% of the screen to
    # the review and the lists under it.
    stuck = rect(page, ".board-area")
    rows = page.evaluate("(() => { const shown = [...document.querySelector('.board-area').children].filter(e => !e.hidden);"
                         " return shown.at(-1).getBoundingClientRect().bottom - shown[0].getBoundingClientRect().top; })()"
                         ) - board["height"]   # the status and the rows under the board
    assert board["height"] >= math.floor(0.30 * height), board
    assert board["height"] <= max(0.55 * height - rows, 0.30 * height) + 1, (board, rows)
    assert stuck["height"] <= 0.7 * height, stuck
    # The side line's three buttons share one row under its words.
    tops = page.eval_on_selector_all("[data-role=try-bar] button", "els => els.map(e => e.getBoundingClientRect().top)")
    assert len(tops) == 3 and max(tops) - min(tops) < 1, tops
    # Scrolled down to the saved games, a step forward draws the board again: the same size,
    # stuck at the top with its status.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("window.scrollY > 300")
    page.locator("[data-action=next]").tap()
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 2 of 10 (B B2:1)")
    after = rect(page, "[data-role=board]")
    assert (after["width"], after["height"]) == (board["width"], board["height"]), (board, after)
    assert rect(page, STATUS)["top"] == 0
    assert after["bottom"] <= height
    assert_fits(page)


def test_the_thinking_status_is_whole_on_the_smallest_phone(open_page, live_server) -> None:
    page = open_page(360, 640)
    page.goto(f"{live_server.url}/?size=7&engine=mcts&human=black&seconds=30")
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^White \(mcts\) is thinking — \d+\.\d s of 30 s$"))
    assert page.eval_on_selector(STATUS, "e => e.scrollWidth <= e.clientWidth"), rect(page, STATUS)
    page.locator("[data-action=resign]").tap()   # no engine left searching for 30 s
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")


def test_dark_modes_own_colours_win_over_the_light_ones(open_page, live_server, tmp_path: Path, watch_dir: Path) -> None:
    """Dark mode's rules came first in style.css, so the light rules of the same weight written
    after them won: a pale graph, dark-brown notes and inaccuracies, white on pale red."""
    from test_web_review import reviewed_text

    page = open_page(390, 844, dark=True)
    open_record(page, live_server.url, tmp_path, reviewed_text(GAME))
    expect(page.locator("[data-role=review-progress]")).to_have_text("Review read from the SGF (10 of 10 moves)")
    assert colour(page, "[data-role=game-info] .note") == "rgb(224, 166, 64)"
    assert colour(page, "[data-role=mistakes] .judgement-inaccuracy") == "rgb(224, 166, 64)"
    assert colour(page, "[data-role=review-graph] .graph-bg", "fill") == "rgb(42, 43, 46)"
    assert colour(page, "[data-role=review-graph] .graph-label", "fill") == "rgb(181, 177, 168)"
    page.locator("[data-role=slider]").fill("4")
    expect(page.locator("g[data-vertex='B2:2'] [data-target][data-legal=true]")).to_have_count(1)
    page.locator("g[data-vertex='B2:2']").tap()   # a side line: its words in dark mode's orange
    expect(page.locator("[data-role=variation-text]")).to_have_text("Variation: 1 move")
    assert colour(page, "[data-role=variation-text]") == "rgb(251, 146, 60)"
    page.locator("g[data-vertex='C3:1']").tap()   # refused: dark text on the pale red
    expect(page.locator(STATUS)).to_have_text("Not at C3:1: a ball is already there")
    assert colour(page, STATUS) == "rgb(26, 0, 0)"
    assert colour(page, STATUS, "backgroundColor") == "rgb(255, 138, 128)"
    # Watch: a live game's badge, dark text on the same pale red (white on it was 2:1).
    live = watch_dir / "live"
    live.mkdir()
    (live / "game-0001.jsonl").write_text(json.dumps(
        {"type": "start", "game": 1, "black": "heuristic", "white": "random", "size": 4, "rules": Rules(size=4).options(),
         "setup": []}) + "\n", encoding="utf-8")
    page.locator("[data-tab=watch]").tap()
    expect(page.locator("[data-key='0-1'] .live-badge")).to_have_text("live")
    assert colour(page, "[data-key='0-1'] .live-badge") == "rgb(26, 0, 0)"
    assert colour(page, "[data-key='0-1'] .live-badge", "backgroundColor") == "rgb(255, 138, 128)"


@pytest.mark.parametrize("width, height", PHONES)
def test_the_new_game_form_and_its_rule_options_are_finger_sized(open_page, live_server, width: int,
                                                                height: int) -> None:
    """The presets' screenshot showed the form's lists and boxes 19 px tall, its checkboxes 13 px
    and Start 31 px, on a phone where everything else a finger taps is 44 px."""
    page = open_page(width, height)
    page.goto(live_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    page.locator("[data-role=rule-options] > summary").tap()
    expect(page.locator("[data-role=new-game] [name=ko_rule]")).to_be_visible()
    targets = ("[data-role=new-game-box] > summary, [data-role=new-game] select, [data-role=new-game] input[type=number], "
               "[data-role=new-game] button, [data-role=new-game] label:has(> input[type=checkbox]), "
               "[data-role=rule-options] > summary, .view-options select, .view-options label:has(> input[type=checkbox]), "
               "label.toggle, [data-action=review-game], [data-action=guided-game]")
    sizes = page.eval_on_selector_all(targets, "els => els.filter(e => e.offsetParent).map(e => {"
                                      " const r = e.getBoundingClientRect();"
                                      " return [e.name || e.textContent.trim().slice(0, 16), r.width, r.height]; })")
    # The form's 9 lists, 5 numbers, 5 ticks, Start and 2 summaries; the view options' 3; Analysis,
    # Review this game and Guided first game.
    assert len(sizes) == 28, sizes
    small = [size for size in sizes if size[1] < TOUCH_TARGET - 0.5 or size[2] < TOUCH_TARGET - 0.5]
    assert small == [], small
    # A tick's words tick it, its box's top edge too: the label is the target. (The designer's
    # rules without swap are Spargo's options.)
    page.locator("[data-role=new-game] label:has(> [name=swap])").tap(position={"x": 120, "y": 2})
    expect(page.locator("[data-role=new-game] [name=preset]")).to_have_value("spargo")
    assert not page.locator("[data-role=new-game] [name=swap]").is_checked()
    # The lists write at the page's size, and the legend the summary repeats is for screen readers only.
    assert colour(page, "[data-role=new-game] [name=preset]", "fontSize") == "15px"
    legend = rect(page, "[data-role=rule-options] legend")
    assert (legend["width"], legend["height"]) == (1, 1), legend
    expect(page.get_by_role("group", name="Rule options")).to_have_count(1)
    assert_fits(page)


@pytest.mark.parametrize("width, height", PHONES)
def test_the_replays_slider_and_move_list_are_finger_sized(open_page, live_server, tmp_path: Path, width: int,
                                                          height: int) -> None:
    """The slider was 16 px tall and a move of the list 19 px, under buttons of 44."""
    page = open_page(width, height)
    open_record(page, live_server.url, tmp_path)
    slider = rect(page, "[data-role=slider]")
    assert slider["height"] >= TOUCH_TARGET - 0.5 and slider["width"] >= 2 * TOUCH_TARGET, slider
    rows = page.eval_on_selector_all("[data-role=moves] li", "els => els.map(e => e.getBoundingClientRect().height)")
    assert len(rows) == 10 and min(rows) >= TOUCH_TARGET - 0.5, rows
    page.locator("[data-role=moves] li").nth(3).tap()
    expect(page.locator(STATUS)).to_have_text("game.sgf: move 4 of 10 (B B3:1)")
    expect(page.locator("[data-role=moves] li").nth(3)).to_have_text("B B3:1")
    assert_fits(page)


@pytest.mark.parametrize("width, height", PHONES)
def test_a_watched_game_is_a_finger_sized_row(open_page, live_server, watch_dir: Path, width: int, height: int) -> None:
    """A row of the games table, which a tap shows, was 25 px tall with short engine names."""
    from margo_gtp import sgf

    (watch_dir / "game-0001.sgf").write_text(GAME, encoding="utf-8")
    line = {"game": 1, "white": "heuristic", "black": "random", "winner_colour": "W", "result": "W+R",
            "reason": "resignation", "move_count": 10, "sgf": "game-0001.sgf"}
    (watch_dir / "results.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert len(sgf.loads(GAME).moves) == 10
    page = open_page(width, height)
    page.goto(f"{live_server.url}/?tab=watch")
    row = page.locator("[data-key='0-1']")
    expect(row.locator("td")).to_have_text(["1", "heuristic", "random", "W+R"])
    size = row.bounding_box()
    assert size["height"] >= TOUCH_TARGET - 0.5, size
    row.tap()
    expect(page.locator(STATUS)).to_have_text("game 1: heuristic – random: move 10 of 10 (B A2:1) — result W+R")
    # ... whole, on two lines: on one it was cut after "move 10 of …", with the rest in a tooltip
    # that a finger cannot show. The board stays stuck under it at its size.
    status = rect(page, STATUS)
    assert page.eval_on_selector(STATUS, "e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight")
    assert status["height"] < 3 * 24, status
    assert rect(page, "[data-role=board]")["height"] >= math.floor(0.30 * height)
    assert_fits(page)


@pytest.mark.parametrize("width, height", [pytest.param(1280, 800, id="1280x800"), pytest.param(1920, 1080, id="1920x1080")])
def test_a_game_its_result_its_review_and_watch_stay_in_view_on_a_desktop(open_page, live_server, watch_dir: Path,
                                                                         width: int, height: int) -> None:
    """The issue's items at the desktop sizes, as a player goes through them: a game against an
    engine, its result panel, its review from that panel, and a watched game; at each the
    board, the status and what to do next are in the window, and nothing is wider than it."""
    page = open_page(width, height, touch=False)
    page.goto(f"{live_server.url}/?size=5&engine=random&human=white&seconds=0.05")
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    for ply in (2, 4):   # White's move and random's answer
        page.locator("[data-target][data-legal=true]").first.click()
        expect(page.locator("[data-role=moves] li")).to_have_count(ply)
        expect(page.locator(STATUS)).to_have_text("White to move (you)")
    for selector in (STATUS, "[data-role=board]", "[data-action=resign]", "[data-role=players]"):
        assert_in_view(page, selector)
    page.click("[data-action=resign]")
    page.click("[data-action=resign-yes]")
    expect(page.locator("[data-role=winner]")).to_have_text("Black wins")
    for selector in (STATUS, "[data-role=board]", "[data-role=result-panel]", "[data-action=rematch]",
                     "[data-action=result-review]", "[data-role=result-download]"):
        assert_in_view(page, selector)
    assert_fits(page)
    page.click("[data-action=result-review]")
    expect(page.locator("[data-role=review-progress]")).to_have_text("Reviewed: 4 moves at 200 visits")
    for selector in (STATUS, "[data-role=board]", "[data-role=review-graph]", "[data-role=replay-bar]"):
        assert_in_view(page, selector)
    assert_fits(page)
    (watch_dir / "game-0001.sgf").write_text(GAME, encoding="utf-8")
    (watch_dir / "results.jsonl").write_text(json.dumps(
        {"game": 1, "white": "heuristic", "black": "random", "winner_colour": "W", "result": "W+R",
         "reason": "resignation", "move_count": 10, "sgf": "game-0001.sgf"}) + "\n", encoding="utf-8")
    page.click("[data-tab=watch]")
    page.click("[data-key='0-1']")
    expect(page.locator(STATUS)).to_have_text("game 1: heuristic – random: move 10 of 10 (B A2:1) — result W+R")
    for selector in (STATUS, "[data-role=board]", "[data-role=watch-games]", "[data-role=replay-bar]"):
        assert_in_view(page, selector)
    assert_fits(page)


def assert_in_view(page: Page, selector: str) -> None:
    box = rect(page, selector)
    size = page.viewport_size
    assert box["top"] >= 0 and box["left"] >= 0, (selector, box)
    assert box["bottom"] <= size["height"] + 0.5 and box["right"] <= size["width"] + 0.5, (selector, box, size)
