"""What the page draws: a :class:`~margo_gtp.engine.Board` turned into plain JSON.

The browser never decides a rule (style.md item 24). Everything it shows that depends on the
rules comes from here: which balls are zombies or buried, which empty points are supported
(the points a click can aim at) and, for the side to move, which of them are legal. The page
only knows the drawing geometry (a level-``l`` point ``(x, y)`` is drawn at ``(x + l/2, y + l/2)``).

A *frame* is one position::

    {"size": 3, "to_move": "B", "ply": 1, "last": "B2:1",
     "balls": [{"v": "B2:1", "c": "W", "x": 1, "y": 1, "l": 0, "zombie": false, "buried": false}],
     "targets": [{"v": "A1:1", "x": 0, "y": 0, "l": 0, "legal": true}, ...],
     "captured": {"W": 0, "B": 0}, "score": {"W": 1, "B": 0}}

``targets`` lists every empty supported point (within ``max_level`` or not: a point above
``max_level`` is a target that is never legal), an illegal one with ``why`` (the rules
core's reason, with ``"suicide or repetition"`` told apart by :func:`which_illegal`:
``"suicide"``, ``"repetition (ko_rule situational)"``, ``"level is above max_level 2"`` ...); it is
left empty for replay frames, where nobody clicks.
"""

from __future__ import annotations

from typing import Any

from margo_gtp.engine import Board, Colour, IllegalMoveError, Move

#: The rules core's one reason for two causes; :func:`which_illegal` says which.
SUICIDE_OR_REPETITION = "suicide or repetition"


def move_text(move: Move) -> str:
    """The move as GTP writes it: ``'D4:2'``, ``'pass'`` or ``'swap'``."""
    return move.gtp()


def frame(board: Board, *, with_targets: bool = True) -> dict[str, Any]:
    """One position as the page draws it (see the module docstring)."""
    g = board.geometry
    white = board.ball_mask(Colour.WHITE)
    black = board.ball_mask(Colour.BLACK)
    occupied = white | black
    buried = board.buried_mask()
    zombies = set(board.zombies())
    balls = []
    for i, point in enumerate(g.points):
        bit = 1 << i
        if not occupied & bit:
            continue
        balls.append({
            "v": point.gtp(), "c": "W" if white & bit else "B", "x": point.x, "y": point.y, "l": point.level,
            "zombie": point in zombies, "buried": bool(buried & bit),
        })
    targets = []
    if with_targets:
        legal = {move.point for move in board.legal_moves() if move.point is not None}
        without_ko: list[Board | None] = []   # the game without a ko rule, played once if needed
        for i, point in enumerate(g.points):
            if occupied & (1 << i) or g.support[i] & occupied != g.support[i]:
                continue
            target = {"v": point.gtp(), "x": point.x, "y": point.y, "l": point.level, "legal": point in legal}
            if not target["legal"]:
                target["why"] = why_illegal(board, Move(point), without_ko)
            targets.append(target)
    history = board.move_stack
    counts = board.ball_counts()
    captured = board.captured
    return {
        "size": board.size,
        "to_move": board.to_move.letter,
        "ply": len(history),
        "last": move_text(history[-1]) if history else None,
        "balls": balls,
        "targets": targets,
        "captured": {"W": captured[Colour.WHITE], "B": captured[Colour.BLACK]},
        "score": {"W": counts[Colour.WHITE], "B": counts[Colour.BLACK]},
    }


def why_illegal(board: Board, move: Move, without_ko: list[Board | None] | None = None) -> str:
    """The rules core's reason a move is illegal for the side to move, e.g. ``'point is not
    supported'`` (the part of its IllegalMoveError after the move and colour), with
    "suicide or repetition" told apart (:func:`which_illegal`). ``without_ko``: a one-item
    list where the board without a ko rule is kept between calls on one position."""
    try:
        board.push(move)
    except IllegalMoveError as error:
        reason = str(error).rsplit(": ", 1)[-1]
        if reason != SUICIDE_OR_REPETITION:
            return reason
        return which_illegal(board, move, board.to_move, without_ko)
    board.pop()  # legal after all (not reached for a target the board calls illegal)
    return "legal"


def board_without_ko(board: Board) -> Board | None:
    """The same game played again without a ko rule (None when it is not the same
    position: set-up balls, or a move the replay refuses)."""
    free = Board(board.rules.replace(ko_rule="none"))
    try:
        for played_colour, played in board.history:
            free.push(played, played_colour)
    except (IllegalMoveError, ValueError):
        return None
    if any(free.ball_mask(c) != board.ball_mask(c) for c in (Colour.WHITE, Colour.BLACK)):
        return None
    return free


def which_illegal(board: Board, move: Move, colour: Colour, without_ko: list[Board | None] | None = None) -> str:
    """``"suicide"`` or ``"repetition (ko_rule R)"`` for a move the rules core refuses as
    "suicide or repetition": the same game without a ko rule says whether the position
    itself forbids the move (suicide) or only the repetition does (:func:`board_without_ko`;
    when it cannot be played again the core's words stay). ``without_ko`` caches that
    board for the other targets of one position (a frame replays the game once, not once
    per target)."""
    if board.rules.ko_rule == "none":
        return "suicide"
    if without_ko is None:
        without_ko = []
    if not without_ko:
        without_ko.append(board_without_ko(board))
    free = without_ko[0]
    if free is None:
        return SUICIDE_OR_REPETITION
    return f"repetition (ko_rule {board.rules.ko_rule})" if free.is_legal(move, colour) else "suicide"


def replay_frames(board: Board, since: int = 0) -> list[dict[str, Any]]:
    """Frames for the plies ``since`` .. end of ``board``'s history (ply 0 is the root), for
    the replay slider; a page that has the first ``since`` frames asks only for the rest.

    Replays a copy from the root, so ``board`` itself is not changed.
    """
    replay = board.copy()
    moves = replay.history
    for _ in moves:
        replay.pop()
    frames = [frame(replay, with_targets=False)] if since <= 0 else []
    for ply, (colour, move) in enumerate(moves, 1):
        replay.push(move, colour)
        if ply >= since:
            frames.append(frame(replay, with_targets=False))
    return frames
