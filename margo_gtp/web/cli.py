"""``margo-web``: serve the MarGo board in the browser (composition root of margo_gtp.web).

Builds the engine registry (the default engines of this installation plus ``--engine``),
the game store and the optional watched folder, then serves the app with uvicorn.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shlex
import socket
import sys
import tempfile
import threading
import time
import webbrowser
from pathlib import Path
from typing import Annotated, Optional

import typer

from margo_gtp import __version__

#: The page's engines, the default first: the strongest player (level 8), the weaker levels
#: a human can beat, then the plain players by their spec names.
DEFAULT_ENGINES = ("strongest", *(f"level-{level}" for level in range(1, 8)), "random", "heuristic", "mcts")
LOCALHOST = "127.0.0.1"
#: The names a browser on this machine uses for it, as a ``Host`` header writes them.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

app = typer.Typer(add_completion=False)


def default_engine_commands() -> dict[str, list[str]]:
    """:data:`DEFAULT_ENGINES` of this installation: this interpreter running the
    ``margo-gtp`` entry point (so they work from a venv that is not on PATH), with
    ``--level N`` for ``level-N`` and ``--player NAME`` for the others."""
    entry = [sys.executable, "-c", "from margo_gtp.commands.gtp import main; main()"]
    return {name: [*entry, "--level", name.removeprefix("level-")] if name.startswith("level-")
            else [*entry, "--player", name] for name in DEFAULT_ENGINES}


def default_engine_labels() -> dict[str, str]:
    """What the page shows for the default engines that are levels: ``Level 3 — about
    1,200`` once ``scripts/levels`` has measured it (``players/data/levels.json``), else
    ``Level 3``; ``strongest`` is the top level."""
    from margo_gtp.players.levels import MAX_LEVEL, level_labels

    labels = level_labels()
    named = {f"level-{level}": label for level, label in labels.items() if level < MAX_LEVEL}
    return {"strongest": f"{labels[MAX_LEVEL]} (strongest)", **named}


def parse_engine_options(pairs: list[str]) -> dict[str, list[str]]:
    """``NAME=COMMAND`` pairs -> ``{name: argv}``; typer.BadParameter on a bad pair or on a
    program that cannot be found."""
    from margo_gtp.client import find_program, program_missing

    from margo_gtp.options import PairError, read_pairs

    try:  # the one K=V reader: a name given twice is a mistake, not an override
        commands = read_pairs(pairs, malformed="expected NAME=COMMAND, got {item!r}",
                              repeated="engine {key!r} given twice")
    except PairError as error:
        raise typer.BadParameter(str(error), param_hint="--engine") from None
    engines: dict[str, list[str]] = {}
    for pair, (name, command) in zip(pairs, commands.items()):
        if not command:
            raise typer.BadParameter(f"expected NAME=COMMAND, got {pair!r}", param_hint="--engine")
        if name == "human" or not all(ch.isalnum() or ch in "-_." for ch in name):
            raise typer.BadParameter(f"invalid engine name: {name!r} (letters, digits, - _ . ; not 'human')",
                                     param_hint="--engine")
        try:
            argv = find_program(shlex.split(command))  # margo-gtp beside this Python, venv not activated
        except ValueError as error:
            raise typer.BadParameter(f"cannot split command of {name!r}: {error}", param_hint="--engine") from None
        missing = program_missing(argv)
        if missing:  # found now, not when a page first picks the engine
            raise typer.BadParameter(f"engine {name!r}: {missing}", param_hint="--engine")
        engines[name] = argv
    return engines


def is_loopback(host: str) -> bool:
    """``localhost``, ``::1``, ``127.0.0.1`` or any 127.x address: only this machine reaches it."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_header_name(name: str) -> str:
    """``name`` as a ``Host`` header writes it: lower case, an IPv6 address in brackets."""
    name = name.strip().lower()
    try:
        if ipaddress.ip_address(name.strip("[]")).version == 6:
            return f"[{name.strip('[]')}]"
    except ValueError:
        pass
    return name


def allowed_hosts(bind: str, allow: list[str]) -> list[str]:
    """The ``Host`` names the server answers: the loopback names, the bound address itself
    (unless it is a wildcard such as 0.0.0.0, which no page should name) and the
    ``--allow-host`` names. Every other ``Host`` is refused, whatever the bind address, so
    a DNS-rebinding page (its own name resolving to this server) cannot reach it.

    typer.BadParameter for a name that is not a plain host name or address."""
    names = list(LOOPBACK_NAMES)
    for name in allow:
        if not (re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?", name) or _is_address(name)):
            raise typer.BadParameter(f"not a host name or address: {name!r}", param_hint="--allow-host")
        names.append(_host_header_name(name))
    if _is_address(bind) and not ipaddress.ip_address(bind.strip("[]")).is_unspecified:
        names.append(_host_header_name(bind))
    return list(dict.fromkeys(names))


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return True


def default_games_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "margo-web" / "games"


def _version(value: bool) -> None:
    if value:
        print(f"margo-web {__version__}")
        raise typer.Exit()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind. Anything but a loopback address exposes the engines to the network, "
                                           "and needs --allow-host.")] = LOCALHOST,
    allow_host: Annotated[Optional[list[str]], typer.Option(
        "--allow-host", metavar="NAME",
        help="A host name (or address) pages may use to reach this server, repeatable; needed to bind a non-loopback "
             "address. The loopback names are always allowed; every other Host header is refused.")] = None,
    port: Annotated[int, typer.Option(help="TCP port (0: any free port).", min=0, max=65535)] = 8000,
    engine: Annotated[Optional[list[str]], typer.Option(
        "--engine", metavar="NAME=COMMAND",
        help="Add an engine the page may choose, repeatable. Example: --engine gnu='margo-gtp --player mcts'")] = None,
    watch: Annotated[Optional[Path], typer.Option(
        "--watch", metavar="DIR", help="A margo-match or margo-tournament output folder to watch.")] = None,
    games_dir: Annotated[Optional[Path], typer.Option(
        "--games-dir", metavar="DIR", help="Where finished games are kept (default ~/.local/share/margo-web/games).")] = None,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open the default browser.")] = False,
    version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True,
                                                    help="Print the version and exit.")] = None,
) -> None:
    """Serve the MarGo board: play against engines, watch engine games and referee runs, replay SGF.

    Examples:

      margo-web

      margo-web --engine strong='margo-gtp --player mcts' --watch runs/match1 --no-open
    """
    try:
        import uvicorn
    except ImportError:
        typer.echo("margo-web: the web extra is not installed (pip install 'margo-gtp[web]')", err=True)
        raise typer.Exit(2) from None
    from margo_gtp.web.app import create_app
    from margo_gtp.web.game import EngineRegistry
    from margo_gtp.web.serving import server_config
    from margo_gtp.web.store import GameStore
    from margo_gtp.web.watch import WatchFolder

    defaults = default_engine_commands()
    commands = {**defaults, **parse_engine_options(engine or [])}
    if watch is not None and not watch.is_dir():
        raise typer.BadParameter(f"not a folder: {str(watch)!r}", param_hint="--watch")
    if games_dir is not None:  # finished games are saved there: find out now, not after a game
        try:
            games_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=games_dir):
                pass
        except OSError as error:
            raise typer.BadParameter(f"cannot write in {str(games_dir)!r}: {error.strerror or error}",
                                     param_hint="--games-dir") from None
    hosts = allowed_hosts(host, allow_host or [])
    if not is_loopback(host) and not allow_host:
        typer.echo(f"margo-web: --host {host} is not a loopback address: name the host names pages may use "
                   "to reach it with --allow-host NAME (every other Host is refused)", err=True)
        raise typer.Exit(2)
    listening = _listen(host, port)  # bound here so that a busy port is our one-line error
    if not is_loopback(host):
        typer.echo(f"margo-web: warning: binding {host}, not a loopback address: anyone who reaches it can start "
                   f"the engines of this server; pages are answered only under {', '.join(hosts)}", err=True)
    labels = {name: label for name, label in default_engine_labels().items() if commands.get(name) == defaults.get(name)}
    application = create_app(EngineRegistry(commands, labels), GameStore(games_dir or default_games_dir()),
                             WatchFolder(watch) if watch is not None else None, allowed_hosts=hosts)
    server = uvicorn.Server(server_config(application, host, port))  # idle connections are closed

    def announce() -> None:  # once bound: the real port (with --port 0) and the browser
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if server.should_exit:
            return
        shown = LOCALHOST if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host  # IPv6 in brackets
        url = f"http://{shown}:{listening.getsockname()[1]}/"  # the real port, with --port 0 too
        typer.echo(f"margo-web {__version__}: serving on {url} (Ctrl-C stops)", err=True)
        if not no_open:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[listening])


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` for uvicorn, or exit 2 with one line saying why not."""
    try:
        family, kind, protocol, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                                flags=socket.AI_PASSIVE)[0]
        listening = socket.socket(family, kind, protocol)
        try:
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listening.bind(address)
        except OSError:
            listening.close()
            raise
    except OSError as error:
        typer.echo(f"margo-web: cannot listen on {host}:{port}: {error.strerror or error}", err=True)
        raise typer.Exit(2) from None
    return listening
