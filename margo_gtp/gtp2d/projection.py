"""The projection's pure maths and the engine's board view, for the 2-D proxy.

Holds :func:`lift` (a 2-D move -> the lowest empty 3-D point of its column),
:func:`board_rows` (what GoGui draws, from :func:`margo_gtp.vertex.top_view`), :func:`project_vertex`
(a native vertex -> its 2-D point) and :class:`NativeView` (the engine's ``margo-board``
answer). No process, no GTP: the projection itself is :mod:`margo_gtp.vertex`
(``gtp.md`` section 5); the session using these lives in
:mod:`margo_gtp.gtp2d.projected_session`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from margo_gtp.vertex import Point, column_points, format_point_2d, parse_vertex, project, projected_size, top_view


def lift(col: int, row: int, size: int, occupied: set[Point] | dict[Point, str]) -> Point | None:
    """The 3-D point a 2-D move at ``(col, row)`` names: the lowest empty point of the
    column, or None when the column holds no point or is full. Support and legality are
    not checked (the engine does that)."""
    for point in column_points(col, row, size):
        if point not in occupied:
            return point
    return None


def board_rows(size: int, balls: dict[Point, str], hole: str = "?") -> list[str]:
    """The top view as GoGui's ruler board: one line per 2-D row, top row first, points
    separated by spaces; ``X`` Black, ``O`` White, ``.`` a column that can still take a
    ball or is empty, ``hole`` a 2-D point with no 3-D point."""
    side = projected_size(size)
    view = top_view(balls)
    rows = []
    for row in reversed(range(side)):
        cells = []
        for col in range(side):
            if (col, row) in view:
                cells.append("X" if view[(col, row)][1] == "B" else "O")
            elif column_points(col, row, size):
                cells.append(".")
            else:
                cells.append(hole)
        rows.append(" ".join(cells))
    return rows


def project_vertex(text: str, size: int) -> str:
    """A native vertex (``'D4:2'``) -> its 2-D point (``'H8'``); ``pass``/``resign``/``swap``
    come back lower case. Raises InvalidVertexError on anything else."""
    word = text.strip().lower()
    if word in ("pass", "resign", "swap"):
        return word
    return format_point_2d(*project(parse_vertex(text, size)))



@dataclass
class NativeView:
    """The engine's ``margo-board`` answer."""

    size: int
    to_move: str
    balls: dict[Point, str]
    zombies: set[Point]
    captured: dict[str, int]
    over: bool

    @classmethod
    def from_json(cls, text: str) -> "NativeView":
        data = json.loads(text)
        size = int(data["size"])
        return cls(
            size=size,
            to_move=str(data["to_move"]).upper(),
            balls={parse_vertex(v, size): str(c).upper() for v, c in data["balls"].items()},
            zombies={parse_vertex(v, size) for v in data.get("zombies", [])},
            captured={str(k).upper(): int(n) for k, n in data.get("captured", {}).items()},
            over=bool(data["over"]),
        )

