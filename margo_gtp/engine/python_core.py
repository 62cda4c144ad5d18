"""The pure-Python rules core: :class:`PythonCore`, the readable reference.

A :class:`~margo_gtp.engine.board.Board` holds one rules core: this one, or its C twin
:class:`~margo_gtp.engine.native.NativeCore` (:mod:`margo_gtp.engine.core` chooses). What
is enforced, and how ``rules.md`` is read where it leaves room, is in the docstring of
:mod:`margo_gtp.engine.board`; the random playout loop is in :mod:`margo_gtp.engine.playout`
(as ``rules_playout.c`` is apart from the C rules).

Reading guide
-------------
* State is a handful of ints (bit sets over the flat point index of
  :mod:`~margo_gtp.engine.geometry`): balls per colour, buried balls, empty-and-supported
  points, a Zobrist key of all balls and one of the buried balls. :meth:`PythonCore.push`
  saves those ints on a stack and :meth:`PythonCore.pop` restores them: undo is exact.
* :meth:`PythonCore._resolve` is the heart: it works out what a placement does (rules R13)
  without touching the board, and returns the new state or ``None`` if the move is
  illegal. It first checks, cheaply, only the groups the placement can have hurt (the
  enemy groups next to it, the enemy groups it cuts with a bridge, the groups of the ball
  it buries, and its own group). When none of them is freedomless with something to
  lift — nearly every move — nothing is captured and it is done. Otherwise it runs the
  full capture cascade of R13 step 3, again seeded only by the balls a removal can hurt
  (released zombies, un-buried balls, and with ``all_freedoms`` the neighbours of points
  that lost their support). Pinned freedomless groups elsewhere (zombies) cannot change
  unless one of those seeds touches them, so skipping them gives the same result as
  recomputing every group; ``tests/test_rules_properties.py`` checks this against a
  literal reference implementation.
"""

from __future__ import annotations

import random as _random

from margo_gtp.engine.geometry import Geometry, geometry
from margo_gtp.engine.playout import random_playout, splitmix64
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import BLACK, WHITE, Colour, IllegalMoveError, Move, Termination, colour_index
from margo_gtp.vertex import Point


class PythonCore:
    """The pure-Python rules core: the state of one position and the rules that change it
    (see the module docstring). This is the reference; ``_native.c`` mirrors it
    (:class:`~margo_gtp.engine.native.NativeCore`). A :class:`Board` holds one core and
    is the public API; a core is never shared between boards.

    What a :class:`Board` reads of its core, on either core: the state attributes
    ``_balls`` (``[white, black]`` bit sets), ``_buried``, ``_key``, ``_to_move`` (0/1),
    ``_captured``, ``_swapped``, ``_end``, ``_root`` and ``_g`` (the geometry), and the
    methods it delegates to (``push``, ``pop``, ``legal_moves``, ``score``, ...).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._g: Geometry = geometry(rules.size)
        self._links = self._g.links if rules.bridge_cutting else self._g.links_uncut
        self._freedom_neighbours = self._g.neighbours if rules.all_freedoms else self._g.plane_neighbours
        self._playable = self._g.up_to_level[rules.top_level]
        self._vertical = self._g.vertical
        self._neighbours = self._g.neighbours
        # Where an enemy ball could cut one of a point's contacts (0 with bridge_cutting off).
        self._crossings_near = self._g.crossings_near if rules.bridge_cutting else (0,) * self._g.count
        self.clear()

    # ------------------------------------------------------------------ basic state

    def clear(self) -> None:
        self._balls = [0, 0]
        self._buried = 0
        self._key = 0
        self._buried_key = 0
        self._supported_empty = self._g.board_plane
        self._unsettled = 0
        self._set_root(self.rules.first_player)

    def _set_root(self, to_move: Colour) -> None:
        self._to_move = int(to_move)
        self._captured = [0, 0]
        self._passes = 0
        self._swapped = False
        self._end: tuple[Termination, int | None, int] | None = None
        self._stack: list[tuple] = []
        self._root = (self._balls[0], self._balls[1], int(to_move))
        key = self._repetition_key(self._key, self._buried_key, self._to_move)
        self._positions = [key]
        self._position_count = {key: 1}
        self._version = getattr(self, "_version", 0) + 1  # bumped by every change; keys caches
        self._placement_cache: tuple[int, int, bool] | None = None

    @property
    def history(self) -> list[tuple[Colour, Move]]:
        return [(Colour(entry[0]), entry[1]) for entry in self._stack]

    @property
    def ply(self) -> int:
        return len(self._stack)

    @property
    def move_stack(self) -> list[Move]:
        return [entry[1] for entry in self._stack]

    def get(self, point: Point) -> Colour | None:
        i = self._g.index.get(point)
        if i is None:
            return None
        bit = 1 << i
        if self._balls[0] & bit:
            return WHITE
        if self._balls[1] & bit:
            return BLACK
        return None

    def ball_counts(self) -> dict[Colour, int]:
        return {WHITE: self._balls[0].bit_count(), BLACK: self._balls[1].bit_count()}

    def copy(self) -> "PythonCore":
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._balls = list(self._balls)
        other._captured = list(self._captured)
        other._stack = list(self._stack)
        other._positions = list(self._positions)
        other._position_count = dict(self._position_count)
        return other

    # ------------------------------------------------------------------ setup

    def _load(self, white: int, black: int) -> None:
        """Set the balls and recompute everything derived from them."""
        g = self._g
        occ = white | black
        self._balls = [white, black]
        key = buried = buried_key = 0
        supported_empty = g.board_plane & ~occ
        m = occ
        while m:
            low = m & -m
            i = low.bit_length() - 1
            colour = 0 if white & low else 1
            key ^= g.zobrist[colour][i]
            if g.buried_by[i] & occ:
                buried |= low
                buried_key ^= g.zobrist[colour][i]
            m ^= low
        m = g.all_points & ~g.board_plane & ~occ
        while m:
            low = m & -m
            i = low.bit_length() - 1
            if g.support[i] & occ == g.support[i]:
                supported_empty |= low
            m ^= low
        self._key, self._buried, self._buried_key = key, buried, buried_key
        self._supported_empty = supported_empty
        self._unsettled = self._unsettled_mask()

    # ------------------------------------------------------------------ repetition

    def _repetition_key(self, key: int, buried_key: int, to_move: int) -> int:
        rules = self.rules
        if rules.ko_position == "top_view":
            key ^= buried_key
        if rules.ko_rule != "positional":
            key ^= self._g.zobrist_to_move[to_move]
        return key

    def _repeats(self, key: int) -> bool:
        rule = self.rules.ko_rule
        if rule == "none":
            return False
        if rule == "simple":
            return len(self._positions) >= 2 and self._positions[-2] == key
        return key in self._position_count

    # ------------------------------------------------------------------ groups

    def _probe(self, start: int, mine: int, theirs: int, free: int) -> int:
        """The group's bit set (> 0) if the group of the ball at ``start`` has no freedom;
        otherwise ``~seen`` (< 0), ``seen`` being the balls visited before a freedom was
        found: they are all in this living group, so ``seeds &= result`` skips them.

        ``mine``: the colour's non-buried balls; ``theirs``: the other colour's balls (for
        cuts); ``free``: the points that count as freedoms.
        """
        vertical, neighbours, crossings = self._vertical, self._neighbours, self._crossings_near
        links = self._links
        fnbr = self._freedom_neighbours
        seen = frontier = 1 << start
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            i = low.bit_length() - 1
            if fnbr[i] & free:
                return ~seen
            unseen = mine & ~seen
            grow = vertical[i] & unseen
            side = neighbours[i] & unseen
            if side and theirs & crossings[i]:  # an enemy ball on a crossing point: cuts possible
                for bit, crossing in links[i]:
                    if side & bit and theirs & crossing == crossing:
                        side ^= bit
            grow |= side
            seen |= grow
            frontier |= grow
        return seen

    def _freedoms_of(self, group: int, free: int) -> int:
        """The freedoms of ``group``: the points of ``free`` next to its balls (R12)."""
        fnbr = self._freedom_neighbours
        freedoms = 0
        while group:
            low = group & -group
            group ^= low
            freedoms |= fnbr[low.bit_length() - 1] & free
        return freedoms

    def _has_top(self, group: int, occ: int) -> bool:
        """True if some ball of ``group`` has nothing resting on it (it can be lifted)."""
        resting = self._g.resting
        while group:
            low = group & -group
            if not resting[low.bit_length() - 1] & occ:
                return True
            group ^= low
        return False

    def _scan(self, seeds: int, mine: int, theirs: int, free: int, occ: int | None = None) -> int:
        """The union of the freedomless groups that contain a ball of ``seeds`` (balls of
        ``mine``). With ``occ``, only groups that have a ball to lift (nothing resting on it
        among ``occ``) count: pinned zombie groups are left out."""
        fnbr = self._freedom_neighbours
        dead = 0
        while seeds:
            low = seeds & -seeds
            seeds ^= low
            q = low.bit_length() - 1
            if fnbr[q] & free:
                continue
            group = self._probe(q, mine, theirs, free)
            if group < 0:
                seeds &= group
                continue
            seeds &= ~group
            if occ is None or self._has_top(group, occ):
                dead |= group
        return dead

    def _free_points(self, occ: int, supported_empty: int) -> int:
        return supported_empty if self.rules.all_freedoms else self._g.board_plane & ~occ

    def _each_group(self, colours):
        """``(colour, group, freedoms)`` bit sets for every group of ``colours``."""
        occ = self._balls[0] | self._balls[1]
        free = self._free_points(occ, self._supported_empty)
        for colour in colours:
            mine = self._balls[colour] & ~self._buried
            theirs = self._balls[colour ^ 1]
            todo = mine
            while todo:
                low = todo & -todo
                # With no freedom to find, the probe walks the whole group and returns it.
                group = self._probe(low.bit_length() - 1, mine, theirs, 0)
                todo &= ~group
                yield colour, group, self._freedoms_of(group, free)

    # -- bit-set views for players and analysis (indices of ``_g``) ---------

    def ball_mask(self, colour: Colour) -> int:
        return self._balls[colour_index(colour)]

    def buried_mask(self) -> int:
        return self._buried

    def group_freedoms(self, colour: Colour) -> list[tuple[int, int]]:
        return [(group, freedoms) for _, group, freedoms in self._each_group((colour_index(colour),))]

    def group_at(self, index: int) -> tuple[int, int] | None:
        if not 0 <= index < self._g.count:
            raise IndexError("point index out of range")
        bit = 1 << index
        colour = 0 if self._balls[0] & bit else 1 if self._balls[1] & bit else None
        if colour is None or self._buried & bit:
            return None
        occ = self._balls[0] | self._balls[1]
        mine = self._balls[colour] & ~self._buried
        # With no freedom to find, the probe walks the whole group and returns it.
        group = self._probe(index, mine, self._balls[colour ^ 1], 0)
        return group, self._freedoms_of(group, self._free_points(occ, self._supported_empty))

    def moves_since(self, ply: int) -> list[tuple[int, Move]]:
        return [(entry[0], entry[1]) for entry in self._stack[ply:]]

    def played_points_since(self, ply: int) -> tuple[set[int], set[int]]:
        index = self._g.index
        played: tuple[set[int], set[int]] = (set(), set())
        for colour, move in self.moves_since(max(ply, 0)):  # a negative ply means 0, as in C
            if move.point is not None:
                played[colour].add(index[move.point])
        return played

    def _zombie_mask(self) -> int:
        resting = self._g.resting
        occ = self._balls[0] | self._balls[1]
        zombies = 0
        for _, group, freedoms in self._each_group((0, 1)):
            if not freedoms:
                while group:
                    b = group & -group
                    if resting[b.bit_length() - 1] & occ:
                        zombies |= b
                    group ^= b
        return zombies

    def _unsettled_mask(self) -> int:
        """Balls of freedomless groups that have a ball with nothing resting on it.

        Play never leaves such groups under ``own_freedomless_group=capture`` (the cascade
        takes them), but :meth:`Board.setup` can create them and the single pass of ``illegal``
        can leave the opponent's behind. The next placement must see them (R13 judges all
        freedomless groups), so they are remembered and seed its capture resolution.
        """
        occ = self._balls[0] | self._balls[1]
        unsettled = 0
        for _, group, freedoms in self._each_group((0, 1)):
            if not freedoms and self._has_top(group, occ):
                unsettled |= group
        return unsettled

    # ------------------------------------------------------------------ resolving a placement

    def _resolve(self, i: int, c: int) -> tuple | None:
        """What placing colour ``c`` at point ``i`` does (R13), without changing the board.

        Returns ``(white, black, buried, key, buried_key, supported_empty, removed_white,
        removed_black, repetition_key, unsettled)`` or ``None`` if the move is illegal. ``i`` must be
        an empty supported point within ``max_level`` (the callers check).
        """
        g = self._g
        bit = 1 << i
        own = self._balls[c] | bit
        opp = self._balls[c ^ 1]
        occ = own | opp
        buried = self._buried
        buried_key = self._buried_key
        key = self._key ^ g.zobrist[c][i]
        supported = self._supported_empty ^ bit
        support = g.support
        m = g.resting[i]
        while m:
            low = m & -m
            s = support[low.bit_length() - 1]
            if occ & s == s:
                supported |= low
            m ^= low
        all_freedoms = self.rules.all_freedoms
        free = supported if all_freedoms else g.board_plane & ~occ
        level = g.level[i]
        seeds_opp = g.neighbours[i] & opp if (level == 0 or all_freedoms) else 0
        seeds_own = bit
        if level:
            if self.rules.bridge_cutting:
                for pair, other in g.under[i]:
                    if opp & pair == pair and own & other:
                        seeds_opp |= pair
            if level >= 2:
                j = g.buries[i]
                bj = 1 << j
                buried |= bj
                near = g.vertical[j] | g.neighbours[j]
                if own & bj:
                    buried_key ^= g.zobrist[c][j]
                    seeds_own |= near & own
                else:
                    buried_key ^= g.zobrist[c ^ 1][j]
                    seeds_opp |= near & opp
        fnbr = self._freedom_neighbours
        # Fast check: does any hurt group lack a freedom and have a ball to lift?
        if self._unsettled:
            slow = True
            seeds_opp |= self._unsettled & opp
            seeds_own |= self._unsettled & own
        else:
            mine = opp & ~buried
            slow = bool(self._scan(seeds_opp & mine, mine, own, free, occ))
            if not slow:
                mine = own & ~buried
                if not fnbr[i] & free and self._probe(i, mine, opp, free) > 0:
                    return None  # suicide: the placed ball's group has no freedom
                slow = bool(self._scan(seeds_own & mine & ~bit, mine, opp, free, occ))
        if not slow:
            balls = (own, opp) if c == 0 else (opp, own)
            removed = (0, 0)
            unsettled = 0
        else:
            state = self._cascade(i, c, own, opp, buried, key, buried_key, supported, seeds_opp, seeds_own)
            if state is None:
                return None
            balls, buried, key, buried_key, supported, removed, unsettled = state
        to_move = c ^ 1
        repetition_key = self._repetition_key(key, buried_key, to_move)
        if self._repeats(repetition_key):
            return None
        return (balls[0], balls[1], buried, key, buried_key, supported, removed[0], removed[1], repetition_key,
                unsettled)

    def _cascade(self, i, c, own, opp, buried, key, buried_key, supported, seeds_opp, seeds_own):
        """The capture cascade of R13 step 3 (and the suicide test of step 4), seeded by the
        balls the placement hurt. Returns the new state or ``None`` if the move is illegal."""
        g = self._g
        resting, support, zobrist = g.resting, g.support, g.zobrist
        fnbr = self._freedom_neighbours
        all_freedoms = self.rules.all_freedoms
        single_pass = self.rules.own_freedomless_group == "illegal"
        bit = 1 << i
        balls = [0, 0]
        balls[c], balls[c ^ 1] = own, opp
        seeds = [0, 0]
        seeds[c], seeds[c ^ 1] = seeds_own, seeds_opp
        removed = [0, 0]
        side = c ^ 1
        idle = 0
        while idle < 2:
            mine = balls[side] & ~buried
            theirs = balls[side ^ 1]
            occ = mine | theirs | buried
            free = supported if all_freedoms else g.board_plane & ~occ
            dead = self._scan(seeds[side] & mine, mine, theirs, free)
            seeds[side] = 0
            lifted = 0
            while dead:  # top-down: the highest index is on the highest level
                top = 1 << (dead.bit_length() - 1)
                dead ^= top
                if not resting[top.bit_length() - 1] & occ:
                    occ ^= top
                    lifted |= top
            if lifted:
                if side == c and lifted & bit:
                    return None  # the placed ball itself was captured: suicide
                idle = 0
                balls[side] ^= lifted
                removed[side] |= lifted
                unsupported = 0
                m = lifted
                while m:
                    low = m & -m
                    m ^= low
                    r = low.bit_length() - 1
                    key ^= zobrist[side][r]
                    seeds[0] |= support[r] & balls[0]  # released zombies
                    seeds[1] |= support[r] & balls[1]
                    unsupported |= resting[r]
                    u = g.buries[r]
                    if u >= 0 and not g.buried_by[u] & occ and buried >> u & 1:
                        buried ^= 1 << u  # un-buried: may now be taken (revealed capture)
                        uc = 0 if balls[0] >> u & 1 else 1
                        buried_key ^= zobrist[uc][u]
                        seeds[uc] |= 1 << u
                supported &= ~unsupported
                m = lifted
                while m:
                    low = m & -m
                    m ^= low
                    s = support[low.bit_length() - 1]
                    if occ & s == s:
                        supported |= low
                if all_freedoms:
                    m = unsupported
                    while m:
                        low = m & -m
                        m ^= low
                        near = g.neighbours[low.bit_length() - 1]
                        seeds[0] |= near & balls[0]
                        seeds[1] |= near & balls[1]
            else:
                idle += 1
            if single_pass:
                break
            side ^= 1
        occ = balls[0] | balls[1]
        free = supported if all_freedoms else g.board_plane & ~occ
        mine = balls[c] & ~buried
        if not balls[c] & bit:
            return None
        if not fnbr[i] & free and self._probe(i, mine, balls[c ^ 1], free) > 0:
            return None
        unsettled = 0
        if single_pass:
            if self._scan(seeds[c] & mine & ~bit, mine, balls[c ^ 1], free, occ):
                return None  # another own group left freedomless (rule "illegal")
            # The single pass does not follow up what its removals released or un-buried:
            # remember the opponent's groups it left freedomless and liftable.
            theirs = balls[c ^ 1] & ~buried
            unsettled = self._scan(seeds[c ^ 1] & theirs, theirs, balls[c], free, occ)
        return balls, buried, key, buried_key, supported, removed, unsettled

    # ------------------------------------------------------------------ moves

    def _point_index(self, move: Move) -> int:
        i = self._g.index.get(move.point)
        if i is None:
            size = self.rules.size
            raise IllegalMoveError(f"illegal move: {move!r} is off a {size}x{size} board")
        return i

    def _check_placeable(self, i: int) -> str | None:
        """Why point ``i`` cannot take a ball now (before any capture logic), or None."""
        bit = 1 << i
        if (self._balls[0] | self._balls[1]) & bit:
            return "point is occupied"
        if not self._supported_empty & bit:
            return "point is not supported"
        if not self._playable & bit:
            return f"level is above max_level {self.rules.top_level + 1}"
        return None

    def _swap_legal(self, c: int) -> bool:
        return (self.rules.swap and len(self._stack) == 1 and self._stack[0][1].kind == "place"
                and c == self._to_move and self._end is None)

    def is_legal(self, move: Move, colour: Colour | None = None) -> bool:
        try:
            self._prepare(move, colour)
        except IllegalMoveError:
            return False
        return True

    def _prepare(self, move: Move, colour: Colour | None) -> tuple:
        """Check ``move``; return what :meth:`push` needs, or raise IllegalMoveError."""
        c = self._to_move if colour is None else colour_index(colour)
        if self._end is not None:
            raise IllegalMoveError(f"illegal move: {move.gtp()}: the game is over ({self._end[0].value})")
        if move.kind == "pass":
            if not self.rules.allow_pass:
                raise IllegalMoveError("illegal move: pass: passing is not allowed (allow_pass is off)")
            return (c, None)
        if move.kind == "swap":
            if not self._swap_legal(c):
                raise IllegalMoveError("illegal move: swap: only the second player, on the second turn, with swap on")
            return (c, None)
        i = self._point_index(move)
        reason = self._check_placeable(i)
        if reason is None:
            state = self._resolve(i, c)
            if state is not None:
                return (c, state)
            reason = "suicide or repetition"
        raise IllegalMoveError(f"illegal move: {move.gtp()} for {Colour(c).name}: {reason}")

    def push(self, move: Move, colour: Colour | None = None) -> None:
        c, state = self._prepare(move, colour)
        self._commit(move, c, state)

    def _commit(self, move: Move, c: int, state: tuple | None) -> None:
        self._version += 1
        self._stack.append((c, move, self._balls[0], self._balls[1], self._buried, self._key,
                            self._buried_key, self._supported_empty, self._to_move,
                            self._captured[0], self._captured[1], self._passes, self._swapped, self._end,
                            self._unsettled))
        if move.kind == "place":
            (white, black, self._buried, self._key, self._buried_key, self._supported_empty, rw, rb, rk,
             self._unsettled) = state
            self._balls = [white, black]
            self._to_move = c ^ 1
            self._passes = 0
            if rw or rb:
                taken_by_white, taken_by_black = rb.bit_count(), rw.bit_count()
                self._captured[0] += taken_by_white
                self._captured[1] += taken_by_black
                if self.rules.first_capture_wins:
                    enemy_removed = (rb if c == 0 else rw).bit_count()
                    winner = c if enemy_removed else c ^ 1
                    self._end = (Termination.FIRST_CAPTURE, winner, taken_by_white + taken_by_black)
            self._positions.append(rk)
            self._position_count[rk] = self._position_count.get(rk, 0) + 1
        elif move.kind == "pass":
            self._to_move = c ^ 1
            self._passes += 1
            if self._passes >= 2:
                self._end = (Termination.TWO_PASSES, None, 0)
        else:  # swap: the players exchange colours; the same colour is still to move (R7)
            self._swapped = True

    def pop(self) -> Move:
        if not self._stack:
            raise IndexError("pop from a board with no moves since the root")
        self._version += 1
        (c, move, white, black, self._buried, self._key, self._buried_key, self._supported_empty,
         self._to_move, cw, cb, self._passes, self._swapped, self._end, self._unsettled) = self._stack.pop()
        self._balls = [white, black]
        self._captured = [cw, cb]
        if move.kind == "place":
            rk = self._positions.pop()
            count = self._position_count[rk] - 1
            if count:
                self._position_count[rk] = count
            else:
                del self._position_count[rk]
        return move

    def peek(self) -> Move | None:
        return self._stack[-1][1] if self._stack else None

    def _candidates(self) -> int:
        return self._supported_empty & self._playable

    def _placement_legal(self, i: int, c: int) -> bool:
        """Legality of a placement at a candidate point, with a cheap exact shortcut for the
        common board-plane move that has a freedom of its own and captures nothing."""
        g = self._g
        if g.level[i] == 0 and not self.rules.all_freedoms and not self._unsettled:
            bit = 1 << i
            opp = self._balls[c ^ 1]
            empty = g.board_plane & ~(self._balls[0] | self._balls[1] | bit)
            pn = g.plane_neighbours
            if pn[i] & empty:
                enemies = g.neighbours[i] & opp
                while enemies:
                    low = enemies & -enemies
                    if not pn[low.bit_length() - 1] & empty:
                        break
                    enemies ^= low
                else:
                    # Nothing is captured and the ball lives: only repetition can forbid it.
                    key = self._key ^ g.zobrist[c][i]
                    return not self._repeats(self._repetition_key(key, self._buried_key, c ^ 1))
        return self._resolve(i, c) is not None

    def legal_moves(self, colour: Colour | None = None) -> list[Move]:
        if self._end is not None:
            return []
        c = self._to_move if colour is None else colour_index(colour)
        points = self._g.points
        out = []
        m = self._candidates()
        while m:
            low = m & -m
            m ^= low
            i = low.bit_length() - 1
            if self._placement_legal(i, c):
                out.append(Move(points[i]))
        if self._swap_legal(c):
            out.append(Move.SWAP)
        if self.rules.allow_pass:
            out.append(Move.PASS)
        return out

    def has_legal_placement(self, colour: Colour | None = None) -> bool:
        c = self._to_move if colour is None else colour_index(colour)
        cached = self._placement_cache
        if cached is not None and cached[0] == self._version and cached[1] == c:
            return cached[2]
        m = self._candidates()
        found = False
        while m:
            low = m & -m
            m ^= low
            if self._placement_legal(low.bit_length() - 1, c):
                found = True
                break
        self._placement_cache = (self._version, c, found)
        return found

    # ------------------------------------------------------------------ end and score

    def score(self, scoring: str | None = None) -> tuple[float, float]:
        scoring = scoring or self.rules.scoring
        komi = self.rules.komi
        if scoring == "balls":
            return self._balls[0].bit_count() + komi, self._balls[1].bit_count() + float(0)
        zombies = self._zombie_mask()
        territory = self.territory_masks(zombies)
        scores = []
        for c in (0, 1):
            own = self._balls[c]
            scores.append((own & ~zombies).bit_count() + (self._balls[c ^ 1] & zombies).bit_count()
                          + territory[c].bit_count())
        return scores[0] + komi, float(scores[1])

    def territory_masks(self, zombies: int | None = None) -> tuple[int, int]:
        g = self._g
        if zombies is None:
            zombies = self._zombie_mask()
        occ = self._balls[0] | self._balls[1]
        alive = (self._balls[0] & ~zombies, self._balls[1] & ~zombies)
        plane = g.board_plane
        empty = plane & ~occ
        territory = [0, 0]
        todo = empty
        while todo:
            low = todo & -todo
            region = frontier = low
            while frontier:  # flood the empty region on level 0
                b = frontier & -frontier
                frontier ^= b
                grow = g.neighbours[b.bit_length() - 1] & empty & ~region
                region |= grow
                frontier |= grow
            todo &= ~region
            border = 0
            m = region
            while m:
                b = m & -m
                m ^= b
                border |= g.neighbours[b.bit_length() - 1]
            for c in (0, 1):
                if border & alive[c] and not border & alive[c ^ 1]:
                    territory[c] |= region
        for c in (0, 1):
            base = alive[c] | territory[c]
            for level in range(1, self.rules.top_level + 1):
                m = g.level_mask[level] & ~occ
                while m:
                    b = m & -m
                    m ^= b
                    s = g.support[b.bit_length() - 1]
                    if base & s == s:
                        territory[c] |= b
                        base |= b
        return territory[0], territory[1]

    # ------------------------------------------------------------------ random play

    def random_playout(self, rng: _random.Random | None = None, max_moves: int = 2000) -> int:
        """Play uniformly random legal moves (passes and swaps included when legal) until the
        game is over or ``max_moves`` were played; return the number of moves played.

        Uniform: candidates are tried in random order without replacement and the first
        legal one is played, so every legal move is equally likely.
        """
        rng = rng or _random.Random()
        return random_playout(self, rng.random, max_moves)

    def seeded_playout(self, seed: int, max_moves: int = 2000) -> int:
        return random_playout(self, splitmix64(seed), max_moves)
