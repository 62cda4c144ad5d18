"""scripts/hostile-pass, the long hostile pass run by hand (docs/testing.md), kept working:
a few cheap cases of it, through its --only filter, with their exact table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "hostile-pass"

pytestmark = pytest.mark.process


def hostile_pass(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=300)


def test_a_few_cheap_cases_pass_and_are_counted_per_class() -> None:
    # loadsgf=unreadable and log=unwritable: as root they pass only with its file capabilities dropped
    cheap = (r"^(options/margo-gtp/size=abc|options/margo-analysis/threads=nan|paths/margo-gtp/log=folder"
             r"|paths/margo-gtp/loadsgf=unreadable|paths/margo-gtp/log=unwritable"
             r"|gtp/margo-gtp/00-komi_1e308|gtp/margo-gtp/4[68]-|json/margo-analysis/0[12]-)")
    done = hostile_pass("--only", cheap, "--jobs", "2")
    assert (done.stdout, done.returncode) == (
        "class      passed failed\n"
        "gtp             3      0\n"
        "json            2      0\n"
        "options         2      0\n"
        "paths           3      0\n"
        "all            10      0\n", 0), done.stderr
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


def root_cannot_drop_file_capabilities() -> bool:
    if os.geteuid() != 0:
        return False
    try:
        return subprocess.run(["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", "true"],
                              capture_output=True, timeout=30).returncode != 0
    except OSError:
        return True


@pytest.mark.skipif(root_cannot_drop_file_capabilities(),
                    reason="run as root where setpriv cannot drop capabilities: the pass leaves these cases out")
def test_the_unreadable_and_unwritable_cases_run_as_root_too() -> None:
    """CI runs as root, which reads every file: the pass runs these cases without root's
    file capabilities rather than leaving them out."""
    done = hostile_pass("--list", "--only", "=(unreadable|unwritable)$")
    assert (done.returncode, len(done.stdout.splitlines())) == (0, 15), done.stderr
