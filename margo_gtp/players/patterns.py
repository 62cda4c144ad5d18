"""Learned move patterns: the features of a candidate move, and the weights that rate them.

This module is the readable reference of the features and the fallback when the C search
is not built; ``search_patterns.c`` computes the same feature values in C (PEP 399 style;
tests/test_patterns.py compares them on random positions). docs/patterns.md says how the
weights are trained (``scripts/train-patterns``) and used (``mcts:patterns=on``).

A move's features are one value per feature *group* (:data:`GROUPS`), all seen from the
colour to move ("own" and "enemy", never White and Black), and every value is unchanged by
the board's 8 symmetries (the pyramid's levels turn and mirror with the board plane):

=============  ======  ==============================================================
group          values  what it says of a move at ``(x, y, l)``
=============  ======  ==============================================================
``shape``      5**8    the 3x3 neighbourhood on level ``l``: each of the 8 points is
                       empty and supported, empty and unsupported, own, enemy or off
                       the level; the smallest code over the 8 symmetries
``support``    82      0 on the board plane; else 1 + the smallest code over the 8
                       symmetries of the 2x2 balls it rests on (empty, own, enemy)
``buries``     4       the ball it buries (R8): 0 none, 1 own, 2 enemy, 3 empty
``opens``      5       points of level ``l + 1`` that it makes supported (0-4)
``level``      4       ``min(l, 3)``
``edge``       4       distance to the edge of its level, ``min(d, 3)``
``captures``   5       balls it captures: 0, 1, 2, 3-5, 6 or more
``own_atari``  7       own balls in atari after the move that were not before (the
                       placed ball included: a self-atari), ``min(n, 6)``
``escape``     7       own balls in atari before that are on the board and in no group
                       in atari after, ``min(n, 6)``
``atari``      7       enemy balls in atari after that were not before, ``min(n, 6)``
``cut``        2       1 when it crosses an enemy contact whose other crossing is own
                       (R10: it makes the cut)
``connect``    2       1 when it crosses an own contact whose other crossing is enemy
                       (it stops the cut)
``links``      4       own groups before - own groups after + 1 (the groups it joins,
                       e.g. by climbing onto a pyramid point), clipped to 0..3
``splits``     4       enemy groups after - enemy groups before, clipped to 0..3
``freedoms``   13      the change of own freedoms minus the change of enemy freedoms
                       (summed over groups, as the heuristic counts them), clipped to
                       -6..6, plus 6
``last``       11      distance to the last move (0: none, or a pass or swap)
``last2``      11      distance to the move before it (0: none, or a pass or swap)
=============  ======  ==============================================================

Distances are measured in the plane: a point ``(x, y, l)`` sits at ``(2x + l, 2y + l)``
half-units (a ball rests on the middle of four), and ``d = dx + dy + max(dx, dy) + 2 |dl|``
(Coulom's distance, with the level) is bucketed as ``min(d // 2, 10)``.

The prediction model is Coulom's generalized Bradley-Terry model: a move's strength is the
product of the gammas of its features, and its chance to be the move played is its strength
over the sum of the strengths of all legal moves. :class:`PatternWeights` holds the gammas
(read from a versioned JSON file, :func:`load_weights`), and :func:`pattern_rates` turns
them into prior win rates for the search.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from margo_gtp import textfile
from margo_gtp.engine import Board, Colour, Move

__all__ = [
    "FEATURE_SET",
    "FORMAT",
    "GROUPS",
    "PatternWeights",
    "PatternWeightsError",
    "SHIPPED_WEIGHTS",
    "features",
    "features_of",
    "load_weights",
    "log_strengths",
    "move_features",
    "pattern_rates",
    "rates_of",
]

#: The version of the feature set: a weights file trained on another one is refused.
FEATURE_SET = 1
#: The ``format`` word of a weights file.
FORMAT = "margo-patterns"
#: (name, number of values) of each feature group, in the order of a feature tuple.
GROUPS: tuple[tuple[str, int], ...] = (
    ("shape", 5**8), ("support", 82), ("buries", 4), ("opens", 5), ("level", 4), ("edge", 4),
    ("captures", 5), ("own_atari", 7), ("escape", 7), ("atari", 7), ("cut", 2), ("connect", 2),
    ("links", 4), ("splits", 4), ("freedoms", 13), ("last", 11), ("last2", 11),
)
#: The weights file the package ships (docs/patterns.md says how it was trained).
SHIPPED_WEIGHTS = Path(__file__).resolve().parent / "data" / "patterns-v1.json"
#: The largest weights file read (a full 3x3 table is about 50,000 entries: ~2 MB).
MAX_WEIGHTS_BYTES = 16 * 1024 * 1024

# The 8 neighbours of the 3x3 shape, in code order (digit k of the base-5 code).
NEIGHBOURS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
# The 2x2 balls a point rests on, as offsets of (x, y) one level down (digit k of base 3).
SUPPORTS = ((0, 0), (1, 0), (0, 1), (1, 1))
# The 8 symmetries of the square, as maps of an offset from its centre.
SYMMETRIES = (
    lambda a, b: (a, b), lambda a, b: (-a, b), lambda a, b: (a, -b), lambda a, b: (-a, -b),
    lambda a, b: (b, a), lambda a, b: (-b, a), lambda a, b: (b, -a), lambda a, b: (-b, -a),
)
EMPTY, UNSUPPORTED, OWN, ENEMY, OFF = range(5)  # the states of a shape point
CAPTURE_BUCKETS = (0, 1, 2, 3, 3, 3)  # balls captured -> value (6 or more: 4)
MAX_DISTANCE = 10
MAX_BALLS = 6      # own_atari, escape, atari: balls counted up to this
MAX_FREEDOMS = 6   # freedoms: the change clipped to -6..6


def _permutations(offsets: tuple[tuple[int, int], ...], centre2: tuple[int, int]) -> tuple[tuple[int, ...], ...]:
    """For each symmetry, where digit k goes: the index of the offset that the symmetry maps
    offset k to (offsets doubled and taken from ``centre2``, so a 2x2 block turns about its middle)."""
    doubled = [(2 * dx - centre2[0], 2 * dy - centre2[1]) for dx, dy in offsets]
    return tuple(tuple(doubled.index(symmetry(a, b)) for a, b in doubled) for symmetry in SYMMETRIES)


SHAPE_PERMUTATIONS = _permutations(NEIGHBOURS, (0, 0))
SUPPORT_PERMUTATIONS = _permutations(SUPPORTS, (1, 1))


def canonical(digits: Sequence[int], base: int, permutations: tuple[tuple[int, ...], ...]) -> int:
    """The smallest code over the symmetries of the pattern ``digits`` (digit k has weight
    ``base ** k``; a symmetry moves digit k to position ``permutation[k]``)."""
    return min(sum(digit * base ** permutation[k] for k, digit in enumerate(digits)) for permutation in permutations)


class _Tables:
    """Per-point tables of one board size: the 3x3 neighbours, the supports, the plane
    position and the distance to the edge of each point."""

    def __init__(self, board: Board) -> None:
        geometry = board.geometry
        size = board.size
        index = {(p.x, p.y, p.level): i for i, p in enumerate(geometry.points)}
        self.neighbours = tuple(tuple(index.get((p.x + dx, p.y + dy, p.level), -1) for dx, dy in NEIGHBOURS)
                                for p in geometry.points)
        self.supports = tuple(tuple(index.get((p.x + dx, p.y + dy, p.level - 1), -1) for dx, dy in SUPPORTS)
                              for p in geometry.points)
        self.plane = tuple((2 * p.x + p.level, 2 * p.y + p.level, p.level) for p in geometry.points)
        self.edge = tuple(min(p.x, p.y, size - 1 - p.level - p.x, size - 1 - p.level - p.y, 3)
                          for p in geometry.points)


@functools.cache
def _tables_for(size: int) -> _Tables:
    return _Tables(Board(size=size))


def distance_bucket(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    """The ``last``/``last2`` value of two plane positions (see the module docstring)."""
    dx, dy, dl = abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])
    return min((dx + dy + max(dx, dy) + 2 * dl) // 2, MAX_DISTANCE)


def _summary(board: Board, colour: Colour) -> tuple[int, int, int]:
    """``colour``'s groups: their number, their freedoms summed over groups, and the balls
    of the groups that have exactly one freedom."""
    groups = freedoms = atari = 0
    for group, liberties in board.group_freedoms(colour):
        count = liberties.bit_count()
        groups += 1
        freedoms += count
        if count == 1:
            atari |= group
    return groups, freedoms, atari


def _last_points(board: Board) -> tuple[int, int]:
    """The point indices of the last two moves (-1: none, or a pass or swap)."""
    index = board.geometry.index
    history = board.history
    found = []
    for back in (1, 2):
        move = history[-back][1] if len(history) >= back else None
        found.append(index[move.point] if move is not None and move.point is not None else -1)
    return found[0], found[1]


def features(board: Board, moves: Sequence[Move], colour: Colour | None = None) -> list[tuple[int, ...]]:
    """The feature tuple (one value per group of :data:`GROUPS`) of each legal placement
    in ``moves`` for ``colour`` (default: the colour to move); ``board`` is unchanged.
    ValueError for a pass or swap (they have no features)."""
    colour = board.to_move if colour is None else colour
    c = int(colour)
    own_colour, enemy_colour = Colour(c), Colour(c ^ 1)
    tables = _tables_for(board.size)
    geometry = board.geometry
    work = board.copy()
    own, enemy = board.ball_mask(own_colour), board.ball_mask(enemy_colour)
    occupied = own | enemy
    own_before, enemy_before = _summary(board, own_colour), _summary(board, enemy_colour)
    last, last2 = _last_points(board)
    out = []
    for move in moves:
        if move.point is None:
            raise ValueError(f"a {move.kind} has no pattern features")
        i = geometry.index[move.point]
        out.append(_point_features(work, geometry, tables, i, c, own, enemy, occupied, own_before, enemy_before,
                                   last, last2))
    return out


def features_of(board: Board, moves: Sequence[Move], colour: Colour) -> list[tuple[int, ...]]:
    """:func:`features`, computed by the C search (``search_patterns.c``) when the board is
    on the native core and the search is built: the same values, faster."""
    from margo_gtp.players import native_search

    index = board.geometry.index
    raw = native_search.pattern_features(board, colour, [index[move.point] for move in moves])
    if raw is None:
        return features(board, moves, colour)
    values = memoryview(raw).cast("i")
    width = len(GROUPS)
    return [tuple(values[k * width:(k + 1) * width]) for k in range(len(moves))]


def move_features(board: Board, move: Move, colour: Colour | None = None) -> tuple[int, ...]:
    """:func:`features` of one move."""
    return features(board, [move], colour)[0]


def _state(i: int, own: int, enemy: int, occupied: int, support: Sequence[int]) -> int:
    """The shape state of point ``i`` (-1: off the level)."""
    if i < 0:
        return OFF
    bit = 1 << i
    if own & bit:
        return OWN
    if enemy & bit:
        return ENEMY
    below = support[i]
    return EMPTY if below & occupied == below else UNSUPPORTED


def _point_features(work: Board, geometry, tables: _Tables, i: int, c: int, own: int, enemy: int, occupied: int,
                    own_before: tuple[int, int, int], enemy_before: tuple[int, int, int], last: int,
                    last2: int) -> tuple[int, ...]:
    level = geometry.level[i]
    shape = canonical([_state(j, own, enemy, occupied, geometry.support) for j in tables.neighbours[i]], 5,
                      SHAPE_PERMUTATIONS)
    support = 0
    if level:
        digits = [1 if own >> j & 1 else 2 if enemy >> j & 1 else 0 for j in tables.supports[i]]
        support = 1 + canonical(digits, 3, SUPPORT_PERMUTATIONS)
    buried = geometry.buries[i]
    buries = 0 if buried < 0 else 1 if own >> buried & 1 else 2 if enemy >> buried & 1 else 3
    after = occupied | 1 << i
    opens = 0
    resting = geometry.resting[i]
    while resting:
        low = resting & -resting
        above = low.bit_length() - 1
        below = geometry.support[above]
        if below & after == below and below & occupied != below:
            opens += 1
        resting ^= low
    cut = connect = 0
    for pair, other in geometry.under[i]:
        if pair & enemy == pair and other & own:
            cut = 1
        elif pair & own == pair and other & enemy:
            connect = 1
    # The tactics: play the move and look.
    own_colour, enemy_colour = Colour(c), Colour(c ^ 1)
    captured = work.captured[own_colour]
    work.push(Move(geometry.points[i]), own_colour)
    try:
        taken = work.captured[own_colour] - captured
        own_balls = work.ball_mask(own_colour)
        own_after, enemy_after = _summary(work, own_colour), _summary(work, enemy_colour)
    finally:
        work.pop()
    captures = CAPTURE_BUCKETS[taken] if taken < len(CAPTURE_BUCKETS) else 4
    own_atari = min((own_after[2] & ~own_before[2]).bit_count(), MAX_BALLS)
    escape = min((own_before[2] & own_balls & ~own_after[2]).bit_count(), MAX_BALLS)
    atari = min((enemy_after[2] & ~enemy_before[2]).bit_count(), MAX_BALLS)
    links = min(max(own_before[0] - own_after[0] + 1, 0), 3)
    splits = min(max(enemy_after[0] - enemy_before[0], 0), 3)
    change = (own_after[1] - own_before[1]) - (enemy_after[1] - enemy_before[1])
    here = tables.plane[i]
    return (shape, support, buries, opens, min(level, 3), tables.edge[i], captures, own_atari, escape, atari,
            cut, connect, links, splits, min(max(change, -MAX_FREEDOMS), MAX_FREEDOMS) + MAX_FREEDOMS,
            distance_bucket(here, tables.plane[last]) if last >= 0 else 0,
            distance_bucket(here, tables.plane[last2]) if last2 >= 0 else 0)


# ---------------------------------------------------------------------------------------
# The weights


class PatternWeightsError(ValueError):
    """A weights file that cannot be used; the message is one line naming the file."""


@dataclass(frozen=True)
class PatternWeights:
    """The natural logs of the feature gammas, per group (a feature not listed has gamma 1),
    and the file's header (``board_sizes``: the sizes it was trained on)."""

    log_gammas: tuple[dict[int, float], ...]
    header: dict
    path: str = ""

    @functools.cached_property
    def dense_table(self) -> bytes:
        """The log gammas as one table of native doubles, the groups one after the other
        (0.0 for a value not listed): what the C search reads (``pattern_log_strengths``)."""
        import array

        table = array.array("d", bytes(8 * sum(count for _, count in GROUPS)))
        offset = 0
        for (_, count), logs in zip(GROUPS, self.log_gammas):
            for value, log_gamma in logs.items():
                table[offset + value] = log_gamma
            offset += count
        return table.tobytes()

    def log_strength(self, feature_tuple: Sequence[int]) -> float:
        """The log of a move's strength: the sum of its features' log gammas."""
        return sum(table.get(value, 0.0) for table, value in zip(self.log_gammas, feature_tuple))

    @property
    def board_sizes(self) -> tuple[int, ...]:
        return tuple(self.header.get("board_sizes", ()))


def weights_document(gammas: Sequence[dict[int, float]], header: dict) -> dict:
    """The JSON document of a weights file: ``header`` (format, version, feature set and
    what the trainer says) and the gammas of each group, features in increasing order."""
    document = {"format": FORMAT, "version": 1, "feature_set": FEATURE_SET, **header}
    document["gammas"] = {name: {str(value): gammas[k][value] for value in sorted(gammas[k])}
                          for k, (name, _) in enumerate(GROUPS)}
    return document


def load_weights(path: str | Path = SHIPPED_WEIGHTS) -> PatternWeights:
    """Read a weights file; PatternWeightsError (one line, naming the file) when it is
    missing, unreadable, not JSON (a truncated file), another program's JSON, another
    feature set, or holds a bad gamma."""
    where = str(path)
    try:
        text = textfile.read_text(path, MAX_WEIGHTS_BYTES)
    except textfile.TextFileError as error:
        raise PatternWeightsError(f"pattern weights {where}: {error.reason}") from None
    try:
        document = json.loads(text)
    except ValueError:
        raise PatternWeightsError(f"pattern weights {where}: not a JSON document (truncated?)") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise PatternWeightsError(f"pattern weights {where}: not a {FORMAT} file")
    if document.get("version") != 1:
        raise PatternWeightsError(f"pattern weights {where}: format version {document.get('version')!r}, "
                                  "this program reads 1")
    if document.get("feature_set") != FEATURE_SET:
        raise PatternWeightsError(f"pattern weights {where}: feature set {document.get('feature_set')!r}, "
                                  f"this program computes {FEATURE_SET}")
    sizes = document.get("board_sizes")
    if not isinstance(sizes, list) or not sizes or not all(isinstance(s, int) and 2 <= s <= 19 for s in sizes):
        raise PatternWeightsError(f"pattern weights {where}: board_sizes must be a list of sizes 2..19")
    gammas = document.get("gammas")
    if not isinstance(gammas, dict) or set(gammas) != {name for name, _ in GROUPS}:
        raise PatternWeightsError(f"pattern weights {where}: gammas must hold the groups "
                                  f"{', '.join(name for name, _ in GROUPS)}")
    tables = []
    for name, count in GROUPS:
        table: dict[int, float] = {}
        entries = gammas[name]
        if not isinstance(entries, dict):
            raise PatternWeightsError(f"pattern weights {where}: gammas.{name} must be an object")
        for key, gamma in entries.items():
            if not key.isascii() or not key.isdigit() or int(key) >= count:
                raise PatternWeightsError(f"pattern weights {where}: gammas.{name}: no feature {key!r}")
            if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0 < gamma < math.inf:
                raise PatternWeightsError(f"pattern weights {where}: gammas.{name}.{key} must be a number > 0")
            table[int(key)] = math.log(gamma)
        tables.append(table)
    header = {key: value for key, value in document.items() if key != "gammas"}
    return PatternWeights(tuple(tables), header, where)


def check_size(weights: PatternWeights, size: int) -> None:
    """PatternWeightsError when ``weights`` were not trained on boards of ``size``."""
    if size not in weights.board_sizes:
        trained = ", ".join(f"{s}x{s}" for s in weights.board_sizes)
        raise PatternWeightsError(f"pattern weights {weights.path}: trained on {trained}, not on {size}x{size}")


def pattern_rates(weights: PatternWeights, feature_tuples: Sequence[Sequence[int]], low: float,
                  high: float) -> list[float]:
    """Prior win rates from the model's strengths, as the heuristic prior makes them from its
    scores: ``high`` for the strongest move, ``low + (high - low) * strength / strongest``
    for the others."""
    return rates_of([weights.log_strength(values) for values in feature_tuples], low, high)


def rates_of(logs: Sequence[float], low: float, high: float) -> list[float]:
    """:func:`pattern_rates` from the moves' log strengths."""
    top = max(logs)
    return [low + (high - low) * math.exp(value - top) for value in logs]


def log_strengths(weights: PatternWeights, board: Board, moves: Sequence[Move], colour: Colour) -> list[float]:
    """The log strength of each placement in ``moves``: computed by the C search from
    :attr:`PatternWeights.dense_table` when it can run, else from :func:`features`; the same floats."""
    from margo_gtp.players import native_search

    index = board.geometry.index
    found = native_search.pattern_log_strengths(board, colour, [index[move.point] for move in moves],
                                                weights.dense_table)
    if found is None:
        return [weights.log_strength(values) for values in features(board, moves, colour)]
    return found


def digest(data: bytes) -> str:
    """The ``sha256:`` digest written in a weights file's header."""
    return "sha256:" + hashlib.sha256(data).hexdigest()
