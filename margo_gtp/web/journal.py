"""The journal of an unfinished margo-web game: one append-only JSON-lines file per game.

A game in progress must survive the server (Ctrl-C, a crash, ``kill -9``): every move is
appended to ``<games dir>/unfinished/<game id>.jsonl`` and flushed to disk (``fsync``)
before the page hears of it, so nothing acknowledged is lost. The lines::

    {"type": "start", "game": "g17...", "rules": {...}, "seats": {"W": "human", "B": "random"}, "seconds": 1.0}
    {"type": "move", "colour": "W", "move": "C3:1", "seconds": null}
    {"type": "move", "colour": "B", "move": "swap", "seconds": 0.21}

A game with a time control has ``"clock": {"main": 300, "increment": 5}`` in its start line
and every move's seconds (a human's too), from which the clocks are read back
(:mod:`margo_gtp.web.clocks`). A game started with a rule preset has ``"preset": "designer"``
(:mod:`margo_gtp.web.presets`); its SGF keeps it as the private root property
``MP[designer]`` (:data:`PRESET_PROPERTY`).

``seats`` are the players of each colour *before* any swap (a ``swap`` line exchanges them
again when the game is read back). Changes that are not moves (an undo, a new player for a
colour) rewrite the whole file atomically (:func:`margo_gtp.files.write_atomically`), so
the file always holds one consistent game. When the game ends its SGF is written and the
journal removed; an undo after the end starts it again.

The append runs on the event loop, inside the move's handling, on purpose: the state that
tells the pages of the move is built after it, so no page can see a move the disk has not
(an ``fsync`` costs a few milliseconds; a move is refused if it fails).

Reading back is strict about content and lenient about one thing only: a last line cut
short (the process died while writing it, before the move was acknowledged) is ignored, as
:mod:`margo_gtp.files` rules for every JSON-lines file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from margo_gtp import files

#: The SGF root property a web game's rule preset is kept in ("MarGo preset"; private, as MR).
PRESET_PROPERTY = "MP"
#: Largest journal read back (a 19x19 game of 6,000 moves is about 400 KB).
MAX_JOURNAL_BYTES = 8 * 1024 * 1024


class JournalError(ValueError):
    """A journal that cannot be read back (message names the file and the line)."""


def start_line(game_id: str, rules: dict[str, Any], seats: dict[str, str], seconds: float,
               clock: dict[str, float] | None = None, preset: str | None = None) -> dict[str, Any]:
    """The first line; ``clock`` (a time control's ``{"main", "increment"}``) and ``preset``
    only when there is one."""
    line = {"type": "start", "game": game_id, "rules": rules, "seats": seats, "seconds": seconds}
    if clock is not None:
        line["clock"] = clock
    return line if preset is None else {**line, "preset": preset}


def move_line(colour: str, move: str, seconds: float | None) -> dict[str, Any]:
    return {"type": "move", "colour": colour, "move": move, "seconds": seconds}


def append(path: Path, line: dict[str, Any]) -> None:
    """Append one line and make it durable before returning (OSError if it cannot be)."""
    files.append_durably(path, files.json_line(line))


def rewrite(path: Path, lines: list[dict[str, Any]]) -> None:
    """Replace the journal with ``lines`` at once (a reader sees the old or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_atomically(path, "".join(files.json_line(line) for line in lines))


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The start line and the move lines of a journal; JournalError if it is not one."""
    with open(path, "rb") as stream:
        data = stream.read(MAX_JOURNAL_BYTES + 1)
    if len(data) > MAX_JOURNAL_BYTES:
        raise JournalError(f"{path.name}: larger than {MAX_JOURNAL_BYTES} bytes")
    items = []
    for number, raw in files.complete_lines(data):  # a torn last line was never acknowledged
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            raise JournalError(f"{path.name}: line {number} is not JSON") from None
        if not isinstance(item, dict):
            raise JournalError(f"{path.name}: line {number} is not an object")
        items.append(item)
    if not items or items[0].get("type") != "start":
        raise JournalError(f"{path.name}: no start line")
    start, moves = items[0], items[1:]
    for number, item in enumerate(moves, 2):
        if item.get("type") != "move" or not isinstance(item.get("move"), str) or item.get("colour") not in ("W", "B"):
            raise JournalError(f"{path.name}: line {number} is not a move")
    return start, moves
