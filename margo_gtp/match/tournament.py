"""Tournaments: round robin or gauntlet over several GTP engines, from a TOML file.

A tournament is a list of two-engine matches (*pairings*), each played and stored by
:func:`margo_gtp.match.referee.run_match` in its own sub-directory of ``out``, so it resumes
exactly as a match does: re-running the same configuration keeps every finished game and
plays the rest. The report is a crosstable and maximum-likelihood Elo ratings with 95%
intervals (:func:`margo_gtp.match.stats.ml_ratings`).

Configuration (every key but ``engines`` optional)::

    format = "round-robin"      # or "gauntlet": challenger against every other engine
    challenger = "mcts"         # gauntlet only; default the first engine
    games = 4                   # per pairing (colours alternate inside each pairing)
    out = "tournament"          # relative to the configuration file's directory
    size = 9
    komi = 0.0
    move_timeout = 60.0         # seconds per genmove; 0 = no limit
    command_timeout = 30.0
    max_moves = 300             # then adjudicated by ball count
    time_control = "60 10 5"    # sent as time_settings
    parallel = 1                # games in parallel processes within a pairing
    openings = "book.sgf"       # opening book, as margo-match --openings (relative to this file)
    adjudicate = "margin=30 moves=10"  # as margo-match --adjudicate
    [rules]                     # any rules.md section 9 option, values as margo-set_rules takes them
    swap = "on"
    [[engines]]
    name = "random"
    command = "margo-gtp --player random"

What is checked: keys and value types (unknown keys are errors, quoted), unique engine
names, rules through the rules core, limits (timeouts and ``max_moves`` not negative). What
is not: that the commands run (an engine that cannot start stops the tournament with its
error, as in margo-match).
"""

from __future__ import annotations

import errno
import json
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from margo_gtp import textfile
from margo_gtp.engine import Rules, RulesError
from margo_gtp.engine.rules import merge_option_flags
from margo_gtp.files import write_atomically

from margo_gtp.match.match_runners import Backend
from margo_gtp.match.referee import MatchRun, run_match
from margo_gtp.match.results_log import (
    MatchMismatch,
    differing_keys,
    load_records,
    read_description,
)
from margo_gtp.match.match_config import (
    Adjudication,
    EngineSpec,
    MatchConfig,
    TimeControl,
    check_engine_command,
    check_limits,
)
from margo_gtp.match.limits import MAX_ENGINES
from margo_gtp.match.openings import Opening, OpeningsError, load_openings
from margo_gtp.runlock import lock_folder
from margo_gtp.match.stats import RatingsUndefined, ml_ratings

FORMATS = ("round-robin", "gauntlet")
#: Largest configuration file read (a real one is a few kilobytes; this stops /dev/zero).
MAX_CONFIG_BYTES = 1024 * 1024
_TOP_KEYS = {
    "format", "challenger", "games", "out", "size", "komi", "move_timeout", "command_timeout",
    "max_moves", "time_control", "parallel", "rules", "engines", "openings", "adjudicate",
}


class TournamentConfigError(ValueError):
    """Raised when a tournament configuration is invalid; the message names the key"""


@dataclass(frozen=True)
class Entrant:
    name: str
    command: str


@dataclass(frozen=True)
class TournamentConfig:
    engines: tuple[Entrant, ...]
    out: Path
    format: str = "round-robin"
    challenger: str | None = None
    games: int = 2
    rules: Rules = field(default_factory=Rules)
    move_timeout: float | None = 60.0
    command_timeout: float = 30.0
    max_moves: int | None = None
    time_control: TimeControl | None = None
    parallel: int = 1
    openings: tuple[Opening, ...] = ()
    adjudication: Adjudication | None = None

    @classmethod
    def load(cls, path: Path) -> "TournamentConfig":
        try:
            text = textfile.read_text(path, MAX_CONFIG_BYTES)
        except textfile.TextFileError as error:
            reason = ("is a directory, not a TOML configuration" if error.errno == errno.EISDIR
                      else "not a text file (a TOML configuration is UTF-8 text)" if error.reason == "is not UTF-8 text"
                      else error.reason)
            raise TournamentConfigError(f"{path}: {reason}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise TournamentConfigError(f"{path}: not valid TOML: {error}") from None
        except RecursionError:  # tomllib recurses into nested arrays and tables
            raise TournamentConfigError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
        return cls.from_mapping(data, base=path.parent)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base: Path) -> "TournamentConfig":
        unknown = sorted(set(data) - _TOP_KEYS)
        if unknown:
            raise TournamentConfigError(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_TOP_KEYS))})")
        engines_data = data.get("engines")
        if not isinstance(engines_data, list) or len(engines_data) < 2:
            raise TournamentConfigError("'engines' must list at least two [[engines]] tables")
        if len(engines_data) > MAX_ENGINES:
            raise TournamentConfigError(f"'engines' must list at most {MAX_ENGINES} engines: {len(engines_data)}")
        engines = []
        for number, entry in enumerate(engines_data, 1):
            if not isinstance(entry, Mapping) or set(entry) - {"name", "command"} or not isinstance(entry.get("command"), str):
                raise TournamentConfigError(f"engine {number}: needs 'command' (a string) and optionally 'name', nothing else")
            try:
                check_engine_command(entry["command"], f"engine {number}")
            except ValueError as error:
                raise TournamentConfigError(str(error)) from None
            engines.append(Entrant(str(entry.get("name") or entry["command"]), entry["command"]))
        names = [engine.name for engine in engines]
        duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
        if duplicates:
            raise TournamentConfigError(f"engine names must be unique: {duplicates[0]!r} appears twice")
        format_ = _get(data, "format", str, "round-robin")
        if format_ not in FORMATS:
            raise TournamentConfigError(f"'format' must be one of {', '.join(FORMATS)}: {format_!r}")
        challenger = _get(data, "challenger", str, None)
        if challenger is not None and challenger not in names:
            raise TournamentConfigError(f"'challenger' is not an engine name: {challenger!r}")
        rules_data = data.get("rules", {})
        if not isinstance(rules_data, Mapping):
            raise TournamentConfigError("'rules' must be a table of option = value")
        options = {str(key): _option_text(value) for key, value in rules_data.items()}
        flags = {
            "size": ("'size'", _get(data, "size", int, None)),
            "komi": ("'komi'", _get(data, "komi", float, None)),
        }
        try:
            # 'size'/'komi' and rules.size/rules.komi must agree (rather than one silently winning)
            options = merge_option_flags(options, flags)
            rules = Rules().with_options(options)
        except RulesError as error:
            raise TournamentConfigError(f"rules: {error}") from None
        time_control_text = _get(data, "time_control", str, None)
        if time_control_text is not None and not time_control_text.strip():
            raise TournamentConfigError("'time_control' is empty: give it a value, or leave the key out")
        try:
            time_control = TimeControl.parse(time_control_text) if time_control_text else None
        except ValueError as error:
            raise TournamentConfigError(f"'time_control': {error}") from None
        move_timeout = _get(data, "move_timeout", float, 60.0)
        command_timeout = _get(data, "command_timeout", float, 30.0)
        max_moves = _get(data, "max_moves", int, 0)
        games = _get(data, "games", int, 2)
        parallel = _get(data, "parallel", int, 1)
        if games < 1 or parallel < 1:
            raise TournamentConfigError("'games' and 'parallel' must be at least 1")
        try:
            check_limits(move_timeout, command_timeout, max_moves, repr)
        except ValueError as error:
            raise TournamentConfigError(str(error)) from None
        adjudicate = _get(data, "adjudicate", str, None)
        try:
            adjudication = Adjudication.parse(adjudicate) if adjudicate is not None else None
        except ValueError as error:  # worded for margo-match's --adjudicate
            raise TournamentConfigError(str(error).replace("--adjudicate", "'adjudicate'")) from None
        book = _get(data, "openings", str, None)
        try:  # as margo-match --openings, relative to the configuration's directory
            openings = load_openings(base / book, rules) if book is not None else ()
        except OpeningsError as error:
            raise TournamentConfigError(f"'openings': {error}") from None
        return cls(
            engines=tuple(engines),
            out=base / _get(data, "out", str, "tournament"),
            format=format_,
            challenger=challenger,
            games=games,
            rules=rules,
            move_timeout=move_timeout or None,
            command_timeout=command_timeout,
            max_moves=max_moves or None,
            time_control=time_control,
            parallel=parallel,
            openings=openings,
            adjudication=adjudication,
        )

    def pairings(self) -> list[tuple[Entrant, Entrant]]:
        """Round robin: every pair once, in configuration order. Gauntlet: the challenger
        (default the first engine) against each other engine."""
        if self.format == "gauntlet":
            hero = next((e for e in self.engines if e.name == self.challenger), self.engines[0])
            return [(hero, other) for other in self.engines if other is not hero]
        return [(a, b) for i, a in enumerate(self.engines) for b in self.engines[i + 1 :]]

    def match_config(self, a: Entrant, b: Entrant) -> MatchConfig:
        return MatchConfig(
            engine_a=EngineSpec("A", a.name, a.command),
            engine_b=EngineSpec("B", b.name, b.command),
            games=self.games,
            rules=self.rules,
            move_timeout=self.move_timeout,
            command_timeout=self.command_timeout,
            time_control=self.time_control,
            max_moves=self.max_moves,
            parallel=self.parallel,
            openings=self.openings,
            adjudication=self.adjudication,
        )

    def pairing_directory(self, number: int, a: Entrant, b: Entrant) -> Path:
        return self.out / f"{number:02d}-{_slug(a.name)}-vs-{_slug(b.name)}"

    def identity(self) -> dict[str, Any]:
        """What a resumed tournament must share with the one in its out directory: who
        plays whom. (Each pairing's own match.json guards its rules and limits.)"""
        return {"engines": [[engine.name, engine.command] for engine in self.engines], "format": self.format,
                "challenger": self.challenger}


TOURNAMENT_FILE = "tournament.json"


def prepare_tournament_directory(config: TournamentConfig) -> None:
    """Create ``config.out`` or check that it holds this tournament; MatchMismatch when it
    holds another one with finished games (two tournaments would mix in one crosstable),
    :class:`~margo_gtp.textfile.NotRegularTargetError` (an OSError) when its
    ``tournament.json`` is a pipe, a device or a directory."""
    config.out.mkdir(parents=True, exist_ok=True)
    path = config.out / TOURNAMENT_FILE
    textfile.regular_target(path)  # before the read, which a pipe would hang (the write refuses one too)
    identity = config.identity()
    if path.exists():
        try:
            stored = read_description(path)
        except OSError:  # rewritten below, like an unreadable one
            stored = {"format": "unreadable"}
        differences = differing_keys(identity, stored)
        if differences and any(log.stat().st_size for log in config.out.glob("*/results.jsonl")):
            raise MatchMismatch(f"{config.out} holds a different tournament (differs in: {', '.join(differences)}); "
                                "use another 'out'")
    write_atomically(path, json.dumps(identity, indent=2) + "\n")


def _get(data: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    if key not in data:
        return default
    value = data[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TournamentConfigError(f"{key!r} must be {kind.__name__}: {value!r}")
    return value


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:40] or "engine"


# ---------------------------------------------------------------------------------------
# Running and reporting


@dataclass
class TournamentRun:
    records: dict[tuple[str, str], list[dict[str, Any]]]
    interrupted: bool = False


def run_tournament(
    config: TournamentConfig,
    on_pairing: Callable[[int, Entrant, Entrant, MatchConfig], tuple[Callable[..., None] | None, Callable[..., None] | None]] | None = None,
    backend: Backend | None = None,
    on_pairing_done: Callable[[Path, MatchConfig, MatchRun], None] | None = None,
) -> TournamentRun:
    """Play every pairing's missing games in order; stop early on Ctrl-C.

    ``on_pairing(number, a, b, match_config)`` may return ``(on_start, on_game)`` callbacks
    for that pairing's :func:`run_match`; ``on_pairing_done(directory, match_config, run)``
    is called after each pairing (the command line writes the pairing's summary.json);
    ``backend`` plays the games elsewhere (``--cluster``).
    """
    records: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for number, (a, b) in enumerate(config.pairings(), 1):
        match_config = config.match_config(a, b)
        on_start, on_game = on_pairing(number, a, b, match_config) if on_pairing else (None, None)
        directory = config.pairing_directory(number, a, b)
        # The pairing's folder is a match folder: a margo-match --out on it must wait too.
        with lock_folder(directory, "'out'"):
            try:
                run: MatchRun = run_match(match_config, directory, on_game=on_game, on_start=on_start, backend=backend)
            except MatchMismatch as error:  # the referee's advice names margo-match's option
                raise MatchMismatch(str(error).replace("use another --out", "use another 'out'")) from None
            records[(a.name, b.name)] = run.records
            if on_pairing_done is not None:
                on_pairing_done(directory, match_config, run)
        if run.interrupted:
            return TournamentRun(records, interrupted=True)
    return TournamentRun(records)


def finished_records(config: TournamentConfig) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The finished games of every pairing, read from disk (for a report without playing)."""
    return {
        (a.name, b.name): load_records(config.pairing_directory(number, a, b))
        for number, (a, b) in enumerate(config.pairings(), 1)
    }


def game_scores(records: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]]) -> list[tuple[str, str, float]]:
    """``(a, b, score_of_a)`` for every finished game."""
    scores = []
    for (a, b), games in records.items():
        for record in games:
            winner = record.get("winner")
            scores.append((a, b, 0.5 if winner is None else (1.0 if winner == "A" else 0.0)))
    return scores


def tournament_report(names: Sequence[str], records: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """Crosstable and ML Elo ratings. If the maximum-likelihood ratings do not exist (an
    engine won or lost everything), one virtual draw per engine against a 0-rated opponent
    is added and ``prior_draws`` says so."""
    scores = game_scores(records)
    cross: dict[str, dict[str, dict[str, float]]] = {name: {} for name in names}
    for a, b, score in scores:
        for me, other, mine in ((a, b, score), (b, a, 1.0 - score)):
            cell = cross[me].setdefault(other, {"wins": 0, "draws": 0, "losses": 0, "score": 0.0, "games": 0})
            cell["wins" if mine == 1 else "draws" if mine == 0.5 else "losses"] += 1
            cell["score"] += mine
            cell["games"] += 1
    prior = 0.0
    ratings: list[dict[str, Any]] = []
    if scores:
        try:
            fitted = ml_ratings(names, scores)
        except RatingsUndefined:
            prior = 1.0
            fitted = ml_ratings(names, scores, prior_draws=prior)
        ratings = [rating.as_json() for rating in sorted(fitted, key=lambda r: -r.elo)]
    return {"games": len(scores), "ratings": ratings, "prior_draws": prior, "crosstable": cross}
