"""Variations in Replay and Review: a side line tried from a position of a replayed record,
and a new game played from any position, main line or side line (as Sabaki and KaTrain do).

The page keeps the side line (the moves clicked since the main-line ply it left from); the
server keeps nothing of it. Every request names the whole side line again, and the server
plays it on a copy of the replay's board, each move checked by the rules core for the
colour to move (the page never decides a rule, style.md item 24)::

    POST /api/replay/<id>/variation   {"ply": 5, "moves": ["C3:1", "D2:1"]}
      -> {"replay": "<id>", "ply": 5, "moves": [{"colour": "B", "move": "C3:1"}, ...],
          "frame": {...the position, with its targets...}, "result": null}

    POST /api/replay/<id>/play        {"ply": 5, "moves": [...], "white": "human",
                                       "black": "mcts", "seconds": 1}
      -> {"game": "<game id>"}         (a new game, saved like any other; the page attaches)

A refused request answers ``{"error": one line}`` and changes nothing: an illegal move in
the rules core's words (``illegal move: D5:1 for WHITE: suicide``, as Play says it), a ply
outside the record, a move list that is not one. ``result`` is the result when the side
line ends the game (no legal move left), else null.

The new game holds the whole line that led to the position (the record's moves up to the
ply, then the side line): its journal, its SGF and the engines see the same history, so a
repetition is judged as it would be in the record, and Undo can go back past the start,
as in Sabaki. A record that starts from set-up balls cannot be played on here (a game of
margo-web starts from the empty board), and says so.
"""

from __future__ import annotations

from typing import Any

from margo_gtp.engine import Board, Colour, IllegalMoveError, InvalidVertexError, Move
from margo_gtp.web.game import GameError
from margo_gtp.web.view import SUICIDE_OR_REPETITION, frame, which_illegal

#: Most moves one side line may hold (each request plays them all again).
MAX_VARIATION_MOVES = 400
#: Largest request body (a JSON object with at most MAX_VARIATION_MOVES short move words).
MAX_REQUEST_BYTES = 16_384


def position_of(replay: Any, ply: Any, moves: Any) -> Board:
    """A copy of ``replay``'s board (a :class:`~margo_gtp.web.replay.Replay`) at main-line
    ``ply``, with the side line ``moves`` (GTP words) played on it in turn; GameError, one
    line, for a bad ply, a bad list or a move the rules refuse."""
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= replay.plies:
        raise GameError(f"invalid ply: {ply!r} (a move number 0..{replay.plies})")
    if not isinstance(moves, list) or len(moves) > MAX_VARIATION_MOVES:
        raise GameError(f"invalid moves: expected a list of at most {MAX_VARIATION_MOVES} moves")
    with replay.lock:
        board = replay.board.copy()
    for _ in range(replay.plies - ply):
        board.pop()
    for word in moves:
        if board.outcome() is not None:
            raise GameError("illegal move: the game is over")
        if not isinstance(word, str) or len(word) > 16:
            raise GameError(f"illegal move: {word!r} is not a vertex")
        try:
            move = Move.from_gtp(word, board.size)
        except InvalidVertexError:
            raise GameError(f"illegal move: {word!r} is not a vertex") from None
        colour = board.to_move
        try:
            board.push(move, colour)
        except IllegalMoveError as error:
            text = str(error)
            if text.endswith(": " + SUICIDE_OR_REPETITION):   # said apart, as Play says it (web.game)
                text = text.removesuffix(SUICIDE_OR_REPETITION) + which_illegal(board, move, colour)
            raise GameError(text) from None
    return board


def variation_view(replay: Any, ply: Any, moves: Any) -> dict[str, Any]:
    """The answer to ``POST /api/replay/<id>/variation`` (see the module docstring)."""
    board = position_of(replay, ply, moves)
    outcome = board.outcome()
    return {
        "replay": replay.replay_id,
        "ply": ply,
        "moves": [{"colour": colour.letter, "move": move.gtp()} for colour, move in board.history[ply:]],
        "frame": frame(board),
        "result": outcome.result() if outcome is not None else None,
    }


def playable_line(replay: Any, ply: Any, moves: Any) -> tuple[Any, list[tuple[Colour, Move]]]:
    """The rules and the whole line of moves of a new game from this position (for
    ``POST /api/replay/<id>/play``); GameError when no game can go on from it."""
    board = position_of(replay, ply, moves)
    if board.root_balls() or board.root_to_move != Board(board.rules).root_to_move:
        raise GameError("cannot play from here: the record starts from set-up balls, and a game here starts "
                        "from the empty board")
    outcome = board.outcome()
    if outcome is not None:
        raise GameError(f"cannot play from here: the game is over at this position ({outcome.result()})")
    return board.rules, board.history
