"""The strongest player (``margo-gtp``'s default) and the strength levels (``--level N``).

``strongest`` is one named spec for "the best this installation can play": the ``net``
player (its shipped networks, 1 s a move or the controller's clock) where ONNX Runtime
is installed and a network ships for the board size, and ``mcts`` (its defaults, every
core) otherwise -- without the ``net`` extra, and, through the net player's own
fallback, on sizes with no network. Why ``net``: it beat ``mcts:seconds=1,threads=1`` at
1 s a move by SPRT on 9x9 (+346 Elo) and 7x7 (+209), docs/network.md. Without the extra it
says nothing on stderr (a missing optional package is no fault); ``margo-gtp
--list-players`` names what ``strongest`` plays here.

A *level* is a named spec on one scale, 1 (a beginner) to :data:`MAX_LEVEL` (the
strongest). Weakening is human-like: fewer simulations, and a move drawn by the search's
own visit counts (``temperature``, :func:`~margo_gtp.players.searcher.choose_by_visits`),
never a random blunder. The levels below the top are ``mcts`` with a playout budget and
one thread, so a level is the same strength on every machine and with or without the
``net`` extra. Each level's Elo is measured by ``scripts/levels`` (matches between
neighbours on 7x7) and kept in ``players/data/levels.json``, which the web board reads.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

__all__ = ["LEVELS", "LEVELS_FILE", "LevelError", "MAX_LEVEL", "MIN_LEVEL", "STRONGEST", "level_labels",
           "level_spec", "make_strongest", "read_level", "strongest_here"]

STRONGEST = "strongest"
#: level -> the player spec it plays (docs/strength.md, "Levels", has the measured Elo).
LEVELS: dict[int, str] = {
    1: "mcts:playouts=8,temperature=1,threads=1",
    2: "mcts:playouts=25,temperature=0.7,threads=1",
    3: "mcts:playouts=80,temperature=0.5,threads=1",
    4: "mcts:playouts=250,temperature=0.35,threads=1",
    5: "mcts:playouts=800,temperature=0.25,threads=1",
    6: "mcts:playouts=2500,temperature=0.15,threads=1",
    7: "mcts:seconds=1,threads=1",
    8: STRONGEST,
}
MIN_LEVEL, MAX_LEVEL = min(LEVELS), max(LEVELS)
LEVELS_FILE = Path(__file__).resolve().parent / "data" / "levels.json"


class LevelError(ValueError):
    """A level that is not one of :data:`LEVELS`; the message names the value and the range"""


def read_level(text: str) -> int:
    """``'3'`` -> 3; :class:`LevelError` for anything but a whole number in the range."""
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit() and int(stripped) in LEVELS:
        return int(stripped)
    raise LevelError(f"level must be a whole number from {MIN_LEVEL} to {MAX_LEVEL}: {text!r}")


def level_spec(level: int) -> str:
    return LEVELS[level]


def _net_runtime_missing() -> str | None:
    """Why ``net`` cannot play here (None: it can): looked up, not imported, so a
    ``margo-gtp`` without the extra starts as fast as before."""
    for module in ("numpy", "onnxruntime"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    return None


def strongest_here() -> tuple[str, str]:
    """What ``strongest`` plays in this installation, and why: ``('net', ...)`` or
    ``('mcts', reason)``."""
    from margo_gtp.players.net_spec import shipped_weights

    missing = _net_runtime_missing()
    if missing is not None:
        return "mcts", f"the net player needs the net extra ({missing}: pip install 'margo-gtp[net]')"
    sizes = [path.stem.removeprefix("net-") for path in shipped_weights()]
    if not sizes:
        return "mcts", "no network ships with this installation"
    return "net", f"net on {', '.join(sizes)} (mcts on other sizes)"


def make_strongest(options: dict[str, str], seed: int | None):
    """Registry factory of ``strongest`` (no options but ``seed``)."""
    from margo_gtp.players import PlayerSpecError
    from margo_gtp.players.spec import make_mcts

    if options:
        raise PlayerSpecError(f"unknown option(s) for player 'strongest': {', '.join(sorted(options))}")
    kind, _ = strongest_here()
    if kind == "mcts":
        return make_mcts({}, seed)
    from margo_gtp.players.net import NetError, NetPlayer
    from margo_gtp.players.net_spec import shipped_weights

    try:  # the net's own fallback on other sizes is the mcts of --player mcts
        return NetPlayer(shipped_weights(), random.Random(seed), fallback=lambda: make_mcts({}, seed))
    except NetError as error:
        raise PlayerSpecError(f"player 'strongest': {error}") from None


def level_labels(path: Path = LEVELS_FILE) -> dict[int, str]:
    """``{3: 'Level 3 — about 1,200', ...}`` from the measured Elo of ``path``
    (``scripts/levels`` writes it); a level not measured yet is ``'Level 3'``. A missing
    or unreadable file leaves every level unmeasured: labels are a help, never a reason
    for the board not to start."""
    try:
        elo = json.loads(path.read_text(encoding="utf-8")).get("elo", {})
    except (OSError, ValueError, AttributeError):
        elo = {}
    labels = {}
    for level in LEVELS:
        value = elo.get(str(level)) if isinstance(elo, dict) else None
        measured = isinstance(value, (int, float)) and not isinstance(value, bool)
        labels[level] = f"Level {level} — about {round(value, -2):,.0f}" if measured else f"Level {level}"
    return labels
