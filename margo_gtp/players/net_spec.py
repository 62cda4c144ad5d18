"""The ``net`` player's spec options: ``net:weights=FILE[+FILE],seconds=1,playouts=N,c_puct=1.5,fpu=0.2,batch=8,threads=1,temperature=0``.

Without ``weights`` the player loads the networks the package ships
(``players/data/net-NxN.onnx``), one per board size; on a size without one it plays
``mcts`` and says so once on stderr (:class:`~margo_gtp.players.net.NetPlayer`).
"""

from __future__ import annotations

import random
from pathlib import Path

from margo_gtp.options import OptionError, read_decimal, read_integer

__all__ = ["SHIPPED_DIR", "make_net", "shipped_weights"]

MAX_THREADS = 64  # search threads of one net search (each runs its own network calls)
SHIPPED_DIR = Path(__file__).resolve().parent / "data"
KNOWN = ("weights", "seconds", "playouts", "c_puct", "fpu", "batch", "threads", "temperature", "max_nodes")


def shipped_weights() -> list[Path]:
    return sorted(SHIPPED_DIR.glob("net-*x*.onnx"))


def make_net(options: dict[str, str], seed: int | None):
    from margo_gtp.players import PlayerSpecError
    from margo_gtp.players.net import NetError, NetPlayer

    unknown = sorted(set(options) - set(KNOWN))
    if unknown:
        raise PlayerSpecError(f"unknown option for player 'net': {unknown[0]!r} (known: {', '.join(KNOWN)}, seed)")
    keywords: dict[str, object] = {}
    try:
        if "seconds" in options:
            keywords["seconds"] = read_decimal(options["seconds"], "seconds", minimum=0, bounds="a finite number >= 0")
        if "playouts" in options:
            keywords["playouts"] = read_integer(options["playouts"], "playouts", minimum=1, expected="a whole number >= 1", bounds="a whole number >= 1")
        if "c_puct" in options:
            keywords["c_puct"] = read_decimal(options["c_puct"], "c_puct", minimum=0)
        if "fpu" in options:
            keywords["fpu_reduction"] = read_decimal(options["fpu"], "fpu", minimum=0, maximum=1)
        if "threads" in options:
            keywords["threads"] = read_integer(options["threads"], "threads", minimum=1, maximum=MAX_THREADS)
        if "temperature" in options:
            keywords["temperature"] = read_decimal(options["temperature"], "temperature", minimum=0, bounds="a finite number >= 0")
        if "batch" in options:
            keywords["batch"] = read_integer(options["batch"], "batch", minimum=1, maximum=256)
        if "max_nodes" in options:
            keywords["max_nodes"] = read_integer(options["max_nodes"], "max_nodes", minimum=1, maximum=2**31 - 1)
    except OptionError as error:
        raise PlayerSpecError(f"player option {error}") from None
    weights = options["weights"].split("+") if "weights" in options else shipped_weights()
    try:
        return NetPlayer(weights, random.Random(seed), **keywords)
    except NetError as error:
        raise PlayerSpecError(f"player 'net': {error}") from None
