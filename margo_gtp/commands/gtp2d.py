"""``margo-gtp-2d``: the projected 2-D GTP proxy, so Go tools (GoGui, gogui-twogtp) drive MarGo.

Reading guide. The proxy speaks plain 2-D GTP on stdin/stdout and native 3-D GTP
(``gtp.md``) to an engine subprocess (default: our own ``margo-gtp``). The projection
(``gtp.md`` section 5, :mod:`margo_gtp.vertex`): the level-``l`` point ``(x, y)`` (0-based)
is the Go point ``(2x+l, 2y+l)`` of a ``(2N-1)x(2N-1)`` board. A 2-D point is a *column*
of 3-D points that bury one another; a 2-D move names the lowest empty point of its
column (:func:`lift`), and a 2-D point whose column holds no point at all (coordinates of
different parity) can never be played.

Commands the proxy answers or translates (everything else goes to the engine unchanged):

    boardsize S            odd S in 3..25 -> engine ``boardsize (S+1)/2``; else ``unacceptable size``
    play C V               V lifted to the lowest empty point of its column; ``illegal move`` when
                           the column is full or empty of points. ``play C pass`` at game end: no-op
    genmove C, reg_genmove the engine's 3-D answer projected; at game end ``pass`` without asking,
                           so 2-D referees see two passes and ask ``final_score``
    final_status_list S    the engine's vertices projected (each 2-D point once)
    komi K                 accepted only when K is the engine's rule komi; else ``komi is fixed at K0``
    gogui-rules_*          GoGui ruler commands (game_id, board_size, board, legal_moves,
                           side_to_move, final_result, captured_count, board_gfx)
    gogui-analyze_commands the proxy's own analyze menu (top-view graphics and text commands)
    margo-gfx_winrates C, margo-gfx_best_line C, margo-gfx_ownership
                           the engine's analysis as GoGui gfx (LABEL, VAR, INFLUENCE) on the
                           2-D board (:mod:`margo_gtp.gtp2d.projected_analysis`)

Komi is one of MarGo's rules (``--engine "margo-gtp --rule komi=K"``, or ``margo-set_rules``).
The proxy does not let a Go tool change it with ``komi``: GoGui starts a second copy of
the same command line as its ruler and never sends the ruler ``komi``, so a komi taken
from GoGui (6.5 by default) would make the player and the ruler score differently.

``--white-engine CMD`` puts a second engine behind the proxy (:mod:`margo_gtp.gtp2d.engine_pair`):
``genmove W`` is then answered by it, so GoGui can show two engines playing each other
with the proxy as ruler.

State (board, side to move, whether the game is over) is always read back from the engine
with ``margo-board`` and ``margo-legal_moves``; the proxy keeps none, so it can never
drift from the engine. Malformed input gets the canonical GTP errors and never stops the
proxy; if the engine process ends, every command that needs it answers
``? engine is not running`` and ``quit`` still works.

Not representable in 2-D: the swap move (passed through as the word ``swap``, both in a
genmove answer and in ``play COLOUR swap``, so two proxies can relay it to each other) and
``margo-analyze`` (a streaming command; not offered through the proxy).

Modules: this one holds the command line (:func:`main`);
:mod:`margo_gtp.gtp2d.projection` the pure projection maths and the engine's board view;
:mod:`margo_gtp.gtp2d.projected_session` the 2-D handlers and the engine link.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path
from typing import Sequence

import margo_gtp
from margo_gtp.client import find_program
from margo_gtp.protocol.gtp import run_gtp_session
from margo_gtp.gtp2d.engine_pair import EnginePair
from margo_gtp.gtp2d.projected_session import DEFAULT_TIMEOUT, NativeEngine, ProjectedSession, build_engine

#: Characters --hole may not be: GoGui's board parser reads X/O as stones, '.' is an empty point.
RESERVED_BOARD_CHARS = frozenset("XOxo")


def default_engine_command() -> list[str]:
    """Our own ``margo-gtp``: next to the running Python (same venv) or on PATH."""
    beside = Path(sys.executable).parent / "margo-gtp"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("margo-gtp")
    return [found] if found else ["margo-gtp"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="margo-gtp-2d",
        description="Projected 2-D GTP for MarGo: Go tools (GoGui, gogui-twogtp) talk to a native "
        "MarGo GTP engine through a (2N-1)x(2N-1) Go board.",
    )
    parser.add_argument(
        "--engine",
        metavar="CMD",
        help="native MarGo GTP engine command line (default: margo-gtp from this installation, "
        "which plays its strongest player; e.g. \"margo-gtp --level 3\" for a weaker one)",
    )
    parser.add_argument(
        "--white-engine",
        metavar="CMD",
        help="a second engine that plays White (genmove w); --engine then plays Black. "
        "Both get every move, and the first answers the rest",
    )
    parser.add_argument(
        "--hole",
        default="?",
        metavar="CHAR",
        help="character gogui-rules_board writes for 2-D points that never hold a ball "
        "(default '?', a removed point for GoGui >= 1.6.0; use '.' for older GoGui)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"seconds to wait for an engine answer, except to genmove/reg_genmove/margo-analyze_snapshot "
        f"(default {DEFAULT_TIMEOUT:g}); an engine that does not answer in time is stopped",
    )
    parser.add_argument("--version", action="version", version=f"margo-gtp-2d {margo_gtp.__version__}",
                        help="print the version and exit")
    options = parser.parse_args(argv)
    if len(options.hole) != 1 or not options.hole.isprintable() or options.hole.isspace():
        parser.error("--hole takes one visible character")
    if options.hole in RESERVED_BOARD_CHARS:
        parser.error(f"--hole {options.hole!r} would draw the holes as stones: use '?' or '.'")
    if not options.timeout > 0 or options.timeout == float("inf"):  # NaN too
        parser.error("--timeout must be a positive number of seconds")
    commands = []
    for flag, text in (("--engine", options.engine), ("--white-engine", options.white_engine)):
        if text is None and commands:
            break  # no --white-engine: one engine
        try:
            command = shlex.split(text) if text is not None else default_engine_command()
        except ValueError as error:
            parser.error(f"{flag}: {error}")
        if not command:
            parser.error(f"{flag}: empty command")
        commands.append(find_program(command))  # margo-gtp beside this Python: a venv that is not activated
    started: list[NativeEngine] = []
    for command in commands:
        try:
            started.append(NativeEngine(command, timeout=options.timeout, report=sys.stderr))
        except OSError as error:
            print(f"margo-gtp-2d: cannot start engine {command!r}: {error}", file=sys.stderr)
            for running in started:
                running.close()
            return 2
    engine: NativeEngine | EnginePair = started[0] if len(started) == 1 else EnginePair(*started)
    # When the check fails, keep serving: a GUI gets '? engine is not running' answers
    # instead of a dead program, and the reason is on stderr (GoGui shows it).
    engine.check()
    session = ProjectedSession(engine, hole=options.hole)
    try:
        run_gtp_session(build_engine(session), sys.stdin, sys.stdout)
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        engine.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
