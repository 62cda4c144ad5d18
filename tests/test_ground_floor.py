"""The ground floor: atomic writes, JSON lines and the torn-line rule, the progress bar,
the machine's cores and percentiles, and that each of them has one home in the tree."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp import files, machine, progress, vertex
from margo_gtp.vertex import Point

ROOT = Path(__file__).resolve().parent.parent

# A writer killed between its write and its rename (SIGKILL at os.replace), or before the
# write (at the first os.write): the target must be the old file whole, or absent.
KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from margo_gtp import files
target, point = Path(sys.argv[1]), sys.argv[2]
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
setattr(os, point, die)
files.write_atomically(target, "new text, " * 10000)
"""


def kill_a_writer(target: Path, point: str) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target), point], cwd=ROOT, capture_output=True,
                          timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr


@pytest.mark.parametrize("point", ["replace", "write"])
def test_a_writer_killed_before_its_rename_leaves_the_old_file_whole(tmp_path: Path, point: str) -> None:
    target = tmp_path / "match.json"
    target.write_text("old text\n")
    kill_a_writer(target, point)
    assert target.read_text() == "old text\n"
    if point == "replace":  # written and synced, never renamed: a hidden leftover, found by the glob
        assert [p.name for p in files.leftover_temporaries(tmp_path, "match.json")] == \
               [p.name for p in tmp_path.iterdir() if p != target]


@pytest.mark.parametrize("point", ["replace", "write"])
def test_a_writer_killed_before_its_rename_leaves_no_new_file(tmp_path: Path, point: str) -> None:
    target = tmp_path / "game.sgf"
    kill_a_writer(target, point)
    assert not target.exists()
    assert list(tmp_path.glob("*.sgf")) == []


def test_an_atomic_write_syncs_the_file_before_the_rename_and_the_folder_after(tmp_path: Path, monkeypatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        events.append("fsync " + ("folder" if os.path.isdir(f"/proc/self/fd/{descriptor}") else "file"))
        real_fsync(descriptor)

    def replace(source, target) -> None:
        events.append("replace")
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    files.write_atomically(tmp_path / "a.txt", "é\n")
    assert events == ["fsync file", "replace", "fsync folder"]
    assert (tmp_path / "a.txt").read_bytes() == "é\n".encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_failed_atomic_write_removes_its_temporary_and_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "model.pt"
    target.write_bytes(b"old")

    def write_half_then_fail(temporary: Path) -> None:
        temporary.write_bytes(b"ne")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        files.replace_atomically(target, write_half_then_fail)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]
    assert target.read_bytes() == b"old"
    files.replace_atomically(target, lambda temporary: temporary.write_bytes(b"new"))
    assert target.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]


def _make_target(kind: str, path: Path) -> str:
    """A target of ``kind`` at ``path``; the reason the writer gives for it."""
    if kind == "fifo":
        os.mkfifo(path)
        return "is a named pipe (FIFO), not a regular file"
    if kind == "directory":
        path.mkdir()
        (path / "inside.txt").write_text("kept\n")
        return "Is a directory"
    if kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
        listener.close()  # the socket file stays
        return "is a socket, not a regular file"
    if kind == "character device":  # the device /dev/null is, made in tmp_path: never a real /dev path
        if os.geteuid() != 0:
            pytest.skip("making a device needs root (CI runs as root)")
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        return "is a character device, not a regular file"
    raise AssertionError(kind)


def _file_kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return next(name for name, test in [("fifo", stat.S_ISFIFO), ("directory", stat.S_ISDIR), ("socket", stat.S_ISSOCK),
                                        ("character device", stat.S_ISCHR), ("link", stat.S_ISLNK),
                                        ("regular", stat.S_ISREG)] if test(mode))


TARGET_KINDS = ["fifo", "directory", "socket", "character device"]


@pytest.mark.parametrize("through_a_link", [False, True], ids=["itself", "through a link"])
@pytest.mark.parametrize("kind", TARGET_KINDS)
def test_an_atomic_write_never_replaces_what_is_not_a_regular_file(tmp_path: Path, kind: str, through_a_link: bool) -> None:
    """A rename over a pipe or a device replaced it with a regular file (as root,
    ``scripts/solve --proof /dev/zero`` replaced /dev/zero): refused in textfile's words, an
    OSError too, before the writer is called, and nothing is left beside it."""
    from margo_gtp.textfile import NotRegularTargetError, TextFileError

    thing = tmp_path / "thing"
    reason = _make_target(kind, thing)
    path = thing
    if through_a_link:
        path = tmp_path / "link"
        path.symlink_to("thing")
    calls: list[Path] = []
    for write in [lambda: files.write_atomically(path, "new\n"),
                  lambda: files.replace_atomically(path, calls.append)]:
        with pytest.raises(NotRegularTargetError) as refused:
            write()
        error = refused.value
        assert isinstance(error, OSError) and isinstance(error, TextFileError)
        assert (str(error), error.strerror, error.filename) == (f"{path}: {reason}", reason, str(path))
        assert error.errno == (errno.EISDIR if kind == "directory" else None)
    assert calls == []
    assert _file_kind(thing) == kind and (not through_a_link or _file_kind(path) == "link")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["thing", *(["link"] if through_a_link else [])])
    if kind == "directory":
        assert [p.name for p in thing.iterdir()] == ["inside.txt"]


def test_an_atomic_write_through_a_link_replaces_the_file_the_link_names(tmp_path: Path) -> None:
    """As a shell's ``>``: the link stays a link, and the file it names is replaced (a
    link that names no file yet makes it)."""
    (tmp_path / "real.json").write_text("old\n")
    (tmp_path / "link.json").symlink_to("real.json")
    (tmp_path / "dangling.json").symlink_to("made.json")
    files.write_atomically(tmp_path / "link.json", "new\n")
    files.write_atomically(tmp_path / "dangling.json", "made\n")
    assert [_file_kind(tmp_path / name) for name in ("link.json", "dangling.json")] == ["link", "link"]
    assert (tmp_path / "real.json").read_text() == "new\n" and (tmp_path / "made.json").read_text() == "made\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.json", "link.json", "made.json", "real.json"]


def test_a_target_that_becomes_a_pipe_while_it_is_written_is_not_replaced(tmp_path: Path) -> None:
    """Checked again just before the rename (a checkpoint takes seconds to write)."""
    from margo_gtp.textfile import NotRegularTargetError

    target = tmp_path / "model.pt"
    target.write_bytes(b"old")

    def write_while_it_becomes_a_pipe(temporary: Path) -> None:
        temporary.write_bytes(b"new")
        target.unlink()
        os.mkfifo(target)

    with pytest.raises(NotRegularTargetError, match=r"model\.pt: is a named pipe \(FIFO\), not a regular file$"):
        files.replace_atomically(target, write_while_it_becomes_a_pipe)
    assert _file_kind(target) == "fifo" and [p.name for p in tmp_path.iterdir()] == ["model.pt"]


def test_temporary_names_are_hidden_and_never_shared(tmp_path: Path) -> None:
    first, second = files.temporary_path(tmp_path / "x.jsonl"), files.temporary_path(tmp_path / "x.jsonl")
    assert first != second
    assert re.fullmatch(rf"\.x\.jsonl\.{os.getpid()}\.\d+\.tmp", first.name)


# -- JSON lines: one rule for a torn last line ------------------------------------------

TORN_CASES = [
    # contents, the whole lines a reader gets, the contents after cut_torn_line
    (b"", [], b""),
    (b'{"a":1}\n', [b'{"a":1}'], b'{"a":1}\n'),
    (b'{"a":1}\n{"b":2}\n', [b'{"a":1}', b'{"b":2}'], b'{"a":1}\n{"b":2}\n'),
    (b'{"a":1}\n{"b":', [b'{"a":1}'], b'{"a":1}\n'),                # cut mid-JSON
    (b'{"a":1}\n{"b":2}', [b'{"a":1}'], b'{"a":1}\n'),              # whole JSON, no newline: still torn
    (b'{"a":1', [], b""),                                           # the only line torn
    (b'{"a":1}\n\n', [b'{"a":1}', b""], b'{"a":1}\n\n'),            # a blank line is a line (readers skip it)
]


@pytest.mark.parametrize("data, lines, cut", TORN_CASES)
def test_the_torn_line_rule(tmp_path: Path, data: bytes, lines: list[bytes], cut: bytes) -> None:
    assert [line for _, line in files.complete_lines(data)] == lines
    assert [line for _, line in files.complete_lines(data.decode())] == [line.decode() for line in lines]
    assert [number for number, _ in files.complete_lines(data)] == list(range(1, len(lines) + 1))
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    assert files.cut_torn_line(path) is (cut != data)
    assert path.read_bytes() == cut
    assert files.cut_torn_line(path) is False  # nothing left to cut


def test_cut_torn_line_reads_back_far_enough_for_a_long_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"game":1}\n' + b'{"moves":"' + b"x" * 200_000)
    assert files.cut_torn_line(path) is True
    assert path.read_bytes() == b'{"game":1}\n'
    assert files.cut_torn_line(tmp_path / "missing.jsonl") is False


def test_append_durably_appends_one_whole_line_and_syncs_it(tmp_path: Path, monkeypatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda descriptor: (synced.append(descriptor), real_fsync(descriptor)))
    path = tmp_path / "results.jsonl"
    files.append_durably(path, files.json_line({"game": 1, "w": "é"}))
    files.append_durably(path, files.json_line([1, None]))
    assert path.read_bytes() == b'{"game":1,"w":"\\u00e9"}\n[1,null]\n'
    assert len(synced) == 2


def test_ctrl_c_after_the_whole_line_keeps_it_and_a_full_disk_cuts_it(tmp_path: Path, monkeypatch) -> None:
    """A referee's finished game must not be lost to a Ctrl-C that lands between the
    write and the fsync; a failed fsync (the disk) still cuts the line back."""
    path = tmp_path / "results.jsonl"
    files.append_durably(path, files.json_line({"game": 1}))

    def interrupted(descriptor: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.append_durably(path, files.json_line({"game": 2}))
    assert path.read_bytes() == b'{"game":1}\n{"game":2}\n'

    def failing(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError, match="No space left on device"):
        files.append_durably(path, files.json_line({"game": 3}))
    assert path.read_bytes() == b'{"game":1}\n{"game":2}\n'


def test_a_capped_log_stops_at_its_cap_with_one_cap_line(tmp_path: Path) -> None:
    path = tmp_path / "wire.log"
    log = files.CappedLog.open(path, cap=100)
    for number in range(10):
        log.write(f"line {number} {'é' * 5}\n")  # 18 bytes: é is two bytes in UTF-8
        log.flush()
    log.close()
    # 4 lines (72 bytes) + the cap line (26) fit in 100; a fifth would leave no room for it
    assert path.read_bytes() == ("".join(f"line {n} {'é' * 5}\n" for n in range(4))
                                 + "[log capped at 100 bytes]\n").encode()
    assert path.stat().st_size <= 100
    again = files.CappedLog.open(path, cap=100)  # a resumed match, a second --log session: nothing more
    assert again.capped
    again.write("more\n")
    again.close()
    assert path.read_bytes().count(b"[log capped at 100 bytes]\n") == 1 and path.stat().st_size == 98


def test_a_capped_log_counts_what_the_file_held_and_one_line_too_long_for_it(tmp_path: Path) -> None:
    path = tmp_path / "wire.log"
    path.write_text("x" * 50 + "\n")
    log = files.CappedLog.open(path, cap=100)
    log.write("short\n")
    log.write("y" * 500 + "\n")  # dropped whole, never cut: a log's lines stay whole
    log.write("after\n")
    log.close()
    assert path.read_text() == "x" * 50 + "\nshort\n[log capped at 100 bytes]\n"
    assert files.LOG_CAP_BYTES == 8 << 20  # the figure docs/referee.md and the --help texts give


def test_threads_sharing_a_capped_log_never_pass_its_cap(tmp_path: Path) -> None:
    """The two engines of a referee's worker write their stderr into one wire log at once."""
    import threading
    path = tmp_path / "wire.log"
    log = files.CappedLog.open(path, cap=10_000)

    def chatter(name: str) -> None:
        for number in range(2_000):
            log.write(f"{name} !! line {number}\n")
            log.flush()

    threads = [threading.Thread(target=chatter, args=(name,)) for name in "AB"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    log.close()
    data = path.read_bytes()
    assert len(data) <= 10_000 and data.endswith(b"\n[log capped at 10000 bytes]\n")
    assert data.count(b"[log capped") == 1 and all(line[:5] in (b"A !! ", b"B !! ") for line in data.splitlines()[:-1])


@pytest.mark.parametrize("reader", ["results_log", "journal", "watch", "run_file"])
def test_every_reader_leaves_out_a_torn_last_line_that_parses(tmp_path: Path, reader: str) -> None:
    """The rule is the same in every reader: a last line without its newline is no
    record, even when it happens to be whole JSON."""
    from margo_gtp.match.results_log import ResultsLog
    from margo_gtp.lab.selfplay import read_json_lines
    from margo_gtp.web import journal
    from margo_gtp.web.watch import read_jsonl

    first = {"type": "start", "game": 1, "rules": {}, "seats": {}, "seconds": 1}
    last = {"type": "move", "game": 2, "colour": "W", "move": "A1:1", "seconds": None}
    path = tmp_path / "f.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(last))
    if reader == "results_log":
        path = path.rename(tmp_path / "results.jsonl")
        assert ResultsLog(tmp_path).load(repair=False) == [first]
    elif reader == "journal":
        assert journal.read(path) == (first, [])
    elif reader == "watch":
        assert read_jsonl(path) == [first]
    else:
        assert read_json_lines(path) == [(f"{path}:1", first)]


def test_a_resumed_web_journal_cuts_its_torn_line_before_the_next_move(tmp_path: Path) -> None:
    from margo_gtp.engine import Colour, Move
    from margo_gtp.web import journal
    from margo_gtp.web.game import EngineRegistry
    from margo_gtp.web.store import GameStore

    store = GameStore(tmp_path)
    path = store.journal_path("g1-1-abc")
    path.parent.mkdir(parents=True)
    start = journal.start_line("g1-1-abc", {"size": 3}, {"W": "human", "B": "human"}, 1.0)
    path.write_bytes((files.json_line(start) + '{"type":"move","colour":"W","mo').encode())
    game = store.restore("g1-1-abc", EngineRegistry({}))
    assert game is not None and path.read_bytes() == files.json_line(start).encode()
    store.journal_move(game, Colour.WHITE, Move.from_gtp("A1:1", 3), None)
    assert journal.read(path) == (start, [journal.move_line("W", "A1:1", None)])


# -- the progress bar --------------------------------------------------------------------


def test_the_progress_bar_has_the_columns_asked_for() -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    def kinds(bar) -> list[type]:
        return [type(column) for column in bar.columns]

    console = Console(file=open(os.devnull, "w"), force_terminal=False)
    full = progress.progress_bar(console=console)
    assert kinds(full) == [TextColumn, BarColumn, MofNCompleteColumn, TimeElapsedColumn, TimeRemainingColumn]
    assert full.disable and full.live.transient  # not a terminal: drawn nowhere
    book = progress.progress_bar("checking", counts=False, remaining=False, console=console, enabled=True,
                                 transient=False)
    assert kinds(book) == [TextColumn, BarColumn, TimeElapsedColumn]
    assert not book.disable and not book.live.transient
    worded = progress.progress_bar(counts="{task.completed} chunks", elapsed=False, console=console)
    assert kinds(worded) == [TextColumn, BarColumn, TextColumn, TimeRemainingColumn]
    assert worded.columns[2].text_format == "{task.completed} chunks"


# -- the machine -------------------------------------------------------------------------


def test_available_cores_counts_the_cores_this_process_may_use(monkeypatch) -> None:
    if hasattr(os, "sched_getaffinity"):
        assert machine.available_cores() == len(os.sched_getaffinity(0))
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert machine.available_cores() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 12)
    assert machine.available_cores() == 12


@pytest.mark.parametrize("values, fraction, expected", [
    ([5.0], 0.95, 5.0),
    ([3.0, 1.0, 2.0], 0.5, 2.0),
    ([float(n) for n in range(1, 21)], 0.95, 19.0),   # rank ceil(19.0) = 19
    ([float(n) for n in range(1, 58)], 0.95, 55.0),   # rank ceil(54.15) = 55
    ([float(n) for n in range(1, 101)], 1.0, 100.0),
])
def test_percentile_is_the_nearest_rank(values: list[float], fraction: float, expected: float) -> None:
    assert machine.percentile(values, fraction) == expected


def test_percentile_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        machine.percentile([], 0.5)


def test_top_view_keeps_the_highest_ball_of_each_column() -> None:
    balls = {Point(0, 0, 0): "B", Point(1, 1, 0): "W", Point(0, 0, 2): "W", Point(1, 0, 0): "B"}
    assert vertex.top_view(balls) == {(0, 0): (Point(0, 0, 0), "B"), (2, 2): (Point(0, 0, 2), "W"),
                                      (2, 0): (Point(1, 0, 0), "B")}


# -- one home each -----------------------------------------------------------------------

ONE_HOME = {
    "def available_cores": "margo_gtp/machine.py",
    "def percentile": "margo_gtp/machine.py",
    "def top_view": "margo_gtp/vertex.py",
    "def write_atomically": "margo_gtp/files.py",
    "def cut_torn_line": "margo_gtp/files.py",
    "class CappedLog": "margo_gtp/files.py",
    "def progress_bar": "margo_gtp/progress.py",
}


def tree_sources() -> dict[str, str]:
    """Every Python file of the package and the scripts (which have no suffix)."""
    paths = [*(ROOT / "margo_gtp").rglob("*.py"),
             *(p for p in (ROOT / "scripts").iterdir() if p.is_file())]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="replace") for p in paths}


def test_each_ground_floor_idea_is_written_once() -> None:
    sources = tree_sources()
    found = {needle: sorted(name for name, text in sources.items()
                            if re.search(rf"^\s*{needle}\b", text, re.MULTILINE)) for needle in ONE_HOME}
    assert found == {needle: [home] for needle, home in ONE_HOME.items()}


def test_temp_and_rename_and_rich_bars_live_on_the_ground_floor_only() -> None:
    """No room renames a temporary file into place or builds a rich Progress itself."""
    offenders = {name: [pattern for pattern in (r"os\.replace\(", r"\.replace\(\w*(path|target)\w*\)",
                                                r"\bProgress\(", r"sched_getaffinity")
                        if re.search(pattern, text)]
                 for name, text in tree_sources().items()
                 if name not in ("margo_gtp/files.py", "margo_gtp/progress.py", "margo_gtp/machine.py")}
    assert {name: found for name, found in offenders.items() if found} == {}
