"""The Starlette app of margo-web: static page, a small JSON API and the game websocket.

Websocket ``/ws`` (JSON messages; the page sends intents, the server sends whole states)::

    page -> server                                           server -> page
    {"type": "new", "size": 3, "white": "human",             {"type": "hello", "engines": [...], "labels": {...}, ...}
     "black": "random", "seconds": 1, "rules": {...},        {"type": "state", "game": "...", "frame": {...}, ...}
     "clock": {"main": 300, "increment": 5}}  (optional)
    {"type": "attach", "game": "<id>"}   (reconnect)         {"type": "error", "message": "illegal move: ..."}
    {"type": "play", "move": "C3:1" | "pass" | "swap" | "resign"}   {"type": "thinking", "game": "...", "visits": 1200, ...}
                                                      (an engine's search as it grows, at most every 0.25 s)
    {"type": "undo"}
    {"type": "seat", "colour": "B", "player": "heuristic" | "human"}
    {"type": "analysis", "on": true}
    {"type": "watch", "key": "0-7", "since": 12}    {"type": "watch", "key": "0-7", "live": true, "since": 12,
    {"type": "unwatch"}                               "frames": [...], "moves": [...], ...}  (on every change)
    {"type": "review", "replay": "<id>",             {"type": "review", "replay": "<id>", "visits": 50, "total": 40,
     "visits": 50, "progress": true}                  "entries": [...], "done": false}  (at the start, per move, at the end;
                                                      with "progress": true also "progress": {...} as a position is searched)
    {"type": "stop_review"}

A socket follows one game at a time, at most one watched referee game and runs at most one
review (of a replay it loaded; see :mod:`~margo_gtp.web.review_mode`: a new one stops the old
one). Every refused message answers one ``error`` and changes nothing. Players are engine
*names* of the :class:`~margo_gtp.web.game.EngineRegistry` the server was started with; no
message can name a command line or a path.

A ``new`` may carry ``"clock": {"main": S, "increment": S}``: game clocks
(:mod:`~margo_gtp.web.clocks`); a state then has ``"clock"``. It may name a rule preset,
``"preset": "designer" | "jocly" | "spargo" | "custom"`` (:mod:`~margo_gtp.web.presets`,
listed in ``hello``): its options are the rules the message's ``rules`` add to, and the
state, the journal and the SGF keep its name.

HTTP: ``/`` the page; ``/rules`` the rules page (its diagrams from ``/api/rules/diagrams``,
see :mod:`~margo_gtp.web.rules_diagrams`); ``/static/*`` its files; ``/api/games/<id>.sgf`` a game's SGF
(``/api/games/<id>/replay`` the same as a replay, to look back through a running game);
``/api/saved`` and ``/api/saved/<id>`` finished games on disk; ``POST /api/replay`` an SGF
text -> a replay (its info, moves and first frames), ``/api/replay/<id>/frames?from=N&count=K``
more of its frames (see :mod:`~margo_gtp.web.replay`), ``/api/replay/<id>/reviewed.sgf``
the record with the review run on it (:func:`~margo_gtp.analysis.game_review.reviewed_sgf`);
``POST /api/replay/<id>/variation`` a side line tried from one of its positions and
``POST /api/replay/<id>/play`` a new game from one (see :mod:`~margo_gtp.web.variation`);
``/api/watch...`` the watched referee folder (see :mod:`~margo_gtp.web.watch`).

No request blocks the event loop: reading a record and building frames run in worker
threads, at most :data:`MAX_BUILDS` at a time, so ``GET /`` and the games' websockets are
answered meanwhile. Every ``/api`` request that a browser marks with an ``Origin`` of
another site is refused (403), as the websocket is: a page elsewhere must not make this
server work, nor read its games.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from margo_gtp import __version__
from margo_gtp.engine import Colour, Move, Rules, RulesError
from margo_gtp.analysis.game_review import reviewed_sgf
from margo_gtp.web.clocks import ClockError, GameClock
from margo_gtp.web.game import HUMAN, EngineRegistry, GameError, Seat, WebGame
from margo_gtp.web.presets import named_preset, presets_view, read_preset
from margo_gtp.web.store import GameStore, is_game_id, new_game_id
from margo_gtp.web.replay import ReplayBook
from margo_gtp.web.review_mode import ReviewRunner, review_visits
from margo_gtp.web.rules_diagrams import diagram_frames
from margo_gtp.web.variation import MAX_REQUEST_BYTES, playable_line, variation_view
from margo_gtp.web.watch import WatchFolder

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_SGF_BYTES = 1_000_000
MAX_BUILDS = 2                  # replays read or frames built at the same time (worker threads)
MAX_GAMES_IN_MEMORY = 200       # finished games without a page are dropped beyond this (they are on disk)
MIN_SECONDS, MAX_SECONDS = 0.05, 60.0
WATCH_INTERVAL = 0.25           # seconds between looks at a followed live game's files


class Server:
    """Everything one margo-web process holds: the engines it may run, the games, the store."""

    def __init__(self, registry: EngineRegistry, store: GameStore, watch: WatchFolder | None = None) -> None:
        self.registry = registry
        self.store = store
        self.watch = watch
        self.games: dict[str, WebGame] = {}
        self.replays = ReplayBook()
        self.builds = asyncio.Semaphore(MAX_BUILDS)
        self.reviews = ReviewRunner()

    async def in_worker(self, function, *args):  # noqa: ANN001, ANN002, ANN201
        """Run blocking ``function(*args)`` in a worker thread, at most MAX_BUILDS at once."""
        async with self.builds:
            return await asyncio.to_thread(function, *args)

    async def replay_view(self, sgf_text: str, source: str) -> dict[str, Any]:
        """The first view of ``sgf_text`` as a replay (read and framed in a worker thread)."""
        replay = await self.in_worker(self.replays.load, sgf_text)
        return await self.in_worker(replay.view, source)

    def sgf_text(self, game_id: Any) -> str:
        """The SGF of a game open here or saved in the store; GameError when there is none."""
        game = self.find(game_id)
        return game.sgf() if game is not None else self.store.read(game_id)

    def new_game(self, message: dict[str, Any], line: list[tuple[Colour, Move]] = (), rules: Rules | None = None) -> WebGame:
        """A game of a ``new`` message (its players, seconds and rules), or with ``rules``
        given, one that goes on from ``line``, the moves that led to a replayed position
        (:mod:`~margo_gtp.web.variation`); its journal holds them all before any page sees it."""
        preset = None
        if rules is None:
            rules = parse_rules(message)
            preset = read_preset(message, rules)
        seats = {}
        for colour in (Colour.WHITE, Colour.BLACK):
            player = message.get(colour.name.lower(), HUMAN)
            if not isinstance(player, str):
                raise GameError(f"invalid player for {colour.name.lower()}: {player!r}")
            if player != HUMAN:
                self.registry.command(player)  # unknown names are refused here
            seats[colour] = player
        seconds = message.get("seconds", 1.0)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not MIN_SECONDS <= seconds <= MAX_SECONDS:
            raise GameError(f"invalid seconds per move: {seconds!r} (allowed {MIN_SECONDS}..{MAX_SECONDS:g})")
        try:
            clock = GameClock.parse(message.get("clock"))
        except ClockError as error:
            raise GameError(str(error)) from None
        game = WebGame(new_game_id(), rules, {c: Seat(p) for c, p in seats.items()}, float(seconds), self.registry,
                       None, clock, preset)
        for colour, move in line:   # checked already: played again as the game's own moves (off the clock)
            game._push(move, colour)
        # The seats are those asked for now, at this position (a swap in the line moved them).
        game.seats = {c: Seat(p) for c, p in seats.items()}
        game.store = self.store
        self.store.write_journal(game)
        self.games[game.game_id] = game
        self._forget_old_games()
        return game

    def find(self, game_id: Any) -> WebGame | None:
        """A game in memory, or an unfinished one taken up again from its journal (after a
        restart); None when there is no such open game. GameError for a broken journal."""
        if not is_game_id(game_id):
            return None
        game = self.games.get(game_id)
        if game is None:
            game = self.store.restore(game_id, self.registry)
            if game is not None:
                self.games[game_id] = game
        return game

    def _forget_old_games(self) -> None:
        idle = [gid for gid, game in self.games.items() if not game.listeners and game.outcome is not None]
        for gid in idle[: max(0, len(self.games) - MAX_GAMES_IN_MEMORY)]:
            self.games.pop(gid).forget()

    async def close(self) -> None:
        await asyncio.gather(*(game.close() for game in self.games.values()), return_exceptions=True)


def parse_rules(message: dict[str, Any]) -> Rules:
    """Rules from a ``new`` message: ``size`` plus ``rules`` = ``{option: value}`` (rules.md §9)
    over the options of its ``preset``, if it names one (:mod:`~margo_gtp.web.presets`)."""
    options = message.get("rules") or {}
    if not isinstance(options, dict):
        raise GameError("invalid rules: expected an object of option: value")
    preset = named_preset(message)
    options = {**(preset.options if preset is not None else {}), **{str(key): str(value) for key, value in options.items()}}
    if "size" in message:
        options["size"] = str(message["size"])
    try:
        return Rules().with_options(options)
    except RulesError as error:
        raise GameError(str(error)) from None


def same_origin(websocket: WebSocket | Request) -> bool:
    """True unless a browser says the socket (or request) comes from a page of another site.

    Browsers let any page open a websocket to 127.0.0.1 (no CORS for websockets), so a page
    elsewhere could otherwise start this server's engines; its ``Origin`` gives it away.
    Clients that send no ``Origin`` (scripts, TestClient) are not browsers and are let in.
    """
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == websocket.headers.get("host", "").lower()


async def game_socket(websocket: WebSocket) -> None:
    server: Server = websocket.app.state.server
    if not same_origin(websocket):
        await websocket.close(code=1008)  # policy violation
        return
    await websocket.accept()
    game: WebGame | None = None
    watcher: asyncio.Task | None = None   # pushes a watched live game
    reviewer: asyncio.Task | None = None  # streams a review

    async def send(message: dict[str, Any]) -> None:
        await websocket.send_text(json.dumps(message))

    await send({"type": "hello", "engines": server.registry.names(), "labels": dict(server.registry.labels),
                "presets": presets_view(), "version": __version__,
                "watch": server.watch is not None})
    try:
        while True:
            try:
                message = json.loads(await websocket.receive_text())
                if not isinstance(message, dict):
                    raise GameError("expected a JSON object")
            except RecursionError:   # nested deeper than the parser goes: bad JSON like any other
                await send({"type": "error", "message": "bad message: JSON nested too deeply"})
                continue
            except (ValueError, TypeError) as error:
                await send({"type": "error", "message": f"bad message: {error}"})
                continue
            kind = message.get("type")
            try:
                if kind in ("new", "attach"):
                    if game is not None:
                        game.detach(send)
                        game = None
                    if kind == "new":
                        game = server.new_game(message)
                    else:
                        gid = message.get("game")
                        game = server.find(gid)
                        if game is None:
                            raise GameError(f"no such game: {gid!r}")
                    game.attach(send)
                    game.start()
                    await send(game.state())
                elif kind == "watch":
                    watcher = follow(server, watcher, message.get("key"), message.get("since", 0), send)
                elif kind == "unwatch":
                    watcher = follow(server, watcher, None, 0, send)
                elif kind in ("review", "stop_review"):
                    if reviewer is not None:
                        reviewer.cancel()
                        reviewer = None
                    if kind == "review":
                        replay = server.replays.get(message.get("replay"))
                        progress = message.get("progress", False)
                        if not isinstance(progress, bool):
                            raise GameError(f"invalid review progress: {progress!r} (true or false)")
                        reviewer = server.reviews.start(replay, review_visits(message.get("visits", 200)), send,
                                                        progress=progress)
                elif game is None:
                    raise GameError("no game: start one first")
                elif kind == "play":
                    await game.play(message.get("move"))
                elif kind == "undo":
                    await game.undo()
                elif kind == "seat":
                    colour = message.get("colour")
                    if colour not in ("W", "B"):
                        raise GameError(f"invalid colour: {colour!r}")
                    player = message.get("player")
                    if not isinstance(player, str):
                        raise GameError(f"invalid player: {player!r}")
                    await game.set_seat(Colour.parse(colour), player)
                elif kind == "analysis":
                    await game.set_analysis(bool(message.get("on")))
                else:
                    raise GameError(f"unknown message type: {kind!r}")
            except GameError as error:
                await send({"type": "error", "message": str(error)})
            except (WebSocketDisconnect, asyncio.CancelledError):
                raise
            except Exception as error:  # noqa: BLE001 - a bug answers this message, the socket goes on
                log.exception("internal error on %r", message)
                await send({"type": "error", "message": f"internal error: {type(error).__name__}: {error}"})
    except WebSocketDisconnect:
        pass
    finally:
        for task in (watcher, reviewer):
            if task is not None:
                task.cancel()
        if game is not None:
            game.detach(send)


def follow(server: Server, watcher: asyncio.Task | None, key: Any, since: Any, send) -> asyncio.Task | None:  # noqa: ANN001
    """Replace a socket's watcher: follow watched game ``key`` from ply ``since`` (None: stop)."""
    if watcher is not None:
        watcher.cancel()
    if key is None:
        return None
    if server.watch is None:
        raise GameError("not watching a folder (start margo-web with --watch DIR)")
    if not isinstance(key, str) or isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise GameError(f"invalid watch request: key {key!r}, since {since!r}")
    return asyncio.get_running_loop().create_task(push_watched_game(server.watch, key, since, send))


async def push_watched_game(watch: WatchFolder, key: str, since: int, send) -> None:  # noqa: ANN001
    """Send ``{"type": "watch", ...}`` (the view of :meth:`WatchFolder.game_view`, frames from
    ``since``) now and whenever the game's files change, until the game is finished."""
    seen = None
    while True:
        try:
            mark = await asyncio.to_thread(watch.mark, key)
            if mark != seen:
                seen = mark
                view = await asyncio.to_thread(watch.game_view, key, since)
                await send({"type": "watch", **view})
                since = view["since"] + len(view["frames"])
                if not view["live"]:
                    return
        except GameError as error:
            await send({"type": "error", "message": str(error)})
            return
        await asyncio.sleep(WATCH_INTERVAL)


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


async def rules_page(request: Request) -> Response:
    return FileResponse(STATIC / "rules.html", headers={"Cache-Control": "no-store"})


async def rules_diagrams(request: Request) -> Response:
    """The rules page's positions, each played through the rules core (rules_diagrams.py)."""
    server: Server = request.app.state.server
    return JSONResponse({"diagrams": list(await server.in_worker(diagram_frames))})


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def game_sgf(request: Request) -> Response:
    server: Server = request.app.state.server
    gid = request.path_params["game"]
    try:
        text = server.sgf_text(gid)
    except GameError as error:
        return _error(404, str(error))
    return Response(text, media_type="application/x-go-sgf",
                    headers={"Content-Disposition": f'attachment; filename="margo-{gid}.sgf"'})


class CrossSiteGuard:
    """ASGI middleware: every ``/api/`` request a page of another site made gets a 403
    (see :func:`same_origin`). One check in front of the whole API, so no endpoint, present
    or future, can forget it; the websocket checks the same on its handshake."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            request = Request(scope)
            if not same_origin(request):
                refusal = _error(403, f"refused: a page of {request.headers.get('origin')} may not use this server")
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _bounded_body(request: Request, limit: int) -> bytes | None:
    """The request's body, read a chunk at a time; None as soon as it passes ``limit`` bytes
    (a page cannot make the server hold more)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body


async def replay_upload(request: Request) -> Response:
    server: Server = request.app.state.server
    body = await _bounded_body(request, MAX_SGF_BYTES)
    if body is None:
        return _error(413, f"SGF too large (over {MAX_SGF_BYTES} bytes)")
    try:
        return JSONResponse(await server.replay_view(body.decode("utf-8", errors="replace"), "upload"))
    except GameError as error:
        return _error(400, str(error))


async def game_replay(request: Request) -> Response:
    """A running or saved game as a replay (the page looks back through it with ← →)."""
    server: Server = request.app.state.server
    gid = request.path_params["game"]
    try:
        text = server.sgf_text(gid)
        return JSONResponse(await server.replay_view(text, "game"))
    except GameError as error:
        return _error(404, str(error))


async def replay_frames(request: Request) -> Response:
    server: Server = request.app.state.server
    start, count = request.query_params.get("from", "0"), request.query_params.get("count", "1")
    if not (start.isdigit() and count.isdigit() and len(start) < 7 and len(count) < 7):
        return _error(400, f"invalid frames request: from {start!r}, count {count!r} (numbers)")
    try:
        replay = server.replays.get(request.path_params["replay"])
    except GameError as error:
        return _error(404, str(error))
    frames = await server.in_worker(replay.frames, int(start), int(count))
    return JSONResponse({"replay": replay.replay_id, "from": min(int(start), replay.plies), "frames": frames})


async def replay_reviewed_sgf(request: Request) -> Response:
    """A replay with the review run on it (so far) as a reviewed SGF, as margo-review writes it."""
    server: Server = request.app.state.server
    try:
        replay = server.replays.get(request.path_params["replay"])
    except GameError as error:
        return _error(404, str(error))
    if not replay.review_entries:
        return _error(404, "no review of this replay yet (review it first)")
    text = await server.in_worker(reviewed_sgf, replay.record, list(replay.review_entries))
    return Response(text, media_type="application/x-go-sgf",
                    headers={"Content-Disposition": 'attachment; filename="margo-reviewed.sgf"'})


async def json_body(request: Request) -> dict[str, Any] | Response:
    """The request's JSON object, or the one-line refusal to send instead (too large, not
    JSON, not an object, nested deeper than the parser goes)."""
    body = await _bounded_body(request, MAX_REQUEST_BYTES)
    if body is None:
        return _error(413, f"request too large (over {MAX_REQUEST_BYTES} bytes)")
    try:
        data = json.loads(body.decode("utf-8", errors="replace"))
    except RecursionError:
        return _error(400, "bad request: JSON nested too deeply")
    except ValueError as error:
        return _error(400, f"bad request: not JSON ({error})")
    if not isinstance(data, dict):
        return _error(400, "bad request: expected a JSON object")
    return data


async def _replay_and_body(request: Request):
    """The replay a side-line request names and its JSON object, or the error answer."""
    try:
        replay = request.app.state.server.replays.get(request.path_params["replay"])
    except GameError as error:
        return _error(404, str(error))
    data = await json_body(request)
    if isinstance(data, Response):
        return data
    return replay, data


async def replay_variation(request: Request) -> Response:
    """A side line tried from a replay's position (:mod:`~margo_gtp.web.variation`): the
    position it reaches, every move checked by the rules core. Nothing is kept here."""
    server: Server = request.app.state.server
    asked = await _replay_and_body(request)
    if isinstance(asked, Response):
        return asked
    replay, data = asked
    try:
        return JSONResponse(await server.in_worker(variation_view, replay, data.get("ply"), data.get("moves", [])))
    except GameError as error:
        return _error(400, str(error))


async def replay_play_from_here(request: Request) -> Response:
    """Play from here: a new game (saved like any other) from a replay's position, main
    line or side line, with the players of the request (``white``, ``black``, ``seconds``
    as in a ``new`` message). The page attaches to it by its id."""
    server: Server = request.app.state.server
    asked = await _replay_and_body(request)
    if isinstance(asked, Response):
        return asked
    replay, data = asked
    try:
        rules, line = await server.in_worker(playable_line, replay, data.get("ply"), data.get("moves", []))
        game = server.new_game(data, line, rules)
    except GameError as error:
        return _error(400, str(error))
    return JSONResponse({"game": game.game_id})


async def saved_list(request: Request) -> Response:
    return JSONResponse({"games": await asyncio.to_thread(request.app.state.server.store.list)})


async def saved_game(request: Request) -> Response:
    server: Server = request.app.state.server
    try:
        text = server.store.read(request.path_params["game"])
    except GameError as error:
        return _error(404, str(error))
    try:
        return JSONResponse(await server.replay_view(text, "saved"))
    except GameError as error:
        return _error(400, str(error))


async def saved_delete(request: Request) -> Response:
    """Delete a saved game (an abandoned one piles up otherwise). The cross-site guard in
    front of ``/api/`` refuses a page of another site, as for every route; a game open in a
    page is not deleted under it."""
    server: Server = request.app.state.server
    gid = request.path_params["game"]
    game = server.games.get(gid)
    if game is not None and game.listeners:
        return _error(409, f"cannot delete game {gid}: it is open in a page")
    try:
        await asyncio.to_thread(server.store.delete, gid)
    except GameError as error:
        return _error(404 if str(error).startswith("no such game") else 500, str(error))
    if game is not None:
        server.games.pop(gid, None)
        await game.close()
    return JSONResponse({"deleted": gid})


async def watch_index(request: Request) -> Response:
    watch: WatchFolder | None = request.app.state.server.watch
    if watch is None:
        return _error(404, "not watching a folder (start margo-web with --watch DIR)")
    return JSONResponse(await asyncio.to_thread(watch.summary))


async def watch_game(request: Request) -> Response:
    watch: WatchFolder | None = request.app.state.server.watch
    if watch is None:
        return _error(404, "not watching a folder (start margo-web with --watch DIR)")
    since = request.query_params.get("since", "0")
    if not since.isdigit():
        return _error(400, f"invalid since: {since!r} (a ply number)")
    try:
        return JSONResponse(await asyncio.to_thread(watch.game_view, request.path_params["key"], int(since)))
    except GameError as error:
        return _error(404, str(error))


def create_app(registry: EngineRegistry, store: GameStore, watch: WatchFolder | None = None,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The app. ``allowed_hosts`` (``margo-web`` passes the loopback names when it binds
    127.0.0.1) refuses requests whose ``Host`` is another name: a DNS-rebinding page cannot
    reach the server under its own name."""
    server = Server(registry, store, watch)

    @asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202
        yield
        await server.close()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/rules", rules_page),
            Route("/api/rules/diagrams", rules_diagrams),
            Route("/api/games/{game}.sgf", game_sgf),
            Route("/api/games/{game}/replay", game_replay),
            Route("/api/replay", replay_upload, methods=["POST"]),
            Route("/api/replay/{replay}/frames", replay_frames),
            Route("/api/replay/{replay}/reviewed.sgf", replay_reviewed_sgf),
            Route("/api/replay/{replay}/variation", replay_variation, methods=["POST"]),
            Route("/api/replay/{replay}/play", replay_play_from_here, methods=["POST"]),
            Route("/api/saved", saved_list),
            Route("/api/saved/{game}", saved_game),
            Route("/api/saved/{game}", saved_delete, methods=["DELETE"]),
            Route("/api/watch", watch_index),
            Route("/api/watch/{key}", watch_game),
            WebSocketRoute("/ws", game_socket),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
        middleware=([Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else [])
        + [Middleware(CrossSiteGuard)],
    )
    app.state.server = server
    return app
