"""A deliberately naive, literal implementation of the MarGo rules: the test oracle.

Reading guide
-------------
This module re-implements ``/work/shared/rules.md`` (R1-R21 and every option of §9) in
the most direct way we could write it, so that the fast engine (``margo_gtp.engine``,
bitsets and incremental capture detection) can be compared against it move by move.
It must stay independent of the engine: it imports nothing from ``margo_gtp.engine``.

* A point is a plain tuple ``(x, y, l)`` (0-based; ``l = 0`` is the board plane).
* A colour is the string ``"W"`` or ``"B"``.
* A board is a ``dict`` point -> colour; everything derived from it (buried balls,
  groups, freedoms, zombies, territory) is recomputed from scratch on every call.
* A move is a point, :data:`PASS` or :data:`SWAP`.

Clarity over speed: nothing is cached, nothing is incremental. A 5x5 legal-move list
costs milliseconds, which is fine for an oracle.

Interpretation choices (shared with the engine; rules.md is silent or terse on them):

* A crossing ball counts for the over/under cut even if it is buried or a zombie: it
  physically holds a ball (R10).
* ``all_freedoms`` counts empty *supported* points next to a member on its own level;
  ``max_level`` does not restrict freedoms (R12).
* ``simple`` ko compares the position after the move with the position two plies back,
  i.e. the second last entry of the position history (passes and swaps add no position).
* Swap is legal only when ``swap`` is on, the move stack is exactly one placement since
  the root, and the swapping colour is the side to move. After a swap the board and the
  side to move are unchanged (R7).
* ``first_capture_wins``: the first move whose resolution removes any ball ends the game;
  the mover wins if it removed enemy balls, else the opponent wins (R21).
* ``captured[c]`` counts balls of ``opponent(c)`` removed from the board, i.e. balls
  captured *by* ``c``; a mover's own balls removed by the cascade count for the opponent.
* Once the game is over (first capture, two passes, or no legal move) there are no legal
  moves.

Not modelled: resignation and time (they are session business, not rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Union

WHITE = "W"
BLACK = "B"
COLOURS = (WHITE, BLACK)

Pt = tuple[int, int, int]
Balls = dict[Pt, str]

PASS = "pass"
SWAP = "swap"
RefMove = Union[Pt, str]


class ReferenceIllegalMove(ValueError):
    """Raised by :meth:`ReferenceBoard.play` for an illegal move (board left unchanged)"""


def opponent(colour: str) -> str:
    """R4: the two colours."""
    return BLACK if colour == WHITE else WHITE


# ---------------------------------------------------------------------------------------
# Options (rules.md §9)

_ON_OFF = {"on": True, "off": False}
_CHOICES = {
    "own_freedomless_group": ("capture", "illegal"),
    "ko_rule": ("situational", "positional", "simple", "none"),
    "ko_position": ("full", "top_view"),
    "scoring": ("balls", "territory"),
}


@dataclass(frozen=True)
class RefRules:
    """Every option of rules.md §9 with its default; colours as ``"W"``/``"B"``."""

    size: int = 9
    first_player: str = WHITE
    swap: bool = False
    max_level: int | None = None
    bridge_cutting: bool = True
    all_freedoms: bool = False
    own_freedomless_group: str = "capture"
    ko_rule: str = "situational"
    ko_position: str = "full"
    scoring: str = "balls"
    allow_pass: bool = False
    first_capture_wins: bool = False
    komi: float = 0.0

    @property
    def top_level(self) -> int:
        """The highest playable level (R5: ``max_level``, default N-1)."""
        return self.size - 1 if self.max_level is None else self.max_level

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> "RefRules":
        """Build from §9 names and text values, e.g. ``{"size": 5, "swap": "on"}``."""
        values: dict[str, object] = {}
        for name, raw in options.items():
            text = str(raw).lower()
            if name in ("size", "max_level"):
                values[name] = int(text)
            elif name == "komi":
                values[name] = float(text)
            elif name == "first_player":
                values[name] = {"white": WHITE, "black": BLACK}[text]
            elif name in ("swap", "bridge_cutting", "all_freedoms", "allow_pass", "first_capture_wins"):
                values[name] = _ON_OFF[text]
            elif name in _CHOICES:
                if text not in _CHOICES[name]:
                    raise ValueError(f"bad value for {name}: {raw!r}")
                values[name] = text
            else:
                raise ValueError(f"unknown option: {name!r}")
        return cls(**values)  # type: ignore[arg-type]

    def options(self) -> dict[str, str]:
        """The §9 text form of every option that differs from the default."""
        result: dict[str, str] = {}
        for name, default in RefRules().__dict__.items():
            value = getattr(self, name)
            if name == "size" or value != default:
                if isinstance(value, bool):
                    result[name] = "on" if value else "off"
                elif name == "first_player":
                    result[name] = "white" if value == WHITE else "black"
                else:
                    result[name] = str(value)
        return result


# ---------------------------------------------------------------------------------------
# R1-R3: geometry


def exists(point: Pt, size: int) -> bool:
    """R1: level ``l`` has the ``(N-l) x (N-l)`` points ``0 <= x, y <= N-1-l``."""
    x, y, level = point
    return 0 <= level < size and 0 <= x < size - level and 0 <= y < size - level


def all_points(size: int) -> list[Pt]:
    """R1: every point of the pyramid, N(N+1)(2N+1)/6 of them, level by level."""
    return [(x, y, level) for level in range(size) for y in range(size - level) for x in range(size - level)]


def supports_of(point: Pt) -> list[Pt]:
    """R2: the four level-(l-1) points a level-l point rests on (none on level 0)."""
    x, y, level = point
    if level == 0:
        return []
    return [(x, y, level - 1), (x + 1, y, level - 1), (x, y + 1, level - 1), (x + 1, y + 1, level - 1)]


def resting_points(point: Pt, size: int) -> list[Pt]:
    """R2: the existing level-(l+1) points that rest on ``point``."""
    x, y, level = point
    candidates = [(x - 1, y - 1, level + 1), (x, y - 1, level + 1), (x - 1, y, level + 1), (x, y, level + 1)]
    return [p for p in candidates if exists(p, size)]


def point_above(point: Pt) -> Pt:
    """R3: the point straight above ``(x, y, l)`` is ``(x-1, y-1, l+2)`` (may not exist)."""
    x, y, level = point
    return (x - 1, y - 1, level + 2)


def plane_neighbours(point: Pt, size: int) -> list[Pt]:
    """Orthogonal neighbours on the same level (diagonals never touch, R9)."""
    x, y, level = point
    candidates = [(x - 1, y, level), (x + 1, y, level), (x, y - 1, level), (x, y + 1, level)]
    return [p for p in candidates if exists(p, size)]


def is_supported(point: Pt, balls: Mapping[Pt, str]) -> bool:
    """R2: level 0 always; higher points need a ball, of any colour, on all four supports."""
    return all(support in balls for support in supports_of(point))


def has_ball_resting_on(point: Pt, balls: Mapping[Pt, str], size: int) -> bool:
    """True when any ball (any colour, buried or not) rests on ``point``."""
    return any(p in balls for p in resting_points(point, size))


# ---------------------------------------------------------------------------------------
# R8-R11: buried balls, connections, the over/under cut, groups


def is_buried(point: Pt, balls: Mapping[Pt, str]) -> bool:
    """R8: a ball is buried when the point straight above it holds a ball."""
    return point_above(point) in balls


def crossing_points(a: Pt, b: Pt) -> tuple[Pt, Pt]:
    """R10: the two level-(l+1) points that cross the same-level contact ``a``-``b``.

    ``(x,y,l)-(x+1,y,l)`` is crossed by ``(x,y-1,l+1)`` and ``(x,y,l+1)``;
    ``(x,y,l)-(x,y+1,l)`` is crossed by ``(x-1,y,l+1)`` and ``(x,y,l+1)``.
    """
    (ax, ay, level), (bx, by, _) = sorted((a, b))
    if ay == by:  # east-west contact, a is the west ball
        return (ax, ay - 1, level + 1), (ax, ay, level + 1)
    return (ax - 1, ay, level + 1), (ax, ay, level + 1)


def is_cut(a: Pt, b: Pt, balls: Mapping[Pt, str], rules: RefRules) -> bool:
    """R10: the contact is cut iff both crossing points exist and hold a ball, and
    neither of those balls has the colour of the lower pair.

    On the board edge one crossing point does not exist, so edge contacts are never cut.
    A buried or zombie crossing ball still counts (it physically holds a ball). With
    ``bridge_cutting`` off nothing is ever cut.
    """
    if not rules.bridge_cutting:
        return False
    colour = balls[a]
    crossing = crossing_points(a, b)
    if not all(exists(p, rules.size) for p in crossing):
        return False
    return all(p in balls and balls[p] != colour for p in crossing)


def connected_neighbours(point: Pt, balls: Mapping[Pt, str], rules: RefRules) -> list[Pt]:
    """R9: the non-buried same-colour balls connected to the non-buried ball at ``point``:
    a) resting on it or under it (vertical contacts are never cut);
    b) orthogonal neighbours on its level whose contact is not cut (R10)."""
    colour = balls[point]
    result = []
    vertical = supports_of(point) + resting_points(point, rules.size)
    for other in vertical:
        if balls.get(other) == colour and not is_buried(other, balls):
            result.append(other)
    for other in plane_neighbours(point, rules.size):
        if balls.get(other) == colour and not is_buried(other, balls) and not is_cut(point, other, balls, rules):
            result.append(other)
    return result


def groups(balls: Mapping[Pt, str], rules: RefRules) -> list[frozenset[Pt]]:
    """R11: maximal sets of same-colour non-buried balls linked by R9 (buried balls belong
    to no group)."""
    seen: set[Pt] = set()
    result = []
    for start in sorted(balls):
        if start in seen or is_buried(start, balls):
            continue
        members = {start}
        frontier = [start]
        while frontier:
            current = frontier.pop()
            for other in connected_neighbours(current, balls, rules):
                if other not in members:
                    members.add(other)
                    frontier.append(other)
        seen |= members
        result.append(frozenset(members))
    return result


# ---------------------------------------------------------------------------------------
# R12: freedoms


def freedoms(group: Iterable[Pt], balls: Mapping[Pt, str], rules: RefRules) -> set[Pt]:
    """R12: the empty level-0 points orthogonally adjacent to a level-0 member.

    With ``all_freedoms`` on: also every empty *supported* point orthogonally adjacent to
    a member on the member's own level, at any height.
    """
    result: set[Pt] = set()
    for member in group:
        if member[2] != 0 and not rules.all_freedoms:
            continue
        for other in plane_neighbours(member, rules.size):
            if other not in balls and is_supported(other, balls):
                result.add(other)
    return result


def group_of(point: Pt, balls: Mapping[Pt, str], rules: RefRules) -> frozenset[Pt] | None:
    """The group holding ``point`` (None if the point is empty or buried)."""
    for group in groups(balls, rules):
        if point in group:
            return group
    return None


# ---------------------------------------------------------------------------------------
# R13-R15: resolving a placement, the capture cascade, zombies


def lift_top_down(dead: set[Pt], balls: Balls, size: int) -> list[Pt]:
    """R13.3: remove from ``balls`` every ball of ``dead`` on which no ball rests, and repeat
    until nothing more can be lifted. Returns the removed points; the balls of ``dead`` left
    on the board are zombies (R15)."""
    removed: list[Pt] = []
    while True:
        free = sorted(p for p in dead if p in balls and not has_ball_resting_on(p, balls, size))
        if not free:
            return removed
        for point in free:
            del balls[point]
        removed.extend(free)


def freedomless_balls(colour: str, balls: Mapping[Pt, str], rules: RefRules) -> set[Pt]:
    """All balls of the groups of ``colour`` that have no freedom."""
    dead: set[Pt] = set()
    for group in groups(balls, rules):
        some = next(iter(group))
        if balls[some] == colour and not freedoms(group, balls, rules):
            dead |= group
    return dead


@dataclass
class Resolution:
    """What a placement does: ``legal``; if legal, the board after it and the balls removed."""

    legal: bool
    reason: str
    balls: Balls
    removed: dict[Pt, str]


def resolve_placement(balls: Mapping[Pt, str], point: Pt, colour: str, rules: RefRules) -> Resolution:
    """R13 steps 1-4 for a placement of ``colour`` at ``point`` (repetition, R16, is checked
    by the caller).

    1. ``point`` must exist, be empty, supported and not above ``max_level``.
    2. Put the ball.
    3. Capture cascade (``own_freedomless_group=capture``): ``side := opponent``, ``idle := 0``;
       while ``idle < 2``: recompute groups, ``dead`` := balls of ``side``'s freedomless
       groups, lift them top-down; ``idle := 0`` if anything went else ``idle + 1``;
       ``side := opponent(side)``. Enemy groups are thus judged first (R14).
       With ``own_freedomless_group=illegal``: one pass removing the opponent's freedomless
       groups top-down.
    4. No suicide: the placed ball must still be on the board with a freedom in its group.
       With ``illegal``: also no other group of the mover may lack a freedom while holding a
       ball with nothing resting on it.
    """
    after: Balls = dict(balls)
    if not exists(point, rules.size):
        return Resolution(False, "off board", after, {})
    if point in after:
        return Resolution(False, "occupied", after, {})
    if point[2] > rules.top_level:
        return Resolution(False, "above max_level", after, {})
    if not is_supported(point, after):
        return Resolution(False, "unsupported", after, {})
    after[point] = colour
    removed: dict[Pt, str] = {}

    if rules.own_freedomless_group == "capture":
        side = opponent(colour)
        idle = 0
        while idle < 2:
            dead = freedomless_balls(side, after, rules)
            lifted = lift_top_down(dead, after, rules.size)
            for p in lifted:
                removed[p] = side
            idle = 0 if lifted else idle + 1
            side = opponent(side)
        if point not in after:
            return Resolution(False, "suicide (placed ball captured)", dict(balls), {})
        group = group_of(point, after, rules)
        if group is None or not freedoms(group, after, rules):
            return Resolution(False, "suicide (no freedom)", dict(balls), {})
        return Resolution(True, "", after, removed)

    # own_freedomless_group == "illegal": one pass over the opponent, then judge the mover.
    enemy = opponent(colour)
    for p in lift_top_down(freedomless_balls(enemy, after, rules), after, rules.size):
        removed[p] = enemy
    group = group_of(point, after, rules)
    if group is None or not freedoms(group, after, rules):
        return Resolution(False, "suicide (no freedom)", dict(balls), {})
    for other in groups(after, rules):
        if after[next(iter(other))] != colour or point in other:
            continue
        if not freedoms(other, after, rules) and any(
            not has_ball_resting_on(p, after, rules.size) for p in other
        ):
            return Resolution(False, "own group left without freedom", dict(balls), {})
    return Resolution(True, "", after, removed)


def zombies(balls: Mapping[Pt, str], rules: RefRules) -> set[Pt]:
    """R15: balls of freedomless groups on which some ball rests."""
    result: set[Pt] = set()
    for group in groups(balls, rules):
        if not freedoms(group, balls, rules):
            result |= {p for p in group if has_ball_resting_on(p, balls, rules.size)}
    return result


def buried(balls: Mapping[Pt, str]) -> set[Pt]:
    """R8: every buried ball."""
    return {p for p in balls if is_buried(p, balls)}


# ---------------------------------------------------------------------------------------
# R16: positions for repetition


def position_key(balls: Mapping[Pt, str], to_move: str, rules: RefRules) -> tuple[frozenset, str | None]:
    """R16: the full 3-D occupancy (``ko_position=top_view``: buried balls left out) plus the
    colour to move (``ko_rule=positional``: colour to move left out)."""
    if rules.ko_position == "top_view":
        occupancy = frozenset((p, c) for p, c in balls.items() if not is_buried(p, balls))
    else:
        occupancy = frozenset(balls.items())
    return occupancy, (None if rules.ko_rule == "positional" else to_move)


# ---------------------------------------------------------------------------------------
# R18-R19: scoring


def territory(balls: Mapping[Pt, str], rules: RefRules) -> dict[str, set[Pt]]:
    """R19: pyramid closure.

    Level 0: an empty point belongs to ``c`` when its empty region (orthogonal, level 0)
    touches no non-zombie ball of ``opponent(c)`` and at least one non-zombie ball of
    ``c``. Then level by level upward, up to ``max_level`` (only playable levels count): an
    empty point belongs to ``c`` when each of its four supports is a non-zombie ball of
    ``c`` or a level-below territory point of ``c``.
    (Buried balls are not zombies: they count as non-zombie balls here.)
    """
    zombie_set = zombies(balls, rules)
    solid = {p: c for p, c in balls.items() if p not in zombie_set}
    owned: dict[str, set[Pt]] = {WHITE: set(), BLACK: set()}
    seen: set[Pt] = set()
    for start in all_points(rules.size):
        if start[2] != 0 or start in balls or start in seen:
            continue
        region = {start}
        frontier = [start]
        touching: set[str] = set()
        while frontier:
            current = frontier.pop()
            for other in plane_neighbours(current, rules.size):
                if other in balls:
                    if other in solid:
                        touching.add(solid[other])
                elif other not in region:
                    region.add(other)
                    frontier.append(other)
        seen |= region
        if len(touching) == 1:
            owned[touching.pop()] |= region
    for level in range(1, rules.top_level + 1):
        for point in all_points(rules.size):
            if point[2] != level or point in balls:
                continue
            for colour in COLOURS:
                if all(solid.get(s) == colour or s in owned[colour] for s in supports_of(point)):
                    owned[colour].add(point)
    return owned


def score(balls: Mapping[Pt, str], rules: RefRules, scoring: str | None = None) -> tuple[float, float]:
    """(white, black). R18 ``balls``: every ball in play, zombies and buried included.
    R19 ``territory``: own non-zombie balls + enemy zombies + own territory. Komi to White."""
    scoring = scoring or rules.scoring
    points = {WHITE: 0.0, BLACK: 0.0}
    if scoring == "balls":
        for colour in balls.values():
            points[colour] += 1
    else:
        zombie_set = zombies(balls, rules)
        for p, colour in balls.items():
            points[opponent(colour) if p in zombie_set else colour] += 1
        for colour, area in territory(balls, rules).items():
            points[colour] += len(area)
    points[WHITE] += rules.komi
    return points[WHITE], points[BLACK]


# ---------------------------------------------------------------------------------------
# The game: history, repetition, swap, pass, end


@dataclass
class RefOutcome:
    """How the game ended: ``termination`` in {"no_legal_move", "two_passes",
    "first_capture"}, ``winner`` (None = draw) and the scores."""

    termination: str
    winner: str | None
    white_score: float
    black_score: float


class ReferenceBoard:
    """A MarGo game: board, side to move, move history, position history, captures.

    Snapshots make undo trivial: every :meth:`play` pushes a full copy of the state.
    Enforces every rule of rules.md, including repetition under ``ko_rule``/``ko_position``
    and game end. Any colour may be played (as GTP ``play`` allows); the side to move is then
    the opponent of the colour played (after a swap: unchanged).
    """

    def __init__(self, rules: RefRules | None = None, **options: object) -> None:
        self.rules = rules if rules is not None else RefRules.from_options(options) if options else RefRules()
        self.clear()

    # -- state ---------------------------------------------------------------------------

    def clear(self) -> None:
        """R4: empty board, first player to move, history cleared."""
        self.balls: Balls = {}
        self.to_move: str = self.rules.first_player
        self._reset_root()

    def _reset_root(self) -> None:
        self.history: list[tuple[str, RefMove]] = []
        self.captured: dict[str, int] = {WHITE: 0, BLACK: 0}
        self.positions = [position_key(self.balls, self.to_move, self.rules)]
        self.first_capture: tuple[str, dict[Pt, str]] | None = None
        self._undo: list[tuple] = []

    def setup(self, balls: Mapping[Pt, str] | Iterable[tuple[Pt, str]], to_move: str | None = None) -> None:
        """Place balls without resolving captures (lower levels first); the result is the
        new root for repetition. Raises ``ValueError`` (and changes nothing) on an occupied,
        duplicated, off-board or unsupported point."""
        items = list(balls.items()) if isinstance(balls, Mapping) else list(balls)
        after = dict(self.balls)
        for point, colour in sorted(items, key=lambda item: item[0][2]):
            if not exists(point, self.rules.size) or point in after or not is_supported(point, after):
                raise ValueError(f"cannot set up a ball at {point!r}")
            after[point] = colour
        self.balls = after
        if to_move is not None:
            self.to_move = to_move
        self._reset_root()

    def copy(self) -> "ReferenceBoard":
        clone = ReferenceBoard(self.rules)
        clone.balls = dict(self.balls)
        clone.to_move = self.to_move
        clone.history = list(self.history)
        clone.captured = dict(self.captured)
        clone.positions = list(self.positions)
        clone.first_capture = self.first_capture
        clone._undo = list(self._undo)
        return clone

    # -- derived views ---------------------------------------------------------------------

    def zombies(self) -> set[Pt]:
        return zombies(self.balls, self.rules)

    def buried(self) -> set[Pt]:
        return buried(self.balls)

    def groups(self) -> list[frozenset[Pt]]:
        return groups(self.balls, self.rules)

    def ball_counts(self) -> dict[str, int]:
        counts = {WHITE: 0, BLACK: 0}
        for colour in self.balls.values():
            counts[colour] += 1
        return counts

    # -- legality --------------------------------------------------------------------------

    def _placements_since_root(self) -> int:
        return sum(1 for _, move in self.history if move not in (PASS, SWAP))

    def _two_passes(self) -> bool:
        return len(self.history) >= 2 and self.history[-1][1] == PASS and self.history[-2][1] == PASS

    def _repeats(self, balls: Mapping[Pt, str], to_move: str) -> bool:
        """R16: would the position after a placement repeat an earlier one?"""
        rule = self.rules.ko_rule
        if rule == "none":
            return False
        key = position_key(balls, to_move, self.rules)
        if rule == "simple":
            return len(self.positions) >= 2 and self.positions[-2] == key
        return key in self.positions  # situational / positional (colour dropped in the key)

    def _swap_legal(self, colour: str) -> bool:
        """R7: only with swap on, on the second turn (exactly one placement since the root),
        by the side to move."""
        return (
            self.rules.swap
            and len(self.history) == 1
            and self.history[0][1] not in (PASS, SWAP)
            and colour == self.to_move
        )

    def is_over(self) -> bool:
        """R17/R20/R21: first capture made, two passes, or the side to move cannot move."""
        if self.first_capture is not None or (self.rules.allow_pass and self._two_passes()):
            return True
        return not self._any_legal(self.to_move)

    def _any_legal(self, colour: str) -> bool:
        if self.rules.allow_pass or self._swap_legal(colour):
            return True
        return any(self._placement_result(p, colour) is not None for p in self._candidates())

    def _candidates(self) -> list[Pt]:
        return [
            p
            for p in all_points(self.rules.size)
            if p not in self.balls and p[2] <= self.rules.top_level and is_supported(p, self.balls)
        ]

    def _placement_result(self, point: Pt, colour: str) -> Resolution | None:
        """The resolution of a legal placement (R13 + R16), None when illegal."""
        result = resolve_placement(self.balls, point, colour, self.rules)
        if not result.legal or self._repeats(result.balls, opponent(colour)):
            return None
        return result

    def _ended_by_event(self) -> bool:
        return self.first_capture is not None or (self.rules.allow_pass and self._two_passes())

    def is_legal(self, move: RefMove, colour: str | None = None) -> bool:
        colour = colour or self.to_move
        if self._ended_by_event():
            return False
        if move == PASS:
            return self.rules.allow_pass
        if move == SWAP:
            return self._swap_legal(colour)
        return self._placement_result(move, colour) is not None  # type: ignore[arg-type]

    def legal_placements(self, colour: str | None = None) -> list[Pt]:
        """Brute force: try every empty supported point; sorted by level, row, column."""
        colour = colour or self.to_move
        if self._ended_by_event():
            return []
        found = [p for p in self._candidates() if self._placement_result(p, colour) is not None]
        return sorted(found, key=lambda p: (p[2], p[1], p[0]))

    def legal_moves(self, colour: str | None = None) -> list[RefMove]:
        """Placements (level, row, column order), then ``swap`` if legal, then ``pass`` if
        allowed. Empty when the game is over."""
        colour = colour or self.to_move
        if self._ended_by_event():
            return []
        moves: list[RefMove] = list(self.legal_placements(colour))
        if self._swap_legal(colour):
            moves.append(SWAP)
        if self.rules.allow_pass:
            moves.append(PASS)
        return moves

    # -- playing -----------------------------------------------------------------------------

    def play(self, move: RefMove, colour: str | None = None) -> dict[Pt, str]:
        """Play ``move`` for ``colour`` (default: side to move). Returns the balls removed.
        Raises :class:`ReferenceIllegalMove` and leaves everything unchanged if illegal."""
        colour = colour or self.to_move
        if not self.is_legal(move, colour):
            raise ReferenceIllegalMove(f"illegal move {move!r} for {colour}")
        self._undo.append(
            (dict(self.balls), self.to_move, list(self.history), dict(self.captured), list(self.positions), self.first_capture)
        )
        if move == PASS:
            self.history.append((colour, PASS))
            self.to_move = opponent(colour)
            return {}
        if move == SWAP:
            self.history.append((colour, SWAP))
            return {}
        result = self._placement_result(move, colour)  # type: ignore[arg-type]
        assert result is not None
        self.balls = result.balls
        self.to_move = opponent(colour)
        self.history.append((colour, move))
        for removed_colour in result.removed.values():
            self.captured[opponent(removed_colour)] += 1
        self.positions.append(position_key(self.balls, self.to_move, self.rules))
        if self.rules.first_capture_wins and result.removed and self.first_capture is None:
            self.first_capture = (colour, dict(result.removed))
        return dict(result.removed)

    def undo(self) -> None:
        """Exact undo of the last :meth:`play`; IndexError at the root."""
        balls, to_move, history, captured, positions, first_capture = self._undo.pop()
        self.balls, self.to_move, self.history = balls, to_move, history
        self.captured, self.positions, self.first_capture = captured, positions, first_capture

    # -- end -----------------------------------------------------------------------------------

    def score(self) -> tuple[float, float]:
        """(white, black) under ``rules.scoring`` (R18/R19), komi added to White."""
        return score(self.balls, self.rules)

    def outcome(self) -> RefOutcome | None:
        """None while the game goes on. First capture: the mover wins if it removed enemy
        balls, else its opponent. Two passes: scored by territory (R20). No legal move:
        scored by ``rules.scoring`` (R18/R19); higher wins, equal is a draw."""
        if self.first_capture is not None:
            mover, removed = self.first_capture
            winner = mover if any(c != mover for c in removed.values()) else opponent(mover)
            white, black = self.score()
            return RefOutcome("first_capture", winner, white, black)
        if self.rules.allow_pass and self._two_passes():
            white, black = score(self.balls, self.rules, "territory")
            termination = "two_passes"
        elif not self._any_legal(self.to_move):
            white, black = self.score()
            termination = "no_legal_move"
        else:
            return None
        winner = WHITE if white > black else BLACK if black > white else None
        return RefOutcome(termination, winner, white, black)


# ---------------------------------------------------------------------------------------
# Small helpers for tests: GTP vertex text <-> tuples, diagrams, perft


def parse_balls(text: str, size: int) -> list[Pt]:
    """``"A2:1 B1:1"`` -> ``[(0, 1, 0), (1, 0, 0)]``; ``"—"`` or ``""`` -> ``[]``."""
    from margo_gtp.vertex import parse_vertex

    result = []
    for token in text.replace(",", " ").split():
        if token in ("—", "-"):
            continue
        point = parse_vertex(token, size)
        result.append((point.x, point.y, point.level))
    return result


def vertex(point: Pt) -> str:
    """``(1, 0, 1)`` -> ``"B1:2"``."""
    from margo_gtp.vertex import COLUMNS

    x, y, level = point
    return f"{COLUMNS[x]}{y + 1}:{level + 1}"


def diagram(balls: Mapping[Pt, str], size: int) -> str:
    """ASCII picture: one grid per non-empty level (top level first, board plane last);
    ``O`` White, ``X`` Black, ``.`` empty supported, blank = unsupported."""
    from margo_gtp.vertex import COLUMNS

    lines = []
    for level in reversed(range(size)):
        if level > 0 and not any(p[2] == level for p in balls):
            continue
        side = size - level
        lines.append(f"level {level + 1}:")
        for y in reversed(range(side)):
            row = []
            for x in range(side):
                p = (x, y, level)
                row.append({WHITE: "O", BLACK: "X"}.get(balls.get(p, ""), "." if is_supported(p, balls) else " "))
            lines.append(f"{y + 1:>3} " + " ".join(row))
        lines.append("    " + " ".join(COLUMNS[x] for x in range(side)))
    return "\n".join(lines)


def perft(board: ReferenceBoard, depth: int) -> int:
    """Number of legal move sequences of length ``depth`` (leaves at that depth)."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves():
        if depth == 1:
            total += 1
            continue
        board.play(move)
        total += perft(board, depth - 1)
        board.undo()
    return total
