"""One numbered game of a match between two GTP engines: :class:`GameRunner`.

The runner holds the two engines (:class:`~margo_gtp.game.bots.GtpBot`, one process each,
reused across games), gives them their colours (engine A holds White in odd-numbered
games: :func:`colours_of_game`), sets them up, relays the game's opening from the book
(games ``2k-1`` and ``2k`` start from opening ``k``), plays the game with the one loop
(:func:`margo_gtp.game.loop.play_game`) while the live feed observes it, and returns the
game's ``results.jsonl`` record and SGF text, both written from one
:class:`~margo_gtp.game.record.GameRecord`. Used in-process, in each worker process and
on each Ray worker.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from margo_gtp.engine import Board, Colour, Move
from margo_gtp.game.bots import GtpBot
from margo_gtp.game.faults import CRASH, EOF, EngineFault
from margo_gtp.game.loop import GameEnd, forfeit, play_game, relay
from margo_gtp.game.record import GameRecord
from margo_gtp.players.clock import Clock

from margo_gtp.match.live_feed import LiveFeed
from margo_gtp.match.match_config import MatchConfig
from margo_gtp.match.openings import board_after, opening_of_game


def colours_of_game(game: int) -> dict[str, Colour]:
    """Colour each engine label holds at the start of game number ``game`` (1-based)."""
    a = Colour.WHITE if game % 2 == 1 else Colour.BLACK
    return {"A": a, "B": a.opponent}


class GameRunner:
    """Holds the two engines of a match and plays numbered games between them."""

    def __init__(self, config: MatchConfig, wire_log: IO[str] | None = None, live_directory: Path | None = None) -> None:
        self.config = config
        self.live_directory = live_directory
        self.players = {
            label: GtpBot(spec, move_timeout=config.move_timeout, command_timeout=config.command_timeout, wire_log=wire_log)
            for label, spec in config.engines().items()
        }

    def play(self, game: int) -> tuple[dict[str, Any], str | None]:
        """Play game number ``game``; return its results.jsonl record and its SGF text."""
        config = self.config
        colours = colours_of_game(game)
        by_colour = {colour: self.players[label] for label, colour in colours.items()}
        opening = opening_of_game(config.openings, game)
        board = board_after(config.rules, opening[1]) if opening else Board(config.rules)
        names = {label: spec.name for label, spec in config.engines().items()}
        record = GameRecord(config.rules, names, colours, board, game=game, opening=opening,
                            started=datetime.now(timezone.utc))
        started = time.monotonic()
        with LiveFeed.open(self.live_directory, record) as live:
            book = [(Colour.parse(letter), Move.from_gtp(text, config.rules.size)) for letter, text in record.opening_moves()]
            end = self._set_up(by_colour) or relay(None, by_colour, book, on_move=live.move)
            if end is None:
                end = play_game(board, by_colour, config.max_moves, config.adjudication, on_move=live.move)
        record.finish(end, time.monotonic() - started)
        return record.results_entry()

    def _set_up(self, by_colour: Mapping[Colour, GtpBot]) -> GameEnd | None:
        for step in ("start", "set up"):  # start both engines before waiting for either
            for colour in (Colour.WHITE, Colour.BLACK):
                player = by_colour[colour]
                try:
                    if step == "start":
                        player.ensure_running()
                    else:
                        control = self.config.time_control
                        player.new_game(self.config.rules, control, Clock(control.settings()) if control is not None else None)
                except EngineFault as fault:
                    if not player.ready and fault.reason in (CRASH, EOF):
                        raise player.start_failure(fault) from None
                    return forfeit(colour, fault, [])
        return None

    def close(self) -> None:
        for player in self.players.values():
            player.close()
