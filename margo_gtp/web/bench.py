"""Benchmark of margo-web (``scripts/bench --only web``, or ``python -m margo_gtp.web.bench``).

Two figures, measured, never asserted in tests:

``web_move_p50_ms`` / ``web_move_p95_ms``
    Server side, from a click to the engine's move on the page: the time from sending a
    ``play`` intent on the websocket to receiving the state in which the engine has answered,
    with the ``random`` engine (instant: it does no search) on 9x9, in Starlette's TestClient
    (the app and the engine subprocess are real; no browser). Target: p95 <= 50 ms.
``web_draw_9x9_p50_ms`` / ``web_draw_9x9_p95_ms``
    Drawing a full 9x9 position in Debian's Chromium: ``renderBoard`` of the page's own
    board.js on the most crowded of the fixed mid-game positions into an empty board
    (``clearBoard`` first, so every point is drawn), timed with ``performance.now()``
    including a forced style and layout. Target: <= 16 ms (one frame).
``web_move_draw_9x9_p50_ms`` / ``..._p95_ms``
    The same position after one move (what the page does on every move: only the points
    whose content changed are redrawn), alternating between the two positions.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from margo_gtp.engine.positions import midgame_positions
from margo_gtp.web.view import frame

CHROMIUM = "/usr/bin/chromium"
MOVES = 60
DRAWS = 60


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def move_latency(moves: int = MOVES) -> dict[str, float]:
    """Click-to-engine-move times over ``moves`` human moves against ``random`` on 9x9."""
    from starlette.testclient import TestClient

    from margo_gtp.web.app import create_app
    from margo_gtp.web.cli import default_engine_commands
    from margo_gtp.web.game import EngineRegistry, GameStore

    app = create_app(EngineRegistry(default_engine_commands()), GameStore(Path(tempfile.mkdtemp(prefix="margo-web-bench-"))))
    samples: list[float] = []
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()

        def until_my_turn() -> dict:
            while True:
                message = ws.receive_json()
                if message["type"] == "state" and (message["human_to_move"] or message["over"]):
                    return message

        ws.send_json({"type": "new", "size": 9, "white": "human", "black": "random", "seconds": 0.05})
        state = until_my_turn()
        # The first engine move starts the process: warm up before timing.
        ws.send_json({"type": "play", "move": next(t["v"] for t in state["frame"]["targets"] if t["legal"])})
        state = until_my_turn()
        while len(samples) < moves:
            if state["over"]:
                ws.send_json({"type": "new", "size": 9, "white": "human", "black": "random", "seconds": 0.05})
                state = until_my_turn()
                continue
            move = next(t["v"] for t in state["frame"]["targets"] if t["legal"])
            started = time.perf_counter()
            ws.send_json({"type": "play", "move": move})
            state = until_my_turn()
            samples.append((time.perf_counter() - started) * 1000)
    return {"web_move_p50_ms": round(statistics.median(samples), 2),
            "web_move_p95_ms": round(_percentile(samples, 0.95), 2), "web_move_samples": len(samples)}


def draw_time(draws: int = DRAWS) -> dict[str, float]:
    """renderBoard times of a crowded 9x9 position in Chromium."""
    from playwright.sync_api import sync_playwright

    board = max(midgame_positions(), key=lambda b: len(b.balls()))
    view = frame(board)
    before = board.copy()
    before.pop()
    previous = frame(before)
    static = Path(__file__).resolve().parent / "static"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        # board.js is an ES module: serve the package's static files under a made-up origin.
        files = {"board.js": "text/javascript", "style.css": "text/css"}
        page_html = "<!doctype html><link rel=stylesheet href=style.css><svg id=b class=board width=760 height=760></svg>"

        def serve(route) -> None:  # noqa: ANN001
            name = route.request.url.rsplit("/", 1)[1]
            if name in files:
                route.fulfill(path=str(static / name), content_type=files[name])
            else:
                route.fulfill(body=page_html, content_type="text/html")

        page.route("http://bench.local/**", serve)
        page.goto("http://bench.local/index")
        full, moves = page.evaluate(
            """async ([frame, previous, draws]) => {
                const { renderBoard, clearBoard } = await import('http://bench.local/board.js');
                const svg = document.getElementById('b');
                const time = (draw) => {
                    const t0 = performance.now();
                    draw();
                    svg.getBoundingClientRect(); document.body.offsetHeight;  // force style and layout
                    return performance.now() - t0;
                };
                const full = [], moves = [];
                for (let i = 0; i < draws; i++) {
                    clearBoard(svg);
                    full.push(time(() => renderBoard(svg, frame, { mover: 'W' })));
                }
                for (let i = 0; i < draws; i++) {
                    moves.push(time(() => renderBoard(svg, i % 2 ? frame : previous, { mover: 'W' })));
                }
                return [full, moves];
            }""", [view, previous, draws])
        browser.close()
    full, moves = full[3:], moves[3:]  # the first draws compile the module's code paths
    return {"web_draw_9x9_p50_ms": round(statistics.median(full), 2), "web_draw_9x9_p95_ms": round(_percentile(full, 0.95), 2),
            "web_move_draw_9x9_p50_ms": round(statistics.median(moves), 2),
            "web_move_draw_9x9_p95_ms": round(_percentile(moves, 0.95), 2),
            "web_draw_9x9_balls": len(view["balls"]), "web_draw_9x9_points": sum((9 - l) ** 2 for l in range(9))}


def figures() -> dict[str, float]:
    result: dict[str, float] = {}
    result.update(move_latency())
    if Path(CHROMIUM).exists():
        result.update(draw_time())
    else:
        result["web_draw_unavailable"] = f"{CHROMIUM} is missing (scripts/setup installs it)"
    return result


def main() -> None:
    result = figures()
    if "--json" in sys.argv[1:]:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
