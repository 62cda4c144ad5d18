"""The rules page's diagrams (margo_gtp/web/rules_diagrams.py) are real MarGo positions: each
one's moves are legal, one by one, on both rules cores, and what each caption tells a newcomer
(a group's freedoms, a cut, a zombie, a refused point and why, the result) is what the rules
core says of that position. The page draws the frames checked here (tests/web/test_web_learn.py
checks the drawing)."""

from __future__ import annotations

import pytest

from margo_gtp.engine import Board, Move, Rules
from margo_gtp.vertex import format_vertex
from margo_gtp.web.rules_diagrams import DIAGRAMS, Diagram, diagram_frame, diagram_frames
from margo_gtp.web.view import frame

pytestmark = pytest.mark.usefixtures("rules_core")

BY_KEY = {diagram.key: diagram for diagram in DIAGRAMS}
#: The sections of static/rules.js, in order: every diagram belongs to one of them.
SECTIONS = ("rules-placing", "rules-stacking", "rules-freedoms", "rules-bridges", "rules-zombies", "rules-ko",
            "rules-end", "rules-options")


def names(points) -> set[str]:  # noqa: ANN001
    return {format_vertex(point) for point in points}


def group_of(board: Board, word: str) -> tuple[set[str], set[str]]:
    """The group holding the ball at ``word`` and its freedoms, as GTP vertices."""
    g = board.geometry
    group, freedoms = board.group_at(g.index[Move.from_gtp(word, board.size).point])
    return names(g.points_of(group)), names(g.points_of(freedoms))


def balls(board: Board) -> dict[str, str]:
    return {format_vertex(point): colour.letter for point, colour in board.balls().items()}


def refused(board: Board) -> dict[str, str]:
    return {t["v"]: t["why"] for t in frame(board)["targets"] if not t["legal"]}


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=lambda d: d.key)
def test_every_move_of_a_diagram_is_legal_in_turn(diagram: Diagram) -> None:
    board = Board(Rules(size=diagram.size).with_options(diagram.rules))
    for word in diagram.moves:
        move = Move.from_gtp(word, diagram.size)
        assert board.is_legal(move), (diagram.key, word, board.ply)
        board.push(move)
    assert board.ply == len(diagram.moves)
    # What the page is sent is the frame of that very position, marks only where asked.
    sent = diagram_frame(diagram)
    assert sent["frame"] == frame(board, with_targets=diagram.marks)
    assert sent["moves"] == list(diagram.moves) and sent["section"] in SECTIONS


def test_the_diagrams_cover_every_idea_of_the_issue_once_each() -> None:
    assert [d.key for d in DIAGRAMS] == [
        "placing", "stacking-square", "stacking-placed", "freedoms-group", "freedoms-capture", "freedoms-on-top",
        "bridge", "bridge-capture", "zombie", "ko-before", "ko-after", "end"]
    assert [d["key"] for d in diagram_frames()] == [d.key for d in DIAGRAMS]
    assert all(len(d.caption) <= 240 for d in DIAGRAMS)   # a caption is read under a small board


def test_placing_and_stacking_say_what_the_board_holds() -> None:
    board = BY_KEY["placing"].board()
    assert balls(board) == {"B2:1": "W", "C3:1": "B", "C2:1": "W"} and board.to_move.letter == "B"
    square = frame(BY_KEY["stacking-square"].board())
    assert square["to_move"] == "W"
    assert [t["v"] for t in square["targets"] if t["legal"] and t["l"] > 0] == ["A1:2"]   # "the dark dot"
    placed = BY_KEY["stacking-placed"].board()
    assert balls(placed) == {"A1:1": "W", "B1:1": "B", "A2:1": "W", "B2:1": "B", "A1:2": "W"}


def test_freedoms_captions_are_the_rules_cores_freedoms() -> None:
    assert group_of(BY_KEY["freedoms-group"].board(), "B2:1") == (
        {"B2:1", "C2:1"}, {"B1:1", "C1:1", "A2:1", "D2:1", "B3:1", "C3:1"})
    captured = BY_KEY["freedoms-capture"].board()
    assert "A1:1" not in balls(captured) and frame(captured)["captured"] == {"W": 1, "B": 0}
    before = BY_KEY["freedoms-capture"]
    assert group_of(Diagram("x", "", 3, before.moves[:-1], "").board(), "A1:1")[1] == {"B1:1"}
    # On top of four White balls Black has no freedom: only board points count.
    assert refused(BY_KEY["freedoms-on-top"].board()) == {"A1:2": "suicide"}


def test_the_bridge_cuts_and_its_capture_leaves_a_zombie_only_with_bridge_cutting() -> None:
    bridge = BY_KEY["bridge"]
    cut = bridge.board()
    assert group_of(cut, "B2:1")[0] == {"B2:1"} and group_of(cut, "C2:1")[0] == {"C2:1"}
    whole = Diagram("x", "", 4, bridge.moves, "", rules={"bridge_cutting": "off"}).board()
    assert group_of(whole, "B2:1")[0] == {"B2:1", "C2:1"}
    capture = BY_KEY["bridge-capture"]
    assert names(capture.board().zombies()) == {"C2:1"}
    assert names(Diagram("x", "", 4, capture.moves, "", rules={"bridge_cutting": "off"}).board().zombies()) == set()


def test_zombies_ko_and_the_end_are_the_engines() -> None:
    zombie = BY_KEY["zombie"].board()
    assert names(zombie.zombies()) == {"A1:1", "B1:1"} and balls(zombie)["A1:2"] == "W"
    assert group_of(BY_KEY["ko-before"].board(), "B1:1") == ({"B1:1"}, {"C1:1"})
    ko = BY_KEY["ko-after"]
    assert refused(ko.board()) == {"B1:1": "repetition (ko_rule situational)"}
    assert Diagram("x", "", 4, ko.moves, "", rules={"ko_rule": "none"}).board().is_legal(Move.from_gtp("B1:1", 4))
    end = BY_KEY["end"].board()
    outcome = end.outcome()
    assert (outcome.termination.value, outcome.result()) == ("no legal move", "W+1")
    assert (outcome.white_score, outcome.black_score) == (4, 3)
    assert end.to_move.letter == "B" and refused(end) == {"B2:1": "suicide", "C1:1": "suicide"}
