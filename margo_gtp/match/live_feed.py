"""The live feed of a running match game: ``OUT/live/game-NNNN.jsonl`` (LIVE_FEED.md).

:class:`LiveFeed` is an observer of the game loop: a ``start`` line when the game begins,
then one line per move (an opening's included), each flushed, for margo-web to follow. The
lines are written from the game's :class:`~margo_gtp.game.record.GameRecord`. The referee
deletes the file once the game's record and SGF are written (:func:`margo_gtp.match.referee.run_match`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from margo_gtp.files import json_line
from margo_gtp.game.record import GameRecord, feed_move

LIVE_DIRECTORY = "live"


def live_path(directory: Path, game: int) -> Path:
    """Where the live feed of game number ``game`` is written while it runs (LIVE_FEED.md)."""
    return directory / LIVE_DIRECTORY / f"game-{game:04d}.jsonl"


class LiveFeed:
    """Writes one game's live feed. Without a directory (a game played on a Ray worker,
    which has no access to OUT) it writes nothing."""

    def __init__(self, handle: IO[str] | None) -> None:
        self.handle = handle
        self.ply = 0

    @classmethod
    def open(cls, directory: Path | None, record: GameRecord) -> "LiveFeed":
        if directory is None or record.game is None:
            return cls(None)
        path = live_path(directory, record.game)
        path.parent.mkdir(exist_ok=True)
        feed = cls(open(path, "w", encoding="utf-8"))
        feed._write(record.feed_start())
        return feed

    def move(self, entry: Mapping[str, Any]) -> None:
        self.ply += 1
        self._write(feed_move(self.ply, entry))

    def _write(self, item: Mapping[str, Any]) -> None:
        if self.handle is not None:
            self.handle.write(json_line(item))
            self.handle.flush()

    def __enter__(self) -> "LiveFeed":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None:
            self.handle.close()
