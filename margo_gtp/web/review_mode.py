"""The review mode of the page: a replayed record's review, read from its SGF or run live.

A review is a list of per-move entries (:mod:`margo_gtp.analysis.game_review`). The page gets
them in one small form (:func:`page_entry`)::

    {"move_number": 3, "colour": "W", "move": "C2:1", "white": 0.44, "loss": 0.076,
     "judgement": "inaccuracy", "best": "B3:1", "pv": ["B3:1", "D2:1"], "winrate_before": 0.637,
     "winrate_after": 0.5605, "score_lead": 0.6, "ownership": {"A1:1": -0.25, ...}}

``white`` is White's win rate after the move (what the graph draws), ``ownership`` the
position after the move, per point Black's share minus White's (-1: White's, 1: Black's),
only the points where it is at least :data:`OWNERSHIP_SHOWN` either way.

Where a review comes from:

- a reviewed SGF (``margo-review``'s ``NAME.reviewed.sgf``, or any file with Sabaki's
  ``SBKV``) opened as a replay carries it: :func:`recorded_review`;
- a review run here (:class:`ReviewRunner`): :func:`~margo_gtp.analysis.game_review.review_game`
  with margo-review's default search (``strongest``: the net where it plays, else the
  fresh seeded ``mcts``, :data:`~margo_gtp.analysis.game_analysis.DEFAULT_PLAYER`)
  in a worker thread, each entry sent to the page as soon as it is known, so the graph,
  the mistakes and the board's best line fill in while the search goes on; between entries
  the position being searched is sent as it grows (:func:`progress_entry`, at most every
  :data:`PROGRESS_SECONDS`), so its point on the graph moves as the search runs, as
  Lizzie and KaTrain show it.

Bounds: at most :data:`MAX_REVIEWS` reviews run on a server at once (another request is
refused, it does not wait), a game of at most :data:`MAX_REVIEW_MOVES` moves, at most
:data:`MAX_REVIEW_VISITS` simulations and :data:`SECONDS_PER_POSITION` seconds per
position; a review stops when its page asks, when the page goes away, or when the page
starts another one.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from margo_gtp.analysis import game_review as review_library
from margo_gtp.analysis.game_analysis import DEFAULT_PLAYER
from margo_gtp.analysis.game_review import ReviewError, read_reviewed
from margo_gtp.players import PlayerSpecError
from margo_gtp.web.game import GameError

log = logging.getLogger(__name__)

#: Reviews running on one server at the same time (each keeps one core busy).
MAX_REVIEWS = 1
#: Most moves a reviewed game may have (every position is searched).
MAX_REVIEW_MOVES = 1000
#: Simulations per position: the page's choices, and the most any request may ask.
REVIEW_VISITS = (50, 200, 800)
MAX_REVIEW_VISITS = 1600
#: A position's search also ends after this many seconds (a big board at many visits).
SECONDS_PER_POSITION = 5.0
#: Ownership shares closer to even than this are not sent (nothing to draw there).
OWNERSHIP_SHOWN = 0.1
#: A search under way is sent to the page at most this often (seconds), as it grows.
PROGRESS_SECONDS = 0.25


def page_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A review entry (computed, or read back from an SGF) in the page's form."""
    after = entry["winrate_after"]
    shown = {key: entry.get(key) for key in ("move_number", "colour", "move", "loss", "judgement", "best",
                                              "winrate_before", "winrate_after", "score_lead")}
    shown["white"] = round(after if entry["colour"] == "W" else 1.0 - after, 4)
    shown["pv"] = list(entry.get("pv") or [])
    if entry.get("ownership"):
        owners = {}
        for vertex, (white, black, _empty) in entry["ownership"].items():
            lean = round(black - white, 2)
            if abs(lean) >= OWNERSHIP_SHOWN:
                owners[vertex] = lean
        shown["ownership"] = owners
    return shown


def progress_entry(turn: int, progress: dict[str, Any]) -> dict[str, Any]:
    """A search under way (``on_progress`` of :func:`~margo_gtp.analysis.game_review.review_game`)
    in the page's form: ``{"turn": 3, "visits": 120, "best": "B3:1", "pv": [...], "white":
    0.47}``, ``white`` White's win rate of position ``turn`` so far (the graph's point of
    move ``turn``, until its entry replaces it)."""
    rate = progress["winrate"]
    white = rate if progress["to_move"] == "W" else 1.0 - rate
    return {"turn": turn, "visits": progress["visits"], "best": progress["best"], "pv": list(progress["pv"]),
            "white": round(white, 4)}


def recorded_review(record: Any) -> dict[str, Any] | None:
    """The review a record carries (``SBKV`` on its move nodes), as the replay view sends it
    (``{"source": "sgf", "done": true, "total": n, "entries": [...]}``), or None."""
    entries = read_reviewed(record)
    if not entries:
        return None
    return {"source": "sgf", "done": True, "total": len(record.moves), "entries": [page_entry(e) for e in entries]}


def review_visits(value: Any) -> int:
    """The simulations per position a review request asks for; GameError when it is not
    a whole number 1..MAX_REVIEW_VISITS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REVIEW_VISITS:
        raise GameError(f"invalid review visits: {value!r} (a whole number 1..{MAX_REVIEW_VISITS})")
    return value


class ReviewRunner:
    """The reviews of one server: each runs :func:`review_game` in a worker thread and hands
    its entries to the event loop as they come. The slots are counted by the threads
    themselves, so a review told to stop holds its slot until its current search ends."""

    def __init__(self, limit: int = MAX_REVIEWS) -> None:
        self.limit = limit
        self.running = 0     # review threads alive (each holds a slot until its search ends)
        self.streams = 0     # reviews still sending to a page (on the event loop)
        self._lock = threading.Lock()

    def _take_slot(self) -> None:
        with self._lock:
            if self.running >= self.limit:
                raise GameError(f"a review is already running on this server (at most {self.limit} at a time): "
                                "wait for it to end or stop it")
            self.running += 1

    def _free_slot(self) -> None:
        with self._lock:
            self.running -= 1

    def start(self, replay: Any, visits: int, send: Callable[[dict[str, Any]], Awaitable[None]], *,
              progress: bool = False) -> asyncio.Task:
        """Start reviewing ``replay`` (a :class:`~margo_gtp.web.replay.Replay`) at ``visits``;
        GameError at once, before any work, for a game that cannot be reviewed or when no
        slot is free. The task sends ``{"type": "review", ...}`` messages: one at the
        start, one per entry as it comes, when ``progress`` is asked one with ``progress``
        (:func:`progress_entry`) at most every :data:`PROGRESS_SECONDS` while a position
        is searched, one at the end (``done``, with ``error`` when it failed). Cancelling the task stops the review after the position being searched.
        The entries (without ownership) are kept on the replay, ``review_entries``."""
        record = replay.record
        if not record.moves:
            raise GameError("cannot review: the game has no moves to review")
        if len(record.moves) > MAX_REVIEW_MOVES:
            raise GameError(f"cannot review: {len(record.moves)} moves (at most {MAX_REVIEW_MOVES} are reviewed)")
        if len(record.moves) != replay.plies:
            raise GameError("cannot review: the record holds passes that were no move (the game over, or no "
                            "legal move), which its replay skips")
        self._take_slot()
        loop = asyncio.get_running_loop()
        # Bounded: at most one entry per move, and at most one progress item waiting.
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        progress_waiting = threading.Event()
        stop = threading.Event()

        def put(kind: str, value: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, (kind, value))
            except RuntimeError:  # the loop is closed: the server stopped, no page is left to tell
                stop.set()

        last_progress = [float("-inf")]

        def watch(turn: int, found: dict[str, Any]) -> None:
            # Called every few simulations in this thread: passed on at most every
            # PROGRESS_SECONDS, so the queue and the socket see a bounded rate.
            now = time.monotonic()
            if now - last_progress[0] >= PROGRESS_SECONDS and not stop.is_set() and not progress_waiting.is_set():
                last_progress[0] = now
                progress_waiting.set()
                put("progress", progress_entry(turn, found))

        def work() -> None:
            try:
                entries = review_library.review_game(record, visits, seed=0, ownership=True,
                                                     seconds=SECONDS_PER_POSITION,
                                                     on_progress=watch if progress else None,
                                                     progress_interval=PROGRESS_SECONDS, player=DEFAULT_PLAYER)
                try:
                    for entry in entries:
                        put("entry", entry)
                        if stop.is_set():
                            break
                finally:
                    entries.close()
            except (ReviewError, PlayerSpecError) as error:  # PlayerSpecError: a broken shipped network
                put("error", f"cannot review: {error}")
            except Exception as error:  # noqa: BLE001 - a bug ends this review, the server goes on
                log.exception("review failed")
                put("error", f"internal error: {type(error).__name__}: {error}")
            finally:
                self._free_slot()
                put("end", None)

        async def stream() -> None:
            base = {"type": "review", "replay": replay.replay_id, "visits": visits, "total": len(record.moves)}
            await send({**base, "entries": [], "done": False})
            while True:
                kind, value = await queue.get()
                if kind == "entry":
                    replay.review_entries.append({k: v for k, v in value.items() if k != "ownership"})
                    await send({**base, "entries": [page_entry(value)], "done": False})
                elif kind == "progress":
                    progress_waiting.clear()
                    await send({**base, "entries": [], "done": False, "progress": value})
                else:
                    await send({**base, "entries": [], "done": True, **({"error": value} if kind == "error" else {})})
                    return

        replay.review_entries = []
        try:
            threading.Thread(target=work, name=f"review-{replay.replay_id}", daemon=True).start()
        except RuntimeError:
            self._free_slot()
            raise
        def finished(task: asyncio.Task) -> None:
            stop.set()   # also when the task was cancelled before it ran
            self.streams -= 1
            if not task.cancelled() and task.exception() is not None:
                # The page went away while an entry was being sent: nothing left to tell it.
                log.debug("review stream ended: %r", task.exception())

        task = loop.create_task(stream())
        self.streams += 1
        task.add_done_callback(finished)
        return task
