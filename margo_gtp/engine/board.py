"""The MarGo board: position, legal moves, push/pop, repetition, end of game and scoring.

Reading guide
-------------
* :class:`Board` is the public API; it holds a rules core that keeps the state and plays
  the rules: :class:`~margo_gtp.engine.python_core.PythonCore`, the readable reference
  (its module docstring walks through the state and the capture resolution), or the C
  twin :class:`~margo_gtp.engine.native.NativeCore` (:mod:`margo_gtp.engine.core` chooses).
* The values it takes and returns (:class:`Move`, :class:`Outcome`, ``Colour``, the
  errors) are in :mod:`margo_gtp.engine.types`.

What is enforced: every rule of ``rules.md`` R1-R21 with the options of section 9 (on the
:class:`~margo_gtp.engine.rules.Rules` the board holds). What is not: time, resignation
(the caller ends the game; :meth:`Board.outcome_by_resignation` builds the outcome), and
who plays which colour — :meth:`Board.push` plays any colour (as GTP ``play`` allows).

Interpretations where ``rules.md`` leaves room (also in docs/rules.md):
* A crossing ball cuts even when it is buried or a zombie: it is physically there (R10).
* ``simple`` ko compares the position after the move with the one two plies back;
  positions include the colour to move; passes and swaps add no position (R7, R16, R20).
* Swap is legal when ``swap`` is on and the history is exactly one placement.
* ``first_capture_wins``: the first move whose resolution removes any ball ends the game;
  the mover wins if enemy balls were removed, otherwise (only its own balls went) the
  opponent. The result is written ``W+n``/``B+n`` with ``n`` the balls that move captured.
* ``captured[c]`` counts the balls captured *by* ``c``: enemy balls removed by ``c``'s
  moves, and ``c``'s opponent's own balls lost in the opponent's cascade count for ``c``.
* Territory (R19): the level-0 region must touch at least one *non-zombie* ball of the
  side and no non-zombie ball of the other side; buried balls count as balls.
"""

from __future__ import annotations

import random as _random
from typing import ClassVar, Iterable, Mapping

from margo_gtp.engine.diagram import diagram
from margo_gtp.engine.geometry import Geometry
from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import (BLACK, WHITE, Colour, CoreState, IllegalMoveError, Move, Outcome, Termination,
                                    colour_index)
from margo_gtp.vertex import Point, format_vertex


class Board:
    """A MarGo position with its history since the root: the public API (python-chess
    style), over the rules core it holds.

    The core is chosen when the board is made: :attr:`core_class`, which is
    :class:`PythonCore` or, while the native core is selected (``MARGO_CORE``,
    :func:`margo_gtp.engine.core.set_core`), :class:`~margo_gtp.engine.native.NativeCore`.
    A board keeps its core for life (:meth:`copy` copies it). Both cores play the same
    MarGo, so callers never need to know which one runs (the native search reaches the C
    state through :func:`margo_gtp.engine.core.native_state`).

    >>> board = Board(Rules(size=4))
    >>> board.push(Move.from_gtp("B2", 4)); board.to_move
    <Colour.BLACK: 1>
    """

    #: The core class of new boards; :func:`margo_gtp.engine.core.set_core` sets it.
    core_class: ClassVar[type] = PythonCore

    def __init__(self, rules: Rules | None = None, *, size: int | None = None) -> None:
        if rules is None:
            rules = Rules() if size is None else Rules(size=size)
        elif size is not None and size != rules.size:
            rules = rules.replace(size=size)
        self._hold(self.core_class(rules))

    def _hold(self, core) -> None:
        self.rules: Rules = core.rules
        self._core = core
        # The hot paths are the core's own bound methods, not methods of this class that
        # would call them: MCTS and the playout policies call these per move or per
        # simulation, and one more Python call each is measurable (push + pop on the
        # native core, docs/native-core.md). The methods of the same names below are
        # what they do, documented; an instance attribute takes precedence over them.
        self.push = core.push
        self.pop = core.pop
        self.legal_moves = core.legal_moves

    def __reduce__(self):
        """Pickle and ``copy.deepcopy`` through the core (the bound methods are rebuilt)."""
        return (_board_holding, (self._core,))

    def __copy__(self) -> "Board":
        return self.copy()  # copy.copy(board) must not share the core

    # ------------------------------------------------------------------ state

    @property
    def size(self) -> int:
        return self.rules.size

    @property
    def to_move(self) -> Colour:
        return (WHITE, BLACK)[self._core._to_move]  # the same members as Colour(c), without the enum call

    @property
    def captured(self) -> dict[Colour, int]:
        """Balls captured *by* each colour since the root."""
        captured = self._core._captured
        return {WHITE: captured[0], BLACK: captured[1]}

    @property
    def swapped(self) -> bool:
        """True once a swap was played (the players exchanged colours)."""
        return self._core._swapped

    @property
    def history(self) -> list[tuple[Colour, Move]]:
        """Moves since the root, oldest first, with the colour that played each."""
        return self._core.history

    @property
    def ply(self) -> int:
        """Moves since the root (``len(board.history)``, without building the list)."""
        return self._core.ply

    @property
    def move_stack(self) -> list[Move]:
        return self._core.move_stack

    @property
    def zobrist_key(self) -> int:
        """64-bit key of the full position: every ball (buried included) and the colour to move."""
        core = self._core
        return core._key ^ core._g.zobrist_to_move[core._to_move]

    @property
    def root_to_move(self) -> Colour:
        return Colour(self._core._root[2])

    def root_balls(self) -> dict[Point, Colour]:
        """The position at the root (after :meth:`clear`, :meth:`setup` or :meth:`set_to_move`)."""
        root = self._core._root
        return self._balls_of(root[0], root[1])

    def get(self, point: Point) -> Colour | None:
        """The colour of the ball at ``point``; None for an empty or off-board point."""
        return self._core.get(point)

    def balls(self) -> dict[Point, Colour]:
        """Every ball on the board (buried ones included), in protocol order."""
        white, black = self._core._balls
        return self._balls_of(white, black)

    def _balls_of(self, white: int, black: int) -> dict[Point, Colour]:
        points = self._core._g.points
        out = {}
        m = white | black
        while m:
            low = m & -m
            out[points[low.bit_length() - 1]] = WHITE if white & low else BLACK
            m ^= low
        return out

    def buried(self) -> list[Point]:
        """Buried balls (R8), in protocol order."""
        return self._core._g.points_of(self._core._buried)

    def ball_counts(self) -> dict[Colour, int]:
        """Balls in play per colour, zombies and buried balls included."""
        return self._core.ball_counts()

    def copy(self) -> "Board":
        """An independent copy with the same history (so undo and repetition carry over),
        on the same core."""
        other = object.__new__(Board)
        other._hold(self._core.copy())
        return other

    def __eq__(self, other: object) -> bool:
        """Same rules, balls, side to move, captures and history (whatever the cores)."""
        if not isinstance(other, Board):
            return NotImplemented
        mine, theirs = self._core, other._core
        return (self.rules == other.rules and mine._balls == theirs._balls
                and mine._to_move == theirs._to_move and mine._captured == theirs._captured
                and self.history == other.history and mine._root == theirs._root)

    def __repr__(self) -> str:
        return f"<Board size={self.size} to_move={self.to_move.name} balls={len(self.balls())} moves={self.ply}>"

    def __str__(self) -> str:
        """The diagram ``showboard`` prints (:func:`margo_gtp.engine.diagram.diagram`)."""
        return diagram(self)

    # ------------------------------------------------------------------ setup

    def clear(self) -> None:
        """Empty board, the first player to move, history cleared."""
        self._core.clear()

    def setup(self, balls: Mapping[Point, Colour] | Iterable[tuple[Point, Colour]], to_move: Colour | None = None) -> None:
        """Add balls to the current position without resolving captures (for scripting).

        Balls may come in any order: lower levels are placed first. All or nothing: an
        occupied, duplicated, off-board or unsupported point (once the others are placed)
        raises :class:`IllegalMoveError` and nothing is placed. ``max_level`` is not
        enforced here. The result becomes the new root: history and captures are reset.
        """
        items = list(balls.items()) if isinstance(balls, Mapping) else list(balls)
        core = self._core
        g = core._g
        white, black = core._balls
        seen: set[Point] = set()
        for point, colour in sorted(items, key=lambda pc: (pc[0].level, pc[0].y, pc[0].x)):
            i = g.index.get(point)
            if i is None:
                raise IllegalMoveError(f"illegal setup: {point!r} is off the board")
            if point in seen or (white | black) & g.bit[i]:
                raise IllegalMoveError(f"illegal setup: {format_vertex(point)} is occupied")
            if g.support[i] & (white | black) != g.support[i]:
                raise IllegalMoveError(f"illegal setup: {format_vertex(point)} is not supported")
            seen.add(point)
            if colour_index(colour) == 0:
                white |= g.bit[i]
            else:
                black |= g.bit[i]
        to_move = core._to_move if to_move is None else colour_index(to_move)
        core._load(white, black)
        core._set_root(to_move)

    def set_to_move(self, colour: Colour) -> None:
        """Set the colour to move; the current position becomes the new root."""
        self._core._set_root(colour_index(colour))

    # ------------------------------------------------------------------ moves

    def push(self, move: Move, colour: Colour | None = None) -> None:
        """Play ``move`` for ``colour`` (default: the side to move); then the opponent of
        ``colour`` is to move (after a swap the side to move is unchanged).

        Raises :class:`IllegalMoveError` (the board unchanged) if the move is illegal.
        """
        self._core.push(move, colour)

    def pop(self) -> Move:
        """Undo the last move exactly. Raises IndexError at the root."""
        return self._core.pop()

    def peek(self) -> Move | None:
        """The last move, or None at the root."""
        return self._core.peek()

    def is_legal(self, move: Move, colour: Colour | None = None) -> bool:
        """True if ``colour`` (default: the side to move) may play ``move`` now."""
        return self._core.is_legal(move, colour)

    def legal_moves(self, colour: Colour | None = None) -> list[Move]:
        """Every legal move of ``colour`` (default: side to move), placements sorted by level,
        row, column, then ``Move.SWAP`` when legal, then ``Move.PASS`` when passing is
        allowed. Empty when the game is over or ``colour`` cannot move."""
        return self._core.legal_moves(colour)

    def has_legal_placement(self, colour: Colour | None = None) -> bool:
        """True if ``colour`` (default: side to move) can place a ball somewhere."""
        return self._core.has_legal_placement(colour)

    def moves_since(self, ply: int) -> list[tuple[int, Move]]:
        """``(colour as int, move)`` for the moves after the first ``ply`` of the history
        (cheap for the tail of a long game, unlike :attr:`history`)."""
        return self._core.moves_since(ply)

    def played_points_since(self, ply: int) -> tuple[set[int], set[int]]:
        """The flat point indices (``geometry.index``) of the placements after the first
        ``ply`` moves, as fresh (white, black) sets: the AMAF statistics of MCTS, with no
        Move per entry (the native core builds them without Python objects per move)."""
        return self._core.played_points_since(ply)

    # ------------------------------------------------------------------ groups (bit sets of :attr:`geometry`)

    @property
    def geometry(self) -> Geometry:
        """The shared tables of this board size; bit ``i`` of a mask is ``geometry.points[i]``."""
        return self._core._g

    def ball_mask(self, colour: Colour) -> int:
        """Bit set of ``colour``'s balls (buried ones included)."""
        return self._core.ball_mask(colour)

    def buried_mask(self) -> int:
        return self._core.buried_mask()

    def core_state(self) -> CoreState:
        """The ints the rules core keeps for this position (a :class:`CoreState`), the same
        on both cores: what the twin-core tests compare, without reaching into the core."""
        core = self._core
        white, black = core._balls
        return CoreState(white, black, core._buried, core._supported_empty, core._unsettled, core._key,
                         core._buried_key)

    def groups(self) -> list[tuple[Colour, list[Point], bool]]:
        """Every group (R11) as ``(colour, points, has_freedom)``, for analysis and display."""
        points_of = self._core._g.points_of
        return [(Colour(colour), points_of(group), bool(freedoms))
                for colour, group, freedoms in self._core._each_group((0, 1))]

    def group_freedoms(self, colour: Colour) -> list[tuple[int, int]]:
        """``(group, freedoms)`` bit sets for every group of ``colour`` (R11, R12): buried
        balls belong to none; freedoms follow ``all_freedoms``."""
        return self._core.group_freedoms(colour)

    def group_at(self, index: int) -> tuple[int, int] | None:
        """``(group, freedoms)`` bit sets of the group holding the ball at point ``index``
        (R11; freedoms follow ``all_freedoms`` as in :meth:`group_freedoms`), or None when
        the point is empty or its ball is buried (it belongs to no group). One group is
        walked, not every group of the colour. Raises IndexError for an index off the board."""
        return self._core.group_at(index)

    def zombie_mask(self) -> int:
        """Bit set of the zombies (R15), as :meth:`ball_mask` gives balls."""
        return self._core._zombie_mask()

    def zombies(self) -> list[Point]:
        """Zombies (R15): balls of freedomless groups with something resting on them."""
        return self._core._g.points_of(self._core._zombie_mask())

    # ------------------------------------------------------------------ end and score

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """The outcome if the game is over (R17, R20, R21), else None. Resignation is the
        caller's business: see :meth:`outcome_by_resignation`."""
        core = self._core
        end = core._end
        if end is not None:
            termination, winner, margin = end
            if termination is Termination.TWO_PASSES:
                white, black = core.score("territory")
                return Outcome(termination, _winner(white, black), white, black)
            white, black = core.score()
            return Outcome(termination, None if winner is None else Colour(winner), white, black, margin)
        if self.rules.allow_pass or core.has_legal_placement():
            return None
        if core._swap_legal(core._to_move):
            return None
        white, black = core.score()
        return Outcome(Termination.NO_LEGAL_MOVE, _winner(white, black), white, black)

    def outcome_by_resignation(self, loser: Colour) -> Outcome:
        white, black = self._core.score()
        return Outcome(Termination.RESIGNATION, (BLACK, WHITE)[colour_index(loser)], white, black)

    def outcome_by_time(self, loser: Colour) -> Outcome:
        """``loser``'s game clock ran out (margo-web's clocks): the other colour wins, ``W+T``."""
        white, black = self._core.score()
        return Outcome(Termination.TIME, (BLACK, WHITE)[colour_index(loser)], white, black)

    def score(self, scoring: str | None = None) -> tuple[float, float]:
        """``(white, black)`` under ``scoring`` (default: the rules' scoring), komi added to White.

        ``balls`` (R18): every ball in play. ``territory`` (R19): non-zombie balls, the other
        side's zombies and the pyramid-closure territory.
        """
        return self._core.score(scoring)

    def territory_masks(self, zombies: int | None = None) -> tuple[int, int]:
        """Territory bit sets ``(white, black)`` by the pyramid closure of R19, up to the
        highest playable level (``max_level``): no ball can stand above it."""
        return self._core.territory_masks(zombies)

    # ------------------------------------------------------------------ random play

    def random_playout(self, rng: _random.Random | None = None, max_moves: int = 2000) -> int:
        """Play uniformly random legal moves (passes and swaps included when legal) until the
        game is over or ``max_moves`` were played; return the number of moves played. The
        same generator plays the same game on both cores."""
        return self._core.random_playout(rng, max_moves)

    def seeded_playout(self, seed: int, max_moves: int = 2000) -> int:
        """:meth:`random_playout` drawing from a splitmix64 generator seeded with ``seed``
        (see :func:`~margo_gtp.engine.playout.splitmix64`): a fixed, documented generator
        that the native core implements too, so MCTS plays the same simulations on both cores."""
        return self._core.seeded_playout(seed, max_moves)


def _board_holding(core) -> Board:
    """A :class:`Board` around an existing core (copies, unpickling, another core's twin)."""
    board = object.__new__(Board)
    board._hold(core)
    return board


def _winner(white: float, black: float) -> Colour | None:
    if white > black:
        return WHITE
    if black > white:
        return BLACK
    return None


__all__ = ["Board"]
