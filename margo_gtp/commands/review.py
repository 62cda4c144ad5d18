"""``margo-review``: review every move of a MarGo game (docs/review.md).

Reads a native MarGo SGF, analyses every position of its main line
(:func:`margo_gtp.analysis.game_analysis.analyse_game`, or any MarGo GTP engine with
``margo-analyze_snapshot`` given by ``--engine``), and writes in ``--out``:
``NAME.review.jsonl`` (one judgement per move, :mod:`margo_gtp.analysis.game_review`),
``NAME.reviewed.sgf`` (Sabaki's ``SBKV``, comments, marks and the best lines),
``NAME.reviewed-go.sgf`` (the same review on the projected Go board, ``GM[1]``, which
Sabaki opens as it is) and ``NAME.winrate.png`` (the win-rate graph, mistakes marked; matplotlib, the ``review``
extra). Ends with a table per player. Bad input: one line on stderr, exit 2.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from margo_gtp import files, textfile
from margo_gtp.console import pointed_to_players, run_app, version_callback
from margo_gtp.machine import available_cores

#: Simulations per position by default: a 200-move 9x9 game's 201 positions in about a
#: minute on two cores (docs/review.md, "Budget").
DEFAULT_REVIEW_VISITS = 1600
PROGRAM = "margo-review"
MAX_VISITS = 200_000  # as margo-analysis's maxVisits
PRIOR_VIRTUAL_VISITS = 10  # virtual visits in each margo-analyze candidate (docs/players.md, Analysis)

app = typer.Typer(add_completion=False)


class ReviewFailed(Exception):
    """A one-line reason to stop with exit code 2."""


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (files only), or ReviewFailed naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise ReviewFailed("the review extra is not installed (pip install 'margo-gtp[review]')") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def _engine_analyses(command: str, record: Any, visits: int | None, seconds: float | None,
                     parallel: int = 1) -> Iterator[dict[str, Any]]:
    """Turns 0 .. n analysed by the GTP engine ``command``, in turn order: ``parallel``
    engine processes, each position to whichever is free (threads wait on them)."""
    import collections
    import queue

    from margo_gtp import workers
    from margo_gtp.client import EngineError, SimpleEngine
    from margo_gtp.sgf import positions

    engines: list[Any] = []
    try:
        for _ in range(parallel):
            engines.append(SimpleEngine.popen(command, timeout=60))
    except (EngineError, OSError, ValueError) as error:
        for engine in engines:
            engine.quit()
        raise ReviewFailed(f"cannot start engine {command!r}: {str(error).splitlines()[0]}") from None
    free: queue.Queue = queue.Queue()
    for engine in engines:
        free.put(engine)

    def one(position: tuple[int, Any]) -> dict[str, Any]:
        engine = free.get()
        try:
            return _engine_turn(engine, *position, visits, seconds)
        finally:
            free.put(engine)

    try:  # the positions come from one pass over the record; a few ahead of the answers
        with workers.executor(parallel, threads=True, thread_name="margo-review") as pool:
            pending: collections.deque = collections.deque()
            for position in positions(record):
                pending.append(pool.submit(one, position))
                if len(pending) >= 2 * parallel:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
    finally:
        for engine in engines:
            engine.quit()


def _engine_turn(engine: Any, turn: int, board: Any, visits: int | None, seconds: float | None) -> dict[str, Any]:
    """One position's analysis dict from a GTP engine (the exact result when the game is over)."""
    from margo_gtp.client import EngineError, Limit
    from margo_gtp.analysis.game_analysis import analyse_position

    if board.is_game_over() or not board.legal_moves(board.to_move):
        return {"turnNumber": turn, **analyse_position(board, 1)}  # the exact result, no search
    try:
        result = engine.analyse(board, Limit(seconds=seconds, playouts=visits))
    except EngineError as error:
        raise ReviewFailed(str(error).splitlines()[0]) from None
    # margo-analyze's visits and win rates include the heuristic prior's virtual visits
    # (gtp.md, players.md: PRIOR_VISITS at the prior's rate); taken out, as the built-in
    # analysis does, so that a little-searched move does not read as its prior.
    infos = []
    for item in result.candidates:
        own = item.visits - PRIOR_VIRTUAL_VISITS
        if own <= 0:
            continue
        winrate = min(1.0, max(0.0, (item.winrate * item.visits - item.prior * PRIOR_VIRTUAL_VISITS) / own))
        infos.append({"move": item.move.gtp(), "visits": own, "winrate": round(winrate, 6), "prior": item.prior,
                      "order": len(infos), "pv": [move.gtp() for move in item.pv]})
    # GTP gives no root value: the candidates' visit-weighted mean stands for it
    # (as the built-in search's root mean, the value of the position, not of its best move)
    visits_total = sum(i["visits"] for i in infos)
    value = sum(i["winrate"] * i["visits"] for i in infos) / visits_total if visits_total else 0.5
    return {"turnNumber": turn, "moveInfos": infos,
            "rootInfo": {"currentPlayer": board.to_move.letter, "visits": visits_total, "winrate": round(value, 6)}}


def _write_png(path: Path, name: str, entries: list[dict[str, Any]]) -> None:
    """White's win rate after each move, mistakes and blunders marked (blunders with their numbers)."""
    pyplot = _pyplot()
    numbers = [0] + [entry["move_number"] for entry in entries]
    white = [None] + [entry["winrate_after"] if entry["colour"] == "W" else 1 - entry["winrate_after"]
                      for entry in entries]
    first = entries[0]
    white[0] = first["winrate_before"] if first["colour"] == "W" else 1 - first["winrate_before"]
    figure, axes = pyplot.subplots(figsize=(10, 4), dpi=100)
    axes.fill_between(numbers, white, 0.5, color="#dddddd")
    axes.plot(numbers, white, color="#333333", linewidth=1.2, label="White's win rate")
    axes.axhline(0.5, color="#999999", linewidth=0.8, linestyle="--")
    for kind, colour in (("blunder", "#d62728"), ("mistake", "#ff7f0e")):
        marked = [(entry["move_number"], white[entry["move_number"]]) for entry in entries if entry["judgement"] == kind]
        if marked:
            axes.scatter(*zip(*marked), color=colour, zorder=3, s=28,
                         label=f"{kind}s ({len(marked)})")
            for number, rate in marked if kind == "blunder" else ():  # numbers for blunders only: legible
                axes.annotate(str(number), (number, rate), textcoords="offset points", xytext=(0, 6),
                              ha="center", fontsize=7, color=colour)
    axes.set_xlim(0, max(numbers))
    axes.set_ylim(0, 1)
    axes.set_xlabel("move")
    axes.set_ylabel("White's win rate")
    axes.set_title(f"{name}: win rate over the game")
    axes.legend(loc="lower left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, format="png", metadata={"Software": None})  # the path may be a temporary name
    pyplot.close(figure)


def _print_summary(table_rows: dict[str, dict[str, Any]], record: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Review", box=None)
    for header in ("player", "moves", "mistakes", "blunders", "mean loss", "agreement"):
        table.add_column(header, justify="left" if header == "player" else "right")
    names = {"B": record.black_name, "W": record.white_name}
    for colour, row in table_rows.items():
        label = f"{colour} {names[colour]}" if names[colour] else colour
        table.add_row(label, str(row["moves"]), str(row["mistakes"]), str(row["blunders"]),
                      f"{100 * row['mean_loss']:.1f}%", f"{100 * row['agreement']:.0f}%")
    Console(width=80, highlight=False).print(table)


def review(game: Path, out: Path | None, visits: int | None, seconds: float | None, engine: str | None,
           parallel: int, seed: int, ownership: bool = True, player: str | None = None) -> None:
    from margo_gtp.analysis.game_review import (
        ReviewError, read_game, review_entries, review_game, reviewed_go_sgf, reviewed_sgf, summary,
    )
    from margo_gtp.sgf import MAX_PROJECTED_SIZE, SgfError, read_file, replay

    _pyplot()  # before any work: a missing extra is said at once
    try:
        text = read_file(game)
    except (OSError, SgfError) as error:
        raise ReviewFailed(f"cannot read {str(game)!r}: {getattr(error, 'strerror', None) or error}") from None
    try:
        record, variations = read_game(text)
        replay(record)
    except (ReviewError, SgfError) as error:
        raise ReviewFailed(f"{game}: {error}") from None
    folder = out if out is not None else game.parent
    if out is not None and not folder.exists() and not folder.is_symlink():
        try:  # as margo-match --out: a new folder is made, its parents too
            folder.mkdir(parents=True)
        except OSError as error:
            raise ReviewFailed(f"cannot create --out {str(folder)!r}: {error.strerror or error}") from None
    if not folder.is_dir():
        raise ReviewFailed(f"--out {str(folder)!r} is not a directory")
    if not os.access(folder, os.W_OK):
        raise ReviewFailed(f"--out {str(folder)!r} is not writable")
    name = game.name[:-4] if game.name.lower().endswith(".sgf") else game.name
    kinds = ["review.jsonl", "reviewed.sgf", "reviewed-go.sgf", "winrate.png"]
    if record.size > MAX_PROJECTED_SIZE:
        kinds.remove("reviewed-go.sgf")
    paths = {kind: folder / f"{name}.{kind}" for kind in kinds}
    for path in paths.values():
        # each is renamed over its path (files.write_atomically, which refuses a pipe or a
        # device there): refused now, not after minutes of review
        try:
            textfile.regular_target(path)
        except OSError as error:
            raise ReviewFailed(f"cannot write {str(path)!r}: {error.strerror or error}") from None
    if variations:
        sys.stderr.write(f"{PROGRAM}: {game} has variations: reviewing the main line only\n")
    if engine is not None:
        analyses = _engine_analyses(engine, record, visits, seconds, parallel)
    else:
        analyses = None
        from margo_gtp.analysis.game_analysis import mcts_instead

        reason = mcts_instead(player, record.size)
        if reason is not None:  # margo-gtp's default says the same when it plays there
            sys.stderr.write(f"{PROGRAM}: {reason}: reviewing with mcts\n")
    try:
        if analyses is None:
            stream = review_game(record, visits, seed=seed, ownership=ownership, parallel=parallel, seconds=seconds,
                                 player=player)
        else:
            stream = review_entries(record, analyses)
        entries = _collect(stream, len(record.moves))
    except ReviewError as error:
        raise ReviewFailed(f"{game}: {error}") from None
    if record.size > MAX_PROJECTED_SIZE:
        sys.stderr.write(f"{PROGRAM}: no {name}.reviewed-go.sgf: a {record.size}x{record.size} board has no "
                         f"Go board (at most {MAX_PROJECTED_SIZE}x{MAX_PROJECTED_SIZE})\n")
    try:
        # Each file replaces its old version whole or not at all (temporary file, fsync,
        # rename): a full disk must not leave a cut review where a complete one was.
        files.write_atomically(paths["review.jsonl"], "".join(json.dumps(entry) + "\n" for entry in entries))
        files.write_atomically(paths["reviewed.sgf"], reviewed_sgf(record, entries))
        if "reviewed-go.sgf" in paths:
            files.write_atomically(paths["reviewed-go.sgf"], reviewed_go_sgf(record, entries))
        files.replace_atomically(paths["winrate.png"], lambda temporary: _write_png(temporary, name, entries))
    except OSError as error:
        raise ReviewFailed(f"cannot write to {str(folder)!r}: {error.strerror or error}") from None
    _print_summary(summary(entries), record)
    for path in paths.values():
        print(f"wrote {path}")


def _collect(entries: Iterator[dict[str, Any]], total: int) -> list[dict[str, Any]]:
    """The entries, with a progress bar on a terminal (stderr)."""
    from rich.console import Console

    from margo_gtp.progress import progress_bar

    done: list[dict[str, Any]] = []
    with progress_bar("reviewing", elapsed=False, console=Console(stderr=True)) as progress:
        task = progress.add_task("review", total=total)
        for entry in entries:
            done.append(entry)
            progress.advance(task)
    return done


@app.command()
def main_command(
    game: Annotated[Path, typer.Argument(metavar="GAME.sgf", help="a native MarGo SGF record")],
    out: Annotated[Optional[Path], typer.Option(help="folder for the review files, made when missing (default: the game's)")] = None,
    visits: Annotated[Optional[str], typer.Option(metavar="N", help=f"simulations per position, 1..{MAX_VISITS} (default {DEFAULT_REVIEW_VISITS})", show_default=False)] = None,
    seconds: Annotated[Optional[str], typer.Option(metavar="S", help="seconds per position instead of --visits, 0.01..600 (not repeatable)", show_default=False)] = None,
    engine: Annotated[Optional[str], typer.Option(help="command of a MarGo GTP engine with margo-analyze_snapshot (default: the built-in search)")] = None,
    player: Annotated[Optional[str], typer.Option("--player", metavar="SPEC", show_default=False, help="the built-in search's player: a spec with a search, e.g. strongest, net or mcts:playouts=800 (margo-gtp --list-players; default: strongest, the net where it plays, else mcts; mcts: a fresh mcts seeded per position)")] = None,
    parallel: Annotated[Optional[str], typer.Option("--parallel", "--threads", metavar="N", help="positions searched at once, 1..256 (processes; default: every core)", show_default=False)] = None,
    seed: Annotated[str, typer.Option(metavar="N", help="seed of the searches, >= 0 (same seed and --visits: same review)")] = "0",
    ownership: Annotated[bool, typer.Option("--ownership/--no-ownership", help="ownership maps and score leads in the JSONL (counting them costs the search nothing measurable)")] = True,
    version: Annotated[bool, typer.Option("--version", callback=version_callback(PROGRAM), is_eager=True, help="print the version and exit")] = False,
) -> int:
    """Review every move of a MarGo game: NAME.review.jsonl, NAME.reviewed.sgf, NAME.reviewed-go.sgf, NAME.winrate.png."""
    from margo_gtp.options import OptionError, read_decimal, read_integer

    try:  # the project's one strict number reader (no 1_0, nan or inf)
        visit_count = None if visits is None else read_integer(visits, "--visits", minimum=1, maximum=MAX_VISITS)
        second_count = None if seconds is None else read_decimal(seconds, "--seconds", minimum=0.01, maximum=600)
        processes = None if parallel is None else read_integer(parallel, "--parallel", minimum=1, maximum=256)
        seed_number = read_integer(seed, "--seed", minimum=0, maximum=2**63 - 1)
    except OptionError as error:
        raise typer.BadParameter(str(error)) from None
    if visits is not None and seconds is not None:
        raise typer.BadParameter("give --visits or --seconds, not both", param_hint="--seconds")
    if engine is not None:
        try:
            shlex.split(engine)
        except ValueError as error:
            raise typer.BadParameter(f"cannot split {engine!r}: {error}", param_hint="--engine") from None
    if player is not None and engine is not None:
        raise typer.BadParameter("give --engine or --player, not both", param_hint="--player")
    if engine is None:
        from margo_gtp.analysis.game_analysis import DEFAULT_PLAYER, searching_player
        from margo_gtp.players import PlayerSpecError

        player = DEFAULT_PLAYER if player is None else player
        try:
            searching_player(player)  # here, once: a bad spec or weights file is one line before any search
        except PlayerSpecError as error:
            raise pointed_to_players(typer.BadParameter(str(error), param_hint="--player")) from None
    budget = None if second_count is not None else (visit_count or DEFAULT_REVIEW_VISITS)
    try:
        review(game, out, budget, second_count, engine, processes or available_cores(), seed_number, ownership,
               player)
    except ReviewFailed as error:
        sys.stderr.write(f"{PROGRAM}: {error}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


def main() -> None:
    """Console script ``margo-review``."""
    run_app(app, PROGRAM)
