"""End-to-end tests of margo-web in Debian's Chromium, through Playwright. Few and fast.

Each test drives the page as a person would (clicks, keys, file input) and reads it through
its data attributes: the stable hooks ``data-vertex``, ``data-ball``, ``data-zombie`` and
``[data-role=status]``, and the page's other ``data-role`` elements. The expected positions
come from the rules core, never from the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
need_module("playwright.sync_api", PLAYWRIGHT)
from playwright.sync_api import Page, expect  # noqa: E402

from margo_gtp import sgf  # noqa: E402
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.web.game import describe_outcome
from web_helpers import screenshot

pytestmark = pytest.mark.process

STATUS = "[data-role=status]"
GAME_OVER = re.compile(r"(White|Black) wins|Draw")


def balls_on_page(page: Page) -> dict[str, str]:
    return page.eval_on_selector_all("[data-ball]", "els => Object.fromEntries(els.map(e => [e.dataset.vertex, e.dataset.ball]))")


def balls_of(board: Board) -> dict[str, str]:
    return {point.gtp(): colour.letter for point, colour in board.balls().items()}


def wait_for_turn_or_end(page: Page) -> str:
    """Wait until the human is to move or the game is over; return the status text."""
    page.wait_for_function(
        "() => { const t = document.querySelector('[data-role=status]').textContent;"
        " return t.includes('(you)') || /wins|Draw/.test(t); }")
    return page.locator(STATUS).inner_text()


def test_a_whole_3x3_game_against_random_by_clicking(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=3&engine=random&human=white&seconds=0.1")
    expect(page.locator("g[data-vertex]")).to_have_count(14)  # 9 + 4 + 1 points
    status = wait_for_turn_or_end(page)
    while not GAME_OVER.search(status):
        legal = page.locator("[data-target][data-legal=true]").first
        vertex = legal.evaluate("e => e.closest('[data-vertex]').dataset.vertex")
        plies = page.locator("[data-role=moves] li").count()
        page.click(f"g[data-vertex='{vertex}']")
        expect(page.locator("[data-role=moves] li")).not_to_have_count(plies)
        status = wait_for_turn_or_end(page)
    moves = page.locator("[data-role=moves] li").all_inner_texts()
    board = Board(Rules(size=3))
    for text in moves:
        colour, word = text.split()
        board.push(Move.from_gtp(word, 3), Colour.parse(colour))
    assert status == describe_outcome(board.outcome())
    assert balls_on_page(page) == balls_of(board)
    zombies = page.eval_on_selector_all("[data-zombie]", "els => els.map(e => e.dataset.vertex).sort()")
    assert zombies == sorted(point.gtp() for point in board.zombies())
    screenshot(page, "game-3x3-finished")
    sgf_text = page.request.get(live_server.url + page.locator("[data-role=download]").get_attribute("href")).text()
    assert f"RE[{board.outcome().result()}]" in sgf_text


def test_an_illegal_click_says_so_and_changes_nothing(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=4&engine=random&human=white&seconds=0.1")
    wait_for_turn_or_end(page)
    page.click("g[data-vertex='B2:1']")
    expect(page.locator("[data-role=moves] li")).to_have_count(2)   # ours and the engine's
    wait_for_turn_or_end(page)
    before = balls_on_page(page)
    assert before["B2:1"] == "W" and len(before) == 2
    free = next(v for v in ("A4:1", "D4:1", "A1:1") if v not in before)
    page.hover(f"g[data-vertex='{free}']")
    expect(page.locator("[data-role=hover]")).to_have_text(f"{free}: legal")
    page.hover("g[data-vertex='B2:1']")
    expect(page.locator("[data-role=hover]")).to_have_text("B2:1: occupied")
    page.click("g[data-vertex='B2:1']")   # occupied: the click lands on the ball inside the point
    expect(page.locator(STATUS)).to_have_text("Not at B2:1: a ball is already there")
    expect(page.locator(STATUS)).to_have_attribute("title", "illegal move: B2:1 for WHITE: point is occupied")
    assert balls_on_page(page) == before
    assert page.locator("[data-role=moves] li").count() == 1 + 1
    screenshot(page, "illegal-click")
    # A dropped websocket reconnects and resumes the same game; so does a reload.
    page.evaluate("window.margo.socket.close()")
    expect(page.locator("[data-role=connection]")).to_have_text("reconnecting…")
    expect(page.locator("[data-role=connection]")).to_have_text("connected")
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    assert balls_on_page(page) == before
    page.reload()
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    assert balls_on_page(page) == before
    page.locator("[data-target][data-legal=true]").first.click()   # the game goes on: the engine restarts
    expect(page.locator("[data-role=moves] li")).to_have_count(4)


def test_load_an_sgf_and_step_through_it(web_page: Page, live_server, tmp_path: Path) -> None:
    page = web_page
    board = Board(Rules(size=3))
    words = ["A1", "B1", "A2", "B2", "A1:2", "C1", "C2", "A3", "B3"]
    for word in words:
        board.push(Move.from_gtp(word, 3))
    path = tmp_path / "game.sgf"
    path.write_text(sgf.dumps(sgf.record_from_board(board, white_name="alice", black_name="bob")), encoding="utf-8")
    page.goto(f"{live_server.url}/?tab=replay")
    page.set_input_files("[data-role=sgf-file]", str(path))
    expect(page.locator(STATUS)).to_have_text(f"game.sgf: move 0 of {len(words)}")
    assert balls_on_page(page) == {}
    step = Board(Rules(size=3))
    for ply, word in enumerate(words, 1):
        page.keyboard.press("ArrowRight")
        step.push(Move.from_gtp(word, 3))
        expect(page.locator(STATUS)).to_contain_text(f"move {ply} of {len(words)}")
        assert balls_on_page(page) == balls_of(step)
    page.keyboard.press("Home")
    expect(page.locator("[data-ball]")).to_have_count(0)
    page.locator("[data-role=slider]").fill("5")
    expect(page.locator(STATUS)).to_contain_text("move 5 of 9 (W A1:2)")
    expect(page.locator("g[data-vertex='A1:2'] [data-ball=W]")).to_have_count(1)
    screenshot(page, "replay-sgf")
    # A crowded 9x9 game: three levels, buried balls and zombies, all where the rules put them.
    board = max(midgame_positions(), key=lambda b: len(b.buried()))
    path.write_text(sgf.dumps(sgf.record_from_board(board)), encoding="utf-8")
    page.set_input_files("[data-role=sgf-file]", str(path))
    plies = len(board.history)
    expect(page.locator(STATUS)).to_have_text(f"game.sgf: move 0 of {plies}")
    page.keyboard.press("End")
    expect(page.locator(STATUS)).to_contain_text(f"move {plies} of {plies}")
    assert balls_on_page(page) == balls_of(board)
    marked = {name: sorted(page.eval_on_selector_all(f"[data-{name}]", "els => els.map(e => e.dataset.vertex)"))
              for name in ("zombie", "buried")}
    assert marked == {"zombie": sorted(p.gtp() for p in board.zombies()),
                      "buried": sorted(p.gtp() for p in board.buried())}
    assert page.locator("[data-last]").count() == 1
    page.locator("[data-role=board]").screenshot(path=str(screenshot(page, "replay-9x9").with_name("board-9x9.png")))


def write_jsonl(path: Path, items: list[dict], mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps(item) + "\n")


def test_watch_a_live_game_then_its_record(web_page: Page, live_server, watch_dir: Path) -> None:
    page = web_page
    live = watch_dir / "live"
    live.mkdir()
    feed = live / "game-0001.jsonl"
    rules = Rules(size=4).options()
    write_jsonl(feed, [{"type": "start", "game": 1, "black": "heuristic", "white": "random", "size": 4,
                        "rules": rules, "setup": []},
                       {"type": "move", "ply": 1, "colour": "W", "move": "B2:1", "seconds": 0.01},
                       {"type": "move", "ply": 2, "colour": "B", "move": "C2:1", "seconds": 0.01}])
    page.goto(f"{live_server.url}/?tab=watch")
    row = page.locator("[data-key='0-1'][data-live]")
    expect(row).to_contain_text("live")
    row.click()
    expect(page.locator("[data-ball]")).to_have_count(2)
    expect(page.locator(STATUS)).to_contain_text("live")
    write_jsonl(feed, [{"type": "move", "ply": 3, "colour": "W", "move": "B3:1", "seconds": 0.01}], mode="a")
    expect(page.locator("[data-ball]")).to_have_count(3)   # the page follows the feed
    expect(page.locator("g[data-vertex='B3:1'] [data-ball=W]")).to_have_count(1)
    screenshot(page, "watch-live")
    # The game ends: the referee writes its SGF and results line, then deletes the feed.
    board = Board(Rules(size=4))
    for word in ("B2", "C2", "B3", "C3"):
        board.push(Move.from_gtp(word, 4))
    (watch_dir / "game-0001.sgf").write_text(
        sgf.dumps(sgf.record_from_board(board, result="W+R", white_name="random", black_name="heuristic")))
    write_jsonl(watch_dir / "results.jsonl", [{"game": 1, "white": "random", "black": "heuristic",
                                               "winner_colour": "W", "result": "W+R", "reason": "resignation",
                                               "move_count": 4, "sgf": "game-0001.sgf"}])
    feed.unlink()
    expect(page.locator("[data-key='0-1']")).to_contain_text("W+R")
    expect(page.locator("[data-role=crosstable]")).to_contain_text("1/1")
    page.locator("[data-key='0-1']").click()
    page.keyboard.press("End")
    expect(page.locator(STATUS)).to_contain_text("move 4 of 4 (B C3:1) — result W+R")
    assert balls_on_page(page) == balls_of(board)


def test_the_analysis_overlay_shows_top_moves(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=4&engine=mcts&human=white&seconds=0.2")
    wait_for_turn_or_end(page)
    page.check("[data-role=analysis-toggle]")
    expect(page.locator("[data-analysis]").first).to_be_visible(timeout=20_000)
    expect(page.locator("[data-role=analysis-text]")).to_contain_text("White win rate")
    overlaid = page.eval_on_selector_all("[data-analysis]", "els => els.map(e => e.dataset.analysis)")
    legal = page.eval_on_selector_all("[data-target][data-legal=true]",
                                      "els => els.map(e => e.closest('[data-vertex]').dataset.vertex)")
    assert overlaid and set(overlaid) <= set(legal)
    expect(page.locator("[data-role=winrate-line]")).to_have_count(1)
    # A 0/50/100% scale and a marker at the current ply; a point of the graph can be clicked.
    expect(page.locator("[data-role=winrate-graph] .graph-label")).to_have_text(["100%", "50%", "0%"])
    expect(page.locator("[data-role=winrate-current]")).to_have_count(1)
    screenshot(page, "analysis")


RECORD_OVERLAY = """() => {
  // Every overlay the page shows, in order: [ply analysed, visits, the overlay's visit labels].
  window.shownAnalyses = [];
  const text = document.querySelector('[data-role=analysis-text]');
  new MutationObserver(() => {
    if (!text.dataset.visits) return;
    const labels = [...document.querySelectorAll('[data-analysis] .visits')].map((e) => Number(e.textContent));
    window.shownAnalyses.push([Number(text.dataset.ply), Number(text.dataset.visits), labels]);
  }).observe(text, { attributes: true, attributeFilter: ['data-visits', 'data-ply'] });
}"""
VISITS_ABOVE = ("([ply, v]) => { const t = document.querySelector('[data-role=analysis-text]');"
                " return t.dataset.ply === String(ply) && Number(t.dataset.visits) > v; }")


def test_the_analysis_overlay_streams_and_a_move_stops_it(web_page: Page, live_server) -> None:
    """The overlay follows the running search (margo-analyze): two updates of one position
    with growing visits before a move; after the move the next position's overlay comes
    and no update of the old position is ever shown after it."""
    page = web_page
    page.goto(f"{live_server.url}/?size=4&engine=random&human=white&seconds=0.05")
    wait_for_turn_or_end(page)
    page.evaluate(RECORD_OVERLAY)
    page.check("[data-role=analysis-toggle]")
    text = page.locator("[data-role=analysis-text]")
    expect(text).to_have_attribute("data-visits", re.compile(r"^\d+$"), timeout=20_000)
    expect(text).to_have_attribute("data-ply", "0")
    first = int(text.get_attribute("data-visits"))
    page.wait_for_function(VISITS_ABOVE, arg=[0, first])   # a second, bigger update of the same position
    expect(text).to_contain_text("visits")
    before = page.evaluate("window.shownAnalyses")
    assert len({visits for ply, visits, _ in before if ply == 0}) >= 2
    vertex = page.locator("[data-target][data-legal=true]").first.evaluate("e => e.closest('[data-vertex]').dataset.vertex")
    page.click(f"g[data-vertex='{vertex}']")
    expect(text).to_have_attribute("data-ply", "2", timeout=20_000)   # the engine replied, the next position shows
    now = int(text.get_attribute("data-visits"))
    page.wait_for_function(VISITS_ABOVE, arg=[2, now])   # and grows in its turn
    shown = page.evaluate("window.shownAnalyses")
    plies = [ply for ply, _, _ in shown]
    assert plies[: plies.index(2)] == [0] * plies.index(2)
    assert set(plies[plies.index(2):]) == {2}   # nothing of the old position after the new one came
    old = [visits for ply, visits, _ in shown if ply == 0]
    assert old == sorted(old)
    labels = [sum(numbers) for ply, _, numbers in shown if ply == 0]
    assert labels[-1] > labels[0]   # the numbers on the board grew with the search
    screenshot(page, "analysis-streamed")


def test_the_new_game_form_starts_human_vs_human_with_its_rules(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(live_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    form = page.locator("[data-role=new-game]")
    form.locator("[name=size]").select_option("3")
    form.locator("[name=white]").select_option("human")
    form.locator("[name=black]").select_option("human")
    form.locator("[data-role=rule-options] > summary").click()   # the options are folded under the presets
    form.locator("[name=max_level]").fill("1")
    form.locator("[name=swap]").check()
    form.locator("button[type=submit]").click()
    expect(page.locator(STATUS)).to_have_text("White to move")
    rules = page.evaluate("window.margo.game.rules")
    assert (rules["size"], rules["max_level"], rules["swap"]) == (3, 0, "on")
    assert page.evaluate("window.margo.game.preset") == "custom"   # a level limit is no preset's
    page.click("g[data-vertex='B2:1']")
    expect(page.locator(STATUS)).to_have_text("Black to move")
    expect(page.locator("[data-action=swap]")).to_be_enabled()
    page.click("[data-action=swap]")
    expect(page.locator("[data-role=moves] li")).to_have_text(["W B2:1", "B swap"])


def test_the_url_starts_an_engine_game_or_says_what_is_wrong(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=9&engine=gnugo&human=black")
    expect(page.locator(STATUS)).to_have_text("unknown engine: 'gnugo'")
    page.goto(f"{live_server.url}/#game=g1-1-abcdef")   # a game of an earlier server
    expect(page.locator(STATUS)).to_have_text("That game is no longer open (finished games are under Replay)")
    page.goto(f"{live_server.url}/?size=2&engine=random&human=none&seconds=0.05")
    expect(page.locator(STATUS)).to_have_text(GAME_OVER, timeout=30_000)
    seats = page.locator("[data-role=players]").inner_text()
    status = page.locator(STATUS).inner_text()
    badge = {"White": ("\nwinner", ""), "Black": ("", "\nwinner"), "Draw": ("", "")}[status.split()[0]]
    assert seats == f"White: random{badge[0]}\nBlack: random{badge[1]}"   # the winner marked


def test_a_crashed_engine_is_shown_and_replaced_from_the_page(web_page: Page, live_server) -> None:
    page = web_page
    page.goto(f"{live_server.url}/?size=3&engine=crasher&human=white&seconds=0.1")
    wait_for_turn_or_end(page)
    page.click("g[data-vertex='A1:1']")
    expect(page.locator(STATUS)).to_contain_text("engine crasher failed: ")
    expect(page.locator(STATUS)).to_contain_text("boom: engine fell over")
    expect(page.locator(STATUS)).to_have_class(re.compile(r"\berror\b"))
    assert balls_on_page(page) == {"A1:1": "W"}   # the game is kept
    page.locator("[data-role=replace-engine]").select_option("random")
    page.click("[data-action=replace]")
    expect(page.locator("[data-role=moves] li")).to_have_count(2)
    expect(page.locator(STATUS)).to_have_text("White to move (you)")
    expect(page.locator("[data-seat=B]")).to_have_text("Black: random")


def test_the_form_lists_the_engines_by_their_labels_and_starts_with_the_first(web_page: Page, games_dir: Path,
                                                                             watch_dir: Path) -> None:
    """margo-web's default engines come with labels (Level 3, Level 8 (strongest)): the form
    shows them, sends the engine's name, and holds the first engine, not random, for Black."""
    from margo_gtp.web.app import create_app
    from margo_gtp.web.game import EngineRegistry
    from margo_gtp.web.store import GameStore
    from margo_gtp.web.watch import WatchFolder
    from web_helpers import LiveServer, engine_commands

    commands = engine_commands()
    ordered = {"strongest": commands["random"], "level-3": commands["heuristic"], "random": commands["random"]}
    labels = {"strongest": "Level 8 (strongest)", "level-3": "Level 3 — about 1,200"}
    registry = EngineRegistry(ordered, labels)
    with LiveServer(create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))) as server:
        page = web_page
        page.goto(server.url)
        expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
        black = page.locator("[data-role=new-game] [name=black]")
        expect(black.locator("option")).to_have_text(["human", "Level 8 (strongest)", "Level 3 — about 1,200", "random"])
        assert black.input_value() == "strongest"
        assert page.locator("[data-role=new-game] [name=white]").input_value() == "human"
