"""Opening books for margo-match ``--openings FILE``.

A book is either

- a MarGo SGF collection (``(;GM[77]...)(;GM[77]...)``, what ``scripts/openings`` writes):
  each game's main line is one opening; setup balls are refused (an opening is a move
  sequence, so both engines reach it by ``play``), and so is a record whose board size
  differs from the match's; or
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

from margo_gtp import sgf
from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Rules
from margo_gtp.vertex import InvalidVertexError

#: One opening: ``(colour letter, GTP move)`` pairs in the order they are played.
Opening = tuple[tuple[str, str], ...]

#: Largest book file read (a book is a few thousand short lines; this stops /dev/zero).
MAX_BOOK_BYTES = 16 * 1024 * 1024


class OpeningsError(ValueError):
    """Raised when an opening book cannot be used; the message names the file and opening"""


def load_openings(path: Path, rules: Rules) -> tuple[Opening, ...]:
    """The openings of the book at ``path``, each checked legal under ``rules``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BOOK_BYTES + 1)
    except OSError as error:
        raise OpeningsError(f"cannot read opening book {path}: {error.strerror or error}") from None
    if len(data) > MAX_BOOK_BYTES:
        raise OpeningsError(f"opening book {path} is larger than {MAX_BOOK_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OpeningsError(f"opening book {path} is not UTF-8 text") from None
    openings = _from_sgf(path, data, rules) if text.lstrip().startswith("(") else _from_lines(path, text, rules)
    if not openings:
        raise OpeningsError(f"opening book {path} holds no opening")
    return tuple(openings)


def _from_lines(path: Path, text: str, rules: Rules) -> list[Opening]:
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        board = Board(rules)
        played = []
        for word in words:
            colour = board.to_move
            move = _legal(board, word, colour, f"{path}:{number}")
            board.push(move, colour)
            played.append((colour.letter, move.gtp()))
        _check_unfinished(board, f"{path}:{number}")
        openings.append(tuple(played))
    return openings


def _from_sgf(path: Path, data: bytes, rules: Rules) -> list[Opening]:
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as error:
        raise OpeningsError(f"opening book {path}: malformed SGF: {error}") from None
    openings = []
    for number, tree in enumerate(trees, 1):
        where = f"{path} game {number}"
        try:
            record = sgf.loads(sgf_grammar.serialise_game_tree(tree).decode("utf-8"))
        except (sgf.SgfError, UnicodeDecodeError) as error:
            raise OpeningsError(f"{where}: {error}") from None
        if record.setup:
            raise OpeningsError(f"{where}: has setup balls (AB/AW); an opening must be moves only")
        if record.size != rules.size:
            raise OpeningsError(f"{where}: is {record.size}x{record.size}, the match is {rules.size}x{rules.size}")
        board = Board(rules)
        if record.setup_to_move is not None:
            board.set_to_move(record.setup_to_move)
        played = []
        for colour, move in record.moves:
            _legal(board, move.gtp(), colour, where)
            board.push(move, colour)
            played.append((colour.letter, move.gtp()))
        _check_unfinished(board, where)
        if played:
            openings.append(tuple(played))
    return openings


def _legal(board: Board, word: str, colour: Colour, where: str) -> Move:
    try:
        move = Move.from_gtp(word, board.size)
    except (InvalidVertexError, ValueError):
        raise OpeningsError(f"{where}: not a move: {word!r}") from None
    if move.is_swap:  # colours must stay as the pair assigns them
        raise OpeningsError(f"{where}: a swap cannot be part of an opening")
    if not board.is_legal(move, colour):
        raise OpeningsError(f"{where}: {colour.letter} {move.gtp()} is illegal there")
    return move


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
