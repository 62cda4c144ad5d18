"""A match directory on disk: ``match.json``, the durable ``results.jsonl``, atomic writes.

Durability: the SGF is written (temporary file, fsync, rename:
:func:`margo_gtp.files.write_atomically`) and then the record is appended to
``results.jsonl`` with fsync (:class:`ResultsLog`); a game counts as finished exactly when
its line is in ``results.jsonl``. On start the log is read back, a torn last line (a kill
during the write; :mod:`margo_gtp.files` states the rule) is cut off, and only the games
not yet there are played. ``match.json`` describes
the match; :func:`prepare_directory` replaces it only while no game is finished (so a typo
in an engine command does not block the corrected command), and refuses a directory that
holds another match (:class:`MatchMismatch`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from margo_gtp import files

from margo_gtp.match.match_config import MatchConfig

RESULTS_FILE = "results.jsonl"
MATCH_FILE = "match.json"
SUMMARY_FILE = "summary.json"


class ResultsLog:
    """``results.jsonl``: one JSON object per finished game, appended with fsync.

    The one writer of game results: the referee's, and self-play's (``scripts/strength``,
    ``scripts/net-selfplay``), whose folders the same reader and summary read.
    ``written`` holds the game numbers already in the file (:meth:`load` fills it)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / RESULTS_FILE
        self.written: set[int] = set()

    def load(self, repair: bool = True) -> list[dict[str, Any]]:
        """Every intact record, first one per game number, in game order. A torn last line
        (the writer died mid-write) is ignored, and with ``repair`` cut off the file so
        the next append starts on a fresh line."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        if repair and files.whole_length(data) < len(data):
            files.cut_torn_line(self.path)
        records = parse_records(data)
        self.written.update(int(record["game"]) for record in records)
        return records

    def append(self, record: Mapping[str, Any]) -> None:
        files.append_durably(self.path, files.json_line(record))

    def write_game(self, record: Mapping[str, Any], sgf_text: str | None) -> bool:
        """Write one finished game: its SGF atomically (``record["sgf"]`` names it), then
        its line, durably. False, and nothing written, for a game number already written
        (a game played again after a lost worker, or by a resumed run): the first stays."""
        game = int(record["game"])
        if game in self.written:
            return False
        if sgf_text is not None:
            files.write_atomically(self.directory / record["sgf"], sgf_text)
        self.append(record)
        self.written.add(game)
        return True


def parse_records(data: bytes) -> list[dict[str, Any]]:
    """The records of a ``results.jsonl``'s contents: every intact one, the first per game
    number, in game order. A torn last line is no record (:mod:`margo_gtp.files`' rule);
    neither is a whole line that is not a JSON object with a game number (it will be played
    again)."""
    records: dict[int, dict[str, Any]] = {}
    for _, line in files.complete_lines(data):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            game = int(record["game"])
        except (ValueError, KeyError, TypeError, RecursionError):
            continue  # an unreadable line is not a finished game; it will be replayed
        records.setdefault(game, record)
    return [records[game] for game in sorted(records)]


class MatchMismatch(ValueError):
    """Raised when the output directory holds a different match than the one asked for"""


def read_description(path: Path) -> dict[str, Any]:
    """The JSON object a ``match.json`` (or a tournament's ``tournament.json``) holds, or
    ``{"format": "unreadable"}`` for anything else, which differs from every real
    description. OSError when the file cannot be read at all (a directory, no permission)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError):   # UnicodeDecodeError is a ValueError
        return {"format": "unreadable"}
    return stored if isinstance(stored, dict) else {"format": "unreadable"}


def differing_keys(identity: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """The keys on which a description asked for and a stored one differ, sorted."""
    return sorted(key for key in identity.keys() | stored.keys() if identity.get(key) != stored.get(key))


def prepare_directory(config: MatchConfig, directory: Path) -> list[dict[str, Any]]:
    """Create or check ``directory``; return the records of the games already finished."""
    directory.mkdir(parents=True, exist_ok=True)
    match_file = directory / MATCH_FILE
    identity = config.identity()
    finished = ResultsLog(directory).load()
    if match_file.exists():
        try:
            stored = read_description(match_file)
        except OSError as error:  # a directory where the file belongs, no permission
            raise MatchMismatch(f"{match_file}: cannot read: {error.strerror or error}; use another --out") from None
        differences = differing_keys(identity, stored)
        if differences and finished:
            raise MatchMismatch(f"{directory} holds a different match (differs in: {', '.join(differences)}); use another --out")
        if not differences:
            return finished
    # A new match, or one that never finished a game (say, a typo in an engine command
    # stopped it): nothing is lost by describing the match asked for now.
    files.write_atomically(match_file, json.dumps(identity, indent=2) + "\n")
    return finished


def load_records(directory: Path) -> list[dict[str, Any]]:
    """The finished games of the match in ``directory`` (read-only, for reports)."""
    return ResultsLog(directory).load(repair=False)

