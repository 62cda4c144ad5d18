"""The native rules core: :class:`NativeCore`, held by a
:class:`~margo_gtp.engine.board.Board` as it would hold the pure-Python
:class:`~margo_gtp.engine.python_core.PythonCore`.

PEP 399 style: :mod:`margo_gtp.engine.python_core` is the readable reference; ``_native.c``
mirrors its state layout and algorithms in C, and :class:`NativeCore` offers the
interface of ``PythonCore`` over a ``_native.State``. Every method that writes the state
or runs on a hot path (push/pop, legal moves, random playouts, groups, zombies,
territory, scores) calls the C object (the search's C code, which works on the same
object, is in :mod:`margo_gtp.players.native_search`); the state attributes ``Board``
reads (``_balls``, ``_buried``, ``_to_move``, ...) are read-only properties with the
reference's names. ``Board(...)`` holds a ``NativeCore`` while the native core is selected
(:mod:`margo_gtp.engine.core`), so callers never know which core runs.

Importing this module raises ImportError when the extension was not built.
"""

from __future__ import annotations

import functools
import random as _random
from typing import Iterator

from margo_gtp.engine import _native
from margo_gtp.engine.geometry import geometry
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import BLACK, WHITE, Colour, IllegalMoveError, Move, Termination, colour_index
from margo_gtp.vertex import Point

_KO_RULE_CODES = {"situational": 0, "positional": 1, "simple": 2, "none": 3}
_TERMINATIONS = {1: Termination.TWO_PASSES, 2: Termination.FIRST_CAPTURE}
_OFF_BOARD = -3  # a move code the C core answers with "off the board"
_MASK_WHITE, _MASK_BLACK, _MASK_BURIED, _MASK_SUPPORTED_EMPTY, _MASK_UNSETTLED = range(5)


@functools.cache
def _shared_moves(size: int) -> tuple[Move, ...]:
    """One :class:`Move` per point, in point index order: what the C core hands out."""
    return tuple(Move(point) for point in geometry(size).points)


@functools.cache
def _shared_move_codes(size: int) -> dict[int, int]:
    """The C move code of each shared Move (and of ``Move.PASS``/``Move.SWAP``) by ``id()``:
    the moves MCTS and the players push come from ``legal_moves``, so most pushes skip
    hashing the Point. The cache keeps these objects alive, so no other object has their id."""
    codes = {id(move): i for i, move in enumerate(_shared_moves(size))}
    codes[id(Move.PASS)] = -1
    codes[id(Move.SWAP)] = -2
    return codes


@functools.cache
def native_geometry(size: int) -> _native.Geometry:
    """The C tables of ``size``, with the Python geometry's Zobrist keys (so ``zobrist_key``
    is the same on both cores) and one shared :class:`Move` per point."""
    g = geometry(size)
    return _native.Geometry(size, g.zobrist[0], g.zobrist[1], g.zobrist_to_move, _shared_moves(size), Move.PASS,
                            Move.SWAP, (Colour.WHITE, Colour.BLACK))


def uses_mersenne_twister(rng: object) -> bool:
    """True if ``rng`` draws ``random()`` from :class:`random.Random`'s own generator, whose
    state the C core can advance exactly as Python would."""
    kind = type(rng)
    return (isinstance(rng, _random.Random) and kind.random is _random.Random.random
            and kind.getstate is _random.Random.getstate and kind.setstate is _random.Random.setstate)


class NativeCore:
    """The rules core of a :class:`~margo_gtp.engine.board.Board` with its state and
    algorithms in C (see the module docstring): the interface of
    :class:`~margo_gtp.engine.python_core.PythonCore` (the search's bulk calls on its state are
    in :mod:`margo_gtp.players.native_search`)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._g = geometry(rules.size)
        self.clear()

    # ------------------------------------------------------------------ state in C

    def clear(self) -> None:
        rules = self.rules
        self._move_codes = _shared_move_codes(rules.size)
        self._state = _native.State(
            native_geometry(rules.size), rules.all_freedoms, rules.bridge_cutting, rules.top_level,
            rules.own_freedomless_group == "illegal", _KO_RULE_CODES[rules.ko_rule],
            rules.ko_position == "top_view", rules.allow_pass, rules.swap, rules.first_capture_wins,
            int(rules.first_player))

    def _set_root(self, to_move: Colour) -> None:
        self._state.set_root(int(to_move))

    def _load(self, white: int, black: int) -> None:
        self._state.load(white, black)

    # Read-only views under the reference's attribute names, for Board (and the tests).
    @property
    def _balls(self) -> list[int]:
        return [self._state.mask(_MASK_WHITE), self._state.mask(_MASK_BLACK)]

    @property
    def _buried(self) -> int:
        return self._state.mask(_MASK_BURIED)

    @property
    def _supported_empty(self) -> int:
        return self._state.mask(_MASK_SUPPORTED_EMPTY)

    @property
    def _unsettled(self) -> int:
        return self._state.mask(_MASK_UNSETTLED)

    @property
    def _key(self) -> int:
        return self._state.key

    @property
    def _buried_key(self) -> int:
        return self._state.info()[10]

    @property
    def _to_move(self) -> int:
        return self._state.to_move

    @property
    def _captured(self) -> list[int]:
        info = self._state.info()
        return [info[1], info[2]]

    @property
    def _passes(self) -> int:
        return self._state.info()[3]

    @property
    def _swapped(self) -> bool:
        return bool(self._state.info()[4])

    @property
    def _end(self) -> tuple[Termination, int | None, int] | None:
        info = self._state.info()
        if not info[5]:
            return None
        winner = info[6]
        return (_TERMINATIONS[info[5]], None if winner < 0 else winner, info[7])

    @property
    def _root(self) -> tuple[int, int, int]:
        return (self._state.root_mask(0), self._state.root_mask(1), self._state.info()[11])

    @property
    def _stack(self) -> list[tuple[int, Move]]:
        return self._state.history(0)

    # ------------------------------------------------------------------ API

    @property
    def ply(self) -> int:
        return self._state.ply

    def copy(self) -> "NativeCore":
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._state = self._state.copy()
        return other

    def __reduce__(self):
        """Pickle and ``copy.deepcopy`` as the root position, the side to move there and the
        moves since (the C state itself is not picklable)."""
        return (_rebuild, (self.rules, self._root, self._state.history(0)))

    def get(self, point: Point) -> Colour | None:
        i = self._g.index.get(point)
        if i is None:
            return None
        colour = self._state.get(i)
        return None if colour is None else Colour(colour)

    def ball_mask(self, colour: Colour) -> int:
        return self._state.mask(colour_index(colour))

    def buried_mask(self) -> int:
        return self._state.mask(_MASK_BURIED)

    def ball_counts(self) -> dict[Colour, int]:
        white, black = self._state.counts()
        return {Colour.WHITE: white, Colour.BLACK: black}

    @property
    def history(self) -> list[tuple[Colour, Move]]:
        return self._state.history(0, True)

    @property
    def move_stack(self) -> list[Move]:
        return [move for _, move in self._state.history(0)]

    def moves_since(self, ply: int) -> list[tuple[int, Move]]:
        return self._state.history(ply)

    def played_points_since(self, ply: int) -> tuple[set[int], set[int]]:
        return self._state.played_points(ply)

    def peek(self) -> Move | None:
        return self._state.peek()

    def _code(self, move: Move) -> int:
        code = self._move_codes.get(id(move))
        if code is not None:
            return code
        if move.kind == "pass":
            return -1
        if move.kind == "swap":
            return -2
        i = self._g.index.get(move.point)
        return _OFF_BOARD if i is None else i

    def _reason(self, why: int, move: Move, colour: int | None) -> str:
        """The reference's IllegalMoveError text for the C core's reason code (rules_core.h's
        ``RULES_ILLEGAL_*``, which ``_native`` exports by name)."""
        if why == _native.RULES_ILLEGAL_GAME_OVER:
            return f"illegal move: {move.gtp()}: the game is over ({self._end[0].value})"
        if why == _native.RULES_ILLEGAL_PASS:
            return "illegal move: pass: passing is not allowed (allow_pass is off)"
        if why == _native.RULES_ILLEGAL_SWAP:
            return "illegal move: swap: only the second player, on the second turn, with swap on"
        if why == _native.RULES_ILLEGAL_OFF_BOARD:
            return f"illegal move: {move!r} is off a {self.rules.size}x{self.rules.size} board"
        reason = {_native.RULES_ILLEGAL_OCCUPIED: "point is occupied",
                  _native.RULES_ILLEGAL_UNSUPPORTED: "point is not supported",
                  _native.RULES_ILLEGAL_ABOVE_TOP: f"level is above max_level {self.rules.top_level + 1}",
                  _native.RULES_ILLEGAL_SUICIDE: "suicide or repetition"}[why]
        c = self._state.to_move if colour is None else colour
        return f"illegal move: {move.gtp()} for {Colour(c).name}: {reason}"

    def push(self, move: Move, colour: Colour | None = None) -> None:
        # The colours by identity first: no call for them on the hot path (MCTS names one per push).
        c = None if colour is None else 0 if colour is WHITE else 1 if colour is BLACK else colour_index(colour)
        code = self._move_codes.get(id(move))  # _code's first step, inline: the hot path
        why = self._state.play(self._code(move) if code is None else code, c)
        if why:
            raise IllegalMoveError(self._reason(why, move, c))

    def is_legal(self, move: Move, colour: Colour | None = None) -> bool:
        return not self._state.check(self._code(move), None if colour is None else colour_index(colour))

    def pop(self) -> Move:
        return self._state.pop()

    def _swap_legal(self, c: int) -> bool:
        return self._state.swap_legal(c)

    def legal_moves(self, colour: Colour | None = None) -> list[Move]:
        return self._state.legal_moves(None if colour is None else colour_index(colour))

    def has_legal_placement(self, colour: Colour | None = None) -> bool:
        return self._state.has_legal_placement(None if colour is None else colour_index(colour))

    # ------------------------------------------------------------------ groups and score

    def _each_group(self, colours) -> Iterator[tuple[int, int, int]]:
        for colour in colours:
            yield from self._state.groups(colour)

    def group_freedoms(self, colour: Colour) -> list[tuple[int, int]]:
        return [(group, freedoms) for _, group, freedoms in self._state.groups(colour_index(colour))]

    def group_at(self, index: int) -> tuple[int, int] | None:
        return self._state.group_at(index)

    def _zombie_mask(self) -> int:
        return self._state.zombie_mask()

    def territory_masks(self, zombies: int | None = None) -> tuple[int, int]:
        return self._state.territory_masks(zombies)

    def score(self, scoring: str | None = None) -> tuple[float, float]:
        scoring = scoring or self.rules.scoring
        komi = self.rules.komi
        if scoring == "balls":
            white, black = self._state.counts()
        else:
            white, black = self._state.territory_score()
        return white + komi, float(black)

    # ------------------------------------------------------------------ random play

    def random_playout(self, rng: _random.Random | None = None, max_moves: int = 2000) -> int:
        """As :meth:`Board.random_playout`, the same game from the same generator. A
        :class:`random.Random` (or a subclass that keeps its generator) is advanced in C exactly
        as Python would advance it (its state goes in and comes back); any other generator's
        ``random()`` is called from C, once per draw as the Python loop does."""
        rng = rng or _random.Random()
        if uses_mersenne_twister(rng):
            version, internal, gauss = rng.getstate()
            played, internal = self._state.random_playout(internal, max_moves)
            rng.setstate((version, internal, gauss))
            return played
        return self._state.callback_playout(rng.random, max_moves)

    def seeded_playout(self, seed: int, max_moves: int = 2000) -> int:
        """As :meth:`Board.seeded_playout` (the same splitmix64 draws, the same game)."""
        return self._state.seeded_playout(seed & 0xFFFFFFFFFFFFFFFF, max_moves)


def _rebuild(rules, root: tuple[int, int, int], history: list[tuple[int, Move]]) -> NativeCore:
    core = NativeCore(rules)
    core._load(root[0], root[1])
    core._set_root(Colour(root[2]))
    for colour, move in history:
        core.push(move, Colour(colour))
    return core

