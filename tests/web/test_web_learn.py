"""A newcomer learns MarGo in margo-web (issue #37, item 2), in Debian's Chromium at 360x640
(touch) and 1280x800: the rules page and its diagrams drawn by the board itself, a plain
sentence and a link to the rule for every refusal the engine gives, and the guided first game.

The diagrams' positions are checked against the rules core in test_web_rules_diagrams.py;
here each one's drawing is checked point by point against the engine's board.
"""

from __future__ import annotations

import pytest

from needs import need_module
from web_helpers import ENGINE, PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402

from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Rules  # noqa: E402
from margo_gtp.vertex import format_vertex  # noqa: E402
from margo_gtp.web.rules_diagrams import DIAGRAMS  # noqa: E402
from margo_gtp.web.view import frame  # noqa: E402
from web_helpers import LiveServer, engine_commands, screenshot  # noqa: E402

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
SIZES = [pytest.param(360, 640, True, id="phone-360x640"), pytest.param(1280, 800, False, id="desktop-1280x800")]
TOUCH_TARGET = 44
HEADINGS = ["Placing", "Stacking", "Freedoms and capture", "Bridges", "Zombies and buried balls", "Ko: no repeating",
            "The end and the score", "Options of a game"]
START_HINT = ("You play White and move first. Click or tap a point to place a ball. A group with no empty point next to it "
              "is captured, so keep your balls together and surround Black's.")




def tap(page: Page, selector: str, touch: bool) -> None:
    locator = page.locator(selector)
    locator.tap() if touch else locator.click()


def assert_fits(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def assert_tap_targets(page: Page, selector: str) -> None:
    sizes = page.eval_on_selector_all(selector, "els => els.filter(e => e.offsetParent).map(e => {"
                                      " const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
    assert sizes, selector
    for width, height in sizes:
        assert width >= TOUCH_TARGET - 0.5 and height >= TOUCH_TARGET - 0.5, (selector, width, height)


def point_names(board: Board, marks: bool) -> dict[str, str]:
    """What a screen reader must say of every point of a diagram, from the engine's board:
    "B2, level 1, white, zombie"; with marks, "A1, level 2, empty, not allowed: suicide"."""
    zombies, buried = set(board.zombies()), set(board.buried())
    targets = {t["v"]: t for t in frame(board)["targets"]} if marks else {}
    names = {}
    for point in board.geometry.points:
        vertex = format_vertex(point)
        column_row, level = vertex.split(":")
        colour = board.get(point)
        if colour is not None:
            what = ("white" if colour is Colour.WHITE else "black") + (", zombie" if point in zombies else "") + \
                (", buried" if point in buried else "")
        elif vertex in targets:
            target = targets[vertex]
            what = "empty, legal" if target["legal"] else f"empty, not allowed: {target['why']}"
        else:
            what = "empty"
        names[vertex] = f"{column_row}, level {level}, {what}"
    return names


def drawn_diagram(page: Page, key: str) -> dict:
    return page.eval_on_selector(f"[data-role=rules-text] figure[data-diagram='{key}']", """figure => ({
        names: Object.fromEntries([...figure.querySelectorAll("g[data-vertex]")].map(
            g => [g.dataset.vertex, g.getAttribute("aria-label")])),
        balls: Object.fromEntries([...figure.querySelectorAll("[data-ball]")].map(b => [b.dataset.vertex,
            b.dataset.ball + ("zombie" in b.dataset ? "Z" : "") + ("buried" in b.dataset ? "U" : "")])),
        refused: [...figure.querySelectorAll("[data-mark=refused]")].map(m => m.closest("g").dataset.vertex).sort(),
        legal: [...figure.querySelectorAll("[data-mark=legal]")].map(m => m.closest("g").dataset.vertex).sort(),
        label: figure.querySelector("svg").getAttribute("aria-label"),
        caption: figure.querySelector("figcaption").textContent,
        width: figure.getBoundingClientRect().width,
    })""")


def assert_diagrams_are_the_engines(page: Page) -> None:
    expect(page.locator("[data-role=rules-text] figure[data-ready]")).to_have_count(len(DIAGRAMS))
    for diagram in DIAGRAMS:
        board = diagram.board()
        drawn = drawn_diagram(page, diagram.key)
        zombies, buried = set(board.zombies()), set(board.buried())
        assert drawn["balls"] == {format_vertex(p): c.letter + ("Z" if p in zombies else "") + ("U" if p in buried else "")
                                  for p, c in board.balls().items()}, diagram.key
        assert drawn["names"] == point_names(board, diagram.marks), diagram.key
        targets = frame(board)["targets"] if diagram.marks else []
        assert drawn["refused"] == sorted(t["v"] for t in targets if not t["legal"]), diagram.key
        assert drawn["legal"] == sorted(t["v"] for t in targets if t["legal"] and t["l"] > 0), diagram.key
        assert drawn["caption"] == diagram.caption
        assert drawn["label"].startswith(f"Diagram: A {diagram.size}\u00d7{diagram.size} board. White: ")
        assert drawn["width"] >= 120, (diagram.key, drawn["width"])   # a board one can read


@pytest.mark.parametrize("width, height, touch", SIZES)
def test_the_rules_page_draws_every_diagram_as_the_engine_has_it(open_page, live_server, width, height, touch) -> None:
    page = open_page(width, height, touch)
    page.goto(f"{live_server.url}/rules")
    expect(page.locator("[data-role=rules-text] h2")).to_have_text(HEADINGS)
    assert_diagrams_are_the_engines(page)
    # The text alternative lists the balls and says what the marks mean.
    assert drawn_diagram(page, "ko-after")["label"] == (
        "Diagram: A 4\u00d74 board. White: A1, C1, B2, A4. Black: D1, C2. Last move: C1. "
        "Black may not play at B1 (repetition (ko_rule situational)).")
    assert drawn_diagram(page, "zombie")["label"] == (
        "Diagram: A 3\u00d73 board. White: C1, A2, B2, A1 on level 2. Black: A1 (zombie), B1 (zombie), C3. "
        "Last move: C1.")
    assert_fits(page)
    if touch:
        assert_tap_targets(page, "header .tab, .rules-article .button")
    screenshot(page, f"rules-page-{width}x{height}")
    # The reader scrolls it with the wheel (the game page is fixed to a wide window; this one is not).
    if not touch:
        page.mouse.move(width / 2, height / 2)
        page.mouse.wheel(0, 600)
        page.wait_for_function("window.scrollY >= 500")
    # A link names a section: the page opens there.
    page.goto(f"{live_server.url}/rules#rules-zombies")
    expect(page.locator("[data-role=rules-text] figure[data-ready]")).to_have_count(len(DIAGRAMS))
    page.wait_for_function("(() => { const r = document.getElementById('rules-zombies').getBoundingClientRect();"
                           " return r.top >= 0 && r.bottom <= innerHeight; })()")


def test_the_rules_follow_dark_mode(open_page, live_server) -> None:
    page = open_page(390, 844, True, dark=True)
    page.goto(f"{live_server.url}/rules")
    expect(page.locator("[data-role=rules-text] figure[data-ready]")).to_have_count(len(DIAGRAMS))
    colours = page.evaluate("""() => ({
        body: getComputedStyle(document.body).backgroundColor,
        article: getComputedStyle(document.querySelector('.rules-article')).backgroundColor,
        text: getComputedStyle(document.querySelector('.rules-article p')).color,
        wood: getComputedStyle(document.querySelector('figure.diagram .wood')).fill })""")
    assert colours == {"body": "rgb(23, 24, 26)", "article": "rgb(35, 36, 39)", "text": "rgb(230, 227, 220)",
                       "wood": "rgb(220, 180, 108)"}
    assert_fits(page)
    screenshot(page, "rules-page-dark-390x844")


@pytest.mark.parametrize("width, height, touch", SIZES)
def test_the_rules_button_and_a_refusal_open_the_rules_at_their_section(open_page, live_server, width, height,
                                                                        touch) -> None:
    page = open_page(width, height, touch)
    page.goto(f"{live_server.url}/?size=3&human=both")
    expect(page.locator(STATUS)).to_have_text("White to move")
    tap(page, "g[data-vertex='B2:1']", touch)
    tap(page, "g[data-vertex='B2:1']", touch)
    expect(page.locator(STATUS)).to_have_text("Not at B2:1: a ball is already there")
    link = page.locator("[data-role=hover] a[data-rule]")
    expect(link).to_have_text("Why? Read the rule")
    expect(link).to_have_attribute("href", "/rules#rules-placing")
    link.tap() if touch else link.click()
    dialog = page.locator("[data-role=rules]")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h3")).to_have_text(HEADINGS)
    assert_diagrams_are_the_engines(page)
    page.wait_for_function("(() => { const r = document.getElementById('rules-placing').getBoundingClientRect();"
                           " return r.top >= 0 && r.bottom <= innerHeight; })()")
    # Close stays at hand (at the dialog's top) wherever the rules are scrolled, above the text.
    page.eval_on_selector("[data-role=rules]", "d => { d.scrollTop = d.scrollHeight; }")
    expect(dialog.locator("[data-action=close-rules]")).to_be_in_viewport()
    close = page.eval_on_selector("[data-action=close-rules]", "e => e.getBoundingClientRect().toJSON()")
    assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).dataset.action",
                         [close["x"] + close["width"] / 2, close["y"] + close["height"] / 2]) == "close-rules"
    assert_fits(page)
    if touch:
        assert_tap_targets(page, "[data-action=close-rules], dialog.rules a")
    screenshot(page, f"rules-dialog-{width}x{height}")
    tap(page, "[data-action=close-rules]", touch)
    expect(dialog).to_be_hidden()
    # The header's Rules opens them at the top; the game goes on under them.
    tap(page, "[data-action=rules]", touch)
    expect(dialog.locator("#rules-placing")).to_be_in_viewport()
    tap(page, "[data-action=close-rules]", touch)
    expect(page.locator("g[data-vertex]")).to_have_count(14)   # one board again: the diagrams went with the dialog
    tap(page, "g[data-vertex='A1:1']", touch)
    expect(page.locator("[data-role=moves] li")).to_have_count(2)


def engine_refusals() -> dict[str, str]:
    """Every refusal a move can get, worded by the rules core itself (and the web game's own)."""
    messages = {}

    def refuse(name: str, size: int, words: list[str], move: str, **options: str) -> None:
        board = Board(Rules(size=size).with_options(options))
        for word in words:
            board.push(Move.from_gtp(word, size))
        with pytest.raises(IllegalMoveError) as error:
            board.push(Move.from_gtp(move, size))
        messages[name] = str(error.value)

    refuse("occupied", 3, ["B2"], "B2")
    refuse("unsupported", 3, ["A1"], "A1:2")
    refuse("above max_level", 3, ["A1", "B1", "A2", "B2"], "A1:2", max_level="0")
    refuse("suicide or repetition", 3, ["A3", "B3", "A1", "A2"], "A3")
    refuse("pass", 3, [], "pass")
    refuse("swap", 3, [], "swap")
    refuse("over", 3, ["pass", "pass"], "B2", allow_pass="on")
    with pytest.raises(IllegalMoveError) as error:
        Board(Rules(size=3)).push(Move.from_gtp("E5:1", 5))
    messages["off board"] = str(error.value)
    # What web/game.py adds: the rules core's "suicide or repetition" told apart, and its own.
    messages["suicide"] = "illegal move: A3:1 for WHITE: suicide"
    messages["repetition"] = "illegal move: C3:1 for WHITE: repetition (ko_rule situational)"
    messages["not your turn"] = "illegal move: it is not your turn"
    messages["game over"] = "illegal move: the game is over"
    messages["not a vertex"] = "illegal move: 'Z9' is not a vertex"
    messages["undo"] = "cannot undo"
    return messages


def test_every_refusal_the_engine_gives_says_why_with_a_link_to_its_rule(open_page, live_server) -> None:
    messages = engine_refusals()
    assert messages["suicide or repetition"] == "illegal move: A3:1 for WHITE: suicide or repetition"
    page = open_page(1280, 800, False)
    page.goto(f"{live_server.url}/rules")
    expect(page.locator("[data-role=rules-text] h2")).to_have_count(len(HEADINGS))
    said = page.evaluate("""async (messages) => {
        const { plainRefusal } = await import("/static/words.js");
        return Object.fromEntries(Object.entries(messages).map(([k, m]) => [k, plainRefusal(m)])); }""", messages)
    assert said == {
        "occupied": {"text": "Not at B2:1: a ball is already there", "rule": "rules-placing"},
        "unsupported": {"text": "Not at A1:2: a ball above level 1 must rest on four balls", "rule": "rules-stacking"},
        "above max_level": {"text": "Not at A1:2: this game's rules stop at level 1", "rule": "rules-options"},
        "suicide or repetition": {"text": "Not at A3:1: this ball would have no freedom, or it would repeat a position",
                                  "rule": "rules-freedoms"},
        "pass": {"text": "Passing is off in this game (tick \u201callow passing\u201d under New game)", "rule": "rules-end"},
        "swap": {"text": "Swap is only for the second player, on the second turn, with swap on", "rule": "rules-options"},
        "over": {"text": "The game is over: start a new one or a rematch", "rule": "rules-end"},
        "off board": {"text": "That point is off this 3\u00d73 board", "rule": "rules-placing"},
        "suicide": {"text": "Not at A3:1: this ball would have no freedom and captures nothing", "rule": "rules-freedoms"},
        "repetition": {"text": "Not at C3:1: it would bring back an earlier position (ko)", "rule": "rules-ko"},
        "not your turn": {"text": "Not yet: wait for your turn", "rule": "rules-placing"},
        "game over": {"text": "The game is over: start a new one or a rematch", "rule": "rules-end"},
        "not a vertex": {"text": "That is not a point of the board", "rule": "rules-placing"},
        "undo": {"text": "There is no move to take back", "rule": None},   # no rule of MarGo at stake
    }
    # Every rule a refusal names is a section of the rules page.
    sections = page.eval_on_selector_all("[data-role=rules-text] section", "s => s.map(e => e.dataset.section)")
    assert {s["rule"] for s in said.values()} - {None} <= set(sections)


@pytest.fixture
def level_server(games_dir):  # noqa: ANN001, ANN201
    """A server whose weakest engine is ``level-1``, as margo-web's default list has it."""
    from margo_gtp.web.app import create_app
    from margo_gtp.web.game import EngineRegistry
    from margo_gtp.web.store import GameStore

    commands = {**engine_commands(), "level-1": [*ENGINE, "--level", "1", "--seed", "7"]}
    with LiveServer(create_app(EngineRegistry(commands), GameStore(games_dir))) as server:
        yield server


@pytest.mark.parametrize("width, height, touch", SIZES)
def test_the_guided_first_game_hints_without_blocking_play(open_page, level_server, width, height, touch) -> None:
    page = open_page(width, height, touch)
    page.goto(level_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    tap(page, "[data-action=guided-game]", touch)
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-seat=W]")).to_have_text("White: human")
    expect(page.locator("[data-seat=B]")).to_have_text("Black: level-1")
    assert page.evaluate("window.margo.game.frame.size") == 5
    hint = page.locator("[data-role=guide]")
    expect(hint).to_be_visible()
    expect(hint).to_have_attribute("data-hint", "start")
    expect(page.locator("[data-role=guide-text]")).to_have_text(START_HINT)
    expect(page.locator("[data-role=guide-rule]")).to_have_attribute("href", "/rules#rules-placing")
    # The hint sits between the status and the board, and both stay on screen.
    page.wait_for_function("window.scrollY === 0")
    for selector in (STATUS, "[data-role=guide]", "[data-role=board]"):
        rect = page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")
        assert rect["top"] >= 0 and rect["bottom"] <= height + 0.5, (selector, rect)
    assert_fits(page)
    if touch:
        assert_tap_targets(page, "[data-role=guide] button, [data-role=guide] a")
    screenshot(page, f"guided-game-{width}x{height}")
    # Play goes on with the hint up; "Got it" takes it down.
    tap(page, "g[data-vertex='C3:1']", touch)
    expect(page.locator("[data-role=moves] li")).to_have_count(2)   # the engine answered
    tap(page, "[data-action=guide-dismiss]", touch)
    expect(hint).to_be_hidden()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")


def test_the_guides_hints_come_at_their_moments(open_page, level_server) -> None:
    """The hints read the server's states: fed the frames of the rules' diagrams (stacked,
    captured, zombie, finished), each says its own idea, the latest one first."""
    page = open_page(1280, 800, False)
    page.goto(level_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    hints = page.evaluate("""async () => {
        const { nextHint } = await import("/static/guide.js");
        const diagrams = (await (await fetch("/api/rules/diagrams")).json()).diagrams;
        const frameOf = (key) => diagrams.find((d) => d.key === key).frame;
        const state = (key, extra = {}) => ({ frame: frameOf(key), over: false, human_to_move: true, ...extra });
        const key = (s, seen = ["start"]) => { const h = nextHint(s, seen); return h && [h.key, h.rule]; };
        return {
            first: key(state("placing"), []),
            quiet: key(state("placing")),
            square: key(state("stacking-square")),
            stack: key(state("stacking-placed"), ["start", "square"]),
            capture: key(state("freedoms-capture")),
            zombie: key(state("zombie"), ["start", "square", "stack"]),
            end: nextHint(state("end", { over: true, result: "W+1", status: "White wins W+1 (no legal move)" }), []).text,
        };
    }""")
    assert hints == {
        "first": ["start", "rules-placing"], "quiet": None, "square": ["square", "rules-stacking"],
        "stack": ["stack", "rules-stacking"], "capture": ["capture", "rules-freedoms"],
        "zombie": ["zombie", "rules-zombies"],
        "end": "White wins by 1 \u2014 the player to move had no legal move left (W+1). Each side counts its balls "
               "on the board, zombies too: White 4, Black 3.",
    }



def test_the_rules_page_starts_the_guided_game(open_page, level_server) -> None:
    page = open_page(360, 640, True)
    page.goto(f"{level_server.url}/rules")
    page.get_by_role("link", name="Guided first game").tap()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-seat=B]")).to_have_text("Black: level-1")
    expect(page.locator("[data-role=guide]")).to_have_attribute("data-hint", "start")
    # A reload keeps the guide with its game (the first hint was seen: none comes again).
    page.reload()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-role=guide]")).to_be_hidden()
    assert page.evaluate("JSON.parse(sessionStorage.getItem('margo-guide')).seen") == ["start"]
