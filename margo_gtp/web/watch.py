"""Reading a margo-match / margo-tournament output folder for ``margo-web --watch DIR``.

The referee is the single writer; this module only reads, and tolerates files that are
being written (a torn last line is skipped, a vanished file is looked up again). What it reads:

* ``results.jsonl``: one finished game per line (``game``, ``white``, ``black``,
  ``winner_colour``, ``result``, ``reason``, ``sgf``), the SGF beside it;
* ``live/game-NNNN.jsonl``: the live feed of a running game (the contract in the notes:
  a ``start`` line with ``game``, ``black``, ``white``, ``size``, ``rules``, ``setup``, then one
  ``move`` line per move with ``ply``, ``colour``, ``move``, ``seconds``). A live file whose
  game is already in ``results.jsonl`` is ignored (the referee deletes it right after);
* ``summary.json`` of a tournament, for its ratings.

``DIR`` is a match folder (holding ``results.jsonl`` or ``live/``) or a tournament folder
whose sub-folders are the pairings' match folders. Games are named by keys ``<folder>-<game>``
(folder = index in :meth:`WatchFolder.folders`), so a page never sends a path.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from margo_gtp import files, sgf
from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Rules, RulesError
from margo_gtp.vertex import InvalidVertexError, parse_vertex
from margo_gtp.web.game import GameError
from margo_gtp.web.view import frame, replay_frames

RESULTS = "results.jsonl"
LIVE = "live"
_LIVE_NAME = re.compile(r"game-(\d+)\.jsonl")
_KEY = re.compile(r"(\d{1,4})-(\d{1,7})")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a file, leaving out a torn last line (one being written, the rule
    of :mod:`margo_gtp.files`) and skipping whole lines that do not parse."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    out = []
    for _, line in files.complete_lines(text):
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):   # a line nested too deeply is no record either
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


class WatchFolder:
    """One watched output folder (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def folders(self) -> list[Path]:
        """The match folders: ``root`` itself if it is one, else its sub-folders that are."""
        if _is_match_folder(self.root):
            return [self.root]
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if p.is_dir() and _is_match_folder(p))

    def summary(self) -> dict[str, Any]:
        """Games (finished and live) of every folder, a crosstable, and ratings if written."""
        games: list[dict[str, Any]] = []
        for index, folder in enumerate(self.folders()):
            label = "." if folder == self.root else folder.name
            finished = {}
            for record in read_jsonl(folder / RESULTS):
                number = record.get("game")
                if isinstance(number, int):
                    finished[number] = record
            for number, record in sorted(finished.items()):
                games.append({
                    "key": f"{index}-{number}", "folder": label, "game": number, "live": False,
                    "white": record.get("white"), "black": record.get("black"),
                    "result": record.get("result"), "reason": record.get("reason"),
                    "winner_colour": record.get("winner_colour"), "moves": record.get("move_count"),
                })
            for number, path in _live_files(folder):
                if number in finished:
                    continue  # finished: the referee is about to delete the feed
                lines = read_jsonl(path)
                start = next((line for line in lines if line.get("type") == "start"), {})
                games.append({
                    "key": f"{index}-{number}", "folder": label, "game": number, "live": True,
                    "white": start.get("white"), "black": start.get("black"), "result": None, "reason": None,
                    "winner_colour": None, "moves": sum(1 for line in lines if line.get("type") == "move"),
                })
        return {"root": self.root.name, "games": games, "crosstable": crosstable(games), "ratings": self._ratings()}

    def _ratings(self) -> list[dict[str, Any]]:
        item = read_json(self.root / "summary.json")
        ratings = item.get("ratings") if isinstance(item, dict) else None
        return [r for r in ratings if isinstance(r, dict)] if isinstance(ratings, list) else []

    def _locate(self, key: str) -> tuple[Path, int]:
        match = _KEY.fullmatch(key) if isinstance(key, str) else None
        folders = self.folders()
        if match is None or int(match.group(1)) >= len(folders):
            raise GameError(f"no such game: {key!r}")
        return folders[int(match.group(1))], int(match.group(2))

    def mark(self, key: str) -> tuple:
        """A cheap fingerprint of what :meth:`game_view` reads for ``key`` (sizes and times
        of the results log and the live feed): when it is unchanged, so is the view."""
        folder, number = self._locate(key)
        out = []
        for path in (folder / RESULTS, folder / LIVE / f"game-{number:04d}.jsonl"):
            try:
                info = path.stat()
                out.append((info.st_size, info.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    def game_view(self, key: str, since: int = 0) -> dict[str, Any]:
        """Replay frames of a finished game, or the frames so far of a live one: the frames
        of plies ``since`` and later (``since`` in the answer), all moves."""
        since = max(0, since)
        folder, number = self._locate(key)
        record = next((r for r in read_jsonl(folder / RESULTS) if r.get("game") == number), None)
        if record is not None:
            name = record.get("sgf")
            if not isinstance(name, str) or Path(name).name != name:
                raise GameError(f"game {number} has no SGF")
            try:
                text = (folder / name).read_text(encoding="utf-8")
                game_record, board = sgf.load_board(text)
            except (OSError, sgf.SgfError) as error:
                raise GameError(f"game {number}: cannot read its SGF: {error}") from None
            return {"key": key, "live": False, "white": record.get("white"), "black": record.get("black"),
                    "result": record.get("result"), "reason": record.get("reason"),
                    "rules": game_record.rules.options(),
                    "moves": [{"colour": c.letter, "move": m.gtp()} for c, m in board.history],
                    "since": since, "frames": replay_frames(board, since)}
        path = folder / LIVE / f"game-{number:04d}.jsonl"
        lines = read_jsonl(path)
        if not lines:
            raise GameError(f"no such game: {key!r}")
        return live_view(key, lines, since)


def live_view(key: str, lines: list[dict[str, Any]], since: int = 0) -> dict[str, Any]:
    """Frames of a live feed: the start position, then one frame per move line that plays
    (those of plies ``since`` and later).

    A move the rules refuse (or an unreadable line) ends the replay there with an ``error``;
    the referee judges moves too, so this only happens with a feed that is not the referee's.
    """
    start = next((line for line in lines if line.get("type") == "start"), None)
    if start is None:
        raise GameError(f"game {key}: the live feed has no start line yet")
    try:
        options = {str(k): str(v) for k, v in (start.get("rules") or {}).items()}
        options.setdefault("size", str(start.get("size", 9)))
        board = Board(Rules().with_options(options))
        if start.get("setup"):
            board.setup(_setup_balls(start["setup"], board.size))
    except (RulesError, IllegalMoveError, InvalidVertexError, ValueError, TypeError, AttributeError) as error:
        raise GameError(f"game {key}: bad start line: {error}") from None
    frames = [frame(board, with_targets=False)] if since <= 0 else []
    moves: list[dict[str, Any]] = []
    error_text = None
    for line in lines:
        if line.get("type") != "move":
            continue
        word = str(line.get("move", ""))
        colour_text = str(line.get("colour", ""))
        if word.lower() == "resign":
            moves.append({"colour": colour_text, "move": "resign"})
            break
        try:
            colour = Colour.parse(colour_text)
            board.push(Move.from_gtp(word, board.size), colour)
        except (ValueError, IllegalMoveError) as error:
            error_text = f"move {len(moves) + 1} ({colour_text} {word}): {error}"
            break
        moves.append({"colour": colour.letter, "move": Move.from_gtp(word, board.size).gtp(),
                      "seconds": line.get("seconds")})
        if len(moves) >= since:
            frames.append(frame(board, with_targets=False))
    return {"key": key, "live": True, "since": since, "white": start.get("white"), "black": start.get("black"),
            "result": None, "reason": None, "rules": board.rules.options(), "moves": moves, "frames": frames,
            "error": error_text}


def _setup_balls(setup: Any, size: int) -> list[tuple[Any, Colour]]:
    """Setup balls as ``[["W", "D4:1"], ...]``, ``[{"colour": "W", "vertex": "D4:1"}]`` or
    ``["W D4:1", ...]`` (the contract leaves the item form open; all three are read)."""
    balls = []
    for item in setup:
        if isinstance(item, dict):
            colour, vertex = item.get("colour"), item.get("vertex")
        elif isinstance(item, str):
            colour, _, vertex = item.partition(" ")
        else:
            colour, vertex = item
        balls.append((parse_vertex(str(vertex), size), Colour.parse(str(colour))))
    return balls


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def _is_match_folder(path: Path) -> bool:
    return (path / RESULTS).is_file() or (path / LIVE).is_dir()


def _live_files(folder: Path) -> list[tuple[int, Path]]:
    live = folder / LIVE
    if not live.is_dir():
        return []
    out = []
    for path in live.iterdir():
        match = _LIVE_NAME.fullmatch(path.name)
        if match:
            out.append((int(match.group(1)), path))
    return sorted(out)


def crosstable(games: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """``table[a][b] = {"score": points of a against b, "games": n}`` over finished games
    (a win 1, a draw 1/2), engines named as in results.jsonl."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    for game in games:
        white, black, winner = game.get("white"), game.get("black"), game.get("winner_colour")
        if game.get("live") or not isinstance(white, str) or not isinstance(black, str) or not game.get("result"):
            continue
        points = {"W": (1.0, 0.0), "B": (0.0, 1.0)}.get(winner, (0.5, 0.5))
        for me, other, score in ((white, black, points[0]), (black, white, points[1])):
            cell = table.setdefault(me, {}).setdefault(other, {"score": 0.0, "games": 0})
            cell["score"] += score
            cell["games"] += 1
    return table
