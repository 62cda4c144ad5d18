"""The ``mcts`` player's spec options: ``mcts:seconds=1,playouts=5000,c=0.4,...`` read into
a :class:`~margo_gtp.players.search_config.SearchConfig`.

:data:`OPTIONS` is the one table of them: the spec key, the ``SearchConfig`` field it sets
(also the ``MctsPlayer`` keyword of that name) and how its value is read. Every value is read by :mod:`margo_gtp.options` (ASCII digits
only, no ``1_0``, no ``inf``/``nan``, switches ``on``/``off``/``true``/``false``), and every
refusal is one line, ``player option KEY must be EXPECTED: 'VALUE'``, raised as
:class:`~margo_gtp.players.PlayerSpecError`. ``seed`` is read by the registry
(:func:`margo_gtp.players.make_player`), since every player takes it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from margo_gtp.engine.core import CORES, native_available
from margo_gtp.machine import available_cores
from margo_gtp.options import OptionError, read_choice, read_decimal, read_integer, read_switch
from margo_gtp.players import native_search
from margo_gtp.players.evaluate import EVALUATORS
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.playout_policy import POLICIES
from margo_gtp.players.search_config import MAX_LADDER_DEPTH, MAX_THREADS, MIN_MAX_NODES, SearchConfig

__all__ = ["OPTIONS", "READER_WORDS", "make_mcts"]

Reader = Callable[[str, str], object]


def _seconds(value: str, key: str) -> float:
    """A finite number of seconds (or a weight) >= 0."""
    return read_decimal(value, key, minimum=0, bounds="a finite number >= 0")


def _count(value: str, key: str) -> int:
    """A whole number >= 0 (visits, moves)."""
    return read_integer(value, key, minimum=0, expected="a whole number >= 0", bounds="a whole number >= 0")


def _positive_count(value: str, key: str) -> int:
    """A whole number >= 1 (playouts: zero would choose a move by no search)."""
    return read_integer(value, key, minimum=1, expected="a whole number >= 1", bounds="a whole number >= 1")


def _depth(value: str, key: str) -> int:
    """A count where -1 means "none" or "to the end" (``playout_moves``, ``prior_depth``)."""
    return read_integer(value, key, minimum=-1, bounds="-1 or a whole number >= 0")


def _positive(value: str, key: str) -> float:
    """A finite number > 0 (a divisor: prior_temp scales the heuristic's scores)."""
    return read_decimal(value, key, minimum=0, above=True)


def _probability(value: str, key: str) -> float:
    return read_decimal(value, key, minimum=0, maximum=1)


def _threads(value: str, key: str) -> int:
    """Search threads: ``auto`` (the cores this process may run on) or 1..MAX_THREADS."""
    if value.strip().lower() == "auto":
        return min(MAX_THREADS, available_cores())
    bounds = f"auto or a whole number from 1 to {MAX_THREADS}"
    return read_integer(value, key, minimum=1, maximum=MAX_THREADS, expected=bounds, bounds=bounds)


#: Units of a ``max_nodes`` size (binary: a MB is 2**20 bytes, as ``free -m`` and the pool count).
SIZE_UNITS = {"MB": 1 << 20, "GB": 1 << 30}
#: The largest ``max_nodes`` size: 2**31 - 1 nodes of the largest node the C tree may have.
MAX_NODES_SIZE_MB = 128 * 1024


def _max_nodes(value: str, key: str) -> int:
    """The C tree's pool cap: a number of nodes (``max_nodes=200000``), or a size in memory
    (``max_nodes=256MB``, ``max_nodes=2GB``: a whole number and a unit of ``SIZE_UNITS``,
    binary), turned into nodes of ``_search.NODE_BYTES`` bytes. One key for both, not a
    second ``max_memory`` key, so there is one cap and never a question of which of two
    wins. Either way room for the root's children on any board (``MIN_MAX_NODES``) and
    node indices of 31 bits; a size from 1MB (about 16,000 nodes) to 128GB (the 2**31 - 1
    nodes a pool can index)."""
    unit = next((name for name in SIZE_UNITS if value.upper().endswith(name)), None)
    if unit is None:
        bounds = f"a whole number from {MIN_MAX_NODES} to {2**31 - 1}"
        return read_integer(value, key, minimum=MIN_MAX_NODES, maximum=2**31 - 1, expected=bounds, bounds=bounds)
    bounds = f"a size from 1MB to {MAX_NODES_SIZE_MB}MB (or {MAX_NODES_SIZE_MB >> 10}GB)"
    try:
        if not value.endswith(unit):  # units exactly as written here: "mb" is not "MB"
            raise OptionError(key, value, bounds)
        amount = read_integer(value[: -len(unit)], key, minimum=1,
                              maximum=MAX_NODES_SIZE_MB * SIZE_UNITS["MB"] // SIZE_UNITS[unit])
    except OptionError:
        raise OptionError(key, value, bounds) from None
    nodes = amount * SIZE_UNITS[unit] // native_search.node_bytes()
    return max(MIN_MAX_NODES, min(2**31 - 1, nodes))


def _ladder(value: str, key: str) -> int:
    return read_integer(value, key, minimum=0, maximum=MAX_LADDER_DEPTH)


def _evaluator(value: str, key: str) -> str:
    return read_choice(value, key, tuple(EVALUATORS))


def _policy(value: str, key: str) -> str:
    return read_choice(value, key, tuple(POLICIES))


def _weights_path(value: str, key: str) -> str:
    """A pattern weights file (read when the player is built: see make_mcts)."""
    if not value.strip():
        raise OptionError(key, value, "a file name")
    return value


def _core(value: str, key: str) -> str:
    core = read_choice(value, key, tuple(CORES))
    if core == "native" and not native_available():
        from margo_gtp.players import PlayerSpecError

        raise PlayerSpecError(f"player option {key}=native: the native core is not built")
    return core


#: Spec options of ``mcts`` -> (SearchConfig field, reader).
OPTIONS: dict[str, tuple[str, Reader]] = {
    "seconds": ("seconds", _seconds),
    "playouts": ("playouts", _positive_count),
    "c": ("uct_c", _seconds),
    "rave": ("rave_k", _seconds),
    "playout_moves": ("playout_moves", _depth),
    "eval": ("evaluator", _evaluator),
    "policy": ("playout_policy", _policy),
    "tactics": ("heavy_tactics", _probability),
    "ladder": ("ladder_depth", _ladder),
    "expand": ("expand_visits", _count),
    "prior_depth": ("prior_depth", _depth),
    "prior_visits": ("prior_visits", _count),
    "prior_temp": ("prior_temp", _positive),
    "patterns": ("patterns", read_switch),
    "pattern_mix": ("pattern_mix", _probability),
    "pattern_weights": ("pattern_weights", _weights_path),
    "resign": ("resign", _probability),
    "resign_visits": ("resign_min_visits", _count),
    "resign_moves": ("resign_moves", _count),
    "reuse": ("reuse", read_switch),
    "early_stop": ("early_stop", read_switch),
    "threads": ("threads", _threads),
    "max_nodes": ("max_nodes", _max_nodes),
    "core": ("core", _core),
    "temperature": ("temperature", _seconds),
}


#: Each reader's values in words, for ``margo-gtp --list-players`` (:mod:`.catalogue`).
READER_WORDS: dict[Reader, str] = {
    _seconds: "a finite number >= 0",
    _positive_count: "a whole number >= 1",
    _count: "a whole number >= 0",
    _depth: "-1 or a whole number >= 0",
    _positive: "a finite number > 0",
    _probability: "between 0 and 1",
    _threads: f"auto or 1..{MAX_THREADS}",
    _max_nodes: "a number of nodes, or a size such as 256MB or 2GB",
    _ladder: f"0..{MAX_LADDER_DEPTH}",
    _evaluator: " or ".join(EVALUATORS),
    _policy: " or ".join(POLICIES),
    _weights_path: "a weights file",
    _core: " or ".join(CORES),
    read_switch: "on or off",
}


def read_mcts_options(options: dict[str, str]) -> dict[str, object]:
    """``{spec key: text}`` -> ``{SearchConfig field: value}``; PlayerSpecError for an
    unknown key or a bad value."""
    from margo_gtp.players import PlayerSpecError

    keywords: dict[str, object] = {}
    for key, value in options.items():
        if key not in OPTIONS:
            raise PlayerSpecError(f"unknown option for player 'mcts': {key!r} (known: {', '.join(OPTIONS)}, seed)")
        name, read = OPTIONS[key]
        try:
            keywords[name] = read(value, key)
        except OptionError as error:
            raise PlayerSpecError(f"player option {error}") from None
    return keywords


def make_mcts(options: dict[str, str], seed: int | None) -> MctsPlayer:
    """Registry factory: ``mcts:seconds=1,playouts=5000,seed=7,c=0.4,rave=300,...``.

    Without ``threads`` a seeded player searches with one thread (so a seed still gives
    the same game) and an unseeded one with every core it may run on (``threads=auto``)."""
    keywords = read_mcts_options(options)
    if "threads" not in keywords and seed is None:
        keywords["threads"] = min(MAX_THREADS, available_cores())
    from margo_gtp.players import PlayerSpecError
    from margo_gtp.players.patterns import PatternWeightsError

    try:
        config = SearchConfig(**keywords)  # type: ignore[arg-type]
    except ValueError as error:  # the readers above refuse first: this is a reader out of step with the config
        raise PlayerSpecError(f"player option {error}") from None
    try:
        return MctsPlayer(random.Random(seed), config=config)
    except PatternWeightsError as error:  # patterns=on with a weights file it cannot use: refused
        raise PlayerSpecError(f"player option patterns=on: {error}") from None
