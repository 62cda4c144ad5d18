"""The Ray backend of margo-match/margo-tournament ``--cluster ADDRESS``.

The Ray work itself (actors, results as they finish, a dead actor replaced and its job
run again) is the worker pool's Ray kind, :func:`margo_gtp.workers.ray_as_done`, the one
place that imports Ray; this module says what a game slot is and what the referee makes
of the pool's errors. Importing it checks that Ray is there (ImportError otherwise); the
referee imports it only when ``--cluster`` is given, so Ray stays an optional extra
(``margo-gtp[cluster]``) and a local match never loads it.

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
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from margo_gtp import workers
from margo_gtp.game.faults import EngineFault, EngineStartError

from margo_gtp.match.cluster_options import LOCAL, parse_runtime_env  # noqa: F401 - parse_runtime_env re-exported
from margo_gtp.match.game_runner import GameRunner
from margo_gtp.match.match_config import MatchConfig

# Loading Ray now (through the pool, the one module that imports it) makes a missing
# cluster extra an ImportError of this import, which margo-match turns into one line
# before any game, rather than a failure once the match has started.
workers.ray_module()


class ClusterError(RuntimeError):
    """Raised when the Ray cluster cannot be reached or used; the message says why"""


class GameSlot:
    """One game at a time on a Ray worker: the two engines and a :class:`GameRunner`.

    A plain class, made a Ray actor class by the pool (:func:`margo_gtp.workers.ray_as_done`)
    when a match needs it (the start-up check can also be run in-process)."""

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
    if address != LOCAL:
        probe_head(address)
    try:
        return workers.connect_ray(address, runtime_env)
    except (ConnectionError, RuntimeError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ClusterError(f"cannot connect to the Ray cluster at {address!r}: {first}") from None


def disconnect() -> None:
    workers.disconnect_ray()


def cluster_cpus() -> int:
    return workers.ray_cpus()


def _task_error(cause: BaseException) -> Exception:
    """The exception raised inside an actor method (``cause``), as the referee knows it."""
    if isinstance(cause, EngineStartError):
        return EngineStartError(str(cause))
    last = str(cause).strip().splitlines()
    return RuntimeError(f"a game on the cluster failed: {type(cause).__name__}: {last[-1] if last else ''}")


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
        count = min(self.slots or cluster_cpus(), len(games))
        self.slots_used = count
        finished = workers.ray_as_done(GameSlot, (config,), "play", [(game,) for game in games], count,
                                       start="check", on_started=self._checked, on_retry=self._replayed)
        try:
            with contextlib.closing(finished):  # leaving early (a decided SPRT, Ctrl-C) kills the actors now
                for record, sgf_text in finished:
                    commit(record, sgf_text)
        except workers.RemoteJobError as error:
            raise _task_error(error.cause) from None
        except workers.WorkerStartError as error:
            raise ClusterError(str(error)) from None
        except workers.WorkersEnded:
            raise ClusterError("no Ray actor is left to play the remaining games") from None

    def _checked(self, report: dict[str, Any]) -> None:
        self.checks.append(report)
        if self.on_checked is not None:
            self.on_checked(report)

    def _replayed(self, job: tuple) -> None:
        (game,) = job
        self.replayed.append(game)
        if self.on_replay is not None:
            self.on_replay(game)
