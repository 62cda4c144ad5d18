"""The Ray backend of margo-match/margo-tournament ``--cluster ADDRESS``.

Importing this module imports Ray; the referee imports it only when ``--cluster`` is given,
so Ray stays an optional extra (``margo-gtp[cluster]``) and a local match never loads it.

How games are played
    One Ray *actor* per game slot (:class:`GameSlot`, one CPU each: the two engines of a game
    take turns, so a game keeps about one core busy). An actor holds a
    :class:`~margo_gtp.match.game_runner.GameRunner` (the two engine processes, reused across
    games as in a local worker) and plays one numbered game per call; it returns the
    game's record and SGF text to the referee, which writes them. The referee process
    is the only writer of ``results.jsonl`` and the SGFs, so everything the local backend
    promises (durable writes, resume, Ctrl-C) holds for a cluster run unchanged.
Start-up check
    Before any game, every actor starts both engines and asks them ``name`` and
    ``version``. A node where an engine cannot start, or does not speak GTP, stops the
    match with a :class:`~margo_gtp.game.faults.EngineStartError` naming the node: a
    missing engine is a set-up error, not a match of forfeits.
Exactly once
    A game is handed to one actor at a time. If the actor dies (its worker process was
    killed, its node was lost), Ray reports ``RayActorError`` for that call: the game goes
    back to the queue, to be played again from the start by another actor, and a
    replacement actor is started (it runs the same start-up check). A record is written
    only for a call that returned, and the referee's commit ignores a game number
    already written, so a game is never counted twice and never lost.
Connecting
    ``ADDRESS`` is what ``ray.init(address=...)`` takes (``auto``, ``HOST:6379``,
    ``ray://HOST:10001``); ``local`` starts a private Ray instance on this machine for the
    match (``ray.init(address="local")``) and stops it afterwards. Ray's token
    authentication is left to Ray: with ``RAY_AUTH_MODE=token`` (and the token in
    ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or Ray's default file) the driver
    authenticates like any Ray client; nothing here turns it off.
What a cluster run does not do
    Write the live feed (``OUT/live``) or wire logs: the games run on other machines.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import RayActorError, RayTaskError

from margo_gtp.game.faults import EngineFault, EngineStartError

from margo_gtp.match.cluster_options import LOCAL, parse_runtime_env  # noqa: F401 - parse_runtime_env re-exported
from margo_gtp.match.game_runner import GameRunner
from margo_gtp.match.match_config import MatchConfig


class ClusterError(RuntimeError):
    """Raised when the Ray cluster cannot be reached or used; the message says why"""


class GameSlot:
    """One game at a time on a Ray worker: the two engines and a :class:`GameRunner`.

    A plain class, made a Ray actor class by :func:`_slot_class` when a match needs it
    (the start-up check can also be run in-process)."""

    def __init__(self, config: MatchConfig) -> None:
        self.runner = GameRunner(config)

    def check(self) -> dict[str, Any]:
        """Start both engines and ask them ``name`` and ``version``; the node's host name,
        pid and the answers. Raises EngineStartError when an engine is missing or mute."""
        answers = {}
        for label, player in self.runner.players.items():
            where = f"on node {socket.gethostname()}"
            try:
                answers[label] = player.identify()
            except EngineStartError as error:
                raise EngineStartError(f"{where}: {error}") from None
            except EngineFault as fault:
                raise EngineStartError(f"{where}: engine {label} {player.spec.command!r} did not answer name/version: {fault}") from None
        return {"host": socket.gethostname(), "pid": os.getpid(), "engines": answers}

    def play(self, game: int) -> tuple[dict[str, Any], str | None]:
        return self.runner.play(game)


_REMOTE_SLOT: Any = None


def _slot_class() -> Any:
    global _REMOTE_SLOT
    if _REMOTE_SLOT is None:
        # max_restarts=0: a dead actor is replaced by the referee (which re-queues its game),
        # not restarted by Ray behind its back with the game silently half-played.
        _REMOTE_SLOT = ray.remote(num_cpus=1, max_restarts=0)(GameSlot)
    return _REMOTE_SLOT


#: How long a HOST:PORT cluster address gets to accept a TCP connection before the match
#: is refused. Without this check Ray itself waits minutes on an address where nothing
#: listens, printing its own log lines.
HEAD_PROBE_SECONDS = 5.0


#: What an HTTP/2 client sends first (RFC 9113 section 3.4): the preface and an empty
#: SETTINGS frame. Ray's GCS and its Ray Client server are gRPC servers, which answer
#: with a SETTINGS frame of their own.
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_HTTP2_SETTINGS = 0x04


def probe_head(address: str) -> None:
    """Raise :class:`ClusterError` within :data:`HEAD_PROBE_SECONDS` if nothing accepts a
    TCP connection at a ``HOST:PORT`` (or ``ray://HOST:PORT``) address, or if what does
    is not a gRPC server (Ray, given a port where something else listens, retries for
    minutes); other forms (``auto``) are left to Ray. With ``RAY_USE_TLS`` set the gRPC
    check is skipped: a TLS server does not read a plain HTTP/2 preface."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit():
        return
    where = f"cannot connect to the Ray cluster at {address!r}"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=HEAD_PROBE_SECONDS) as connection:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return
            connection.sendall(_HTTP2_PREFACE)
            answer = b""
            while len(answer) < 9:  # one frame header: length (3), type (1), flags (1), stream (4)
                chunk = connection.recv(9 - len(answer))
                if not chunk:
                    break
                answer += chunk
    except socket.timeout:
        answer = b""
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ClusterError(f"{where}: nothing answers at {host}:{port} ({reason})") from None
    if len(answer) < 9 or answer[3] != _HTTP2_SETTINGS:
        raise ClusterError(f"{where}: something listens at {host}:{port}, but it is not a Ray cluster "
                           f"(no gRPC answer within {HEAD_PROBE_SECONDS:g} s)")


def connect(address: str, runtime_env: dict[str, Any] | None = None) -> bool:
    """Connect this process to Ray at ``address`` (``local``: start a private instance).
    Returns True when this call connected (and :func:`disconnect` will end the connection,
    stopping a ``local`` instance); a process already connected keeps its connection."""
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "log_to_driver": False, "include_dashboard": False, "runtime_env": runtime_env,
        "logging_level": logging.WARNING,  # Ray's "connecting to..." chatter is not the referee's output
    }
    if address != LOCAL:
        probe_head(address)
    try:
        if address == LOCAL:
            ray.init(address="local", **options)
        else:
            options.pop("include_dashboard")
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ClusterError(f"cannot connect to the Ray cluster at {address!r}: {first}") from None
    return True


def disconnect() -> None:
    if ray.is_initialized():
        ray.shutdown()


def cluster_cpus() -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _first_line(error: BaseException) -> str:
    """The line of a Ray error that says what happened (its text is a whole report)."""
    for line in str(error).splitlines():
        if line.strip() and ("Error" in line or "error" in line):
            return line.strip()
    return type(error).__name__


def _task_error(error: RayTaskError) -> Exception:
    """The exception raised inside an actor method, as the referee knows it."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, EngineStartError):
        return EngineStartError(str(cause))
    last = str(cause or error).strip().splitlines()
    return RuntimeError(f"a game on the cluster failed: {type(cause or error).__name__}: {last[-1] if last else ''}")


class RayBackend:
    """A :data:`~margo_gtp.match.match_runners.Backend` that plays games on Ray actors.

    ``slots`` is the number of games played at once (default: the cluster's CPUs).
    ``on_replay(game)`` is told of each game re-queued because its actor died.
    """

    def __init__(
        self,
        address: str,
        slots: int | None = None,
        runtime_env: dict[str, Any] | None = None,
        on_replay: Callable[[int], None] | None = None,
        on_checked: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.address = address
        self.slots = slots
        self.runtime_env = runtime_env
        self.on_replay = on_replay
        self.on_checked = on_checked
        self.replayed: list[int] = []
        self.checks: list[dict[str, Any]] = []
        self.slots_used = 0  # game slots of the last match (the cluster's CPUs by default)

    def __call__(
        self,
        config: MatchConfig,
        directory: Path,
        games: Sequence[int],
        commit: Callable[[dict[str, Any], str | None], None],
    ) -> None:
        # Ray's driver prints cluster events (a worker that died, ...) with print(); they go
        # to stderr with the referee's other messages, so that stdout stays the summary.
        with contextlib.redirect_stdout(sys.stderr):
            started_ray = connect(self.address, self.runtime_env)
            try:
                self._play(config, list(games), commit)
            finally:
                if started_ray:
                    disconnect()

    def _play(self, config: MatchConfig, games: list[int], commit: Callable[[dict[str, Any], str | None], None]) -> None:
        slot_class = _slot_class()
        count = min(self.slots or cluster_cpus(), len(games))
        self.slots_used = count
        queue: deque[int] = deque(games)
        checking: dict[Any, Any] = {}   # check future -> actor
        playing: dict[Any, tuple[Any, int]] = {}  # play future -> (actor, game)
        idle: list[Any] = []
        actors: list[Any] = []
        # Actors that die before their start-up check answers, since the last one that
        # answered: a few are a lost node; many in a row mean no actor can start at all
        # (the workers cannot import margo_gtp, say), which must not loop forever.
        stillborn = 0

        def new_actor() -> None:
            actor = slot_class.remote(config)
            actors.append(actor)
            checking[actor.check.remote()] = actor

        for _ in range(count):
            new_actor()
        try:
            while queue or playing:
                while idle and queue:
                    actor, game = idle.pop(), queue.popleft()
                    playing[actor.play.remote(game)] = (actor, game)
                ready, _ = ray.wait([*checking, *playing], num_returns=1, timeout=1.0)
                for future in ready:
                    if future in checking:
                        actor = checking.pop(future)
                        try:
                            report = ray.get(future)
                        except RayTaskError as error:
                            raise _task_error(error) from None
                        except RayActorError as error:
                            stillborn += 1
                            if stillborn > 2 * count:
                                raise ClusterError(f"Ray actors die before they can start: {_first_line(error)}") from None
                            new_actor()  # died before it could say anything: try another
                            continue
                        stillborn = 0
                        self.checks.append(report)
                        if self.on_checked is not None:
                            self.on_checked(report)
                        idle.append(actor)
                        continue
                    actor, game = playing.pop(future)
                    try:
                        record, sgf_text = ray.get(future)
                    except RayTaskError as error:
                        raise _task_error(error) from None
                    except RayActorError:
                        # The worker (or its node) is gone and the game with it: play it again.
                        queue.appendleft(game)
                        self.replayed.append(game)
                        if self.on_replay is not None:
                            self.on_replay(game)
                        new_actor()
                        continue
                    idle.append(actor)
                    commit(record, sgf_text)
                if not ready and not playing and not idle and queue and not checking:
                    raise ClusterError("no Ray actor is left to play the remaining games")
        finally:
            for actor in actors:
                try:
                    ray.kill(actor, no_restart=True)
                except Exception:  # noqa: BLE001 - already dead or the cluster is gone
                    pass
