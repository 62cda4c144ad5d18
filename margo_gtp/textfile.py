"""Reading and writing files a user names: a configuration, an opening book, an SGF, a
run file, a log.

A name a user gives may be anything: ``/dev/zero`` (endless), a named pipe nobody writes
to (an ``open`` that never returns), a directory, a 9 GB file. Every such file is read
through :func:`read_text` (or :func:`read_bytes`), which

- opens without blocking (``O_NONBLOCK``: a FIFO opens at once instead of waiting for a
  writer) and then insists on a *regular file* (``fstat``), so pipes, devices, sockets
  and directories are refused by name before a byte is read;
- refuses a file larger than the caller's cap before reading it, and reads at most
  ``cap + 1`` bytes in case it grows meanwhile;
- raises :class:`TextFileError`, whose message is one line naming the path and the
  reason: the system's words for a failed ``open`` (``PATH: No such file or directory``,
  ``PATH: Is a directory``, ``PATH: Permission denied``), ``PATH: is a named pipe (FIFO),
  not a regular file`` (or a character device, ...), ``PATH: is larger than N bytes``,
  ``PATH: is not UTF-8 text``. Its ``errno`` is the system's error number when there is
  one (``ENOENT``, ``EISDIR``), so a caller may word those its own way.

Files a user names for *writing* a stream (a GTP log) go through
:func:`open_for_writing`: a FIFO with no reader would block ``open`` forever, so it is
opened with ``O_NONBLOCK`` (the system then answers "no such device or address" at
once), and a FIFO that has a reader, a terminal or ``/dev/null`` works as usual. A whole
document (``printsgf FILE``) goes to a regular file only (:func:`check_regular_target`),
written atomically by the caller. Every atomic replacement (:mod:`margo_gtp.files`) asks
:func:`regular_target` first: a rename over a pipe or a device (as root, ``/dev/zero``)
would replace it with a regular file. Its refusal, :class:`NotRegularTargetError`, is a
:class:`TextFileError` and an ``OSError`` both, so a writer that says a full disk in one
line says this one too.

Process substitution (``--openings <(...)``) is a pipe, so it is refused: the tools read a
book or a configuration more than once (or check it before playing), which a pipe cannot
give.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from typing import IO

#: Default cap on a text file a user names (a configuration, a run file of many games).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


class TextFileError(ValueError):
    """Raised when a named file cannot be read as asked; ``str()`` is ``PATH: reason``"""

    def __init__(self, path: str | os.PathLike[str], reason: str, number: int | None = None) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason
        self.errno = number


class NotRegularTargetError(TextFileError, OSError):
    """A path a writer may not replace with a file of its own: it is a directory, a pipe, a
    device, a socket, or a link to an open file. An ``OSError`` too (as ``io``'s
    ``UnsupportedOperation`` is both ``OSError`` and ``ValueError``), so the many writers
    that catch ``OSError`` and print ``strerror`` (a full disk) print this reason in the
    same line; ``str()`` stays ``PATH: reason``."""

    def __init__(self, path: str | os.PathLike[str], reason: str, number: int | None = None) -> None:
        TextFileError.__init__(self, path, reason, number)
        self.strerror = reason
        self.filename = self.path

    __str__ = BaseException.__str__  # OSError's would be "[Errno None] reason: 'PATH'"


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return os.strerror(errno.EISDIR)  # as a failed open would say it
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode):
        return "is a character device, not a regular file"
    if stat.S_ISBLK(mode):
        return "is a block device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    return "is not a regular file"


def _error(path: str | os.PathLike[str], error: OSError) -> TextFileError:
    return TextFileError(path, error.strerror or str(error), error.errno)


def read_bytes(path: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes``; TextFileError otherwise."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise _error(path, error) from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):  # checked before fdopen, which refuses a directory itself
            raise TextFileError(path, _kind(status.st_mode), errno.EISDIR if stat.S_ISDIR(status.st_mode) else None)
        if status.st_size > max_bytes:
            raise TextFileError(path, f"is larger than {max_bytes} bytes")
        with os.fdopen(os.dup(descriptor), "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise _error(path, error) from None
    finally:
        os.close(descriptor)
    if len(data) > max_bytes:  # it grew while being read
        raise TextFileError(path, f"is larger than {max_bytes} bytes")
    return data


def read_text(path: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The UTF-8 text of the regular file at ``path`` (see :func:`read_bytes`)."""
    data = read_bytes(path, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise TextFileError(path, "is not UTF-8 text") from None


def open_for_writing(path: str | os.PathLike[str], append: bool = False) -> IO[str]:
    """``open(path, "a" or "w")`` that cannot hang on a FIFO without a reader (OSError
    ``ENXIO`` at once instead) and refuses a directory; OSError as ``open`` raises it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_APPEND if append else os.O_TRUNC
    try:
        descriptor = os.open(path, flags, 0o666)
    except OSError as error:
        if error.errno == errno.ENXIO:  # O_NONBLOCK on a FIFO that no process has open for reading
            raise OSError(errno.ENXIO, "a named pipe (FIFO) that no process reads", os.fspath(path)) from None
        raise
    try:
        if _is_standard_output(os.fstat(descriptor)):  # a GTP engine's stdout is its answer stream
            raise OSError(errno.EINVAL, "is this process's standard output", os.fspath(path))
        # Blocking again: a reader that is slow must not turn writes into EAGAIN errors.
        fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(descriptor, "a" if append else "w", encoding="utf-8")
    except BaseException:
        os.close(descriptor)
        raise


def _is_standard_output(status: os.stat_result) -> bool:
    try:
        own = os.fstat(1)
    except OSError:
        return False
    return (own.st_dev, own.st_ino) == (status.st_dev, status.st_ino)


def check_regular_target(path: str | os.PathLike[str]) -> str:
    """The file ``path`` names, for a writer that replaces a whole document a user names
    (``printsgf FILE``, ``--proof FILE``), checked before the document is made:
    :func:`regular_target`, and also refused when it is this process's own standard input,
    output or error (``/dev/stdout`` redirected to a file is a regular file, and a record
    written there would land between two GTP answers). TextFileError (a
    :class:`NotRegularTargetError` for the kinds of file) otherwise."""
    try:
        target = regular_target(path)
        status = os.stat(target)
    except FileNotFoundError:
        return os.path.realpath(path)
    except TextFileError:
        raise
    except OSError as error:
        raise _error(path, error) from None
    for number, name in ((0, "input"), (1, "output"), (2, "error output")):
        try:
            own = os.fstat(number)
        except OSError:
            continue
        if (own.st_dev, own.st_ino) == (status.st_dev, status.st_ino):
            raise TextFileError(path, f"is this process's standard {name}, not a file of its own")
    return target


def regular_target(path: str | os.PathLike[str]) -> str:
    """The path a writer that replaces ``path`` whole (a new file renamed over it) must
    rename onto: ``path`` with symbolic links followed, whether its file exists yet or not.
    A link is written *through*, as a shell's ``>`` writes: the link stays and the file it
    names is replaced (renaming onto the link itself would turn a link someone made on
    purpose into a copy). :class:`NotRegularTargetError` when the file exists and is not
    a regular file (a directory, a pipe, a device, a socket: a rename would put a regular
    file in its place; as root, in place of ``/dev/zero``), or is a link of ``/proc`` or
    ``/dev/fd`` to an open file, which has no path of its own to replace. OSError as
    ``stat`` raises it (a link that loops, a parent that is a file)."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return os.path.realpath(path)
    if not stat.S_ISREG(status.st_mode):
        raise not_regular(path, status.st_mode)
    target = os.path.realpath(path)
    try:
        same = os.path.samefile(target, path)
    except OSError:
        same = False
    if not same:  # /proc/self/fd/N of a deleted file: realpath names "PATH (deleted)"
        raise NotRegularTargetError(path, "is a link to an open file, not a regular file")
    return target


def not_regular(path: str | os.PathLike[str], mode: int) -> NotRegularTargetError:
    """The refusal of a writer's target whose ``stat`` mode is not a regular file's, in the
    words the readers use (a directory is ``EISDIR``, as a failed ``open`` says it)."""
    return NotRegularTargetError(path, _kind(mode), errno.EISDIR if stat.S_ISDIR(mode) else None)


def append_line(handle: IO[str], line: str) -> None:
    """Append ``line`` (one whole line) to a file from :func:`open_for_writing`, unbuffered.
    If the write fails part way (a full disk), the part written is cut off again, so a
    regular file still ends with a complete line for whoever reads or resumes it; the
    OSError is raised."""
    handle.flush()
    descriptor = handle.fileno()
    status = os.fstat(descriptor)
    start = status.st_size if stat.S_ISREG(status.st_mode) else None
    rest = memoryview(line.encode("utf-8"))
    try:
        while rest:
            rest = rest[os.write(descriptor, rest):]
    except OSError:
        if start is not None:
            os.ftruncate(descriptor, start)
        raise
