"""Replays of SGF records for the page: the game information at once, the frames on demand.

A replay used to send one frame (every ball of the position) per ply in one answer: a legal
3,000-move 19x19 record made 150 MB of JSON and kept the server busy for seconds. Now
:func:`load_replay` reads the record (bounded by :data:`MAX_REPLAY_MOVES`) and
:class:`ReplayBook` keeps the few most recent replays in memory under a server-made id; the
page asks for :data:`MAX_FRAMES_PER_REQUEST` frames at a time around the ply it shows
(:meth:`Replay.frames`: the board is copied, taken back to the first ply wanted with the
rules core's ``pop`` and played forward), so no answer grows with the game.

What a replay tells besides the positions (the *info*): the names, result, date, event and
the root comment, a comment per move, a note when the record has variations (only the main
line is followed), the review a reviewed SGF carries (:mod:`~margo_gtp.web.review_mode`), and a
notice when a Go record (``GM[1]``) was read through the 2-D projection (``gtp.md``
section 5) - such a record is never taken for a native MarGo game silently, and one whose
moves do not lift to MarGo points is refused with that reason.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from typing import Any

from sgfmill import sgf as sgfmill_sgf

from margo_gtp import sgf
from margo_gtp.engine import Board
from margo_gtp.web.game import GameError
from margo_gtp.web.review_mode import recorded_review
from margo_gtp.web.view import frame

#: Most moves a replayed record may hold. A full 19x19 pyramid has 2,470 points; captures
#: let a game run longer, so the cap leaves room, but it bounds the work of one upload.
MAX_REPLAY_MOVES = 6000
#: Most frames one request returns (each is one whole position: up to ~2,470 balls).
MAX_FRAMES_PER_REQUEST = 32
#: Replays kept in memory (the most recently used); an older one is loaded again on demand.
MAX_REPLAYS = 16
#: Characters of one comment sent to the page (longer ones are cut, with an ellipsis).
MAX_COMMENT_CHARS = 2000

_ESCAPE = re.compile(r"\\(\n|.)", re.DOTALL)


def _unescape(raw: str) -> str:
    """SGF text (raw, escapes kept) as plain text: ``\\]`` is ``]``, an escaped newline is none."""
    text = _ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
    return text if len(text) <= MAX_COMMENT_CHARS else text[:MAX_COMMENT_CHARS] + "…"


def _has_variations(text: str) -> bool:
    """True when a node of the main line has more than one child (sgfmill's reading)."""
    try:
        node = sgfmill_sgf.Sgf_game.from_string(text).get_root()
    except ValueError:
        return False
    while len(node):
        if len(node) > 1:
            return True
        node = node[0]
    return False


def _game_number(text: str) -> int:
    try:
        root = sgfmill_sgf.Sgf_game.from_string(text).get_root()
        return int(root.get("GM")) if root.has_property("GM") else 1
    except (ValueError, KeyError):
        return 0   # sgf.loads names the problem


class Replay:
    """One loaded record: its info, its moves and the board at its end."""

    def __init__(self, replay_id: str, record: sgf.SgfRecord, board: Board, notes: list[str]) -> None:
        self.replay_id = replay_id
        self.record = record
        self.board = board
        self.notes = notes
        self.lock = threading.Lock()   # frames are built in worker threads; the board is shared
        self.review_entries: list[dict[str, Any]] = []   # of the last review run here (web.review_mode)

    @property
    def plies(self) -> int:
        return len(self.board.history)

    def frames(self, start: int, count: int) -> list[dict[str, Any]]:
        """Frames of plies ``start`` .. ``start + count - 1`` (ply 0: the first position),
        at most :data:`MAX_FRAMES_PER_REQUEST`, stopping at the end of the game."""
        start = max(0, min(start, self.plies))
        stop = min(self.plies, start + max(1, min(count, MAX_FRAMES_PER_REQUEST)) - 1)
        with self.lock:
            board = self.board.copy()
        later = board.history[start:stop]
        for _ in range(self.plies - start):
            board.pop()
        frames = [frame(board, with_targets=False)]
        for colour, move in later:
            board.push(move, colour)
            frames.append(frame(board, with_targets=False))
        return frames

    def view(self, source: str) -> dict[str, Any]:
        """What the page needs to open the replay: info, moves and the first frames."""
        record = self.record
        comments: list[str | None] = []
        if len(record.move_properties) == self.plies:   # idle passes skipped: no alignment
            comments = [_unescape(p["C"][0]) if p.get("C") else None for p in record.move_properties]
        root = record.root_properties
        info = {
            "white": record.white_name, "black": record.black_name, "result": record.result,
            "date": _unescape(root["DT"][0]) if root.get("DT") else None,
            "event": _unescape(root["EV"][0]) if root.get("EV") else None,
            "comment": _unescape(root["C"][0]) if root.get("C") else None,
        }
        return {
            "replay": self.replay_id,
            "source": source,
            "rules": record.rules.options(),
            **info,
            "notes": self.notes,
            "comments": comments,
            "plies": self.plies,
            "moves": [{"colour": colour.letter, "move": move.gtp()} for colour, move in self.board.history],
            "frames": self.frames(0, MAX_FRAMES_PER_REQUEST),
            "review": recorded_review(record),
        }


def load_replay(text: str, replay_id: str) -> Replay:
    """Read an SGF text into a :class:`Replay`; GameError (one line) if it cannot be."""
    number = _game_number(text)
    notes = []
    try:
        record = sgf.loads(text)
    except sgf.SgfError as error:
        if number == 1:
            raise GameError(f"cannot load SGF: a Go record (GM[1]) that is not a MarGo game seen from above: {error}") from None
        raise GameError(f"cannot load SGF: {error}") from None
    if len(record.moves) > MAX_REPLAY_MOVES:
        raise GameError(f"cannot load SGF: {len(record.moves)} moves (at most {MAX_REPLAY_MOVES} are replayed)")
    try:
        board = sgf.replay(record)
    except sgf.SgfError as error:
        raise GameError(f"cannot load SGF: {error}") from None
    if number == 1:
        side = 2 * record.size - 1
        notes.append(f"a Go record (GM[1], {side}×{side}) read as a MarGo {record.size}×{record.size} game seen "
                     "from above: each Go move is lifted to the lowest empty point of its column")
    if _has_variations(text):
        notes.append("the record has variations: the main line is shown")
    return Replay(replay_id, record, board, notes)


class ReplayBook:
    """The most recent :data:`MAX_REPLAYS` replays, by server-made id (thread-safe)."""

    def __init__(self) -> None:
        self._replays: OrderedDict[str, Replay] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, text: str) -> Replay:
        replay = load_replay(text, secrets.token_hex(8))
        with self._lock:
            self._replays[replay.replay_id] = replay
            while len(self._replays) > MAX_REPLAYS:
                self._replays.popitem(last=False)
        return replay

    def get(self, replay_id: str) -> Replay:
        with self._lock:
            replay = self._replays.get(replay_id) if isinstance(replay_id, str) else None
            if replay is None:
                raise GameError(f"no such replay: {replay_id!r} (load the record again)")
            self._replays.move_to_end(replay_id)
            return replay
