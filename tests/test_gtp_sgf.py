"""loadsgf / printsgf through GTP, using margo_gtp.sgf."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from margo_gtp.engine import Board, Colour
from margo_gtp.players import RESIGN, make_player
from margo_gtp.protocol.gtp import GtpEngine
from margo_gtp.protocol.session import make_gtp_engine

def new_engine(player=None) -> GtpEngine:
    return make_gtp_engine(player or make_player("random", 0), stderr=io.StringIO())


def ask(engine: GtpEngine, line: str) -> str:
    response, _ = engine.respond(line)
    assert response is not None
    return response


def play_script(engine: GtpEngine, lines: list[str]) -> None:
    for line in lines:
        assert ask(engine, line) == "=\n\n", line


GAME = ["boardsize 4", "komi 1.5", "margo-setup b d4", "play w a1", "play b b1", "play w a2", "play b b2", "play w a1:2"]


def test_printsgf_to_file_then_loadsgf_restores_the_game(tmp_path: Path) -> None:
    engine = new_engine()
    play_script(engine, GAME)
    path = tmp_path / "game.sgf"
    assert ask(engine, f"printsgf {path}") == "=\n\n"
    other = new_engine()
    assert ask(other, f"loadsgf {path}") == "=\n\n"
    for command in ("margo-board", "margo-get_rules", "final_score", "showboard"):
        assert ask(other, command) == ask(engine, command)
    # the history came along: undo works move by move, down to the set-up root
    for _ in range(5):
        assert ask(other, "undo") == "=\n\n"
    assert ask(other, "undo") == "? cannot undo\n\n"
    assert json.loads(ask(other, "margo-board")[2:])["balls"] == {"D4:1": "B"}


@pytest.mark.parametrize("move_number, balls", [(1, {"D4:1": "B"}), (2, {"A1:1": "W", "D4:1": "B"}), (6, None)])
def test_loadsgf_stops_before_move_number(tmp_path: Path, move_number: int, balls: dict | None) -> None:
    engine = new_engine()
    play_script(engine, GAME)
    path = tmp_path / "game.sgf"
    ask(engine, f"printsgf {path}")
    other = new_engine()
    assert ask(other, f"loadsgf {path} {move_number}") == "=\n\n"
    state = json.loads(ask(other, "margo-board")[2:])
    assert state["moves"] == move_number - 1
    if balls is not None:
        assert state["balls"] == balls
    else:
        assert ask(other, "margo-board") == ask(engine, "margo-board")


def test_printsgf_answers_the_record_without_empty_lines() -> None:
    engine = new_engine()
    play_script(engine, GAME)
    answer = ask(engine, "printsgf")
    assert answer.startswith("= (;FF[4]") and answer.endswith(")\n\n")
    assert "\n\n" not in answer[:-2]
    assert "SZ[4]" in answer and "KM[1.5]" in answer and ";W[ad:1]" in answer.replace("\n", "")


def test_printsgf_records_a_resignation(tmp_path: Path) -> None:
    class Resigner:
        name = "resigner"

        def select_move(self, board, colour, budget):
            return RESIGN

        def notify(self, board, move, colour):
            pass

        def reset(self, board):
            pass

    engine = new_engine(Resigner())
    assert ask(engine, "play w a1") == "=\n\n"
    assert ask(engine, "genmove b") == "= resign\n\n"
    assert "RE[W+R]" in ask(engine, "printsgf")


BAD_FILES = [
    ("not sgf at all", "hello"),
    ("go record of even size", "(;FF[4]GM[1]SZ[8])"),
    ("illegal move", "(;FF[4]GM[77]SZ[4];W[aa:1];B[aa:1])"),
    ("off board", "(;FF[4]GM[77]SZ[4];W[zz:1])"),
    ("bad size", "(;FF[4]GM[77]SZ[40])"),
]


@pytest.mark.parametrize("label, text", BAD_FILES, ids=[label for label, _ in BAD_FILES])
def test_loadsgf_failure_changes_nothing(tmp_path: Path, label: str, text: str) -> None:
    engine = new_engine()
    play_script(engine, GAME)
    before = (ask(engine, "margo-board"), ask(engine, "margo-get_rules"))
    path = tmp_path / "bad.sgf"
    path.write_text(text)
    assert ask(engine, f"loadsgf {path}") == "? cannot load file\n\n"
    assert (ask(engine, "margo-board"), ask(engine, "margo-get_rules")) == before


def test_loadsgf_beyond_the_record_loads_it_all_and_a_binary_file_fails(tmp_path: Path) -> None:
    engine = new_engine()
    play_script(engine, GAME)
    path = tmp_path / "game.sgf"
    ask(engine, f"printsgf {path}")
    other = new_engine()
    assert ask(other, f"loadsgf {path} 99") == "=\n\n"  # as GNU Go: past the end = whole game
    assert ask(other, "margo-board") == ask(engine, "margo-board")
    binary = tmp_path / "binary.sgf"
    binary.write_bytes(b"\xff\xfe\x00(;")
    assert ask(engine, f"loadsgf {binary}") == "? cannot load file\n\n"
    assert ask(engine, f"loadsgf {tmp_path}") == "? cannot load file\n\n"


def test_file_errors_are_explained_in_the_systems_words(tmp_path: Path) -> None:
    stderr = io.StringIO()
    engine = make_gtp_engine(make_player("random", 0), stderr=stderr)
    assert ask(engine, f"loadsgf {tmp_path}") == "? cannot load file\n\n"
    assert ask(engine, f"loadsgf {tmp_path / 'none.sgf'}") == "? cannot load file\n\n"
    assert ask(engine, f"printsgf {tmp_path / 'no' / 'x.sgf'}") == "? cannot save file\n\n"
    assert stderr.getvalue().splitlines() == [
        f"margo-gtp: loadsgf '{tmp_path}': Is a directory",
        f"margo-gtp: loadsgf '{tmp_path / 'none.sgf'}': No such file or directory",
        f"margo-gtp: printsgf '{tmp_path / 'no' / 'x.sgf'}': No such file or directory",
    ]
