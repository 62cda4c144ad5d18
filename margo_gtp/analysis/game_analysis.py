"""Game analysis: the MCTS's opinion of every position of a game (the JSON analysis engine's
protocol is :mod:`margo_gtp.analysis.analysis_json`).

One library, three users: ``margo-analysis`` (a JSON engine in the form of KataGo's
analysis engine, ``docs/review.md``), ``margo-review`` (a reviewed game) and the web
board's review mode. The interface they share:

:func:`analyse_position` (board, visits, seed) -> one analysis dict
    ``{"moveInfos": [...], "rootInfo": {...}, "ownership": {...}}`` (the response of
    one turn, without ``id``/``turnNumber``).
:func:`analyse_game` (rules, moves, visits, ...) -> iterator of analysis dicts
    one per turn asked for (default: every position, 0 = before the first move), in turn
    order, each as soon as it is known (a streaming reader shows partial results); with
    ``parallel=N`` the turns are searched by N processes.

Both take an optional ``on_progress`` callback that sees the search of a position while it
runs (the web board's review draws it as Lizzie and KaTrain do): ``on_progress(progress)``
for one position, ``on_progress(turn, progress)`` for a game, where ``progress`` is
``{"visits": n, "winrate": w, "to_move": "W", "best": "C3:1", "pv": [...]}`` (``winrate``
the root's value for the colour to move so far, as ``rootInfo``; ``best`` and ``pv`` the
most visited line so far). It is called about every ``progress_interval`` seconds
(default :data:`~margo_gtp.players.mcts.PROGRESS_SECONDS`; 0: at every check, every few
simulations) through :meth:`MctsPlayer.search`'s ``on_progress``, from the searching
thread, in the Python tree and in the C tree alike; what it returns is ignored (it never
stops the search). Watching does not change the search: the same seed gives the same
answer, watched or not.

Fields of an analysis dict (KataGo's names; vertices and colours are MarGo GTP's):

``moveInfos``  candidates with simulations, best first: ``move``, ``visits`` (its own
               simulations: unlike ``margo-analyze``, without the heuristic prior's
               virtual visits), ``winrate`` (their mean result for the colour to move),
               ``scoreLead`` and ``scoreMean`` (the same number: the mean final score
               lead, komi included, of the simulations through the move for the colour
               to move, :func:`.evaluate.final_margin`), ``scoreStdev`` (their standard
               deviation), ``lcb`` and ``utility`` (:func:`move_infos`), ``prior`` (the
               search's prior normalised to a probability), ``order`` (0 = the engine's
               choice), ``pv`` (the most visited line, starting with ``move``).
``rootInfo``   ``currentPlayer`` (``"W"``/``"B"``), ``visits`` (simulations run),
               ``winrate`` (the position's value for the colour to move: the mean result
               of all the simulations, as KataGo's root value; the exact 1, 0 or 0.5
               when the game is over), ``scoreLead``, ``scoreMean``, ``scoreStdev`` (the
               same over all the simulations: the moves' scores weighted by their
               simulations; the exact final score when the game is over).
``ownership``  (when asked) ``{vertex: [white, black, empty]}`` for every point of the
               pyramid, lowest level first: the share of the search's simulations whose
               final position holds a White ball, a Black ball or nothing there
               (:mod:`margo_gtp.players.ownership`). With the ``net`` player, its
               ownership head averaged over the search's simulations (White less Black
               is the mean expected owner, +1 White's: :meth:`Ownership.set_expected`).

By default every search is a fresh :class:`MctsPlayer` (no tree reuse, no early stop)
seeded from ``(seed, turn)``, with a playout budget and no clock: the same query gives the
same answer, whatever the number of processes. A caller may hand :func:`analyse_position` a
searching ``player`` of its own instead (``margo-ownership`` with a ``net`` session
player), and :func:`analyse_game` a spec (``--player`` of the programs, whose default is
:data:`DEFAULT_PLAYER`, ``strongest``: the net where it plays, the fresh seeded ``mcts``
elsewhere; ``mcts`` is that fresh seeded search, :func:`fresh_player`). With the ``net``
searching, a candidate's ``prior`` is the policy's probability. ``restriction`` (a
:class:`~margo_gtp.players.restriction.MoveRestriction`) keeps moves out of the search to
the depth it names (KataGo's ``avoidMoves``/``allowMoves``).
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from margo_gtp import workers
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players.mcts import PROGRESS_SECONDS, MctsPlayer
from margo_gtp.players.ownership import Ownership
from margo_gtp.players.restriction import MoveRestriction
from margo_gtp.sgf import SgfRecord, SgfError, positions, replay
from margo_gtp.vertex import Point, format_vertex, gtp_order

__all__ = [
    "DEFAULT_PLAYER",
    "DEFAULT_VISITS",
    "FRESH_MCTS",
    "MAX_VISITS",
    "AnalysisQueryError",
    "analyse_game",
    "analyse_position",
    "katago_points",
    "mcts_instead",
    "move_infos",
    "root_info",
    "score_fields",
    "search_progress",
    "searching_player",
]

DEFAULT_VISITS = 500          # simulations per position when a query or caller gives none
MAX_VISITS = 200_000          # a query's maxVisits above this is refused (minutes of search)
MAX_MOVE_INFOS = 10           # candidates listed per position
PV_LENGTH = 10                # moves per principal variation
LCB_STANDARD_ERRORS = 1.96    # lcb: the win rate less this many standard errors
RUNS_PER_PROCESS = 4          # analyse_game(parallel=N) cuts the turns into N x this many runs



class AnalysisQueryError(ValueError):
    """Raised when an analysis query is malformed or asks for something impossible"""


def _rate(value: float) -> float:
    return round(value, 6)


def _exact(board: Board) -> dict[str, Any]:
    """The root info of a finished game: its exact result for the colour to move."""
    mover = board.to_move
    outcome = board.outcome()
    info: dict[str, Any] = {"currentPlayer": mover.letter, "visits": 0}
    if outcome is None:  # no legal move but not over (cannot happen under the rules; be safe)
        return {**info, "winrate": 0.5, "lcb": 0.5, "utility": 0.0}
    info["winrate"] = 0.5 if outcome.winner is None else float(outcome.winner == mover)
    info["lcb"] = info["winrate"]  # exact: no uncertainty
    info["utility"] = 2.0 * info["winrate"] - 1.0
    margin = outcome.white_score - outcome.black_score
    info["scoreLead"] = info["scoreMean"] = _rate(margin if mover == Colour.WHITE else -margin)
    info["scoreStdev"] = 0.0
    return info


def ownership_map(ownership: Ownership) -> dict[str, list[float]]:
    """``{vertex: [white, black, empty]}`` rounded to 3 decimals, lowest level first."""
    shares = ownership.probabilities()
    return {format_vertex(point): [round(share, 3) for share in shares[point]]
            for point in sorted(shares, key=gtp_order)}


def search_progress(root: Any, mover: Colour) -> dict[str, Any]:
    """What ``on_progress`` is given about a search under way at ``root`` (see the module
    docstring): the visits so far, the root's value for ``mover`` and the most visited line."""
    value = 1.0 - root.w / root.n if root.n else 0.5
    pv: list[str] = []
    node = root
    while node.children and len(pv) < PV_LENGTH:
        node = max(node.children, key=lambda child: (child.n, child.w))
        if node.n == 0:
            break
        pv.append(node.move.gtp())
    return {"visits": root.n, "winrate": _rate(value), "to_move": mover.letter,
            "best": pv[0] if pv else None, "pv": pv}


def katago_points(size: int) -> list[Point]:
    """Every point of a ``size`` pyramid in KataGo's array order, level by level from the
    board plane up; on each level row by row from the top row down, each row from column
    A rightwards (KataGo's row-major order from the top-left corner, one level after
    another)."""
    return [Point(x, y, level) for level in range(size) for y in reversed(range(size - level))
            for x in range(size - level)]


def katago_ownership(ownership: Ownership, size: int, mover: Colour) -> list[float]:
    """KataGo's ``ownership``: one value a point in :func:`katago_points` order, from -1
    to 1, the share of simulations ending with the mover's ball there minus the share
    ending with the opponent's (positive: the colour to move's)."""
    shares = ownership.probabilities()
    sign = 1.0 if mover == Colour.WHITE else -1.0
    return [round(sign * (shares[point][0] - shares[point][1]), 4) for point in katago_points(size)]


def finished_ownership(board: Board, player: Any = None) -> Ownership:
    """The ownership of a finished game: its balls (one final position), or, for a ``net``
    player that has a network for the size, the owners its ownership head was trained on
    (:func:`~margo_gtp.players.net_features.final_ownership`: territory, live balls, the
    other side's zombies), as its search scores a finished game."""
    counts = Ownership(board.geometry.points)
    search_for = getattr(player, "search_for", None)
    if search_for is not None and search_for(board) is not None:
        from margo_gtp.players.net_features import final_ownership

        counts.set_expected([float(value) for value in final_ownership(board)[0]], 1)
    else:
        counts.add(board)
    return counts


def katago_policy(board: Board, root: Any) -> list[float]:
    """KataGo's ``policy``: one value a point in :func:`katago_points` order, then pass;
    each legal move's share of the search's prior (the root children's priors
    normalised to sum to 1 over every legal move, swap included), -1 where no move is
    legal."""
    children = list(root.children or ()) if root is not None else []
    shares = normalised_priors(children)
    by_move = {child.move: share for child, share in zip(children, shares)}
    size = board.rules.size
    values = [by_move.get(Move(point), -1.0) for point in katago_points(size)]
    values.append(by_move.get(Move.PASS, -1.0))
    return [value if value < 0 else round(value, 6) for value in values]


def normalised_priors(children: Sequence[Any]) -> list[float]:
    """The children's ``prior`` scaled to sum to 1: the search's opinion of each move
    before searching it, as a probability (KataGo's ``prior``). For the ``mcts`` player a
    child's prior is the heuristic's win rate for it; for the ``net`` player, already the
    network's policy probability."""
    total = sum(child.prior for child in children)
    if total <= 0:
        return [1.0 / len(children)] * len(children) if children else []
    return [child.prior / total for child in children]


def confidence_bound(winrate: float, visits: int) -> float:
    """KataGo's ``lcb``: the win rate less 1.96 standard errors of a mean of ``visits``
    results (a normal approximation; below 0 for few visits, as KataGo's may be)."""
    return winrate - LCB_STANDARD_ERRORS * math.sqrt(max(winrate * (1.0 - winrate), 0.0) / visits) if visits else -1.0


def score_fields(node: Any, sign: float = 1.0) -> dict[str, float]:
    """KataGo's ``scoreLead``, ``scoreMean`` and ``scoreStdev`` of a node's evaluations, for
    its ``player`` (``sign`` -1: for the other colour); {} when it has none."""
    mean = node.score_mean()
    if mean is None:
        return {}
    lead = _rate(sign * mean)
    return {"scoreLead": lead, "scoreMean": lead, "scoreStdev": _rate(node.score_stdev())}


def move_infos(player: Any, root: Any, max_moves: int = MAX_MOVE_INFOS) -> list[dict[str, Any]]:
    """The ``moveInfos`` of ``root`` (finished or still growing), best first: each move's
    own simulations (without the heuristic prior's virtual visits), their mean result and
    final score lead, its lcb and utility, its normalised prior, its rank and line."""
    children = list(root.children or ())
    shares = dict(zip((child.move for child in children), normalised_priors(children)))
    # KataGo's moveInfos count a move's own simulations only: the heuristic prior's
    # virtual visits (prior_visits at the prior's win rate, 0.9 for its favourite) are
    # taken out again, so a move's win rate is the mean of the simulations through it.
    prior_visits = getattr(player, "prior_visits", 0)
    virtual = prior_visits if getattr(player, "prior_depth", -1) >= 0 and len(children) > 1 else 0
    infos: list[dict[str, Any]] = []
    for item in player.analysis(root, max_moves=max_moves, pv_length=PV_LENGTH):
        child = next(c for c in children if c.move == item.move)
        visits = child.n - virtual
        if visits <= 0:
            continue
        winrate = min(1.0, max(0.0, (child.w - child.prior * virtual) / visits))
        infos.append({"move": item.move.gtp(), "visits": visits, "winrate": _rate(winrate), **score_fields(child),
                      "lcb": _rate(confidence_bound(winrate, visits)), "utility": _rate(2.0 * winrate - 1.0),
                      "prior": _rate(shares[item.move]), "order": len(infos),
                      "pv": [move.gtp() for move in item.pv]})
    return infos


def root_info(player: Any, root: Any, mover: Colour) -> dict[str, Any]:
    """``rootInfo`` of a search (finished or still growing): the root's mean result and
    final score lead for the mover (KataGo's root value; the root's statistics are for
    the colour that moved into it, the other one), its lcb and utility."""
    visits = root.n
    value = 1.0 - root.w / visits if visits else 0.5
    return {"currentPlayer": mover.letter, "visits": visits, "winrate": _rate(value), **score_fields(root, -1.0),
            "lcb": _rate(confidence_bound(value, visits)), "utility": _rate(2.0 * value - 1.0)}


def analyse_position(board: Board, visits: int | None = DEFAULT_VISITS, *, seed: int | str = 0,
                     ownership: bool = False, max_moves: int = MAX_MOVE_INFOS,
                     seconds: float | None = None,
                     on_progress: Callable[[dict[str, Any]], None] | None = None,
                     progress_interval: float | None = None, layout: str = "map", policy: bool = False,
                     stop: Callable[[], bool] | None = None,
                     on_root: Callable[[Any, Any], None] | None = None,
                     restriction: MoveRestriction | None = None, player: Any = None) -> dict[str, Any]:
    """The MCTS analysis of ``board`` for its colour to move after ``visits`` simulations,
    or ``seconds`` of search (then the answer depends on the machine's speed), whichever
    ends first (see the module docstring for the fields, and for ``on_progress``, which
    sees the search while it runs). ``board`` is not changed.

    ``layout="katago"`` gives ``ownership`` as KataGo's flat array (:func:`katago_ownership`)
    instead of the map by vertex; ``policy`` adds KataGo's ``policy`` array
    (:func:`katago_policy`); ``stop()`` true ends the search early (its answer is what
    was found); ``on_root(player, root)`` sees the growing root every
    ``progress_interval`` seconds (the JSON engine's partial answers); ``restriction`` (None:
    none) leaves each node the search expands within its depth only the moves it allows
    the node's mover. ``player`` (an ``mcts`` or ``net`` player; None: a fresh one seeded
    by ``seed``) searches with its tree as it is (reset it for a fresh search); its
    ``ownership`` is set for this search only."""
    mover = board.to_move
    size = board.rules.size

    def owners(counts: Ownership) -> Any:
        return katago_ownership(counts, size, mover) if layout == "katago" else ownership_map(counts)

    if board.is_game_over() or not board.legal_moves(mover):
        result: dict[str, Any] = {"moveInfos": [], "rootInfo": _exact(board)}
        if ownership:
            result["ownership"] = owners(finished_ownership(board, player))
        if policy:
            result["policy"] = katago_policy(board, None)
        return result
    if player is None:
        player = MctsPlayer(random.Random(seed), reuse=False, early_stop=False)
    counts = Ownership(board.geometry.points) if ownership else None
    before, player.ownership = player.ownership, counts
    deadline = None if seconds is None else player.clock() + seconds
    watch: Callable[[Any], None] | None = None
    if on_progress is not None or on_root is not None:
        def watch(node: Any) -> None:  # returns None: a watcher never stops the search
            if on_progress is not None:
                on_progress(search_progress(node, mover))
            if on_root is not None:
                on_root(player, node)

    interval = PROGRESS_SECONDS if progress_interval is None else progress_interval
    try:
        root = player.search(board, mover, playouts=visits, deadline=deadline, stop=stop, on_progress=watch,
                             interval=interval, restriction=restriction, scores=True)
    finally:
        player.ownership = before
    info = root_info(player, root, mover)
    info["visits"] = player.last_simulations
    result = {"moveInfos": move_infos(player, root, max_moves), "rootInfo": info}
    if counts is not None:
        result["ownership"] = owners(counts)
    if policy:
        result["policy"] = katago_policy(board, root)
    return result


# ---------------------------------------------------------------------------------------
# A game: every position asked for, in order


_PLAYERS: dict[str, Any] = {}  # this process's player of each spec: a net loads its weights once

#: The search of ``margo-analysis``, ``margo-review`` and the web board's review when none
#: is named: margo-gtp's default player, the net where it plays (:func:`fresh_player`).
DEFAULT_PLAYER = "strongest"
#: The spec of the fresh ``mcts`` seeded per turn (the search before ``strongest`` became
#: the default): ``--player mcts`` gives exactly its answers.
FRESH_MCTS = "mcts"


def searching_player(spec: str) -> Any:
    """The player of ``spec`` that searches the turns (``--player`` of ``margo-analysis``
    and ``margo-review``), built once per process and reset before each turn (the ``net``
    search is then the same for a turn whatever ran before it). Raises
    ``PlayerSpecError`` for a bad spec or one whose player has no search to show
    (``random``, ``heuristic``)."""
    player = _PLAYERS.get(spec)
    if player is None:
        from margo_gtp.players import PlayerSpecError, make_player

        player = make_player(spec, 0)
        if not (callable(getattr(player, "search", None)) and callable(getattr(player, "analysis", None))):
            raise PlayerSpecError(f"player {spec!r} has no search to analyse with (mcts, net and strongest have)")
        _PLAYERS[spec] = player
    return player


def fresh_player(spec: str | None, board: Board) -> Any:
    """:func:`searching_player` of ``spec`` reset for ``board``, or None for the fresh ``mcts``
    seeded per turn (:func:`analyse_position`'s own): for ``spec`` None or ``mcts``, and for
    ``strongest`` wherever it does not play the net (no net extra, or no network for the
    board's size: :func:`mcts_instead`), so that there its answers are ``--player mcts``'s
    to the byte."""
    if spec is None or spec == FRESH_MCTS:
        return None
    if spec == DEFAULT_PLAYER and board.size not in _strongest_net_sizes():
        return None  # known without loading a network (the web board's 5x5 review starts at once)
    player = searching_player(spec)
    if spec == DEFAULT_PLAYER and _net_search(player, board.size) is None:
        return None
    player.reset(board)
    return player


def _net_search(player: Any, size: int) -> Any:
    """The net's search of ``size`` boards in ``player`` (None: it has none, or is no net)."""
    searches = getattr(player, "searches", None)
    return searches.get(size) if isinstance(searches, dict) else None


def mcts_instead(spec: str | None, size: int) -> str | None:
    """Why ``strongest`` searches a ``size`` board with ``mcts`` although it plays the net
    in this installation (``no network for 5x5 (weights for 7x7, 9x9)``, the net player's
    own words); None where it plays the net, where the net extra is missing (a missing
    optional package is no fault: ``strongest`` then says nothing), or for another spec."""
    sizes = _strongest_net_sizes() if spec == DEFAULT_PLAYER else set()
    if not sizes or size in sizes:
        return None
    known = ", ".join(f"{known}x{known}" for known in sorted(sizes))
    return f"no network for {size}x{size} (weights for {known})"


def _strongest_net_sizes() -> set[int]:
    """The board sizes ``strongest`` plays the net on here: those of the shipped networks
    (``net-7x7.onnx``: 7) when the net extra is installed, else none."""
    from margo_gtp.players.levels import strongest_here
    from margo_gtp.players.net_spec import shipped_weights

    if strongest_here()[0] != "net":
        return set()
    return {int(path.stem.removeprefix("net-").split("x")[0]) for path in shipped_weights()}


def _board_at(record: SgfRecord, turn: int) -> Board:
    try:
        return replay(record, turn)
    except SgfError as error:
        raise AnalysisQueryError(str(error)) from None


def _positions(record: SgfRecord, turns: Iterable[int]) -> Iterator[tuple[int, Board]]:
    """:func:`margo_gtp.sgf.positions` (one pass over the record, not one replay per turn:
    that was quadratic in the game's length), its errors as AnalysisQueryError."""
    try:
        yield from positions(record, turns)
    except SgfError as error:
        raise AnalysisQueryError(str(error)) from None


def _analyse_turn(task: tuple) -> dict[str, Any]:
    """One turn of a game (a process pool's unit of work; seeded by ``(seed, turn)``):
    ``(position, turn, visits, seed, ownership[, seconds, on_progress, progress_interval,
    player])``, where ``position`` is the turn's Board, or the SgfRecord to replay it
    from, and ``player`` a spec (:func:`searching_player`; None: a fresh seeded mcts)."""
    position, turn, visits, seed, ownership, *more = task
    seconds = more[0] if more else None
    on_progress = more[1] if len(more) > 1 else None
    progress_interval = more[2] if len(more) > 2 else None
    spec = more[3] if len(more) > 3 else None
    watch = None if on_progress is None else (lambda progress: on_progress(turn, progress))
    board = position if isinstance(position, Board) else _board_at(position, turn)
    result = analyse_position(board, visits, seed=f"{seed}/{turn}", ownership=ownership,
                              seconds=seconds, on_progress=watch, progress_interval=progress_interval,
                              player=fresh_player(spec, board))
    return {"turnNumber": turn, **result}


def _analyse_turns(task: tuple) -> list[dict[str, Any]]:
    """A run of turns of a game, replayed once (a process pool's unit of work):
    ``(record, turns, visits, seed, ownership, seconds, None, None, player)``."""
    record, turns, *rest = task
    return [_analyse_turn((board, turn, *rest)) for turn, board in _positions(record, turns)]


def check_moves(record: SgfRecord) -> None:
    """AnalysisQueryError naming the first illegal setup ball or move of ``record``."""
    _board_at(record, None)  # type: ignore[arg-type]


def analyse_game(rules: Rules, moves: Sequence[tuple[Colour, Move]], visits: int | None = DEFAULT_VISITS, *,
                 turns: Iterable[int] | None = None, seed: int = 0, ownership: bool = False,
                 setup: dict[Point, Colour] | None = None, setup_to_move: Colour | None = None,
                 parallel: int = 1, seconds: float | None = None,
                 on_progress: Callable[[int, dict[str, Any]], None] | None = None,
                 progress_interval: float | None = None, player: str | None = None) -> Iterator[dict[str, Any]]:
    """Analyse the positions ``turns`` of a game (default: all, 0 .. len(moves)) and
    yield one analysis dict per turn (with ``turnNumber``), in the order of ``turns``.

    Raises :class:`AnalysisQueryError` at once when a move is illegal or a turn out of
    range. ``parallel`` > 1 searches the turns in that many processes; the answers are
    the same as with one. ``seconds`` bounds each search by the clock too (see
    :func:`analyse_position`); with ``visits=None`` the clock alone. ``on_progress(turn,
    progress)`` watches each search as it runs (module docstring); it needs
    ``parallel=1`` (a search in another process cannot call back), else ValueError.
    ``player`` (a spec, :func:`searching_player`; None or ``mcts``: a fresh ``mcts`` seeded
    per turn; ``strongest``: the net where it plays, else that fresh ``mcts``,
    :func:`fresh_player`) searches every turn, reset before each."""
    if on_progress is not None and parallel > 1:
        raise ValueError(f"on_progress needs parallel=1, not {parallel!r} (a search in another process cannot call back)")
    record = SgfRecord(rules=rules, setup=dict(setup or {}), setup_to_move=setup_to_move, moves=list(moves))
    check_moves(record)
    wanted = list(range(len(record.moves) + 1)) if turns is None else list(turns)
    for turn in wanted:
        if not 0 <= turn <= len(record.moves):
            raise AnalysisQueryError(f"turn {turn} is out of range 0..{len(record.moves)}")
    if parallel <= 1 or len(wanted) <= 1:
        for turn, board in _positions(record, wanted):
            yield _analyse_turn((board, turn, visits, seed, ownership, seconds, on_progress, progress_interval, player))
        return
    # Each process gets runs of consecutive turns and replays the record once per run:
    # a few runs per process keep them all busy to the end, and the replays linear.
    runs = max(1, min(len(wanted), parallel * RUNS_PER_PROCESS))
    size = -(-len(wanted) // runs)
    tasks = [(record, wanted[start:start + size], visits, seed, ownership, seconds, None, None, player)
             for start in range(0, len(wanted), size)]
    with contextlib.closing(workers.in_order(_analyse_turns, [(task,) for task in tasks], parallel)) as runs:
        for answers in runs:
            yield from answers
