"""margo-gtp-2d's analysis for GoGui: win rates (LABEL), best line (VAR), ownership
(INFLUENCE), read as GoGui 1.6 reads them.

What is copied from GoGui (``src/net/sf/gogui``): ``gtp/AnalyzeDefinition`` splits a
``gogui-analyze_commands`` line on ``/`` into type, label and command (so neither label
nor command may hold a ``/``); ``gui/AnalyzeShow.showGfxLine`` splits a gfx line with
``StringUtil.splitArguments`` and reads ``LABEL point text ...``, ``INFLUENCE point
double ...``, ``VAR b|w point|pass ...`` and ``TEXT text``; ``go/GoPoint.parsePoint``
reads a point (no ``I`` column, rows from 1, inside the board). GoGui ignores what it
cannot read; this parser fails on it instead, and also on a point that names no 3-D
point (a hole of the projected board).

Budgets are playouts (``margo-set_limit playouts=N``) with a seeded engine, so the
transcripts are exact.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gogui_standin import split_arguments
from margo_gtp.gtp2d.engine_pair import READ_ONLY
from margo_gtp.gtp2d.projected_analysis import best_line_gfx, ownership_gfx, winrates_gfx
from margo_gtp.gtp2d.projected_session import ANALYZE_COMMANDS
from margo_gtp.client import SimpleEngine
from margo_gtp.protocol.analysis import parse_info
from margo_gtp.vertex import column_points, format_point_2d, parse_vertex, project, projected_size

BIN = Path(sys.executable).parent
MARGO_GTP = BIN / "margo-gtp"
MARGO_GTP_2D = BIN / "margo-gtp-2d"
ENGINE = f"{MARGO_GTP} --player mcts --seed 1"

pytestmark = pytest.mark.process

#: AnalyzeDefinition's types (anything else is "none").
GOGUI_TYPES = {"bwboard", "cboard", "dboard", "eplist", "gfx", "hstring", "hpstring", "param", "plist",
               "pspairs", "pstring", "string", "sboard", "var", "varb", "varc", "varp", "varpo", "varw"}


def gogui_point(text: str, side: int) -> tuple[int, int] | None:
    """``GoPoint.parsePoint``: None for PASS; ValueError where GoGui throws."""
    text = text.strip().upper()
    if text == "PASS":
        return None
    if len(text) < 2:
        raise ValueError(text)
    letter = text[0]
    if letter == "I" or not "A" <= letter <= "Z":
        raise ValueError(text)  # GoGui would read I as H and a non-letter as garbage: both are bugs here
    x = ord(letter) - ord("A") - (letter >= "J")
    y = int(text[1:]) - 1
    if not (0 <= x < side and 0 <= y < side):
        raise ValueError(text)
    return x, y


def read_gfx(answer: str, size: int, mover: str | None = None) -> dict:
    """A gfx answer read strictly the GoGui way, every point checked to be a projected
    column that holds 3-D points. Returns what GoGui would draw."""
    side = projected_size(size)
    drawn: dict = {"LABEL": {}, "INFLUENCE": {}, "VAR": [], "TEXT": []}

    def point(text: str) -> str:
        place = gogui_point(text, side)
        assert place is not None, f"PASS where a point is needed: {answer!r}"
        assert column_points(*place, size), f"{text} is a hole of the projected board"
        return format_point_2d(*place)

    for line in answer.split("\n"):
        args = split_arguments(line)
        assert args, f"empty gfx line in {answer!r}"
        command = args[0]
        assert command in ("LABEL", "INFLUENCE", "VAR", "TEXT"), line
        if command == "TEXT":
            drawn["TEXT"].append(line.strip().split(" ", 1)[1])
            continue
        pairs = args[1:]
        assert pairs and len(pairs) % 2 == 0, line
        for first, second in zip(pairs[::2], pairs[1::2]):
            if command == "LABEL":
                name = point(first)
                assert name not in drawn["LABEL"], line
                drawn["LABEL"][name] = second
            elif command == "INFLUENCE":
                value = float(second)
                assert -1.0 <= value <= 1.0, line
                drawn["INFLUENCE"][point(first)] = value
            else:
                assert first in ("b", "w"), line
                drawn["VAR"].append((first, "pass" if second.upper() == "PASS" else point(second)))
    if drawn["VAR"] and mover is not None:  # VAR: alternating colours, the mover first
        colours = [colour for colour, _ in drawn["VAR"]]
        assert colours == [("b", "w")[(i + (mover == "w")) % 2] for i in range(len(colours))], answer
    assert len(drawn["TEXT"]) <= 1, "two TEXT lines: GoGui opens a window instead of the status bar"
    return drawn


def run_proxy(commands: list[str], engine: str = ENGINE) -> list[str]:
    """The proxy's answers to ``commands`` (one process), each without its ``= ``."""
    done = subprocess.run([str(MARGO_GTP_2D), "--engine", engine], input="".join(c + "\n" for c in commands),
                          capture_output=True, text=True, timeout=120)
    replies = done.stdout.split("\n\n")[:-1]
    assert len(replies) == len(commands), done.stdout + done.stderr
    assert all(reply.startswith("= ") or reply == "=" for reply in replies), done.stdout
    return [reply[2:] for reply in replies]


def run_native(commands: list[str]) -> list[str]:
    """The engine's answers, each command sent after the last answer (as the proxy does:
    a snapshot stops early when the next command is already queued)."""
    with SimpleEngine.popen(ENGINE.split(), timeout=120) as engine:
        return [engine.do_command(*command.split()) for command in commands]


def test_the_menu_reads_as_gogui_definitions_of_known_commands() -> None:
    answers = run_proxy(["gogui-analyze_commands"] + [f"known_command {line.split('/')[2].split()[0]}"
                                                       for line in ANALYZE_COMMANDS])
    menu = answers[0].split("\n")
    assert menu == list(ANALYZE_COMMANDS)
    assert menu[-3:] == ["gfx/MarGo win rates/margo-gfx_winrates %m",
                         "gfx/MarGo best line/margo-gfx_best_line %m",
                         "gfx/MarGo ownership/margo-gfx_ownership"]
    for line in menu:
        parts = line.split("/")
        assert len(parts) == 3 and parts[0] in GOGUI_TYPES, line
    assert answers[1:] == ["true"] * len(menu)


# A 5x5 projected board (size 3): four balls at level 1 make B2 a column whose lowest
# empty point is the level-2 point A1:2.
SETUP = ["boardsize 5", "play b A1", "play w C1", "play b A3", "play w C3", "margo-set_limit playouts=150"]
NATIVE_SETUP = ["boardsize 3", "play b A1:1", "play w B1:1", "play b A2:1", "play w B2:1",
                "margo-set_limit playouts=150"]

EXPECTED = [
    "LABEL C5 43 E3 40 B2 35 A5 19 E5 43\n"
    "TEXT Black win rates: C5 43% (65 visits), E3 40% (41 visits), B2 35% (32 visits), A5 19% (19 visits), "
    "E5 43% (17 visits)",
    "VAR b C5 w A5 b A3 w E3 b A1 w A5\n"
    "TEXT Black best line: C5 A5 A3 E3 A1 A5, win rate 42% (110 visits)",
    "INFLUENCE A1 0.11 C1 -0.66 E1 0.06 B2 0.02 D2 -0.02 A3 0.20 C3 -0.71 E3 -0.03 B4 -0.01 D4 -0.01 "
    "A5 -0.37 C5 -0.01 E5 -0.09\n"
    "TEXT ownership, Black positive: Black's expected ball margin -1.5 (komi not counted)",
]


def test_exact_answers_draw_the_engines_own_analysis_on_the_projected_board() -> None:
    answers = run_proxy(SETUP + ["margo-gfx_winrates b", "margo-gfx_best_line b", "margo-gfx_ownership"])
    assert answers[len(SETUP):] == EXPECTED
    winrates, line, ownership = (read_gfx(answer, 3, "b") for answer in answers[len(SETUP):])
    assert set(winrates["LABEL"]) == {"C5", "E3", "B2", "A5", "E5"}
    assert [colour for colour, _ in line["VAR"]] == ["b", "w", "b", "w", "b", "w"]
    assert len(ownership["INFLUENCE"]) == 13  # every column of the 5x5 board that holds points

    # The same searches asked of the native engine (same seed, same order): the proxy
    # shows exactly its candidates and line, each move on its column's 2-D point.
    native = run_native(NATIVE_SETUP + ["margo-analyze_snapshot b", "margo-analyze_snapshot b", "margo-ownership"])
    first = [parse_info(text) for text in native[len(NATIVE_SETUP)].strip("\n").split("\n")]
    second = [parse_info(text) for text in native[len(NATIVE_SETUP) + 1].strip("\n").split("\n")]
    assert "A1:2" in [info["move"] for info in first[:5]]  # B2's level-2 point
    assert winrates["LABEL"] == {format_point_2d(*project(parse_vertex(info["move"], 3))): f"{round(info['winrate'] * 100)}"
                                 for info in first[:5]}
    assert [point for _, point in line["VAR"]] == [format_point_2d(*project(parse_vertex(v, 3))) for v in second[0]["pv"]]
    columns: dict[str, float] = {}
    for text in native[len(NATIVE_SETUP) + 2].strip("\n").split("\n"):
        vertex, value = text.split()
        name = format_point_2d(*project(parse_vertex(vertex, 3)))
        columns[name] = columns.get(name, 0.0) + float(value)
    assert ownership["INFLUENCE"] == {name: round(max(-1.0, min(1.0, value)), 2) for name, value in columns.items()}


def test_a_finished_game_has_no_candidates_and_bad_input_gets_one_line() -> None:
    commands = ["boardsize 3", "play b pass", "play w pass", "margo-gfx_winrates w", "margo-gfx_best_line b"]
    assert run_proxy(commands, f"{ENGINE} --rule allow_pass=on")[3:] == ["TEXT White: no candidate moves", "TEXT Black: no candidate moves"]
    bad = ["margo-gfx_winrates", "margo-gfx_winrates purple", "margo-gfx_best_line b 1 2", "margo-gfx_winrates b x",
           "margo-gfx_ownership 1 2", "margo-gfx_ownership 6001"]
    done = subprocess.run([str(MARGO_GTP_2D), "--engine", ENGINE], input="".join(c + "\n" for c in bad + ["name"]),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout == "? syntax error\n\n" * len(bad) + "= margo-gtp\n\n"


def test_with_two_engines_the_first_alone_answers_the_analysis() -> None:
    """--white-engine: what the gfx commands ask only reads the game, so Black's engine
    answers it alone (both would search, and could disagree)."""
    assert {"margo-analyze_snapshot", "margo-ownership", "margo-board"} <= READ_ONLY
    two = f"{ENGINE} --rule allow_pass=on"  # other rules: its searches would answer otherwise
    done = subprocess.run([str(MARGO_GTP_2D), "--engine", ENGINE, "--white-engine", two],
                          input="".join(c + "\n" for c in SETUP + ["margo-gfx_winrates b", "margo-gfx_best_line b",
                                                                    "margo-gfx_ownership"]),
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n\n")[len(SETUP):-1] == ["= " + answer for answer in EXPECTED]


def test_pass_and_swap_in_the_engines_answer() -> None:
    """pass is a VAR move GoGui counts and does not draw; swap has no point: the line stops."""
    infos = [{"move": "swap", "visits": 30, "winrate": 0.55, "prior": 0.5, "order": 0, "pv": ["swap", "A1:1"]},
             {"move": "B2:1", "visits": 20, "winrate": 0.5, "prior": 0.5, "order": 1,
              "pv": ["B2:1", "pass", "A1:2", "swap"]},
             {"move": "pass", "visits": 5, "winrate": 0.125, "prior": 0.5, "order": 2, "pv": ["pass"]}]
    assert winrates_gfx(infos, "W", 3) == (
        "LABEL C3 50\nTEXT White win rates: swap 55% (30 visits), C3 50% (20 visits), pass 12% (5 visits)")
    assert best_line_gfx(infos, "W", 3) == "TEXT White best line: swap, win rate 55% (30 visits)"
    answer = best_line_gfx(infos[1:], "W", 3)
    assert answer == "VAR w C3 b pass w B2\nTEXT White best line: C3 pass B2, win rate 50% (20 visits)"
    assert read_gfx(answer, 3, "w")["VAR"] == [("w", "C3"), ("b", "pass"), ("w", "B2")]


def test_ownership_sums_a_column_and_caps_it_for_gogui() -> None:
    # On a 5x5 board the column of C3 holds B2:1 and A1:3: 0.7 + 0.6 is capped to 1.
    answer = ownership_gfx("B2:1 0.700\nA1:3 0.600\nA1:1 -0.004\nC3:1 -1.000\n", 3)
    drawn = read_gfx(answer, 3)
    assert drawn["INFLUENCE"]["C3"] == 1.0 and drawn["INFLUENCE"]["A1"] == 0.0 and drawn["INFLUENCE"]["E5"] == -1.0
    assert drawn["TEXT"] == ["ownership, Black positive: Black's expected ball margin +0.3 (komi not counted)"]
    with pytest.raises(ValueError):
        ownership_gfx("Z9:1 0.5\n", 3)


def test_the_status_line_names_what_the_engines_ownership_is() -> None:
    """The sum of an mcts search's values is a ball margin; of the net's ownership head, a
    margin of owned points (territory counted). Neither counts komi. A kind the proxy does
    not know reads as balls, the meaning of every engine before margo-ownership_kind."""
    answer = "B2:1 0.700\nA1:3 0.600\nA1:1 -0.004\nC3:1 -1.000\n"
    influence = ownership_gfx(answer, 3).split("\n")[0]
    assert ownership_gfx(answer, 3, "owners") == (
        influence + "\nTEXT ownership, Black positive: Black's expected margin of owned points +0.3 "
        "(the net's ownership head, territory counted; komi not counted)")
    assert ownership_gfx(answer, 3, "balls") == ownership_gfx(answer, 3, "xyzzy") == ownership_gfx(answer, 3)


def test_with_the_default_engine_on_7x7_the_status_line_is_the_nets() -> None:
    """margo-gtp's default (strongest) is the net on 7x7: margo-ownership_kind says so, and
    the status line names owned points; the mcts engine's stays the ball margin."""
    setup = ["boardsize 13", "play b G7", "margo-set_limit playouts=16"]
    answers = run_proxy(setup + ["margo-ownership_kind", "margo-gfx_ownership"], str(MARGO_GTP))
    assert answers[3] == "owners"
    drawn = read_gfx(answers[4], 7)
    assert len(drawn["TEXT"]) == 1 and drawn["TEXT"][0].startswith(
        "ownership, Black positive: Black's expected margin of owned points ")
    assert drawn["TEXT"][0].endswith(" (the net's ownership head, territory counted; komi not counted)")
    mcts = run_proxy(setup + ["margo-ownership_kind", "margo-gfx_ownership"])
    assert mcts[3] == "balls"
    assert read_gfx(mcts[4], 7)["TEXT"][0].endswith(" (komi not counted)") and "ball margin" in mcts[4]
