"""The network's view of a MarGo position: binary features per 3-D point, and the grids
they are laid on.

Reading guide (as KataGo's ``nninputs.cpp``: every input in one documented place)
---------------------------------------------------------------------------------
:func:`point_features` turns a :class:`~margo_gtp.engine.Board` and the colour to move into
a ``(FEATURES, points)`` array of 0/1, one column per point of the pyramid in the
geometry's order (level, row, column), every feature *relative to the colour to move*
(own / other), so one network plays both colours. :data:`FEATURE_NAMES` lists them:

==================  ================================================================
``own``, ``other``  a ball of that side that is not buried
``own_buried``...   a buried ball of that side (it belongs to no group, R8)
``own_zombie``...   a zombie of that side (R15): a dead ball held up by what rests on it
``legal``           the colour to move may place here now (R4-R7, superko included)
``own_1``...        the point holds a ball of that side's group with 1, 2, or 3+ freedoms
``last``, ``last2`` the last and the second-last placements (the opponent's, then ours)
``on_board``        the point exists (always 1: the grids pad levels with 0)
==================  ================================================================

Two global inputs ride along as constant planes: whether White is to move (White moves
first, so the colours are not symmetric under komi) and komi / size².

The features are the same for every grid, so a dataset of features (``lab/netdata.py``)
serves any encoding. An :class:`Encoding` lays them out for a convolutional net:

* ``levels``: one ``size x size`` plane per level and feature, level ``l`` padded with 0
  beyond its ``size - l`` points (channels = features x levels);
* ``doubled``: a ``(2*size-1)^2`` grid on which a ball sits at its physical centre,
  ``(2x+l, 2y+l)``; channels are still per level, since a ball two levels up sits over
  the same centre.

Both map point ``i`` to a cell ``(level, row, column)``; the policy and ownership heads
read back through the same map. ``docs/network.md`` has the measured choice.

What is not encoded: the game's history beyond two moves (superko enters through
``legal``), and rules other than komi: a net is trained under the default rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.engine.geometry import geometry

__all__ = [
    "ENCODINGS",
    "FEATURES",
    "FEATURE_NAMES",
    "FEATURES_VERSION",
    "Encoding",
    "GLOBALS",
    "encoding_for",
    "final_ownership",
    "global_features",
    "mask_bits",
    "move_index",
    "point_features",
    "symmetries",
]

FEATURE_NAMES = (
    "own", "other", "own_buried", "other_buried", "own_zombie", "other_zombie", "legal",
    "own_1", "own_2", "own_3", "other_1", "other_2", "other_3", "last", "last2", "on_board",
)
FEATURES = len(FEATURE_NAMES)
FEATURES_VERSION = 1   # bump when FEATURE_NAMES or their meaning change: datasets and weights name it
GLOBALS = 2            # white to move, komi / size^2
_INDEX = {name: i for i, name in enumerate(FEATURE_NAMES)}


def mask_bits(mask: int, count: int) -> np.ndarray:
    """The ``count`` low bits of an int bit set as a uint8 0/1 array (bit i -> element i)."""
    raw = mask.to_bytes((count + 7) // 8, "little")
    return np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")[:count]


def move_index(board_size: int, move: Move) -> int:
    """The policy index of ``move``: its point's index, then pass, then swap."""
    count = geometry(board_size).count
    if move.is_pass:
        return count
    if move.is_swap:
        return count + 1
    return geometry(board_size).index[move.point]


def point_features(board: Board, colour: Colour) -> np.ndarray:
    """``(FEATURES, points)`` uint8 0/1 features of ``board`` for ``colour`` to move (module doc)."""
    g = board.geometry
    count = g.count
    out = np.zeros((FEATURES, count), np.uint8)
    own, other = int(colour), int(colour) ^ 1
    buried = board.buried_mask()
    own_mask, other_mask = board.ball_mask(Colour(own)), board.ball_mask(Colour(other))
    out[_INDEX["own"]] = mask_bits(own_mask & ~buried, count)
    out[_INDEX["other"]] = mask_bits(other_mask & ~buried, count)
    out[_INDEX["own_buried"]] = mask_bits(own_mask & buried, count)
    out[_INDEX["other_buried"]] = mask_bits(other_mask & buried, count)
    zombies = board.zombie_mask()
    out[_INDEX["own_zombie"]] = mask_bits(own_mask & zombies, count)
    out[_INDEX["other_zombie"]] = mask_bits(other_mask & zombies, count)
    legal = 0
    for move in board.legal_moves(colour):
        if move.point is not None:
            legal |= 1 << g.index[move.point]
    out[_INDEX["legal"]] = mask_bits(legal, count)
    for side, first in ((own, "own_1"), (other, "other_1")):
        by_freedoms = [0, 0, 0]
        for group, freedoms in board.group_freedoms(Colour(side)):
            by_freedoms[min(freedoms.bit_count(), 3) - 1 if freedoms else 0] |= group
        base = _INDEX[first]
        for k in range(3):
            out[base + k] = mask_bits(by_freedoms[k], count)
    placements = [move for _, move in board.history[-4:] if move.point is not None]
    for name, move in zip(("last", "last2"), reversed(placements[-2:])):
        out[_INDEX[name], g.index[move.point]] = 1
    out[_INDEX["on_board"]] = 1
    return out


def global_features(board: Board, colour: Colour) -> np.ndarray:
    """The two global inputs (module doc) as float32."""
    size = board.size
    return np.array([1.0 if int(colour) == int(Colour.WHITE) else 0.0, board.rules.komi / (size * size)], np.float32)


def final_ownership(board: Board) -> tuple[np.ndarray, float]:
    """White's view of the end: per point 1 (White's), -1 (Black's) or 0, and White's
    score minus Black's. A point is owned by its ball when that ball is neither buried
    nor a zombie, by the other side when its ball is a zombie (R19 counts it for them),
    and by the side whose territory it is. The ownership head's training target (from the
    mover's view: ``lab/netgen.py``), and the net search's ownership of a finished game."""
    g = board.geometry
    owner = np.zeros(g.count, np.int8)
    white_territory, black_territory = board.territory_masks()
    buried = board.buried_mask()
    zombies = board.zombie_mask()
    white, black = board.ball_mask(Colour.WHITE), board.ball_mask(Colour.BLACK)
    for i in range(g.count):
        bit = 1 << i
        if white_territory & bit or (white & bit and not buried & bit and not zombies & bit) or black & zombies & bit:
            owner[i] = 1
        elif black_territory & bit or (black & bit and not buried & bit and not zombies & bit) or white & zombies & bit:
            owner[i] = -1
    white_score, black_score = board.score()
    return owner, white_score - black_score


@dataclass(frozen=True)
class Encoding:
    """A grid for the features of one board size: point ``i`` sits at ``cells[i]`` =
    ``(level, row, column)``; channels are ``FEATURES`` per level, then ``GLOBALS``."""

    name: str
    size: int
    grid: int
    levels: int
    cells: np.ndarray  # (points, 3) int64

    @property
    def channels(self) -> int:
        return FEATURES * self.levels + GLOBALS

    @property
    def flat_cells(self) -> np.ndarray:
        """Each point's index into a ``(levels, grid, grid)`` array flattened."""
        level, row, column = self.cells.T
        return (level * self.grid + row) * self.grid + column

    def planes(self, features: np.ndarray, globals_: np.ndarray) -> np.ndarray:
        """``(batch, channels, grid, grid)`` float32 input from ``(batch, FEATURES, points)``
        features and ``(batch, GLOBALS)`` globals."""
        batch = features.shape[0]
        out = np.zeros((batch, FEATURES, self.levels * self.grid * self.grid), np.float32)
        out[:, :, self.flat_cells] = features
        out = out.reshape(batch, FEATURES * self.levels, self.grid, self.grid)
        flat = np.empty((batch, GLOBALS, self.grid, self.grid), np.float32)
        flat[:] = globals_[:, :, None, None]
        return np.concatenate([out, flat], axis=1)


def _levels_cells(size: int) -> np.ndarray:
    return np.array([(p.level, p.y, p.x) for p in geometry(size).points], np.int64)


def _doubled_cells(size: int) -> np.ndarray:
    return np.array([(p.level, 2 * p.y + p.level, 2 * p.x + p.level) for p in geometry(size).points], np.int64)


ENCODINGS = ("levels", "doubled")


@cache
def encoding_for(name: str, size: int) -> Encoding:
    """The :class:`Encoding` ``name`` (one of :data:`ENCODINGS`) for boards of side ``size``."""
    if name == "levels":
        return Encoding(name, size, size, size, _levels_cells(size))
    if name == "doubled":
        return Encoding(name, size, 2 * size - 1, size, _doubled_cells(size))
    raise ValueError(f"unknown encoding: {name!r} (known: {', '.join(ENCODINGS)})")


@cache
def symmetries(size: int) -> np.ndarray:
    """``(8, points)`` permutations: ``perm[k][i]`` is the point that symmetry ``k`` sends
    point ``i`` to (the 8 symmetries of the square, applied level by level; row 0 is the
    identity). Features move as ``new[:, perm[k]] = old``."""
    g = geometry(size)
    out = np.empty((8, g.count), np.int64)
    for k in range(8):
        for i, p in enumerate(g.points):
            side = size - p.level
            x, y = p.x, p.y
            if k & 1:
                x = side - 1 - x
            if k & 2:
                y = side - 1 - y
            if k & 4:
                x, y = y, x
            out[k, i] = g.index[type(p)(x, y, p.level)]
    return out
