"""Game analysis: the MCTS's opinion of every position of a game, and the JSON analysis engine.

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
               ``prior`` (the heuristic's prior win rate), ``order`` (0 = the engine's
               choice), ``pv`` (the most visited line, starting with ``move``).
``rootInfo``   ``currentPlayer`` (``"W"``/``"B"``), ``visits`` (simulations run),
               ``winrate`` (the position's value for the colour to move: the mean result
               of all the simulations, as KataGo's root value; the exact 1, 0 or 0.5
               when the game is over) and, with
               ownership, ``scoreLead`` (the mean ball margin at the playouts' ends for
               the colour to move, komi included; the exact margin when the game is over).
``ownership``  (when asked) ``{vertex: [white, black, empty]}`` for every point of the
               pyramid, lowest level first: the share of the search's simulations whose
               final position holds a White ball, a Black ball or nothing there
               (:mod:`margo_gtp.players.ownership`).

Every search is a fresh :class:`MctsPlayer` (no tree reuse, no early stop) seeded from
``(seed, turn)``, with a playout budget and no clock: the same query gives the same
answer, whatever the number of processes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from threading import Lock, Semaphore
from typing import Any

from margo_gtp.engine import Board, Colour, Move, Rules, RulesError
from margo_gtp.players.mcts import PROGRESS_SECONDS, MctsPlayer
from margo_gtp.players.ownership import Ownership
from margo_gtp.sgf import SgfRecord, SgfError, replay
from margo_gtp.vertex import InvalidVertexError, Point, format_vertex, gtp_order

__all__ = [
    "DEFAULT_VISITS",
    "MAX_VISITS",
    "AnalysisQueryError",
    "Query",
    "analyse_game",
    "analyse_position",
    "parse_query",
    "search_progress",
    "serve",
]

DEFAULT_VISITS = 500          # simulations per position when a query or caller gives none
MAX_VISITS = 200_000          # a query's maxVisits above this is refused (minutes of search)
MAX_MOVE_INFOS = 10           # candidates listed per position
PV_LENGTH = 10                # moves per principal variation
MAX_PENDING = 64              # turns queued for the processes before the reader waits
MAX_QUERY_BYTES = 1 << 20     # a longer query line is refused, unread (characters; see bounded_lines)

#: The query fields ``margo-analysis`` reads; any other is an error.
QUERY_FIELDS = ("id", "moves", "initialStones", "initialPlayer", "rules", "boardSize", "boardXSize", "boardYSize",
                "komi", "analyzeTurns", "maxVisits", "includeOwnership", "seed")
#: The fields that give the board size: ours, and KataGo's two (which KataGo clients send,
#: and which must agree, a MarGo board being square).
SIZE_FIELDS = ("boardSize", "boardXSize", "boardYSize")


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
        info["winrate"] = 0.5
        return info
    info["winrate"] = 0.5 if outcome.winner is None else float(outcome.winner == mover)
    margin = outcome.white_score - outcome.black_score
    info["scoreLead"] = _rate(margin if mover == Colour.WHITE else -margin)
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


def analyse_position(board: Board, visits: int | None = DEFAULT_VISITS, *, seed: int | str = 0,
                     ownership: bool = False, max_moves: int = MAX_MOVE_INFOS,
                     seconds: float | None = None,
                     on_progress: Callable[[dict[str, Any]], None] | None = None,
                     progress_interval: float | None = None) -> dict[str, Any]:
    """The MCTS analysis of ``board`` for its colour to move after ``visits`` simulations,
    or ``seconds`` of search (then the answer depends on the machine's speed), whichever
    ends first (see the module docstring for the fields, and for ``on_progress``, which
    sees the search while it runs). ``board`` is not changed."""
    mover = board.to_move
    if board.is_game_over() or not board.legal_moves(mover):
        result: dict[str, Any] = {"moveInfos": [], "rootInfo": _exact(board)}
        if ownership:
            counts = Ownership(board.geometry.points)
            counts.add(board)
            result["ownership"] = ownership_map(counts)
        return result
    player = MctsPlayer(random.Random(seed), reuse=False, early_stop=False)
    counts = Ownership(board.geometry.points) if ownership else None
    player.ownership = counts
    deadline = None if seconds is None else player.clock() + seconds
    if on_progress is None:
        root = player.search(board, mover, playouts=visits, deadline=deadline)
    else:
        def watch(node: Any) -> None:  # returns None: a watcher never stops the search
            on_progress(search_progress(node, mover))

        interval = PROGRESS_SECONDS if progress_interval is None else progress_interval
        root = player.search(board, mover, playouts=visits, deadline=deadline, on_progress=watch, interval=interval)
    # KataGo's moveInfos count a move's own simulations only: the heuristic prior's
    # virtual visits (prior_visits at the prior's win rate, 0.9 for its favourite) are
    # taken out again, so a move's win rate is the mean of the simulations through it.
    virtual = player.prior_visits if player.prior_depth >= 0 and len(root.children or ()) > 1 else 0
    infos = []
    for item in player.analysis(root, max_moves=max_moves, pv_length=PV_LENGTH):
        child = next(c for c in root.children if c.move == item.move)  # type: ignore[union-attr]
        visits = child.n - virtual
        if visits <= 0:
            continue
        winrate = min(1.0, max(0.0, (child.w - child.prior * virtual) / visits))
        infos.append({"move": item.move.gtp(), "visits": visits, "winrate": _rate(winrate),
                      "prior": _rate(item.prior), "order": len(infos), "pv": [move.gtp() for move in item.pv]})
    # The root's mean result for the mover (KataGo's root value).
    value = 1.0 - root.w / root.n if root.n else 0.5
    root_info: dict[str, Any] = {"currentPlayer": mover.letter, "visits": player.last_simulations,
                                 "winrate": _rate(value)}
    result = {"moveInfos": infos, "rootInfo": root_info}
    if counts is not None:
        margin = counts.expected_margin() + board.rules.komi
        root_info["scoreLead"] = _rate(margin if mover == Colour.WHITE else -margin)
        result["ownership"] = ownership_map(counts)
    return result


# ---------------------------------------------------------------------------------------
# A game: every position asked for, in order


@dataclass(frozen=True)
class Query:
    """One analysis request: a game (rules, setup, moves) and what to search in it."""

    id: str
    rules: Rules
    moves: tuple[tuple[Colour, Move], ...]
    setup: tuple[tuple[Point, Colour], ...] = ()
    setup_to_move: Colour | None = None
    turns: tuple[int, ...] = ()
    visits: int = DEFAULT_VISITS
    ownership: bool = False
    seed: int = 0

    def record(self) -> SgfRecord:
        return SgfRecord(rules=self.rules, setup=dict(self.setup), setup_to_move=self.setup_to_move,
                          moves=list(self.moves))


def _board_at(record: SgfRecord, turn: int) -> Board:
    try:
        return replay(record, turn)
    except SgfError as error:
        raise AnalysisQueryError(str(error)) from None


def _analyse_turn(task: tuple) -> dict[str, Any]:
    """One turn of a game (a process pool's unit of work; seeded by ``(seed, turn)``):
    ``(record, turn, visits, seed, ownership[, seconds])``."""
    record, turn, visits, seed, ownership, *more = task
    seconds = more[0] if more else None
    on_progress = more[1] if len(more) > 1 else None
    progress_interval = more[2] if len(more) > 2 else None
    watch = None if on_progress is None else (lambda progress: on_progress(turn, progress))
    result = analyse_position(_board_at(record, turn), visits, seed=f"{seed}/{turn}", ownership=ownership,
                              seconds=seconds, on_progress=watch, progress_interval=progress_interval)
    return {"turnNumber": turn, **result}


def check_moves(record: SgfRecord) -> None:
    """AnalysisQueryError naming the first illegal setup ball or move of ``record``."""
    _board_at(record, None)  # type: ignore[arg-type]


def analyse_game(rules: Rules, moves: Sequence[tuple[Colour, Move]], visits: int | None = DEFAULT_VISITS, *,
                 turns: Iterable[int] | None = None, seed: int = 0, ownership: bool = False,
                 setup: dict[Point, Colour] | None = None, setup_to_move: Colour | None = None,
                 parallel: int = 1, seconds: float | None = None,
                 on_progress: Callable[[int, dict[str, Any]], None] | None = None,
                 progress_interval: float | None = None) -> Iterator[dict[str, Any]]:
    """Analyse the positions ``turns`` of a game (default: all, 0 .. len(moves)) and
    yield one analysis dict per turn (with ``turnNumber``), in the order of ``turns``.

    Raises :class:`AnalysisQueryError` at once when a move is illegal or a turn out of
    range. ``parallel`` > 1 searches the turns in that many processes; the answers are
    the same as with one. ``seconds`` bounds each search by the clock too (see
    :func:`analyse_position`); with ``visits=None`` the clock alone. ``on_progress(turn,
    progress)`` watches each search as it runs (module docstring); it needs
    ``parallel=1`` (a search in another process cannot call back), else ValueError."""
    if on_progress is not None and parallel > 1:
        raise ValueError(f"on_progress needs parallel=1, not {parallel!r} (a search in another process cannot call back)")
    record = SgfRecord(rules=rules, setup=dict(setup or {}), setup_to_move=setup_to_move, moves=list(moves))
    check_moves(record)
    wanted = list(range(len(record.moves) + 1)) if turns is None else list(turns)
    for turn in wanted:
        if not 0 <= turn <= len(record.moves):
            raise AnalysisQueryError(f"turn {turn} is out of range 0..{len(record.moves)}")
    tasks = [(record, turn, visits, seed, ownership, seconds) for turn in wanted]
    if parallel <= 1 or len(tasks) <= 1:
        yield from map(_analyse_turn, [(*task, on_progress, progress_interval) for task in tasks])
        return
    with ProcessPoolExecutor(max_workers=parallel) as pool:
        yield from pool.map(_analyse_turn, tasks)


# ---------------------------------------------------------------------------------------
# The JSON engine: queries in, responses out (margo-analysis)


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise AnalysisQueryError(message)


def _colour(value: Any, where: str) -> Colour:
    _need(isinstance(value, str) and value.upper() in ("B", "W", "BLACK", "WHITE"),
          f"{where}: colour must be \"B\" or \"W\", got {value!r}")
    return Colour.parse(value)


def _moves(value: Any, key: str, size: int) -> list[tuple[Colour, str, Move]]:
    _need(isinstance(value, list), f"{key} must be a list of [colour, vertex] pairs")
    moves = []
    for i, pair in enumerate(value):
        _need(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str),
              f"{key}[{i}] must be a [colour, vertex] pair, got {pair!r}")
        colour = _colour(pair[0], f"{key}[{i}]")
        try:
            move = Move.from_gtp(pair[1], size)
        except InvalidVertexError as error:
            raise AnalysisQueryError(f"{key}[{i}]: {error}") from None
        moves.append((colour, pair[1], move))
    return moves


def _count(value: Any, key: str, low: int, high: int) -> int:
    _need(isinstance(value, int) and not isinstance(value, bool) and low <= value <= high,
          f"{key} must be a whole number {low}..{high}, got {value!r}")
    return value


def _rules(query: dict[str, Any]) -> Rules:
    options: dict[str, str] = {}
    given = query.get("rules", {})
    _need(isinstance(given, dict), f"rules must be an object of rule options, got {given!r}")
    for name, value in given.items():
        _need(isinstance(value, (str, int, float)), f"rules.{name} must be a string or a number, got {value!r}")
        options[name] = ("on" if value else "off") if isinstance(value, bool) else str(value)
    sizes = {key: _count(query[key], key, 2, 19) for key in SIZE_FIELDS if key in query}
    if sizes:
        _need(len(set(sizes.values())) == 1,
              "a MarGo board is square: " + " and ".join(f"{key} {size}" for key, size in sizes.items()) + " differ")
        options["size"] = str(next(iter(sizes.values())))
    if "komi" in query:
        _need(isinstance(query["komi"], (int, float)) and not isinstance(query["komi"], bool),
              f"komi must be a number, got {query['komi']!r}")
        options["komi"] = str(query["komi"])
    try:
        return Rules().with_options(options)
    except RulesError as error:
        raise AnalysisQueryError(str(error)) from None


def parse_query(line: str) -> Query:
    """A :class:`Query` from one JSON line; :class:`AnalysisQueryError` (its text is the
    response's ``error``) for bad JSON, an unknown or bad field, or an illegal move. The
    moves are checked here, so a query is refused before any search starts."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise AnalysisQueryError(f"malformed JSON: {error}") from None
    _need(isinstance(data, dict), "a query must be a JSON object")
    _need(isinstance(data.get("id"), str), "id must be a string")
    unknown = sorted(set(data) - set(QUERY_FIELDS))
    if unknown:
        raise AnalysisQueryError(f"unknown field: {unknown[0]!r} (known: {', '.join(QUERY_FIELDS)})")
    rules = _rules(data)
    moves = _moves(data.get("moves", []), "moves", rules.size)
    stones = _moves(data.get("initialStones", []), "initialStones", rules.size)
    setup = []
    for i, (colour, text, move) in enumerate(stones):
        _need(move.point is not None, f"initialStones[{i}]: a setup ball needs a point, got {text!r}")
        setup.append((move.point, colour))
    first = _colour(data["initialPlayer"], "initialPlayer") if "initialPlayer" in data else None
    visits = _count(data.get("maxVisits", DEFAULT_VISITS), "maxVisits", 1, MAX_VISITS)
    seed = _count(data.get("seed", 0), "seed", 0, 2**63 - 1)
    ownership = data.get("includeOwnership", False)
    _need(isinstance(ownership, bool), f"includeOwnership must be true or false, got {ownership!r}")
    turns_given = data.get("analyzeTurns", [len(moves)])
    _need(isinstance(turns_given, list) and len(turns_given) >= 1,
          "analyzeTurns must be a non-empty list of turn numbers")
    turns = tuple(_count(turn, "analyzeTurns[]", 0, len(moves)) for turn in turns_given)
    query = Query(data["id"], rules, tuple((c, m) for c, _, m in moves), tuple(setup), first, turns,
                  visits, ownership, seed)
    check_moves(query.record())
    return query


def error_response(query_id: Any, message: str) -> str:
    return json.dumps({"id": query_id, "error": message})


def _query_id(line: str) -> Any:
    """The id of a query that failed, when it can be read (else null)."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


TOO_LONG = "\0too long"  # what bounded_lines yields for a line over the limit (never a query)


def bounded_lines(stream: Any, limit: int = MAX_QUERY_BYTES) -> Iterator[str]:
    """The lines of a text ``stream``, each read up to ``limit`` characters: a longer line
    is skipped to its end in pieces and yielded as :data:`TOO_LONG`, so no line of any
    length is ever held in memory whole."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            while True:  # drop the rest of the line, a piece at a time
                rest = stream.readline(limit + 1)
                if not rest or rest.endswith("\n"):
                    break
            yield TOO_LONG
            continue
        yield line


def serve(lines: Iterable[str], write: Callable[[str], None], parallel: int = 1) -> None:
    """Answer each query line with one response line per turn (``write`` gets the line
    without its newline), or one error line. With ``parallel`` > 1 the turns of all
    pending queries are searched in that many processes and answered as they finish
    (so responses may come out of order, as KataGo's: match them by ``id`` and
    ``turnNumber``); with 1, in order. A bad query never stops the engine."""
    lock = Lock()

    def emit(text: str) -> None:
        with lock:
            write(text)

    pool: Executor | None = ProcessPoolExecutor(max_workers=parallel) if parallel > 1 else None
    slots = Semaphore(MAX_PENDING)
    try:
        for line in lines:
            if not line.strip():
                continue
            if line == TOO_LONG or len(line) > MAX_QUERY_BYTES:
                emit(error_response(None, f"query longer than {MAX_QUERY_BYTES} characters"))
                continue
            try:
                query = parse_query(line)
            except AnalysisQueryError as error:
                emit(error_response(_query_id(line), str(error)))
                continue
            record = query.record()
            for turn in query.turns:
                task = (record, turn, query.visits, query.seed, query.ownership)
                if pool is None:
                    emit(json.dumps({"id": query.id, **_analyse_turn(task)}))
                    continue
                slots.acquire()  # bounded: the reader waits while MAX_PENDING turns are queued
                future = pool.submit(_analyse_turn, task)
                future.add_done_callback(_responder(query.id, emit, slots))
    finally:
        if pool is not None:
            pool.shutdown(wait=True)


def _responder(query_id: str, emit: Callable[[str], None], slots: Semaphore) -> Callable[[Future], None]:
    def done(future: Future) -> None:
        try:
            emit(json.dumps({"id": query_id, **future.result()}))
        except Exception as error:  # noqa: BLE001 - a failed search answers its query, the engine goes on
            emit(error_response(query_id, f"internal error: {error}"))
        finally:
            slots.release()
    return done
