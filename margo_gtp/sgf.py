"""MarGo game records in SGF: native MarGo SGF (read and write) and a projected Go export.

sgfmill does the SGF syntax (tokenising, escaping, serialising); the MarGo meaning of the
properties is defined here. The format, in one example (N = 5, White first)::

    (;FF[4]GM[77]CA[UTF-8]AP[margo-gtp:0.1.0]SZ[5]KM[0.5]RU[MarGo]
    MR[first_player=white][swap=off][max_level=4][bridge_cutting=on][all_freedoms=off]
      [own_freedomless_group=capture][ko_rule=situational][ko_position=full]
      [scoring=balls][allow_pass=off][first_capture_wins=off]
    PW[alice]PB[bob]RE[W+3.5]
    ;W[cc:1]WL[299.5]TU[0.5];B[bb:1];W[bc:1];B[cb:1];W[bb:2]C[first stacked ball])

Root properties
    ``FF[4]``; ``GM[77]`` marks a native MarGo record (SGF has no registered number for
    MarGo; 77 is the code of ``M``; ``GM[1]`` is Go and is never written for native
    files); ``SZ`` the board size N (2..19); ``KM`` komi; ``RU[MarGo]`` for humans;
    ``MR`` (private) one ``name=value`` entry per rule option of ``rules.md`` section 9
    other than ``size`` and ``komi`` (those are SZ and KM), names and values exactly as
    ``margo-set_rules`` takes them; ``PB``/``PW`` player names; ``RE`` the result in
    SGF form (``W+3``, ``B+R``, ``0`` ...). ``AW``/``AB`` setup balls and ``PL`` the
    colour to move after setup.
Points: ``<column letter><row letter>:<level>``
    Level ``k`` (1-based, as in GTP) has an (N-k+1)x(N-k+1) grid. The column letter is
    ``x`` (``a`` = leftmost), the row letter counts from the *top* row of that level's grid
    (``a`` = top), so on level 1 the two letters are exactly the Go SGF point of the ball
    (``D4:1`` on 9x9 is ``df:1``). The level is always written; reading accepts a bare
    two-letter point as level 1.
Moves
    ``W[...]``/``B[...]`` one per node; ``W[]`` is a pass (``tt`` is accepted too), and
    ``B[swap]`` the swap move. Per move, ``WL``/``BL`` hold the mover's time left (standard
    SGF) and ``TU`` (private, "time used") the seconds spent on the move.

Every other property (root or move node) is kept verbatim in :attr:`SgfRecord.root_properties`
/ :attr:`SgfRecord.move_properties` and written back unchanged. Only the main line is read:
variations are dropped. Setup properties after the root, and nodes holding both a
``B`` and a ``W``, are rejected.

What is checked by :func:`loads`: SGF syntax, the game type, size, rule options, point
syntax and range, colours. What is not: legality of the moves - :func:`replay` checks that.

The *projected* export (:func:`dumps_projected`) is a plain Go record (``GM[1]``,
``SZ[2N-1]``) in which every move is the Go point of its projection (``gtp.md`` section 5),
so Go viewers can step through a MarGo game as a top view (and :func:`loads` reads such a
Go record back, lifting each move to its MarGo point). When a capture uncovers or empties
a 2-D point, a setup-only node (``AE``/``AB``/``AW``) follows the move so the viewer shows the
true top view; Go viewers never capture anything themselves, because occupied projected
points are never orthogonal neighbours on the 2-D board.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from sgfmill import sgf as sgfmill_sgf

from margo_gtp import __version__, textfile
from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Rules, RulesError
from margo_gtp.options import PairError, read_pairs
from margo_gtp import vertex
from margo_gtp.vertex import Point, column_points, format_point_2d, parse_decimal, project, projected_size

#: Private SGF game number of native MarGo records (no number is registered for MarGo).
MARGO_GM = 77
#: Largest MarGo board whose projection fits an SGF board (sgfmill and FF4 stop at 26;
#: GTP at 25): 2*13-1 = 25.
MAX_PROJECTED_SIZE = 13

_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: Properties this module interprets; everything else is kept verbatim.
_ROOT_KNOWN = {"FF", "GM", "CA", "SZ", "KM", "RU", "MR", "PB", "PW", "RE", "AB", "AW", "PL", "AP"}
_MOVE_KNOWN = {"B", "W", "BL", "WL", "TU"}
_SETUP = {"AB", "AW", "AE", "PL"}
_OPTIONS_IN_OTHER_PROPERTIES = ("size", "komi")


class SgfError(ValueError):
    """Raised when an SGF text is malformed, not a MarGo record, or holds an unplayable move"""


@dataclass
class SgfRecord:
    """One MarGo game: rules, starting position, moves and the game information around them.

    ``setup`` are balls placed before the first move (any level; placed lower levels
    first, captures not resolved, like ``margo-setup``); ``setup_to_move`` the colour to
    move after them (``None``: the rules' first player). ``moves`` are ``(colour, move)``
    in order, any colour order (GTP ``play`` allows it). ``times`` (seconds spent) and
    ``time_left`` are parallel to ``moves`` (``None`` = not recorded; shorter lists are
    padded). ``root_properties`` / ``move_properties`` hold every other SGF property as
    raw SGF value text (escapes kept), written back unchanged.
    """

    rules: Rules = field(default_factory=Rules)
    setup: dict[Point, Colour] = field(default_factory=dict)
    setup_to_move: Colour | None = None
    moves: list[tuple[Colour, Move]] = field(default_factory=list)
    result: str | None = None
    black_name: str | None = None
    white_name: str | None = None
    times: list[float | None] = field(default_factory=list)
    time_left: list[float | None] = field(default_factory=list)
    root_properties: dict[str, list[str]] = field(default_factory=dict)
    move_properties: list[dict[str, list[str]]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.rules.size


# ---------------------------------------------------------------------------------------
# Point encoding


def format_sgf_point(point: Point, size: int) -> str:
    """``Point(3, 3, 0)`` on 9x9 -> ``'df:1'`` (column, row from the level's top, level)."""
    side = size - point.level
    return f"{_SGF_LETTERS[point.x]}{_SGF_LETTERS[side - 1 - point.y]}:{point.level + 1}"


def parse_sgf_point(text: str, size: int) -> Point:
    """Inverse of :func:`format_sgf_point`; a bare ``'df'`` is level 1. Raises SgfError."""
    body, _, level_text = text.strip().partition(":")
    if len(body) != 2 or not body.isalpha() or not body.islower():
        raise SgfError(f"malformed point: {text!r}")
    level = 1
    if level_text:
        if not level_text.isdigit():
            raise SgfError(f"malformed point: {text!r}")
        level = int(level_text)
    if not 1 <= level <= size:
        raise SgfError(f"point is off board: {text!r} (board size {size})")
    side = size - level + 1
    x, row_from_top = _SGF_LETTERS.index(body[0]), _SGF_LETTERS.index(body[1])
    if x >= side or row_from_top >= side:
        raise SgfError(f"point is off board: {text!r} (board size {size})")
    return Point(x, side - 1 - row_from_top, level - 1)


def _format_move(move: Move, size: int) -> str:
    if move.is_pass:
        return ""
    if move.is_swap:
        return "swap"
    return format_sgf_point(move.point, size)


def _parse_move(text: str, size: int) -> Move:
    value = text.strip()
    if value == "" or value == "tt":
        return Move.PASS
    if value.lower() == "swap":
        return Move.SWAP
    return Move(parse_sgf_point(value, size))


# ---------------------------------------------------------------------------------------
# Writing


def _raw(value: str) -> bytes:
    """Escape a text value for SGF (backslash and closing bracket)."""
    return value.replace("\\", "\\\\").replace("]", "\\]").encode("utf-8")


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))


def _new_game(size: int, game_number: int) -> sgfmill_sgf.Sgf_game:
    try:
        game = sgfmill_sgf.Sgf_game(size=size)
    except ValueError as error:
        raise SgfError(f"board size {size} cannot be written to SGF: {error}") from None
    root = game.get_root()
    root.set_raw("GM", str(game_number).encode())
    root.set_raw("AP", f"margo-gtp:{__version__}".encode())
    return game


def _set_game_info(root: Any, record: SgfRecord, komi: float) -> None:
    root.set_raw("KM", _number(komi).encode())
    if record.black_name is not None:
        root.set_raw("PB", _raw(record.black_name))
    if record.white_name is not None:
        root.set_raw("PW", _raw(record.white_name))
    if record.result is not None:
        root.set_raw("RE", _raw(record.result))


def _set_extra(node: Any, properties: Mapping[str, list[str]], known: set[str]) -> None:
    for identifier, values in properties.items():
        if identifier in known or not values:
            continue
        node.set_raw_list(identifier, [value.encode("utf-8") for value in values])


def _padded(values: list[Any], length: int) -> list[Any]:
    return list(values[:length]) + [None] * max(0, length - len(values))


def dumps(record: SgfRecord) -> str:
    """The native MarGo SGF text of ``record`` (format in the module docstring)."""
    size = record.size
    game = _new_game(size, MARGO_GM)
    root = game.get_root()
    root.set_raw("RU", b"MarGo")
    options = record.rules.options()
    root.set_raw_list(
        "MR",
        [_raw(f"{name}={value}") for name, value in options.items() if name not in _OPTIONS_IN_OTHER_PROPERTIES],
    )
    _set_game_info(root, record, record.rules.komi)
    for colour, prop in ((Colour.BLACK, "AB"), (Colour.WHITE, "AW")):
        points = sorted((p for p, c in record.setup.items() if c == colour), key=_level_first)
        if points:
            root.set_raw_list(prop, [format_sgf_point(p, size).encode() for p in points])
    if record.setup_to_move is not None:
        root.set_raw("PL", record.setup_to_move.letter.encode())
    _set_extra(root, record.root_properties, _ROOT_KNOWN)

    count = len(record.moves)
    times, time_left = _padded(record.times, count), _padded(record.time_left, count)
    extras = _padded(record.move_properties, count)
    node = root
    for index, (colour, move) in enumerate(record.moves):
        node = node.new_child()
        node.set_raw(colour.letter, _format_move(move, size).encode())
        if time_left[index] is not None:
            node.set_raw(f"{colour.letter}L", _number(time_left[index]).encode())
        if times[index] is not None:
            node.set_raw("TU", _number(times[index]).encode())
        if extras[index]:
            _set_extra(node, extras[index], _MOVE_KNOWN)
    return game.serialise().decode("utf-8")


def _level_first(point: Point) -> tuple[int, int, int]:
    return (point.level, point.y, point.x)


def record_from_board(board: Board, **meta: Any) -> SgfRecord:
    """A record of ``board``'s game: its rules, root position (``root_balls``,
    ``root_to_move``) and ``history``.

    ``meta`` sets the other :class:`SgfRecord` fields (``black_name``, ``white_name``,
    ``times``, ``time_left``, ``root_properties``, ``move_properties``, ``result``). The
    result defaults to the board's outcome when the game is over, else ``None``.
    """
    unexpected = set(meta) - _META_FIELDS
    if unexpected:
        raise TypeError(f"record_from_board: unexpected fields {sorted(unexpected)!r}")
    setup = dict(board.root_balls())
    root_to_move = board.root_to_move
    setup_to_move = None if not setup and root_to_move == board.rules.first_player else root_to_move
    if "result" not in meta:
        outcome = board.outcome()
        meta["result"] = outcome.result() if outcome is not None else None
    return SgfRecord(
        rules=board.rules,
        setup=setup,
        setup_to_move=setup_to_move,
        moves=list(board.history),
        **meta,
    )


_META_FIELDS = {"result", "black_name", "white_name", "times", "time_left", "root_properties", "move_properties"}


# ---------------------------------------------------------------------------------------
# Reading


def _parse_game(text: str) -> sgfmill_sgf.Sgf_game:
    if not isinstance(text, str):
        raise SgfError(f"expected SGF text, got {type(text).__name__}")
    try:
        return sgfmill_sgf.Sgf_game.from_string(text)
    except ValueError as error:
        raise SgfError(f"malformed SGF: {error}") from None


def _decode_values(node: Any, identifier: str) -> list[str]:
    return [value.decode("utf-8", "replace") for value in node.get_raw_list(identifier)]


def _text(node: Any, identifier: str) -> str | None:
    """A simple-text property value, unescaped, or None when absent."""
    if not node.has_property(identifier):
        return None
    try:
        return str(node.get(identifier))
    except ValueError as error:
        raise SgfError(f"bad {identifier} property: {error}") from None


def _single_raw(node: Any, identifier: str) -> str:
    values = _decode_values(node, identifier)
    if len(values) != 1:
        raise SgfError(f"{identifier} must have one value, got {len(values)}")
    return values[0]


def _float(node: Any, identifier: str) -> float:
    text = _single_raw(node, identifier)
    try:
        return parse_decimal(text.strip())
    except ValueError as error:
        kind = "a finite number" if "finite" in str(error) else "a number"
        raise SgfError(f"bad {identifier} value: {text!r} ({kind})") from None


def _colour_letter(text: str, identifier: str) -> Colour:
    try:
        return Colour.parse(text.strip())
    except ValueError:
        raise SgfError(f"bad {identifier} value: {text!r} (B or W)") from None


def _game_number(root: Any) -> int:
    if not root.has_property("GM"):
        return 1  # the SGF default: Go
    text = _single_raw(root, "GM")
    try:
        return int(text)
    except ValueError:
        raise SgfError(f"bad GM value: {text!r}") from None


def _read_rules(root: Any, size: int) -> Rules:
    try:  # the one K=V reader: a name given twice is a mistake, not an override
        options = read_pairs(_decode_values(root, "MR") if root.has_property("MR") else [],
                             malformed="bad MR entry: {item!r} (expected name=value)",
                             repeated="bad MR entry: {item!r} ({key} given twice)")
    except PairError as error:
        raise SgfError(str(error)) from None
    for name in _OPTIONS_IN_OTHER_PROPERTIES:
        if name in options:
            raise SgfError(f"MR must not hold {name!r}: it is recorded in {'SZ' if name == 'size' else 'KM'}")
    options["size"] = str(size)
    if root.has_property("KM"):
        options["komi"] = repr(_float(root, "KM"))
    if options.get("max_level") == str(size - 1):
        del options["max_level"]  # the default (no limit), kept as None so records compare equal
    try:
        return Rules().with_options(options)
    except RulesError as error:
        raise SgfError(f"bad rule option in MR: {error}") from None


def _read_size(root: Any) -> int:
    if not root.has_property("SZ"):
        raise SgfError("missing SZ: a MarGo record must give its board size")
    text = _single_raw(root, "SZ")
    try:
        return int(text)
    except ValueError:
        raise SgfError(f"bad SZ value: {text!r}") from None


def loads(text: str) -> SgfRecord:
    """Read a MarGo SGF text into a :class:`SgfRecord`.

    A native record (``GM[77]``): checks syntax, the game type, size, rule options and
    point syntax/range; does not check that moves are legal (:func:`replay` does).

    A Go record (``GM[1]`` or no GM) is read as a *projected* record - what a Go tool saved
    while driving ``margo-gtp-2d``, or :func:`dumps_projected` wrote: ``SZ`` must be odd
    (2N-1), and each Go move is lifted to the lowest empty point of its column while the
    game is replayed, so its moves *are* checked. Setup stones in the root cannot be lifted
    (a top view does not say what lies below) and are rejected; setup-only nodes after the
    root (view corrections) and nodes without a move are skipped. A swap cannot be
    recovered from a projected record.

    Raises :class:`SgfError` with a message naming the offending property or node.
    """
    game = _parse_game(text)
    root = game.get_root()
    number = _game_number(root)
    if number == 1:
        return _read_projected(game)
    if number != MARGO_GM:
        raise SgfError(f"not a MarGo record: GM[{number}], expected GM[{MARGO_GM}] (or GM[1], a projected record)")
    size = _read_size(root)
    if not 2 <= size <= 19:
        raise SgfError(f"unsupported board size: SZ[{size}] (allowed 2..19)")
    record = SgfRecord(rules=_read_rules(root, size))
    record.black_name = _text(root, "PB")
    record.white_name = _text(root, "PW")
    record.result = _text(root, "RE")
    for colour, prop in ((Colour.BLACK, "AB"), (Colour.WHITE, "AW")):
        if root.has_property(prop):
            for value in _decode_values(root, prop):
                point = parse_sgf_point(value, size)
                if point in record.setup:
                    raise SgfError(f"setup point given twice: {value!r}")
                record.setup[point] = colour
    _read_root_extras(record, root)
    if root.has_property("B") or root.has_property("W"):
        raise SgfError("a move in the root node is not supported: put moves after the root")

    for number, node in enumerate(game.get_main_sequence()[1:], start=1):
        colours = [c for c in ("B", "W") if node.has_property(c)]
        setup = sorted(_SETUP & set(node.properties()))
        if setup:
            raise SgfError(f"node {number}: setup property {setup[0]} after the root is not supported")
        if len(colours) != 1:
            if not colours:
                raise SgfError(f"node {number}: no move (B or W)")
            raise SgfError(f"node {number}: both B and W in one node")
        letter = colours[0]
        colour = Colour.parse(letter)
        try:
            move = _parse_move(_single_raw(node, letter), size)
        except SgfError as error:
            raise SgfError(f"node {number}: {error}") from None
        _append_move(record, node, colour, move)
    return record


def _read_projected(game: sgfmill_sgf.Sgf_game) -> SgfRecord:
    root = game.get_root()
    side = game.get_size()
    if side % 2 == 0 or side < 3:
        raise SgfError(f"projected Go record: SZ[{side}] is not an odd size from 3 to 25 (2N-1 for N = 2..13)")
    size = (side + 1) // 2
    rules = _read_rules(root, size)
    if not _mr_names(root) & {"first_player"}:
        # A Go tool (gogui-twogtp) writes no MarGo rules and lets Black move first: the
        # first move says who did, so the native record replays as the game was played.
        first = next((node.get_move()[0] for node in game.get_main_sequence()[1:] if _plain_move(node)), None)
        if first is not None:
            rules = rules.replace(first_player=Colour.parse(first))
    record = SgfRecord(rules=rules)
    record.black_name = _text(root, "PB")
    record.white_name = _text(root, "PW")
    record.result = _text(root, "RE")
    setup = sorted({"AB", "AW", "AE"} & set(root.properties()))
    if setup:
        raise SgfError(f"projected Go record: setup stones ({setup[0]}) cannot be lifted to MarGo points")
    _read_root_extras(record, root)
    board = replay(record)
    for number, node in enumerate(game.get_main_sequence()[1:], start=1):
        if node.has_property("B") and node.has_property("W"):
            raise SgfError(f"projected Go record: node {number}: both B and W in one node")
        try:
            letter, go_point = node.get_move()
        except ValueError:
            raw = [v for c in ("B", "W") if node.has_property(c) for v in _decode_values(node, c)]
            raise SgfError(f"projected Go record: node {number}: bad Go move: {', '.join(map(repr, raw))}") from None
        if letter is None:
            continue  # a view correction or a comment-only node
        colour = Colour.parse(letter)
        if go_point is None:
            move = Move.PASS
        else:
            row, col = go_point
            point = next((p for p in column_points(col, row, size) if board.get(p) is None), None)
            if point is None:
                raise SgfError(f"projected Go record: node {number}: {letter.upper()} at "
                               f"{format_point_2d(col, row)} names no empty MarGo point")
            move = Move(point)
        if not _is_idle_pass(board, colour, move):
            try:
                board.push(move, colour)
            except (IllegalMoveError, ValueError) as error:
                raise SgfError(f"projected Go record: node {number}: move {len(record.moves) + 1} "
                               f"({colour.letter} {move.gtp()}) is illegal: {error}") from None
        _append_move(record, node, colour, move)
    return record


def _mr_names(root: Any) -> set[str]:
    """The option names a root's ``MR`` property gives."""
    if not root.has_property("MR"):
        return set()
    return {entry.partition("=")[0].strip() for entry in _decode_values(root, "MR")}


def _plain_move(node: Any) -> bool:
    """A node with one readable move (B or W); malformed ones are reported later."""
    try:
        return node.get_move()[0] is not None
    except ValueError:
        return False


def _read_root_extras(record: SgfRecord, root) -> None:
    """The colour to move (``PL``) and every root property MarGo does not interpret."""
    if root.has_property("PL"):
        record.setup_to_move = _colour_letter(_single_raw(root, "PL"), "PL")
    record.root_properties = {
        identifier: _decode_values(root, identifier)
        for identifier in root.properties()
        if identifier not in _ROOT_KNOWN
    }


def _append_move(record: SgfRecord, node, colour: Colour, move: Move) -> None:
    """Add one move node's move, clock (``WL``/``BL``, ``TU``) and other properties."""
    record.moves.append((colour, move))
    prop = f"{colour.letter}L"
    record.time_left.append(_float(node, prop) if node.has_property(prop) else None)
    record.times.append(_float(node, "TU") if node.has_property("TU") else None)
    record.move_properties.append(
        {
            identifier: _decode_values(node, identifier)
            for identifier in node.properties()
            if identifier not in _MOVE_KNOWN
        }
    )


def replay(record: SgfRecord, upto: int | None = None) -> Board:
    """A board with ``record``'s setup and its first ``upto`` moves (all when ``None``).

    Raises :class:`SgfError` naming the move when a setup ball or a move is illegal. A pass
    once the game is over, or by a colour that has no legal move, is accepted as a no-op
    even when passing is off (2-D referees record such passes at the end of a game).
    """
    if upto is not None and upto > len(record.moves):
        raise SgfError(f"cannot replay {upto} moves: the record has {len(record.moves)}")
    last = len(record.moves) if upto is None else max(0, upto)
    for turn, board in _replaying(record):
        if turn == last:
            return board
    raise AssertionError("unreachable: _replaying reaches every turn")


def positions(record: SgfRecord, turns: Iterable[int] | None = None) -> Iterator[tuple[int, Board]]:
    """``(turn, board)`` for each of ``turns`` (default every turn, 0 .. number of moves),
    in the order given, each board a copy of its own: the position :func:`replay` gives
    for that turn, from one pass over the record.

    Analysing every turn of a game with ``replay(record, turn)`` replays it from the start
    each time, which is quadratic in the game's length (a 4,000-move game took a minute
    at one visit a turn); this goes through the record once. Turns come lazily, as the
    pass reaches them; a turn asked for after a later one is kept (copied) when the pass
    goes by it. SgfError as :func:`replay` raises it (an illegal move, a turn beyond
    the record), when the pass gets there.
    """
    wanted = list(range(len(record.moves) + 1)) if turns is None else list(turns)
    for turn in wanted:
        if not 0 <= turn <= len(record.moves):
            raise SgfError(f"cannot replay {turn} moves: the record has {len(record.moves)}")
    still_wanted: dict[int, int] = {}
    for turn in wanted:
        still_wanted[turn] = still_wanted.get(turn, 0) + 1
    kept: dict[int, Board] = {}
    passing = _replaying(record)
    reached = -1
    for turn in wanted:
        while turn not in kept:
            reached, board = next(passing)
            if reached in still_wanted:
                kept[reached] = board.copy()
        still_wanted[turn] -= 1
        if still_wanted[turn]:
            yield turn, kept[turn].copy()
        else:
            del still_wanted[turn]
            yield turn, kept.pop(turn)


def _replaying(record: SgfRecord) -> Iterator[tuple[int, Board]]:
    """``(turn, board)`` for turns 0, 1, ... of ``record``: one board, moved on in place
    (SgfError naming the first illegal setup ball or move, when the pass reaches it)."""
    board = Board(record.rules)
    try:
        if record.setup:
            board.setup(record.setup, to_move=record.setup_to_move)
        elif record.setup_to_move is not None:
            board.set_to_move(record.setup_to_move)
    except (IllegalMoveError, ValueError) as error:
        text = str(error)  # the board's own words often begin "illegal setup:" already
        raise SgfError(text if text.startswith("illegal setup") else f"illegal setup: {text}") from None
    yield 0, board
    for number, (colour, move) in enumerate(record.moves, start=1):
        if not _is_idle_pass(board, colour, move):
            try:
                board.push(move, colour)
            except (IllegalMoveError, ValueError) as error:
                raise SgfError(f"move {number} ({colour.letter} {move.gtp()}) is illegal: {error}") from None
        yield number, board


def _is_idle_pass(board: Board, colour: Colour, move: Move) -> bool:
    """A pass that changes nothing: passing is not a legal move, but the game is over or
    the colour has no move (what GTP ``play C pass`` accepts, and what 2-D referees send)."""
    if not move.is_pass or board.is_legal(move, colour):
        return False
    return board.is_game_over() or not board.legal_moves(colour)


#: Largest SGF file :func:`read_file` reads. A full 19x19 MarGo game (2470 points, a few
#: properties per move) is far below 1 MiB; the cap keeps ``loadsgf /dev/zero`` from
#: reading without bound.
MAX_SGF_BYTES = 8 * 1024 * 1024


def read_file(path: str | Path) -> str:
    """The text of an SGF file (UTF-8), read up to :data:`MAX_SGF_BYTES` through
    :func:`margo_gtp.textfile.read_text`; SgfError naming the reason for anything else:
    a larger (or endless, as ``/dev/zero``) file, a FIFO, a directory, a missing file,
    undecodable bytes."""
    try:
        return textfile.read_text(path, MAX_SGF_BYTES)
    except textfile.TextFileError as error:
        raise SgfError("file " + error.reason if error.reason.startswith("is larger") else error.reason) from None


def load_board(text: str, before_move: int | None = None) -> tuple[SgfRecord, Board]:
    """:func:`loads` then :func:`replay`, as ``loadsgf FILE [n]`` needs (SgfError on
    failure): as GNU Go, the position before move ``before_move`` (counted from 1), the
    whole game when it is None or past the end."""
    record = loads(text)
    upto = None if before_move is None or before_move > len(record.moves) else before_move - 1
    return record, replay(record, upto)


# ---------------------------------------------------------------------------------------
# Projected export (a Go record for Go viewers)


def top_colours(balls: Mapping[Point, Colour]) -> dict[tuple[int, int], Colour]:
    """2-D point ``(col, row)`` -> colour of the highest ball of its column
    (:func:`margo_gtp.vertex.top_view` without the points)."""
    return {key: colour for key, (_, colour) in vertex.top_view(balls).items()}


def _go_point(col: int, row: int) -> tuple[int, int]:
    """sgfmill's Go point is (row, col), row 0 at the bottom."""
    return (row, col)


def _set_stones(node: Any, identifier: str, points: Iterable[tuple[int, int]]) -> None:
    points = sorted(points)
    if points:
        node.set(identifier, {_go_point(col, row) for col, row in points})


def dumps_projected(record: SgfRecord) -> str:
    """A Go SGF (``GM[1]``, ``SZ[2N-1]``) of ``record`` seen from above, for Go viewers.

    Each move is the Go point of its projection (``gtp.md`` section 5); a pass is a Go pass;
    a swap becomes an empty node with a comment. Setup-only nodes after a move correct the
    top view when captures change more than the played point. Requires N <= 13 (the Go
    board is at most 25x25) and a record that replays (SgfError otherwise).
    """
    size = record.size
    if size > MAX_PROJECTED_SIZE:
        raise SgfError(f"cannot project a {size}x{size} board: the Go board would be "
                       f"{projected_size(size)}x{projected_size(size)} (at most N = {MAX_PROJECTED_SIZE})")
    game = _new_game(projected_size(size), 1)
    root = game.get_root()
    options = record.rules.options()
    root.set_raw_list(
        "MR",
        [_raw(f"{name}={value}") for name, value in options.items() if name not in _OPTIONS_IN_OTHER_PROPERTIES],
    )
    _set_extra(root, record.root_properties, _ROOT_KNOWN | {"C"})
    note = _raw(
        f"MarGo {size}x{size} seen from above: the level-k ball at (x, y) is shown at the Go "
        "point (2x+k-1, 2y+k-1); each point shows the highest ball of its column."
    )
    comments = record.root_properties.get("C", [])
    root.set_raw("C", note + (b"\n\n" + comments[0].encode("utf-8") if comments else b""))
    _set_game_info(root, record, record.rules.komi)

    board = replay(record, 0)
    shown = top_colours(board.balls())
    _set_stones(root, "AB", (p for p, c in shown.items() if c == Colour.BLACK))
    _set_stones(root, "AW", (p for p, c in shown.items() if c == Colour.WHITE))
    if record.setup_to_move is not None:
        root.set_raw("PL", record.setup_to_move.letter.encode())

    count = len(record.moves)
    times, time_left = _padded(record.times, count), _padded(record.time_left, count)
    extras = _padded(record.move_properties, count)
    node = root
    for number, (colour, move) in enumerate(record.moves, start=1):
        if _is_idle_pass(board, colour, move):
            played = False
        else:
            try:
                board.push(move, colour)
            except (IllegalMoveError, ValueError) as error:
                raise SgfError(f"move {number} ({colour.letter} {move.gtp()}) is illegal: {error}") from None
            played = True
        node = node.new_child()
        if extras[number - 1]:
            _set_extra(node, extras[number - 1], _MOVE_KNOWN)
        if move.is_swap:
            node.set_raw("C", _raw(f"{colour.letter} swap: the players exchange colours"))
            continue
        if time_left[number - 1] is not None:
            node.set_raw(f"{colour.letter}L", _number(time_left[number - 1]).encode())
        if times[number - 1] is not None:
            node.set_raw("TU", _number(times[number - 1]).encode())
        letter = colour.letter.lower()
        if move.is_pass:
            node.set_move(letter, None)
            continue
        col, row = project(move.point)
        node.set_move(letter, _go_point(col, row))
        expected = dict(shown)
        if played:
            expected[(col, row)] = colour
        shown = top_colours(board.balls())
        cleared = [p for p in expected if p not in shown]
        changed = [p for p, c in shown.items() if expected.get(p) != c]
        if cleared or changed:
            fix = node = node.new_child()
            _set_stones(fix, "AE", cleared)
            _set_stones(fix, "AB", (p for p in changed if shown[p] == Colour.BLACK))
            _set_stones(fix, "AW", (p for p in changed if shown[p] == Colour.WHITE))
    return game.serialise().decode("utf-8")
