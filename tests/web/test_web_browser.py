"""End-to-end tests of margo-web in Debian's Chromium (Playwright). Few and fast."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest_web import screenshot  # noqa: F401
