"""Root-parallel MCTS over processes (``mcts:workers=N``): helper processes for one player.

Root parallelisation (Cazenave & Jouandeau 2007; Chaslot et al. 2008): each of ``N``
searchers grows its own tree from the same position with its own seed; at the end the
root children's visits and wins are summed move by move and the most visited move is
played. The trees are never shared while searching, so there are no locks; Python's GIL
makes threads useless here, hence processes.

The player's own process is worker 0 (it keeps the tree that analysis and pondering
see); workers 1..N-1 are :class:`Helper` processes, ``python -m
margo_gtp.players.parallel``, started on the first parallel search and kept for the
whole game so their trees are reused between moves like worker 0's. A helper is sent
the game as it stands (rules, set-up, moves since the root as GTP text); it replays only
the moves it has not seen, calling ``notify`` so its tree follows the game.

Determinism: helper ``k`` is seeded from the player's random generator when it starts,
so with a seed and a playout budget (``playouts`` is per worker: ``N`` workers run ``N``
times the simulations in about the same wall time on ``N`` free cores) the merged result
is the same on every run.

Shutdown: :meth:`Helper.close` closes the helper's stdin; the helper sees end of input
and exits; it is killed if it has not within a few seconds. The same happens when the
player is garbage-collected or the interpreter exits (``weakref.finalize``), and a
helper whose parent died sees end of input as well. Messages are pickles on the
helper's stdin/stdout, trusted because both ends are this package.
"""

from __future__ import annotations

import importlib
import pickle
import random
import subprocess
import sys
import weakref
from dataclasses import dataclass
from typing import IO, Any

from margo_gtp.engine import Board, Colour, Move, Rules

__all__ = ["Helper", "RootStats", "game_message", "main"]

#: Seconds a helper gets to exit after its input is closed before it is killed.
EXIT_GRACE = 5.0
#: The searching player class a helper builds, as ``module:Class``. Named, not imported:
#: the player module imports this one, and a helper can serve any player class with
#: ``search(board, colour, playouts=, deadline=)`` and ``last_simulations``.
DEFAULT_PLAYER = "margo_gtp.players.mcts:MctsPlayer"


@dataclass(frozen=True)
class RootStats:
    """What one worker's search found at the root: ``{move (GTP text): (visits, wins)}``
    (wins for the colour to move) and the number of simulations it ran."""

    children: dict[str, tuple[int, float]]
    simulations: int


def game_message(board: Board, colour: Colour, playouts: int | None, seconds: float | None) -> dict[str, Any]:
    """The search request for a helper: the game from its root, and the budget."""
    return {
        "rules": board.rules,
        "root": sorted(board.root_balls().items()),
        "root_to_move": int(board.root_to_move),
        "moves": [(int(c), move.gtp()) for c, move in board.history],
        "colour": int(colour),
        "playouts": playouts,
        "seconds": seconds,
    }


def _close(process: subprocess.Popen) -> None:
    """End a helper: close its input, wait, kill if it lingers (also run by the finalizer)."""
    if process.poll() is not None:
        return
    try:
        if process.stdin is not None:
            process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=EXIT_GRACE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for stream in (process.stdout,):
        if stream is not None:
            stream.close()


class Helper:
    """One helper process searching with its own seed and tree (see the module docstring)."""

    def __init__(self, seed: int, options: dict[str, Any], player: str = DEFAULT_PLAYER) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "margo_gtp.players.parallel"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        self._finalizer = weakref.finalize(self, _close, self.process)
        self._send({"player": player, "seed": seed, "options": options})

    @property
    def pid(self) -> int:
        return self.process.pid

    def _send(self, message: Any) -> None:
        assert self.process.stdin is not None
        pickle.dump(message, self.process.stdin)
        self.process.stdin.flush()

    def start(self, board: Board, colour: Colour, playouts: int | None, seconds: float | None) -> None:
        """Ask for a search (returns at once; collect it with :meth:`result`)."""
        self._send(game_message(board, colour, playouts, seconds))

    def result(self) -> RootStats:
        """Wait for the search started last and return its root statistics."""
        assert self.process.stdout is not None
        try:
            reply = pickle.load(self.process.stdout)
        except EOFError:
            raise RuntimeError(f"mcts helper process {self.pid} ended (exit code {self.process.wait()})") from None
        return RootStats(reply["children"], reply["simulations"])

    def close(self) -> None:
        self._finalizer()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


# ---------------------------------------------------------------------------------------
# The helper process


def _board_for(message: dict[str, Any]) -> Board:
    board = Board(message["rules"])
    if message["root"]:
        board.setup(dict(message["root"]), to_move=Colour(message["root_to_move"]))
    elif message["root_to_move"] != int(board.rules.first_player):
        board.set_to_move(Colour(message["root_to_move"]))
    return board


def _follow(player: Any, board: Board | None, message: dict[str, Any]) -> Board:
    """The helper's board brought to the message's position, with ``notify`` for each
    move it had not seen (its tree follows), or rebuilt with ``reset`` otherwise."""
    rules = message["rules"]
    moves = [(Colour(c), Move.from_gtp(text, rules.size)) for c, text in message["moves"]]
    if (board is None or board.rules != rules or sorted(board.root_balls().items()) != message["root"]
            or int(board.root_to_move) != message["root_to_move"]
            or board.history != moves[: len(board.history)]):
        board = _board_for(message)
        player.reset(board)
        seen = 0
    else:
        seen = len(board.history)
    for colour, move in moves[seen:]:
        board.push(move, colour)
        player.notify(board, move, colour)
    return board


def serve(source: IO[bytes], sink: IO[bytes]) -> None:
    """The helper's loop: a set-up message, then search requests until end of input."""
    try:
        hello = pickle.load(source)
    except EOFError:
        return
    module_name, _, class_name = hello.get("player", DEFAULT_PLAYER).partition(":")
    player_class = getattr(importlib.import_module(module_name), class_name)
    player = player_class(random.Random(hello["seed"]), **hello["options"])
    board: Board | None = None
    while True:
        try:
            message = pickle.load(source)
        except EOFError:
            return
        board = _follow(player, board, message)
        seconds = message["seconds"]
        deadline = None if seconds is None else player.clock() + seconds
        root = player.search(board, Colour(message["colour"]), playouts=message["playouts"], deadline=deadline)
        children = {child.move.gtp(): (child.n, child.w) for child in root.children or []}  # type: ignore[union-attr]
        try:
            pickle.dump({"children": children, "simulations": player.last_simulations}, sink)
            sink.flush()
        except (BrokenPipeError, OSError):
            return


def main() -> None:
    """Entry point of ``python -m margo_gtp.players.parallel`` (started by :class:`Helper`)."""
    try:
        serve(sys.stdin.buffer, sys.stdout.buffer)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
