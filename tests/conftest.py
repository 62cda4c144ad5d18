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
