"""Fixtures for the margo-web tests: an app, a live server in a thread, and Debian's Chromium.

Playwright cannot download its own browser here, so the browser tests launch
``/usr/bin/chromium`` (``scripts/setup`` installs it with apt-get) with ``--no-sandbox``
(we run as root) and ``--disable-background-networking``. Without it the browser tests are
skipped saying so, and fail under ``CI=true`` (``tests/needs.py``); each test module checks
the web extra itself (``web_helpers.need_the_web_extra``), so this file imports nothing of
it at the top and loads without it. Screenshots go to ``runs/web/`` (git-ignored) for a human to look at.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from margo_gtp.web.game import EngineRegistry
from margo_gtp.web.store import GameStore
from margo_gtp.web.watch import WatchFolder
from needs import need_file
from web_helpers import CHROMIUM, LiveServer, engine_commands



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
    from margo_gtp.web.app import create_app  # Starlette: the modules using this checked it is there
    with LiveServer(create_app(registry, GameStore(games_dir), WatchFolder(watch_dir))) as server:
        yield server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):  # noqa: ANN001, ANN201 - pytest-playwright's hook
    """pytest-playwright launches Debian's Chromium instead of a browser of its own."""
    need_file(CHROMIUM, "Debian's chromium package; scripts/setup installs it with apt-get")
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


@pytest.fixture
def client(registry, games_dir: Path):  # noqa: ANN001, ANN201
    """A Starlette TestClient of margo-web over the test engines and a fresh games folder."""
    from starlette.testclient import TestClient

    from margo_gtp.web.app import create_app

    with TestClient(create_app(registry, GameStore(games_dir))) as test_client:
        yield test_client


@pytest.fixture
def open_page(browser):  # noqa: ANN001, ANN201
    """``open_page(width, height, touch=True, dark=False)``: a page of a fresh context of that
    size (touch: a phone's touch and mobile emulation; dark: ``prefers-color-scheme: dark``),
    failing the test on any JavaScript error."""
    contexts, errors = [], []

    def opener(width: int, height: int, touch: bool = True, dark: bool = False):  # noqa: ANN202
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch,
                                      color_scheme="dark" if dark else "light")
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(20_000)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
