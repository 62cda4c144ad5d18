"""The oracle checked against the worked examples of positions.md (and basic geometry).

If the reference itself were wrong, every engine comparison built on it would be
worthless; these tests pin it to the designer-checked examples.
"""

from __future__ import annotations

import pytest

import reference_rules as ref
from rules_cases import POSITIONS_MD, SYMMETRY_NAMES, PositionCase, run_case_on_reference


def reference_position(case: PositionCase) -> ref.ReferenceBoard:
    board = ref.ReferenceBoard(ref.RefRules.from_options({"size": case.size, **case.options}))
    balls = {p: ref.WHITE for p in ref.parse_balls(case.white, case.size)}
    balls.update({p: ref.BLACK for p in ref.parse_balls(case.black, case.size)})
    board.setup(balls, to_move=case.to_move)
    return board


def expected_after(case: PositionCase) -> dict[tuple[int, int, int], str]:
    white = case.white if case.after_white is None else case.after_white
    black = case.black if case.after_black is None else case.after_black
    balls = {p: ref.WHITE for p in ref.parse_balls(white, case.size)}
    balls.update({p: ref.BLACK for p in ref.parse_balls(black, case.size)})
    return balls


@pytest.mark.parametrize("case", POSITIONS_MD, ids=lambda case: case.name.split()[0])
def test_positions_md_on_reference(case: PositionCase) -> None:
    board = reference_position(case)
    for colour, text, legal in case.moves:
        (point,) = ref.parse_balls(text, case.size)
        before = dict(board.balls)
        assert board.is_legal(point, colour) is legal, f"{colour} {text}\n{ref.diagram(board.balls, case.size)}"
        if legal:
            board.play(point, colour)
        else:
            with pytest.raises(ref.ReferenceIllegalMove):
                board.play(point, colour)
            assert board.balls == before
    expected = expected_after(case)
    assert board.balls == expected, (
        f"got:\n{ref.diagram(board.balls, case.size)}\nexpected:\n{ref.diagram(expected, case.size)}"
    )


@pytest.mark.parametrize("symmetry", range(1, 8), ids=SYMMETRY_NAMES[1:])
@pytest.mark.parametrize("case", POSITIONS_MD, ids=lambda case: case.name.split()[0])
def test_positions_md_on_reference_in_every_symmetry(case: PositionCase, symmetry: int) -> None:
    run_case_on_reference(case, symmetry)


@pytest.mark.parametrize("size, total", [(2, 5), (4, 30), (7, 140), (9, 285), (19, 2470)])
def test_point_count_is_square_pyramidal(size: int, total: int) -> None:
    assert len(ref.all_points(size)) == total == size * (size + 1) * (2 * size + 1) // 6


def test_t4_zombie_is_derived_it_lives_again_once_a1_is_lifted() -> None:
    """During the cascade B1 is dead but pinned (a zombie); lifting A1 gives it the freedom
    A1, so after the move it is an ordinary ball (R15: no zombie flag is stored)."""
    (case,) = [c for c in POSITIONS_MD if c.name.startswith("T4")]
    board = reference_position(case)
    board.play((0, 1, 0), ref.WHITE)
    assert board.zombies() == set()
    assert board.captured == {ref.WHITE: 1, ref.BLACK: 0}
    assert ref.freedoms(ref.group_of((1, 0, 0), board.balls, board.rules), board.balls, board.rules) == {(0, 0, 0)}


def test_reference_undo_restores_everything() -> None:
    board = ref.ReferenceBoard(size=4)
    snapshots = []
    for move in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1)]:
        snapshots.append((dict(board.balls), board.to_move, list(board.history), list(board.positions)))
        board.play(move)
    for snapshot in reversed(snapshots):
        board.undo()
        assert (dict(board.balls), board.to_move, list(board.history), list(board.positions)) == snapshot
    with pytest.raises(IndexError):
        board.undo()


def test_lifting_is_top_down_and_leaves_pinned_balls() -> None:
    """R13.3: of a dead set, only balls with nothing resting on them go, repeatedly."""
    balls = {(0, 0, 0): "B", (1, 0, 0): "B", (0, 1, 0): "B", (1, 1, 0): "W", (0, 0, 1): "B", (2, 0, 0): "W"}
    dead = {(0, 0, 0), (1, 0, 0), (0, 0, 1)}
    removed = ref.lift_top_down(dead, balls, 4)
    assert removed == [(0, 0, 1), (0, 0, 0), (1, 0, 0)]
    pinned = {(0, 0, 0): "B", (1, 0, 0): "B", (0, 1, 0): "W", (1, 1, 0): "W", (0, 0, 1): "W"}
    assert ref.lift_top_down({(0, 0, 0), (1, 0, 0)}, pinned, 4) == []


@pytest.mark.parametrize(
    "a, b, crossing",
    [((1, 1, 0), (2, 1, 0), ((1, 0, 1), (1, 1, 1))), ((1, 1, 0), (1, 2, 0), ((0, 1, 1), (1, 1, 1))),
     ((2, 1, 0), (1, 1, 0), ((1, 0, 1), (1, 1, 1)))],
)
def test_crossing_points_follow_r10(a, b, crossing) -> None:
    assert ref.crossing_points(a, b) == crossing


def test_rules_round_trip_through_option_text() -> None:
    rules = ref.RefRules.from_options({"size": "5", "swap": "on", "ko_rule": "simple", "komi": "0.5",
                                       "first_player": "black", "max_level": "2"})
    assert ref.RefRules.from_options(rules.options()) == rules
    with pytest.raises(ValueError):
        ref.RefRules.from_options({"ko_rule": "japanese"})
