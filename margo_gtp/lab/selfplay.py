"""In-process games between two player specs, for the strength tools (``scripts/strength``,
``scripts/tune``, ``scripts/resign-check``).

No GTP here: both players run in this process, one move at a time, which is what short
measurement games want (no process start-up, no pipes). The game is played by the house
loop (:func:`margo_gtp.game.loop.play_game`) with each player as a
:class:`~margo_gtp.game.bots.PlayerBot`, so it is judged and ended as a referee game is. Matches through the referee
(real engines, clocks, SGF) are :mod:`margo_gtp.match.referee`'s job.

Two shapes of a game. :func:`play_numbered_game` gives what ``scripts/strength`` writes:
the referee's ``results.jsonl`` line (:meth:`~margo_gtp.game.record.GameRecord.results_entry`,
the same fields, so the referee's reader and summary read a self-play folder as a match)
and its SGF, plus one field the referee cannot know, ``self_play``: the seeds, the final
score and the evals. :func:`play_game` gives the in-memory record the resignation check
and the tuner use: the specs and seeds, the winner (``"W"``, ``"B"`` or ``None``), how
the game ended (``result``: e.g. ``W+12``, ``B+R`` for a resignation, or ``capped``), the
final score, the moves as GTP text. Both hold, for searching players, the win rate and
root visits behind each of their moves (``evals``: ``[colour letter, win rate, visits]``
or ``None`` per move), which is what the resignation analysis reads.
:func:`read_json_lines` reads a JSON-lines file back, strictly, for the scripts that
count its lines (``scripts/tune``, ``scripts/resign-check``).
"""

from __future__ import annotations

import errno
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from margo_gtp import files, textfile
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.engine.rules import RulePairError, merge_option_flags, parse_rule_pairs
from margo_gtp.game.bots import PlayerBot
from margo_gtp.game.faults import MAX_MOVES, RESIGNATION
from margo_gtp.game.loop import GameEnd, relay
from margo_gtp.game.loop import play_game as loop_game
from margo_gtp.game.record import GameRecord
from margo_gtp.players import Player, make_player

from margo_gtp.match.game_runner import colours_of_game
from margo_gtp.match.stats import elo_interval, wilson_interval

__all__ = [
    "RulePairError", "RunFileError", "format_summary", "moves_of", "no_resign", "play_game", "play_numbered_game",
    "read_json_lines",
    "rule_options", "summary",
]


def rule_options(pairs: list[str], size: int | None, default_size: int) -> dict[str, str]:
    """The rule options of a script's ``--rule K=V`` values and ``--size``: RulePairError
    for a value that is not ``K=V`` or a key given twice (``parse_rule_pairs``); RulesError
    when ``--size`` and ``--rule size=N`` disagree (rather than one silently winning, as in
    margo-match). ``default_size`` when neither
    is given."""
    options = merge_option_flags(parse_rule_pairs(pairs), {"size": ("--size", size)})
    options.setdefault("size", str(default_size))
    return options


def moves_of(played: int, letter: str) -> int:
    """How many of a game's ``played`` plies the colour ``letter`` made: White moves first.
    A record's ``mean_move`` divides by it, and ``scripts/strength-report`` multiplies back."""
    return (played + (letter == "W")) // 2


def play_game(spec_white: str, spec_black: str, rules: Rules, seeds: tuple[int, int], max_moves: int,
              opening: list[str] | None = None) -> dict[str, Any]:
    """One game through the house game loop (:mod:`margo_gtp.game`); returns its record
    (see the module docstring). A player that breaks the rules is a bug: RuntimeError.

    ``opening``: GTP moves played first, as they are (both players are told of them), e.g.
    to continue a resigned game from the position where it was resigned. ``max_moves``
    counts them too.
    """
    played = _play({Colour.WHITE: (spec_white, "W", seeds[0]), Colour.BLACK: (spec_black, "B", seeds[1])},
                   rules, max_moves, opening or [])
    board, end, log = played.board, played.end, played.log
    moves = list(opening or []) + [entry["move"] for entry in end.moves] + (["resign"] if end.reason == RESIGNATION else [])
    white, black = board.score()
    plies = len(board.history)
    return {
        "white": spec_white, "black": spec_black, "seeds": list(seeds),
        "winner": None if end.winner is None else end.winner.letter,
        "result": "capped" if end.reason == MAX_MOVES else end.result, "moves": plies, "score": [white, black],
        "seconds": round(played.seconds, 2),
        "longest_move": {"W": round(log.longest[Colour.WHITE], 3), "B": round(log.longest[Colour.BLACK], 3)},
        "mean_move": {c.letter: round(log.thinking[c] / max(1, moves_of(plies, c.letter)), 4)
                      for c in (Colour.WHITE, Colour.BLACK)},
        "record": moves, "evals": log.evals,
    }


def play_numbered_game(spec_a: str, spec_b: str, rules: Rules, game: int, seeds: Mapping[str, int],
                       max_moves: int) -> tuple[dict[str, Any], str | None]:
    """Game number ``game`` (from 1) between ``spec_a`` and ``spec_b`` as the referee plays
    it: A holds White in odd games (:func:`~margo_gtp.match.game_runner.colours_of_game`).
    Returns the referee's ``results.jsonl`` line and SGF text, from one
    :class:`~margo_gtp.game.record.GameRecord`, with one more field, ``self_play``: the
    seeds (``[White's, Black's]``, the colours at the start), the final score
    ``[White, Black]`` and the evals (module docstring), which the referee cannot know.
    seeds maps ``"A"`` and ``"B"`` to each player's seed."""
    colours = colours_of_game(game)
    specs = {"A": spec_a, "B": spec_b}
    started = datetime.now(timezone.utc)
    played = _play({colour: (specs[label], label, seeds[label]) for label, colour in colours.items()}, rules, max_moves, [])
    record = GameRecord(rules, specs, colours, played.board, game=game, started=started)
    record.finish(played.end, played.seconds)
    entry, sgf_text = record.results_entry()
    by_colour = {colour: label for label, colour in colours.items()}
    white, black = played.board.score()
    entry["self_play"] = {"seeds": [seeds[by_colour[Colour.WHITE]], seeds[by_colour[Colour.BLACK]]],
                          "score": [white, black], "evals": played.log.evals}
    return entry, sgf_text


@dataclass
class _Played:
    board: Board
    end: GameEnd
    log: _MoveLog
    seconds: float


def _play(players: Mapping[Colour, tuple[str, str, int]], rules: Rules, max_moves: int, opening: list[str]) -> _Played:
    """One game of the players (``colour -> (spec, label, seed)``, colours at the start)."""
    log = _MoveLog()
    bots = {colour: _MeasuredBot(make_player(spec, seed), label, log) for colour, (spec, label, seed) in players.items()}
    board = Board(rules)
    started = time.perf_counter()
    try:
        for bot in bots.values():
            bot.new_game(board)
        # Lazy: each move's colour is the side to move once the one before is on the board.
        book = ((board.to_move, Move.from_gtp(text, rules.size)) for text in opening)
        relay(board, bots, book)
        log.evals.extend(None for _ in opening)
        end = loop_game(board, bots, max(0, max_moves - len(opening)))
    finally:
        for bot in bots.values():
            bot.close()
    if end.forfeit is not None:
        colour, fault = end.forfeit
        started_as = colour.opponent if board.swapped else colour  # bots are keyed by the colour at the start
        raise RuntimeError(f"{bots[started_as].player.name} broke the rules: {fault.detail}")
    return _Played(board, end, log, time.perf_counter() - started)


class _MoveLog:
    """What the record measures per genmove: the time by colour, and a search's evaluation."""

    def __init__(self) -> None:
        self.longest = {Colour.WHITE: 0.0, Colour.BLACK: 0.0}
        self.thinking = {Colour.WHITE: 0.0, Colour.BLACK: 0.0}
        self.evals: list[list[Any] | None] = []


class _MeasuredBot(PlayerBot):
    """A :class:`PlayerBot` that notes each genmove in a shared :class:`_MoveLog`."""

    def __init__(self, player: Player, label: str, log: _MoveLog) -> None:
        super().__init__(player, label)
        self.log = log

    def genmove(self, colour: Colour) -> tuple[str, float]:
        answer, seconds = super().genmove(colour)
        self.log.longest[colour] = max(self.log.longest[colour], seconds)
        self.log.thinking[colour] += seconds
        rate = getattr(self.player, "last_winrate", None)
        self.log.evals.append(None if rate is None else [colour.letter, round(rate, 4), getattr(self.player, "last_visits", 0)])
        return answer, seconds


def no_resign(spec: str) -> str:
    """``spec`` with resignation off when it is an mcts spec (other players never resign)."""
    name, _, options = spec.partition(":")
    if name.strip() != "mcts":
        return spec
    kept = [item for item in options.split(",") if item.strip() and not item.strip().startswith("resign=")]
    return "mcts:" + ",".join(kept + ["resign=0"])


def summary(spec_a: str, spec_b: str, wins: int, draws: int, losses: int) -> dict[str, Any]:
    """W/D/L of A with its score, Wilson 95% interval and Elo difference (with interval)."""
    games = wins + draws + losses
    low, high = wilson_interval(wins + 0.5 * draws, games)
    elo = elo_interval(wins, draws, losses)
    return {"a": spec_a, "b": spec_b, "games": games, "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + 0.5 * draws) / games if games else None, "wilson95": [low, high],
            "elo": elo.as_json()}


def format_summary(s: dict[str, Any]) -> str:
    """One line: W/D/L, score with its Wilson interval, Elo with its interval. A record
    with no loss or no win has no finite Elo: it says so, as margo-match does; an
    unbounded end of an interval is written with its sign (None in the JSON summary)."""
    elo = s["elo"]

    def show(value: float | None, unbounded: str) -> str:
        return unbounded if value is None else f"{value:+.0f}"

    if s["wins"] + s["draws"] + s["losses"] and not s["losses"] and not s["draws"]:
        elo_text = "n/a (no losses)"
    elif s["wins"] + s["draws"] + s["losses"] and not s["wins"] and not s["draws"]:
        elo_text = "n/a (no wins)"
    else:
        centre = "+inf" if (s["score"] or 0) >= 0.5 else "-inf"
        elo_text = f"{show(elo['elo'], centre)} [{show(elo['low'], '-inf')}, {show(elo['high'], '+inf')}]"
    return (f"{s['a']} vs {s['b']}: W/D/L {s['wins']}/{s['draws']}/{s['losses']} of {s['games']}; "
            f"score {s['score']:.3f} (Wilson 95% {s['wilson95'][0]:.3f}-{s['wilson95'][1]:.3f}); "
            f"Elo {elo_text}")


#: Largest run file read (a game line is a few kilobytes; this is tens of thousands of games).
MAX_RUN_FILE_BYTES = 256 * 1024 * 1024


class RunFileError(Exception):
    """A JSON-lines file that cannot be read; the message names the file (and the line)."""


def read_json_lines(path: Path) -> list[tuple[str, Any]]:
    """``(where, value)`` for every non-blank line of a JSON-lines file (a ``--out`` file
    of the strength tools, a margo-match ``results.jsonl``), ``where`` being ``path:line``.

    Strict, because the scripts that read it count games and a count must not silently
    drop one: an unreadable file or whole line raises :class:`RunFileError` with one of
    ``PATH: no such file``, ``PATH: is a directory``, ``PATH: cannot read: REASON`` or
    ``PATH:N: not a JSON line``. A torn last line (no newline: its writer died in it) is
    no game and is left out, as :mod:`margo_gtp.files` rules for every JSON-lines file.
    What a line must hold is the caller's to check."""
    try:  # a regular file of at most MAX_RUN_FILE_BYTES: /dev/zero or a FIFO is refused at once
        text = textfile.read_bytes(path, MAX_RUN_FILE_BYTES).decode("utf-8")
    except textfile.TextFileError as error:
        words = {errno.ENOENT: "no such file", errno.EISDIR: "is a directory"}
        reason = words.get(error.errno or 0) or (f"cannot read: {error.reason}" if error.errno else error.reason)
        raise RunFileError(f"{path}: {reason}") from None
    except UnicodeDecodeError as error:
        raise RunFileError(f"{path}: cannot read: {error}") from None
    values = []
    for number, line in files.complete_lines(text):
        if not line.strip():
            continue
        try:
            values.append((f"{path}:{number}", json.loads(line)))
        except (ValueError, RecursionError):  # JSONDecodeError, bad UTF-8, and nesting too deep alike
            raise RunFileError(f"{path}:{number}: not a JSON line") from None
    return values
