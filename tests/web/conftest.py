"""Fixtures for the margo-web tests: an app, a live server in a thread, and Debian's Chromium.

Playwright cannot download its own browser here, so the browser tests launch
``/usr/bin/chromium`` (``scripts/setup`` installs it with apt-get) with ``--no-sandbox``
(we run as root) and ``--disable-background-networking``. Without it they are skipped with
that reason. Screenshots go to ``runs/web/`` (git-ignored) for a human to look at.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from margo_gtp.web.app import create_app  # noqa: E402
from margo_gtp.web.game import EngineRegistry, GameStore  # noqa: E402
from margo_gtp.web.watch import WatchFolder  # noqa: E402
from web_helpers import CHROMIUM, LiveServer, engine_commands  # noqa: E402



@pytest.fixture
def registry() -> EngineRegistry:
    return EngineRegistry(engine_commands())


@pytest.fixture
def games_dir(tmp_path: Path) -> Path:
    return tmp_path / "games"


@pytest.fixture
def watch_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "match"
    folder.mkdir()
    return folder


@pytest.fixture
def live_server(registry: EngineRegistry, games_dir: Path, watch_dir: Path):
    with LiveServer(create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))) as server:
        yield server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):  # noqa: ANN001, ANN201 - pytest-playwright's hook
    """pytest-playwright launches Debian's Chromium instead of a browser of its own."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing (scripts/setup installs it with apt-get)")
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM),
            "args": ["--no-sandbox", "--disable-background-networking"]}


@pytest.fixture
def browser_context_args(browser_context_args):  # noqa: ANN001, ANN201
    return {**browser_context_args, "viewport": {"width": 1200, "height": 900}}


@pytest.fixture
def web_page(page):  # noqa: ANN001, ANN201
    """pytest-playwright's page, failing the test on any JavaScript error."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(15_000)
    yield page
    assert not errors, f"JavaScript errors on the page: {errors}"
