"""A GTP pass-through that holds games back, so process tests wait on events, not on luck.

    gated.py GATE_DIR OPEN -- ENGINE_COMMAND...

Runs ENGINE_COMMAND and relays GTP both ways. Each ``clear_board`` it relays starts a game,
numbered across *every* gated process sharing GATE_DIR (a file ``GATE_DIR/game-K`` is
created exclusively for the K-th). While ``GATE_DIR/closed`` exists, a ``genmove`` in a
game numbered above OPEN is held: the proxy writes ``GATE_DIR/held-PID`` and waits until
``closed`` is removed (or the referee goes away: EOF on stdin ends the proxy and its
engine). So exactly OPEN games can finish while the gate is closed.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path


def claim_game_number(gate: Path) -> int:
    number = 1
    while True:
        try:
            os.close(os.open(gate / f"game-{number}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return number
        except FileExistsError:
            number += 1


def wait_while_closed(gate: Path) -> None:
    held = gate / f"held-{os.getpid()}"
    held.touch()
    try:
        while (gate / "closed").exists():
            readable, _, _ = select.select([sys.stdin], [], [], 0.05)
            if readable and not sys.stdin.buffer.peek(1):
                raise SystemExit(0)  # the referee is gone
    finally:
        held.unlink(missing_ok=True)


def main() -> None:
    gate, open_games = Path(sys.argv[1]), int(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1 :]
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None
    game = 0
    try:
        for line in sys.stdin:
            words = line.split()
            if words and words[0].isdigit():  # a command id
                words = words[1:]
            if words[:1] == ["clear_board"]:
                game = claim_game_number(gate)
            if words[:1] == ["genmove"] and game > open_games:
                wait_while_closed(gate)
            engine.stdin.write(line)
            engine.stdin.flush()
            while True:  # a GTP answer ends with an empty line
                answer = engine.stdout.readline()
                if not answer:
                    return
                sys.stdout.write(answer)
                if answer in ("\n", "\r\n"):
                    sys.stdout.flush()
                    break
            if words[:1] == ["quit"]:
                return
    finally:
        engine.kill()
        engine.wait()


if __name__ == "__main__":
    sys.stdin = os.fdopen(sys.stdin.fileno(), "r", buffering=1)
    main()
