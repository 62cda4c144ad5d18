"""The engine's analysis as GoGui ``gfx`` answers on the projected 2-D board.

Pure text to text, no process: the proxy's ``margo-gfx_*`` handlers
(:mod:`margo_gtp.gtp2d.projected_session`) ask the engine ``margo-analyze_snapshot`` or
``margo-ownership`` and turn the 3-D answer into the lines GoGui's ``AnalyzeShow`` reads
(GoGui 1.6, ``src/net/sf/gogui/gui/AnalyzeShow.showGfxLine``):

- ``LABEL point text ...``: the top candidates' win rates, in percent;
- ``VAR b point w point ...``: the best line, colours alternating from the mover
  (GoGui numbers the ghost stones 1, 2, ...);
- ``INFLUENCE point value ...``: ownership, from -1 (White) to 1 (Black);
- one ``TEXT ...`` line, which GoGui shows in its status bar.

A 3-D move names the 2-D point of its column (:func:`project_vertex`), so a candidate is
drawn where a GoGui click would play it. ``pass`` is written in a ``VAR`` line (GoGui
counts it and draws nothing) and named in the ``TEXT``; ``swap`` has no point, so a line
stops before it and a ``swap`` candidate is only named in the ``TEXT``.
"""

from __future__ import annotations

from margo_gtp.protocol.analysis import parse_info
from margo_gtp.vertex import column_points, format_point_2d, parse_vertex, project, projected_size

from margo_gtp.gtp2d.projection import project_vertex

__all__ = ["MARGIN_WORDS", "TOP_CANDIDATES", "best_line_gfx", "ownership_gfx", "read_infos", "winrates_gfx"]

#: Candidates labelled by ``margo-gfx_winrates`` (the rest would crowd a 9x9 board).
TOP_CANDIDATES = 5
_NAMES = {"B": "Black", "W": "White"}


def read_infos(answer: str) -> list[dict]:
    """The ``info`` lines of a ``margo-analyze_snapshot`` answer, best first. Raises
    ValueError on a line that is not one."""
    return [parse_info(line) for line in answer.splitlines() if line.strip()]


def _percent(winrate: float) -> str:
    return f"{round(winrate * 100)}"


def winrates_gfx(infos: list[dict], colour: str, size: int) -> str:
    """``LABEL`` the top candidates' win rates (for ``colour``) on their 2-D points, and a
    ``TEXT`` listing them with their visits."""
    top = infos[:TOP_CANDIDATES]
    if not top:
        return f"TEXT {_NAMES[colour]}: no candidate moves"
    labels = []
    named = []
    for info in top:
        point = project_vertex(info["move"], size)
        if point not in ("pass", "swap"):
            labels.append(f"{point} {_percent(info['winrate'])}")
        named.append(f"{point} {_percent(info['winrate'])}% ({info['visits']} visits)")
    lines = ["LABEL " + " ".join(labels)] if labels else []
    lines.append(f"TEXT {_NAMES[colour]} win rates: " + ", ".join(named))
    return "\n".join(lines)


def best_line_gfx(infos: list[dict], colour: str, size: int) -> str:
    """``VAR`` the best candidate's line, colours alternating from ``colour``, and a
    ``TEXT`` with the line and its win rate."""
    if not infos:
        return f"TEXT {_NAMES[colour]}: no candidate moves"
    best = infos[0]
    moves = []
    points = []
    mover = colour
    for vertex in best["pv"]:
        point = project_vertex(vertex, size)
        if point == "swap":
            break  # no 2-D point: the line shown stops here
        moves.append(f"{mover.lower()} {point}")
        points.append(point)
        mover = "W" if mover == "B" else "B"
    lines = ["VAR " + " ".join(moves)] if moves else []
    lines.append(f"TEXT {_NAMES[colour]} best line: {' '.join(points) or best['move']}, "
                 f"win rate {_percent(best['winrate'])}% ({best['visits']} visits)")
    return "\n".join(lines)


#: The status line's words for the sum of the ``margo-ownership`` values, by what the
#: engine says they are (``margo-ownership_kind``): an mcts search's final balls, or the
#: net's ownership head (expected owners, territory counted). Neither counts komi.
MARGIN_WORDS = {
    "balls": "Black's expected ball margin {margin} (komi not counted)",
    "owners": "Black's expected margin of owned points {margin} (the net's ownership head, territory counted; "
              "komi not counted)",
}


def ownership_gfx(answer: str, size: int, kind: str = "balls") -> str:
    """``INFLUENCE`` per 2-D point from a ``margo-ownership`` answer (``VERTEX VALUE``
    lines): a column's value is the sum of its points' (Black - White) values (for
    ``kind`` ``balls``, its expected ball margin), capped to -1..1 (GoGui's range); the
    ``TEXT`` names the sum by ``kind`` (:data:`MARGIN_WORDS`; another word reads as
    ``balls``, the meaning of every engine before ``margo-ownership_kind``). Raises
    ValueError on a bad line."""
    margins: dict[tuple[int, int], float] = {}
    for line in answer.splitlines():
        if not line.strip():
            continue
        vertex, value = line.split()
        column = project(parse_vertex(vertex, size))
        margins[column] = margins.get(column, 0.0) + float(value)
    side = projected_size(size)
    values = []
    for row in range(side):
        for col in range(side):
            if column_points(col, row, size):
                share = max(-1.0, min(1.0, margins.get((col, row), 0.0)))
                if abs(share) < 0.005:
                    share = 0.0  # no "-0.00"
                values.append(f"{format_point_2d(col, row)} {share:.2f}")
    words = MARGIN_WORDS.get(kind, MARGIN_WORDS["balls"])
    margin = f"{sum(margins.values()):+.1f}"
    return "INFLUENCE " + " ".join(values) + "\nTEXT ownership, Black positive: " + words.format(margin=margin)
