"""The engine's value types: colours, points, moves, the errors and the end of a game.

What every other engine module (and every caller) passes around, with no rules in it:
:class:`Colour` and its helpers (:data:`WHITE`, :data:`BLACK`, :func:`colour_index`),
:class:`~margo_gtp.vertex.Point` (re-exported from :mod:`margo_gtp.vertex`, the one
coordinate module), :class:`Move`, the errors a board raises, and :class:`Outcome` /
:class:`Termination`. The board front is :mod:`margo_gtp.engine.board`; the rules cores are
:mod:`margo_gtp.engine.python_core` and :mod:`margo_gtp.engine.native`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from margo_gtp.vertex import InvalidVertexError, Point, format_vertex, parse_vertex


class Colour(enum.IntEnum):
    """Ball colour. ``int(Colour.WHITE) == 0`` so colours index two-element lists."""

    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> "Colour":
        return Colour(self ^ 1)

    @property
    def letter(self) -> str:
        """``'W'`` or ``'B'``, as GTP writes colours."""
        return "WB"[self]

    @classmethod
    def parse(cls, text: str) -> "Colour":
        """``'w'``, ``'white'``, ``'B'``, ``'black'`` (any case) -> Colour; ValueError otherwise."""
        colour = _COLOUR_NAMES.get(text.lower()) if isinstance(text, str) else None
        if colour is None:
            raise ValueError(f"invalid colour: {text!r}")
        return colour


_COLOUR_NAMES = {"w": Colour.WHITE, "white": Colour.WHITE, "b": Colour.BLACK, "black": Colour.BLACK}


WHITE, BLACK = Colour.WHITE, Colour.BLACK


class IllegalMoveError(ValueError):
    """Raised when a move is illegal in the current position"""


class InvalidMoveError(ValueError):
    """Raised when a Move is built with a kind other than place, pass and swap"""


class InvalidColourError(ValueError):
    """Raised when a colour argument is not Colour.WHITE or Colour.BLACK"""


MOVE_KINDS = ("place", "pass", "swap")


def colour_index(colour: object) -> int:
    """0 for :data:`WHITE`, 1 for :data:`BLACK` (the ints 0 and 1 too, as ``Colour`` is an
    ``IntEnum``). Anything else -- ``1.5``, ``True``, ``"B"``, ``2`` -- raises
    :class:`InvalidColourError` rather than being read as some colour."""
    if colour is WHITE:
        return 0
    if colour is BLACK:
        return 1
    if type(colour) is int and colour in (0, 1):
        return colour
    raise InvalidColourError(f"invalid colour: {colour!r} (allowed Colour.WHITE, Colour.BLACK)")


@dataclass(frozen=True, slots=True)
class Move:
    """A move: a placement at ``point``, or the singletons :attr:`PASS` and :attr:`SWAP`.

    ``bool(move)`` is False for a pass (as python-chess's null move). ``str`` is the GTP
    vertex (``'D4:2'``, ``'pass'``), and ``repr`` round-trips:
    ``Move.from_gtp('D4:2', 9)`` is ``Move(Point(3, 3, 1))``. A kind other than
    :data:`MOVE_KINDS` raises :class:`InvalidMoveError`.
    """

    point: Point | None
    kind: str = "place"

    PASS: ClassVar["Move"]
    SWAP: ClassVar["Move"]

    def __post_init__(self) -> None:
        if self.kind not in MOVE_KINDS:
            raise InvalidMoveError(f"invalid move kind: {self.kind!r} (allowed place, pass, swap)")

    def __bool__(self) -> bool:
        return self.kind != "pass"

    def __repr__(self) -> str:
        return f"Move({self.point!r})" if self.kind == "place" else f"Move.{self.kind.upper()}"

    def __str__(self) -> str:
        """MarGo's vertex text, as GTP writes it: ``'B2:1'``, ``'pass'``, ``'swap'``."""
        return self.gtp()

    @property
    def is_pass(self) -> bool:
        return self.kind == "pass"

    @property
    def is_swap(self) -> bool:
        return self.kind == "swap"

    def gtp(self) -> str:
        """``'D4:2'``, ``'pass'`` or ``'swap'``."""
        return format_vertex(self.point) if self.kind == "place" else self.kind

    @classmethod
    def from_gtp(cls, text: str, size: int) -> "Move":
        """Parse a GTP move token (vertex, ``pass`` or ``swap``, any case).

        Raises :class:`~margo_gtp.vertex.InvalidVertexError` for a malformed or off-board vertex.
        """
        word = text.strip().lower() if isinstance(text, str) else ""
        if word == "pass":
            return cls.PASS
        if word == "swap":
            return cls.SWAP
        return cls(parse_vertex(text, size))


Move.PASS = Move(None, "pass")
Move.SWAP = Move(None, "swap")


class Termination(enum.Enum):
    """How a game ended."""

    NO_LEGAL_MOVE = "no legal move"   # R17
    TWO_PASSES = "two passes"         # R20
    FIRST_CAPTURE = "first capture"   # R21
    RESIGNATION = "resignation"
    TIME = "time"                     # a game clock ran out (margo-web's clocks; no rule of the core)


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how, who won (``None`` = draw) and the final scores."""

    termination: Termination
    winner: Colour | None
    white_score: float
    black_score: float
    margin: float | None = None  # overrides the score difference in result() (first capture)

    def result(self) -> str:
        """``'W+3'``, ``'B+0.5'``, ``'0'`` (draw), ``'W+R'`` (resignation) or ``'W+T'`` (time)."""
        if self.winner is None:
            return "0"
        if self.termination is Termination.RESIGNATION:
            return f"{self.winner.letter}+R"
        if self.termination is Termination.TIME:
            return f"{self.winner.letter}+T"
        margin = self.margin if self.margin is not None else abs(self.white_score - self.black_score)
        return f"{self.winner.letter}+{_format_number(margin)}"


class CoreState(NamedTuple):
    """The ints a rules core keeps for a position (bit sets over the flat point index of
    :mod:`~margo_gtp.engine.geometry`, and Zobrist keys): what ``push`` saves and ``pop``
    restores, laid out alike on both cores. :meth:`Board.core_state
    <margo_gtp.engine.board.Board.core_state>` returns it."""

    white: int            # White's balls, buried ones included
    black: int            # Black's balls, buried ones included
    buried: int           # balls with a ball resting on them (R8)
    supported_empty: int  # empty points a ball could stand on (every level, max_level aside)
    unsettled: int        # balls of freedomless groups with an uncovered ball (left by setup or `illegal`)
    key: int              # Zobrist key of every ball (the side to move left out)
    buried_key: int       # Zobrist key of the buried balls


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


__all__ = ["Colour", "WHITE", "BLACK", "colour_index", "Point", "Move", "MOVE_KINDS", "Outcome", "Termination",
           "CoreState", "IllegalMoveError", "InvalidMoveError", "InvalidColourError", "InvalidVertexError"]
