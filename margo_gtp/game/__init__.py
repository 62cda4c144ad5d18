"""Games between two players: one loop, one player contract, one record.

- :mod:`.faults`: forfeit reasons, :class:`EngineFault`, :class:`EngineStartError`;
- :mod:`.loop`: :func:`play_game` (ask the mover, judge with our own Board, inform the
  other, until the rules core says over), judging, forfeits, adjudication, relayed moves;
- :mod:`.bots`: the :class:`Bot` contract, :class:`PlayerBot` (an in-process player) and
  :class:`GtpBot` (a GTP engine through :class:`margo_gtp.client.SimpleEngine`);
- :mod:`.record`: :class:`GameRecord`, from which the ``results.jsonl`` line, the live feed
  and the SGF are written.

The referee (:mod:`margo_gtp.match.referee`), self-play (:mod:`margo_gtp.lab.selfplay`)
and the web board (:mod:`margo_gtp.web.game`) play their games through it.
"""

from margo_gtp.game.bots import Bot, GtpBot, PlayerBot
from margo_gtp.game.faults import EngineFault, EngineStartError
from margo_gtp.game.loop import GameEnd, adjudicate, end_of, forfeit, judge, play_game, relay
from margo_gtp.game.record import GameRecord, feed_move, sgf_name

__all__ = [
    "Bot", "EngineFault", "EngineStartError", "GameEnd", "GameRecord", "GtpBot", "PlayerBot", "adjudicate",
    "end_of", "feed_move", "forfeit", "judge", "play_game", "relay", "sgf_name",
]
