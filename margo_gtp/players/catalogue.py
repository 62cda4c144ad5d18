"""What ``margo-gtp --list-players`` prints: every player name, what it is, and its spec
options with their defaults and ranges; then the levels of ``--level``.

The option tables are read from the players' own: ``mcts``'s keys from
:data:`.spec.OPTIONS` (each default from :class:`.search_config.SearchConfig`, each range
from :data:`.spec.READER_WORDS`, the words of the reader that reads it), ``net``'s from :data:`.net_spec.KNOWN`. A player
installed by a package (entry point) is listed by name; its package documents its options.
"""

from __future__ import annotations

import dataclasses

__all__ = ["catalogue", "mcts_options", "net_options"]

SUMMARIES = {
    "strongest": "the default, the strongest player here",
    "net": "PUCT search over the shipped policy/value network (docs/network.md)",
    "mcts": "UCT+RAVE tree search with heuristic priors and playouts (docs/players.md)",
    "heuristic": "one-ply heuristic: captures, freedoms, shape",
    "random": "a uniformly random legal move",
    "perfect": "perfect play from the shipped proofs of small boards (2x2, 3x3 and 4x4; docs/solving.md)",
}

#: How each displayed default reads where the field's own value would mislead.
_MCTS_DEFAULTS = {"seconds": "1", "playouts": "none", "threads": "auto (1 with a seed)",
                  "max_nodes": "auto", "core": "the board's", "pattern_weights": "shipped", "ladder": "0"}


def mcts_options() -> list[tuple[str, str, str]]:
    """``(key, default, range)`` of every ``mcts`` spec option, in :data:`.spec.OPTIONS` order."""
    from margo_gtp.players import spec
    from margo_gtp.players.search_config import SearchConfig

    defaults = {field.name: field.default for field in dataclasses.fields(SearchConfig)}
    rows = []
    for key, (field, reader) in spec.OPTIONS.items():
        default = _MCTS_DEFAULTS.get(key)
        if default is None:
            value = defaults[field]
            default = ("on" if value else "off") if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else str(value)
        rows.append((key, default, spec.READER_WORDS[reader]))
    return rows


def net_options() -> list[tuple[str, str, str]]:
    """``(key, default, range)`` of every ``net`` spec option, in :data:`.net_spec.KNOWN` order."""
    from margo_gtp.players import net_spec

    table = {
        "weights": ("the shipped networks", "FILE or FILE+FILE (one per board size)"),
        "seconds": ("1", "a finite number >= 0"),
        "playouts": ("none", "a whole number >= 1"),
        "c_puct": ("1.5", "a finite number >= 0"),
        "fpu": ("0.2", "between 0 and 1"),
        "batch": ("8", "1..256"),
        "threads": ("1", f"1..{net_spec.MAX_THREADS}"),
        "temperature": ("0", "a finite number >= 0"),
        "max_nodes": ("auto", "1..2147483647 (the tree's cap; auto: an eighth of the memory)"),
    }
    return [(key, *table[key]) for key in net_spec.KNOWN]


def catalogue() -> str:
    """The text of ``margo-gtp --list-players``."""
    from margo_gtp.players import available_players
    from margo_gtp.players.levels import LEVELS, strongest_here

    options = {"mcts": mcts_options, "net": net_options}
    lines = ["Players of --player NAME[:KEY=VALUE,...] (every player also takes seed=N):", ""]
    for name in ["strongest", *(name for name in available_players() if name != "strongest")]:
        summary = SUMMARIES.get(name, "installed by a package (its documentation lists the options)")
        if name == "strongest":
            summary += f": {strongest_here()[1]}; 1 s a move, or the controller's clock"
        lines.append(f"{name}: {summary}")
        rows = options[name]() if name in options else []
        width = max((len(f"{key}={default}") for key, default, _ in rows), default=0)
        for key, default, allowed in rows:
            lines.append(f"  {f'{key}={default}':<{width}}  {allowed}")
        if name in SUMMARIES and not rows:
            lines.append("  (no options)")
        lines.append("")
    lines.append("Levels of --level N (over GTP: margo-level N), weakest first; docs/strength.md has their Elo:")
    lines.extend(f"  {level}  {spec}" for level, spec in LEVELS.items())
    return "\n".join(lines) + "\n"
