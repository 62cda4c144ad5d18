"""Shared fixtures for the test-suite (keep small).

The rules tests import their helpers (``reference_rules``, ``rules_cases``) as top-level
modules from this directory; make that work whatever pytest's import mode or rootdir.
"""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)


import pytest  # noqa: E402

from margo_gtp.engine import core as _core  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "reference_only: the test exercises only tests/reference_rules.py (the oracle), so it runs "
                   "once, not once per rules core, in a module that uses rules_core")


def pytest_generate_tests(metafunc):
    """Run each test of a module that uses ``rules_core`` on both cores, except the tests
    marked ``reference_only``: they never touch the engine, so a second run would test
    nothing new (they get ``rules_core`` = None and the selected core is left alone)."""
    if "rules_core" in metafunc.fixturenames and not metafunc.definition.get_closest_marker("reference_only"):
        metafunc.parametrize("rules_core", _core.CORES, indirect=True, scope="module")


@pytest.fixture(scope="module")
def rules_core(request):
    """Run a rules test module on both cores (PEP 399): ``pytestmark =
    pytest.mark.usefixtures("rules_core")``. The native run is skipped only when the
    extension is not built; tests/test_native_core.py fails CI if that happens on a
    machine with a C compiler."""
    name = getattr(request, "param", None)  # None: a reference_only test (see above)
    if name is None:
        yield None
        return
    if name == "native" and not _core.native_available():
        pytest.skip(f"native core not built: {_core.native_unavailable_reason()}")
    previous = _core.core_name()
    _core.set_core(name)
    yield name
    _core.set_core(previous)
