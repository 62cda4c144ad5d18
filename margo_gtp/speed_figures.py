"""Benchmarks of the installed package (run by ``scripts/bench``; ``--json`` for machines).

Every figure is the median of ``--repeats`` (>= 5) repetitions on this process, one core.
Random playouts: uniform random legal moves from the empty board until the side to move
has no legal move (a cap of 2000 moves is counted and reported if ever hit).
Mid-game positions: fixed seeded random games stopped at the first ply >= 150 that has
balls on level 3 and at least one zombie, so legal-move generation is measured where the
capture logic has real work.

Sections can be skipped (``--only core``) so the slow ones (GTP latency, MCTS) do not hold
up a quick look at the rules core. ``--only web`` (not in the default set: it needs the web
extra and Chromium) runs :mod:`margo_gtp.web.web_timings` in a child process - margo_gtp.web sits
above this module in the house, so it is run, not imported.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import typer

from margo_gtp.engine import Board, Rules, core
from margo_gtp.engine.positions import midgame_positions

PLAYOUT_CAP = 2000


def _median_rate(run: Callable[[], tuple[int, int]], repeats: int, min_seconds: float) -> tuple[float, float, int, int]:
    """Repeat ``run`` (returning (units, moves)) for ~min_seconds each time; median rates."""
    unit_rates, move_rates, total_units, total_moves = [], [], 0, 0
    for _ in range(repeats):
        units = moves = 0
        start = time.perf_counter()
        while True:
            u, m = run()
            units += u
            moves += m
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        unit_rates.append(units / elapsed)
        move_rates.append(moves / elapsed)
        total_units += units
        total_moves += moves
    return statistics.median(unit_rates), statistics.median(move_rates), total_units, total_moves


def playout_figures(size: int, repeats: int, min_seconds: float, seed: int = 1) -> dict:
    rng = random.Random(seed)
    capped = 0

    def one() -> tuple[int, int]:
        nonlocal capped
        board = Board(Rules(size=size))
        moves = board.random_playout(rng, max_moves=PLAYOUT_CAP)
        if moves >= PLAYOUT_CAP:
            capped += 1
        return 1, moves

    playouts_per_s, moves_per_s, playouts, moves = _median_rate(one, repeats, min_seconds)
    return {
        f"random_playouts_per_s_{size}x{size}": round(playouts_per_s, 2),
        f"random_moves_per_s_{size}x{size}": round(moves_per_s),
        f"mean_playout_length_{size}x{size}": round(moves / playouts, 1),
        f"playouts_capped_{size}x{size}": capped,
    }


def _median_us(fn: Callable[[], object], repeats: int, inner: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner * 1e6)
    return statistics.median(samples)


def core_figures(repeats: int, min_seconds: float) -> dict:
    """Figures of the selected core (``core``), plus the 9x9 playout rate of the pure-Python
    core under ``_python`` keys when the native one is selected (both in the same run)."""
    out: dict = {"core": core.core_name()}
    for size in (9, 7):
        out.update(playout_figures(size, repeats, min_seconds))
    if out["core"] == "native":
        core.set_core("python")
        try:
            python_figures = playout_figures(9, repeats, min_seconds)
        finally:
            core.set_core("native")
        out.update({f"{key}_python": value for key, value in python_figures.items()})
        out["random_moves_speedup_9x9"] = round(out["random_moves_per_s_9x9"] / out["random_moves_per_s_9x9_python"], 1)
    positions = midgame_positions()
    per_position = [_median_us(board.legal_moves, repeats, 50) for board in positions]
    out["legal_moves_us_midgame_9x9"] = round(statistics.median(per_position), 1)
    out["legal_moves_us_midgame_9x9_max"] = round(max(per_position), 1)
    out["midgame_positions"] = len(positions)
    out["midgame_legal_move_counts"] = [len(board.legal_moves()) for board in positions]

    def push_pop_cycle(board: Board, moves: list) -> Callable[[], None]:
        def run() -> None:
            for move in moves:
                board.push(move)
                board.pop()
        return run

    samples = []
    for board in positions:
        moves = board.legal_moves()
        samples.append(_median_us(push_pop_cycle(board, moves), repeats, 5) / max(1, len(moves)))
    out["push_pop_us_9x9"] = round(statistics.median(samples), 2)
    return out


def gtp_figures(commands: int) -> dict:
    from margo_gtp.protocol.latency import measure_roundtrips  # lazy: optional section

    exe = Path(sys.executable).with_name("margo-gtp")
    figures = measure_roundtrips([str(exe), "--player", "random"], commands)  # the wire, not a player
    out = {}
    for command, stats in figures["commands"].items():
        for stat in ("p50_ms", "p95_ms"):
            out[f"gtp_{command.replace('-', '_')}_{stat}"] = round(stats[stat], 3)
    return out


def mcts_figures(seconds: float) -> dict:
    from margo_gtp.players import mcts as mcts_module  # lazy: optional section

    return mcts_module.benchmark(seconds=seconds)


def net_figures(seconds: float) -> dict:
    from margo_gtp.players.net import NetError, benchmark  # lazy: optional section (the net extra)

    try:
        return benchmark(seconds=seconds)
    except NetError as error:  # no ONNX Runtime: the section says which extra to install
        raise ImportError(str(error)) from None


def _git_sha() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, timeout=5).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def web_figures() -> dict:
    """margo-web's figures (see margo_gtp/web/web_timings.py), from a child process."""
    done = subprocess.run([sys.executable, "-m", "margo_gtp.web.web_timings", "--json"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise ImportError(f"margo_gtp.web.web_timings failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def _load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (the machine may be shared), None if unknown."""
    try:
        return [round(load, 2) for load in os.getloadavg()]
    except (AttributeError, OSError):
        return None


app = typer.Typer(add_completion=False, help=__doc__)
SECTIONS = ("core", "gtp", "mcts", "net", "web")


def _positive(value: float) -> float:
    if not 0 < value < math.inf:  # also refuses nan
        raise typer.BadParameter(f"must be a positive, finite number of seconds: {value!r}")
    return value


def _known_sections(values: list[str]) -> list[str]:
    unknown = [value for value in values if value not in SECTIONS]
    if unknown:  # a typo must not run nothing and exit 0
        raise typer.BadParameter(f"unknown section {unknown[0]!r} (choose from {', '.join(SECTIONS)})")
    return values


@app.command()
def main(
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
    repeats: int = typer.Option(5, min=5, help="Repetitions per figure (the median is reported)."),
    seconds: float = typer.Option(2.0, callback=_positive, help="Minimum seconds per playout repetition."),
    only: list[str] = typer.Option([], callback=_known_sections,
                                   help=f"Sections to run: {', '.join(SECTIONS)} (default: core, gtp, mcts, net)."),
    gtp_commands: int = typer.Option(1000, min=1, help="Round trips per GTP command for the latency figures."),
) -> None:
    """Measure the rules core, GTP latency and MCTS speed; e.g. ``scripts/bench --json``."""
    from rich.console import Console

    sections = set(only) or {"core", "gtp", "mcts", "net"}
    result: dict = {"python": platform.python_version(), "implementation": platform.python_implementation(),
                    "git_sha": _git_sha(), "core": core.core_name(), "load_average": _load_average()}
    if core.native_unavailable_reason() is not None:
        result["native_unavailable"] = core.native_unavailable_reason()
    progress = Console(stderr=True)  # stdout stays clean for --json
    measures = (("core", "rules core: playouts, legal moves, push/pop", lambda: core_figures(repeats, seconds)),
                ("gtp", "GTP round trips over a pipe", lambda: gtp_figures(gtp_commands)),
                ("mcts", "MCTS simulations and memory", lambda: mcts_figures(seconds)),
                ("net", "network evaluations and net search", lambda: net_figures(seconds)),
                ("web", "margo-web click-to-move latency and 9x9 draw time", web_figures))
    for name, title, measure in measures:
        if name not in sections:
            continue
        with progress.status(f"measuring {title}..."):
            try:
                result.update(measure())
            except ImportError as error:  # section not built: say so instead of failing
                result[f"{name}_unavailable"] = str(error)
        progress.log(f"{title}: done")
    if json_output:
        print(json.dumps(result))
        return
    from rich.table import Table

    table = Table(title="margo-gtp benchmark (medians)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in result.items():
        table.add_row(key, f"{value:,}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value))
    Console().print(table)


def run() -> None:
    from margo_gtp.console import run_app

    run_app(app, "bench")


if __name__ == "__main__":
    run()
