"""Analysis commands: ``margo-analyze`` (gtp.md section 4) and playout-based estimates.

A handler group added to an engine next to the game session (:func:`install`; the
``margo-gtp`` command line does so for every player):

``margo-analyze C [interval] [ownership true|false]``
    Streams the MCTS search for colour ``C`` in the current position, in the style of
    ``kata-analyze``: the answer starts with ``=``; every ``interval`` centiseconds
    (default 50) it writes one line per candidate move, best first::

        info move D4:1 visits 120 winrate 0.5625 scoreLead 2.50 prior 0.9000 amaf 0.5100 order 0 pv D4:1 C4:1 D5:1

    ``winrate`` is for ``C``; ``scoreLead`` is ``C``'s mean final score lead after the
    move (kata-analyze's field, in its place after the win rate; left out for a move
    searched only by the prior's virtual visits); ``prior`` is the win rate the search
    gave the move before
    searching it (the heuristic player's one-ply opinion, 0.5 when none: the role of a
    policy prior in ``kata-analyze``), and for the ``net`` player (``strongest``, the
    default, on 7x7 and 9x9) the policy's probability of the move; ``amaf`` is its
    all-moves-as-first (RAVE) win rate (0.5 for the net, which keeps none); ``pv`` the most visited line. With ``ownership true`` (kata-analyze's
    key-value pair) each report ends with one more line, ``ownership`` and one value a
    point from -1 to 1 for ``C`` (positive: ``C``'s), in the point order of
    ``margo-analysis`` (:func:`~margo_gtp.analysis.game_analysis.katago_points`): the
    MCTS search's final positions so far (on the C tree with several threads, its first
    thread's share of them until the end); for the ``net`` player, its ownership head
    averaged over the search's simulations (:meth:`~margo_gtp.players.net.NetSearch.ownership`:
    the expected owner, territory included, +1 ``C``'s). It stops at the next input line and ends with an empty
    line. The search grows the player's own tree when the player is an MCTS player, so a
    ``genmove C`` that follows reuses it; otherwise a private MCTS player is used. When
    ``C`` has no legal move, no line is written. The board is never changed.
``margo-analyze_snapshot C [centiseconds] [ownership true|false]``
    The same lines once (with ``ownership true``, the ``ownership`` line after them,
    from every simulation), after searching ``centiseconds`` (default: the limit set by
    ``margo-set_limit`` if any, else 100; at most ``MAX_SNAPSHOT_CS``, more is a
    ``syntax error``), as one answer: what ``gogui-analyze_commands`` offers, since GoGui
    waits for the end of an answer and cannot drive a stream. Unlike the stream, it
    spends its whole budget whatever input is queued behind it (a piped script gets
    what a person typing it gets); a playouts budget without a time is still capped at
    ``MAX_SNAPSHOT_CS``, so a snapshot never wedges the engine. The answer starts on the
    line after ``=`` (``= \\ninfo move ...``).

``margo-ownership [centiseconds]``
    Who owns each point at the end: a private seeded MCTS search of the position for the
    colour to move (:func:`margo_gtp.analysis.game_analysis.analyse_position`, so the
    same answer as ``margo-review``'s maps for the same budget), then one line per point
    of the pyramid, in ``gtp_order``: ``VERTEX VALUE``, the share of the search's final
    positions with a Black ball there minus the share with a White one (-1..1, 3
    decimals). When the session's player is ``net`` (``strongest``) with a network for
    the size, its own search answers instead (its tree, as ``margo-analyze``'s), and the
    value is its averaged ownership head, Black's view: the expected owner, +1 Black's. The budget is the snapshot's: ``centiseconds``, else the
    ``margo-set_limit`` limit, else 1 s. A finished game answers its final position.
    The 2-D proxy draws it as GoGui's ``INFLUENCE`` (docs/adapters.md).
``margo-ownership_kind``
    What ``margo-ownership`` answers now, in one word: ``balls`` (the private search's
    final positions' balls; their sum is the expected ball margin) or ``owners`` (the net's
    ownership head: each point's expected owner, territory counted). The 2-D proxy words
    its status line by it.

With an MCTS player, ``final_score`` and ``final_status_list`` (``dead``/``alive``) use
:func:`margo_gtp.players.mcts.estimate` (playouts to the end, ownership of the
balls; ``ESTIMATE_PLAYOUTS`` within ``ESTIMATE_SECONDS``, or exactly the budget of
``margo-set_limit`` when one was set) while the game is not over; with other players the session's own answers stand
(ball counts now, zombies as dead). A finished or resigned game is always the session's.

The stream is one search from start to end, and its lines come from the running search:
on the C tree (:mod:`margo_gtp.players.native_search`) its first thread hands the root's
children over every ``interval``; the next input line stops it after the simulations in
flight (the session's reader thread sets a stop flag that every search thread reads
before each simulation).

What is enforced: colour and interval syntax (``syntax error``); the tree's memory, by
the C tree's pool cap (``mcts:max_nodes``, docs/players.md), on the C tree. What is not:
a bound on the Python tree (the fallback, and searches the C tree cannot run) beyond
``MAX_ANALYSIS_VISITS`` root visits, where the stream stops searching and repeats its
last lines (the C tree, bounded by its pool, searches on).
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from margo_gtp.analysis.game_analysis import analyse_position
from margo_gtp.engine import Colour
from margo_gtp.options import parse_decimal, parse_integer
from margo_gtp.players.mcts import Analysis, MctsPlayer, estimate
from margo_gtp.players.ownership import Ownership
from margo_gtp.protocol.gtp import GtpEngine, GtpError
from margo_gtp.protocol.handlers import Converter, HandlerGroup
from margo_gtp.vertex import gtp_order

__all__ = ["AnalysisGroup", "AnalysisStream", "format_info", "format_ownership", "install", "parse_info", "searches"]

DEFAULT_INTERVAL_CS = 50          # margo-analyze report interval when none is given
DEFAULT_SNAPSHOT_CS = 100         # margo-analyze_snapshot thinking time
MAX_SNAPSHOT_CS = 60 * 100        # ... and its cap (a minute)
MAX_ANALYSIS_VISITS = 2_000_000   # a stream stops searching (and keeps reporting) beyond this
ESTIMATE_SECONDS = 1.0            # final_score / final_status_list thinking time
ESTIMATE_PLAYOUTS = 300           # ... and playout cap (whichever comes first)


def format_info(item: Analysis) -> str:
    """One ``info`` line (gtp.md section 4)."""
    pv = " ".join(move.gtp() for move in item.pv)
    score = "" if item.score is None else f"scoreLead {item.score:.2f} "
    return (f"info move {item.move.gtp()} visits {item.visits} winrate {item.winrate:.4f} {score}"
            f"prior {item.prior:.4f} amaf {item.amaf:.4f} order {item.order} pv {pv}")


def format_ownership(ownership: Ownership, size: int, colour: Colour) -> str:
    """The ``ownership`` line of ``ownership true``: one value a point, in
    :func:`~margo_gtp.analysis.game_analysis.katago_points` order, for ``colour``."""
    from margo_gtp.analysis.game_analysis import katago_ownership

    return "ownership " + " ".join(f"{value:.4f}" for value in katago_ownership(ownership, size, colour))


def parse_options(words: tuple[str, ...], what: str) -> tuple[int | None, bool]:
    """``[number] [ownership true|false]`` after the colour: the number (None when not
    given) and whether ownership is asked; ``syntax error`` for anything else."""
    number = None
    rest = list(words)
    if rest and rest[0] != "ownership":
        try:
            number = parse_integer(rest.pop(0))
        except ValueError as error:
            raise GtpError("syntax error", detail=f"{what}: {error}") from None
    ownership = False
    while rest:
        if len(rest) < 2 or rest[0] != "ownership" or rest[1] not in ("true", "false"):
            raise GtpError("syntax error", detail=f"expected 'ownership true' or 'ownership false', got {' '.join(rest)!r}")
        ownership = rest[1] == "true"
        del rest[:2]
    return number, ownership


def parse_info(line: str) -> dict[str, Any]:
    """Parse an ``info`` line into ``{'move': 'D4:1', 'visits': 12, 'winrate': 0.5, 'prior':
    0.5, 'order': 0, 'pv': ['D4:1', ...]}`` (any field order); ValueError if malformed."""
    words = line.split()
    if not words or words[0] != "info":
        raise ValueError(f"not an info line: {line!r}")
    fields: dict[str, Any] = {}
    i = 1
    while i < len(words):
        key = words[i]
        if key == "pv":
            fields["pv"] = words[i + 1:]
            break
        if i + 1 >= len(words):
            raise ValueError(f"field {key!r} has no value in {line!r}")
        value = words[i + 1]
        if key in ("visits", "order"):
            fields[key] = parse_integer(value)
        elif key in ("winrate", "prior", "amaf", "scoreLead"):
            fields[key] = parse_decimal(value)
        else:
            fields[key] = value
        i += 2
    missing = {"move", "visits", "winrate", "prior", "order", "pv"} - set(fields)
    if missing:
        raise ValueError(f"info line lacks {sorted(missing)}: {line!r}")
    return fields


def format_vertex_ownership(ownership: dict[str, list[float]]) -> str:
    """``margo-ownership``'s lines from an ownership map ``{vertex: [white, black, empty]}``
    (Black's share less White's, a line a point; ``ownership true``'s one line is
    :func:`format_ownership`)."""
    return "\n".join(f"{vertex} {shares[1] - shares[0]:.3f}" for vertex, shares in ownership.items())


class AnalysisStream:
    """The streaming result of ``margo-analyze`` (a :class:`~margo_gtp.protocol.gtp.GtpStream`)."""

    def __init__(self, player: MctsPlayer, board: Any, colour: Colour, interval: float,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 ownership: bool = False) -> None:
        self.player = player
        self.board = board.copy()
        self.colour = colour
        self.interval = interval
        self.clock = clock
        self.sleep = sleep
        self.ownership = Ownership(self.board.geometry.points) if ownership else None

    def run(self, write: Callable[[str], None], stop_requested: Callable[[], bool]) -> None:
        if not self.board.legal_moves(self.colour):
            while not stop_requested():
                self.sleep(0.01)
            return

        def report(root: Any) -> bool:
            """Write the lines; True (stop searching) past the Python tree's guard."""
            for item in self.player.analysis(root):
                write(format_info(item))
            if self.ownership is not None:
                write(format_ownership(self.ownership.so_far(), self.board.size, self.colour))
            return root.n >= MAX_ANALYSIS_VISITS and not self.player.last_tree_nodes

        # One search for the whole stream, reporting from inside it (the C tree calls
        # report from its first thread every interval; the Python search between
        # simulations). stop_requested is the session's flag (gtp._LineReader): the C
        # tree reads it before every simulation.
        with counting(self.player, self.ownership):
            root = self.player.search(self.board, self.colour, stop=stop_requested, on_progress=report,
                                      interval=self.interval, scores=True)
        while not stop_requested():  # the visit cap: the same lines, every interval, until the next input
            next_report = self.clock() + self.interval
            while self.clock() < next_report and not stop_requested():
                self.sleep(0.01)
            if not stop_requested():
                report(root)


class SnapshotStream:
    """The result of ``margo-analyze_snapshot``: search to the limit (whatever input is
    waiting), then write the lines once (a :class:`~margo_gtp.protocol.gtp.GtpStream`, so the
    session loop can tell it that input is waiting)."""

    stop_at_eof = False  # bounded by its limit: a script that ends after it still gets the answer

    def __init__(self, player: MctsPlayer, board: Any, colour: Colour, seconds: float | None, playouts: int | None,
                 ownership: bool = False) -> None:
        self.player = player
        self.board = board.copy()
        self.colour = colour
        self.seconds = seconds
        self.playouts = playouts
        self.ownership = Ownership(self.board.geometry.points) if ownership else None

    def run(self, write: Callable[[str], None], stop_requested: Callable[[], bool]) -> None:
        if not self.board.legal_moves(self.colour):
            return
        # The whole budget, whatever is queued behind: GTP is sequential, so a piped script
        # must get the answer a person typing it gets. A playouts budget is still bounded
        # by MAX_SNAPSHOT_CS, so a snapshot never wedges the engine. (Only the endless
        # margo-analyze stops at the next command.)
        seconds = MAX_SNAPSHOT_CS / 100 if self.seconds is None else self.seconds
        deadline = self.player.clock() + seconds
        with counting(self.player, self.ownership):
            root = self.player.search(self.board, self.colour, playouts=self.playouts, deadline=deadline,
                                      scores=True)
        for item in self.player.analysis(root):
            write(format_info(item))
        if self.ownership is not None:
            write(format_ownership(self.ownership, self.board.size, self.colour))


class GenmoveAnalyzeStream:
    """The streaming result of ``margo-genmove_analyze C [interval]``: ``genmove C`` as it
    is (the same budget, clock, choice and move played), writing the player's own search
    as ``info`` reports every ``interval`` while it runs, then ``play MOVE`` (``play
    resign``, ``play pass``), as KataGo's ``kata-genmove_analyze``. A player without a
    search (random, heuristic) writes only the ``play`` line. Like ``genmove`` it ends
    when the move is chosen, whatever input arrives meanwhile."""

    stop_at_eof = False  # bounded by the move's budget, as genmove

    def __init__(self, session: Any, colour: Colour, interval: float) -> None:
        self.session = session
        self.colour = colour
        self.interval = interval

    def run(self, write: Callable[[str], None], stop_requested: Callable[[], bool]) -> None:
        player = self.session.player  # read now: margo-level may have changed it

        def report(root: Any) -> None:
            for item in player.analysis(root):
                write(format_info(item))

        reporting = searches(player)
        if reporting:
            player.progress, player.progress_interval = report, self.interval
        try:
            answer = self.session.cmd_genmove(self.colour)
        finally:
            if reporting:
                player.progress = None
        write(f"play {answer}")


@contextlib.contextmanager
def counting(player: Any, ownership: Ownership | None) -> Iterator[None]:
    """``player`` (``mcts``: its searches' final positions; ``net``: its root's averaged
    ownership head) fills ``ownership`` meanwhile (None: as before)."""
    if ownership is None:
        yield
        return
    before = player.ownership
    player.ownership = ownership
    try:
        yield
    finally:
        player.ownership = before


class AnalysisGroup(HandlerGroup):
    """``margo-analyze`` and ``margo-analyze_snapshot`` on a :class:`GameSession`, plus
    playout estimates for ``final_score``/``final_status_list`` with an MCTS player."""

    def __init__(self, session: Any) -> None:
        self.session = session
        own = session.player if searches(session.player) else None
        self._mcts = own
        self._private: MctsPlayer | None = None

    def player(self) -> MctsPlayer:
        """The session's searching player (read now: ``margo-level`` may have changed it),
        or a private MCTS one (seeded, so analysis is repeatable)."""
        if searches(self.session.player):
            return self.session.player
        if self._private is None:
            self._private = MctsPlayer(random.Random(0))
        return self._private

    def commands(self) -> dict[str, Callable[..., Any]]:
        table: dict[str, Callable[..., Any]] = {
            "margo-analyze": self.cmd_margo_analyze,
            "margo-analyze_snapshot": self.cmd_margo_analyze_snapshot,
            "margo-ownership": self.cmd_margo_ownership,
            "margo-genmove_analyze": self.cmd_margo_genmove_analyze,
            "margo-ownership_kind": self.cmd_margo_ownership_kind,
        }
        if self._mcts is not None:
            table["final_score"] = self.cmd_final_score
            table["final_status_list"] = self.cmd_final_status_list
        return table

    def converters(self) -> dict[Any, Converter]:
        table = super().converters()
        table[Colour] = Colour.parse
        return table

    def cmd_margo_analyze(self, colour: Colour, *options: str) -> AnalysisStream:
        interval, ownership = parse_options(options, "interval")
        centiseconds = DEFAULT_INTERVAL_CS if interval is None else interval
        if centiseconds < 0:
            raise GtpError("syntax error")
        if self._private is not None and self._mcts is None:
            self._private.reset(self.session.board)
        return AnalysisStream(self.player(), self.session.board, colour, max(centiseconds, 1) / 100,
                              ownership=ownership)

    def cmd_margo_genmove_analyze(self, colour: Colour, interval: int | None = None) -> "GenmoveAnalyzeStream":
        centiseconds = DEFAULT_INTERVAL_CS if interval is None else interval
        if centiseconds < 0:
            raise GtpError("syntax error")
        return GenmoveAnalyzeStream(self.session, colour, max(centiseconds, 1) / 100)

    def _snapshot_budget(self, centiseconds: int | None) -> tuple[float | None, int | None]:
        """``(seconds, playouts)`` of a snapshot: ``centiseconds``, else the
        ``margo-set_limit`` limit, else DEFAULT_SNAPSHOT_CS."""
        if centiseconds is not None and not 0 <= centiseconds <= MAX_SNAPSHOT_CS:
            raise GtpError("syntax error", detail=f"centiseconds must be 0..{MAX_SNAPSHOT_CS}")
        limit = getattr(self.session, "limit", None)
        playouts = None
        if centiseconds is None and limit is not None and (limit.seconds is not None or limit.playouts is not None):
            seconds, playouts = limit.seconds, limit.playouts  # what margo-set_limit asked for
            if seconds is not None:
                seconds = min(seconds, MAX_SNAPSHOT_CS / 100)
        else:
            seconds = (DEFAULT_SNAPSHOT_CS if centiseconds is None else centiseconds) / 100
        return seconds, playouts

    def cmd_margo_analyze_snapshot(self, colour: Colour, *options: str) -> SnapshotStream:
        centiseconds, ownership = parse_options(options, "centiseconds")
        seconds, playouts = self._snapshot_budget(centiseconds)
        if self._private is not None and self._mcts is None:
            self._private.reset(self.session.board)
        return SnapshotStream(self.player(), self.session.board, colour, seconds, playouts, ownership)

    def _ownership_player(self) -> Any:
        """The session's ``net`` player where it has a network for the board (its ownership
        head answers ``margo-ownership``), else None (a private seeded search counts balls)."""
        from margo_gtp.players.net import NetPlayer

        player = self.session.player
        return player if isinstance(player, NetPlayer) and player.search_for(self.session.board) else None

    def cmd_margo_ownership(self, centiseconds: int | None = None) -> str:
        seconds, playouts = self._snapshot_budget(centiseconds)
        result = analyse_position(self.session.board, playouts, seconds=seconds, ownership=True,
                                  player=self._ownership_player())
        return format_vertex_ownership(result["ownership"])

    def cmd_margo_ownership_kind(self) -> str:
        return "balls" if self._ownership_player() is None else "owners"

    def _estimate(self) -> tuple[float, list]:
        """Playouts to the end: at most ESTIMATE_PLAYOUTS within ESTIMATE_SECONDS, or
        exactly what ``margo-set_limit`` asked for when it gave a limit."""
        limit = getattr(self.session, "limit", None)
        if limit is not None and (limit.seconds is not None or limit.playouts is not None):
            playouts = limit.playouts if limit.playouts is not None else ESTIMATE_PLAYOUTS
            return estimate(self.session.board, limit.seconds, playouts=playouts)
        return estimate(self.session.board, ESTIMATE_SECONDS, playouts=ESTIMATE_PLAYOUTS)

    def cmd_final_score(self) -> str:
        if self.session._game_over():  # noqa: SLF001 - finished games: the session's exact answer
            return self.session.cmd_final_score()
        from margo_gtp.protocol.session import format_result

        margin, _ = self._estimate()
        return format_result(margin, 0.0)

    def cmd_final_status_list(self, status: str) -> str:
        if status not in ("alive", "dead", "seki") or self.session._game_over() or status == "seki":  # noqa: SLF001
            return self.session.cmd_final_status_list(status)
        _, dead = self._estimate()
        dead_set = set(dead)
        if status == "dead":
            chosen = dead
        else:
            chosen = [point for point in self.session.board.balls() if point not in dead_set]
        return " ".join(point.gtp() for point in sorted(chosen, key=gtp_order))


def searches(player: object) -> bool:
    """True for players whose own search the analysis commands show (``mcts`` and ``net``:
    both answer ``search``/``analysis`` in the searchers' shape); other players are analysed
    by a private MCTS searcher."""
    from margo_gtp.players.net import NetPlayer

    return isinstance(player, (MctsPlayer, NetPlayer))


def install(engine: GtpEngine, session: Any) -> AnalysisGroup:
    """Add the analysis commands to ``engine`` and their GoGui menu entries to
    ``session.analyze_commands``; returns the group."""
    group = AnalysisGroup(session)
    engine.add_handlers(group.handlers())
    entry = "string/MCTS analysis (1 s)/margo-analyze_snapshot %m 100"
    if entry not in session.analyze_commands:
        session.analyze_commands.append(entry)
    return group
