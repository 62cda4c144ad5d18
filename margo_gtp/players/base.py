"""The player contract: the one interface every move generator implements.

As OpenSpiel's bots (``bots/uniform_random.py``), a player is three methods and a name:

    select_move(board, colour, budget) -> Move | RESIGN
        Choose a move for ``colour`` in ``board`` (which need not have ``colour`` to
        move: GTP lets a controller ask for either side). Return a legal move, or
        ``Move.PASS`` when ``colour`` has no legal move, or :data:`RESIGN`. Must not
        change ``board`` (work on ``board.copy()``); should respect ``budget``.
    notify(board, move, colour)
        Called after ``move`` by ``colour`` was applied to ``board`` (by this player or
        anyone else), so stateful players (MCTS tree reuse) can follow the game.
    reset(board)
        Called whenever the position changed other than by one move: new game, board
        size or rules, setup, undo, loaded SGF. ``board`` is the new position.
    name
        A short identifier, e.g. ``"random"``.

What the session enforces: it checks that the returned move is legal before playing it
(an illegal choice is a bug in the player and answers ``? internal error``). What it
does not: time; a player that ignores ``budget`` simply takes as long as it takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

if TYPE_CHECKING:  # the rules core is only needed for annotations here
    from margo_gtp.engine import Board, Colour, Move

__all__ = ["Budget", "Player", "RESIGN", "Resign"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much thinking one move may use. ``None`` means no limit of that kind; a player
    with neither limit should use its own default."""

    seconds: float | None = None
    playouts: int | None = None

    def limits(self, playouts: int | None, seconds: float | None, default_seconds: float,
               now: float) -> tuple[int | None, float | None]:
        """A searching player's limits for this move: ``(playouts, deadline)``. The budget's
        playouts replace the player's own; its seconds cap the player's; with neither, the
        player thinks ``default_seconds``. The deadline is ``now`` plus the seconds."""
        if self.playouts is not None:
            playouts = self.playouts
        if self.seconds is not None:
            seconds = self.seconds if seconds is None else min(seconds, self.seconds)
        if seconds is None and playouts is None:
            seconds = default_seconds
        return playouts, None if seconds is None else now + seconds


class Resign:
    """The type of :data:`RESIGN`: a player's way of giving up (not a board move)."""

    _instance: "Resign | None" = None

    def __new__(cls) -> "Resign":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "RESIGN"

    def gtp(self) -> str:
        return "resign"


#: Returned by :meth:`Player.select_move` to resign.
RESIGN: Final = Resign()


class PlayerRefusal(ValueError):
    """A player that cannot play this game (its size or rules): ``str()`` is the one line
    the GTP session answers (``? LINE``)."""


@runtime_checkable
class Player(Protocol):
    """See the module docstring for the contract."""

    name: str

    def select_move(self, board: "Board", colour: "Colour", budget: Budget) -> "Move | Resign": ...

    def notify(self, board: "Board", move: "Move", colour: "Colour") -> None: ...

    def reset(self, board: "Board") -> None: ...
