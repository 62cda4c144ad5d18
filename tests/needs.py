"""What a test needs beyond the base install (the browser, Starlette, Ray), checked in one place.

Where a part is missing, :func:`missing` decides what happens to the test (or the whole
module, when called at module level):

* locally it is skipped, and the reason says what is missing and how to get it;
* under CI (the environment variable ``CI`` is ``true`` or ``1``, as GitHub Actions and
  most CI services set it) it fails with that same line, so a CI run cannot pass on tests
  that never ran. At module level the failure is a collection error, which stops the run.

    ray = need_module("ray", "the cluster extra; scripts/setup installs it")
    need_file(CHROMIUM, "Debian's chromium; scripts/setup installs it with apt-get")
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest


def under_ci() -> bool:
    """True when ``CI`` is ``true`` or ``1`` (any case, spaces ignored)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def missing(what: str, remedy: str, detail: str = "") -> NoReturn:
    """Skip the calling test or module because ``what`` is missing; under CI, fail instead.

    The one line is ``"<what> is missing[: <detail>] (<remedy>)"``, prefixed ``"CI=true: "``
    when it fails.
    """
    __tracebackhide__ = True  # the skip or failure is reported at the caller's line
    line = f"{what} is missing{': ' + detail if detail else ''} ({remedy})"
    if under_ci():
        pytest.fail(f"CI=true: {line}", pytrace=False)
    pytest.skip(line, allow_module_level=True)


def need_module(name: str, remedy: str) -> ModuleType:
    """Import ``name`` and return it, as :func:`pytest.importorskip` does, or :func:`missing`
    when it does not import (the ImportError's text goes into the line)."""
    __tracebackhide__ = True  # the skip or failure is reported at the caller's line
    try:
        return importlib.import_module(name)
    except ImportError as error:
        detail = " ".join(str(error).split())
    missing(name, remedy, detail)  # outside the except: the line alone, no chained traceback


def need_file(path: Path, remedy: str) -> None:
    """:func:`missing` unless ``path`` exists (an executable such as ``/usr/bin/chromium``)."""
    __tracebackhide__ = True  # the skip or failure is reported at the caller's line
    if not path.exists():
        missing(str(path), remedy)
