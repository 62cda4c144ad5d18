"""Every console script of pyproject.toml answers ``--version`` with ``<prog> <version>``
(margo-gtp adds the rules core in use), exit code 0 and nothing on stderr. New scripts are
covered as soon as they are declared."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import margo_gtp
import margo_gtp.engine

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"])


def expected_core() -> str:
    core_name = getattr(margo_gtp.engine, "core_name", None)
    return core_name() if callable(core_name) else "python"


def test_the_known_scripts_are_declared():
    assert {"margo-gtp", "margo-match", "margo-tournament", "margo-gtp-2d"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_console_script_answers_version(script):
    done = subprocess.run([str(Path(sys.executable).parent / script), "--version"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    expected = f"{script} {margo_gtp.__version__}"
    if script == "margo-gtp":
        expected += f" (rules core: {expected_core()})"
    assert (done.returncode, done.stdout, done.stderr) == (0, expected + "\n", "")
