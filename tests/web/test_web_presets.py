"""Rule presets of margo-web's new-game form (issue #37): the designer's rules, Jocly's and
Ludii's Spargo. The server's side through Starlette's TestClient (what a preset sets, the
one-line refusals, the preset kept in the journal, the SGF and the saved games), and what a
player sees in Debian's Chromium at the issue's sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from needs import need_module
from web_helpers import PLAYWRIGHT, need_the_web_extra

need_the_web_extra()
from starlette.testclient import TestClient  # noqa: E402

from margo_gtp import sgf  # noqa: E402
from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry  # noqa: E402
from margo_gtp.web.store import GameStore  # noqa: E402

STATUS = "[data-role=status]"
# Every option of each preset but the size, as margo-get_rules writes them (max_level: the top).
DESIGNER = {"first_player": "white", "swap": "on", "bridge_cutting": "on", "all_freedoms": "off",
            "own_freedomless_group": "capture", "ko_rule": "situational", "ko_position": "full", "scoring": "balls",
            "allow_pass": "off", "first_capture_wins": "off", "komi": 0.0}
JOCLY = {**DESIGNER, "swap": "off", "own_freedomless_group": "illegal", "ko_rule": "simple"}
SPARGO = {**DESIGNER, "swap": "off"}


def start(ws, **fields):  # noqa: ANN001, ANN201
    ws.send_json({"type": "new", "white": "human", "black": "human", **fields})
    return ws.receive_json()


def test_hello_lists_the_three_presets_with_their_boards_and_words(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        presets = ws.receive_json()["presets"]
    assert [(p["name"], p["title"], p["size"]) for p in presets] == [
        ("designer", "the designer's rules", 7), ("jocly", "Jocly's", 7), ("spargo", "Ludii's Spargo", 4)]
    assert presets[2]["words"] == ("Spargo, MarGo on the 4×4 board of the Shibumi set, as Ludii plays it: no swap, "
                                   "no passing. The game ends when a player cannot move, and the most balls wins.")
    assert presets[1]["options"] == {"first_player": "white", "swap": "off", "bridge_cutting": "on", "all_freedoms": "off",
                                     "own_freedomless_group": "illegal", "ko_rule": "simple", "ko_position": "full",
                                     "scoring": "balls", "allow_pass": "off", "first_capture_wins": "off", "komi": "0"}


@pytest.mark.parametrize("preset, size, options", [("designer", 7, DESIGNER), ("jocly", 5, JOCLY), ("spargo", 4, SPARGO)])
def test_a_preset_sets_every_rule_option_and_is_kept_with_the_game(client: TestClient, games_dir: Path,
                                                                   preset: str, size: int, options: dict) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        state = start(ws, size=size, preset=preset)   # no rules: the preset's, whatever the defaults
        assert state["rules"] == {"size": size, "max_level": size - 1, **options}
        assert state["preset"] == preset
        start_line = json.loads((games_dir / "unfinished" / f"{state['game']}.jsonl").read_text().splitlines()[0])
        assert start_line["preset"] == preset
        ws.send_json({"type": "play", "move": "B2:1"})
        ws.receive_json()
        assert client.get("/api/saved").json()["games"][0]["preset"] == preset
        ws.send_json({"type": "play", "move": "resign"})
        assert ws.receive_json()["result"] == "W+R"
    text = client.get(f"/api/games/{state['game']}.sgf").text
    assert f"MP[{preset}]" in text
    assert sgf.loads(text).root_properties["MP"] == [preset]
    title = {"designer": "the designer's rules", "jocly": "Jocly's", "spargo": "Ludii's Spargo"}[preset]
    (saved,) = client.get("/api/saved").json()["games"]
    assert (saved["result"], saved["preset"], saved["preset_title"]) == ("W+R", preset, title)


def test_rules_by_hand_are_custom_and_a_game_without_a_preset_has_none(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        state = start(ws, size=3, preset="custom", rules={"ko_rule": "none"})
        assert (state["preset"], state["rules"]["ko_rule"]) == ("custom", "none")
        ws.send_json({"type": "play", "move": "resign"})
        ws.receive_json()
        state = start(ws, size=3)   # an older page, the guided game: no preset, no label
        assert state["preset"] is None
        ws.send_json({"type": "play", "move": "resign"})
        ws.receive_json()
    games = client.get("/api/saved").json()["games"]
    assert [(g.get("preset"), g.get("preset_title")) for g in games] == [(None, None), ("custom", "custom rules")]
    assert "MP[" not in client.get(f"/api/games/{games[0]['id']}.sgf").text


@pytest.mark.parametrize("fields, message", [
    ({"preset": "go"}, "unknown rule preset: 'go' (one of designer, jocly, spargo, custom)"),
    ({"preset": 7}, "unknown rule preset: 7 (one of designer, jocly, spargo, custom)"),
    ({"preset": None}, "unknown rule preset: None (one of designer, jocly, spargo, custom)"),
    ({"preset": "jocly", "rules": {"ko_rule": "situational"}},
     "rules are not Jocly's (preset 'jocly'): ko_rule is situational, the preset has simple; "
     "send preset 'custom' for other rules"),
    ({"preset": "designer", "rules": {"max_level": "2"}},
     "rules are not the designer's rules (preset 'designer'): max_level is 2, the preset has 6; "
     "send preset 'custom' for other rules"),
])
def test_an_unknown_or_contradicted_preset_is_refused_and_nothing_starts(client: TestClient, games_dir: Path,
                                                                       fields: dict, message: str) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        assert start(ws, size=7, **fields) == {"type": "error", "message": message}
        ws.send_json({"type": "play", "move": "A1:1"})
        assert ws.receive_json() == {"type": "error", "message": "no game: start one first"}
    assert not (games_dir / "unfinished").exists() or not list((games_dir / "unfinished").iterdir())
    assert client.get("/api/saved").json()["games"] == []


def test_a_restarted_server_gives_the_game_back_with_its_preset(registry: EngineRegistry, games_dir: Path) -> None:
    with TestClient(create_app(registry, GameStore(games_dir))) as first, first.websocket_connect("/ws") as ws:
        ws.receive_json()
        game = start(ws, size=4, preset="spargo")["game"]
        ws.send_json({"type": "play", "move": "A1:1"})
        ws.receive_json()
    with TestClient(create_app(registry, GameStore(games_dir))) as second, second.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "attach", "game": game})
        state = ws.receive_json()
        assert (state["preset"], state["moves"]) == ("spargo", [{"colour": "W", "move": "A1:1"}])
        (saved,) = second.get("/api/saved").json()["games"]
        assert (saved["unfinished"], saved["preset_title"]) == (True, "Ludii's Spargo")


# ------------------------------------------------------------------ in the browser

def browser_tools():  # noqa: ANN201
    need_module("playwright.sync_api", PLAYWRIGHT)
    from playwright.sync_api import expect
    return expect


FORM = "[data-role=new-game]"


@pytest.mark.process
@pytest.mark.parametrize("width, height, touch", [(360, 640, True), (390, 844, True), (1280, 800, False),
                                                  (1920, 1080, False)])
def test_the_form_offers_the_presets_in_words_with_the_options_folded(open_page, live_server, width: int, height: int,
                                                                     touch: bool) -> None:
    expect = browser_tools()
    page = open_page(width, height, touch=touch)
    page.goto(live_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    form = page.locator(FORM)
    preset = form.locator("[name=preset]")
    # A newcomer gets the designer's game, said in words; the options are folded away.
    expect(preset).to_have_value("designer")
    expect(preset.locator("option")).to_have_text(["the designer's rules", "Jocly's", "Ludii's Spargo", "custom"])
    expect(form.locator("[data-role=preset-words]")).to_have_text(
        "Cameron Browne's own rules, on his 7×7 board: White starts, and Black may swap colours instead of its "
        "first move. No passing, and no position may ever come back. When the player to move has no legal move, "
        "the side with more balls on the board wins.")
    expect(form.locator("[name=ko_rule]")).to_be_hidden()
    assert form.locator("[name=swap]").is_checked()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Spargo: the 4x4 board and its options.
    preset.select_option("spargo")
    expect(form.locator("[name=size]")).to_have_value("4")
    expect(page.locator("g[data-vertex='D4:1']")).to_have_count(1)   # the empty board follows
    expect(page.locator("g[data-vertex='E5:1']")).to_have_count(0)
    assert not form.locator("[name=swap]").is_checked()
    # Unfolded, every option says what it does; changing one makes the rules custom.
    summary = form.locator("[data-role=rule-options] > summary")
    summary.click()
    assert summary.bounding_box()["height"] >= 44 - 0.5
    expect(form.locator("[name=ko_rule]")).to_be_visible()
    assert form.locator("fieldset label").count() == form.locator("fieldset label .hint").count() == 11
    form.locator("[name=ko_rule]").select_option("simple")
    expect(preset).to_have_value("custom")
    expect(form.locator("[data-role=preset-words]")).to_have_text("Your own choice of the rule options below.")
    form.locator("[name=own_freedomless_group]").select_option("illegal")
    expect(preset).to_have_value("jocly")   # these are Jocly's options: the form says so
    form.locator("[name=allow_pass]").check()
    expect(preset).to_have_value("custom")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.process
def test_a_game_with_a_preset_shows_it_in_its_result_and_the_saved_games(open_page, live_server) -> None:
    expect = browser_tools()
    page = open_page(390, 844)
    page.goto(live_server.url)
    expect(page.locator(STATUS)).to_have_text("Choose the players and press Start")
    form = page.locator(FORM)
    form.locator("[name=preset]").select_option("jocly")
    form.locator("[name=size]").select_option("4")   # another board keeps the preset
    form.locator("[name=white]").select_option("human")
    form.locator("[name=black]").select_option("human")
    form.locator("button[type=submit]").tap()
    expect(page.locator(STATUS)).to_have_text("White to move")
    game = page.evaluate("window.margo.game")
    assert (game["preset"], game["rules"]["ko_rule"], game["rules"]["size"]) == ("jocly", "simple", 4)
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    expect(page.locator("[data-role=result-rules]")).to_have_text("Rules: Jocly's")
    expect(page.locator("[data-role=result-rules]")).to_be_in_viewport()
    page.locator("[data-action=rematch]").tap()   # the same rules again, preset and all
    expect(page.locator(STATUS)).to_have_text("White to move")
    assert page.evaluate("window.margo.game.preset") == "jocly"
    page.locator("[data-action=resign]").tap()
    page.locator("[data-action=resign-yes]").tap()
    page.locator("[data-tab=replay]").tap()
    expect(page.locator("[data-role=saved-rules]")).to_have_text(["Jocly's", "Jocly's"])
