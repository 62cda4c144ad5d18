"""A third-party MarGo player for the entry-point test: always the last legal move.

Built by the factory ``make_last_move_player(options, seed)`` that the entry point
``plugin-last`` in group ``margo_gtp.players`` names. The one option ``first=on`` makes it
play the first legal move instead, so option passing is visible too.
"""

from __future__ import annotations


class LastMovePlayer:
    name = "plugin-last"

    def __init__(self, first: bool = False) -> None:
        self.first = first

    def select_move(self, board, colour, budget):
        from margo_gtp.engine import Move

        moves = board.legal_moves(colour)
        if not moves:
            return Move.PASS
        return moves[0] if self.first else moves[-1]

    def notify(self, board, move, colour) -> None:
        pass

    def reset(self, board) -> None:
        pass


def make_last_move_player(options: dict[str, str], seed: int | None) -> LastMovePlayer:
    from margo_gtp.players import PlayerSpecError

    unknown = set(options) - {"first"}
    if unknown:
        raise PlayerSpecError(f"unknown option(s) for player 'plugin-last': {', '.join(sorted(unknown))}")
    return LastMovePlayer(first=options.get("first") == "on")
