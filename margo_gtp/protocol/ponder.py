"""Pondering (``margo-gtp --ponder``): search while the engine waits for the next command.

Between commands -- typically while the opponent thinks about its move -- a background
thread searches the current position for the side to move, with no budget, until the
next command line arrives. Then the session loop stops it (the search reads a stop flag
before every simulation -- on the C tree a :func:`~margo_gtp.players.native_search.new_stop_flag`
read without the GIL by every search thread -- so it ends with the simulations in flight)
and only after that handles the command, so no command ever sees a search running. What the ponder search grew is
kept in the player's tree: when the opponent's move arrives by ``play``, the player's
``notify`` keeps the subtree below it (tree reuse), and the next ``genmove`` starts from
those visits instead of from nothing. If the opponent plays a move the search never
looked at, the tree is simply rebuilt: pondering never changes what a move *means*, only
how much search went into it.

Only searching players ponder (``mcts`` and ``net``, so ``strongest``, margo-gtp's default:
the net's own tree grows and is kept as the C tree is); for others :func:`make_ponderer` returns ``None``
and ``--ponder`` does nothing. The game being over, or no legal move for the side to
move, also leaves nothing to ponder.

What this costs: a ponder search uses a CPU core while the opponent thinks (the point
of it on a multi-core machine, a handicap for an opponent sharing one core), and games
with pondering are not reproducible from a seed, as the amount of ponder search depends
on the opponent's timing. Analysis commands (``margo-analyze``) are commands like any
other: pondering stops while they run.
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

from margo_gtp.players.native_search import new_stop_flag

__all__ = ["Ponderer", "make_ponderer"]


class Ponderer:
    """Starts and stops the background search of one session (see the module docstring).

    ``sessions`` has ``board`` and ``player`` (a player with ``search(board, colour,
    stop=...)`` and ``last_simulations``). Counters for tests and logs: ``searches``
    (ponder searches run) and ``simulations`` (their simulations in total).
    """

    def __init__(self, session: Any, *, stderr: IO[str] | None = None) -> None:
        self.session = session
        self._stderr = stderr
        self.searches = 0
        self.simulations = 0
        self.last_simulations = 0
        self._thread: threading.Thread | None = None
        self._stop = new_stop_flag()
        self._error: BaseException | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Begin pondering the session's position (nothing when there is nothing to do)."""
        if self._thread is not None:
            return
        session = self.session
        if getattr(session, "_game_over", lambda: False)():
            return
        board = session.board
        colour = board.to_move
        if not board.legal_moves(colour):
            return
        self._stop.clear()
        # A copy: the session's board must stay untouched while commands are handled.
        self._thread = threading.Thread(target=self._run, args=(board.copy(), colour),
                                        name="margo-ponder", daemon=True)
        self._thread.start()

    def _run(self, board: Any, colour: Any) -> None:
        player = self.session.player
        try:
            player.search(board, colour, stop=self._stop)
            self.last_simulations = player.last_simulations
        except BaseException as error:  # noqa: BLE001 - reported by stop() in the main thread
            self._error = error

    def stop(self) -> None:
        """Stop pondering and wait for the search thread to end. A failed ponder search
        is reported on stderr (one line) and otherwise ignored: the session goes on."""
        thread = self._thread
        if thread is None:
            return
        self._stop.set()
        thread.join()
        self._thread = None
        self.searches += 1
        self.simulations += self.last_simulations
        error, self._error = self._error, None
        if error is not None:
            stream = self._stderr or sys.stderr
            stream.write(f"margo-gtp: ponder search failed: {error!r}\n")
            stream.flush()


def make_ponderer(session: Any, *, stderr: IO[str] | None = None) -> Ponderer | None:
    """A :class:`Ponderer` for ``session`` when its player searches, else ``None``."""
    if not callable(getattr(session.player, "search", None)):
        return None
    return Ponderer(session, stderr=stderr)
