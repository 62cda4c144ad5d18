"""Which rules core runs: the native C extension or the pure-Python reference.

``MARGO_CORE=native|python`` selects at import; the default is ``native`` when the
extension was built (``pip install`` compiles ``_native.c`` when a C compiler is there,
see docs/native-core.md) and ``python`` otherwise. Both cores play the same MarGo: the
native one is :class:`~margo_gtp.engine.native.NativeCore`, the core a new ``Board``
holds (:attr:`Board.core_class <margo_gtp.engine.board.Board.core_class>`) while it is
selected; the pure-Python one is :class:`~margo_gtp.engine.python_core.PythonCore`.

>>> core_name() in ("native", "python")
True
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

from margo_gtp.engine import board as _board
from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.types import Colour

CORES = ("native", "python")


def _load_native() -> tuple[type | None, str | None]:
    """``(NativeCore, None)``, or ``(None, why not)`` when the extension is missing or broken."""
    if importlib.util.find_spec("margo_gtp.engine._native") is None:
        return None, "margo_gtp/engine/_native.c was not compiled (no C compiler or Python headers at install time)"
    try:
        from margo_gtp.engine.native import NativeCore
    except ImportError as error:
        return None, f"margo_gtp.engine._native does not import: {error}"
    return NativeCore, None


_NativeCore, _native_error = _load_native()

_warned = False


def native_available() -> bool:
    """True if the native extension was built and imports."""
    return _NativeCore is not None


def native_state(board: _board.Board) -> Any | None:
    """The C state (a ``_native.State``) of a board on the native core, else None: what the
    native search (:mod:`margo_gtp.players.native_search`) works on."""
    core = board._core
    if _NativeCore is None or not isinstance(core, _NativeCore):
        return None
    return core._state


def native_unavailable_reason() -> str | None:
    """Why the native core cannot run (the ImportError text), or None when it can."""
    return _native_error


def core_name() -> str:
    """``"native"`` or ``"python"``: the core new boards use."""
    return "native" if _board.Board.core_class is _NativeCore else "python"


def set_core(name: str) -> None:
    """Select the core for boards created from now on (boards already made keep theirs).

    Raises ValueError for a name other than ``native``/``python``, or ``native`` when the
    extension is not built.
    """
    if name not in CORES:
        raise ValueError(f"invalid core: {name!r} (allowed native, python)")
    if name == "native" and _NativeCore is None:
        raise ValueError(f"the native core is not built: {_native_error}")
    _board.Board.core_class = _NativeCore if name == "native" else PythonCore


def board_core(board: _board.Board) -> str:
    """The core ``board`` runs on (fixed when it was made): ``"native"`` or ``"python"``."""
    return "native" if _NativeCore is not None and isinstance(board._core, _NativeCore) else "python"


def board_on_core(board: _board.Board, name: str) -> _board.Board:
    """``board`` itself if it runs on core ``name``, else an equal board on that core: the
    same rules, root position, side to move there and moves since (replayed, so undo and
    repetition carry over). This lets one process pit the cores against each other
    (``mcts:core=python``). Raises ValueError as :func:`set_core` does."""
    if name not in CORES:
        raise ValueError(f"invalid core: {name!r} (allowed native, python)")
    if board_core(board) == name:
        return board
    if name == "native":
        if _NativeCore is None:
            raise ValueError(f"the native core is not built: {_native_error}")
        other = _NativeCore(board.rules)
    else:
        other = PythonCore(board.rules)
    white, black, to_move = board._core._root
    other._load(white, black)
    other._set_root(Colour(to_move))
    for colour, move in board.history:
        other.push(move, colour)
    return _board._board_holding(other)


def _select_from_environment() -> None:
    """Apply ``MARGO_CORE``; a bad or unbuildable choice falls back with one stderr line."""
    global _warned
    wanted = os.environ.get("MARGO_CORE", "").strip().lower()
    default = "native" if _NativeCore is not None else "python"
    if not wanted:
        set_core(default)
        return
    try:
        set_core(wanted)
    except ValueError as error:
        set_core(default)
        if not _warned:
            _warned = True
            print(f"margo-gtp: MARGO_CORE={wanted}: {error}; using the {default} core", file=sys.stderr)


def core_description() -> str:
    """One line for ``--version`` and benchmarks: ``"native"``, ``"python"``, or
    ``"python (native core not built: ...)"`` when the fallback is in use."""
    name = core_name()
    if name == "python" and _native_error is not None:
        return f"python (native core not built: {_native_error})"
    return name


_select_from_environment()
