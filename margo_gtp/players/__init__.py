"""Players (move generators) and the registry that builds them from a spec string.

Spec syntax: ``name[:key=value,key=value]``, e.g. ``random``, ``random:seed=3``,
``mcts:seconds=1,seed=7``. ``seed`` is understood by every player built here: a spec's
``seed`` wins over the ``seed`` argument of :func:`make_player`.

Built in: ``random`` (:class:`RandomPlayer`), ``heuristic`` (:mod:`.heuristic`), ``mcts``
(:mod:`.mcts`, its options read by :mod:`.spec`), ``net`` (:mod:`.net`, :mod:`.net_spec`)
``perfect`` (:mod:`.perfect`: the shipped proofs of small boards, docs/solving.md) and ``strongest`` (:mod:`.levels`: ``net`` where it can play, else ``mcts``; the default of
``margo-gtp``), each imported on first use. ``margo-gtp --list-players`` prints them with
their options (:mod:`.catalogue`). Specs are read by
:mod:`margo_gtp.options`, the project's one options reader (``1_0``, ``inf`` and a key
given twice are refused). Other modules add players with
:func:`register_player`; installed packages add them through the entry-point group
``margo_gtp.players`` (each entry point loads to a factory, looked up on first use of an
unknown name). A factory is ``factory(options: dict[str, str], seed: int | None) ->
Player`` and raises :class:`PlayerSpecError` for options it does not know.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from importlib import metadata

from margo_gtp.options import OptionError, PairError, read_integer, read_pairs, split_items
from margo_gtp.players.base import RESIGN, Budget, Player, Resign
from margo_gtp.players.random_player import RandomPlayer

__all__ = [
    "Budget",
    "ENTRY_POINT_GROUP",
    "Player",
    "PlayerFactory",
    "PlayerSpecError",
    "RESIGN",
    "RandomPlayer",
    "Resign",
    "available_players",
    "make_player",
    "parse_player_spec",
    "register_player",
]

ENTRY_POINT_GROUP = "margo_gtp.players"

PlayerFactory = Callable[[dict[str, str], "int | None"], Player]


class PlayerSpecError(ValueError):
    """Raised when a player spec names an unknown player or has a bad option"""


_REGISTRY: dict[str, PlayerFactory] = {}
_entry_points_loaded = False


def register_player(name: str, factory: PlayerFactory) -> None:
    """Make ``name`` buildable by :func:`make_player` (replaces an earlier registration)."""
    _REGISTRY[name] = factory


def parse_player_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``'mcts:seconds=1,seed=7'`` -> ``('mcts', {'seconds': '1', 'seed': '7'})``."""
    name, _, option_text = spec.partition(":")
    name = name.strip()
    if not name:
        raise PlayerSpecError(f"empty player name in spec {spec!r}")
    try:
        options = read_pairs(split_items(option_text, ","))
    except PairError as error:  # as margo-set_limit: a repeat is a mistake, not an override
        if error.key is None:
            raise PlayerSpecError(f"player option must be key=value: {error.item!r} in spec {spec!r}") from None
        raise PlayerSpecError(f"player option {error.key} given twice in spec {spec!r}") from None
    return name, options


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        _REGISTRY.setdefault(entry_point.name, entry_point.load())


def available_players() -> list[str]:
    """Names :func:`make_player` accepts (built in, registered and installed)."""
    _load_entry_points()
    return sorted(_REGISTRY)


def make_player(spec: str, seed: int | None = None) -> Player:
    """Build the player a spec describes; raises :class:`PlayerSpecError` quoting the spec."""
    name, options = parse_player_spec(spec)
    if name not in _REGISTRY:
        _load_entry_points()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise PlayerSpecError(f"unknown player {name!r} in spec {spec!r} (known: {', '.join(available_players())})")
    if "seed" in options:
        seed = parse_int_option(options.pop("seed"), "seed", spec)
    return factory(options, seed)


def parse_int_option(value: str, key: str, spec: str) -> int:
    """Helper for factories: an integer option (read by :mod:`margo_gtp.options`), or
    :class:`PlayerSpecError`."""
    try:
        return read_integer(value, key)
    except OptionError as error:
        raise PlayerSpecError(f"player option {error} in spec {spec!r}") from None


def _make_random(options: dict[str, str], seed: int | None) -> Player:
    if options:
        raise PlayerSpecError(f"unknown option(s) for player 'random': {', '.join(sorted(options))!s}")
    return RandomPlayer(random.Random(seed))


register_player("random", _make_random)


def _make_heuristic(options: dict[str, str], seed: int | None) -> Player:
    from margo_gtp.players.heuristic import make_heuristic

    return make_heuristic(options, seed)


def _make_mcts(options: dict[str, str], seed: int | None) -> Player:
    from margo_gtp.players.spec import make_mcts

    return make_mcts(options, seed)


register_player("heuristic", _make_heuristic)
register_player("mcts", _make_mcts)


def _make_net(options: dict[str, str], seed: int | None) -> Player:
    from margo_gtp.players.net_spec import make_net

    return make_net(options, seed)


register_player("net", _make_net)


def _make_strongest(options: dict[str, str], seed: int | None) -> Player:
    from margo_gtp.players.levels import make_strongest

    return make_strongest(options, seed)


register_player("strongest", _make_strongest)


def _make_perfect(options: dict[str, str], seed: int | None) -> Player:
    from margo_gtp.players.perfect import make_perfect

    return make_perfect(options, seed)


register_player("perfect", _make_perfect)
