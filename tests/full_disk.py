"""A small file system that the test fills, to see what a full disk does to our writers.

:func:`small_disk` mounts a tmpfs of a few hundred KB in a temporary folder (only root can,
so elsewhere the test is skipped with that reason: no ordinary user can make a disk full
without filling the real one), and :func:`fill` takes its last free byte. A tmpfs hands out
space a page (4 KB) at a time, so a write that crosses into a new page on a full tmpfs is
cut short there: ``os.write`` returns fewer bytes than asked, the next one fails with
``ENOSPC`` — the torn write of a real full disk.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_disk(folder: Path, kilobytes: int = 256) -> Iterator[Path]:
    """A tmpfs of ``kilobytes`` mounted on ``folder/disk`` for the ``with`` block."""
    mount_point = folder / "disk"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("a full-disk test mounts a small tmpfs, which needs root (run the tests as root to run it)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kilobytes}k", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` with one file (returned: removing it frees them)."""
    filler = disk / "filler"
    block = b"\0" * 4096
    with open(filler, "wb", buffering=0) as handle:
        while True:
            try:
                if handle.write(block) < len(block):
                    continue
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                break
    return filler
