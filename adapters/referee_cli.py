"""``margo-match`` and ``margo-tournament``: the referee's command lines.

Option parsing, the live progress bar and the summary tables only; the playing and the
bookkeeping are in :mod:`margo_adapters.referee` and :mod:`margo_adapters.tournament`.
Exit codes: 0 finished, 130 stopped by Ctrl-C (finished games are kept; the same
command resumes), 2 bad options or an output directory that holds another match.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from margo_gtp.cli import version_callback
from margo_gtp.engine import Rules, RulesError
from margo_gtp.engine.rules import merge_option_flags

from margo_adapters.referee import (
    SUMMARY_FILE,
    EngineSpec,
    EngineStartError,
    MatchConfig,
    MatchMismatch,
    TimeControl,
    default_names,
    run_match,
    write_atomically,
)
from margo_adapters.stats import elo_interval, summarize_match
from margo_adapters.tournament import (
    TournamentConfig,
    TournamentConfigError,
    run_tournament,
    tournament_report,
)

EXIT_INTERRUPTED = 130
EXIT_USAGE = 2

_MATCH_HELP = """Play a match between two GTP engines that speak the 3-D vertex, judging every move.

ENGINE_A and ENGINE_B are shell-quoted command lines. Engine A holds White in odd-numbered games. Every finished game goes to OUT/results.jsonl and OUT/game-NNNN.sgf at once; run the same command again to resume.

Example:

  margo-match "margo-gtp --player mcts:seconds=0.1" "margo-gtp --player heuristic" --games 4 --size 5 --out runs/m1
"""


def _err_console() -> Console:
    return Console(stderr=True)


def match(
    engine_a: Annotated[str, typer.Argument(help="command line of engine A")],
    engine_b: Annotated[str, typer.Argument(help="command line of engine B")],
    games: Annotated[int, typer.Option(min=1, help="number of games")] = 10,
    size: Annotated[Optional[int], typer.Option(help="board size N (default 9; same as --rule size=N)", show_default=False)] = None,
    rule: Annotated[Optional[list[str]], typer.Option("--rule", help="rule option K=V (rules.md section 9), repeatable")] = None,
    komi: Annotated[Optional[float], typer.Option(help="komi added to White (same as --rule komi=K)")] = None,
    move_timeout: Annotated[float, typer.Option(help="seconds allowed per genmove; 0 = no limit")] = 60.0,
    command_timeout: Annotated[float, typer.Option(help="seconds allowed for other commands (and engine start)")] = 30.0,
    time_control: Annotated[Optional[str], typer.Option(help="'MAIN' or 'MAIN BYO_YOMI_TIME BYO_YOMI_STONES' in seconds, sent as time_settings")] = None,
    max_moves: Annotated[int, typer.Option(help="adjudicate by ball count after this many moves; 0 = never")] = 0,
    parallel: Annotated[int, typer.Option(min=1, help="games played at once, in worker processes")] = 1,
    out: Annotated[Path, typer.Option(help="output directory (results.jsonl, game-NNNN.sgf, summary.json)")] = Path("margo-match"),
    name_a: Annotated[Optional[str], typer.Option(help="display name of engine A")] = None,
    name_b: Annotated[Optional[str], typer.Option(help="display name of engine B")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="print the summary as JSON on stdout")] = False,
    wire_log: Annotated[bool, typer.Option(help="log every GTP line to OUT/wire-K.log")] = False,
    progress: Annotated[bool, typer.Option(help="show the live progress bar (stderr)")] = True,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True, callback=version_callback("margo-match"))] = False,
) -> None:
    err = _err_console()
    try:
        config = match_config_from_options(
            engine_a, engine_b, games=games, size=size, rules=rule or [], komi=komi, move_timeout=move_timeout,
            command_timeout=command_timeout, time_control=time_control, max_moves=max_moves, parallel=parallel,
            name_a=name_a, name_b=name_b, wire_log=wire_log,
        )
    except ValueError as error:
        err.print(f"margo-match: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USAGE)
    names = {"A": config.engine_a.name, "B": config.engine_b.name}
    bar = _ScoreProgress(err, enabled=progress)
    try:
        with bar:
            run = run_match(config, out, on_game=bar.game_done, on_start=bar.start)
    except (MatchMismatch, EngineStartError) as error:
        err.print(f"margo-match: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USAGE)
    summary = summarize_match(run.records, names)
    summary["interrupted"] = run.interrupted
    summary["out"] = str(out)
    summary["run"] = {"games_played": run.games_played, "seconds": round(run.seconds, 3), "games_per_second": run.games_per_second, "parallel": parallel}
    write_atomically(out / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
    if json_output:
        print(json.dumps(summary, indent=2))
    else:
        print_match_summary(Console(), summary)
    if run.interrupted:
        err.print(f"interrupted: {summary['games']} of {config.games} games finished and kept in {out}; run the same command to resume", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED)


def match_config_from_options(
    engine_a: str,
    engine_b: str,
    *,
    games: int,
    size: int | None = None,
    rules: list[str] = (),  # type: ignore[assignment]
    komi: float | None = None,
    move_timeout: float = 60.0,
    command_timeout: float = 30.0,
    time_control: str | None = None,
    max_moves: int = 0,
    parallel: int = 1,
    name_a: str | None = None,
    name_b: str | None = None,
    wire_log: bool = False,
) -> MatchConfig:
    """The :class:`MatchConfig` the ``margo-match`` options describe; ValueError quoting a bad one."""
    options: dict[str, str] = {}
    for pair in rules:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--rule must be K=V: {pair!r}")
        options[key.strip()] = value.strip()
    try:
        # --size/--komi and --rule size=/komi= must agree (rather than one silently winning)
        options = merge_option_flags(options, {"size": ("--size", size), "komi": ("--komi", komi)})
        rule_set = Rules().with_options(options)
    except RulesError as error:
        raise ValueError(str(error)) from None
    default_a, default_b = default_names(engine_a, engine_b)
    return MatchConfig(
        engine_a=EngineSpec("A", name_a or default_a, engine_a),
        engine_b=EngineSpec("B", name_b or default_b, engine_b),
        games=games,
        rules=rule_set,
        move_timeout=move_timeout or None,
        command_timeout=command_timeout,
        time_control=TimeControl.parse(time_control) if time_control else None,
        max_moves=max_moves or None,
        parallel=parallel,
        wire_log=wire_log,
    )


class _ScoreProgress:
    """A rich progress bar whose description is the running score."""

    def __init__(self, console: Console, enabled: bool, title: str = "") -> None:
        self.enabled = enabled
        self.title = title
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
            console=console, disable=not enabled,
        )
        self.task: Any = None
        self.score = {"A": 0, "B": 0, None: 0}

    def __enter__(self) -> "_ScoreProgress":
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)  # type: ignore[arg-type]

    def start(self, finished: list[dict[str, Any]], pending: list[int]) -> None:
        for record in finished:
            self.score[record.get("winner")] += 1
        total = len(finished) + len(pending)
        self.task = self.progress.add_task(self._description(), total=total, completed=len(finished))

    def game_done(self, record: dict[str, Any]) -> None:
        self.score[record.get("winner")] += 1
        self.progress.update(self.task, advance=1, description=self._description())

    def _description(self) -> str:
        prefix = f"{self.title} " if self.title else ""
        return f"{prefix}A {self.score['A']}  B {self.score['B']}  draws {self.score[None]}"


def print_match_summary(console: Console, summary: dict[str, Any]) -> None:
    table = Table(title=f"{summary['games']} games")
    for column in ("engine", "W", "D", "L", "as White W-D-L", "as Black W-D-L", "s/move", "forfeits"):
        table.add_column(column, justify="left" if column in ("engine", "forfeits") else "right")
    for label, stats in summary["engines"].items():
        white, black = stats["as_white"], stats["as_black"]
        forfeits = ", ".join(f"{reason} {count}" for reason, count in sorted(stats["forfeits"].items())) or "-"
        per_move = stats["seconds_per_move"]
        table.add_row(
            label, str(stats["wins"]), str(stats["draws"]), str(stats["losses"]),
            f"{white['wins']}-{white['draws']}-{white['losses']}", f"{black['wins']}-{black['draws']}-{black['losses']}",
            "-" if per_move is None else f"{per_move:.3f}", forfeits,
        )
    console.print(table)
    for label, stats in summary["engines"].items():
        console.print(f"{label} = {stats['name']}", markup=False, highlight=False, soft_wrap=True)
    score = summary["score_a"]
    if summary["games"]:
        low, high = score["wilson95"]
        console.print(f"Score of A: {score['score']:g}/{summary['games']} = {100 * score['fraction']:.1f}% (Wilson 95%: {100 * low:.1f}% to {100 * high:.1f}%)", markup=False, highlight=False, soft_wrap=True)
        a = summary["engines"]["A"]
        elo = elo_interval(a["wins"], a["draws"], a["losses"])  # floats keep the sign of infinity
        console.print(f"Elo A - B: {_elo_text(elo.elo)} (95%: {_elo_text(elo.low)} to {_elo_text(elo.high)})", markup=False, highlight=False, soft_wrap=True)
        console.print(f"Mean game length: {summary['mean_game_length']:.1f} moves", markup=False, highlight=False, soft_wrap=True)
        console.print("Endings: " + ", ".join(f"{reason} {count}" for reason, count in summary["endings"].items()), markup=False, highlight=False, soft_wrap=True)


def _elo_text(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _signed(value: float | None, infinite: str = "inf") -> str:
    """An Elo value for a table; ``None`` is an infinite value (JSON has no infinity), shown
    as ``infinite`` - the caller knows its sign."""
    return infinite if value is None else f"{value:+.0f}"


def match_main() -> None:
    app = typer.Typer(add_completion=False)
    app.command(help=_MATCH_HELP)(match)
    app()


# ---------------------------------------------------------------------------------------


_TOURNAMENT_HELP = """Play a round robin or gauntlet from a TOML configuration; print a crosstable and maximum-likelihood Elo ratings.

Each pairing is a match stored under the configured out directory; run the same command again to resume. See docs/referee.md for the configuration keys.
"""


def tournament(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="tournament configuration")],
    json_output: Annotated[bool, typer.Option("--json", help="print the report as JSON on stdout")] = False,
    progress: Annotated[bool, typer.Option(help="show the live progress bar (stderr)")] = True,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True, callback=version_callback("margo-tournament"))] = False,
) -> None:
    err = _err_console()
    try:
        config = TournamentConfig.load(config_path)
    except (OSError, TournamentConfigError) as error:
        err.print(f"margo-tournament: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USAGE)
    bars: list[_ScoreProgress] = []

    def on_pairing(number: int, a: Any, b: Any, match_config: MatchConfig) -> tuple[Any, Any]:
        if bars:
            bars[-1].__exit__(None, None, None)
        bar = _ScoreProgress(err, enabled=progress, title=f"[{number}] A={a.name} B={b.name}:")
        bar.__enter__()
        bars.append(bar)
        return bar.start, bar.game_done

    try:
        run = run_tournament(config, on_pairing)
    except (MatchMismatch, EngineStartError) as error:
        err.print(f"margo-tournament: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USAGE)
    finally:
        if bars:
            bars[-1].__exit__(None, None, None)
    names = [engine.name for engine in config.engines]
    report = tournament_report(names, run.records)
    report["interrupted"] = run.interrupted
    write_atomically(config.out / SUMMARY_FILE, json.dumps(report, indent=2) + "\n")
    if json_output:
        print(json.dumps(report, indent=2))
    else:
        print_tournament_report(Console(), names, report)
    if run.interrupted:
        err.print("interrupted: finished games are kept; run the same command to resume", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED)


def print_tournament_report(console: Console, names: list[str], report: dict[str, Any]) -> None:
    cross = Table(title=f"Crosstable ({report['games']} games; cell = score of the row engine)")
    cross.add_column("engine")
    for name in names:
        cross.add_column(name, justify="right")
    cross.add_column("total", justify="right")
    for name in names:
        cells, total, games = [], 0.0, 0
        for other in names:
            cell = report["crosstable"][name].get(other)
            if other == name or cell is None:
                cells.append("-" if other == name else "")
                continue
            cells.append(f"{cell['score']:g}/{cell['games']}")
            total += cell["score"]
            games += cell["games"]
        cross.add_row(name, *cells, f"{total:g}/{games}")
    console.print(cross)
    ratings = Table(title="Maximum-likelihood Elo (mean 0)" + (", 1 virtual draw per engine" if report["prior_draws"] else ""))
    for column in ("engine", "Elo", "95% interval", "games", "score"):
        ratings.add_column(column, justify="left" if column == "engine" else "right")
    for rating in report["ratings"]:
        ratings.add_row(
            rating["name"], _signed(rating["elo"]), f"{_signed(rating['low'], '-inf')} to {_signed(rating['high'], '+inf')}",
            str(rating["games"]), f"{rating['score']:g}",
        )
    console.print(ratings)


def tournament_main() -> None:
    app = typer.Typer(add_completion=False)
    app.command(help=_TOURNAMENT_HELP)(tournament)
    app()
