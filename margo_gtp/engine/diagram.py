"""The board's text diagram: what ``str(board)`` and GTP's ``showboard`` print.

It lives in the engine's room, beside :class:`~margo_gtp.engine.board.Board`, so that a
board can draw itself; the GTP session (:func:`margo_gtp.protocol.session.render_board`)
only puts the diagram on the line after ``=``.
"""

from __future__ import annotations

from typing import Any

from margo_gtp.engine.types import Colour
from margo_gtp.vertex import COLUMNS, Point, gtp_order

__all__ = ["diagram"]


def _colour_name(colour: Colour) -> str:
    return colour.name.capitalize()


def diagram(board: Any) -> str:  # a Board: board.py imports this module
    """The board as ``showboard`` draws it (``str(board)``): one labelled grid per
    non-empty level (level 1, the board plane, always shown and last), ``X`` Black, ``O``
    White, ``x``/``o`` zombies, ``.`` empty; below: side to move, ball counts, captures, zombies and buried balls
    (hidden under the ball two levels up), game end."""
    balls = board.balls()
    zombies = set(board.zombies())
    size = board.size
    top = max((point.level for point in balls), default=0)
    lines: list[str] = []
    for level in range(top, -1, -1):
        width = size - level
        letters = "    " + " ".join(COLUMNS[x] for x in range(width))
        lines.append(f"Level {level + 1}")
        lines.append(letters)
        for y in range(width - 1, -1, -1):
            cells = []
            for x in range(width):
                point = Point(x, y, level)
                colour = balls.get(point)
                mark = "." if colour is None else "OX"[colour]
                cells.append(mark.lower() if point in zombies else mark)
            lines.append(f" {y + 1:>2} " + " ".join(cells) + f" {y + 1}")
        lines.append(letters)
    counts = board.ball_counts()
    lines.append(f"{_colour_name(board.to_move)} to move; moves played: {len(board.history)}")
    lines.append(f"Balls: White (O) {counts[Colour.WHITE]}, Black (X) {counts[Colour.BLACK]}")
    lines.append(f"Captured by: White {board.captured[Colour.WHITE]}, Black {board.captured[Colour.BLACK]}")
    if zombies:
        lines.append("Zombies (o x): " + " ".join(point.gtp() for point in sorted(zombies, key=gtp_order)))
    buried = board.buried()
    if buried:
        lines.append("Buried: " + " ".join(point.gtp() for point in buried))
    outcome = board.outcome()
    if outcome is not None:
        lines.append(f"Game over: {outcome.result()}")
    return "\n".join(lines)
