"""What the pages see of an engine that thinks: its seconds against its budget, and its
own search so far (visits, best move).

The source is the engine's own search, not a second one: the web game asks an engine for
its move with ``margo-genmove_analyze`` (:meth:`margo_gtp.client.SimpleEngine.play_analysed`),
which is ``genmove`` (the same budget, choice and move) writing the search's root every
:data:`REPORT_INTERVAL`. The engine's reading thread keeps only the newest report
(:meth:`Think.take`: memory is one report, nothing is queued), and the game's task sends
the pages a small ``thinking`` message at most every :data:`PUSH_SECONDS`, only when a new
report came (:func:`push_reports`). An engine without the command (another program given
with ``--engine``), or a player without a search (``random``, ``heuristic``), reports
nothing: the pages show its seconds only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from margo_gtp.engine import Colour

REPORT_INTERVAL = 0.25   # seconds between the engine's reports of its search
PUSH_SECONDS = 0.25      # the pages get at most one thinking message per this many seconds


@dataclass
class Think:
    """One engine's turn: who, its budget, since when it thinks, and the newest report of
    its search. The seconds count from :meth:`begin`, when the engine is asked for its
    move (its budget starts there): an engine being started (after a reconnect, a second
    or so) is shown as starting, not as thinking past its budget."""

    colour: Colour
    player: str
    budget: float
    ply: int
    started: float | None = None   # time.monotonic() when the engine was asked; None: starting
    latest: Any = None    # the newest margo_gtp.client.AnalysisResult, or None
    changes: int = 0      # begun or reported (the pusher sends only when this grew)
    engine: Any = None    # the engine process asked (a resignation stops it at once)

    def begin(self, engine: Any) -> None:
        """``engine`` runs and is asked for its move now (called in the engine's thread)."""
        self.engine = engine
        self.started = time.monotonic()
        self.changes += 1

    def take(self, result: Any) -> None:
        """A report of the engine's search (called in the engine's reading thread)."""
        self.latest = result
        self.changes += 1

    def view(self) -> dict[str, Any]:
        """``{"colour", "player", "elapsed", "budget", "ply", "visits", "best", "winrate"}``:
        ``visits`` the candidates' visits together, ``best`` the most visited move and
        ``winrate`` its win rate for the thinker (all three None before the first report);
        ``elapsed`` None while the engine starts."""
        elapsed = None if self.started is None else round(time.monotonic() - self.started, 1)
        view = {"colour": self.colour.letter, "player": self.player, "elapsed": elapsed, "budget": self.budget,
                "ply": self.ply, "visits": None, "best": None, "winrate": None}
        candidates = [info for info in self.latest.candidates if info.move is not None] if self.latest else []
        if candidates:
            view["visits"] = sum(int(info.visits) for info in candidates)
            view["best"] = candidates[0].move.gtp()
            view["winrate"] = round(float(candidates[0].winrate), 4)
        return view


async def push_reports(think: Think, current: Callable[[], bool],
                       send: Callable[[dict[str, Any]], Awaitable[None]], game_id: str) -> None:
    """Send ``{"type": "thinking", "game": ..., **think.view()}`` whenever a new report came,
    at most every :data:`PUSH_SECONDS`, while ``current()`` (the engine still thinks this
    turn). The caller cancels it when the engine answers."""
    shown = 0
    while True:
        await asyncio.sleep(PUSH_SECONDS)
        if not current():
            return
        if think.changes != shown:
            shown = think.changes
            await send({"type": "thinking", "game": game_id, **think.view()})
