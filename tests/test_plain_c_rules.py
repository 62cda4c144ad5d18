"""The rules core is plain C (issue #33, item 4): ``rules_core.h`` and ``rules_*.c`` include
no Python.h and use no Python API, and they build and play with the system C compiler
alone, answering the status codes of ``rules_core.h``; only the glue (``native_glue.h``,
``_native.c``, ``players/_search.c``) turns those codes into Python exceptions."""

from __future__ import annotations

import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from margo_gtp.engine import core

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "margo_gtp" / "engine"
RULES_SOURCES = sorted(ENGINE.glob("rules_*.c"))

# rules_core.h's RulesStatus, as the C program prints them
STATUS = {
    "RULES_OK": 0, "RULES_ILLEGAL_GAME_OVER": 1, "RULES_ILLEGAL_PASS": 2, "RULES_ILLEGAL_SWAP": 3,
    "RULES_ILLEGAL_OFF_BOARD": 4, "RULES_ILLEGAL_OCCUPIED": 5, "RULES_ILLEGAL_UNSUPPORTED": 6,
    "RULES_ILLEGAL_ABOVE_TOP": 7, "RULES_ILLEGAL_SUICIDE": 8, "RULES_NO_MEMORY": -1, "RULES_DRAW_FAILED": -2,
    "RULES_BOARD_CHANGED": -3, "RULES_LOAD_BOTH_COLOURS": -4, "RULES_LOAD_UNSUPPORTED": -5,
}


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def test_the_rules_core_includes_no_python():
    files = [ENGINE / "rules_core.h", *RULES_SOURCES]
    assert {path.name for path in files} >= {"rules_core.h", "rules_geometry.c", "rules_position.c", "rules_state.c",
                                             "rules_scoring.c", "rules_playout.c"}
    include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
    python_api = re.compile(r"\b(Py[A-Z_]\w*|_Py\w+|PY_\w+)\b")
    for path in files:
        code = _strip_comments(path.read_text(encoding="utf-8"))
        included = include.findall(code)
        assert "Python.h" not in included, f"{path.name} includes Python.h"
        assert set(included) <= {"rules_core.h", "stddef.h", "stdlib.h", "stdint.h", "string.h", "math.h"}, path.name
        assert python_api.findall(code) == [], f"{path.name} uses the Python C API"


def test_the_status_codes_reach_python_by_their_c_names():
    if not core.native_available():
        pytest.skip("native core not built")
    from margo_gtp.engine import _native

    header = (ENGINE / "rules_core.h").read_text(encoding="utf-8")
    declared = dict(re.findall(r"^\s*(RULES_\w+) = (-?\d+),", header, re.M))
    assert {name: int(value) for name, value in declared.items()} == STATUS
    for name, value in STATUS.items():
        if value >= 0:  # the answers of State.play / State.check; failures are exceptions
            assert getattr(_native, name) == value, name


def _compiler() -> str | None:
    for name in ((sysconfig.get_config_var("CC") or "").split()[:1] + ["cc", "gcc", "clang"]):
        if name and shutil.which(name):
            return name
    return None


def test_the_rules_core_plays_from_plain_c(tmp_path):
    """A C program with no Python include path plays moves, copies, loads and runs playouts."""
    compiler = _compiler()
    if compiler is None:
        pytest.skip("no C compiler")
    program = tmp_path / "play"
    subprocess.run([compiler, "-std=gnu99", "-O1", "-ffp-contract=off", "-w", f"-I{ENGINE}",
                    str(ROOT / "tests" / "data" / "rules_core_play.c"), *map(str, RULES_SOURCES), "-lm",
                    "-o", str(program)], check=True, capture_output=True, timeout=120)
    out = subprocess.run([str(program)], check=True, capture_output=True, text=True, timeout=60).stdout
    steps = dict(line.split(" ", 1) for line in out.splitlines())
    s = STATUS
    assert steps == {
        "geometry": "0", "points": "14", "start": "0",
        "black_b1": "0", "white_on_b1": str(s["RULES_ILLEGAL_OCCUPIED"]),
        "white_unsupported": str(s["RULES_ILLEGAL_UNSUPPORTED"]), "white_off_board": str(s["RULES_ILLEGAL_OFF_BOARD"]),
        "white_swap": str(s["RULES_ILLEGAL_SWAP"]), "white_c3": "0", "black_a2": "0",
        "white_suicide": str(s["RULES_ILLEGAL_SUICIDE"]), "white_pass": "0", "black_pass": "0",
        "white_after_end": str(s["RULES_ILLEGAL_GAME_OVER"]), "black_passes_again": "0",
        "copy": "0", "copy_plays": "0", "plies": "4 5", "playout": "1",
        "failing_draw": str(s["RULES_DRAW_FAILED"]), "undoing_draw": str(s["RULES_BOARD_CHANGED"]),
        "start_low": "0", "load_both": str(s["RULES_LOAD_BOTH_COLOURS"]),
        "load_unsupported": str(s["RULES_LOAD_UNSUPPORTED"]), "load": "0", "root": "0",
        "white_pass_off": str(s["RULES_ILLEGAL_PASS"]), "white_above_top": str(s["RULES_ILLEGAL_ABOVE_TOP"]),
    }
