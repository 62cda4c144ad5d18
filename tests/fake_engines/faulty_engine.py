"""A small MarGo GTP engine for the referee tests: plays seeded random legal moves, and
misbehaves on purpose.

    faulty_engine.py [--fault KIND] [--at N] [--once FILE] [--delay S] [--seed N]
                     [--swap] [--log FILE]

``--fault`` acts at the engine's N-th ``genmove`` (``--at``, default 1, counted over the
process's life; for ``reject`` its N-th ``play``, for ``badsetup`` its N-th
``margo-set_rules``). With ``--once FILE`` the fault happens only while FILE does not
exist (the engine creates it), so a restarted engine behaves. Kinds:

    crash      says so on stderr and exits with code 1 without answering
    hang       never answers
    garbage    writes a line that is not a GTP answer
    malformed  answers "= Z99:9"
    illegal    answers a well-formed vertex that is illegal now
    closeout   closes stdout and keeps running
    resign     answers "= resign"
    pass       answers "= pass" (illegal unless allow_pass is on)
    fail       answers "? I give up"
    slow       sleeps --delay seconds, then plays normally
    reject     answers "? illegal move" to play
    badsetup   answers "? unknown command" to margo-set_rules
    nolist     answers "? unknown command" to list_commands (always)

``--move-delay S`` sleeps S seconds before every genmove answer (slow but healthy).
``--flood`` writes lines to stderr without end, from a thread, while it plays normally
(the referee must drain them, and cap any log they go to).
``--swap`` answers ``swap`` whenever swapping is legal. ``--log FILE`` appends every
command line received (for tests that check what the referee sends).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from pathlib import Path

from margo_gtp.engine import Board, Colour, Move, Rules, RulesError
from margo_gtp.vertex import InvalidVertexError, Point

COMMANDS = [
    "protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
    "clear_board", "komi", "play", "genmove", "time_settings", "time_left", "margo-set_rules",
]


class FaultyEngine:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.rng = random.Random(options.seed)
        self.rules = Rules()
        self.board = Board(self.rules)
        self.genmoves = 0
        self.plays = 0
        self.setups = 0
        self.log = open(options.log, "a", encoding="utf-8") if options.log else None

    def fault_now(self, count: int, kinds: tuple[str, ...]) -> bool:
        if self.options.fault not in kinds or count != self.options.at:
            return False
        if self.options.once:
            marker = Path(self.options.once)
            if marker.exists():
                return False
            marker.write_text("done\n")
        return True

    def start_board(self, rules: Rules) -> tuple[bool, str]:
        """Every setup command ends the same way: these rules, an empty board."""
        self.rules = rules
        self.board = Board(rules)
        return True, ""

    def handle(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name in FIXED_ANSWERS:
            return FIXED_ANSWERS[name]
        if name == "known_command":
            return True, "true" if args and args[0] in COMMANDS else "false"
        if name == "list_commands":
            if self.options.fault == "nolist":
                return False, "unknown command"
            return True, "\n".join(COMMANDS)
        if name == "boardsize":
            try:
                rules = self.rules.replace(size=int(args[0]))
            except (ValueError, RulesError, IndexError):
                return False, "unacceptable size"
            return self.start_board(rules)
        if name == "clear_board":
            return self.start_board(self.rules)
        if name == "komi":
            return self.start_board(self.rules.replace(komi=float(args[0])))
        if name == "margo-set_rules":
            self.setups += 1
            if self.fault_now(self.setups, ("badsetup",)):
                return False, "unknown command"
            try:
                rules = self.rules.with_options(dict(pair.split("=", 1) for pair in args))
            except (RulesError, ValueError):
                return False, "syntax error"
            return self.start_board(rules)
        if name == "play":
            self.plays += 1
            if self.fault_now(self.plays, ("reject",)):
                return False, "illegal move"
            try:
                self.board.push(Move.from_gtp(args[1], self.board.size), Colour.parse(args[0]))
            except (InvalidVertexError, ValueError, IndexError):
                return False, "illegal move"
            return True, ""
        if name == "genmove":
            return self.genmove(Colour.parse(args[0]))
        return False, "unknown command"

    def genmove(self, colour: Colour) -> tuple[bool, str]:
        self.genmoves += 1
        time.sleep(self.options.move_delay)
        fault = self.options.fault if self.fault_now(self.genmoves, FAULTS) else None
        if fault == "crash":
            sys.stderr.write(f"faulty: crashing on purpose at genmove {self.genmoves}\n")
            sys.stderr.flush()
            os._exit(1)
        if fault == "hang":
            time.sleep(3600)
        if fault == "garbage":
            sys.stdout.write("I think I will play tengen\n\n")
            sys.stdout.flush()
            return True, None  # type: ignore[return-value]  # nothing more to write
        if fault in FAULT_ANSWERS:
            return FAULT_ANSWERS[fault]
        if fault == "illegal":
            legal = set(self.board.legal_moves(colour))
            for level in range(self.board.size):
                for y in range(self.board.size - level):
                    for x in range(self.board.size - level):
                        move = Move(Point(x, y, level))
                        if move not in legal:
                            return True, move.gtp()
        if fault == "closeout":
            sys.stdout.flush()
            os.close(1)
            time.sleep(3600)
        if fault == "slow":
            time.sleep(self.options.delay)
        moves = self.board.legal_moves(colour)
        if not moves:
            return True, "pass"
        if self.options.swap and Move.SWAP in moves:
            move = Move.SWAP
        else:
            placements = [m for m in moves if m.point is not None] or moves
            move = self.rng.choice(placements)
        self.board.push(move, colour)
        return True, move.gtp()


FAULTS = ("crash", "hang", "garbage", "malformed", "illegal", "closeout", "resign", "pass", "fail", "slow")
#: Commands whose answer never changes (the time commands are accepted and ignored).
FIXED_ANSWERS = {"protocol_version": (True, "2"), "name": (True, "faulty"), "version": (True, "1"),
                 "time_settings": (True, ""), "time_left": (True, "")}
#: Faults that are just a canned answer to genmove.
FAULT_ANSWERS = {"malformed": (True, "Z99:9"), "resign": (True, "resign"), "pass": (True, "pass"),
                 "fail": (False, "I give up")}


def flood_stderr() -> None:
    """Stderr without end; only a full pipe (a reader that stopped draining) slows it."""
    line = b"faulty: flooding stderr " + b"x" * 1000 + b"\n"
    try:
        while True:
            os.write(2, line)
    except OSError:
        pass  # the referee closed the pipe: it is done with this engine


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", default=None)
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--once", default=None)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--move-delay", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--swap", action="store_true")
    parser.add_argument("--log", default=None)
    parser.add_argument("--flood", action="store_true")
    engine = FaultyEngine(parser.parse_args())
    if engine.options.flood:
        threading.Thread(target=flood_stderr, daemon=True).start()
    for raw in sys.stdin:
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        command_id = ""
        if words[0].isdigit():
            command_id, words = words[0], words[1:]
        if engine.log is not None:
            engine.log.write(" ".join(words) + "\n")
            engine.log.flush()
        name, args = words[0], words[1:]
        if name == "quit":
            sys.stdout.write(f"={command_id}\n\n")
            sys.stdout.flush()
            return
        ok, text = engine.handle(name, args)
        if text is None:
            continue
        sys.stdout.write(("=" if ok else "?") + command_id + (" " + text if text else "") + "\n\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
