"""The rules page's diagrams: small positions reached by real games, drawn by the board itself.

Each diagram is a list of moves from the empty board (White first, the default rules of
rules.md unless it names others), played here through the rules core, so every diagram is
a legal MarGo position and every mark on it (a zombie, a refused point and why) is the
engine's word, not the page's (style.md item 24). ``GET /api/rules/diagrams`` sends them as
frames (:func:`margo_gtp.web.view.frame`); ``static/rules.js`` writes the words around them
and draws each with the game's own ``renderBoard``.

``marks``: the frame keeps its targets and the page draws the side to move's marks (a dot
on a legal point above level 1, a cross on a refused one), as it does in play.
``tests/web/test_web_rules.py`` replays every diagram on both rules cores and checks what
its caption claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from margo_gtp.engine import Board, Move, Rules
from margo_gtp.web.view import frame


@dataclass(frozen=True)
class Diagram:
    """One position of the rules page: ``moves`` played from the empty ``size`` board."""

    key: str
    section: str                     # the id of the rules section it belongs to (rules.js)
    size: int
    moves: tuple[str, ...]
    caption: str                     # what the position shows, in plain words
    marks: bool = False
    rules: dict[str, str] = field(default_factory=dict)   # rules.md section 9 names and values

    def board(self) -> Board:
        """The position: the moves played in turn; IllegalMoveError if one is refused."""
        board = Board(Rules(size=self.size).with_options(self.rules))
        for word in self.moves:
            board.push(Move.from_gtp(word, self.size))
        return board


_STACK = ("A1:1", "B1:1", "A2:1", "B2:1")
_ZOMBIE = ("A2:1", "A1:1", "B2:1", "B1:1", "A1:2", "C3:1", "C1:1")
_BRIDGE = ("B2:1", "B1:1", "C2:1", "C1:1", "A4:1", "B3:1", "D4:1", "C3:1", "A3:1", "B1:2", "D3:1", "B2:2")
_KO = ("A1:1", "B1:1", "B2:1", "C2:1", "A4:1", "D1:1")

DIAGRAMS: tuple[Diagram, ...] = (
    Diagram("placing", "rules-placing", 4, ("B2:1", "C3:1", "C2:1"),
            "White began at B2, Black answered at C3, then White played C2 (the red square marks the last "
            "move). Black is next."),
    Diagram("stacking-square", "rules-stacking", 3, _STACK,
            "Four balls touch in a square: A1, B1, A2 and B2, two of each colour. The dark dot between them is "
            "a point on level 2 where White may play now.", marks=True),
    Diagram("stacking-placed", "rules-stacking", 3, (*_STACK, "A1:2"),
            "White played there: the ball at A1, level 2, rests on the four balls under it."),
    Diagram("freedoms-group", "rules-freedoms", 4, ("B2:1", "D4:1", "C2:1"),
            "White's B2 and C2 touch side by side: one group. Its freedoms are the six empty points of the "
            "board next to it: B1, C1, A2, D2, B3 and C3."),
    Diagram("freedoms-capture", "rules-freedoms", 3, ("A2:1", "A1:1", "B1:1"),
            "Black's ball at A1 had one freedom left, B1. White played there: A1 had no freedom, so it was "
            "captured and lifted off (White has captured 1)."),
    Diagram("freedoms-on-top", "rules-freedoms", 3, ("A1:1", "C3:1", "B1:1", "C2:1", "A2:1", "A3:1", "B2:1"),
            "Black may not play on top of White's four balls (the cross on A1, level 2): a ball there touches "
            "no empty point of the board, so it would have no freedom. Empty points up in the pyramid are "
            "never freedoms.", marks=True),
    Diagram("bridge", "rules-bridges", 4, _BRIDGE,
            "Black's two balls on level 2 (B1 and B2, level 2) sit across the contact of White's B2 and C2: "
            "a bridge. B2 and C2 are no longer one group."),
    Diagram("bridge-capture", "rules-bridges", 4, (*_BRIDGE, "A1:1", "D2:1"),
            "Black played D2: White's C2, cut off from B2, has no freedom left and is captured. Black's "
            "bridge rests on it, so it stays on the board as a zombie (the red cross)."),
    Diagram("zombie", "rules-zombies", 3, _ZOMBIE,
            "White played C1 and captured Black's A1 and B1. White's ball on level 2 rests on them, so they "
            "cannot be lifted: they stay as zombies (the red crosses)."),
    Diagram("ko-before", "rules-ko", 4, _KO,
            "Black's ball at B1 has one freedom left, C1. White may take it by playing C1."),
    Diagram("ko-after", "rules-ko", 4, (*_KO, "C1:1"),
            "White played C1 and captured B1. Black may not take back at once at B1 (the cross): that would "
            "bring back the position before White's move.", marks=True),
    Diagram("end", "rules-end", 3, ("B1:1", "B3:1", "A1:1", "A3:1", "C3:1", "A2:1", "C2:1"),
            "Black is to move and has no legal move: a ball at B2 or at C1 would have no freedom (the crosses). "
            "The game is over. White has 4 balls, Black 3: White wins by 1 (W+1).", marks=True),
)


def diagram_frame(diagram: Diagram) -> dict[str, Any]:
    """What the page draws for ``diagram``: its words and the frame of its position."""
    return {"key": diagram.key, "section": diagram.section, "caption": diagram.caption, "marks": diagram.marks,
            "moves": list(diagram.moves), "frame": frame(diagram.board(), with_targets=diagram.marks)}


@lru_cache(maxsize=1)
def diagram_frames() -> tuple[dict[str, Any], ...]:
    """Every diagram's frame, computed once per server (the positions never change)."""
    return tuple(diagram_frame(diagram) for diagram in DIAGRAMS)
