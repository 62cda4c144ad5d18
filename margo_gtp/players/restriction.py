"""KataGo's ``avoidMoves``/``allowMoves`` as a searcher reads them: which moves a tree may
give a node, by the node's colour to move and its depth.

A :class:`MoveRestriction` holds rules of the form "``player`` may not play ``moves``
(``avoid``), or may play only ``moves`` (``allow``), before ply ``until_depth``". Depth
is counted from the search's root: the root is at depth 0 and its moves are the first
ply, so a rule with ``until_depth`` 3 holds at depths 0, 1 and 2 -- the first three
plies -- and only at the nodes where ``player`` is to move. A move is refused at a depth
when any rule refuses it there (the rules add up, as KataGo's per-point depths do).

Every searcher filters a node's legal moves through :meth:`MoveRestriction.moves_at`
when it expands a node shallower than :attr:`MoveRestriction.depth`, and nowhere else: a
search without a restriction pays nothing. A node where the rules leave the mover no
legal move gets no children: each visit evaluates it as a leaf (a playout, or the net's
value), as a search must go on below a root whose restriction is met. The C tree reads
the same rules as one table (:func:`.native_search.limit_table`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from margo_gtp.engine import Colour, Move

__all__ = ["MAX_UNTIL_DEPTH", "MoveRestriction", "MoveRule"]

#: The deepest ``untilDepth`` (KataGo's bound): it fits the C tree's 32-bit table.
MAX_UNTIL_DEPTH = 1_000_000_000


@dataclass(frozen=True)
class MoveRule:
    """One ``avoidMoves`` or ``allowMoves`` object: ``player`` may not play ``moves``
    (``allow`` False), or may play nothing else (``allow`` True), before ply ``until_depth``."""

    player: Colour
    moves: frozenset[Move]
    until_depth: int
    allow: bool = False

    def refuses(self, move: Move) -> bool:
        return (move not in self.moves) if self.allow else (move in self.moves)


@dataclass(frozen=True)
class MoveRestriction:
    """The rules of one search (module docstring); :attr:`depth` is the first depth where
    none holds."""

    rules: tuple[MoveRule, ...]

    @classmethod
    def of(cls, rules: Iterable[MoveRule]) -> MoveRestriction | None:
        """The restriction of ``rules``; None when there are none (no filter at all)."""
        rules = tuple(rules)
        return cls(rules) if rules else None

    @classmethod
    def only_at_root(cls, player: Colour, moves: Iterable[Move]) -> MoveRestriction:
        """``player`` may play only ``moves`` at the root (``allowMoves`` with ``untilDepth`` 1)."""
        return cls((MoveRule(player, frozenset(moves), 1, allow=True),))

    @property
    def depth(self) -> int:
        return max(rule.until_depth for rule in self.rules)

    def limit(self, player: Colour | int, move: Move) -> int:
        """The depth from which ``player`` may play ``move``: 0 when no rule refuses it."""
        return max((rule.until_depth for rule in self.rules if rule.player == player and rule.refuses(move)), default=0)

    def moves_at(self, moves: Iterable[Move], player: Colour | int, depth: int) -> list[Move]:
        """The ``moves`` (in their order) that ``player`` may play at a node of ``depth``."""
        rules = [rule for rule in self.rules if rule.player == player and depth < rule.until_depth]
        if not rules:
            return list(moves)
        return [move for move in moves if not any(rule.refuses(move) for rule in rules)]
