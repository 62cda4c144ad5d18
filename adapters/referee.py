"""The referee: plays matches between two GTP engines and judges every move.

Reading guide
    :func:`play_game` is the whole game loop (OpenSpiel's ``evaluate_bots`` in spirit):
    ask the mover, judge its answer with our own rules core, inform the other player,
    repeat until the rules core says the game is over. It knows nothing about GTP: the
    players are :class:`Player` backends. :class:`GtpPlayer` is the backend that drives a
    GTP engine through the public client :class:`margo_gtp.client.SimpleEngine` (its
    ``do_command``: the referee sends genmove, play and the clocks itself) and turns every
    way an engine can misbehave into an :class:`EngineFault`. :class:`GameRunner` sets up and
    plays one numbered game between two engines and returns its record and SGF;
    :func:`run_match` plays the missing games of a match, in-process, in worker processes
    or through a *backend* (the Ray one is :mod:`margo_adapters.cluster`), and writes
    every finished game (``results.jsonl`` + ``game-NNNN.sgf``) before it moves on; its
    ``stop_when`` ends a match early (the SPRT of :mod:`margo_adapters.sprt`).

What the referee enforces
    - Every move is checked by :class:`margo_gtp.engine.Board`: a malformed answer, an
      illegal move (``pass`` included, unless the rules allow passing), a failure answer to
      ``genmove``, a move timeout, a lost time control, an engine that crashes, closes its
      output or talks garbage, or refuses a legal move relayed with ``play``, loses the game
      by forfeit; the reason is recorded. An engine whose channel is in an unknown state is
      killed at once and restarted before its next game. The match goes on.
    - The game ends when the referee's own board says so (the side to move has no legal
      move, two passes with ``allow_pass``, first capture with ``first_capture_wins``), on
      ``resign``, or when it is adjudicated with the rules' own ``scoring`` (komi added to
      White): after ``max_moves`` engine moves, or when one side has led by an
      :class:`Adjudication` margin for its number of moves (cutechess ``-resign``).
    - Colours alternate: engine A holds White in odd-numbered games. A ``swap`` exchanges the
      colours of the two engines; per-colour statistics use the colour held at the end.
      With an opening book, games ``2k-1`` and ``2k`` start from opening ``k`` (relayed to
      both engines with ``play``), so each opening is played with both colours.
    - An engine that dies before it ever got ready (a bad option, a missing file) stops
      the match with :class:`EngineStartError` and its last stderr lines: it is the match
      that is misconfigured, and a match of crash losses would hide it.

What it does not: judge the engines' ``final_score``, or check what an engine believes the
position is (a confused engine shows up as an illegal move or a refused ``play``).

Durability: the SGF is written (temporary file, fsync, rename) and then the record is
appended to ``results.jsonl`` with flush and fsync; a game counts as finished exactly when
its line is in ``results.jsonl``. On start the log is read back, a torn last line (a kill
during the write) is cut off, and only the games not yet there are played. A game number
already written is never written again (a game replayed after a lost Ray worker).
``match.json`` describes the match; it is replaced only while no game is finished (so a
typo in an engine command does not block the corrected command).

Live feed: while a game runs, ``OUT/live/game-NNNN.jsonl`` holds its moves so far
(:class:`LiveFeed`); it is deleted once the game is written.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Protocol

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.vertex import InvalidVertexError

from margo_gtp import sgf
from margo_adapters.openings import Opening, board_after, opening_of_game
from margo_adapters.match_config import (
    Adjudication,
    Clock,
    EngineSpec,
    MatchConfig,
    TimeControl,
    default_names,
)
from margo_gtp.client import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineStartError as ClientStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    SimpleEngine,
)

RESULTS_FILE = "results.jsonl"
MATCH_FILE = "match.json"
SUMMARY_FILE = "summary.json"


# ---------------------------------------------------------------------------------------
# Forfeit reasons (the strings stored in results.jsonl and counted in summaries)

TIMEOUT = "timeout"                  # no answer to genmove within the move timeout
TIME_CONTROL = "time"                # the engine's clock ran out (time_settings)
CRASH = "crash"                      # the engine process exited
EOF = "eof"                          # the engine closed its output but still ran
PROTOCOL_ERROR = "protocol error"    # the engine wrote something that is not GTP
MALFORMED_MOVE = "malformed move"    # genmove answer is no move token
ILLEGAL_MOVE = "illegal move"        # genmove answer is a move the rules forbid now
GENMOVE_FAILED = "genmove failed"    # genmove answered "? ..."
REJECTED_MOVE = "rejected move"      # play of a legal move answered "? ..."
SETUP_FAILED = "setup failed"        # boardsize/clear_board/komi/margo-set_rules/time_settings failed
START_FAILED = "start failed"        # the engine command could not be started

# Game endings (record "reason") besides the rules core's Termination values.
RESIGNATION = "resignation"
FORFEIT = "forfeit"
MAX_MOVES = "adjudicated at max moves"
ADJUDICATED = "adjudicated by margin"


class EngineFault(Exception):
    """Raised by a :class:`Player` when its engine misbehaved; the game is lost by forfeit.

    ``restart`` says the engine's state is unknown (it must be restarted before its next
    game); ``reason`` is one of the module's forfeit reasons; ``detail`` says what happened.
    """

    def __init__(self, reason: str, detail: str, restart: bool = False) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.restart = restart


class EngineStartError(RuntimeError):
    """Raised when an engine command cannot be started at all (the match cannot begin)"""


def colours_of_game(game: int) -> dict[str, Colour]:
    """Colour each engine label holds at the start of game number ``game`` (1-based)."""
    a = Colour.WHITE if game % 2 == 1 else Colour.BLACK
    return {"A": a, "B": a.opponent}


# ---------------------------------------------------------------------------------------
# Players: the backend contract and its GTP implementation


class Player(Protocol):
    """What :func:`play_game` needs from a player. Every method may raise :class:`EngineFault`."""

    label: str

    def genmove(self, colour: Colour) -> tuple[str, float]:
        """The engine's raw answer to ``genmove`` and the seconds it took."""
        ...

    def play(self, colour: Colour, move: Move) -> None:
        """Tell the engine that ``colour`` played ``move``."""
        ...


class GtpPlayer:
    """A GTP engine as a :class:`Player`: translates every GTP failure into an :class:`EngineFault`.

    The engine process lives across games; :meth:`ensure_running` (re)starts it when it
    is not usable, so a crashed or hung engine is replaced before its next game.
    """

    def __init__(
        self,
        spec: EngineSpec,
        *,
        move_timeout: float | None,
        command_timeout: float,
        wire_log: IO[str] | None = None,
    ) -> None:
        self.spec = spec
        self.label = spec.label
        self.move_timeout = move_timeout
        self.command_timeout = command_timeout
        self.wire_log = wire_log
        self.client: SimpleEngine | None = None
        self.clock: Clock | None = None
        self.starts = 0
        self.ready = False  # set up a game at least once: later failures are the engine's, not the command's

    def ensure_running(self) -> None:
        if self.client is not None and self.client.is_usable:
            return
        if self.client is not None:
            self.client.kill()
        self.starts += 1
        try:
            self.client = SimpleEngine.popen(
                self.spec.argv(), timeout=self.command_timeout, wire_log=self.wire_log, name=self.spec.label
            )
        except ClientStartError as error:
            self.client = None
            message = f"cannot start engine {self.label} {self.spec.command!r}: {error.__cause__ or error}"
            if self.starts == 1:  # never ran: the match is misconfigured, not the engine unlucky
                raise EngineStartError(message) from None
            raise EngineFault(START_FAILED, message, restart=True) from None

    def new_game(self, rules: Rules, time_control: TimeControl | None) -> None:
        """Start the engine if needed and set up an empty board with ``rules``."""
        self.ensure_running()
        options = [f"{name}={value}" for name, value in rules.options().items() if name not in ("size", "komi")]
        commands: list[tuple[str, Sequence[object]]] = [
            ("boardsize", [rules.size]),
            ("clear_board", []),
            ("komi", [_number(rules.komi)]),
            ("margo-set_rules", options),
        ]
        if time_control is not None:
            commands.append(("time_settings", time_control.gtp_args()))
        for command, args in commands:
            self._send(command, args, self.command_timeout, SETUP_FAILED)
        self.ready = True
        self.clock = Clock(time_control) if time_control is not None else None

    def genmove(self, colour: Colour) -> tuple[str, float]:
        if self.clock is not None:
            self._send("time_left", [colour.letter, *self.clock.time_left_args()], self.command_timeout, SETUP_FAILED)
        started = time.monotonic()
        answer = self._send("genmove", [colour.letter], self.move_timeout, GENMOVE_FAILED)
        seconds = time.monotonic() - started
        if self.clock is not None and not self.clock.spend(seconds):
            raise EngineFault(TIME_CONTROL, f"{seconds:.3f} s for this move ran the clock out")
        return answer, seconds

    def play(self, colour: Colour, move: Move) -> None:
        self._send("play", [colour.letter, move.gtp()], self.command_timeout, REJECTED_MOVE)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def identify(self) -> str:
        """Start the engine if needed; its answers to ``name`` and ``version``, space-separated."""
        self.ensure_running()
        name = self._send("name", [], self.command_timeout, SETUP_FAILED)
        return f"{name} {self._send('version', [], self.command_timeout, SETUP_FAILED)}"

    def start_failure(self, fault: EngineFault) -> EngineStartError:
        """The error that stops a match whose engine died before it ever got ready (a bad
        option in its command line, a missing file): its own last words, not forfeits."""
        tail = self.client.stderr if self.client is not None else []
        shown = "".join(f"\n  {line}" for line in tail[-10:]) if tail else " (it wrote nothing to stderr)"
        return EngineStartError(f"engine {self.label} {self.spec.command!r} stopped during start-up: {fault.detail}; its stderr:{shown}")

    def _send(self, command: str, args: Sequence[object], timeout: float | None, failure_reason: str) -> str:
        """One command; every client error becomes the matching forfeit. The client has
        already killed the engine on anything but a failure answer (its channel is then in
        an unknown state), so ``restart`` is set for those."""
        if self.client is None or not self.client.is_usable:
            raise EngineFault(CRASH, f"engine is not running before {command!r}", restart=True)
        try:
            return self.client.do_command(command, *args, timeout=timeout)
        except EngineCommandError as error:
            raise EngineFault(failure_reason, f"{' '.join([command, *map(str, args)])!r} answered {error.message!r}") from None
        except EngineTimeoutError as error:
            raise EngineFault(TIMEOUT, str(error), restart=True) from None
        except EngineProtocolError as error:
            raise EngineFault(PROTOCOL_ERROR, str(error), restart=True) from None
        except EngineTerminatedError as error:
            reason = CRASH if error.returncode is not None else EOF
            raise EngineFault(reason, _with_stderr(str(error), error.stderr), restart=True) from None
        except EngineError as error:  # pragma: no cover - every client error is handled above
            self.client.kill()
            raise EngineFault(PROTOCOL_ERROR, str(error), restart=True) from None


def _with_stderr(detail: str, stderr: Sequence[str]) -> str:
    """A crash's detail with the engine's last stderr line, where it usually says why."""
    return f"{detail}; last stderr line: {stderr[-1]!r}" if stderr else detail


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# ---------------------------------------------------------------------------------------
# The game loop


@dataclass
class GameEnd:
    """How one game ended. ``winner`` is a colour (None: draw); ``forfeit`` names the
    colour that forfeited, with the fault."""

    winner: Colour | None
    result: str
    reason: str
    moves: list[dict[str, Any]]
    forfeit: tuple[Colour, EngineFault] | None = None


def play_game(
    board: Board,
    players: Mapping[Colour, Player],
    max_moves: int | None = None,
    adjudication: Adjudication | None = None,
    on_move: Callable[[dict[str, Any]], None] | None = None,
) -> GameEnd:
    """Play one game on ``board`` (rules and position set) between ``players`` (by colour).

    ``max_moves`` counts the engines' moves (not an opening's); ``on_move(entry)`` is told
    each accepted move (the live feed)."""
    players = dict(players)
    moves: list[dict[str, Any]] = []
    leader_streak: tuple[Colour | None, int] = (None, 0)
    while (outcome := board.outcome()) is None:
        if max_moves is not None and len(moves) >= max_moves:
            return _adjudicate(board, moves, MAX_MOVES)
        if adjudication is not None and moves:
            leader_streak = _lead_after_move(board, adjudication, leader_streak)
            if leader_streak[1] >= adjudication.moves:
                return _adjudicate(board, moves, ADJUDICATED)
        colour = board.to_move
        mover, other = players[colour], players[colour.opponent]
        try:
            answer, seconds = mover.genmove(colour)
            move = judge(board, answer, colour)
        except EngineFault as fault:
            return _forfeit(colour, fault, moves)
        if move is None:
            return GameEnd(colour.opponent, f"{colour.opponent.letter}+R", RESIGNATION, moves)
        moves.append({"colour": colour.letter, "move": move.gtp(), "engine": mover.label, "seconds": round(seconds, 6)})
        board.push(move, colour)
        if on_move is not None:
            on_move(moves[-1])
        if move.is_swap:  # the players exchange colours; the same colour is still to move
            players = {c: players[c.opponent] for c in players}
        try:
            other.play(colour, move)
        except EngineFault as fault:
            return _forfeit(next(c for c, p in players.items() if p is other), fault, moves)
    return GameEnd(outcome.winner, outcome.result(), outcome.termination.value, moves)


def judge(board: Board, answer: str, colour: Colour) -> Move | None:
    """The move an engine's ``genmove`` answer names (None for ``resign``), if legal now.

    Raises :class:`EngineFault` with :data:`MALFORMED_MOVE` or :data:`ILLEGAL_MOVE`.
    """
    token = answer.strip()
    if token.lower() == "resign":
        return None
    if not token or len(token.split()) != 1:
        raise EngineFault(MALFORMED_MOVE, f"genmove {colour.letter} answered {answer!r}")
    try:
        move = Move.from_gtp(token, board.size)
    except (InvalidVertexError, ValueError):
        raise EngineFault(MALFORMED_MOVE, f"genmove {colour.letter} answered {answer!r}") from None
    if not board.is_legal(move, colour):
        raise EngineFault(ILLEGAL_MOVE, f"genmove {colour.letter} answered {move.gtp()!r}, illegal in this position")
    return move


def _forfeit(loser: Colour, fault: EngineFault, moves: list[dict[str, Any]]) -> GameEnd:
    suffix = "T" if fault.reason in (TIMEOUT, TIME_CONTROL) else "F"
    winner = loser.opponent
    return GameEnd(winner, f"{winner.letter}+{suffix}", FORFEIT, moves, (loser, fault))


def _lead_after_move(board: Board, adjudication: Adjudication, streak: tuple[Colour | None, int]) -> tuple[Colour | None, int]:
    """The colour whose lead under the rules' scoring is at least the margin now, and for
    how many consecutive moves it has been (a changed or lost lead starts over)."""
    white, black = board.score()
    leader = Colour.WHITE if white - black >= adjudication.margin else Colour.BLACK if black - white >= adjudication.margin else None
    if leader is None:
        return (None, 0)
    return (leader, streak[1] + 1 if streak[0] == leader else 1)


def _adjudicate(board: Board, moves: list[dict[str, Any]], reason: str) -> GameEnd:
    """The game's result by the rules' own ``scoring`` option (komi added to White)."""
    white, black = board.score()
    if white == black:
        return GameEnd(None, "0", reason, moves)
    winner = Colour.WHITE if white > black else Colour.BLACK
    margin = abs(white - black)
    text = str(int(margin)) if float(margin).is_integer() else f"{margin:g}"
    return GameEnd(winner, f"{winner.letter}+{text}", reason, moves)


# ---------------------------------------------------------------------------------------
# One numbered game between two engines


LIVE_DIRECTORY = "live"


def live_path(directory: Path, game: int) -> Path:
    """Where the live feed of game number ``game`` is written while it runs (LIVE_FEED.md)."""
    return directory / LIVE_DIRECTORY / f"game-{game:04d}.jsonl"


class LiveFeed:
    """``OUT/live/game-NNNN.jsonl`` while a game runs: a ``start`` line, then one line per
    move, each flushed, for margo-web to follow. The referee deletes it once the game's
    record and SGF are written (:func:`run_match`'s commit). Without a directory (a game
    played on a Ray worker, which has no access to OUT) it writes nothing."""

    def __init__(self, handle: IO[str] | None) -> None:
        self.handle = handle
        self.ply = 0

    @classmethod
    def open(cls, directory: Path | None, game: int, by_colour: Mapping[Colour, GtpPlayer], config: MatchConfig) -> "LiveFeed":
        if directory is None:
            return cls(None)
        path = live_path(directory, game)
        path.parent.mkdir(exist_ok=True)
        feed = cls(open(path, "w", encoding="utf-8"))
        engines = config.engines()
        feed._write({
            "type": "start", "game": game,
            "black": engines[by_colour[Colour.BLACK].label].name, "white": engines[by_colour[Colour.WHITE].label].name,
            "size": config.rules.size, "rules": config.rules.options(), "setup": [],
        })
        return feed

    def move(self, entry: Mapping[str, Any]) -> None:
        self.ply += 1
        self._write({"type": "move", "ply": self.ply, "colour": entry["colour"], "move": entry["move"], "seconds": entry["seconds"]})

    def _write(self, item: Mapping[str, Any]) -> None:
        if self.handle is not None:
            self.handle.write(json.dumps(item, separators=(",", ":")) + "\n")
            self.handle.flush()

    def __enter__(self) -> "LiveFeed":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None:
            self.handle.close()


class GameRunner:
    """Holds the two engines of a match (one process each, reused across games) and plays
    numbered games between them. Used in-process and inside each worker process."""

    def __init__(self, config: MatchConfig, wire_log: IO[str] | None = None, live_directory: Path | None = None) -> None:
        self.config = config
        self.live_directory = live_directory
        self.players = {
            label: GtpPlayer(spec, move_timeout=config.move_timeout, command_timeout=config.command_timeout, wire_log=wire_log)
            for label, spec in config.engines().items()
        }

    def play(self, game: int) -> tuple[dict[str, Any], str | None]:
        """Play game number ``game``; return its results.jsonl record and its SGF text."""
        config = self.config
        colours = colours_of_game(game)
        by_colour = {colour: self.players[label] for label, colour in colours.items()}
        opening = opening_of_game(config.openings, game)
        board = board_after(config.rules, opening[1]) if opening else Board(config.rules)
        started_at = datetime.now(timezone.utc)
        started = time.monotonic()
        with LiveFeed.open(self.live_directory, game, by_colour, config) as live:
            end = self._set_up(by_colour) or self._relay_opening(opening, by_colour, live)
            if end is None:
                end = play_game(board, by_colour, config.max_moves, config.adjudication, on_move=live.move)
        duration = time.monotonic() - started
        record = self._record(game, colours, board, end, started_at, duration)
        if opening is not None:
            record["opening"] = {"number": opening[0], "moves": [f"{letter} {move}" for letter, move in opening[1]]}
        try:
            sgf_text = self._sgf(record, board)
        except Exception as error:  # noqa: BLE001 - a record without SGF beats a lost game
            record["sgf"] = None
            record["sgf_error"] = f"{type(error).__name__}: {error}"
            sgf_text = None
        return record, sgf_text

    def _relay_opening(
        self, opening: tuple[int, Opening] | None, by_colour: Mapping[Colour, GtpPlayer], live: "LiveFeed"
    ) -> GameEnd | None:
        """Tell both engines the book moves; an engine that refuses one forfeits."""
        for letter, text in opening[1] if opening else ():
            colour = Colour.parse(letter)
            move = Move.from_gtp(text, self.config.rules.size)
            for holder, player in by_colour.items():
                try:
                    player.play(colour, move)
                except EngineFault as fault:
                    return _forfeit(holder, fault, [])
            live.move({"colour": letter, "move": text, "engine": None, "seconds": 0.0})
        return None

    def _set_up(self, by_colour: Mapping[Colour, GtpPlayer]) -> GameEnd | None:
        for step in ("start", "set up"):  # start both engines before waiting for either
            for colour in (Colour.WHITE, Colour.BLACK):
                try:
                    if step == "start":
                        by_colour[colour].ensure_running()
                    else:
                        by_colour[colour].new_game(self.config.rules, self.config.time_control)
                except EngineFault as fault:
                    player = by_colour[colour]
                    if not player.ready and fault.reason in (CRASH, EOF):
                        raise player.start_failure(fault) from None
                    return _forfeit(colour, fault, [])
        return None

    def _record(
        self, game: int, colours: Mapping[str, Colour], board: Board, end: GameEnd, started_at: datetime, duration: float
    ) -> dict[str, Any]:
        swapped = board.swapped
        final = {label: (colour.opponent if swapped else colour) for label, colour in colours.items()}
        holder = {colour: label for label, colour in final.items()}
        engines = self.config.engines()
        forfeit = None
        if end.forfeit is not None:
            colour, fault = end.forfeit
            forfeit = {"engine": holder[colour], "colour": colour.letter, "reason": fault.reason, "detail": fault.detail}
        counts = board.ball_counts()
        return {
            "game": game,
            "engine_a": engines["A"].name,
            "engine_b": engines["B"].name,
            "a_colour": colours["A"].letter,
            "a_colour_final": final["A"].letter,
            "swapped": swapped,
            "white": engines[holder[Colour.WHITE]].name,
            "black": engines[holder[Colour.BLACK]].name,
            "winner": holder[end.winner] if end.winner is not None else None,
            "winner_colour": end.winner.letter if end.winner is not None else None,
            "result": end.result,
            "reason": end.reason,
            "forfeit": forfeit,
            "balls": {"W": counts[Colour.WHITE], "B": counts[Colour.BLACK]},
            "move_count": len(end.moves),
            "moves": end.moves,
            "started": started_at.isoformat(timespec="seconds"),
            "duration": round(duration, 6),
            "sgf": sgf_name(game),
        }

    def _sgf(self, record: Mapping[str, Any], board: Board) -> str | None:
        comment = f"margo-match game {record['game']}: {record['result']} ({record['reason']})"
        if record["forfeit"]:
            forfeit = record["forfeit"]
            comment += f"; engine {forfeit['engine']} forfeited: {forfeit['reason']}: {forfeit['detail']}"
        game_record = sgf.record_from_board(
            board,
            result=record["result"],
            white_name=record["white"],
            black_name=record["black"],
            times=[None] * len(record.get("opening", {}).get("moves", [])) + [m["seconds"] for m in record["moves"]],
            root_properties={"GC": [_sgf_text_value(comment)], "DT": [record["started"][:10]]},
        )
        return sgf.dumps(game_record)

    def close(self) -> None:
        for player in self.players.values():
            player.close()


def _sgf_text_value(text: str) -> str:
    """Escape ``text`` for a raw SGF Text value (backslash and closing bracket)."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def sgf_name(game: int) -> str:
    return f"game-{game:04d}.sgf"


# ---------------------------------------------------------------------------------------
# Durable results


class ResultsLog:
    """``results.jsonl``: one JSON object per finished game, appended with fsync."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / RESULTS_FILE

    def load(self, repair: bool = True) -> list[dict[str, Any]]:
        """Every intact record, first one per game number, in game order. A torn last line
        (the writer died mid-write) is ignored, and with ``repair`` cut off the file so
        the next append starts on a fresh line."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if repair and end < len(data):
            with open(self.path, "r+b") as handle:
                handle.truncate(end)
                handle.flush()
                os.fsync(handle.fileno())
        records: dict[int, dict[str, Any]] = {}
        for line in data[:end].splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                game = int(record["game"])
            except (ValueError, KeyError, TypeError):
                continue  # an unreadable line is not a finished game; it will be replayed
            records.setdefault(game, record)
        return [records[game] for game in sorted(records)]

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, separators=(",", ":"), sort_keys=False) + "\n"
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the whole new one."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


class MatchMismatch(ValueError):
    """Raised when the output directory holds a different match than the one asked for"""


def read_description(path: Path) -> dict[str, Any]:
    """The JSON object a ``match.json`` (or a tournament's ``tournament.json``) holds, or
    ``{"format": "unreadable"}`` for anything else, which differs from every real
    description. OSError when the file cannot be read at all (a directory, no permission)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return {"format": "unreadable"}
    return stored if isinstance(stored, dict) else {"format": "unreadable"}


def differing_keys(identity: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """The keys on which a description asked for and a stored one differ, sorted."""
    return sorted(key for key in identity.keys() | stored.keys() if identity.get(key) != stored.get(key))


def prepare_directory(config: MatchConfig, directory: Path) -> list[dict[str, Any]]:
    """Create or check ``directory``; return the records of the games already finished."""
    directory.mkdir(parents=True, exist_ok=True)
    match_file = directory / MATCH_FILE
    identity = config.identity()
    finished = ResultsLog(directory).load()
    if match_file.exists():
        try:
            stored = read_description(match_file)
        except OSError as error:  # a directory where the file belongs, no permission
            raise MatchMismatch(f"{match_file}: cannot read: {error.strerror or error}; use another --out") from None
        differences = differing_keys(identity, stored)
        if differences and finished:
            raise MatchMismatch(f"{directory} holds a different match (differs in: {', '.join(differences)}); use another --out")
        if not differences:
            return finished
    # A new match, or one that never finished a game (say, a typo in an engine command
    # stopped it): nothing is lost by describing the match asked for now.
    write_atomically(match_file, json.dumps(identity, indent=2) + "\n")
    return finished


# ---------------------------------------------------------------------------------------
# Running a match


@dataclass
class MatchRun:
    """What :func:`run_match` returns: every finished record (old and new, by game
    number), and whether it stopped early on Ctrl-C."""

    records: list[dict[str, Any]]
    interrupted: bool = False
    stopped: bool = False      # stop_when said the match is decided (an SPRT bound was crossed)
    games_played: int = 0      # games finished by this run (not those found on disk)
    seconds: float = 0.0       # wall time of this run, engine start-up included

    @property
    def games_per_second(self) -> float | None:
        return self.games_played / self.seconds if self.games_played and self.seconds > 0 else None


def pending_games(config: MatchConfig, finished: Iterable[Mapping[str, Any]]) -> list[int]:
    done = {int(record["game"]) for record in finished}
    return [game for game in range(1, config.games + 1) if game not in done]


#: How a backend plays games: ``play(config, directory, game_numbers, commit)`` calls
#: ``commit(record, sgf_text)`` once per finished game, in this (the referee's) process.
Backend = Callable[[MatchConfig, Path, Sequence[int], Callable[[dict[str, Any], str | None], None]], None]


class MatchDecided(Exception):
    """Raised by the commit step when ``stop_when`` says the match needs no more games"""


def run_match(
    config: MatchConfig,
    directory: Path,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[list[dict[str, Any]], list[int]], None] | None = None,
    stop_when: Callable[[list[dict[str, Any]]], bool] | None = None,
    backend: Backend | None = None,
) -> MatchRun:
    """Play the games of ``config`` not yet in ``directory``; resumable; Ctrl-C safe.

    ``on_start(finished_records, pending_game_numbers)`` is called once, ``on_game(record)``
    after each game is durably written. KeyboardInterrupt (and SIGTERM) stop the match
    after the finished games are written; the run is then marked ``interrupted``.
    ``stop_when(records)`` is asked after each written game (and once before the first,
    for a resumed match): True stops the match, games still being played are abandoned,
    and the run is marked ``stopped``. ``backend`` plays the games somewhere else (the Ray
    backend of :mod:`margo_adapters.cluster`); this process stays the only writer of the
    results and SGFs either way.
    """
    started = time.monotonic()
    finished = prepare_directory(config, directory)
    pending = pending_games(config, finished)
    records = list(finished)
    if stop_when is not None and stop_when(records):
        pending = []
    if on_start is not None:
        on_start(finished, pending)
    log = ResultsLog(directory)
    committed = {int(record["game"]) for record in finished}

    def commit(record: dict[str, Any], sgf_text: str | None) -> None:
        game = int(record["game"])
        if game in committed:  # a replayed game whose first play also came back: keep the first
            return
        if sgf_text is not None:
            write_atomically(directory / record["sgf"], sgf_text)
        log.append(record)
        committed.add(game)
        live_path(directory, game).unlink(missing_ok=True)
        records.append(record)
        if on_game is not None:
            on_game(record)
        if stop_when is not None and stop_when(records):
            raise MatchDecided

    interrupted = stopped = False
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous_term = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt) if in_main_thread else None
    try:
        if not pending:
            pass
        elif backend is not None:
            backend(config, directory, pending, commit)
        elif config.parallel <= 1 or len(pending) <= 1:
            _run_serial(config, directory, pending, commit)
        else:
            _run_parallel(config, directory, pending, commit)
    except KeyboardInterrupt:
        interrupted = True
    except MatchDecided:
        stopped = True
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous_term)
    # No game runs any more: a live feed left by an abandoned game (Ctrl-C, a decided
    # SPRT, a lost worker) describes nothing.
    for leftover in (directory / LIVE_DIRECTORY).glob("game-*.jsonl"):
        leftover.unlink(missing_ok=True)
    if (directory / LIVE_DIRECTORY).is_dir() and not any((directory / LIVE_DIRECTORY).iterdir()):
        (directory / LIVE_DIRECTORY).rmdir()
    # Read back from disk: an interrupt may land between a durable append and the
    # bookkeeping in memory, and the log is the truth.
    final = log.load()
    return MatchRun(final, interrupted, stopped, len(final) - len(finished), time.monotonic() - started)


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _wire_stream(config: MatchConfig, directory: Path, worker: int) -> IO[str] | None:
    if not config.wire_log:
        return None
    return open(directory / f"wire-{worker}.log", "a", encoding="utf-8")


def _run_serial(config: MatchConfig, directory: Path, games: Sequence[int], commit: Callable[[dict[str, Any], str | None], None]) -> None:
    wire = _wire_stream(config, directory, 0)
    runner = GameRunner(config, wire, live_directory=directory)
    try:
        for game in games:
            commit(*runner.play(game))
    finally:
        runner.close()
        if wire is not None:
            wire.close()


def _run_parallel(config: MatchConfig, directory: Path, games: Sequence[int], commit: Callable[[dict[str, Any], str | None], None]) -> None:
    """Worker processes play; only this (parent) process writes results."""
    # fork: a worker needs no re-import (spawn costs a Python start per worker); the
    # children touch neither the console nor any lock a parent thread may hold.
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    tasks: Any = context.Queue()
    results: Any = context.Queue()
    for game in games:
        tasks.put(game)
    count = min(config.parallel, len(games))
    for _ in range(count):
        tasks.put(None)
    workers = [
        context.Process(target=_worker_main, args=(config, str(directory), index, tasks, results, os.getpid()), daemon=True)
        for index in range(1, count + 1)
    ]
    for worker in workers:
        worker.start()
    remaining = len(games)
    try:
        while remaining:
            try:
                kind, payload = results.get(timeout=0.5)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    raise RuntimeError("every worker process ended before the match was finished") from None
                continue
            if kind == "start-error":
                raise EngineStartError(payload)
            if kind == "error":
                raise RuntimeError(f"a worker process failed: {payload}")
            commit(*payload)
            remaining -= 1
    except KeyboardInterrupt:
        # Keep the games the workers already finished and handed over.
        while True:
            try:
                kind, payload = results.get(timeout=0.1)
            except (queue.Empty, OSError, ValueError):
                break
            if kind == "game":
                try:
                    commit(*payload)
                except MatchDecided:
                    break
        raise
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        for worker in workers:
            worker.join(timeout=10)


def _worker_main(config: MatchConfig, directory: str, index: int, tasks: Any, results: Any, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_worker)
    wire = _wire_stream(config, Path(directory), index)
    runner = GameRunner(config, wire, live_directory=Path(directory))
    try:
        while True:
            if os.getppid() != parent:  # orphaned: the referee was killed, nobody reads results
                results.cancel_join_thread()  # do not block at exit on a pipe nobody drains
                return
            try:
                game = tasks.get(timeout=1.0)
            except queue.Empty:
                continue
            if game is None:
                return
            try:
                results.put(("game", runner.play(game)))
            except EngineStartError as error:
                results.put(("start-error", str(error)))
                return
            except Exception as error:  # noqa: BLE001 - reported to the parent, which stops the match
                results.put(("error", f"game {game}: {type(error).__name__}: {error}"))
                return
    finally:
        runner.close()
        if wire is not None:
            wire.close()


def _exit_worker(signum: int, frame: object) -> None:
    raise SystemExit(0)


def load_records(directory: Path) -> list[dict[str, Any]]:
    """The finished games of the match in ``directory`` (read-only, for reports)."""
    return ResultsLog(directory).load(repair=False)


def measure_parallel(
    command_a: str,
    command_b: str,
    directory: Path,
    games: int = 40,
    size: int = 5,
    parallels: Sequence[int] = (1, 2),
) -> dict[int, float | None]:
    """Games per second of the same fresh match at each ``--parallel`` value (wall time
    of :func:`run_match`, engine start-up included), played under ``directory``::

        measure_parallel("margo-gtp --player random", "margo-gtp --player random", Path("/tmp/bench"))
    """
    rates: dict[int, float | None] = {}
    for parallel in parallels:
        out = directory / f"parallel-{parallel}"
        if out.exists():
            raise FileExistsError(f"{out} exists: measure into a fresh directory")
        names = default_names(command_a, command_b)
        config = MatchConfig(
            EngineSpec("A", names[0], command_a), EngineSpec("B", names[1], command_b), games, Rules(size=size), parallel=parallel
        )
        rates[parallel] = run_match(config, out).games_per_second
    return rates
