"""Files the project writes: atomic replacement, and JSON lines with one rule for a torn line.

Reading a file a *user* names is :mod:`margo_gtp.textfile`'s job; this module is for the
files the tools own (``results.jsonl``, ``match.json``, SGFs, web journals, training
chunks, a folder's lock note).

**Atomic writes.** :func:`write_atomically` writes a temporary file beside the target
(``.NAME.PID.N.tmp``: hidden, so no listing of ``*.sgf`` or ``*.jsonl`` sees it, and
unique, so two writers never share one), flushes it to disk (``fsync``), renames it over
the target (``os.replace``) and then syncs the folder, so the rename itself survives a
power cut. A reader, or the next run after a crash at any point, sees the old file whole
or the new one whole, never a part. :func:`replace_atomically` is the same for a writer
that needs the temporary *path* (``torch.save``); the caller writes it, this syncs and
renames.

A rename replaces whatever the target path holds, so both replace only a *regular file*
(or nothing): a directory, a pipe, a device or a socket there is refused before anything
is written (:func:`margo_gtp.textfile.regular_target`; as root, a rename over
``/dev/zero`` had put a regular file in its place), with
:class:`~margo_gtp.textfile.NotRegularTargetError`, an ``OSError`` whose ``strerror`` is
the reason (``is a named pipe (FIFO), not a regular file``). A symbolic link is written
through, as a shell's ``>`` does: the link stays, and the file it names is replaced.

**JSON lines.** A JSON-lines file is a sequence of lines, each ended by ``"\\n"``. Writers
append one whole line per ``write`` (:func:`append_durably` also ``fsync`` s it). The one
rule for a torn line: *the bytes after the last newline are a line whose writer died in
the middle of it; it is never a record.* Every reader leaves it out
(:func:`complete_lines`); a writer that goes on appending to such a file first cuts it
off (:func:`cut_torn_line`), so its first line starts on a line of its own. What a reader
does with a *whole* line that does not parse (skip it, or refuse the file) is its own
choice, and its docstring says which.

**Logs.** A log's length is decided by whoever talks: an engine that writes endless stderr,
a controller that sends endless lines. So every log file the tools write (the wire logs of
``margo-gtp --log``, ``margo-match --wire-log`` and ``SimpleEngine(wire_log=PATH)``) is a
:class:`CappedLog`: at most :data:`LOG_CAP_BYTES` bytes, the last line
``[log capped at N bytes]``, and everything after it dropped (not rotated: the start of a
session, where a fault usually shows first, is kept).

Imports only :mod:`margo_gtp.textfile` from the package: it sits on the ground floor above it.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from margo_gtp import textfile

_TEMPORARY_NUMBERS = itertools.count()


def temporary_path(path: Path) -> Path:
    """A fresh hidden name beside ``path`` for its next version (``.NAME.PID.N.tmp``)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{next(_TEMPORARY_NUMBERS)}.tmp")


def leftover_temporaries(folder: Path, pattern: str) -> list[Path]:
    """The temporary files that writers killed before their rename left in ``folder`` for
    targets whose names match ``pattern`` (a glob: ``"chunk-*.npz"``)."""
    return sorted(Path(folder).glob(f".{pattern}.*.tmp"))


def sync_folder(folder: Path) -> None:
    """``fsync`` a folder, so a rename or a new file in it is on disk (where the system
    lets a folder be opened: not on Windows, nor on some network file systems)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # a file system that cannot sync a folder: the file itself is synced
    finally:
        os.close(descriptor)


def sync_file(path: Path) -> None:
    """``fsync`` the file at ``path`` (one written by a library that does not sync)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_atomically(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is UTF-8) so that a reader, or a run after a
    crash, sees the old file or the whole new one; OSError as ``open`` raises it (the
    temporary file is removed), and a target that is not a regular file is refused (see
    :func:`replace_atomically`)."""
    replace_atomically(path, lambda temporary: _write_synced(temporary, data))


def replace_atomically(path: Path, write: Callable[[Path], Any]) -> None:
    """``write(temporary)`` (a path beside ``path``), then ``fsync`` it and rename it over
    ``path`` (see :func:`write_atomically`). For writers that want a path, not bytes.

    :class:`~margo_gtp.textfile.NotRegularTargetError` (an ``OSError``), before
    ``write`` is called, when ``path`` is a directory, a pipe, a device or a socket; a
    symbolic link is followed and the file it names replaced (the module's doc)."""
    path = Path(textfile.regular_target(path))
    temporary = temporary_path(path)
    try:
        write(temporary)
        sync_file(temporary)
        # Checked again just before the rename: the target may have become a pipe while
        # ``write`` ran (a checkpoint takes seconds). A swap between this check and the
        # rename is still possible (no system call renames only over a regular file:
        # renameat2's flags are NOREPLACE, EXCHANGE and WHITEOUT), so this guards against
        # a mistaken path, not against someone who can write in the target's folder.
        _refuse_unless_regular(path)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def _refuse_unless_regular(path: Path) -> None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise textfile.not_regular(path, mode)


def _write_synced(path: Path, data: str | bytes) -> None:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(raw)
        while view:
            view = view[os.write(descriptor, view):]
    finally:
        os.close(descriptor)


# ---------------------------------------------------------------------------------------
# JSON lines


def json_line(value: Any) -> str:
    """``value`` as one compact JSON line, newline included (the project's JSON-lines files:
    ``results.jsonl``, live feeds, web journals)."""
    return json.dumps(value, separators=(",", ":")) + "\n"


def whole_length(data: bytes) -> int:
    """How many bytes of ``data`` are whole lines: up to and including the last newline."""
    return data.rfind(b"\n") + 1


def complete_lines(data: bytes | str) -> Iterator[tuple[int, bytes | str]]:
    """``(number, line)`` for each whole line of a JSON-lines file's contents (numbered
    from 1, newline removed), leaving out a torn last line (the module's rule)."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    end = data.rfind(newline) + 1  # type: ignore[arg-type]
    if not end:
        return
    yield from enumerate(data[: end - 1].split(newline), 1)  # type: ignore[arg-type]


def cut_torn_line(path: Path) -> bool:
    """Cut a torn last line off the file at ``path`` (and ``fsync`` it), so the next line
    appended starts on a line of its own; True when there was one to cut. A missing file
    has none; OSError otherwise as ``open`` raises it."""
    try:
        handle = open(path, "r+b")
    except FileNotFoundError:
        return False
    with handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return False
        # Only the tail is read: a torn line is short, and the file may be large.
        position, tail = size, b""
        while position > 0 and b"\n" not in tail:
            step = min(position, 64 * 1024)
            position -= step
            handle.seek(position)
            tail = handle.read(step) + tail
        end = position + whole_length(tail)
        if end == size:
            return False
        handle.truncate(end)
        handle.flush()
        os.fsync(handle.fileno())
        return True


def append_durably(path: Path, line: str) -> None:
    """Append ``line`` (one whole line, newline included) to ``path`` and ``fsync`` it
    before returning; OSError if it cannot be made durable.

    All or nothing: on a full disk ``os.write`` writes part of the line and then fails, and
    a part left there would glue the next line to it (the file could no longer be read
    back). So any failure cuts the file back to its length before the append, then raises:
    the caller refuses what the line was for, and the file ends on a whole line."""
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        good_length = os.fstat(descriptor).st_size
        whole = False
        try:
            view = memoryview(line.encode("utf-8"))
            while view:
                view = view[os.write(descriptor, view):]
            whole = True
            os.fsync(descriptor)
        except OSError:
            _cut_back(descriptor, good_length)
            raise
        except BaseException:
            # Ctrl-C between the write and the fsync: the whole line stays (the referee's
            # game it records is finished and must not be lost); only a part of one goes
            if not whole:
                _cut_back(descriptor, good_length)
            raise
    finally:
        os.close(descriptor)


def _cut_back(descriptor: int, length: int) -> None:
    """Truncate a file to ``length`` after a failed append (cutting frees space, so it works
    on a full disk). Should even that fail, the torn tail is the module's torn line: every
    reader leaves it out and the next writer cuts it first (:func:`cut_torn_line`)."""
    try:
        os.ftruncate(descriptor, length)
        os.fsync(descriptor)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------
# Logs

#: The most bytes one log file holds, its cap line included (see the module docstring).
LOG_CAP_BYTES = 8 << 20


def log_cap_line(cap: int) -> str:
    """The line that ends a capped log (newline included)."""
    return f"[log capped at {cap} bytes]\n"


class CappedLog:
    """A text log over ``stream`` that never holds more than ``cap`` bytes (default
    :data:`LOG_CAP_BYTES`, read when the log is made), counting what the file already held.

    Writers give whole lines, one or more per ``write``. A write that would leave no room for
    the cap line is dropped whole, and the cap line is written in its place, once; every
    later write is dropped. A dropped write costs only a lock and a test, so a thread that
    drains an engine's stderr into the log keeps draining at full speed and the engine
    never blocks on a full pipe. A file already at the cap (a resumed match, a second
    session on the same ``--log``) takes nothing more. Thread-safe: the two engines of a
    referee's worker share one wire log. OSError as the stream raises it.
    """

    def __init__(self, stream: IO[str], cap: int | None = None) -> None:
        self.stream = stream
        self.cap = LOG_CAP_BYTES if cap is None else cap
        self._cap_line = log_cap_line(self.cap)
        self._lock = threading.Lock()
        self.written = _size_of(stream)
        self.capped = self.written + len(self._cap_line) > self.cap

    @classmethod
    def open(cls, path: str | os.PathLike[str], cap: int | None = None) -> "CappedLog":
        """The capped log appending to the file at ``path``; OSError as ``open`` raises it."""
        return cls(open(path, "a", encoding="utf-8"), cap)

    def write(self, text: str) -> int:
        with self._lock:
            if self.capped:
                return len(text)
            size = len(text.encode("utf-8", errors="surrogateescape"))
            if self.written + size + len(self._cap_line) > self.cap:
                self.capped = True
                self.stream.write(self._cap_line)
                self.written += len(self._cap_line)
            else:
                self.stream.write(text)
                self.written += size
        return len(text)

    def flush(self) -> None:
        # Under the lock too: a text stream is not thread-safe, and a flush racing another
        # thread's write could put that write's bytes after the cap line.
        with self._lock:
            self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self.stream.close()

    @property
    def closed(self) -> bool:
        return self.stream.closed


def _size_of(stream: IO[str]) -> int:
    """How many bytes the file under ``stream`` holds (0 for a pipe, a device, or a stream
    with no file)."""
    try:
        return os.fstat(stream.fileno()).st_size
    except (OSError, ValueError, AttributeError):
        return 0
