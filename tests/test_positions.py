"""Every worked example of positions.md against the engine, in all 8 symmetries.

A symmetry of the square maps each level's grid onto itself (level ``l`` has side
``N-l``), so it maps supports, contacts and crossings onto their images: every example
must give the mirrored result. Checked: legality of each move, the exact ball sets after,
and that an illegal move leaves balls, side to move and history unchanged.
"""

from __future__ import annotations

import pytest

import reference_rules as ref
from margo_gtp.engine import IllegalMoveError
from rules_cases import (
    POSITIONS_MD, SYMMETRY_NAMES, PositionCase, balls_of, case_balls, engine_board, engine_colour,
    engine_move, transform,
)

# Every test here runs on both rules cores, but those marked reference_only (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("rules_core")

CASES = [
    pytest.param(case, symmetry, id=f"{case.name.split()[0]}-{SYMMETRY_NAMES[symmetry]}")
    for case in POSITIONS_MD
    for symmetry in range(8)
]


def mapped(balls: dict, symmetry: int, size: int) -> dict:
    return {transform(p, symmetry, size): c for p, c in balls.items()}


@pytest.mark.parametrize("case, symmetry", CASES)
def test_positions_md_in_every_symmetry(case: PositionCase, symmetry: int) -> None:
    size = case.size
    start = mapped(case_balls(size, case.white, case.black), symmetry, size)
    board = engine_board({"size": size, **case.options}, start, case.to_move)
    for colour, text, legal in case.moves:
        (point,) = ref.parse_balls(text, size)
        move = engine_move(transform(point, symmetry, size))
        picture = ref.diagram(balls_of(board), size)
        assert board.is_legal(move, engine_colour(colour)) is legal, f"{colour} {move!r}\n{picture}"
        if legal:
            board.push(move, engine_colour(colour))
        else:
            before = (balls_of(board), board.to_move, list(board.history))
            with pytest.raises(IllegalMoveError):
                board.push(move, engine_colour(colour))
            assert (balls_of(board), board.to_move, list(board.history)) == before
    white = case.white if case.after_white is None else case.after_white
    black = case.black if case.after_black is None else case.after_black
    expected = mapped(case_balls(size, white, black), symmetry, size)
    got = balls_of(board)
    assert got == expected, f"got:\n{ref.diagram(got, size)}\nexpected:\n{ref.diagram(expected, size)}"


@pytest.mark.reference_only
@pytest.mark.parametrize("symmetry", range(8), ids=SYMMETRY_NAMES)
def test_transform_maps_supports_onto_supports(symmetry: int) -> None:
    """The symmetry helper itself: the image of a point rests on the images of its supports."""
    size = 5
    for point in ref.all_points(size):
        image = transform(point, symmetry, size)
        assert ref.exists(image, size)
        assert sorted(transform(s, symmetry, size) for s in ref.supports_of(point)) == sorted(ref.supports_of(image))
