"""The results of an analysis: :class:`AnalysisInfo` (one candidate move) and
:class:`AnalysisResult` (all of them, best first), and :func:`parse_candidate`, which
reads one ``info`` line of ``margo-analyze`` (gtp.md section 4) into a candidate. Shared by
:meth:`SimpleEngine.analyse` (a snapshot) and :class:`~margo_gtp.client.stream.AnalysisStream`."""

from __future__ import annotations

from dataclasses import dataclass

from margo_gtp.engine import Colour, Move

__all__ = ["AnalysisInfo", "AnalysisResult", "parse_candidate"]


@dataclass(frozen=True)
class AnalysisInfo:
    """One candidate move of an analysis: visits, win rate (for the side analysed), the
    prior (the heuristic prior win rate the search started from) and the principal variation starting with ``move``."""

    move: Move
    visits: int
    winrate: float
    prior: float
    pv: tuple[Move, ...]


@dataclass(frozen=True)
class AnalysisResult:
    """What :meth:`SimpleEngine.analyse` returns. ``candidates`` best first (the engine's
    ``order``); ``winrate``/``pv`` are the best candidate's, ``best_moves`` the candidates'
    moves. With no legal move for the side to move all are empty (``winrate`` None)."""

    colour: Colour
    candidates: tuple[AnalysisInfo, ...] = ()

    @property
    def winrate(self) -> float | None:
        return self.candidates[0].winrate if self.candidates else None

    @property
    def best_moves(self) -> list[Move]:
        return [info.move for info in self.candidates]

    @property
    def pv(self) -> list[Move]:
        return list(self.candidates[0].pv) if self.candidates else []


def parse_candidate(line: str, size: int) -> tuple[int, AnalysisInfo]:
    """``(order, AnalysisInfo)`` of one ``info`` line; ValueError/KeyError if malformed."""
    from margo_gtp.protocol.analysis import parse_info

    fields = parse_info(line)
    return fields["order"], AnalysisInfo(
        Move.from_gtp(fields["move"], size), fields["visits"], fields["winrate"], fields["prior"],
        tuple(Move.from_gtp(word, size) for word in fields["pv"]),
    )
