"""Pyramid geometry of one board size, precomputed once as int bitmasks (rules R1-R3, R8, R10).

Every point of every level gets a flat index; indices run level by level, then row by
row, then column by column, so sorting indices gives the protocol's listing order
(level, row, column) and the highest index is the highest level. A set of points is an
int with bit ``i`` set for point ``i``. Tables are tuples indexed by point:

=================  ===========================================================================
``bit[i]``         ``1 << i``
``level[i]``       0-based level of point ``i``
``support[i]``     the four level-(l-1) points ``i`` rests on (0 on level 0)            R2
``resting[i]``     the level-(l+1) points that rest on ``i``                            R2
``vertical[i]``    ``support[i] | resting[i]``: contacts that are never cut             R9a
``neighbours[i]``  orthogonal neighbours on the same level                              R9b
``links[i]``       ``((bit_j, crossing_mask), ...)`` for each same-level neighbour ``j``:
                   the contact is cut when every crossing point holds an enemy ball.
                   Edge contacts have one crossing point only and are never cut: their
                   ``crossing_mask`` is ``-1``, which no ball set can cover.             R10
``under[i]``       for a ball at ``i`` (level >= 1), the four contacts it crosses on the
                   level below: ``((pair_mask, other_crossing_bit), ...)``, edge
                   contacts left out                                                    R10
``buries[i]``      index of the point that a ball at ``i`` buries, ``(x+1, y+1, l-2)``,
                   or -1                                                                R8
``buried_by[i]``   bit of the point straight above ``i``, ``(x-1, y-1, l+2)``, or 0      R3, R8
=================  ===========================================================================
"""

from __future__ import annotations

import functools
import random

from margo_gtp.vertex import Point


class Geometry:
    """Precomputed tables for boards of side ``size`` (shared, immutable; see the module doc)."""

    def __init__(self, size: int) -> None:
        self.size = size
        points: list[Point] = []
        for level in range(size):
            side = size - level
            for y in range(side):
                for x in range(side):
                    points.append(Point(x, y, level))
        self.points: tuple[Point, ...] = tuple(points)
        self.count = len(points)
        index = {(p.x, p.y, p.level): i for i, p in enumerate(points)}
        self.index: dict[Point, int] = {p: i for i, p in enumerate(points)}

        def at(x: int, y: int, level: int) -> int:
            return index.get((x, y, level), -1)

        def mask(*indices: int) -> int:
            m = 0
            for i in indices:
                if i >= 0:
                    m |= 1 << i
            return m

        bit, lvl, support, resting, neighbours, links, under, buries, buried_by = ([] for _ in range(9))
        for i, p in enumerate(points):
            x, y, l = p.x, p.y, p.level
            bit.append(1 << i)
            lvl.append(l)
            support.append(mask(at(x, y, l - 1), at(x + 1, y, l - 1), at(x, y + 1, l - 1), at(x + 1, y + 1, l - 1)) if l else 0)
            resting.append(mask(at(x - 1, y - 1, l + 1), at(x, y - 1, l + 1), at(x - 1, y, l + 1), at(x, y, l + 1)))
            nbrs = [at(x + 1, y, l), at(x - 1, y, l), at(x, y + 1, l), at(x, y - 1, l)]
            neighbours.append(mask(*nbrs))
            point_links = []
            for j, crossing in zip(nbrs, self._crossings(x, y, l, at)):
                if j >= 0:
                    point_links.append((1 << j, crossing))
            links.append(tuple(point_links))
            contacts = []
            if l >= 1:
                # The four edges of the 2x2 square below (x, y, l): each is crossed by this
                # ball and by its neighbour across that edge (R10).
                below = [(at(x, y, l - 1), at(x + 1, y, l - 1), at(x, y - 1, l)),          # south edge
                         (at(x, y + 1, l - 1), at(x + 1, y + 1, l - 1), at(x, y + 1, l)),  # north edge
                         (at(x, y, l - 1), at(x, y + 1, l - 1), at(x - 1, y, l)),          # west edge
                         (at(x + 1, y, l - 1), at(x + 1, y + 1, l - 1), at(x + 1, y, l))]  # east edge
                for a, b, other in below:
                    if other >= 0:
                        contacts.append((mask(a, b), 1 << other))
            under.append(tuple(contacts))
            buries.append(at(x + 1, y + 1, l - 2) if l >= 2 else -1)
            buried_by.append(mask(at(x - 1, y - 1, l + 2)))

        self.bit = tuple(bit)
        self.level = tuple(lvl)
        self.support = tuple(support)
        self.resting = tuple(resting)
        self.neighbours = tuple(neighbours)
        self.vertical = tuple(s | r for s, r in zip(support, resting))
        self.links = tuple(links)
        self.links_uncut = tuple(tuple((b, -1) for b, _ in ls) for ls in links)
        #: union of the crossing points of all of a point's cuttable contacts
        self.crossings_near = tuple(_union(c for _, c in ls if c != -1) for ls in links)
        self.under = tuple(under)
        self.buries = tuple(buries)
        self.buried_by = tuple(buried_by)
        self.level_mask = tuple(sum(1 << i for i in range(self.count) if lvl[i] == l) for l in range(size))
        self.board_plane = self.level_mask[0]
        #: level-0 neighbours for level-0 points, 0 above: where a ball's own freedoms are (R12).
        self.plane_neighbours = tuple(n if l == 0 else 0 for n, l in zip(neighbours, lvl))
        self.all_points = (1 << self.count) - 1
        self.up_to_level = tuple(sum(self.level_mask[: l + 1]) for l in range(size))
        # Zobrist keys: fixed seed so keys are reproducible across runs and processes.
        rng = random.Random(0x6D6172676F ^ size)
        self.zobrist = (tuple(rng.getrandbits(64) for _ in range(self.count)),
                        tuple(rng.getrandbits(64) for _ in range(self.count)))
        self.zobrist_to_move = (rng.getrandbits(64), rng.getrandbits(64))

    @staticmethod
    def _crossings(x: int, y: int, l: int, at) -> list[int]:
        """Crossing masks for the contacts east, west, north, south of (x, y, l) (R10)."""
        def crossing(a: int, b: int) -> int:
            return -1 if a < 0 or b < 0 else (1 << a) | (1 << b)
        return [
            crossing(at(x, y - 1, l + 1), at(x, y, l + 1)),          # (x,y)-(x+1,y)
            crossing(at(x - 1, y - 1, l + 1), at(x - 1, y, l + 1)),  # (x-1,y)-(x,y)
            crossing(at(x - 1, y, l + 1), at(x, y, l + 1)),          # (x,y)-(x,y+1)
            crossing(at(x - 1, y - 1, l + 1), at(x, y - 1, l + 1)),  # (x,y-1)-(x,y)
        ]

    def points_of(self, mask: int) -> list[Point]:
        """The points of a bit set, in index (= protocol listing) order."""
        out = []
        while mask:
            low = mask & -mask
            out.append(self.points[low.bit_length() - 1])
            mask ^= low
        return out

    def mask_of(self, points) -> int:
        m = 0
        for p in points:
            m |= 1 << self.index[p]
        return m


def _union(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


@functools.cache
def geometry(size: int) -> Geometry:
    """The shared :class:`Geometry` for ``size`` (built once per process)."""
    return Geometry(size)
