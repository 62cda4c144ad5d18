"""Opening books for margo-match ``--openings FILE``.

A book is either

- a MarGo SGF collection (``(;GM[77]...)(;GM[77]...)``, what ``scripts/openings`` writes):
  each game's main line is one opening; setup balls are refused (an opening is a move
  sequence, so both engines reach it by ``play``), and so is a record whose board size
  differs from the match's, or whose turn order is not the match's (its first move must be
  the match's first player's, ``MR[first_player]`` and ``PL`` must agree, the colours
  alternate); or
- a text file with one opening a line: moves separated by spaces (``D4:1 E5:1 C3:1``),
  played alternately from the rules' first player; blank lines and ``#`` comments are
  skipped. A swap or a pass is written ``swap``/``pass``.

Every opening is replayed with the match's rules when the book is read, so an illegal or
finished opening is a bad-input error (naming the file and the opening), not a forfeit.
How a book is used (:func:`opening_of_game`): game ``2k-1`` and game ``2k`` play opening
``k`` with the colours reversed (cutechess ``-repeat``, fishtest's pairs), cycling through
the book when the match is longer than twice the book.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf_grammar

from margo_gtp import sgf, textfile
from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Rules
from margo_gtp.vertex import InvalidVertexError

#: One opening: ``(colour letter, GTP move)`` pairs in the order they are played.
Opening = tuple[tuple[str, str], ...]

#: Largest book file read (a book is a few thousand short lines; 16 MB is far more and
#: still checked in seconds). Read through :mod:`margo_gtp.textfile`: a regular file only.
MAX_BOOK_BYTES = 16 * 1024 * 1024


class OpeningsError(ValueError):
    """Raised when an opening book cannot be used; the message names the file and opening"""


#: Longest piece of a bad book line quoted in an error (a "move" may be a 1 MB token).
EXCERPT_CHARACTERS = 40

#: ``on_progress(bytes_checked, total_bytes)`` is called about every this many openings.
PROGRESS_EVERY = 2000


def load_openings(
    path: Path, rules: Rules, on_progress: Callable[[int, int], None] | None = None
) -> tuple[Opening, ...]:
    """The openings of the book at ``path``, each checked legal under ``rules`` and in the
    match's turn order. ``on_progress(bytes_checked, total_bytes)`` is told how far the
    check has come (a book of many megabytes takes seconds; margo-match draws a bar)."""
    try:
        data = textfile.read_bytes(path, MAX_BOOK_BYTES)
    except textfile.TextFileError as error:
        raise OpeningsError(f"cannot read opening book {path}: {error.reason}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OpeningsError(f"opening book {path} is not UTF-8 text") from None
    report = on_progress or (lambda done, total: None)
    if text.lstrip().startswith("("):
        openings = _from_sgf(path, data, rules, report)
    else:
        openings = _from_lines(path, text, rules, report)
    if not openings:
        raise OpeningsError(f"opening book {path} holds no opening")
    report(len(data), len(data))
    return tuple(openings)


def excerpt(text: str, limit: int = EXCERPT_CHARACTERS) -> str:
    """``repr(text)``, cut to ``limit`` characters with its full length said when longer."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def _from_lines(path: Path, text: str, rules: Rules, report: Callable[[int, int], None]) -> list[Opening]:
    openings = []
    # One board for the whole book, pushed and popped: building a Board per line was most
    # of the time a large book took. Words and whole lines repeat, so each is checked once.
    board = Board(rules)
    moves: dict[str, Move] = {}
    seen: dict[str, Opening] = {}
    done_bytes = 0
    for number, line in enumerate(text.splitlines(), 1):
        done_bytes += len(line) + 1
        if number % PROGRESS_EVERY == 0:
            report(done_bytes, len(text))
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        key = " ".join(words)
        if key in seen:
            openings.append(seen[key])
            continue
        played = []
        try:
            for word in words:
                colour = board.to_move
                move = moves[word] if word in moves else moves.setdefault(word, _parse(word, board.size, f"{path}:{number}"))
                _check_legal(board, move, colour, f"{path}:{number}")
                board.push(move, colour)
                played.append((colour.letter, move.gtp()))
            _check_unfinished(board, f"{path}:{number}")
        finally:
            for _ in played:
                board.pop()
        seen[key] = tuple(played)
        openings.append(seen[key])
    return openings


def _from_sgf(path: Path, data: bytes, rules: Rules, report: Callable[[int, int], None]) -> list[Opening]:
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as error:
        raise OpeningsError(f"opening book {path}: malformed SGF: {excerpt(str(error), 200)}") from None
    openings = []
    first = rules.first_player
    for number, tree in enumerate(trees, 1):
        if number % PROGRESS_EVERY == 0:
            report(len(data) * number // len(trees), len(data))
        where = f"{path} game {number}"
        try:
            record = sgf.loads(sgf_grammar.serialise_game_tree(tree).decode("utf-8"))
        except (sgf.SgfError, UnicodeDecodeError) as error:
            raise OpeningsError(f"{where}: {excerpt(str(error), 200)}") from None
        if record.setup:
            raise OpeningsError(f"{where}: has setup balls (AB/AW); an opening must be moves only")
        if record.size != rules.size:
            raise OpeningsError(f"{where}: is {record.size}x{record.size}, the match is {rules.size}x{rules.size}")
        # The book's own turn order must be the match's: an opening is replayed move by
        # move from the match's first player, never from the record's (MR, PL, or a Go
        # record whose first move is Black).
        if record.setup_to_move is not None and record.setup_to_move != first:
            raise OpeningsError(f"{where}: PL[{record.setup_to_move.letter}] puts {_name(record.setup_to_move)} to move first; "
                                f"the match starts with {_name(first)}")
        if record.rules.first_player != first:
            raise OpeningsError(f"{where}: {_name(record.rules.first_player)} moves first in it; "
                                f"the match starts with {_name(first)}")
        board = Board(rules)
        played = []
        for index, (colour, move) in enumerate(record.moves, 1):
            if colour != board.to_move:
                raise OpeningsError(f"{where}: move {index} is {_name(colour)}'s, but {_name(board.to_move)} is to move")
            _check_legal(board, move, colour, where)
            board.push(move, colour)
            played.append((colour.letter, move.gtp()))
        _check_unfinished(board, where)
        if played:
            openings.append(tuple(played))
    return openings


def _name(colour: Colour) -> str:
    return colour.name.capitalize()


def _parse(word: str, size: int, where: str) -> Move:
    try:
        return Move.from_gtp(word, size)
    except (InvalidVertexError, ValueError):
        raise OpeningsError(f"{where}: not a move: {excerpt(word)}") from None


def _check_legal(board: Board, move: Move, colour: Colour, where: str) -> None:
    if move.is_swap:  # colours must stay as the pair assigns them
        raise OpeningsError(f"{where}: a swap cannot be part of an opening")
    if not board.is_legal(move, colour):
        raise OpeningsError(f"{where}: {colour.letter} {move.gtp()} is illegal there")


def _check_unfinished(board: Board, where: str) -> None:
    if board.outcome() is not None:
        raise OpeningsError(f"{where}: the game is already over after the opening")


def opening_of_game(openings: tuple[Opening, ...], game: int) -> tuple[int, Opening] | None:
    """``(1-based opening number, opening)`` for game number ``game``, None without a book."""
    if not openings:
        return None
    index = ((game - 1) // 2) % len(openings)
    return index + 1, openings[index]


def book_digest(openings: tuple[Opening, ...]) -> str:
    """A short fingerprint of a book, stored in match.json so a resumed match plays the same openings."""
    return hashlib.sha256(json.dumps(openings).encode()).hexdigest()[:16]


def board_after(rules: Rules, opening: Opening) -> Board:
    """A board with ``opening`` played (the opening was checked when the book was read)."""
    board = Board(rules)
    for letter, text in opening:
        colour = Colour.parse(letter)
        try:
            board.push(Move.from_gtp(text, board.size), colour)
        except IllegalMoveError as error:  # pragma: no cover - load_openings checked it
            raise OpeningsError(f"opening move {letter} {text} is illegal: {error}") from None
    return board


# ---------------------------------------------------------------------------------------
# Generating a balanced book (scripts/openings)


@dataclass(frozen=True)
class BookEntry:
    """One generated opening and the MCTS win rate of the side to move after it."""

    opening: Opening
    to_move: str
    winrate: float


def generate_book(
    rules: Rules,
    *,
    count: int,
    moves: int,
    playouts: int = 400,
    window: float = 0.1,
    seed: int = 0,
    max_tries: int | None = None,
    on_try: Callable[[int, BookEntry | None], None] | None = None,
) -> list[BookEntry]:
    """Up to ``count`` distinct openings of ``moves`` random legal moves after which an MCTS
    search of ``playouts`` simulations gives the side to move a win rate within ``window``
    of 50% (a balanced start: neither colour is handed the game). Positions are distinct
    (by Zobrist key). Stops after ``max_tries`` candidates (default ``50 * count``), so the
    book can be shorter than asked when balanced positions are rare.
    """
    from margo_gtp.players.mcts import MctsPlayer  # only the generator needs a searcher

    rng = random.Random(seed)
    seen: set[int] = set()
    book: list[BookEntry] = []
    tries = 0
    limit = max_tries if max_tries is not None else 50 * count
    while len(book) < count and tries < limit:
        tries += 1
        board = Board(rules)
        played = []
        for _ in range(moves):
            colour = board.to_move
            choices = [move for move in board.legal_moves(colour) if not move.is_swap and not move.is_pass]
            if not choices or board.outcome() is not None:
                break
            move = rng.choice(choices)
            board.push(move, colour)
            played.append((colour.letter, move.gtp()))
        entry = None
        if len(played) == moves and board.outcome() is None and board.zobrist_key not in seen:
            searcher = MctsPlayer(random.Random(rng.getrandbits(32)), reuse=False, early_stop=False)
            root = searcher.search(board, board.to_move, playouts=playouts)
            best = max(root.children or [], key=lambda child: child.n, default=None)
            if best is not None and best.n:
                candidate = BookEntry(tuple(played), board.to_move.letter, best.win_rate())
                if abs(candidate.winrate - 0.5) <= window:
                    seen.add(board.zobrist_key)
                    book.append(candidate)
                    entry = candidate
        if on_try is not None:
            on_try(tries, entry)
    return book


def book_sgf(rules: Rules, book: Sequence[BookEntry]) -> str:
    """The book as a MarGo SGF collection (what ``--openings`` reads); each game's ``GC``
    holds the win rate the generator measured."""
    games = []
    for number, entry in enumerate(book, 1):
        board = board_after(rules, entry.opening)
        comment = f"opening {number}: mcts win rate {entry.winrate:.3f} for {entry.to_move} to move"
        games.append(sgf.dumps(sgf.record_from_board(board, result=None, root_properties={"GC": [comment]})).strip())
    return "\n".join(games) + "\n"
