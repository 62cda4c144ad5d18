"""The JSON analysis engine behind ``margo-analysis``: KataGo's analysis protocol
(KataGo's ``docs/Analysis_Engine.md``), in MarGo vertices.

One JSON query a line in; out, per turn asked for, any partial answers
(``isDuringSearch: true``, every ``reportDuringSearchEvery`` seconds) and exactly one
final answer (``isDuringSearch: false``); a bad query gets one ``{"id", "error"}`` line and
changes nothing; a field MarGo reads but cannot honour gets a ``{"id", "warning",
"field"}`` line and the query goes on. Special queries (``action``): ``query_version``,
``clear_cache``, ``terminate``, ``terminate_all``. docs/review.md lists every field and
what MarGo does with it.

The reader runs on the calling thread; the searches on one worker thread (``parallel``
1: every line answered in query order) or in ``parallel`` processes. A terminate reaches
a running search through a stop flag per search slot (shared memory with the
processes), so it ends within a few milliseconds and answers what it found. When the
reader of the answers goes away (a broken pipe), every search is stopped, nothing queued
is started, and :func:`serve` returns ``False``.
"""

from __future__ import annotations

import json
import math
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

from margo_gtp import __version__, workers
from margo_gtp.engine import Board, Colour, Move, Rules, RulesError
from margo_gtp.analysis.game_analysis import (
    DEFAULT_VISITS,
    MAX_VISITS,
    AnalysisQueryError,
    _positions,
    analyse_position,
    check_moves,
    move_infos,
    fresh_player,
    root_info,
)
from margo_gtp.players.restriction import MAX_UNTIL_DEPTH, MoveRestriction, MoveRule
from margo_gtp.sgf import SgfRecord
from margo_gtp.vertex import InvalidVertexError, Point

__all__ = ["MAX_PENDING", "MAX_QUERY_BYTES", "Query", "bounded_lines", "parse_query", "serve"]

MAX_PENDING = 64              # turns queued or searching before the reader waits
MAX_QUERY_BYTES = 1 << 20     # a longer query line is refused, unread (characters; see bounded_lines)
MIN_REPORT_SECONDS = 0.05     # reportDuringSearchEvery below this is read as this

#: Fields a query may give that MarGo honours.
QUERY_FIELDS = ("id", "moves", "initialStones", "initialPlayer", "rules", "boardSize", "boardXSize", "boardYSize",
                "komi", "analyzeTurns", "maxVisits", "includeOwnership", "includePolicy",
                "reportDuringSearchEvery", "seed", "avoidMoves", "allowMoves")
#: KataGo's fields that MarGo accepts and cannot honour: each answered with a warning saying why.
IGNORED_FIELDS = {
    "whiteHandicapBonus": "MarGo has no handicap stones",
    "rootPolicyTemperature": "MarGo's search has no policy temperature",
    "rootFpuReductionMax": "MarGo's search has no first-play urgency reduction",
    "overrideSettings": "MarGo has no config file settings to override",
    "priority": "queries are searched in the order they come",
    "priorities": "queries are searched in the order they come",
    "includeMovesOwnership": "MarGo counts ownership at the root only",
    "includeOwnershipStdev": "MarGo counts no ownership spread",
    "includePVVisits": "MarGo reports no visits along a line",
}
#: The fields that give the board size: ours, and KataGo's two (a MarGo board is square).
SIZE_FIELDS = ("boardSize", "boardXSize", "boardYSize")
#: KataGo's Go rules names (``rules`` as a string): accepted with a warning, they change nothing.
GO_RULES = ("tromp-taylor", "chinese", "chinese-ogs", "chinese-kgs", "japanese", "korean", "stone-scoring",
            "aga", "bga", "new-zealand", "aga-button")
#: KataGo's Go rule keys in a ``rules`` object: accepted with a warning, they change nothing.
GO_RULE_KEYS = ("ko", "tax", "suicide", "hasButton", "whiteHandicapBonus", "friendlyPassOk")
ACTIONS = ("query_version", "clear_cache", "terminate", "terminate_all")


class _Warnings(list):
    """The warnings of one query: ``(field, message)`` pairs, in the order found."""

    def add(self, field: str, message: str) -> None:
        self.append((field, message))


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
    policy: bool = False
    report_every: float | None = None
    warnings: tuple[tuple[str, str], ...] = ()
    restriction: MoveRestriction | None = None  # avoidMoves or allowMoves (None: neither)

    def record(self) -> SgfRecord:
        return SgfRecord(rules=self.rules, setup=dict(self.setup), setup_to_move=self.setup_to_move,
                          moves=list(self.moves))


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


def _switch(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    _need(isinstance(value, bool), f"{key} must be true or false, got {value!r}")
    return value


def _rule_options(given: Any, warnings: _Warnings) -> dict[str, str]:
    """MarGo's rule options from ``rules``: an object of MarGo options (rules.md), where
    KataGo's Go rule keys are warned about; or a KataGo rules name, warned about."""
    if isinstance(given, str):
        _need(given.lower() in GO_RULES,
              f"unknown rules: {given!r} (KataGo's Go rules names are accepted with a warning; "
              "MarGo's options go in an object, e.g. {\"ko_rule\": \"simple\"})")
        warnings.add("rules", f"Go rules {given!r} change nothing in MarGo: its rules are the defaults of rules.md "
                              "and the options given in a rules object")
        return {}
    _need(isinstance(given, dict), f"rules must be a rules name or an object of rule options, got {given!r}")
    options: dict[str, str] = {}
    for name, value in given.items():
        if name in GO_RULE_KEYS or (name == "scoring" and isinstance(value, str) and value.upper() == "AREA"):
            warnings.add("rules", f"the Go rule {name}={value!r} changes nothing in MarGo")
            continue
        _need(isinstance(value, (str, int, float)), f"rules.{name} must be a string or a number, got {value!r}")
        options[name] = ("on" if value else "off") if isinstance(value, bool) else str(value)
    return options


def _rules(query: dict[str, Any], warnings: _Warnings) -> Rules:
    options = _rule_options(query.get("rules", {}), warnings)
    sizes = {key: _count(query[key], key, 2, 19) for key in SIZE_FIELDS if key in query}
    if sizes:
        _need(len(set(sizes.values())) == 1,
              "a MarGo board is square: " + " and ".join(f"{key} {size}" for key, size in sizes.items()) + " differ")
        key, size = next(iter(sizes.items()))
        if "size" in options:
            _need(options["size"].strip() == str(size),
                  f"rules.size {options['size']} and {key} {size} differ: give one of them")
        options["size"] = str(size)
    if "komi" in query:
        komi = query["komi"]
        _need(isinstance(komi, (int, float)) and not isinstance(komi, bool) and math.isfinite(komi),
              f"komi must be a number, got {komi!r}")
        if "komi" in options:
            try:
                same = float(options["komi"]) == float(komi)
            except ValueError:
                same = False
            _need(same, f"rules.komi {options['komi']} and komi {komi} differ: give one of them")
        options["komi"] = str(komi)
    try:
        return Rules().with_options(options)
    except RulesError as error:
        raise AnalysisQueryError(str(error)) from None


def _move_rules(data: dict[str, Any], key: str, size: int) -> list[MoveRule]:
    """KataGo's ``avoidMoves``/``allowMoves`` (``key``): a list of ``{"player", "moves",
    "untilDepth"}`` objects, each a :class:`MoveRule` (``allowMoves`` holds one object at
    most, as KataGo's)."""
    given = data.get(key)
    given = [] if given is None else given
    _need(isinstance(given, list), f"{key} must be a list of {{\"player\", \"moves\", \"untilDepth\"}} objects")
    _need(key != "allowMoves" or len(given) <= 1, f"allowMoves must hold one object at most, got {len(given)}")
    rules = []
    for i, entry in enumerate(given):
        where = f"{key}[{i}]"
        _need(isinstance(entry, dict) and {"player", "moves", "untilDepth"} <= entry.keys(),
              f"{where} must be an object with player, moves and untilDepth, got {entry!r}")
        colour = _colour(entry["player"], where)
        depth = entry["untilDepth"]
        _need(isinstance(depth, int) and not isinstance(depth, bool) and 1 <= depth <= MAX_UNTIL_DEPTH,
              f"{where}.untilDepth must be a whole number 1..{MAX_UNTIL_DEPTH}, got {depth!r}")
        moves = entry["moves"]
        _need(isinstance(moves, list) and all(isinstance(move, str) for move in moves),
              f"{where}.moves must be a list of vertices, got {moves!r}")
        chosen = set()
        for k, text in enumerate(moves):
            try:
                chosen.add(Move.from_gtp(text, size))
            except InvalidVertexError as error:
                raise AnalysisQueryError(f"{where}.moves[{k}]: {error}") from None
        rules.append(MoveRule(colour, frozenset(chosen), depth, allow=key == "allowMoves"))
    return rules


def _restriction(data: dict[str, Any], size: int) -> MoveRestriction | None:
    """The query's ``avoidMoves`` or ``allowMoves``; KataGo refuses the two together."""
    _need(data.get("avoidMoves") is None or data.get("allowMoves") is None,
          "allowMoves: cannot give both allowMoves and avoidMoves (KataGo refuses them together)")
    return MoveRestriction.of([*_move_rules(data, "avoidMoves", size), *_move_rules(data, "allowMoves", size)])


def _root_error(board: Board, restriction: MoveRestriction | None) -> str | None:
    """Why ``restriction`` leaves the search of ``board`` nothing to search (the mover has
    legal moves, and none allowed at the root), else None."""
    if restriction is None:
        return None
    mover = board.to_move
    legal = board.legal_moves(mover)
    if not legal or restriction.moves_at(legal, mover, 0):
        return None
    field = "allowMoves" if any(rule.allow for rule in restriction.rules) else "avoidMoves"
    return f"{field} leaves {mover.letter} no legal move"


def _report_every(data: dict[str, Any]) -> float | None:
    if "reportDuringSearchEvery" not in data:
        return None
    value = data["reportDuringSearchEvery"]
    _need(isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0,
          f"reportDuringSearchEvery must be a number of seconds above 0, got {value!r}")
    return max(float(value), MIN_REPORT_SECONDS)


def parse_query(line: str) -> Query:
    """A :class:`Query` from one JSON analysis line; :class:`AnalysisQueryError` (its text is
    the response's ``error``) for bad JSON, a bad or refused field, conflicting fields or
    an illegal move. The moves are checked here, so a query is refused before any search
    starts. Unknown fields and fields MarGo cannot honour are in ``warnings``."""
    data = _json_object(line)
    _need(isinstance(data.get("id"), str), "id must be a string")
    warnings = _Warnings()
    for key in data:
        if key in IGNORED_FIELDS:
            warnings.add(key, f"{key} is ignored: {IGNORED_FIELDS[key]}")
        elif key not in QUERY_FIELDS:
            warnings.add(key, f"unknown field {key!r} is ignored")
    rules = _rules(data, warnings)
    moves = _moves(data.get("moves", []), "moves", rules.size)
    stones = _moves(data.get("initialStones", []), "initialStones", rules.size)
    setup = []
    for i, (colour, text, move) in enumerate(stones):
        _need(move.point is not None, f"initialStones[{i}]: a setup ball needs a point, got {text!r}")
        setup.append((move.point, colour))
    first = _colour(data["initialPlayer"], "initialPlayer") if "initialPlayer" in data else None
    visits = _count(data.get("maxVisits", DEFAULT_VISITS), "maxVisits", 1, MAX_VISITS)
    seed = _count(data.get("seed", 0), "seed", 0, 2**63 - 1)
    ownership = _switch(data, "includeOwnership")
    policy = _switch(data, "includePolicy")
    report_every = _report_every(data)
    turns_given = data.get("analyzeTurns", [len(moves)])
    _need(isinstance(turns_given, list) and len(turns_given) >= 1,
          "analyzeTurns must be a non-empty list of turn numbers")
    turns = tuple(_count(turn, "analyzeTurns[]", 0, len(moves)) for turn in turns_given)
    restriction = _restriction(data, rules.size)
    query = Query(data["id"], rules, tuple((c, m) for c, _, m in moves), tuple(setup), first, turns,
                  visits, ownership, seed, policy, report_every, tuple(warnings), restriction)
    check_moves(query.record())
    return query


def _json_object(line: str) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise AnalysisQueryError(f"malformed JSON: {error}") from None
    _need(isinstance(data, dict), "a query must be a JSON object")
    return data


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


# ---------------------------------------------------------------------------------------
# The searches: one task a turn, in a worker thread or process


@dataclass(frozen=True)
class _Task:
    query_id: str
    board: Board          # the turn's position, from one pass over the game's record
    turn: int
    visits: int
    seed: int
    ownership: bool
    policy: bool
    report_every: float | None
    slot: int
    restriction: MoveRestriction | None = None
    player: str | None = None  # margo-analysis --player's spec; None: a fresh seeded mcts per turn


_WORKER: dict[str, Any] = {}  # a worker process's stop flags and answer queue (set by _start_worker)


def _start_worker(flags: Any, answers: Any) -> None:
    _WORKER["flags"] = flags
    _WORKER["send"] = answers.put


def _search_in_worker(task: _Task) -> None:
    _search(task, _WORKER["flags"], _WORKER["send"])


def _search(task: _Task, flags: Any, send: Callable[[str], None]) -> None:
    """Search one turn; ``send`` gets each partial answer, then the final one (so the final
    one is last, whatever carries them). A turn terminated before it starts answers
    ``noResults``."""
    head = {"id": task.query_id, "turnNumber": task.turn}
    if flags[task.slot]:
        send(json.dumps({**head, "isDuringSearch": False, "noResults": True}))
        return
    board = task.board
    mover = board.to_move
    refused = _root_error(board, task.restriction)
    if refused is not None:
        send(json.dumps({**head, "error": refused}))
        return

    def partial(player: Any, root: Any) -> None:
        if root.n:
            send(json.dumps({**head, "isDuringSearch": True, "moveInfos": move_infos(player, root),
                             "rootInfo": root_info(player, root, mover)}))

    result = analyse_position(board, task.visits, seed=f"{task.seed}/{task.turn}", ownership=task.ownership,
                              layout="katago", policy=task.policy, stop=lambda: bool(flags[task.slot]),
                              on_root=None if task.report_every is None else partial,
                              progress_interval=task.report_every, restriction=task.restriction,
                              player=fresh_player(task.player, board))
    send(json.dumps({**head, "isDuringSearch": False, **result}))


# ---------------------------------------------------------------------------------------
# The engine: queries in, answers out


class _Gone(Exception):
    """The reader of the answers went away."""


class _Server:
    def __init__(self, write: Callable[[str], None], parallel: int) -> None:
        self._write = write
        self._lock = threading.Lock()
        self.gone = threading.Event()
        self._free: queue.Queue[int] = queue.Queue()
        for slot in range(MAX_PENDING):
            self._free.put(slot)
        self._running: dict[int, tuple[str, int]] = {}  # slot -> (query id, turn)
        self.ordered = parallel <= 1
        self._drain: threading.Thread | None = None
        if self.ordered:
            self.flags: Any = bytearray(MAX_PENDING)
            self._pool: Executor = workers.executor(1, threads=True, thread_name="margo-analysis")
            self._answers: Any = None
        else:
            context = workers.process_context()
            self.flags = context.RawArray("b", MAX_PENDING)
            self._answers = context.Queue()
            self._pool = workers.executor(parallel, initializer=_start_worker, initargs=(self.flags, self._answers))
            self._drain = threading.Thread(target=self._drain_answers, name="margo-analysis-answers", daemon=True)
            self._drain.start()

    def emit(self, text: str) -> None:
        """Write one line now; a broken pipe marks the reader gone (nothing is raised)."""
        with self._lock:
            if self.gone.is_set():
                return
            try:
                self._write(text)
            except (BrokenPipeError, ConnectionResetError, ValueError):
                self.gone.set()  # ValueError: the stream was closed after a broken pipe

    def answer(self, text: str) -> None:
        """A line that is no search's: in query order when ordered (behind the searches
        queued before it), else now."""
        if self.ordered:
            self._pool.submit(self.emit, text)
        else:
            self.emit(text)

    def _drain_answers(self) -> None:
        while True:
            line = self._answers.get()
            if line is None:
                return
            self.emit(line)  # dropped once the reader is gone, but still read: a worker must never block

    def submit(self, task: _Task) -> None:
        if self.ordered:
            future = self._pool.submit(_search, task, self.flags, self.emit)
        else:
            future = self._pool.submit(_search_in_worker, task)
        future.add_done_callback(self._finished(task))

    def take_slot(self) -> int:
        """A free search slot; waits while MAX_PENDING turns are queued (bounded input)."""
        while True:
            try:
                slot = self._free.get(timeout=0.1)
                break
            except queue.Empty:
                if self.gone.is_set():
                    raise _Gone from None
        self.flags[slot] = 0
        return slot

    def _finished(self, task: _Task) -> Callable[[Future], None]:
        def done(future: Future) -> None:
            try:
                future.result()
            except Exception as error:  # noqa: BLE001 - a failed search answers its query, the engine goes on
                if not future.cancelled():
                    self.emit(json.dumps({"id": task.query_id, "turnNumber": task.turn,
                                          "error": f"internal error: {error}"}))
            finally:
                with self._lock:
                    self._running.pop(task.slot, None)
                self._free.put(task.slot)
        return done

    def register(self, task: _Task) -> None:
        with self._lock:
            self._running[task.slot] = (task.query_id, task.turn)

    def terminate(self, query_id: str | None, turns: set[int] | None) -> None:
        """Raise the stop flag of every queued or running turn of ``query_id`` (None: all)."""
        with self._lock:
            for slot, (owner, turn) in self._running.items():
                if (query_id is None or owner == query_id) and (turns is None or turn in turns):
                    self.flags[slot] = 1

    def close(self) -> None:
        """Wait for the searches; once the reader is gone, stop them all at once and start
        none of those still queued."""
        while self._free.qsize() < MAX_PENDING and not self.gone.wait(0.05):
            pass
        if self.gone.is_set():
            self.terminate(None, None)
        self._pool.shutdown(wait=True, cancel_futures=self.gone.is_set())
        if self._drain is not None:
            self._answers.put(None)
            self._drain.join()
            self._answers.close()


def _action(server: _Server, data: dict[str, Any]) -> None:
    """Answer a special query: the query echoed, with what the action adds."""
    action = data["action"]
    _need(isinstance(data.get("id"), str), "id must be a string")
    _need(action in ACTIONS, f"unknown action: {action!r} (known: {', '.join(ACTIONS)})")
    if action in ("terminate", "terminate_all"):
        target = None
        if action == "terminate":
            target = data.get("terminateId")
            _need(isinstance(target, str), f"terminate needs terminateId, the id of the query to stop, got {target!r}")
        turns = data.get("turnNumbers")
        _need(turns is None or (isinstance(turns, list) and all(isinstance(t, int) and not isinstance(t, bool)
                                                                 for t in turns)),
              f"turnNumbers must be a list of turn numbers, got {turns!r}")
        server.terminate(target, None if turns is None else set(turns))
        server.emit(json.dumps(data))  # acknowledged at once, as KataGo does
        return
    reply = dict(data)
    if action == "query_version":
        reply.update(version=__version__, git_hash="<omitted>")
    server.answer(json.dumps(reply))  # clear_cache: nothing is cached between searches


def serve(lines: Iterable[str], write: Callable[[str], None], parallel: int = 1, player: str | None = None) -> bool:
    """Answer each line (``write`` gets each answer without its newline). With
    ``parallel`` > 1 the turns of all pending queries are searched in that many
    processes and answered as they finish (match them by ``id`` and ``turnNumber``, as
    KataGo's); with 1, every line's answers in query order. A bad query never stops the
    engine. ``player`` (a spec, :func:`searching_player`; None: a fresh ``mcts`` seeded per
    turn) is the search. Returns False when the reader of the answers went away, True at
    the end of input."""
    server = _Server(write, parallel)
    try:
        for line in lines:
            if server.gone.is_set():
                break
            if not line.strip():
                continue
            if line == TOO_LONG or len(line) > MAX_QUERY_BYTES:
                server.answer(error_response(None, f"query longer than {MAX_QUERY_BYTES} characters"))
                continue
            try:
                data = _json_object(line)
                if "action" in data:
                    _action(server, data)
                    continue
                query = parse_query(line)
            except AnalysisQueryError as error:
                server.answer(error_response(_query_id(line), str(error)))
                continue
            for field, message in query.warnings:
                server.answer(json.dumps({"id": query.id, "warning": message, "field": field}))
            for turn, board in _positions(query.record(), query.turns):  # one pass over the record
                task = _Task(query.id, board, turn, query.visits, query.seed, query.ownership, query.policy,
                             query.report_every, server.take_slot(), query.restriction, player)
                server.register(task)
                server.submit(task)
    except _Gone:
        pass
    finally:
        server.close()
    return not server.gone.is_set()
