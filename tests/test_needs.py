"""tests/needs.py: a missing browser, Starlette or Ray skips locally, saying what is missing,
and fails with that one line under ``CI=true``. Each case runs a tiny test file in its own
pytest process, as a CI run would meet it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from needs import under_ci

TESTS = Path(__file__).resolve().parent

MODULE_LEVEL = """
from needs import need_module

need_module("margo_no_such_module", "an example remedy")


def test_never_runs():
    pass
"""

TEST_LEVEL = """
from pathlib import Path

from needs import need_file


def test_needs_a_browser():
    need_file(Path("/nonexistent/chromium"), "an example remedy")


def test_needs_nothing():
    pass
"""

MODULE_LINE = "margo_no_such_module is missing: No module named 'margo_no_such_module' (an example remedy)"
FILE_LINE = "/nonexistent/chromium is missing (an example remedy)"


def run_pytest(folder: Path, ci: str | None, *files: str) -> tuple[int, list[str]]:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "300"  # the short summary's lines whole
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsfE", "-p", "no:cacheprovider", *files],
                            cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout.splitlines()


@pytest.fixture
def probes(tmp_path: Path) -> Path:
    (tmp_path / "test_module_level.py").write_text(MODULE_LEVEL)
    (tmp_path / "test_test_level.py").write_text(TEST_LEVEL)
    return tmp_path


@pytest.mark.parametrize("value, expected", [("true", True), ("TRUE", True), (" true\n", True), ("1", True),
                                             ("", False), ("false", False), ("0", False), ("yes please", False)])
def test_under_ci_reads_the_ci_variable(monkeypatch, value, expected):
    monkeypatch.setenv("CI", value)
    assert under_ci() is expected


def test_under_ci_is_false_without_the_variable(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert under_ci() is False


def test_locally_a_missing_part_skips_with_its_line(probes):
    code, lines = run_pytest(probes, None, "test_module_level.py", "test_test_level.py")
    assert code == 0, lines
    skipped = sorted(line for line in lines if line.startswith("SKIPPED"))  # at the line that needs the part
    assert skipped == [f"SKIPPED [1] test_module_level.py:4: {MODULE_LINE}",
                       f"SKIPPED [1] test_test_level.py:8: {FILE_LINE}"]
    assert lines[-1].startswith("1 passed, 2 skipped")


def test_under_ci_a_module_missing_a_module_fails_collection_with_its_line(probes):
    code, lines = run_pytest(probes, "true", "test_module_level.py")
    assert code == 2, lines  # a collection error: the run stops
    header = next(i for i, line in enumerate(lines) if "ERROR collecting test_module_level.py" in line)
    assert lines[header + 1] == f"CI=true: {MODULE_LINE}"  # the error is that one line, no traceback
    assert "short test summary info" in lines[header + 2]
    assert f"ERROR test_module_level.py - Failed: CI=true: {MODULE_LINE}" in lines
    assert not any(line.startswith("SKIPPED") for line in lines)


def test_under_ci_a_test_missing_a_file_fails_with_its_line(probes):
    code, lines = run_pytest(probes, "true", "test_test_level.py")
    assert code == 1, lines
    header = next(i for i, line in enumerate(lines) if " test_needs_a_browser " in line)
    assert lines[header + 1] == f"CI=true: {FILE_LINE}"  # the failure is that one line, no traceback
    assert "short test summary info" in lines[header + 2]
    assert f"FAILED test_test_level.py::test_needs_a_browser - Failed: CI=true: {FILE_LINE}" in lines
    assert lines[-1].startswith("1 failed, 1 passed")
