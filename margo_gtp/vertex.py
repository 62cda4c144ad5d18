"""The one coordinate module: every notation for a MarGo point, and exact conversions.

Imports nothing from the rest of the package, so the rules core, the GTP layer and the
2-D proxy can all use it (the rules core never imports protocol code).

Coordinate systems (board size ``N``; example: the ball resting on the four centre-ish
points ``D4 E4 D5 E5`` of a 9x9 board)::

    system                  form                      example        range
    ----------------------  ------------------------  -------------  -------------------------
    Point (internal)        Point(x, y, level), 0-b.  Point(3, 3, 1) 0 <= x, y <= N-1-level
    flat index              Geometry.index[(x,y,l)]   (engine only)  0 .. N(N+1)(2N+1)/6 - 1
    3-D GTP vertex          <col><row>:<level>        "D4:2"         level 1 = board plane
    3-D GTP, short form     <col><row>  (input only)  "d4" == D4:1   board plane only
    projected 2-D GTP       <col><row> on 2N-1 board  "H8"           (2x+l, 2y+l), 0-based
    SGF (MarGo, adapters)   two letters + level       see adapters   a = 0

Columns are the letters ``A..Z`` without ``I`` (GTP convention), rows count from 1 at the
bottom. Input is case-insensitive; output is upper case and always writes the level.

The projected view maps level-``l`` point ``(x, y)`` to the Go point ``(2x+l, 2y+l)`` of a
``(2N-1)x(2N-1)`` board. A 2-D point is a *column* of possible balls: the point straight
above ``(x, y, l)`` is ``(x-1, y-1, l+2)``, which projects to the same 2-D point, so each
column is a chain of points that bury one another; 2-D points whose coordinates differ in
parity hold no point at all.

What is checked here: syntax and range on a board of the given size. What is not:
occupancy, support or legality (that is the rules core's business).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

# The number readers live in the one options module; re-exported for older imports.
from margo_gtp.options import parse_decimal, parse_integer  # noqa: F401

#: GTP column letters: A..Z without I. 25 letters, enough for 2-D boards up to 25x25.
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

MIN_SIZE = 2
MAX_SIZE = 19

# [0-9], never \d: \d also matches other scripts' digits ('A\u0661' would read as A1).
_VERTEX_RE = re.compile(r"([A-HJ-Za-hj-z])([0-9]{1,2})(?::([0-9]{1,2}))?")
_POINT_2D_RE = re.compile(r"([A-HJ-Za-hj-z])([0-9]{1,2})")
class InvalidVertexError(ValueError):
    """Raised when a vertex is malformed or off the board (a syntax error, not a legality one)"""


@dataclass(frozen=True, slots=True, order=True)
class Point:
    """A point of the pyramid: column ``x``, row ``y``, ``level`` (all 0-based; level 0 is
    the board plane). Ordered by (x, y, level) as a plain tuple; use :func:`gtp_order`
    for the protocol's listing order (level, row, column)."""

    x: int
    y: int
    level: int = 0

    def __repr__(self) -> str:
        return f"Point({self.x}, {self.y}, {self.level})"

    def gtp(self) -> str:
        """The 3-D GTP vertex, e.g. ``'D4:1'``."""
        return format_vertex(self)

    @classmethod
    def from_gtp(cls, text: str, size: int) -> "Point":
        """Parse a 3-D GTP vertex for a board of ``size``; see :func:`parse_vertex`."""
        return parse_vertex(text, size)

    def on_board(self, size: int) -> bool:
        """True if the point exists on a board of ``size`` (level by level shrinking grid)."""
        return 0 <= self.level < size and 0 <= self.x < size - self.level and 0 <= self.y < size - self.level


def gtp_order(point: Point) -> tuple[int, int, int]:
    """Sort key of the protocol's listings: level, then row, then column."""
    return (point.level, point.y, point.x)


def parse_vertex(text: str, size: int) -> Point:
    """Parse ``'D4:2'`` (or ``'d4'`` == ``'D4:1'``) into a :class:`Point` on a board of ``size``.

    Raises :class:`InvalidVertexError` quoting the input when it is malformed or off board.
    """
    match = _VERTEX_RE.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise InvalidVertexError(f"malformed vertex: {text!r}")
    column, row, level = match.groups()
    point = Point(COLUMNS.index(column.upper()), int(row) - 1, int(level) - 1 if level is not None else 0)
    if not point.on_board(size):
        raise InvalidVertexError(f"vertex is off board: {text!r} (board size {size})")
    return point


def format_vertex(point: Point) -> str:
    """``Point(3, 3, 1)`` -> ``'D4:2'``. Exact inverse of :func:`parse_vertex`."""
    return f"{COLUMNS[point.x]}{point.y + 1}:{point.level + 1}"


# ---------------------------------------------------------------------------------------
# The projected 2-D view (gtp.md section 5), used by the 2-D proxy (gtp2d/) for Go tools.


def projected_size(size: int) -> int:
    """Side of the 2-D board that shows an ``size`` MarGo board: ``2N-1``."""
    return 2 * size - 1


def size_from_projected(size_2d: int) -> int:
    """Inverse of :func:`projected_size`; raises ``ValueError`` for an even 2-D size."""
    if size_2d < 1 or size_2d % 2 == 0:
        raise ValueError(f"no MarGo board projects to a {size_2d}x{size_2d} board")
    return (size_2d + 1) // 2


def project(point: Point) -> tuple[int, int]:
    """Level-``l`` point ``(x, y)`` -> 2-D point ``(2x+l, 2y+l)`` (0-based)."""
    return (2 * point.x + point.level, 2 * point.y + point.level)


T = TypeVar("T")  # what a map of balls holds for each: a Colour, a letter


def top_view(balls: Mapping[Point, T]) -> dict[tuple[int, int], tuple[Point, T]]:
    """The board seen from above: 2-D point ``(col, row)`` -> (the highest ball of its
    column, what ``balls`` holds for it: a colour, a letter)."""
    view: dict[tuple[int, int], tuple[Point, T]] = {}
    for point, colour in balls.items():
        key = project(point)
        if key not in view or view[key][0].level < point.level:
            view[key] = (point, colour)
    return view


def column_points(col: int, row: int, size: int) -> list[Point]:
    """Every 3-D point that projects onto the 2-D point ``(col, row)``, lowest level first.

    Empty when the point holds no ball on any level (coordinates of different parity, or
    outside the projected board).
    """
    points = []
    level = col % 2
    if row % 2 != level:
        return points
    while level < size:
        point = Point((col - level) // 2, (row - level) // 2, level)
        if point.x < 0 or point.y < 0:
            break
        if point.on_board(size):
            points.append(point)
        level += 2
    return points


def parse_point_2d(text: str, size_2d: int) -> tuple[int, int]:
    """Parse a 2-D GTP vertex (``'H8'``) on a ``size_2d`` board into 0-based ``(col, row)``."""
    match = _POINT_2D_RE.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise InvalidVertexError(f"malformed vertex: {text!r}")
    col, row = COLUMNS.index(match.group(1).upper()), int(match.group(2)) - 1
    if not (0 <= col < size_2d and 0 <= row < size_2d):
        raise InvalidVertexError(f"vertex is off board: {text!r} (board size {size_2d})")
    return col, row


def format_point_2d(col: int, row: int) -> str:
    """0-based ``(col, row)`` -> ``'H8'``. Exact inverse of :func:`parse_point_2d`."""
    return f"{COLUMNS[col]}{row + 1}"
