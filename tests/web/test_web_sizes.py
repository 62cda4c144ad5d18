"""Issue #37's items at each of the four sizes of its target (web_helpers.FOUR_SIZES: 360x640 and
390x844 with touch, 1280x800 and 1920x1080), in Debian's Chromium.

One walk a player takes, in one browser context per size, so that the browser and the server
start once: the setup in words, the guided first game, a game started from the form, the legal
marks and a refusal with its rule, the board by keyboard and its points' names, Resign that
asks, the result panel, the review, a replay step, a side line and Play from here, the saved
games, the level digits of a crowded 9x9 record, the Watch tables, an engine thinking, the
title, the move sound, dark mode's colours and a lost server. At each step it asserts what
the player sees: boxes in the window, tap targets of 44 px on touch, no page wider than the
window, exact texts and computed colours. The other tests of tests/web/ hold each item in
depth, some at fewer sizes; docs/web.md's coverage table says which test holds which item at
which size.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import ENGINE, FOUR_SIZES, PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402

from web_helpers import LiveServer, contrast_ratio as ratio, engine_commands  # noqa: E402
from web_helpers import move_cursor_to as move_cursor_along  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
BOARD = "[data-role=board]"
MOVES = "[data-role=moves] li"
TOUCH_TARGET = 44
#: The review graph's height: 80 px on a phone, clamp(80px, 28vh - 40px, 260px) on a desktop.
GRAPH_HEIGHT = {360: 80, 390: 80, 1280: 184, 1920: 260}
DESIGNER_WORDS = ("Cameron Browne's own rules, on his 7×7 board: White starts, and Black may swap colours instead of "
                  "its first move. No passing, and no position may ever come back. When the player to move has no "
                  "legal move, the side with more balls on the board wins.")
START_HINT = ("You play White and move first. Click or tap a point to place a ball. A group with no empty point next to "
              "it is captured, so keep your balls together and surround Black's.")
HEADINGS = ["Placing", "Stacking", "Freedoms and capture", "Bridges", "Zombies and buried balls", "Ko: no repeating",
            "The end and the score", "Options of a game"]
# A 5x5 game, White first (tests/web/test_web_screens.py's), watched as game 1 of a match folder.
WATCHED = ("(;FF[4]GM[77]SZ[5]KM[0.5]PW[heuristic]PB[random]\n"
           ";W[cc:1];B[bd:1];W[cd:1];B[bc:1];W[db:1];B[bb:1];W[cb:1];B[dd:1];W[be:1];B[ad:1])")
LONG_WHITE = "/usr/local/bin/some-very-long-engine-name-with-options --threads 8 --hash 4096"
LONG_BLACK = "/opt/engines/another-quite-long-engine-binary-name --level 10"


# -- what a player sees ----------------------------------------------------------------------

def rect(page: Page, selector: str) -> dict:
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")


def in_view(page: Page, *selectors: str) -> None:
    """Each element whole inside the window."""
    size = page.viewport_size
    for selector in selectors:
        box = rect(page, selector)
        assert box["top"] >= -0.5 and box["left"] >= -0.5, (selector, box)
        assert box["bottom"] <= size["height"] + 0.5 and box["right"] <= size["width"] + 0.5, (selector, box, size)


def fits(page: Page) -> None:
    """No horizontal overflow: the page is no wider than the window (a phone would zoom out)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def finger_sized(page: Page, selector: str) -> None:
    """Every shown element of ``selector`` is at least 44 px each way (there is one at least)."""
    sizes = page.eval_on_selector_all(selector, "els => els.filter(e => e.offsetParent).map(e => {"
                                      " const r = e.getBoundingClientRect(); return [e.textContent.trim().slice(0, 20),"
                                      " r.width, r.height]; })")
    assert sizes, selector
    small = [size for size in sizes if size[1] < TOUCH_TARGET - 0.5 or size[2] < TOUCH_TARGET - 0.5]
    assert small == [], (selector, small)


def move_cursor_to(page: Page, target: str) -> None:
    """The board's keyboard cursor taken to ``target`` ("A1:2"), and seen there."""
    move_cursor_along(page, target)
    expect(page.locator("[data-cursor]")).to_have_attribute("data-cursor", target)


# -- the walk, one step a function -------------------------------------------------------------

def the_setup_speaks_words(page: Page, url: str, touch: bool, labels: dict[str, str]) -> None:
    """Item 3: the opponent chosen by level with its measured strength, the rules as presets in words."""
    page.goto(url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    expect(page).to_have_title("margo-web")
    assert page.get_attribute("link[rel=icon]", "href").startswith("data:image/svg+xml,")   # item 11: a favicon
    form = page.locator("[data-role=new-game]")
    black = form.locator("[name=black]")
    expect(black.locator("option")).to_have_text(["human", labels["strongest"], labels["level-1"], "random", "mcts"])
    assert black.input_value() == "strongest"
    expect(form.locator("[name=preset]")).to_have_value("designer")
    expect(form.locator("[name=preset] option")).to_have_text(["the designer's rules", "Jocly's", "Ludii's Spargo", "custom"])
    expect(form.locator("[data-role=preset-words]")).to_have_text(DESIGNER_WORDS)
    expect(form.locator("[name=ko_rule]")).to_be_hidden()   # the options folded away
    expect(form.locator("[name=allow_pass]")).to_be_visible()
    expect(form.locator("fieldset [name=allow_pass]")).to_have_count(0)
    if touch:
        finger_sized(page, "[data-role=new-game] select, [data-role=new-game] button, [data-role=rule-options] > summary, "
                           ".tab, [data-action=rules], [data-action=guided-game]")
    fits(page)


def the_guided_first_game(page: Page, hit, touch: bool) -> None:  # noqa: ANN001
    """Item 2: the optional guided first game, its hint between the status and the board."""
    hit("[data-action=guided-game]")
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-seat=B]")).to_have_text("Black: level-1")
    expect(page.locator("[data-role=guide]")).to_have_attribute("data-hint", "start")
    expect(page.locator("[data-role=guide-text]")).to_have_text(START_HINT)
    page.wait_for_function("window.scrollY === 0")
    in_view(page, STATUS, "[data-role=guide]", BOARD)
    if touch:
        finger_sized(page, "[data-role=guide] button, [data-role=guide] a")
    fits(page)
    hit("[data-action=guide-off]")
    expect(page.locator("[data-role=guide]")).to_be_hidden()


def a_game_from_the_form_with_zombies(page: Page, url: str, hit, touch: bool) -> str:  # noqa: ANN001
    """Item 1: Start leaves the status and the board in view; item 10: a zombie is named, not only
    drawn, and the zombie outline of the per-level grids keeps 3:1 on the balls and the panel, in
    both schemes. Returns the game's id: it is left unfinished."""
    page.goto(url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    form = page.locator("[data-role=new-game]")
    form.locator("[name=size]").select_option("3")
    form.locator("[name=white]").select_option("human")
    form.locator("[name=black]").select_option("human")
    hit("[data-role=new-game] button[type=submit]")
    expect(page.locator(STATUS)).to_have_text("White to move")
    page.wait_for_function("window.scrollY === 0")
    in_view(page, STATUS, BOARD)
    if touch:
        finger_sized(page, "[data-role=play-buttons] button")
    # The rules page's zombie diagram played on the board: Black's A1 and B1 stay as zombies.
    for ply, vertex in enumerate(("A2:1", "A1:1", "B2:1", "B1:1", "A1:2", "C3:1", "C1:1"), 1):
        hit(f"g[data-vertex='{vertex}']")
        expect(page.locator(MOVES)).to_have_count(ply)
    in_view(page, STATUS, BOARD)
    expect(page.locator("[data-zombie]")).to_have_count(2)
    expect(page.locator("g[data-vertex='A1:1']")).to_have_attribute("aria-label", "A1, level 1, black, zombie")
    expect(page.locator(".slice-zombie")).to_have_count(2)
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)
        colours = page.evaluate("""() => {
            const style = (selector) => getComputedStyle(document.querySelector(selector));
            let panel = document.querySelector(".slice-zombie").closest(".slices");
            while (getComputedStyle(panel).backgroundColor === "rgba(0, 0, 0, 0)") panel = panel.parentElement;
            return {outline: style(".slice-zombie").stroke, black: style(".slice-B").fill, white: style(".slice-W").fill,
                    panel: getComputedStyle(panel).backgroundColor, body: style("body").backgroundColor,
                    wood: style(".wood").fill};
        }""")
        for against in ("black", "white", "panel"):
            assert ratio(colours["outline"], colours[against]) >= 3, (scheme, against, colours)
        assert colours["wood"] == "rgb(220, 180, 108)", colours   # the board keeps its wood in dark mode
        assert colours["body"] == ("rgb(23, 24, 26)" if scheme == "dark" else "rgb(244, 241, 234)"), colours
        assert colours["panel"] == ("rgb(35, 36, 39)" if scheme == "dark" else "rgb(255, 255, 255)"), colours
    return page.evaluate("window.margo.game.game")


def marks_a_refusal_the_keyboard_and_the_result(page: Page, url: str, hit, touch: bool) -> str:  # noqa: ANN001
    """Items 2, 10, 1 and 5: legal marks before a tap, a refusal in a sentence with its rule, the
    board played by keyboard with its points named, Resign that asks, and the result panel.
    Returns the game's id: it ends by resignation."""
    page.goto(f"{url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    for ply, vertex in enumerate(("A1:1", "B1:1", "A2:1", "B2:1", "B3:1", "C2:1"), 1):
        hit(f"g[data-vertex='{vertex}']")
        expect(page.locator(MOVES)).to_have_count(ply)
    in_view(page, STATUS, BOARD)
    # White to move: A1:2 rests on the four balls and is legal, C1:1 would be suicide; both shown untouched.
    expect(page.locator("[data-mark=legal]")).to_have_count(1)
    expect(page.locator("g[data-vertex='A1:2'] [data-mark=legal]")).to_have_count(1)
    expect(page.locator("[data-mark=refused]")).to_have_count(1)
    expect(page.locator("g[data-vertex='C1:1'] [data-mark=refused]")).to_have_count(1)
    for vertex, name in (("A1:1", "A1, level 1, white"), ("B1:1", "B1, level 1, black"),
                         ("A1:2", "A1, level 2, empty, legal"), ("C1:1", "C1, level 1, empty, not allowed: suicide")):
        expect(page.locator(f"g[data-vertex='{vertex}']")).to_have_attribute("aria-label", name)
    hit("g[data-vertex='C1:1']")
    expect(page.locator(STATUS)).to_have_text("Not at C1:1: this ball would have no freedom and captures nothing")
    expect(page.locator(STATUS)).to_have_attribute("title", "illegal move: C1:1 for WHITE: suicide")
    link = "[data-role=hover] a[data-rule=rules-freedoms]"
    expect(page.locator(link)).to_have_text("Why? Read the rule")
    in_view(page, link, BOARD)
    if touch:
        finger_sized(page, link)
    hit(link)
    expect(page.locator("[data-role=rules] h3")).to_have_text(HEADINGS)
    expect(page.locator("[data-role=rules] figure[data-ready]")).to_have_count(12)   # the diagrams drawn
    in_view(page, "#rules-freedoms")
    fits(page)
    hit("[data-action=close-rules]")
    expect(page.locator("[data-role=rules]")).to_be_hidden()
    # The board by keyboard: the cursor to A1:2, named as a screen reader says it, and Enter plays it.
    # A key pressed first: focus after a tap shows no cursor (:focus-visible), as after a click.
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("Shift")
    page.focus(BOARD)
    move_cursor_to(page, "A1:2")
    expect(page.locator("[data-role=hover]")).to_have_text("A1, level 2, empty, legal")
    page.keyboard.press("Enter")
    expect(page.locator(MOVES)).to_have_count(7)
    expect(page.locator("g[data-vertex='A1:2']")).to_have_attribute("aria-label", "A1, level 2, white")
    expect(page.locator(STATUS)).to_have_text("Black to move")
    # Resign asks first.
    hit("[data-action=resign]")
    expect(page.locator("[data-role=resign-confirm]")).to_have_text(re.compile(r"^Resign this game\?\s+Yes, resign\s+No\s*$"))
    in_view(page, "[data-role=resign-confirm]")
    if touch:
        finger_sized(page, "[data-role=resign-confirm] button")
    hit("[data-action=resign-no]")
    expect(page.locator(STATUS)).to_have_text("Black to move")
    hit("[data-action=resign]")
    hit("[data-action=resign-yes]")
    # The result panel: the winner named and marked, why, and what next, all in view.
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    expect(page.locator("[data-role=winner]")).to_have_text("White wins")
    expect(page.locator("[data-role=result-why]")).to_have_text("— by resignation (W+R)")
    expect(page.locator("[data-seat=W] [data-role=winner-badge]")).to_have_text("winner")
    expect(page).to_have_title("White wins — margo-web")
    in_view(page, STATUS, BOARD, "[data-role=result-panel]", "[data-action=rematch]", "[data-action=result-review]",
            "[data-role=result-download]")
    if touch:
        finger_sized(page, "[data-role=result-panel] button, [data-role=result-panel] .button")
    fits(page)
    return page.evaluate("window.margo.game.game")


def review_replay_side_line_and_play_from_here(page: Page, hit, touch: bool, width: int) -> None:  # noqa: ANN001
    """Items 1, 11 and 9: the review from the result panel, its graph's height, a jump and a
    replay step with the board and status in view, a side line tried and Play from here."""
    hit("[data-action=result-review]")
    expect(page.locator("[data-tab=replay]")).to_have_class("tab active")
    expect(page.locator("[data-role=review-progress]")).to_have_text("Reviewed: 7 moves at 200 visits")
    graph = page.locator("[data-role=review-graph]").bounding_box()
    assert abs(graph["height"] - GRAPH_HEIGHT[width]) < 1, graph
    hit(f"{MOVES} >> nth=2")   # a jump in the review
    expect(page.locator(STATUS)).to_contain_text("this game: move 3 of 7 (W A2:1)")
    in_view(page, STATUS, BOARD)
    hit("[data-action=next]")   # a replay step
    expect(page.locator(STATUS)).to_contain_text("this game: move 4 of 7 (B B2:1)")
    in_view(page, STATUS, BOARD, "[data-role=replay-bar]")
    if touch:
        finger_sized(page, "[data-role=replay-bar] button, [data-role=slider]")
    fits(page)
    # A side line: White tries C3:1 at move 4, ringed, numbered and named.
    expect(page.locator("g[data-vertex='C3:1'] [data-target][data-legal=true]")).to_have_count(1)
    hit("g[data-vertex='C3:1']")
    expect(page.locator("[data-role=variation-text]")).to_have_text("Variation: 1 move")
    expect(page.locator(STATUS)).to_have_text("Variation: W C3:1 — Black to move")
    expect(page.locator("g[data-vertex='C3:1']")).to_have_attribute("aria-label", "C3, level 1, white, variation move 1")
    in_view(page, STATUS, BOARD, "[data-action=variation-undo]", "[data-action=play-from-here]")
    if touch:
        finger_sized(page, "[data-role=try-bar] button")
    fits(page)
    # Play from here: a game in Play from exactly that position, Black (the side to move) for the player.
    hit("[data-action=play-from-here]")
    expect(page.locator("[data-role=play-here-what]")).to_have_text("From move 4 and 1 variation move: Black to move.")
    assert page.locator("[data-role=play-here-form] [name=human]").input_value() == "B"
    page.locator("[data-role=play-here-form] [name=engine]").select_option("random")
    hit("[data-action=play-here-start]")
    expect(page.locator(STATUS)).to_have_text("Black to move (you)")
    expect(page.locator("[data-tab=play]")).to_have_class("tab active")
    expect(page.locator(MOVES)).to_have_text(["W A1:1", "B B1:1", "W A2:1", "B B2:1", "W C3:1"])
    expect(page.locator("[data-seat=W]")).to_have_text("White: random")
    in_view(page, STATUS, BOARD)
    fits(page)


def the_saved_games(page: Page, hit, touch: bool, games_dir: Path, unfinished: str, finished: str) -> None:  # noqa: ANN001
    """Item 7: date, opponent, size, result or "unfinished"; resume, download and a delete that asks."""
    hit("[data-tab=replay]")
    left = page.locator(f"[data-role=saved-list] [data-game='{unfinished}']")
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime((games_dir / "unfinished" / f"{unfinished}.jsonl").stat().st_mtime))
    expect(left.locator("[data-role=saved-date]")).to_have_text(date)
    expect(left.locator("[data-resume]")).to_contain_text("3×3 human – human: unfinished — resume (7 moves)")
    expect(left.locator("[data-download]")).to_have_count(0)   # only a journal: resumed, Play downloads it
    ended = page.locator(f"[data-role=saved-list] [data-game='{finished}']")
    expect(ended.locator("[data-saved]")).to_contain_text("3×3 human – human: W+R (7 moves)")
    expect(ended.locator("[data-download]")).to_have_attribute("href", f"/api/games/{finished}.sgf")
    if touch:
        finger_sized(page, "[data-role=saved-list] button, [data-role=saved-list] [data-download]")
    fits(page)
    hit(f"[data-role=saved-list] [data-game='{unfinished}'] [data-delete]")
    expect(left.locator("[data-delete]")).to_have_text("Delete for good?")
    assert (games_dir / "unfinished" / f"{unfinished}.jsonl").exists()
    hit(f"[data-role=saved-list] [data-game='{unfinished}'] [data-delete]")
    expect(left).to_have_count(0)
    assert not (games_dir / "unfinished" / f"{unfinished}.jsonl").exists()


def level_digits_of_a_crowded_9x9_record(page: Page, hit, folder: Path) -> None:  # noqa: ANN001
    """Item 11: every level digit at least 9 px on the screen, over a buried ball's ring too
    (at 360x640 the stuck board of Replay drew them at 5 px)."""
    from margo_gtp import sgf
    from margo_gtp.engine.positions import midgame_positions

    board = max(midgame_positions(), key=lambda b: len(b.buried()))
    path = folder / "crowded.sgf"
    path.write_text(sgf.dumps(sgf.record_from_board(board)), encoding="utf-8")
    page.set_input_files("[data-role=sgf-file]", str(path))
    plies = len(board.history)
    expect(page.locator(STATUS)).to_have_text(f"crowded.sgf: move 0 of {plies}")
    hit("[data-action=last]")
    colour, last = board.history[-1]
    expect(page.locator(STATUS)).to_have_text(f"crowded.sgf: move {plies} of {plies} ({colour.letter} {last.gtp()})")
    in_view(page, STATUS, BOARD)
    digits = page.eval_on_selector_all("[data-role=board] text.level", """els => els.map(e => {
        const svg = e.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return {vertex: e.closest("g[data-vertex]").dataset.vertex, text: e.textContent,
                pixels: parseFloat(getComputedStyle(e).fontSize) * scale};
    })""")
    assert len(digits) == sum(1 for point in board.balls() if point.level >= 2) > 0, len(digits)
    small = [d for d in digits if d["pixels"] < 9 - 0.01 or d["text"] != d["vertex"].split(":")[1]]
    assert small == [], small[:3]


def the_watch_tables(page: Page, hit, touch: bool, width: int) -> None:  # noqa: ANN001
    """Item 8: the tables fit every size, the Result column too, and a watched game is shown whole."""
    hit("[data-tab=watch]")
    first = page.locator("[data-key='0-1']")
    expect(first.locator("td")).to_have_text(["1", "heuristic", "random", "W+R"])
    expect(page.locator("[data-key='0-3'] td").nth(3)).to_have_text("W+123.5")
    panel = rect(page, "[data-panel=watch]")
    for selector in ("[data-role=watch-games]", "[data-role=watch-games] tr:first-child th:last-child",
                     "[data-key='0-3'] td:last-child", "[data-role=crosstable]", "[data-role=ratings]"):
        right = rect(page, selector)["right"]
        assert right <= panel["right"] + 0.5 and right <= width + 0.5, (selector, right, panel)
    if touch:
        finger_sized(page, "[data-role=watch-games] tr[data-key]")
    fits(page)
    hit("[data-key='0-1']")
    expect(page.locator(STATUS)).to_have_text("game 1: heuristic – random: move 10 of 10 (B A2:1) — result W+R")
    assert page.eval_on_selector(STATUS, "e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight")
    in_view(page, STATUS, BOARD)
    fits(page)


def an_engine_thinking(page: Page, url: str, hit) -> None:  # noqa: ANN001
    """Item 4: seconds against the budget, the engine's visits and best move, and Resign while it thinks."""
    page.goto(f"{url}/?size=7&engine=mcts&human=black&seconds=60")
    expect(page.locator(STATUS)).to_have_text(re.compile(r"^White \(mcts\) is thinking — \d+\.\d s of 60 s$"))
    thinking = page.locator("[data-role=thinking]")
    expect(thinking).to_have_attribute("data-visits", re.compile(r"^\d+$"))
    expect(thinking).to_have_text(re.compile(r"^[\d,]+ visits · best [A-G][1-7]:[1-7]"))
    assert page.eval_on_selector(STATUS, "e => e.scrollWidth <= e.clientWidth")   # whole, not cut
    # The visits line sits under the engine's seat: on a phone in the seats' strip over the
    # board, on a desktop in the side panel; in view with the board either way.
    in_view(page, STATUS, BOARD, "[data-action=resign]", "[data-role=thinking]")
    expect(page.locator("[data-action=resign]")).to_be_enabled()
    hit("[data-action=resign]")
    hit("[data-action=resign-yes]")
    expect(page.locator(STATUS)).to_have_text("White wins W+R (resignation)")
    expect(thinking).to_have_count(0)


# -- the test ---------------------------------------------------------------------------------

def write_match_folder(folder: Path) -> None:
    """Game 1 with short names and its record; games 2 and 3 with long engine commands, which
    widened the table past its panel."""
    lines = [{"game": 1, "white": "heuristic", "black": "random", "winner_colour": "W", "result": "W+R",
              "reason": "resignation", "move_count": 10, "sgf": "game-0001.sgf"}]
    lines += [{"game": n, "white": LONG_WHITE, "black": LONG_BLACK, "winner_colour": "W", "result": "W+123.5",
               "reason": "no legal move", "move_count": 10, "sgf": f"game-{n:04d}.sgf"} for n in (2, 3)]
    for line in lines:
        (folder / line["sgf"]).write_text(WATCHED, encoding="utf-8")
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.mark.parametrize("width, height, touch", FOUR_SIZES)
def test_a_players_walk_through_every_item_at_this_size(open_page, games_dir: Path, watch_dir: Path, tmp_path: Path,
                                                        width: int, height: int, touch: bool) -> None:
    from margo_gtp.web.app import create_app
    from margo_gtp.web.cli import default_engine_labels
    from margo_gtp.web.game import EngineRegistry
    from margo_gtp.web.store import GameStore
    from margo_gtp.web.watch import WatchFolder

    commands = engine_commands()
    labels = {name: label for name, label in default_engine_labels().items() if name in ("strongest", "level-1")}
    assert re.fullmatch(r"Level 1( — about [\d,]+)?", labels["level-1"]), labels
    registry = EngineRegistry({"strongest": commands["random"], "level-1": [*ENGINE, "--level", "1", "--seed", "7"],
                               "random": commands["random"], "mcts": commands["mcts"]}, labels)
    write_match_folder(watch_dir)

    def app():  # noqa: ANN202
        return create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))

    page = open_page(width, height, touch)

    def hit(selector: str) -> None:
        page.locator(selector).tap() if touch else page.locator(selector).click()

    server = LiveServer(app()).__enter__()
    try:
        the_setup_speaks_words(page, server.url, touch, labels)
        the_guided_first_game(page, hit, touch)
        unfinished = a_game_from_the_form_with_zombies(page, server.url, hit, touch)
        finished = marks_a_refusal_the_keyboard_and_the_result(page, server.url, hit, touch)
        review_replay_side_line_and_play_from_here(page, hit, touch, width)
        the_saved_games(page, hit, touch, games_dir, unfinished, finished)
        level_digits_of_a_crowded_9x9_record(page, hit, tmp_path)
        the_watch_tables(page, hit, touch, width)
        an_engine_thinking(page, server.url, hit)
        # Item 11: the title says whose turn it is; item 6: a lost server greys the board, which
        # takes no tap, and the game comes back by itself with the server.
        page.goto(f"{server.url}/?size=3&engine=random&human=white&seconds=0.05")
        expect(page.locator(STATUS)).to_have_text("White to move (you)")
        expect(page).to_have_title("Your turn — margo-web")
        sound = page.locator("[data-role=sound]")   # item 11: the move sound, off until ticked
        expect(sound).not_to_be_checked()
        sound.check()
        assert page.evaluate("localStorage.getItem('margo-web.sound')") == "on"
        hit("g[data-vertex='B2:1']")
        expect(page.locator(MOVES)).to_have_count(2)
        expect(page.locator(STATUS)).to_have_text("White to move (you)")
        port = int(server.url.rsplit(":", 1)[1])
        server.__exit__(None, None, None)
        expect(page.locator(STATUS)).to_have_text("Connection to the server lost: reconnecting…")
        expect(page.locator("[data-role=connection]")).to_have_text("reconnecting…")
        expect(page.locator(BOARD)).to_have_class(re.compile(r"\boffline\b"))
        assert page.eval_on_selector(BOARD, "e => getComputedStyle(e).pointerEvents") == "none"
        in_view(page, STATUS, BOARD)
        board = rect(page, BOARD)
        x, y = board["left"] + board["width"] * 0.2, board["top"] + board["height"] * 0.8
        page.touchscreen.tap(x, y) if touch else page.mouse.click(x, y)
        page.wait_for_timeout(300)
        expect(page.locator(MOVES)).to_have_count(2)
        server = LiveServer(app(), port=port).__enter__()
        expect(page.locator(STATUS)).to_have_text("White to move (you)", timeout=15_000)
        expect(page.locator(BOARD)).not_to_have_class(re.compile(r"\boffline\b"))
        expect(page.locator("g[data-vertex='B2:1'] [data-ball=W]")).to_have_count(1)
    finally:
        server.__exit__(None, None, None)
