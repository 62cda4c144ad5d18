"""The MarGo rules core: geometry, groups, captures, repetition, scoring.

Rules only: the players (and the search's C code) are in :mod:`margo_gtp.players`.

Imports nothing from :mod:`margo_gtp.protocol`. Public API in the spirit of python-chess::

    from margo_gtp.engine import Board, Move, Rules, Colour
    board = Board(Rules(size=7))
    board.push(Move.from_gtp("D4", 7))     # White first by default
    board.legal_moves()                    # [Move(Point(0, 0, 0)), ...]
    board.pop()

See :mod:`margo_gtp.engine.board` for what is and is not enforced. The rooms inside: ``types``
(colours, moves, errors, outcomes), ``board`` (the :class:`Board` front), ``python_core`` and
``playout`` (the readable rules core), ``native`` (its C twin), ``core`` (which one runs),
``rules``, ``geometry`` and ``positions``.
"""

from margo_gtp.engine.board import Board
from margo_gtp.engine.core import core_name, set_core
from margo_gtp.engine.geometry import Geometry, geometry
from margo_gtp.engine.rules import OPTION_NAMES, Rules, RulesError
from margo_gtp.engine.types import (BLACK, WHITE, Colour, CoreState, IllegalMoveError, InvalidColourError,
                                    InvalidMoveError, InvalidVertexError, Move, Outcome, Point, Termination)

__all__ = [
    "Board", "Move", "Outcome", "Termination", "IllegalMoveError", "InvalidMoveError", "InvalidColourError",
    "InvalidVertexError", "CoreState",
    "Colour", "WHITE", "BLACK", "Rules", "RulesError", "OPTION_NAMES", "Point",
    "Geometry", "geometry", "core_name", "set_core",
]
