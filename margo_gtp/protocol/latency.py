"""GTP round-trip latency over a pipe, for ``scripts/bench``.

:func:`measure_roundtrips` starts an engine process, sets up a fixed mid-game 9x9
position with ``margo-setup``, and times ``n`` round trips (command written and flushed
-> empty line of the response read) of each of ``name``, ``play`` and
``margo-legal_moves``. Each timed ``play`` is a legal move that is taken back by an
untimed ``undo``, so every ``play`` sees the same position.

What it measures: wall-clock time through the OS pipe, the engine's line handling and
the command itself. What it does not: engine start-up, or anything under a GUI.
"""

from __future__ import annotations

import subprocess
import time
from typing import IO

from margo_gtp.machine import percentile

__all__ = ["MIDGAME_SETUP", "measure_roundtrips"]

COMMANDS = ("name", "play", "margo-legal_moves")


def _midgame_setup() -> str:
    """A 9x9 middle game: a 5x5 block of two-column stripes (each stripe touches empty
    points, so nothing is dead), two balls on level 2 and one on level 3."""
    pairs: list[str] = []
    columns = "ABCDEFGHJ"
    for x in range(2, 7):
        for y in range(2, 7):
            pairs += ["w" if (x // 2) % 2 else "b", f"{columns[x]}{y + 1}:1"]
    pairs += ["w", "C3:2", "w", "C4:2", "b", "E5:2", "b", "E6:2", "w", "D5:2", "w", "D6:2", "b", "D5:3"]
    return "margo-setup " + " ".join(pairs)


#: The ``margo-setup`` line that builds the measured position.
MIDGAME_SETUP = _midgame_setup()


class _Pipe:
    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[str] = self.process.stdin
        self.stdout: IO[str] = self.process.stdout

    def ask(self, command: str) -> str:
        self.stdin.write(command + "\n")
        self.stdin.flush()
        lines = []
        while True:
            line = self.stdout.readline()
            if line == "":
                raise RuntimeError(f"engine closed the pipe after {command!r}")
            if line == "\n":
                break
            lines.append(line.rstrip("\n"))
        response = "\n".join(lines)
        if not response.startswith("="):
            raise RuntimeError(f"engine refused {command!r}: {response!r}")
        return response

    def close(self) -> None:
        try:
            self.stdin.write("quit\n")
            self.stdin.flush()
            self.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def measure_roundtrips(argv: list[str], n: int) -> dict:
    """Time ``n`` round trips each of ``name``, ``play`` and ``margo-legal_moves``
    against the engine ``argv`` (e.g. ``[".venv/bin/margo-gtp"]``).

    Returns ``{"n": n, "position": MIDGAME_SETUP, "commands": {command: {"p50_ms",
    "p95_ms", "mean_ms", "max_ms"}}}``. Raises RuntimeError if the engine refuses a
    command or exits.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    pipe = _Pipe(argv)
    try:
        pipe.ask("boardsize 9")
        pipe.ask(MIDGAME_SETUP)
        to_move = pipe.ask("margo-to_move")[2:]
        colour = "w" if to_move == "W" else "b"
        legal = pipe.ask("margo-legal_moves")[2:].split()
        if not legal:
            raise RuntimeError("the measured position has no legal move")
        samples: dict[str, list[float]] = {command: [] for command in COMMANDS}
        for i in range(n):
            for command in COMMANDS:
                line = f"play {colour} {legal[i % len(legal)]}" if command == "play" else command
                start = time.perf_counter()
                pipe.ask(line)
                samples[command].append((time.perf_counter() - start) * 1000.0)
                if command == "play":
                    pipe.ask("undo")
    finally:
        pipe.close()
    return {
        "n": n,
        "position": MIDGAME_SETUP,
        "commands": {
            command: {
                "p50_ms": percentile(values, 0.50),
                "p95_ms": percentile(values, 0.95),
                "mean_ms": sum(values) / len(values),
                "max_ms": max(values),
            }
            for command, values in samples.items()
        },
    }


if __name__ == "__main__":  # pragma: no cover - manual use: python -m margo_gtp.protocol.latency
    import json
    import sys

    print(json.dumps(measure_roundtrips(sys.argv[1:] or ["margo-gtp"], 1000), indent=2))
