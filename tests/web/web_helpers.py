"""Helpers of the margo-web tests (a live server in a thread, engine commands, screenshots)."""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path

import pytest

from needs import need_module

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "runs" / "web"
ENGINE = [sys.executable, "-c", "from margo_gtp.commands.gtp import main; main()"]
#: The four window sizes of issue #37's target, as (width, height, touch): two phones with a
#: touch screen and two desktops. Browser tests parametrised by it run at all four.
FOUR_SIZES = [pytest.param(360, 640, True, id="360x640-touch"), pytest.param(390, 844, True, id="390x844-touch"),
              pytest.param(1280, 800, False, id="1280x800"), pytest.param(1920, 1080, False, id="1920x1080")]


WEB_EXTRA = "the web extra; scripts/setup installs it"
PLAYWRIGHT = "the test extra's Playwright; scripts/setup installs it"


def need_the_web_extra() -> None:
    """Skip the calling test module, saying what is missing, unless Starlette and uvicorn
    import; under ``CI=true`` fail instead (tests/needs.py). Called before the module's
    imports of them, so it runs when a web test file is run on its own too."""
    __tracebackhide__ = True
    need_module("starlette", WEB_EXTRA)
    need_module("uvicorn", WEB_EXTRA)


def engine_commands() -> dict[str, list[str]]:
    """random / heuristic / mcts of this checkout, seeded so games repeat; plus a crashing one."""
    return {
        "random": [*ENGINE, "--player", "random", "--seed", "7"],
        "heuristic": [*ENGINE, "--player", "heuristic", "--seed", "7"],
        "mcts": [*ENGINE, "--player", "mcts", "--seed", "7"],
        "crasher": [sys.executable, "-c", "import sys; sys.stderr.write('boom: engine fell over\\n'); sys.exit(3)"],
    }


class LiveServer:
    """uvicorn serving the app in a background thread, on a free port of 127.0.0.1."""

    def __init__(self, app, idle_seconds: float | None = None, port: int = 0) -> None:  # noqa: ANN001
        """``port``: 0 for a free one; a given one to start a server again where one stopped."""
        import uvicorn

        from margo_gtp.web.serving import IDLE_SECONDS, server_config  # margo-web's own configuration

        self.app = app
        self.server = uvicorn.Server(server_config(app, "127.0.0.1", port, idle_seconds or IDLE_SECONDS))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("margo-web test server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        self.server.should_exit = True
        self.thread.join(timeout=20)


def receive_until(ws, predicate, limit: int = 50):  # noqa: ANN001, ANN201
    """Messages until one satisfies ``predicate`` (the engine's answers come as states)."""
    for _ in range(limit):
        message = ws.receive_json()
        if predicate(message):
            return message
    raise AssertionError("no matching message")


def screenshot(page, name: str) -> Path:
    """Save a screenshot under runs/web/ (kept with the test output) and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast of two computed colours ("rgb(r, g, b)")."""
    def luminance(text: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", text)[:3]]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted([luminance(first), luminance(second)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def move_cursor_to(page, target: str) -> None:  # noqa: ANN001
    """The board's keyboard cursor taken to ``target`` ("A1:2"): Page Up/Down for the level, then the arrows."""
    columns = "ABCDEFGHJ"

    def cursor() -> tuple[int, int, int]:
        name, level = page.get_attribute("[data-cursor]", "data-cursor").split(":")
        return columns.index(name[0]), int(name[1:]) - 1, int(level) - 1

    name, level = target.split(":")
    x, y, l = columns.index(name[0]), int(name[1:]) - 1, int(level) - 1
    for _ in range(abs(l - cursor()[2])):
        page.keyboard.press("PageUp" if l > cursor()[2] else "PageDown")
    cx, cy, _ = cursor()
    for key, count in (("ArrowRight" if x > cx else "ArrowLeft", abs(x - cx)), ("ArrowUp" if y > cy else "ArrowDown", abs(y - cy))):
        for _ in range(count):
            page.keyboard.press(key)
