"""Opening books: reading both formats, the pairing of games, generating a balanced book."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from margo_gtp import sgf
from margo_gtp.engine import Board, Rules
from margo_gtp.match.openings import (
    OpeningsError,
    board_after,
    book_digest,
    book_sgf,
    generate_book,
    load_openings,
    opening_of_game,
)

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def test_text_book_one_opening_a_line_alternating_from_the_first_player(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("# comment\nC3:1   # centre\n\nB2:1 D4:1 C3:1\n")
    assert load_openings(book, Rules(size=5)) == ((("W", "C3:1"),), (("W", "B2:1"), ("B", "D4:1"), ("W", "C3:1")))
    black_first = load_openings(book, Rules().with_options({"size": "5", "first_player": "black"}))
    assert black_first[1] == (("B", "B2:1"), ("W", "D4:1"), ("B", "C3:1"))


def test_games_are_paired_on_each_opening_and_the_book_cycles():
    openings = ((("W", "C3:1"),), (("W", "B2:1"),))
    assert [opening_of_game(openings, game)[0] for game in range(1, 9)] == [1, 1, 2, 2, 1, 1, 2, 2]
    assert opening_of_game((), 3) is None
    assert book_digest(openings) != book_digest(openings[:1])


def test_sgf_collection_round_trip(tmp_path):
    rules = Rules(size=4)
    book = generate_book(rules, count=3, moves=2, playouts=30, window=0.5, seed=7)
    path = tmp_path / "book.sgf"
    path.write_text(book_sgf(rules, book))
    assert load_openings(path, rules) == tuple(entry.opening for entry in book)
    for entry in book:
        assert board_after(rules, entry.opening).to_move.letter == entry.to_move


@pytest.mark.parametrize(
    "text, message",
    [
        ("Z9:1\n", "{path}:1: not a move: 'Z9:1'"),
        ("C3:1 C3:1\n", "{path}:1: B C3:1 is illegal there"),
        ("# nothing\n\n", "opening book {path} holds no opening"),
        ("(;GM[77]SZ[4];W[aa:1])", "{path} game 1: is 4x4, the match is 5x5"),
        ("(;GM[77]SZ[5]AW[aa:1];B[bb:1])", "{path} game 1: has setup balls (AB/AW); an opening must be moves only"),
        ("(;GM[77]SZ[5];W[aa:1]", "opening book {path}: malformed SGF:"),
    ],
)
def test_bad_books_name_the_file_and_the_opening(tmp_path, text, message):
    path = tmp_path / "book"
    path.write_text(text)
    with pytest.raises(OpeningsError) as error:
        load_openings(path, Rules(size=5))
    assert str(error.value).startswith(message.format(path=path))


def test_a_swap_in_an_opening_is_refused(tmp_path):
    path = tmp_path / "book"
    path.write_text("C3:1 swap\n")
    with pytest.raises(OpeningsError, match="a swap cannot be part of an opening"):
        load_openings(path, Rules(size=5, swap=True))


def test_binary_and_missing_books(tmp_path):
    binary = tmp_path / "bin"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(OpeningsError, match="is not UTF-8 text"):
        load_openings(binary, Rules())
    with pytest.raises(OpeningsError, match="cannot read opening book"):
        load_openings(tmp_path / "missing", Rules())


def test_generated_openings_are_balanced_distinct_and_unfinished():
    rules = Rules(size=5)
    book = generate_book(rules, count=4, moves=3, playouts=100, window=0.15, seed=1)
    assert len(book) == 4
    keys = set()
    for entry in book:
        assert len(entry.opening) == 3 and abs(entry.winrate - 0.5) <= 0.15
        board = board_after(rules, entry.opening)
        assert board.outcome() is None
        keys.add(board.zobrist_key)
    assert len(keys) == 4


def test_scripts_openings_writes_a_book_margo_match_reads(tmp_path):
    out = tmp_path / "book.sgf"
    done = subprocess.run([str(SCRIPTS / "openings"), "--size", "4", "--moves", "2", "--count", "2", "--playouts", "30",
                           "--window", "0.5", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == f"2 openings written to {out}"
    openings = load_openings(out, Rules(size=4))
    assert len(openings) == 2
    comments = [sgf.loads(f"(;{game}").root_properties["GC"][0] for game in out.read_text().split("(;")[1:]]
    assert all(comment.startswith(f"opening {i}: mcts win rate ") for i, comment in enumerate(comments, 1))


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--out", "/proc/no/book.sgf"], "--out: cannot write in the directory '/proc/no': No such file or directory"),
        (["--out", "{tmp}"], "--out: is a directory: '{tmp}'"),
        (["--out", "{tmp}/b.sgf", "--rule", "swap"], "--rule takes K=V: 'swap'"),
        (["--out", "{tmp}/b.sgf", "--size", "1"], "bad --size or --rule: invalid value for size: '1' (allowed 2..19)"),
        (["--out", "{tmp}/b.sgf", "--count", "0"],
         "--count, --moves and --playouts must be at least 1, --window between 0 and 0.5"),
    ],
)
def test_scripts_openings_refuses_bad_options_before_searching(tmp_path, options, error):
    options = [option.replace("{tmp}", str(tmp_path)) for option in options]
    done = subprocess.run([str(SCRIPTS / "openings"), *options], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == "openings: error: " + error.replace("{tmp}", str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_scripts_openings_without_a_half_book(tmp_path):
    out = tmp_path / "book.sgf"
    generating = subprocess.Popen(
        [str(SCRIPTS / "openings"), "--size", "9", "--count", "500", "--playouts", "200", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert generating.stderr is not None
    first = generating.stderr.readline()  # one line per accepted opening
    assert first.startswith("opening (try "), first
    generating.send_signal(signal.SIGINT)
    _, rest = generating.communicate(timeout=60)
    assert generating.returncode == 130
    assert rest.splitlines()[-1] == f"openings: stopped; nothing written to {out}"
    assert "Traceback" not in rest and not out.exists()


@pytest.mark.parametrize(
    "text, rules, message",
    [
        ("(;FF[4]GM[77]SZ[3];B[aa:1];B[cc:1])", {}, "{path} game 1: move 1 is Black's, but White is to move"),
        ("(;FF[4]GM[77]SZ[3];W[aa:1];W[cc:1])", {}, "{path} game 1: move 2 is White's, but Black is to move"),
        ("(;FF[4]GM[77]SZ[3]MR[first_player=black];B[aa:1])", {},
         "{path} game 1: Black moves first in it; the match starts with White"),
        ("(;FF[4]GM[77]SZ[3]PL[B];B[aa:1])", {}, "{path} game 1: PL[B] puts Black to move first; the match starts with White"),
        ("(;FF[4]GM[1]SZ[5];B[cc])", {}, "{path} game 1: Black moves first in it; the match starts with White"),
        ("(;FF[4]GM[77]SZ[3];W[aa:1])", {"first_player": "black"},
         "{path} game 1: White moves first in it; the match starts with Black"),
    ],
    ids=["black-twice", "white-twice", "mr-black-first", "pl-black", "go-record-black-first", "white-first-in-black-match"],
)
def test_sgf_openings_follow_the_matchs_turn_order(tmp_path, text, rules, message):
    path = tmp_path / "book.sgf"
    path.write_text(text)
    with pytest.raises(OpeningsError) as error:
        load_openings(path, Rules().with_options({"size": "3", **rules}))
    assert str(error.value) == message.format(path=path)


def test_a_black_first_book_is_fine_in_a_black_first_match(tmp_path):
    path = tmp_path / "book.sgf"
    path.write_text("(;FF[4]GM[77]SZ[3]MR[first_player=black];B[aa:1];W[cc:1])(;FF[4]GM[1]SZ[5];B[cc])")
    rules = Rules().with_options({"size": "3", "first_player": "black"})
    assert load_openings(path, rules) == ((("B", "A3:1"), ("W", "C1:1")), (("B", "B2:1"),))  # SGF row a is the top


def test_a_huge_bad_token_is_quoted_as_a_bounded_excerpt(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text("C3:1\n" + "x" * 1_000_000 + "\n")
    with pytest.raises(OpeningsError) as error:
        load_openings(path, Rules(size=5))
    assert str(error.value) == f"{path}:2: not a move: '{'x' * 40}'... (1000000 characters)"


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular file"),
        (lambda p: p.mkdir(), "Is a directory"),
        (lambda p: None, "No such file or directory"),
    ],
    ids=["fifo", "directory", "missing"],
)
def test_a_book_that_is_not_a_regular_file_is_refused_at_once(tmp_path, make, reason):
    path = tmp_path / "book"
    make(path)
    with pytest.raises(OpeningsError) as error:
        load_openings(path, Rules(size=5))
    assert str(error.value) == f"cannot read opening book {path}: {reason}"
    with pytest.raises(OpeningsError) as error:
        load_openings(Path("/dev/zero"), Rules(size=5))
    assert str(error.value) == "cannot read opening book /dev/zero: is a character device, not a regular file"


def test_a_large_book_reports_its_progress_and_repeated_lines_are_the_same_opening(tmp_path, monkeypatch):
    from margo_gtp.match import openings

    monkeypatch.setattr(openings, "PROGRESS_EVERY", 2)
    path = tmp_path / "book.txt"
    path.write_text("C3:1 B2:1\n" * 5)
    seen = []
    book = load_openings(path, Rules(size=5), on_progress=lambda done, total: seen.append((done, total)))
    assert book == ((("W", "C3:1"), ("B", "B2:1")),) * 5
    assert seen == [(20, 50), (40, 50), (50, 50)]
