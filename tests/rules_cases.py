"""Data tables shared by the rules tests: the worked examples of positions.md.

Each :class:`PositionCase` is a set-up position (GTP vertices), a colour to move, a list of
moves with whether each is legal, and the exact ball sets after the last move. Used both
against the reference (test_reference_rules.py) and the engine (test_positions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PositionCase:
    name: str
    size: int
    to_move: str  # "W" / "B"
    white: str  # space-separated GTP vertices
    black: str
    moves: tuple[tuple[str, str, bool], ...]  # (colour, vertex, legal?)
    after_white: str | None = None  # balls after the last move (None: unchanged set-up)
    after_black: str | None = None
    options: dict[str, str] = field(default_factory=dict)


POSITIONS_MD = [
    PositionCase(
        "T1 simple capture at board level", 5, "W", "B1:1", "A1:1",
        (("W", "A2:1", True),), "A2:1 B1:1", "",
    ),
    PositionCase(
        "T2 a stacked ball links the group to a board-level freedom", 4, "W",
        "B2:1 C1:1", "A1:1 B1:1 B1:2 C2:1",
        (("W", "A2:1", True),), "A2:1 B2:1 C1:1", "A1:1 B1:1 B1:2 C2:1",
    ),
    PositionCase(
        "T3 the stacked link leads nowhere: stacked ball captured too", 4, "W",
        "B2:1 C1:1 C2:1", "A1:1 B1:1 B1:2",
        (("W", "A2:1", True),), "A2:1 B2:1 C1:1 C2:1", "",
    ),
    PositionCase(
        "T4 zombie left behind under an enemy ball", 4, "W",
        "B1:2 B2:1 C1:1 C2:1", "A1:1 B1:1",
        (("W", "A2:1", True),), "A2:1 B1:2 B2:1 C1:1 C2:1", "B1:1",
    ),
    PositionCase(
        "T6 over/under cut splits a group; one half is captured", 4, "B",
        "B2:1 C2:1 D1:1 D2:1", "B1:1 B1:2 B2:2 B3:1 C1:1 C3:1",
        (("B", "D3:1", True),), "B2:1 C2:1", "B1:1 B1:2 B2:2 B3:1 C1:1 C3:1 D3:1",
    ),
    PositionCase(
        "T6b a single crossing ball does not cut", 4, "B",
        "B2:1 C2:1 D1:1 D2:1", "B1:1 B1:2 B3:1 C1:1 C3:1",
        (("B", "D3:1", True),), "B2:1 C2:1 D1:1 D2:1", "B1:1 B1:2 B3:1 C1:1 C3:1 D3:1",
    ),
    PositionCase(
        "T10a stacking needs a full 2x2 support", 4, "B", "", "A1:1 A2:1 B1:1",
        (("B", "A1:2", False),),
    ),
    PositionCase(
        "T11 suicide is forbidden", 4, "W", "", "A2:1 B1:1",
        (("W", "A1:1", False),),
    ),
    PositionCase(
        "T12 looks like suicide but captures", 4, "W", "A3:1 B2:1 C1:1", "A2:1 B1:1",
        (("W", "A1:1", True),), "A1:1 A3:1 B2:1 C1:1", "",
    ),
    PositionCase(
        "T14 simple ko: immediate recapture repeats the position", 4, "W",
        "A1:1 B2:1", "B1:1 C2:1 D1:1",
        (("W", "C1:1", True), ("B", "B1:1", False)), "A1:1 B2:1 C1:1", "C2:1 D1:1",
    ),
]
