"""``margo-match`` and ``margo-tournament``: the referee's command lines.

Option parsing, the per-game lines, the live progress bar and the summary tables only; the
playing and the bookkeeping are in :mod:`margo_gtp.match.referee` and
:mod:`margo_gtp.match.tournament`, the statistics in :mod:`margo_gtp.match.stats` and
:mod:`margo_gtp.match.sprt`, the Ray backend in :mod:`margo_gtp.match.cluster` (imported
only with ``--cluster``). Exit codes: 0 finished (or an SPRT decided), 130 stopped by
Ctrl-C (finished games are kept; the same command resumes), 2 bad options, an output
directory that holds another match (or is in use by another run: :mod:`margo_gtp.runlock`),
an engine that cannot start, or an unusable cluster. Upper bounds on the options are in
:mod:`margo_gtp.match.limits`, the ``--cluster`` syntax in :mod:`margo_gtp.match.cluster_options`.

Output (cutechess-cli style, on stderr so that ``--json`` keeps stdout clean): the output
folder first, then per finished game ``Finished game N (WHITE vs BLACK): RESULT {reason}``
and the running ``Score of A vs B: W - L - D  [score] games`` (with the LLR under
``--sprt``); ``--quiet`` drops those lines.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from margo_gtp.console import version_callback
from margo_gtp.client import program_missing
from margo_gtp.engine import Rules, RulesError
from margo_gtp.engine.rules import merge_option_flags, parse_rule_pairs
from margo_gtp.files import LOG_CAP_BYTES, write_atomically
from margo_gtp.game.faults import EngineStartError
from margo_gtp.progress import progress_bar

from margo_gtp.match.cluster_options import check_cluster_address, parse_runtime_env
from margo_gtp.match.limits import check_bounds
from margo_gtp.match.match_runners import Backend
from margo_gtp.match.openings import OpeningsError, load_openings
from margo_gtp.match.referee import run_match
from margo_gtp.match.results_log import MATCH_FILE, RESULTS_FILE, SUMMARY_FILE, MatchMismatch, load_records
from margo_gtp.match.match_config import (
    Adjudication,
    EngineSpec,
    MatchConfig,
    TimeControl,
    check_engine_command,
    check_limits,
    default_names,
)
from margo_gtp.runlock import lock_folder, release_all
from margo_gtp.match.sprt import SprtSpec
from margo_gtp.match.stats import elo_interval, is_game_record, match_statistics, model_counts, summarize_match
from margo_gtp.match.tournament import (
    TOURNAMENT_FILE,
    TournamentConfig,
    TournamentConfigError,
    prepare_tournament_directory,
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
    engine_a: Annotated[str, typer.Argument(metavar="ENGINE_A", help="command line of engine A")],
    engine_b: Annotated[str, typer.Argument(metavar="ENGINE_B", help="command line of engine B")],
    games: Annotated[int, typer.Option(min=1, help="number of games (the most, with --sprt)")] = 10,
    size: Annotated[Optional[int], typer.Option(help="board size N (default 9; same as --rule size=N)", show_default=False)] = None,
    rule: Annotated[Optional[list[str]], typer.Option("--rule", help="rule option K=V (rules.md section 9), repeatable")] = None,
    komi: Annotated[Optional[float], typer.Option(help="komi added to White (same as --rule komi=K)")] = None,
    move_timeout: Annotated[float, typer.Option(help="seconds allowed per genmove; 0 = no limit")] = 60.0,
    command_timeout: Annotated[float, typer.Option(help="seconds allowed for other commands (and engine start)")] = 30.0,
    time_control: Annotated[Optional[str], typer.Option(help="'MAIN', 'MAIN BYO_YOMI_TIME BYO_YOMI_STONES' or Fischer 'MAIN+INCREMENT', in seconds, sent as time_settings")] = None,
    max_moves: Annotated[int, typer.Option(help="adjudicate by the rules' scoring after this many engine moves; 0 = never")] = 0,
    adjudicate: Annotated[Optional[str], typer.Option(help="'margin=M moves=N': end a game when one side leads by M points for N moves in a row")] = None,
    openings: Annotated[Optional[Path], typer.Option(help="opening book: MarGo SGF collection or one move list a line; each opening is played twice, colours reversed")] = None,
    sprt: Annotated[Optional[str], typer.Option(help="'elo0=0 elo1=5 alpha=0.05 beta=0.05': stop as soon as the SPRT decides")] = None,
    parallel: Annotated[Optional[int], typer.Option(min=1, help="games played at once (worker processes; with --cluster, Ray actors; default 1, or the cluster's CPUs)")] = None,
    cluster: Annotated[Optional[str], typer.Option(help="play on Ray: 'local' (a private instance), 'auto', HOST:6379 or ray://HOST:10001 (docs/cluster.md)")] = None,
    runtime_env: Annotated[Optional[str], typer.Option(help="with --cluster: Ray runtime_env as JSON or @FILE (ship the engines to the workers)")] = None,
    out: Annotated[Path, typer.Option(help="output directory (results.jsonl, game-NNNN.sgf, summary.json)")] = Path("margo-match"),
    name_a: Annotated[Optional[str], typer.Option(help="display name of engine A")] = None,
    name_b: Annotated[Optional[str], typer.Option(help="display name of engine B")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="print the summary as JSON on stdout")] = False,
    wire_log: Annotated[bool, typer.Option(help="log every GTP line and the engines' stderr to OUT/wire-K.log "
                                           f"(at most {LOG_CAP_BYTES} bytes a file)")] = False,
    progress: Annotated[bool, typer.Option(help="show the live progress bar (stderr)")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no line per finished game")] = False,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True, callback=version_callback("margo-match"))] = False,
) -> None:
    err = _err_console()
    try:
        check_not_empty({"--time-control": time_control, "--adjudicate": adjudicate, "--sprt": sprt,
                         "--runtime-env": runtime_env, "--name-a": name_a, "--name-b": name_b})
        with BookProgress(err, openings, bar=progress) as book_progress:
            config = match_config_from_options(
                engine_a, engine_b, games=games, size=size, rules=rule or [], komi=komi, move_timeout=move_timeout,
                command_timeout=command_timeout, time_control=time_control, max_moves=max_moves, parallel=parallel or 1,
                name_a=name_a, name_b=name_b, wire_log=wire_log, openings=openings, adjudicate=adjudicate,
                on_book_progress=book_progress,
            )
        check_bounds(games=games, move_timeout=move_timeout, command_timeout=command_timeout, parallel=parallel,
                     on_cluster=cluster is not None, spelled=lambda key: "--" + key.replace("_", "-"))
        sprt_spec = SprtSpec.parse(sprt) if sprt is not None else None
        check_output_directory(out, "--out")
        if cluster is not None and wire_log:
            raise ValueError("--wire-log is not available with --cluster: the engines run on other machines")
        environment = check_cluster_options(cluster, runtime_env)
        if name_a is not None and name_a == name_b:
            raise ValueError(f"--name-a and --name-b must differ (the tables tell the engines apart by name): {name_a!r}")
        backend = cluster_backend(cluster, parallel, environment, err) if cluster is not None else None
    except ValueError as error:
        _fail(err, "margo-match", error, EXIT_USAGE)
    try:  # held until this process exits: one referee writes a folder at a time
        lock = lock_folder(out, "--out")
        check_run_folder(out, "--out", foreign={TOURNAMENT_FILE: "a margo-tournament folder"})
    except (ValueError, OSError) as error:
        _fail(err, "margo-match", error, EXIT_USAGE)
    reporter = MatchReporter(err, config, sprt_spec, progress=progress, quiet=quiet)
    _say(err, f"margo-match: writing to {out}{os.sep} (results.jsonl, game-NNNN.sgf, summary.json)")
    try:
        with reporter:
            run = run_match(
                config, out, on_game=reporter.game_done, on_start=reporter.start,
                stop_when=reporter.decided if sprt_spec else None, backend=backend,
            )
    except (MatchMismatch, EngineStartError, OSError) as error:
        _fail(err, "margo-match", error, EXIT_USAGE)
    except RuntimeError as error:  # the cluster failed (ClusterError) or a worker did
        _fail(err, "margo-match", error, EXIT_USAGE)
    summary = match_summary(config, run.records, sprt_spec)
    summary["interrupted"] = run.interrupted
    summary["out"] = str(out)
    summary["run"] = {
        "games_played": run.games_played, "seconds": round(run.seconds, 3), "games_per_second": run.games_per_second,
        "parallel": getattr(backend, "slots_used", None) or parallel or 1, "cluster": cluster,
    }
    write_atomically(out / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
    if json_output:
        print(json.dumps(summary, indent=2))
    else:
        print_match_summary(Console(), summary)
    lock.release()
    if run.interrupted:
        _say(err, f"interrupted: {summary['games']} of {config.games} games finished and kept in {out}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)


def _say(console: Console, text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _fail(console: Console, program: str, error: BaseException, code: int) -> None:
    """One line (an engine's start-up failure adds its stderr lines) and the exit code;
    never a traceback. The output folder's lock, if taken, is released."""
    release_all()
    if isinstance(error, OSError):
        text = f"{error.filename}: {error.strerror}" if error.filename else (error.strerror or str(error))
    else:
        text = str(error)
    _say(console, f"{program}: {text}")
    raise typer.Exit(code)


def match_summary(config: MatchConfig, records: list[dict[str, Any]], sprt_spec: SprtSpec | None) -> dict[str, Any]:
    """summary.json: per-engine tables, the paired statistics and, with an SPRT, its state."""
    names = {"A": config.engine_a.name, "B": config.engine_b.name}
    summary = summarize_match(records, names)
    paired = bool(config.openings)
    summary["statistics"] = match_statistics(records, paired)
    if sprt_spec is not None:
        summary["sprt"] = sprt_spec.status(model_counts(records, paired))
    return summary


def check_output_directory(path: Path, what: str) -> None:
    """ValueError when ``path`` cannot be a directory: it, or a folder above it, is a file."""
    for place in [path, *path.parents]:
        if place.exists() or place.is_symlink():
            if not place.is_dir():
                detail = "is a file" if place == path else f"lies under {place}, which is a file"
                raise ValueError(f"{what} {path} {detail}, not a directory")
            return


def check_not_empty(values: dict[str, str | None]) -> None:
    """ValueError for an option given an empty value. Every option is turned off (or left
    at its default) by leaving it out; ``--sprt ''`` ran the default test while
    ``--time-control ''`` meant none, so an empty value now means neither."""
    for option, value in values.items():
        if value is not None and not value.strip():
            raise ValueError(f"{option} is empty: give it a value, or leave {option} out")


def check_run_folder(directory: Path, option: str, foreign: dict[str, str]) -> None:
    """ValueError, before any game is played, when ``directory`` holds another tool's
    output (``foreign``: file name -> what it marks; margo-match and margo-tournament
    would overwrite each other's summary.json) or when a file the run writes there is a
    directory or anything but a regular file (found only after all games otherwise)."""
    for name, what in foreign.items():
        if (directory / name).exists():
            raise ValueError(f"{option} {directory} is {what} (it holds {name}); use another {option}")
    written = [directory / name for name in (SUMMARY_FILE, RESULTS_FILE, MATCH_FILE)]
    written += [*directory.glob("wire-*.log"), *directory.glob("live/game-*.jsonl")]  # opened for writing: a FIFO would block
    for path in written:
        if (path.exists() or path.is_symlink()) and not path.is_file():
            kind = "a directory" if path.is_dir() else "not a regular file"
            raise ValueError(f"{path} is {kind}; the run writes a file there: move it away or use another {option}")
    for record in load_records(directory):
        if not is_game_record(record):
            raise ValueError(f"{directory / RESULTS_FILE}: game {record['game']} is not a record the referee wrote "
                             f"(a field is missing or wrong); delete its line to play it again")


def check_cluster_options(cluster: str | None, runtime_env: str | None) -> dict[str, Any] | None:
    """The parsed ``--runtime-env`` after checking ``--cluster``'s syntax, both before Ray is
    imported (margo-match and margo-tournament); ValueError naming a bad value, or
    ``--runtime-env`` without ``--cluster``."""
    if runtime_env is not None and cluster is None:
        raise ValueError("--runtime-env needs --cluster: it says what Ray ships to the cluster's workers")
    if cluster is None:
        return None
    check_cluster_address(cluster)
    return parse_runtime_env(runtime_env)


def cluster_backend(address: str, parallel: int | None, environment: dict[str, Any] | None, err: Console) -> Backend:
    """The Ray backend for ``--cluster``; imports Ray (and only here)."""
    try:
        from margo_gtp.match import cluster
    except ImportError as error:
        raise ValueError(f"--cluster needs Ray: pip install 'margo-gtp[cluster]' ({error})") from None

    def replayed(game: int) -> None:
        _say(err, f"game {game}: its Ray worker was lost; playing it again")

    return cluster.RayBackend(address, slots=parallel, runtime_env=environment, on_replay=replayed)


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
    openings: Path | None = None,
    adjudicate: str | None = None,
    on_book_progress: Callable[[int, int], None] | None = None,
) -> MatchConfig:
    """The :class:`MatchConfig` the ``margo-match`` options describe; ValueError quoting a bad one."""
    check_limits(move_timeout, command_timeout, max_moves, lambda key: "--" + key.replace("_", "-"))
    check_engine_command(engine_a, "ENGINE_A")
    check_engine_command(engine_b, "ENGINE_B")
    try:
        # --size/--komi and --rule size=/komi= must agree (rather than one silently winning)
        options = merge_option_flags(parse_rule_pairs(rules), {"size": ("--size", size), "komi": ("--komi", komi)})
        rule_set = Rules().with_options(options)
    except RulesError as error:
        raise ValueError(str(error)) from None
    default_a, default_b = default_names(engine_a, engine_b)
    try:
        book = load_openings(openings, rule_set, on_book_progress) if openings is not None else ()
    except OpeningsError as error:
        raise ValueError(f"--openings: {error}") from None
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
        openings=book,
        adjudication=Adjudication.parse(adjudicate) if adjudicate is not None else None,
    )


class BookProgress:
    """Shows how far the check of a large opening book has come (a 9 MB book takes seconds,
    minutes on a loaded machine, and printed nothing): a transient bar on stderr, or one
    line without the bar. Books under :attr:`LARGE_BYTES` are checked silently."""

    LARGE_BYTES = 1024 * 1024

    def __init__(self, console: Console, book: Path | None, *, bar: bool) -> None:
        self.console = console
        self.book = book
        self.bar = bar
        self.progress: Progress | None = None
        self.task: Any = None

    def __enter__(self) -> "BookProgress":
        return self

    def __call__(self, done: int, total: int) -> None:
        if total < self.LARGE_BYTES or (done >= total and self.progress is None):
            return  # small, or a large book whose check is already over: nothing to show
        if self.progress is None:
            if not self.bar:
                _say(self.console, f"margo-match: checking the opening book {self.book} ({total / 1e6:.1f} MB)")
            self.progress = progress_bar("checking the opening book", counts=False, remaining=False,
                                         console=self.console, enabled=self.bar)
            self.progress.__enter__()
            self.task = self.progress.add_task("book", total=total)
        self.progress.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)


def game_line(record: dict[str, Any]) -> str:
    """cutechess's ``Finished game N (WHITE vs BLACK): RESULT {reason}``; colours as at the start."""
    engines = {"A": record["engine_a"], "B": record["engine_b"]}
    a_white = record["a_colour"] == "W"
    white, black = (engines["A"], engines["B"]) if a_white else (engines["B"], engines["A"])
    reason = record["reason"]
    forfeit = record.get("forfeit")
    if forfeit:
        reason = f"{engines[forfeit['engine']]} forfeits: {forfeit['reason']}"
    return f"Finished game {record['game']} ({white} vs {black}): {record['result']} {{{reason}}}"


class MatchReporter:
    """The per-game lines, the running score and the progress bar of one match (or one
    pairing of a tournament); also the SPRT's stopping rule and the repeated-game warning."""

    def __init__(
        self, console: Console, config: MatchConfig, sprt_spec: SprtSpec | None, *, progress: bool, quiet: bool, title: str = "",
        book_option: str = "--openings",
    ) -> None:
        self.console = console
        self.book_option = book_option  # how the warning names the opening book: option or TOML key
        self.config = config
        self.sprt_spec = sprt_spec
        self.quiet = quiet
        self.bar = _ScoreProgress(console, enabled=progress, title=title)
        self.records: list[dict[str, Any]] = []
        self.seen: dict[tuple[str, tuple[str, ...]], int] = {}
        self.warned = False

    def __enter__(self) -> "MatchReporter":
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)

    def start(self, finished: list[dict[str, Any]], pending: list[int]) -> None:
        self.records = list(finished)
        for record in finished:
            self._remember(record)
        self.bar.llr = self._llr()
        self.bar.start(finished, pending)

    def game_done(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        self.bar.llr = self._llr()
        self.bar.game_done(record)
        if not self.quiet:
            _say(self.console, game_line(record))
            _say(self.console, self.score_line())
        self._remember(record)

    def decided(self, records: list[dict[str, Any]]) -> bool:
        assert self.sprt_spec is not None
        return self.sprt_spec.status(model_counts(records, bool(self.config.openings)))["result"] is not None

    def score_line(self) -> str:
        a, b = self.config.engine_a.name, self.config.engine_b.name
        wins = sum(1 for r in self.records if r.get("winner") == "A")
        losses = sum(1 for r in self.records if r.get("winner") == "B")
        draws = len(self.records) - wins - losses
        score = (wins + draws / 2) / len(self.records) if self.records else 0.0
        line = f"Score of {a} vs {b}: {wins} - {losses} - {draws}  [{score:.3f}] {len(self.records)}"
        if self.sprt_spec is not None:
            status = self.sprt_spec.status(model_counts(self.records, bool(self.config.openings)))
            line += f"  LLR {status['llr']:.2f} ({status['lower']:.2f}, {status['upper']:.2f})"
            if status["result"]:
                line += f" {status['result']} accepted"
        return line

    def _llr(self) -> float | None:
        if self.sprt_spec is None:
            return None
        return float(self.sprt_spec.status(model_counts(self.records, bool(self.config.openings)))["llr"])  # type: ignore[arg-type]

    def _remember(self, record: dict[str, Any]) -> None:
        """Warn once when two games without a book are move-for-move the same: the engines
        are deterministic and every later game will repeat one of them."""
        if self.config.openings or self.warned:
            return
        key = (str(record.get("a_colour")), tuple(str(m.get("move")) for m in record.get("moves", [])))
        earlier = self.seen.setdefault(key, int(record["game"]))
        if earlier != int(record["game"]):
            self.warned = True
            _say(self.console, (
                f"warning: games {earlier} and {record['game']} are move for move the same: the engines look "
                "deterministic, so the games will repeat; give an opening book "
                f"({self.book_option}) or different seeds"
            ))


class _ScoreProgress:
    """A rich progress bar whose description is the running score."""

    def __init__(self, console: Console, enabled: bool, title: str = "") -> None:
        self.enabled = enabled
        self.title = title
        self.progress = progress_bar(console=console, enabled=enabled, transient=False)
        self.task: Any = None
        self.score = {"A": 0, "B": 0, None: 0}
        self.llr: float | None = None  # shown when an SPRT runs

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
        llr = f"  LLR {self.llr:+.2f}" if self.llr is not None else ""
        return f"{prefix}A {self.score['A']}  B {self.score['B']}  draws {self.score[None]}{llr}"


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
        if math.isfinite(elo.elo):
            _say(console, f"Elo A - B: {_elo_text(elo.elo)} (95%: {_elo_text(elo.low)} to {_elo_text(elo.high)})")
        else:  # a clean sweep has no Elo estimate; the Wilson interval above still bounds the score
            _say(console, f"Elo A - B: n/a (no {'losses' if elo.elo > 0 else 'wins'})")
        statistics = summary.get("statistics")
        if statistics and "no_estimate" in statistics:
            _say(console, f"{statistics['model'].capitalize()} {statistics[statistics['model']]}: n/a ({statistics['no_estimate']})")
        elif statistics and "elo" in statistics:
            counts = statistics[statistics["model"]]
            _say(console, (
                f"{statistics['model'].capitalize()} {counts}: Elo {statistics['elo']:+.1f} +/- {statistics['elo_margin']:.1f}, "
                f"LOS {100 * statistics['los']:.1f}%, nElo {statistics['nelo']:+.1f} +/- {statistics['nelo_margin']:.1f}"
            ))
        sprt = summary.get("sprt")
        if sprt:
            verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[sprt["result"]]
            _say(console, f"SPRT elo0={sprt['elo0']:g} elo1={sprt['elo1']:g}: LLR {sprt['llr']:.2f} ({sprt['lower']:.2f}, {sprt['upper']:.2f}) {verdict}")
        console.print(f"Mean game length: {summary['mean_game_length']:.1f} moves", markup=False, highlight=False, soft_wrap=True)
        console.print("Endings: " + ", ".join(f"{reason} {count}" for reason, count in summary["endings"].items()), markup=False, highlight=False, soft_wrap=True)


def _elo_text(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _signed(value: float | None, infinite: str = "inf") -> str:
    """An Elo value for a table; ``None`` is an infinite value (JSON has no infinity), shown
    as ``infinite`` - the caller knows its sign."""
    return infinite if value is None else f"{value:+.0f}"


def _app(command: Callable[..., Any], help: str) -> typer.Typer:
    """A one-command typer app: margo-match and margo-tournament are built the same way."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command(help=help)(command)
    return app


def match_app() -> typer.Typer:
    return _app(match, _MATCH_HELP)


# ---------------------------------------------------------------------------------------


_TOURNAMENT_HELP = """Play a round robin or gauntlet from a TOML configuration; print a crosstable and maximum-likelihood Elo ratings.

Each pairing is a match stored under the configured out directory (with its own summary.json); run the same command again to resume. See docs/referee.md for the configuration keys and docs/cluster.md for --cluster.
"""


def tournament(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="tournament configuration")],
    json_output: Annotated[bool, typer.Option("--json", help="print the report as JSON on stdout")] = False,
    progress: Annotated[bool, typer.Option(help="show the live progress bar (stderr)")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no line per finished game")] = False,
    cluster: Annotated[Optional[str], typer.Option(help="play on Ray: 'local', 'auto', HOST:6379 or ray://HOST:10001 (docs/cluster.md)")] = None,
    runtime_env: Annotated[Optional[str], typer.Option(help="with --cluster: Ray runtime_env as JSON or @FILE")] = None,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True, callback=version_callback("margo-tournament"))] = False,
) -> None:
    err = _err_console()
    try:
        check_not_empty({"--runtime-env": runtime_env})
        config = TournamentConfig.load(config_path)
        check_output_directory(config.out, "the tournament's out")
        if cluster is None:  # on a cluster the engines run on other machines: only they can tell
            for entrant in config.engines:
                missing = program_missing(shlex.split(entrant.command))
                if missing:  # found now, not when the engine's first pairing comes up
                    raise TournamentConfigError(f"engine {entrant.name!r}: {missing}")
        environment = check_cluster_options(cluster, runtime_env)
        check_bounds(games=config.games, move_timeout=config.move_timeout or 0, command_timeout=config.command_timeout,
                     parallel=config.parallel, on_cluster=cluster is not None, spelled=repr)
        lock = lock_folder(config.out, "'out'")  # held until this process exits
        check_run_folder(config.out, "'out'", foreign={MATCH_FILE: "a margo-match folder", RESULTS_FILE: "a margo-match folder"})
        for number, (a, b) in enumerate(config.pairings(), 1):
            check_run_folder(config.pairing_directory(number, a, b), "'out'", foreign={TOURNAMENT_FILE: "a margo-tournament folder"})
        prepare_tournament_directory(config)
        # 'parallel' in the configuration is the number of games at once on the cluster too.
        backend = cluster_backend(cluster, config.parallel, environment, err) if cluster is not None else None
    except OSError as error:
        _fail(err, "margo-tournament", error, EXIT_USAGE)
    except (TournamentConfigError, ValueError) as error:
        _fail(err, "margo-tournament", error, EXIT_USAGE)
    _say(err, f"margo-tournament: writing to {config.out}{os.sep}")
    reporters: list[MatchReporter] = []

    def on_pairing(number: int, a: Any, b: Any, match_config: MatchConfig) -> tuple[Any, Any]:
        if reporters:
            reporters[-1].__exit__(None, None, None)
        reporter = MatchReporter(err, match_config, None, progress=progress, quiet=quiet, title=f"[{number}] A={a.name} B={b.name}:",
                                 book_option="the configuration's 'openings'")
        reporter.__enter__()
        reporters.append(reporter)
        return reporter.start, reporter.game_done

    def pairing_done(directory: Path, match_config: MatchConfig, run: Any) -> None:
        summary = match_summary(match_config, run.records, None)
        summary["interrupted"] = run.interrupted
        summary["out"] = str(directory)
        write_atomically(directory / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")

    try:
        run = run_tournament(config, on_pairing, backend=backend, on_pairing_done=pairing_done)
    except (MatchMismatch, EngineStartError, OSError, RuntimeError) as error:
        if reporters:
            reporters[-1].__exit__(None, None, None)
            reporters.clear()
        _fail(err, "margo-tournament", error, EXIT_USAGE)
    finally:
        if reporters:
            reporters[-1].__exit__(None, None, None)
    names = [engine.name for engine in config.engines]
    report = tournament_report(names, run.records)
    report["interrupted"] = run.interrupted
    write_atomically(config.out / SUMMARY_FILE, json.dumps(report, indent=2) + "\n")
    if json_output:
        print(json.dumps(report, indent=2))
    else:
        print_tournament_report(Console(), names, report)
    lock.release()
    if run.interrupted:
        _say(err, "interrupted: finished games are kept; run the same command to resume")
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


def tournament_app() -> typer.Typer:
    return _app(tournament, _TOURNAMENT_HELP)
