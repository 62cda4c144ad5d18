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


@pytest.fixture(scope="module", params=_core.CORES)
def rules_core(request):
    """Run a rules test module on both cores (PEP 399): ``pytestmark =
    pytest.mark.usefixtures("rules_core")``. The native run is skipped only when the
    extension is not built; tests/test_native_core.py fails CI if that happens on a
    machine with a C compiler."""
    if request.param == "native" and not _core.native_available():
        pytest.skip(f"native core not built: {_core.native_unavailable_reason()}")
    previous = _core.core_name()
    _core.set_core(request.param)
    yield request.param
    _core.set_core(previous)
