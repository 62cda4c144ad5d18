"""The GoGui and gogui-twogtp command lines of the docs, run as written.

Every ``sh`` block of README.md and docs/*.md that calls ``gogui`` or ``gogui-twogtp`` is
run by bash, with those two names bound to tests/gogui_standin.py: a stand-in that splits
program command lines exactly as GoGui does (on double quotes only), honours twogtp's
``-size``, starts every engine and has a short GTP conversation with it. Each engine must
start and answer every command. GoGui itself (Java) is not installed here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gogui_standin import split_arguments

ROOT = Path(__file__).resolve().parent.parent
STANDIN = Path(__file__).resolve().parent / "gogui_standin.py"
BIN = Path(sys.executable).parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
GOGUI_CALL = re.compile(r"^\s*(gogui|gogui-twogtp)\s", re.MULTILINE)
VERTEX_2D = re.compile(r"= [A-HJ-Z][0-9]{1,2}")

pytestmark = pytest.mark.process


def gogui_blocks() -> list[tuple[str, str]]:
    """``(where, code)`` of every sh block that calls gogui or gogui-twogtp."""
    blocks = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            code = match.group(1)
            if GOGUI_CALL.search(code):
                line = text[: match.start()].count("\n") + 1
                blocks.append((f"{path.relative_to(ROOT)}:{line}", code))
    return blocks


def run_with_standin(code: str, tmp_path: Path) -> list[dict]:
    """Run ``code`` with bash, gogui/gogui-twogtp being the stand-in; its reports."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    for tool in ("gogui", "gogui-twogtp"):
        wrapper = bindir / tool
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN}" {tool} "$@"\n')
        wrapper.chmod(0o755)
    report = tmp_path / "report.jsonl"
    report.unlink(missing_ok=True)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{BIN}{os.pathsep}{os.environ['PATH']}",
               GOGUI_STANDIN_REPORT=str(report))
    done = subprocess.run(["bash", "-e", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def engines(report: dict) -> list[dict]:
    """Every engine conversation in a report (nested twogtp included)."""
    found = []
    for key in ("engine", "black", "white"):
        if key in report:
            found.append(report[key])
    if "twogtp" in report:
        found += engines(report["twogtp"])
    return found


def errors(report: dict) -> list[str]:
    found = [report["error"]] if "error" in report else []
    if "twogtp" in report:
        found += errors(report["twogtp"])
    return found + [engine["error"] for engine in engines(report) if "error" in engine]


def test_the_docs_show_gogui_and_twogtp_commands() -> None:
    codes = "\n".join(code for _, code in gogui_blocks())
    assert len(GOGUI_CALL.findall(codes)) >= 3
    assert "gogui-twogtp -black" in codes and "gogui -size 17 -program" in codes


@pytest.mark.parametrize("where, code", gogui_blocks(), ids=[where for where, _ in gogui_blocks()])
def test_documented_gogui_command_starts_every_engine(where: str, code: str, tmp_path: Path) -> None:
    reports = run_with_standin(code, tmp_path)
    assert len(reports) == len(GOGUI_CALL.findall(code)), where
    for report in reports:
        assert errors(report) == [], (where, report)
        conversations = engines(report)
        assert conversations, (where, report)
        for engine in conversations:
            assert engine["argv"][0] == "margo-gtp-2d", (where, engine)
            assert engine["returncode"] == 0, (where, engine)
            assert all(reply.startswith("=") for reply in engine["replies"]), (where, engine)
            genmoves = engine["replies"][5:7]
            assert all(VERTEX_2D.fullmatch(reply) for reply in genmoves), (where, engine)
        if report["tool"] == "gogui" and "engine" in report:  # the program is GoGui's ruler
            assert report["engine"]["replies"][7:9] == ["= Margo", "= 17"]
            assert len(report["engine"]["replies"][9].split("\n")) == 1 + 17  # '= ' then 17 rows


def test_the_twogtp_example_reaches_the_engine_with_its_options(tmp_path: Path) -> None:
    [(where, code)] = [block for block in gogui_blocks() if "BLACK=" in block[1]]
    [report] = run_with_standin(code, tmp_path)
    assert report["black"]["argv"] == ["margo-gtp-2d", "--engine", "margo-gtp --rule first_player=black --seed 1"]
    assert report["white"]["argv"] == ["margo-gtp-2d", "--engine", "margo-gtp --rule first_player=black --seed 2"]


def test_single_quotes_inside_double_quotes_fail_as_in_gogui(tmp_path: Path) -> None:
    """The README's old example: GoGui does not read single quotes, so the proxy gets
    "'margo-gtp" and "1'" as words and ends at once."""
    code = "BLACK=\"margo-gtp-2d --engine 'margo-gtp --seed 1'\"\ngogui-twogtp -black \"$BLACK\" -white \"$BLACK\" -size 17\n"
    [report] = run_with_standin(code, tmp_path)
    assert report["black"]["argv"] == ["margo-gtp-2d", "--engine", "'margo-gtp", "--seed", "1'"]
    assert report["black"]["error"] == "The Go program terminated unexpectedly"


def test_gogui_with_twogtp_needs_the_inner_size(tmp_path: Path) -> None:
    code = 'gogui -size 17 -computer-both -program "gogui-twogtp -black \\"margo-gtp-2d\\" -white \\"margo-gtp-2d\\" -komi 0"\n'
    [report] = run_with_standin(code, tmp_path)
    assert errors(report) == ["Size must be 19"]


@pytest.mark.parametrize(
    "line, words",
    [
        ('a b  c', ["a", "b", "c"]),
        ('gogui-twogtp -black "margo-gtp-2d --engine x"', ["gogui-twogtp", "-black", "margo-gtp-2d --engine x"]),
        ("x 'a b'", ["x", "'a", "b'"]),  # single quotes are ordinary characters
        ('x "a \\"b c\\" d"', ["x", 'a \\"b c\\" d']),  # an escaped quote stays, backslash and all
        ('x ""', ["x", ""]),
        ('x"y z"', ["xy z"]),  # an opening quote does not end the word before it
    ],
)
def test_split_arguments_is_gogui_s(line: str, words: list[str]) -> None:
    assert split_arguments(line) == words


def test_gogui_takes_the_board_size_from_the_ruler(tmp_path: Path) -> None:
    """GoGui's -size is overridden by the ruler's gogui-rules_board_size: the size is the
    engine's (docs/adapters.md, GoGui: board size)."""
    code = ('gogui -size 9 -program "margo-gtp-2d"\n'
            'gogui -size 17 -program "margo-gtp-2d --engine \\"margo-gtp --size 5\\""\n')
    default, small = run_with_standin(code, tmp_path)
    assert (default["size"], small["size"]) == (17, 9)
    for report in (default, small):
        assert errors(report) == [] and all(reply.startswith("=") for reply in report["engine"]["replies"])
    assert small["engine"]["replies"][8] == "= 9"


def twogtp_reports(reports: list[dict]) -> list[dict]:
    found = []
    for report in reports:
        if report["tool"] == "gogui-twogtp":
            found.append(report)
        if "twogtp" in report:
            found.append(report["twogtp"])
    return found


@pytest.mark.parametrize("where, code", gogui_blocks(), ids=[where for where, _ in gogui_blocks()])
def test_documented_twogtp_engines_let_black_move_first(where: str, code: str, tmp_path: Path) -> None:
    """twogtp always asks Black first: every engine it runs says first_player=black."""
    for report in twogtp_reports(run_with_standin(code, tmp_path)):
        for colour in ("black", "white"):
            assert "--rule first_player=black" in " ".join(report[colour]["argv"]), (where, colour)


def test_documented_twogtp_matches_raise_the_move_limit() -> None:
    """twogtp ends a game after 1000 moves by default, without a result; random MarGo
    games on 9x9 go past that about one time in four. Checked by hand with twogtp 1.6.0:
    a 2,430-move game overflowed its SGF writer on Java's default stack."""
    matches = [code for _, code in gogui_blocks() if "-games" in code]
    assert matches
    for code in matches:
        words = code.replace("\\\n", " ").split()
        assert "-maxmoves" in words and int(words[words.index("-maxmoves") + 1]) > 1000
        # twogtp's recursive SGF writer overflows Java's default stack near 2,400 moves
        assert int(words[words.index("-maxmoves") + 1]) <= 2000 or "JAVA_TOOL_OPTIONS=-Xss64m \\\n" in code


# GoGui 1.6's GtpUtil.isStateChangingCommand: the shell refuses these.
BOARD_CHANGING = {
    "boardsize", "black", "clear_board", "fixed_handicap", "genmove", "genmove_black", "genmove_cleanup",
    "genmove_white", "gg-undo", "gogui-play_sequence", "kgs-genmove_cleanup", "loadsgf", "place_free_handicap",
    "play", "play_sequence", "quit", "set_free_handicap", "undo", "white",
}


def test_the_docs_send_no_board_changing_command_through_gogui_s_shell() -> None:
    text = " ".join((ROOT / "docs" / "adapters.md").read_text(encoding="utf-8").split())
    [bullet] = re.findall(r"\*\*GTP shell\*\*: (.*?) #### Komi", text)
    refused, allowed = bullet.split("the shell is for the rest")
    assert {word.split()[0] for word in re.findall(r"`([^`]+)`", refused)} <= BOARD_CHANGING
    named = {word.split()[0] for word in re.findall(r"`([^`]+)`", allowed)}
    assert named and not named & BOARD_CHANGING
    assert "GTP shell always works" not in text and "shell always" not in text
