"""scripts/hostile-pass, the long hostile pass run by hand (docs/testing.md), kept working:
a few cheap cases of it, through its --only filter, with their exact table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "hostile-pass"

pytestmark = pytest.mark.process


def hostile_pass(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=300)


def test_a_few_cheap_cases_pass_and_are_counted_per_class() -> None:
    cheap = (r"^(options/margo-gtp/size=abc|options/margo-analysis/threads=nan|paths/margo-gtp/log=folder"
             r"|gtp/margo-gtp/00-komi_1e308|gtp/margo-gtp/4[68]-|json/margo-analysis/0[12]-)")
    done = hostile_pass("--only", cheap, "--jobs", "2")
    assert (done.stdout, done.returncode) == (
        "class      passed failed\n"
        "gtp             3      0\n"
        "json            2      0\n"
        "options         2      0\n"
        "paths           1      0\n"
        "all             8      0\n", 0), done.stderr
    assert "Traceback" not in done.stderr


def test_the_list_names_every_class_and_counts_at_least_two_hundred_cases() -> None:
    done = hostile_pass("--list")
    names = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert {name.split("/")[0] for name in names} == {"controls", "gtp", "json", "options", "paths", "web", "weights",
                                                      "wsjson"}
    assert len(names) >= 200 and len(names) == len(set(names))
    assert "web/localhost/ws/host-and-origin-evil" in names  # issue 36 #2: the rebinding hole, under --host localhost
    assert "json/margo-analysis/threads-2-reader-gone" in names  # issue 36 #9


def test_a_bad_jobs_count_is_refused_in_one_line() -> None:
    done = hostile_pass("--jobs", "0")
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, "scripts/hostile-pass: error: --jobs must be at least 1")
