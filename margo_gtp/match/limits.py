"""Upper bounds on what a margo-match command line or a tournament file may ask for.

Each bound stops an input that would otherwise exhaust something before the first game,
or crash in the middle of the match, and each is far above any real use:

``MAX_GAMES`` (100,000 games per match or pairing)
    The referee lists the game numbers it still has to play and keeps every finished
    game's record (its moves included) in memory for the summary; ``--games 1000000000``
    ate memory before anything was played. 100,000 records are a few hundred megabytes at
    most; a longer test is several matches (``--out`` folders).
``MAX_TIMEOUT_SECONDS`` (one week)
    ``--move-timeout 3e6`` crashed with OverflowError (a ``poll()`` takes milliseconds as a
    C ``int``, about 24.8 days). The client now takes a timeout of any size, but a limit
    of more than a week is a typo rather than a wish: ``--move-timeout 0`` is the way to
    say "no limit", and the bound keeps the two spellings apart.
``local_parallel_cap()`` (4 games per CPU of this machine)
    Each local game is a worker process with two engine processes. ``--parallel 200`` on
    a 2-CPU machine ran into the process limit and printed a traceback per worker; more
    games than about one per CPU only slow each other down.
``MAX_ENGINES`` (100 engines in a tournament)
    A round robin of N engines is N(N-1)/2 pairings, each a folder; a configuration of
    20,000 engines (a 1 MB file) would ask for 200 million.
``MAX_CLUSTER_SLOTS`` (4,096 Ray game slots)
    On a cluster the number of slots is bounded by the cluster's CPUs anyway; this only
    stops a typo from asking Ray for a million actors.
"""

from __future__ import annotations

import os
from collections.abc import Callable

MAX_GAMES = 100_000
MAX_TIMEOUT_SECONDS = 7 * 24 * 3600
GAMES_PER_CPU = 4
MAX_CLUSTER_SLOTS = 4096
MAX_ENGINES = 100


def local_parallel_cap() -> int:
    """The most games played at once on this machine: :data:`GAMES_PER_CPU` per CPU."""
    return GAMES_PER_CPU * (os.cpu_count() or 1)


def check_bounds(
    *,
    games: int,
    move_timeout: float,
    command_timeout: float,
    parallel: int | None,
    on_cluster: bool,
    spelled: Callable[[str], str],
) -> None:
    """ValueError naming the first value above its bound (``spelled(key)`` names the option
    as the user wrote it: ``--move-timeout`` or ``'move_timeout'``). Lower bounds are
    checked elsewhere (:func:`margo_gtp.match.match_config.check_limits`)."""
    if games > MAX_GAMES:
        raise ValueError(f"{spelled('games')} must be at most {MAX_GAMES} (play a longer test as several matches): {games}")
    if move_timeout > MAX_TIMEOUT_SECONDS:
        raise ValueError(f"{spelled('move_timeout')} must be at most {MAX_TIMEOUT_SECONDS} seconds "
                         f"(a week; 0 means no limit): {move_timeout:g}")
    if command_timeout > MAX_TIMEOUT_SECONDS:
        raise ValueError(f"{spelled('command_timeout')} must be at most {MAX_TIMEOUT_SECONDS} seconds (a week): {command_timeout:g}")
    if parallel is None:
        return
    if on_cluster and parallel > MAX_CLUSTER_SLOTS:
        raise ValueError(f"{spelled('parallel')} must be at most {MAX_CLUSTER_SLOTS} Ray game slots: {parallel}")
    cap = local_parallel_cap()
    if not on_cluster and parallel > cap:
        raise ValueError(f"{spelled('parallel')} must be at most {cap} on this machine "
                         f"({GAMES_PER_CPU} games per CPU; each game runs two engine processes): {parallel}")
