"""The one game loop: ask the mover, judge its answer with our own Board, inform the other.

:func:`play_game` is OpenSpiel's ``evaluate_bots`` for MarGo: it repeats until the rules
core (:class:`margo_gtp.engine.Board`) says the game is over, or a side resigns, forfeits
or is adjudicated. The players are :class:`~margo_gtp.game.bots.Bot` objects, so an
in-process player and a GTP engine are played the same way. Everything that ends a game
other than the rules lives here too, for the referee, self-play and the web board alike:

- :func:`judge`: the move a bot's answer names, if legal now (else a forfeit);
- :func:`forfeit`: the end of a game lost by a fault (``W+F``, or ``W+T`` for time);
- :func:`end_of`: the end the rules core says (or a resignation it recorded);
- :func:`relay`: book or setup moves told to both bots (a bot that refuses one forfeits);
- adjudication with the rules' own ``scoring`` (komi added to White): after ``max_moves``
  moves, or when one side has led by a margin for a number of moves (cutechess ``-resign``).

The loop writes nothing: an ``on_move`` observer is told every accepted move (the live
feed, self-play's evaluations), and the caller turns the :class:`GameEnd` into a record
(:mod:`margo_gtp.game.record`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from margo_gtp.engine import Board, Colour, Move, Outcome
from margo_gtp.vertex import InvalidVertexError

from margo_gtp.game.faults import (
    ADJUDICATED,
    FORFEIT,
    ILLEGAL_MOVE,
    MALFORMED_MOVE,
    MAX_MOVES,
    RESIGNATION,
    TIME_CONTROL,
    TIMEOUT,
    EngineFault,
)

if TYPE_CHECKING:
    from margo_gtp.game.bots import Bot

__all__ = ["GameEnd", "MarginRule", "MoveObserver", "adjudicate", "end_of", "forfeit", "judge", "play_game", "relay"]

#: Told each accepted move entry: ``{"colour", "move", "engine", "seconds"}``.
MoveObserver = Callable[[dict[str, Any]], None]


class MarginRule(Protocol):
    """A lead of ``margin`` points held for ``moves`` moves wins (the referee's Adjudication)."""

    margin: float
    moves: int


@dataclass
class GameEnd:
    """How one game ended. ``winner`` is a colour (None: draw); ``forfeit`` names the
    colour that forfeited, with the fault. ``moves`` are the bots' accepted moves (not an
    opening's), each ``{"colour": "W", "move": "C3:1", "engine": label, "seconds": 0.5}``."""

    winner: Colour | None
    result: str
    reason: str
    moves: list[dict[str, Any]]
    forfeit: tuple[Colour, EngineFault] | None = None


def play_game(
    board: Board,
    bots: Mapping[Colour, Bot],
    max_moves: int | None = None,
    adjudication: MarginRule | None = None,
    on_move: MoveObserver | None = None,
) -> GameEnd:
    """Play one game on ``board`` (rules and position set) between ``bots`` (by colour).

    ``max_moves`` counts the bots' moves (not an opening's); ``on_move(entry)`` is told
    each accepted move."""
    bots = dict(bots)
    moves: list[dict[str, Any]] = []
    leader_streak: tuple[Colour | None, int] = (None, 0)
    while (outcome := board.outcome()) is None:
        if max_moves is not None and len(moves) >= max_moves:
            return adjudicate(board, moves, MAX_MOVES)
        if adjudication is not None and moves:
            leader_streak = _lead_after_move(board, adjudication, leader_streak)
            if leader_streak[1] >= adjudication.moves:
                return adjudicate(board, moves, ADJUDICATED)
        colour = board.to_move
        mover, other = bots[colour], bots[colour.opponent]
        try:
            answer, seconds = mover.genmove(colour)
            move = judge(board, answer, colour)
        except EngineFault as fault:
            return forfeit(colour, fault, moves)
        if move is None:
            return GameEnd(colour.opponent, f"{colour.opponent.letter}+R", RESIGNATION, moves)
        moves.append({"colour": colour.letter, "move": move.gtp(), "engine": mover.label, "seconds": round(seconds, 6)})
        board.push(move, colour)
        if on_move is not None:
            on_move(moves[-1])
        if move.is_swap:  # the players exchange colours; the same colour is still to move
            bots = {c: bots[c.opponent] for c in bots}
        try:
            other.play(colour, move)
        except EngineFault as fault:
            return forfeit(next(c for c, bot in bots.items() if bot is other), fault, moves)
    return end_of(outcome, moves)


def end_of(outcome: Outcome, moves: list[dict[str, Any]]) -> GameEnd:
    """The end of a game the rules core ended (or a resignation it recorded)."""
    return GameEnd(outcome.winner, outcome.result(), outcome.termination.value, moves)


def relay(
    board: Board | None,
    bots: Mapping[Colour, Bot],
    moves: Iterable[tuple[Colour, Move]],
    on_move: MoveObserver | None = None,
) -> GameEnd | None:
    """Play ``moves`` (an opening book's, or a game to continue) on ``board`` and tell
    every bot of each, in ``bots``' order; a bot that refuses one forfeits (the end is
    returned). The moves must be legal (a book is checked when it is read). ``board``
    None: the moves are on the judge's board already (the referee's book position, set
    before the engines are, so a game forfeited during set-up is recorded from it)."""
    for colour, move in moves:
        if board is not None:
            board.push(move, colour)
        for holder, bot in bots.items():
            try:
                bot.play(colour, move)
            except EngineFault as fault:
                return forfeit(holder, fault, [])
        if on_move is not None:
            on_move({"colour": colour.letter, "move": move.gtp(), "engine": None, "seconds": 0.0})
    return None


def judge(board: Board, answer: str, colour: Colour) -> Move | None:
    """The move a bot's ``genmove`` answer names (None for ``resign``), if legal now.

    Raises :class:`EngineFault` with :data:`MALFORMED_MOVE` or :data:`ILLEGAL_MOVE`.
    """
    token = answer.strip()
    if token.lower() == "resign":
        return None
    if not token or len(token.split()) != 1:
        raise EngineFault(MALFORMED_MOVE, f"genmove {colour.letter} answered {answer!r}")
    try:
        move = Move.from_gtp(token, board.size)
    except (InvalidVertexError, ValueError):
        raise EngineFault(MALFORMED_MOVE, f"genmove {colour.letter} answered {answer!r}") from None
    if not board.is_legal(move, colour):
        raise EngineFault(ILLEGAL_MOVE, f"genmove {colour.letter} answered {move.gtp()!r}, illegal in this position")
    return move


def forfeit(loser: Colour, fault: EngineFault, moves: list[dict[str, Any]]) -> GameEnd:
    """The end of a game ``loser`` lost by ``fault``: ``W+T`` for time, ``W+F`` otherwise."""
    suffix = "T" if fault.reason in (TIMEOUT, TIME_CONTROL) else "F"
    winner = loser.opponent
    return GameEnd(winner, f"{winner.letter}+{suffix}", FORFEIT, moves, (loser, fault))


def adjudicate(board: Board, moves: list[dict[str, Any]], reason: str) -> GameEnd:
    """The game's result by the rules' own ``scoring`` option (komi added to White)."""
    white, black = board.score()
    if white == black:
        return GameEnd(None, "0", reason, moves)
    winner = Colour.WHITE if white > black else Colour.BLACK
    margin = abs(white - black)
    text = str(int(margin)) if float(margin).is_integer() else f"{margin:g}"
    return GameEnd(winner, f"{winner.letter}+{text}", reason, moves)


def _lead_after_move(board: Board, adjudication: MarginRule, streak: tuple[Colour | None, int]) -> tuple[Colour | None, int]:
    """The colour whose lead under the rules' scoring is at least the margin now, and for
    how many consecutive moves it has been (a changed or lost lead starts over)."""
    white, black = board.score()
    margin = adjudication.margin
    leader = Colour.WHITE if white - black >= margin else Colour.BLACK if black - white >= margin else None
    if leader is None:
        return (None, 0)
    return (leader, streak[1] + 1 if streak[0] == leader else 1)
