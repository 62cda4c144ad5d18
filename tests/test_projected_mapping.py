"""The projected view (gtp.md section 5) is a faithful 2-D encoding of MarGo moves.

Pure geometry, no engine: every 3-D point lies in exactly one 2-D column; the columns are
exactly the same-parity points of the (2N-1)x(2N-1) board; and in every position that play
can reach (balls stand only on full supports; captures lift only balls nothing rests on),
the 2-D -> 3-D lift (lowest empty point of the column) is a bijection between the columns
holding a placeable point and the placeable points, for every N from 2 to 13.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.gtp2d.projection import board_rows, lift, project_vertex, top_view
from margo_gtp.vertex import (
    InvalidVertexError,
    Point,
    column_points,
    format_point_2d,
    gtp_order,
    parse_point_2d,
    project,
    projected_size,
)

SIZES = range(2, 14)


def all_points(size: int) -> list[Point]:
    return [Point(x, y, level) for level in range(size) for y in range(size - level) for x in range(size - level)]


def supports(point: Point) -> list[Point]:
    if point.level == 0:
        return []
    return [Point(point.x + dx, point.y + dy, point.level - 1) for dx in (0, 1) for dy in (0, 1)]


def resting_on(point: Point, size: int) -> list[Point]:
    above = [Point(point.x - dx, point.y - dy, point.level + 1) for dx in (0, 1) for dy in (0, 1)]
    return [p for p in above if p.x >= 0 and p.y >= 0 and p.on_board(size)]


def placeable(point: Point, occupied: set[Point]) -> bool:
    return point not in occupied and all(s in occupied for s in supports(point))


@pytest.mark.parametrize("size", SIZES)
def test_columns_partition_the_pyramid(size: int) -> None:
    side = projected_size(size)
    seen: dict[Point, tuple[int, int]] = {}
    for col in range(side):
        for row in range(side):
            column = column_points(col, row, size)
            assert [p.level for p in column] == sorted(p.level for p in column)
            for point in column:
                assert point not in seen, f"{point} in two columns"
                assert project(point) == (col, row)
                seen[point] = (col, row)
            # a column is a chain: each point sits straight above the previous one (R3)
            for lower, upper in zip(column, column[1:]):
                assert upper == Point(lower.x - 1, lower.y - 1, lower.level + 2)
    assert set(seen) == set(all_points(size))
    assert len(seen) == size * (size + 1) * (2 * size + 1) // 6


@pytest.mark.parametrize("size", SIZES)
def test_playable_columns_are_the_same_parity_points(size: int) -> None:
    side = projected_size(size)
    columns = {(c, r) for c in range(side) for r in range(side) if column_points(c, r, size)}
    assert columns == {(c, r) for c in range(side) for r in range(side) if (c + r) % 2 == 0}
    assert len(columns) == size * size + (size - 1) * (size - 1)
    assert {project(p) for p in all_points(size)} == columns


def reachable_position(size: int, rng: random.Random, steps: int) -> set[Point]:
    """Random placements on supported points mixed with capture-like removals of balls
    that nothing rests on: exactly the occupancies MarGo play can produce. The set of
    placeable points is kept up to date locally (only the balls resting on a changed
    point can change), which keeps N = 13 fast."""
    occupied: set[Point] = set()
    candidates = {p for p in all_points(size) if p.level == 0}
    for _ in range(steps):
        if occupied and rng.random() < 0.25:
            removable = [p for p in occupied if not any(q in occupied for q in resting_on(p, size))]
            point = rng.choice(sorted(removable, key=gtp_order))
            occupied.discard(point)
            candidates.add(point)
            candidates.difference_update(resting_on(point, size))
            continue
        if not candidates:
            break
        point = rng.choice(sorted(candidates, key=gtp_order))
        occupied.add(point)
        candidates.discard(point)
        candidates.update(q for q in resting_on(point, size) if placeable(q, occupied))
    assert candidates == {p for p in all_points(size) if placeable(p, occupied)}
    return occupied


@settings(max_examples=60, deadline=None)
@given(size=st.sampled_from(list(SIZES)), seed=st.integers(0, 2**32 - 1), fill=st.floats(0.0, 1.2))
def test_lift_is_a_bijection_onto_placeable_points(size: int, seed: int, fill: float) -> None:
    rng = random.Random(seed)
    total = size * (size + 1) * (2 * size + 1) // 6
    occupied = reachable_position(size, rng, int(total * fill))
    side = projected_size(size)
    targets = {p for p in all_points(size) if placeable(p, occupied)}
    lifted = {}
    for col in range(side):
        for row in range(side):
            point = lift(col, row, size, occupied)
            if point is not None and placeable(point, occupied):
                lifted[(col, row)] = point
    # injective (one column per point) and onto the placeable points
    assert len(set(lifted.values())) == len(lifted)
    assert set(lifted.values()) == targets
    # and the native move projects back to the column it was lifted from
    for (col, row), point in lifted.items():
        assert project(point) == (col, row)


@pytest.mark.parametrize("size", SIZES)
def test_lift_walks_up_a_column(size: int) -> None:
    side = projected_size(size)
    centre = side // 2 if (side // 2) % 2 == 0 else side // 2 - 1
    column = column_points(centre, centre, size)
    occupied: set[Point] = set()
    for point in column:
        assert lift(centre, centre, size, occupied) == point
        occupied.add(point)
    assert lift(centre, centre, size, occupied) is None
    assert lift(0, 1, size, occupied) is None  # mixed parity: never a point


@pytest.mark.parametrize(
    "vertex, size, expected",
    [
        ("A1:1", 9, "A1"),
        ("D4:1", 9, "G7"),
        ("A1:2", 9, "B2"),
        ("D4:2", 9, "H8"),
        ("A1:9", 9, "J9"),
        ("J9:1", 9, "R17"),
        ("e5:1", 5, "J9"),
        ("pass", 9, "pass"),
        ("RESIGN", 9, "resign"),
        ("swap", 9, "swap"),
    ],
)
def test_project_vertex_table(vertex: str, size: int, expected: str) -> None:
    assert project_vertex(vertex, size) == expected
    if expected not in ("pass", "resign", "swap"):
        col, row = parse_point_2d(expected, projected_size(size))
        assert format_point_2d(col, row) == expected


@pytest.mark.parametrize("vertex", ["K10:1", "A1:10", "Z9", "", "D4:0"])
def test_project_vertex_rejects_bad_vertices(vertex: str) -> None:
    with pytest.raises(InvalidVertexError):
        project_vertex(vertex, 9)


def test_board_rows_top_view_of_a_small_pyramid() -> None:
    # N=2: 2-D board 3x3. Level-1 A1..B2 at the corners, level-2 A1:2 at the centre B2.
    balls = {Point(0, 0, 0): "W", Point(1, 0, 0): "B", Point(0, 1, 0): "B", Point(1, 1, 0): "W"}
    assert board_rows(2, balls) == ["X ? O", "? . ?", "O ? X"]
    balls[Point(0, 0, 1)] = "B"
    assert board_rows(2, balls, hole=".") == ["X . O", ". X .", "O . X"]
    assert top_view(balls)[(1, 1)] == (Point(0, 0, 1), "B")


def gogui_ruler_board(text: str, side: int) -> list[str]:
    """How GoGui reads a gogui-rules_board answer (its GenericBoard): it walks the text
    counting only 'X', 'O' and '.', `side` of them per row, top row first, and skips every
    other character."""
    cells = [c for c in text if c in "XO."]
    return ["".join(cells[i * side:(i + 1) * side]) for i in range(side)]


def test_gogui_reads_the_board_only_with_dots_for_holes() -> None:
    balls = {Point(0, 0, 0): "W", Point(1, 0, 0): "B", Point(0, 1, 0): "B", Point(1, 1, 0): "W",
             Point(0, 0, 1): "B", Point(2, 2, 0): "W"}
    size = 3
    dots = "\n".join(board_rows(size, balls, hole="."))
    assert gogui_ruler_board(dots, 5) == ["....O", ".....", "X.O..", ".X...", "O.X.."]
    marks = "\n".join(board_rows(size, balls))
    assert gogui_ruler_board(marks, 5) != gogui_ruler_board(dots, 5)  # '?' shifts GoGui's columns
