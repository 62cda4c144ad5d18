"""A full disk loses nothing acknowledged (issue 36, bug 1 and 4): every write that matters
is atomic (a temporary file renamed over the old one) or verified (an append is whole or
cut back and refused). Each test fills a small tmpfs (tests/full_disk.py; root only)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from margo_gtp import files
from margo_gtp.engine import Colour, Move, Rules
from margo_gtp.web import journal
from tests.full_disk import fill, small_disk

START = journal.start_line("g1-1-abc", {"size": 9}, {"W": "human", "B": "human"}, 1.0)


def append_until_full(append, lines: list) -> list:
    """Append ``lines`` one by one until one fails; the lines acknowledged (appended whole)."""
    acknowledged = []
    for line in lines:
        try:
            append(line)
        except OSError as error:
            assert error.errno == errno.ENOSPC
            return acknowledged
        acknowledged.append(line)
    raise AssertionError("the disk never filled")


def test_a_journal_on_a_full_disk_keeps_every_acknowledged_move_and_goes_on(tmp_path: Path) -> None:
    with small_disk(tmp_path) as disk:
        path = disk / "g1-1-abc.jsonl"
        journal.rewrite(path, [START])
        filler = fill(disk)
        moves = [journal.move_line("WB"[n % 2], f"A{n % 9 + 1}:1", 0.25) for n in range(1000)]
        acknowledged = append_until_full(lambda line: journal.append(path, line), moves)
        # The move that found the disk full was refused, and nothing of it is left behind.
        assert path.read_bytes() == "".join(files.json_line(line) for line in [START, *acknowledged]).encode()
        filler.unlink()   # space again: the game goes on from the last acknowledged move
        after = journal.move_line("W", "B2:1", None)
        journal.append(path, after)
        assert journal.read(path) == (START, [*acknowledged, after])


def test_a_results_log_on_a_full_disk_keeps_every_finished_game(tmp_path: Path) -> None:
    from margo_gtp.match.results_log import ResultsLog

    with small_disk(tmp_path) as disk:
        log = ResultsLog(disk)
        records = [{"game": n, "result": "W+R", "sgf": f"game-{n:04d}.sgf"} for n in range(1, 2000)]
        log.append(records[0])   # the file's last page is partly free when the disk fills
        filler = fill(disk)
        acknowledged = [records[0], *append_until_full(log.append, records[1:])]
        filler.unlink()   # space again: the referee goes on appending, without reading back first
        log.append({"game": 9999, "result": "B+3"})
        assert log.load() == [*acknowledged, {"game": 9999, "result": "B+3"}]


def test_a_web_game_that_ends_on_a_full_disk_keeps_its_journal(tmp_path: Path, caplog) -> None:
    """The SGF cannot be written: the journal, the game's only copy, stays (it went before)."""
    from margo_gtp.engine import Outcome, Termination
    from margo_gtp.web.game import EngineRegistry, Seat, WebGame
    from margo_gtp.web.store import GameStore

    with small_disk(tmp_path) as disk:
        store = GameStore(disk)
        game = WebGame("g1-1-abc", Rules(size=3), {c: Seat("human") for c in Colour}, 1.0, EngineRegistry({}), store)
        store.write_journal(game)
        game._push(Move.from_gtp("A1:1", 3), Colour.WHITE)
        fill(disk)
        game._finish(Outcome(Termination.RESIGNATION, Colour.BLACK, 0.0, 0.0))
        assert [message.split(": [Errno")[0] for message in caplog.messages] == ["could not save game g1-1-abc"]
        assert "[Errno 28] No space left on device" in caplog.messages[0]
        assert not list(disk.glob("*.sgf")) and not list(disk.glob(".*.tmp"))
        assert journal.read(store.journal_path("g1-1-abc")) == (game.journal_lines()[0], game.journal_lines()[1:])


def test_margo_review_on_a_full_disk_leaves_the_old_review_whole(tmp_path: Path) -> None:
    from margo_gtp.commands.review import ReviewFailed, review
    from margo_gtp.sgf import SgfRecord, dumps

    with small_disk(tmp_path, kilobytes=512) as disk:
        record = SgfRecord(rules=Rules(size=3), moves=[(Colour.WHITE, Move.from_gtp("B2:1", 3))])
        game = disk / "game.sgf"
        game.write_text(dumps(record), encoding="utf-8")
        old = {name: f"the old {name}\n" * 40 for name in ("game.review.jsonl", "game.reviewed.sgf")}
        for name, text in old.items():
            (disk / name).write_text(text)
        fill(disk)
        with pytest.raises(ReviewFailed, match=r"^cannot write to '.*/disk': No space left on device$"):
            review(game, None, visits=4, seconds=None, engine=None, parallel=1, seed=1, ownership=False)
        assert {name: (disk / name).read_text() for name in old} == old
        assert not list(disk.glob(".*.tmp"))
