"""One game record: the data of a game, and the three things written from it.

A :class:`GameRecord` is made when a game starts (who holds which colour, the rules, the
board) and completed when it ends (the loop's :class:`~margo_gtp.game.loop.GameEnd`, the
times). Everything the tools write about a game is written from it, so they cannot
disagree:

- :meth:`GameRecord.results_entry`: the referee's ``results.jsonl`` object (docs/referee.md);
- :meth:`GameRecord.feed_start` and :func:`feed_move`: the live feed's lines (LIVE_FEED.md);
- :meth:`GameRecord.sgf_text`: the SGF file (:mod:`margo_gtp.sgf`).

Players are named by *label* (the referee's ``A`` and ``B``; the web board's seats): ``names``
maps a label to the player's name and ``colours`` to the colour it held at the start. A
swap exchanges the colours; a match record names each colour's holder at the end (as
``results.jsonl`` always has), a record without a game number (the web board's) the holder
at the start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from margo_gtp import sgf
from margo_gtp.engine import Board, Colour, Rules

from margo_gtp.game.loop import GameEnd

__all__ = ["GameRecord", "feed_move", "sgf_name"]


def sgf_name(game: int) -> str:
    """The file name of game number ``game``'s SGF in a match directory."""
    return f"game-{game:04d}.sgf"


def feed_move(ply: int, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The live feed's line for the ``ply``-th move (1-based, an opening's included)."""
    return {"type": "move", "ply": ply, "colour": entry["colour"], "move": entry["move"], "seconds": entry["seconds"]}


@dataclass
class GameRecord:
    """One game; see the module docstring. ``moves`` are the loop's move entries (an
    opening's not included: those are ``opening``'s, played before the bots moved)."""

    rules: Rules
    names: Mapping[str, str]
    colours: Mapping[str, Colour]
    board: Board
    game: int | None = None
    opening: tuple[int, Sequence[tuple[str, str]]] | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    end: GameEnd | None = None
    started: datetime | None = None
    duration: float = 0.0
    root_properties: Mapping[str, list[str]] = field(default_factory=dict)   # more SGF root properties, raw

    def holders(self, final: bool = False) -> dict[Colour, str]:
        """The label holding each colour at the start (or, ``final``, at the end)."""
        flip = final and self.board.swapped
        return {(colour.opponent if flip else colour): label for label, colour in self.colours.items()}

    def opening_moves(self) -> list[tuple[str, str]]:
        return list(self.opening[1]) if self.opening is not None else []

    def finish(self, end: GameEnd, duration: float) -> None:
        self.end, self.moves, self.duration = end, end.moves, duration

    # ------------------------------------------------------------------ the live feed

    def feed_start(self) -> dict[str, Any]:
        """The live feed's first line (the players as they sit at the start)."""
        holder = self.holders()
        return {
            "type": "start", "game": self.game,
            "black": self.names[holder[Colour.BLACK]], "white": self.names[holder[Colour.WHITE]],
            "size": self.rules.size, "rules": self.rules.options(), "setup": [],
        }

    # ------------------------------------------------------------------ results.jsonl

    def results_entry(self) -> tuple[dict[str, Any], str | None]:
        """The finished match game's ``results.jsonl`` object and its SGF text. An SGF that
        cannot be written leaves ``sgf`` None and says why in ``sgf_error``: a record
        without SGF beats a lost game."""
        assert self.end is not None and self.game is not None and self.started is not None
        end = self.end
        final = self.holders(final=True)
        forfeit = None
        if end.forfeit is not None:
            colour, fault = end.forfeit
            forfeit = {"engine": final[colour], "colour": colour.letter, "reason": fault.reason, "detail": fault.detail}
        counts = self.board.ball_counts()
        entry: dict[str, Any] = {
            "game": self.game,
            "engine_a": self.names["A"],
            "engine_b": self.names["B"],
            "a_colour": self.colours["A"].letter,
            "a_colour_final": (self.colours["A"].opponent if self.board.swapped else self.colours["A"]).letter,
            "swapped": self.board.swapped,
            "white": self.names[final[Colour.WHITE]],
            "black": self.names[final[Colour.BLACK]],
            "winner": final[end.winner] if end.winner is not None else None,
            "winner_colour": end.winner.letter if end.winner is not None else None,
            "result": end.result,
            "reason": end.reason,
            "forfeit": forfeit,
            "balls": {"W": counts[Colour.WHITE], "B": counts[Colour.BLACK]},
            "move_count": len(self.moves),
            "moves": self.moves,
            "started": self.started.isoformat(timespec="seconds"),
            "duration": round(self.duration, 6),
            "sgf": sgf_name(self.game),
        }
        if self.opening is not None:
            entry["opening"] = {"number": self.opening[0], "moves": [f"{letter} {move}" for letter, move in self.opening[1]]}
        try:
            sgf_text = self.sgf_text()
        except Exception as error:  # noqa: BLE001 - a record without SGF beats a lost game
            entry["sgf"] = None
            entry["sgf_error"] = f"{type(error).__name__}: {error}"
            sgf_text = None
        return entry, sgf_text

    # ------------------------------------------------------------------ SGF

    def sgf_text(self) -> str:
        """The game as SGF: a match game with its result, reason and forfeit as ``GC`` and
        its date as ``DT``; a game without a number with the players and result only."""
        holder = self.holders(final=self.game is not None)
        root: dict[str, list[str]] = dict(self.root_properties)
        if self.game is not None and self.end is not None:
            comment = f"margo-match game {self.game}: {self.end.result} ({self.end.reason})"
            if self.end.forfeit is not None:
                colour, fault = self.end.forfeit
                comment += f"; engine {self.holders(final=True)[colour]} forfeited: {fault.reason}: {fault.detail}"
            root["GC"] = [_sgf_text_value(comment)]
            if self.started is not None:
                root["DT"] = [self.started.isoformat(timespec="seconds")[:10]]
        game_record = sgf.record_from_board(
            self.board,
            result=self.end.result if self.end is not None else None,
            white_name=self.names[holder[Colour.WHITE]],
            black_name=self.names[holder[Colour.BLACK]],
            times=[None] * len(self.opening_moves()) + [move["seconds"] for move in self.moves],
            **({"root_properties": root} if root else {}),
        )
        return sgf.dumps(game_record)


def _sgf_text_value(text: str) -> str:
    """Escape ``text`` for a raw SGF Text value (backslash and closing bracket)."""
    return text.replace("\\", "\\\\").replace("]", "\\]")
