"""The coordinate module: 3-D GTP vertices, projected 2-D points, exact inverses."""

import pytest
from hypothesis import given, settings, strategies as st

from margo_gtp.vertex import (
    COLUMNS, InvalidVertexError, Point, column_points, format_point_2d, format_vertex, gtp_order,
    parse_decimal, parse_integer, parse_point_2d, parse_vertex, project, projected_size, size_from_projected,
)

PARSE_CASES = [
    # text, size, point
    ("A1:1", 9, Point(0, 0, 0)),
    ("a1", 9, Point(0, 0, 0)),
    ("D4:1", 9, Point(3, 3, 0)),
    ("d4", 9, Point(3, 3, 0)),
    ("C3:2", 9, Point(2, 2, 1)),
    ("c3:2", 9, Point(2, 2, 1)),
    ("J9:1", 9, Point(8, 8, 0)),      # J is the 9th column: I is skipped
    ("H8:2", 9, Point(7, 7, 1)),      # level 2 of 9x9 is 8x8
    ("A1:9", 9, Point(0, 0, 8)),      # the apex
    ("B2:2", 2, None),                # level 2 of a 2x2 board has one point only
    ("A1:2", 2, Point(0, 0, 1)),
    ("T19:1", 19, Point(18, 18, 0)),
    (" D4:1 ", 9, Point(3, 3, 0)),
]


@pytest.mark.parametrize("text, size, point", PARSE_CASES)
def test_parse_vertex(text, size, point):
    if point is None:
        with pytest.raises(InvalidVertexError, match="off board"):
            parse_vertex(text, size)
    else:
        assert parse_vertex(text, size) == point


BAD_VERTICES = [
    # text, size, message fragment
    ("I1", 9, "malformed vertex: 'I1'"),          # no I column in GTP
    ("K1", 9, "vertex is off board: 'K1'"),       # column 10 on a 9x9 board
    ("A10", 9, "vertex is off board: 'A10'"),
    ("A0", 9, "vertex is off board: 'A0'"),
    ("H9:2", 9, "vertex is off board: 'H9:2'"),   # row 9 does not exist on level 2
    ("A1:10", 9, "vertex is off board: 'A1:10'"),
    ("A1:0", 9, "vertex is off board: 'A1:0'"),
    ("A1:", 9, "malformed vertex: 'A1:'"),
    ("A:1", 9, "malformed vertex: 'A:1'"),
    ("11", 9, "malformed vertex: '11'"),
    ("", 9, "malformed vertex: ''"),
    ("pass", 9, "malformed vertex: 'pass'"),
    ("D4:1:1", 9, "malformed vertex: 'D4:1:1'"),
    ("D-4", 9, "malformed vertex: 'D-4'"),
    # only ASCII digits: other scripts' digits are not GTP (re's \\d would take them)
    ("A\u0661", 9, "malformed vertex: 'A\u0661'"),          # Arabic-Indic one
    ("A1:\u0661", 9, "malformed vertex: 'A1:\u0661'"),
    ("D\uff14", 9, "malformed vertex: 'D\uff14'"),          # fullwidth four
    ("A\u00b9", 9, "malformed vertex: 'A\u00b9'"),          # superscript one
]


@pytest.mark.parametrize("text, size, message", BAD_VERTICES)
def test_bad_vertices_quote_the_input(text, size, message):
    with pytest.raises(InvalidVertexError) as info:
        parse_vertex(text, size)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ValueError)


def all_points(size):
    return [Point(x, y, l) for l in range(size) for y in range(size - l) for x in range(size - l)]


@pytest.mark.parametrize("size", [2, 4, 9, 13, 19])
def test_format_and_parse_are_exact_inverses(size):
    points = all_points(size)
    assert len(points) == size * (size + 1) * (2 * size + 1) // 6
    texts = [format_vertex(p) for p in points]
    assert len(set(texts)) == len(points)
    for point, text in zip(points, texts):
        assert text == text.upper() and ":" in text
        assert parse_vertex(text, size) == point
        assert parse_vertex(text.lower(), size) == point


def test_gtp_order_is_level_row_column():
    points = [Point(1, 0, 1), Point(0, 1, 0), Point(1, 0, 0), Point(0, 0, 1)]
    assert sorted(points, key=gtp_order) == [Point(1, 0, 0), Point(0, 1, 0), Point(0, 0, 1), Point(1, 0, 1)]


def test_point_repr_round_trips():
    assert eval(repr(Point(3, 3, 1))) == Point(3, 3, 1)
    assert Point(3, 3, 1).gtp() == "D4:2"
    assert Point.from_gtp("d4:2", 9) == Point(3, 3, 1)


PROJECTION_CASES = [
    # size, point, 2-D point text
    (9, Point(0, 0, 0), "A1"),
    (9, Point(8, 8, 0), "R17"),    # 17x17 board; R is the 17th column (no I)
    (9, Point(0, 0, 1), "B2"),
    (9, Point(3, 3, 1), "H8"),
    (9, Point(0, 0, 8), "J9"),     # apex projects to the centre of the 17x17 board
    (2, Point(0, 0, 1), "B2"),
]


@pytest.mark.parametrize("size, point, text", PROJECTION_CASES)
def test_projection(size, point, text):
    col, row = project(point)
    assert format_point_2d(col, row) == text
    assert parse_point_2d(text, projected_size(size)) == (col, row)
    assert point in column_points(col, row, size)


@pytest.mark.parametrize("size", range(2, 14))
def test_projection_is_a_bijection_onto_columns(size):
    side = projected_size(size)
    assert size_from_projected(side) == size
    seen = {}
    for col in range(side):
        for row in range(side):
            for point in column_points(col, row, size):
                assert project(point) == (col, row)
                assert point not in seen
                seen[point] = (col, row)
            column = column_points(col, row, size)
            # a column is a chain: each point is straight above the previous one (R3)
            for lower, upper in zip(column, column[1:]):
                assert (upper.x, upper.y, upper.level) == (lower.x - 1, lower.y - 1, lower.level + 2)
            if (col - row) % 2:
                assert column == []
    assert set(seen) == set(all_points(size))


def test_even_projected_size_is_refused():
    with pytest.raises(ValueError, match="no MarGo board projects to a 16x16 board"):
        size_from_projected(16)


@settings(deadline=None)  # about correctness, not time: a slow shared machine must not fail it
@given(st.integers(0, 24), st.integers(0, 24))
def test_2d_format_parse_inverse(col, row):
    assert parse_point_2d(format_point_2d(col, row), 25) == (col, row)
    assert len(COLUMNS) == 25


def test_2d_points_take_ascii_digits_only():
    with pytest.raises(InvalidVertexError, match="malformed"):
        parse_point_2d("A\u0661", 17)


@pytest.mark.parametrize("text, value", [("0", 0.0), ("6.5", 6.5), ("-2", -2.0), ("+.5", 0.5), ("7.", 7.0), ("1e1", 10.0)])
def test_parse_decimal(text, value):
    assert parse_decimal(text) == value


@pytest.mark.parametrize("text", ["\u0665", "1_0", " 5", "5 ", "inf", "nan", "-inf", "1e999", "", ".", "0x10", "\uff15", "5,5"])
def test_parse_decimal_refuses_what_float_accepts(text):
    with pytest.raises(ValueError):
        parse_decimal(text)


@pytest.mark.parametrize("text", ["\u0665", "1_0", " 5", "5.0", "", "+", "\u00b2"])
def test_parse_integer_refuses_what_int_accepts(text):
    with pytest.raises(ValueError):
        parse_integer(text)
