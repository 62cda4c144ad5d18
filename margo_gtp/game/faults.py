"""Why a game ended other than by the rules: the forfeit reasons and :class:`EngineFault`.

The reason strings are stored in ``results.jsonl`` and counted in summaries, so they are
part of the referee's output format (docs/referee.md). A bot raises :class:`EngineFault`
for anything its player did wrong; the game loop (:mod:`margo_gtp.game.loop`) turns it into
a forfeit. :class:`EngineStartError` is not a forfeit: an engine that never got ready stops
the whole match (it is the match that is misconfigured).
"""

from __future__ import annotations

__all__ = [
    "ADJUDICATED", "CRASH", "EOF", "FORFEIT", "GENMOVE_FAILED", "ILLEGAL_MOVE", "MALFORMED_MOVE", "MAX_MOVES",
    "PROTOCOL_ERROR", "REJECTED_MOVE", "RESIGNATION", "SETUP_FAILED", "START_FAILED", "TIMEOUT", "TIME_CONTROL",
    "EngineFault", "EngineStartError",
]

# Forfeit reasons (EngineFault.reason)
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

# Game endings (a record's "reason") besides the rules core's Termination values.
RESIGNATION = "resignation"
FORFEIT = "forfeit"
MAX_MOVES = "adjudicated at max moves"
ADJUDICATED = "adjudicated by margin"


class EngineFault(Exception):
    """Raised by a bot when its player misbehaved; the game is lost by forfeit.

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
