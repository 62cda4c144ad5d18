"""Games on disk for margo-web: finished games as SGF files, unfinished ones as journals.

:class:`GameStore` is the only code that names the files of the games folder; a page asks
for a stored game by its server-made id (:func:`is_game_id`), never by path. Every write is
atomic or verified (:mod:`margo_gtp.files`): a saved SGF replaces its old version whole, a
move is appended whole or refused, and a game whose SGF could not be written keeps its
journal, so a full disk loses nothing acknowledged.
"""

from __future__ import annotations

import itertools
import logging
import secrets
import time
from pathlib import Path
from typing import Any

from margo_gtp import files, sgf
from margo_gtp.engine import Colour, Move, Rules
from margo_gtp.web import journal
from margo_gtp.web.clocks import GameClock
from margo_gtp.web.game import EngineRegistry, GameError, Seat, WebGame
from margo_gtp.web.presets import known_preset, preset_title

log = logging.getLogger(__name__)


class GameStore:
    """Games on disk, so they outlive the server: finished (and crashed) games as one SGF
    each, unfinished ones as a journal each (``unfinished/<game id>.jsonl``, see
    :mod:`margo_gtp.web.journal`).

    Files are named by the server (a server-made game id); a page asks for a stored game by
    id only, never by path.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.unfinished = self.folder / "unfinished"

    def save(self, game: WebGame) -> bool:
        """Write the game's SGF (atomically, synced); False, with one line in the log, when
        it cannot be written: the caller then keeps the journal, the game's only copy."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            files.write_atomically(self.folder / f"{game.game_id}.sgf", game.sgf())
        except OSError as error:
            log.warning("could not save game %s: %s", game.game_id, error)
            return False
        return True

    # ---------------------------------------------------------------- unfinished games

    def journal_path(self, game_id: str) -> Path:
        return self.unfinished / f"{game_id}.jsonl"

    def write_journal(self, game: WebGame) -> None:
        """The whole game, at once (a new game, an undo, a new player). A failure is
        logged: the moves already in the journal stay."""
        try:
            journal.rewrite(self.journal_path(game.game_id), game.journal_lines())
        except OSError:
            log.warning("could not write the journal of game %s", game.game_id, exc_info=True)

    def journal_move(self, game: WebGame, colour: Colour, move: Move, seconds: float | None) -> None:
        """Append one move (OSError when it cannot be made durable: the move is refused)."""
        path = self.journal_path(game.game_id)
        if not path.exists():   # a game taken up again after its end (undo), or a lost file
            game.board.pop()
            try:
                journal.rewrite(path, game.journal_lines())
            finally:
                game.board.push(move, colour)
        journal.append(path, journal.move_line(colour.letter, move.gtp(), seconds))

    def end_journal(self, game: WebGame) -> None:
        """The game has ended and its SGF is written: the journal goes."""
        try:
            self.journal_path(game.game_id).unlink(missing_ok=True)
        except OSError:
            log.warning("could not remove the journal of game %s", game.game_id, exc_info=True)

    def restore(self, game_id: str, registry: EngineRegistry) -> WebGame | None:
        """The unfinished game ``game_id`` as its journal left it (None: there is none).
        GameError when the journal cannot be read back."""
        if not is_game_id(game_id):
            return None
        path = self.journal_path(game_id)
        try:
            start, moves = journal.read(path)
        except FileNotFoundError:
            return None
        except (OSError, journal.JournalError) as error:
            raise GameError(f"cannot resume game {game_id}: {error}") from None
        try:  # its moves are appended from now on: a torn last line goes first (margo_gtp.files)
            files.cut_torn_line(path)
        except OSError:
            pass  # a journal we cannot write to: the next move is refused, as it would be anyway
        try:
            rules = Rules().with_options({str(k): str(v) for k, v in dict(start["rules"]).items()})
            seats = {Colour.parse(letter): Seat(str(start["seats"][letter])) for letter in ("W", "B")}
            game = WebGame(game_id, rules, seats, float(start["seconds"]), registry, None,
                           GameClock.parse(start.get("clock")), known_preset(start.get("preset")))
            for item in moves:
                game._push(Move.from_gtp(item["move"], rules.size), Colour.parse(item["colour"]), item.get("seconds"))
                if game.clock is not None and item.get("seconds") is not None:   # None: played off the clock
                    game.clock.replay(Colour.parse(item["colour"]), item["seconds"])
        except (GameError, ValueError, KeyError, TypeError) as error:
            raise GameError(f"cannot resume game {game_id}: {error}") from None
        game.store = self
        if game.outcome is not None and self.save(game):   # ended by its last move, before the SGF was written
            self.end_journal(game)
        return game

    def _unfinished_list(self) -> list[dict[str, Any]]:
        if not self.unfinished.is_dir():
            return []
        out = []
        for path in sorted(self.unfinished.glob("*.jsonl"), key=_newest_first):
            try:
                start, moves = journal.read(path)
                if not moves:
                    continue   # started and left before a move: resumable by its link, not worth a line
                size = int(start["rules"]["size"])
                out.append({"id": path.stem, "size": size, "white": start["seats"]["W"], "black": start["seats"]["B"],
                            "result": None, "moves": len(moves), "unfinished": True, "date": _date_of(path),
                            **_preset_item(start.get("preset"))})
            except (OSError, journal.JournalError, KeyError, TypeError, ValueError):
                continue
        return out

    def list(self) -> list[dict[str, Any]]:
        """Unfinished games first (newest first), then the finished ones (newest first)."""
        out = self._unfinished_list()
        open_ids = {item["id"] for item in out}
        if not self.folder.is_dir():
            return out
        for path in sorted(self.folder.glob("*.sgf"), key=_newest_first):
            if path.stem in open_ids:
                continue   # taken up again after its end: the journal is the game now
            try:
                record = sgf.loads(path.read_text(encoding="utf-8"))
                date = _date_of(path)
            except (OSError, sgf.SgfError, UnicodeDecodeError) as error:
                # One bad file (not UTF-8, not SGF, unreadable) must not hide the others.
                log.warning("saved games: skipping %s: %s", path.name, " ".join(str(error).split())[:200])
                continue
            preset = record.root_properties.get(journal.PRESET_PROPERTY, [None])[0]
            out.append({"id": path.stem, "size": record.size, "white": record.white_name, "black": record.black_name,
                        "result": record.result, "moves": len(record.moves), "date": date, **_preset_item(preset)})
        return out

    def delete(self, game_id: str) -> None:
        """Remove a saved game for good: its journal and its SGF (a game taken up again
        after its end has both). GameError when there is neither."""
        paths = [self.journal_path(game_id), self.folder / f"{game_id}.sgf"] if is_game_id(game_id) else []
        if not any(path.is_file() for path in paths):
            raise GameError(f"no such game: {game_id!r}")
        try:
            for path in paths:
                path.unlink(missing_ok=True)
        except OSError as error:
            raise GameError(f"cannot delete game {game_id}: {error.strerror}") from None

    def read(self, game_id: str) -> str:
        if not is_game_id(game_id):
            raise GameError(f"no such game: {game_id!r}")
        path = self.folder / f"{game_id}.sgf"
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise GameError(f"no such game: {game_id!r}") from None


def _preset_item(name: Any) -> dict[str, str]:
    """A saved game's preset for the list (its name and words), nothing when it has none
    this version knows (a game from before the presets, or edited by hand)."""
    name = known_preset(name)
    return {} if name is None else {"preset": name, "preset_title": preset_title(name)}


def _newest_first(path: Path) -> float:
    """Sort key: newest first; a file removed while the folder is listed sorts last (and
    is then skipped when it cannot be read)."""
    try:
        return -path.stat().st_mtime
    except OSError:
        return 0.0


def _date_of(path: Path) -> str:
    """When a saved game was last played (its file's time), in the server's local time: the
    page runs on the same machine (margo-web binds the loopback)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))


_counter = itertools.count(1)


def new_game_id() -> str:
    """``g<time>-<n>-<random>``: unique, sortable, and safe as a file name."""
    return f"g{int(time.time())}-{next(_counter)}-{secrets.token_hex(3)}"


def is_game_id(text: Any) -> bool:
    return isinstance(text, str) and 0 < len(text) <= 64 and all(ch.isalnum() or ch == "-" for ch in text)
