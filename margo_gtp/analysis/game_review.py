"""Game review: per-move judgements from the analysis of every position, and the reviewed SGF.

Built on :mod:`margo_gtp.analysis.game_analysis` (which analyses the positions) and used
by ``margo-review`` (margo_gtp/commands/review.py) and the web board's review mode:

:func:`read_game` (SGF text) -> (record, has variations)
    a native MarGo record's main line; :class:`ReviewError` for anything else.
:func:`review_game` (record, visits, ...) -> iterator of per-move dicts
    the whole review, streaming: each move's entry as soon as the position after it is
    analysed (what a web page shows while the review runs).
:func:`review_entries` (record, analyses) -> iterator of per-move dicts
    ``analyses`` are the analysis dicts of turns 0 .. n (:func:`analyse_game`'s output,
    in order); one entry per move, as soon as the analysis after it is known.
:func:`reviewed_sgf` (record, entries) -> SGF text
    the same main line with Sabaki's ``SBKV``/``SBKS``, a comment, marks and the best
    line as a variation at each mistake.
:func:`summary` (entries) -> per-colour numbers (mistakes, mean loss, agreement).
:func:`read_reviewed` (record) -> the entries a reviewed SGF tells (read back)
    what :func:`reviewed_sgf` wrote on each move node (the web board opens reviewed files).

An entry (``NAME.review.jsonl`` holds one per line)::

    {"move_number": 3, "colour": "W", "move": "E5:1", "winrate_before": 0.62, "winrate_after": 0.48,
     "loss": 0.14, "best": "D4:1", "pv": ["D4:1", ...], "visits": 500, "score_lead": -1.2,
     "score_lead_before": 0.8, "agrees": false, "rank": 3, "judgement": "mistake",
     "ownership": {"A1:1": [0.1, 0.7, 0.2], ...}}

Win rates and score leads are for the colour that played the move. ``winrate_before`` is
the win rate of the engine's best move in the position before it (the mean of the
simulations through that move), ``winrate_after`` the value of the position after the move
played (the mean of a search from there; the exact 1, 0 or 0.5 once the game is over):
both are positions with the opponent to move, so the loss compares like with like.
``loss`` is their difference (negative: the move did better than the engine expected).
``best`` and ``pv`` are the engine's choice before the move and its line; ``rank`` the
played move's place in the engine's list (``null`` when not among its candidates);
``visits`` the simulations before the move; ``ownership`` the map of the position after
the move (``[white, black, empty]`` per point).

Judgements (thresholds on ``loss``, in win-rate points; SGF marks as Sabaki reads them):

============  ===============  ====================
judgement     loss             SGF mark
============  ===============  ====================
blunder       >= 0.20          ``BM[2]`` + best line
mistake       >= 0.10          ``BM[1]`` + best line
inaccuracy    >= 0.05          ``DO[]``
good          <= -0.10         ``TE[1]`` (the move found more than the engine expected)
============  ===============  ====================
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sgfmill import sgf as sgfmill_sgf

from margo_gtp.engine import Colour, Move
from margo_gtp.analysis.game_analysis import DEFAULT_VISITS, AnalysisQueryError, analyse_game
from margo_gtp.sgf import MARGO_GM, SgfRecord, SgfError, dumps, dumps_projected, format_sgf_point, loads

__all__ = ["BLUNDER", "INACCURACY", "MISTAKE", "TESUJI", "ReviewError", "loss_grade", "read_game",
           "read_reviewed", "review_entries", "review_game", "reviewed_go_sgf", "reviewed_sgf", "summary"]

BLUNDER = 0.20     # loss (win-rate points) from which a move is a blunder ...
MISTAKE = 0.10     # ... a mistake (both get the best line as a variation)
INACCURACY = 0.05  # ... an inaccuracy
TESUJI = 0.10      # gain (negative loss) from which a move is marked good

_MARKS = {"blunder": ("BM", "2"), "mistake": ("BM", "1"), "inaccuracy": ("DO", ""), "good": ("TE", "1")}
_OURS = ("SBKV", "SBKS", "BM", "DO", "TE", "IT")


class ReviewError(ValueError):
    """Raised when a game cannot be reviewed (not a MarGo record, no moves, an illegal move)"""


def read_game(text: str) -> tuple[SgfRecord, bool]:
    """The main line of a native MarGo SGF text, and whether the file has variations
    (the review covers the main line only). ReviewError for a Go record (``GM[1]``, which
    :func:`margo_gtp.sgf.loads` would read as a projected game), another game, bad SGF
    or an empty game."""
    try:
        game = sgfmill_sgf.Sgf_game.from_bytes(text.encode("utf-8"))
    except ValueError as error:
        raise ReviewError(f"not an SGF record: {error}") from None
    root = game.get_root()
    number = root.get("GM") if root.has_property("GM") else 1
    if number != MARGO_GM:
        kind = "a Go record" if number == 1 else "another game"
        raise ReviewError(f"not a MarGo record: GM[{number}] is {kind} (margo-review reads native MarGo SGF, GM[{MARGO_GM}])")
    try:
        record = loads(text)
    except SgfError as error:
        raise ReviewError(str(error)) from None
    if not record.moves:
        raise ReviewError("the game has no moves to review")
    node, variations = root, False
    while len(node):
        variations = variations or len(node) > 1
        node = node[0]
    return record, variations


def _value(analysis: dict[str, Any], colour: Colour, key: str = "winrate") -> float | None:
    """``rootInfo[key]`` for ``colour`` (the analysis gives it for the colour to move)."""
    info = analysis["rootInfo"]
    value = info.get(key)
    if value is None:
        return None
    if info["currentPlayer"] == colour.letter:
        return value
    return 1.0 - value if key == "winrate" else -value


def loss_grade(loss: float) -> str | None:
    """A move's grade by its loss: ``blunder``/``mistake``/``inaccuracy``/``good`` or None
    (thresholds above); an entry keeps it under ``judgement``, as before."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    if loss <= -TESUJI:
        return "good"
    return None


def review_entries(record: SgfRecord, analyses: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One entry per move of ``record`` from the analyses of turns 0 .. n, in order."""
    stream = iter(analyses)
    before = next(stream)
    for number, ((colour, move), after) in enumerate(zip(record.moves, stream), start=1):
        infos = before["moveInfos"]
        played = move.gtp()
        rank = next((info["order"] for info in infos if info["move"] == played), None)
        # Both values are of positions with the opponent to move (after the engine's best
        # move, after the move played): the side to move is worth a tempo to the
        # evaluator, so comparing a position with the mover to move against one with the
        # opponent to move would charge every move that tempo (measured: 0.1 mid-game).
        mover_moves = before["rootInfo"]["currentPlayer"] == colour.letter
        p = infos[0]["winrate"] if infos and mover_moves else _value(before, colour)
        q = _value(after, colour)
        entry: dict[str, Any] = {
            "move_number": number, "colour": colour.letter, "move": played,
            "winrate_before": round(p, 6), "winrate_after": round(q, 6), "loss": round(p - q, 6),
            "best": infos[0]["move"] if infos else None, "pv": infos[0]["pv"] if infos else [],
            "visits": before["rootInfo"]["visits"],
            "score_lead": _value(after, colour, "scoreLead"),
            "score_lead_before": _value(before, colour, "scoreLead"),
            "agrees": rank == 0, "rank": rank,
        }
        entry["judgement"] = loss_grade(entry["loss"])
        if "ownership" in after:
            entry["ownership"] = after["ownership"]
        yield entry
        before = after


def review_game(record: SgfRecord, visits: int | None = DEFAULT_VISITS, *, seed: int = 0, ownership: bool = True,
                parallel: int = 1, seconds: float | None = None,
                on_progress: Callable[[int, dict[str, Any]], None] | None = None,
                progress_interval: float | None = None, player: str | None = None) -> Iterator[dict[str, Any]]:
    """Review every move of ``record``'s game with the built-in search (or ``player``'s, a spec)
    (:func:`~margo_gtp.analysis.game_analysis.analyse_game`, same arguments), yielding each
    entry as soon as it is known. Raises :class:`ReviewError` for an illegal move.
    ``on_progress(turn, progress)`` watches the search of position ``turn`` (0 = before the
    first move; the entry of move ``turn`` needs it) while it runs, about every
    ``progress_interval`` seconds: see :mod:`~margo_gtp.analysis.game_analysis`."""
    analyses = analyse_game(record.rules, record.moves, visits, seed=seed, ownership=ownership,
                            setup=record.setup, setup_to_move=record.setup_to_move,
                            parallel=parallel, seconds=seconds, on_progress=on_progress,
                            progress_interval=progress_interval, player=player)
    try:
        first = next(analyses)  # the moves are checked here, before any search
    except AnalysisQueryError as error:
        raise ReviewError(str(error)) from None
    yield from review_entries(record, itertools.chain([first], analyses))


def _percent(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def _comment(entry: dict[str, Any]) -> str:
    lines = [f"{entry['colour']} win rate {_percent(entry['winrate_before'])} -> {_percent(entry['winrate_after'])}"
             f" (loss {100 * entry['loss']:+.1f} points)"]
    if entry["judgement"]:
        lines[0] += f": {entry['judgement']}"
    if entry["best"] is not None:
        best = f"best {entry['best']}"
        if entry["agrees"]:
            best += " (played)"
        lines.append(f"{best}: {' '.join(entry['pv'])}")
    if entry["score_lead"] is not None:
        lines.append(f"score lead {entry['score_lead']:+.1f} for {entry['colour']}")
    return "\n".join(lines)


# The comment _comment writes, read back (its last paragraph: a node's own comment comes first).
_COMMENT = re.compile(
    r"(?P<colour>[WB]) win rate (?P<before>[\d.]+)% -> (?P<after>[\d.]+)% \(loss (?P<loss>[+-][\d.]+) points\)"
    r"(?:: (?P<judgement>\w+))?(?:\nbest (?P<best>\S+)(?P<played> \(played\))?: (?P<pv>[^\n]*))?"
    r"(?:\nscore lead (?P<lead>[+-][\d.]+) for [WB])?\Z")
_JUDGEMENT_OF_MARK = {("BM", "2"): "blunder", ("BM", "1"): "mistake", ("DO", ""): "inaccuracy", ("TE", "1"): "good"}


def read_reviewed(record: SgfRecord) -> list[dict[str, Any]]:
    """The review :func:`reviewed_sgf` wrote into ``record`` (read with
    :func:`margo_gtp.sgf.loads`), one entry per move node that carries ``SBKV``, in move
    order: ``move_number``, ``colour``, ``move``, ``winrate_after`` (from ``SBKV``, for the
    mover) and ``judgement`` (from the marks); ``winrate_before``, ``loss``, ``best``, ``pv``,
    ``agrees`` and ``score_lead`` from the review's comment (rounded as it writes them:
    0.1 win-rate points), None (``pv`` empty) when the node has none (e.g. Sabaki's own
    ``SBKV``). An empty list for a record without a review."""
    entries = []
    for number, ((colour, move), props) in enumerate(zip(record.moves, record.move_properties), start=1):
        if not props.get("SBKV"):
            continue
        try:
            black = float(props["SBKV"][0]) / 100
        except ValueError:
            continue
        mark = next((_JUDGEMENT_OF_MARK[(ident, props[ident][0])] for ident in ("BM", "DO", "TE")
                     if props.get(ident) and (ident, props[ident][0]) in _JUDGEMENT_OF_MARK), None)
        entry: dict[str, Any] = {
            "move_number": number, "colour": colour.letter, "move": move.gtp(),
            "winrate_before": None, "winrate_after": round(black if colour == Colour.BLACK else 1.0 - black, 6),
            "loss": None, "best": None, "pv": [], "agrees": None, "score_lead": None, "judgement": mark,
        }
        said = _COMMENT.search(props.get("C", [""])[0])   # raw SGF text: the review's part has no escapes
        if said and said["colour"] == colour.letter:
            entry["winrate_before"] = round(float(said["before"]) / 100, 6)
            entry["loss"] = round(float(said["loss"]) / 100, 6)
            if said["best"]:
                entry.update(best=said["best"], pv=said["pv"].split(), agrees=bool(said["played"]))
            if said["lead"]:
                entry["score_lead"] = float(said["lead"])
        entries.append(entry)
    return entries


def _sgf_move(text: str, size: int) -> bytes:
    move = Move.from_gtp(text, size)
    if move.is_pass:
        return b""
    if move.is_swap:
        return b"swap"
    return format_sgf_point(move.point, size).encode()  # type: ignore[arg-type]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _marked(record: SgfRecord, entries: list[dict[str, Any]]) -> SgfRecord:
    """A copy of ``record`` whose reviewed move nodes carry ``SBKV``, ``SBKS``, the comment
    and the judgement's mark (see :func:`reviewed_sgf`)."""
    marked = copy.deepcopy(record)
    marked.move_properties = [dict(props) for props in marked.move_properties]
    marked.move_properties += [{} for _ in range(len(marked.moves) - len(marked.move_properties))]
    for entry in entries:
        props = marked.move_properties[entry["move_number"] - 1]
        for identifier in _OURS:
            props.pop(identifier, None)
        black = entry["winrate_after"] if entry["colour"] == "B" else 1.0 - entry["winrate_after"]
        props["SBKV"] = [f"{round(100 * black, 2):g}"]
        if entry["score_lead"] is not None:
            lead = entry["score_lead"] if entry["colour"] == "B" else -entry["score_lead"]
            props["SBKS"] = [f"{round(lead, 2):g}"]
        old = props.get("C", [])
        props["C"] = [(old[0] + "\n\n" if old else "") + _escape(_comment(entry))]
        if entry["judgement"]:
            identifier, value = _MARKS[entry["judgement"]]
            props[identifier] = [value]
    return marked


def reviewed_sgf(record: SgfRecord, entries: list[dict[str, Any]]) -> str:
    """``record`` as native MarGo SGF with each reviewed move node carrying ``SBKV`` (Black's
    win rate in percent after the move, as Sabaki writes it), ``SBKS`` (Black's score lead,
    when known), a comment (after any comment it had) and the judgement's mark; at each
    mistake and blunder the engine's best line is a variation beside the move played.
    The main line is unchanged."""
    marked = _marked(record, entries)
    game = sgfmill_sgf.Sgf_game.from_bytes(dumps(marked).encode("utf-8"))
    main = game.get_main_sequence()
    size = record.size
    for entry in entries:
        if entry["judgement"] not in ("blunder", "mistake") or not entry["pv"] or entry["agrees"]:
            continue
        node = main[entry["move_number"] - 1]  # the position before the move (the root for move 1)
        colour = Colour.parse(entry["colour"])
        for i, text in enumerate(entry["pv"]):
            node = node.new_child()
            node.set_raw(colour.letter, _sgf_move(text, size))
            if i == 0:
                node.set("C", f"{entry['colour']}'s best move by the review ({_percent(entry['winrate_before'])})")
            colour = colour.opponent
    return game.serialise().decode("utf-8")


def reviewed_go_sgf(record: SgfRecord, entries: list[dict[str, Any]]) -> str:
    """The same review as a Go record for Go viewers (Sabaki opens it as it is): the
    projected export of :func:`margo_gtp.sgf.dumps_projected` (``GM[1]``, each move at its
    2-D point, setup nodes where captures change the top view) with each move node's
    ``SBKV``, ``SBKS``, comment and mark; no best-line variations (their moves would have
    to be projected from positions the export does not replay). SgfError for a board
    larger than 13x13, which has no Go board."""
    return dumps_projected(_marked(record, entries))


def summary(entries: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per colour (``"B"``, ``"W"``): ``moves``, ``mistakes`` (mistakes and blunders),
    ``blunders``, ``inaccuracies``, ``mean_loss`` (losses below zero count as zero) and
    ``agreement`` (share of moves that were the engine's first choice)."""
    table: dict[str, dict[str, Any]] = {}
    for entry in entries:
        row = table.setdefault(entry["colour"], {"moves": 0, "mistakes": 0, "blunders": 0, "inaccuracies": 0,
                                                 "total_loss": 0.0, "agreed": 0})
        row["moves"] += 1
        row["total_loss"] += max(0.0, entry["loss"])
        row["agreed"] += bool(entry["agrees"])
        kind = entry["judgement"]
        row["mistakes"] += kind in ("mistake", "blunder")
        row["blunders"] += kind == "blunder"
        row["inaccuracies"] += kind == "inaccuracy"
    for row in table.values():
        row["mean_loss"] = round(row.pop("total_loss") / row["moves"], 6)
        row["agreement"] = round(row.pop("agreed") / row["moves"], 6)
    return dict(sorted(table.items()))
