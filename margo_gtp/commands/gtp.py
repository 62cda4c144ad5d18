"""``margo-gtp``: the GTP engine on stdin/stdout.

This is the composition root (style.md item 18): it turns options into a player, rules
and a log, builds player -> session -> engine with
:func:`margo_gtp.protocol.session.make_gtp_engine`, and runs the loop. No game logic here.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from pathlib import Path
from typing import Annotated, Optional

import typer

from margo_gtp.console import USAGE_ERROR, pointed_to_players, run_app, version_callback
from margo_gtp.files import LOG_CAP_BYTES, CappedLog
from margo_gtp.players.levels import MAX_LEVEL, MIN_LEVEL

app = typer.Typer(add_completion=False, help=__doc__)


def _list_players(value: bool) -> None:
    if value:
        from margo_gtp.players.catalogue import catalogue

        typer.echo(catalogue(), nl=False)
        raise typer.Exit()


_HELP = """Run the MarGo GTP engine on stdin/stdout (GTP 2 with a 3-D vertex, e.g. D4:2).

Type GTP commands, one per line (try: list_commands, play w d4, genmove b, showboard, quit). EOF ends the engine like quit.

Without --player or --level it plays its strongest player (margo-gtp --list-players says which).

Examples:

  margo-gtp

  margo-gtp --level 3

  margo-gtp --size 7 --rule swap=on --rule komi=0.5

  margo-gtp --player random --seed 42 --log wire.log

  margo-gtp --player mcts:seconds=1 --ponder
"""


@app.command(help=_HELP)
def gtp(
    size: Annotated[
        Optional[int],
        typer.Option("--size", help="Board size N (2..19; default 9). Example: --size 7", show_default=False),
    ] = None,
    rule: Annotated[
        Optional[list[str]],
        typer.Option(
            "--rule",
            metavar="K=V",
            help="Rule option of rules.md section 9, repeatable. Example: --rule ko_rule=simple --rule komi=0.5",
            show_default=False,
        ),
    ] = None,
    player: Annotated[
        Optional[str],
        typer.Option(
            "--player",
            metavar="SPEC",
            help="Move generator for genmove: name[:key=value,...] (margo-gtp --list-players lists them). "
            "Default: strongest (the net player where ONNX Runtime is installed and a network ships for "
            "the size, else mcts; 1 s a move, or the controller's clock). Example: --player random:seed=3",
            show_default=False,
        ),
    ] = None,
    level: Annotated[
        Optional[str],
        typer.Option(
            "--level",
            metavar="N",
            help=f"Play at strength level N, {MIN_LEVEL} (a beginner) to {MAX_LEVEL} (the strongest, the default); "
            "instead of --player. Example: --level 3",
            show_default=False,
        ),
    ] = None,
    list_players: Annotated[
        bool,
        typer.Option("--list-players", help="List every player with its options and the levels, then exit.",
                     is_eager=True, callback=_list_players),
    ] = False,
    seed: Annotated[
        Optional[int],
        typer.Option("--seed", help="Seed for the player's random numbers (reproducible games). Example: --seed 42"),
    ] = None,
    ponder: Annotated[
        bool,
        typer.Option(
            "--ponder",
            help="Think on the opponent's time: search in the background between commands, "
            "stopped by the next command (MCTS players only; games are then not reproducible from a seed).",
        ),
    ] = False,
    log: Annotated[
        Optional[Path],
        typer.Option(
            "--log",
            metavar="FILE",
            help="Append a wire log: every line in ('>> ') and every response line out ('<< '), "
            f"up to {LOG_CAP_BYTES} bytes, then one line '[log capped at {LOG_CAP_BYTES} bytes]'. Example: --log wire.log",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and the rules core in use, then exit.",
                     is_eager=True, callback=version_callback("margo-gtp")),
    ] = False,
) -> None:
    from margo_gtp.engine import Rules, RulesError
    from margo_gtp.engine.rules import RulePairError, merge_option_flags, parse_rule_pairs
    from margo_gtp.players import PlayerSpecError, make_player
    from margo_gtp.players.levels import STRONGEST, LevelError, level_spec, read_level
    from margo_gtp.protocol.analysis import install as install_analysis
    from margo_gtp.protocol.gtp import GtpOutputClosed, run_gtp_session
    from margo_gtp.protocol.ponder import make_ponderer
    from margo_gtp.protocol.session import make_gtp_engine
    from margo_gtp import textfile

    try:
        # --size and --rule size=N must agree (rather than one silently winning)
        options = merge_option_flags(parse_rule_pairs(rule or []), {"size": ("--size", size)})
        rules = Rules().with_options(options)
    except RulePairError as error:  # the message names --rule itself: no "Invalid value for" prefix
        raise USAGE_ERROR(str(error)) from None
    except RulesError as error:
        raise typer.BadParameter(str(error), param_hint="--size/--rule") from None
    if player is not None and level is not None:
        raise USAGE_ERROR("give --player or --level, not both")
    if level is not None:
        try:
            player = level_spec(read_level(level))
        except LevelError as error:
            raise pointed_to_players(typer.BadParameter(str(error), param_hint="--level")) from None
    try:
        the_player = make_player(player or STRONGEST, seed)
    except PlayerSpecError as error:
        raise pointed_to_players(typer.BadParameter(str(error), param_hint="--player")) from None
    engine = make_gtp_engine(the_player, rules, seed=seed)
    # margo-analyze for every player (gtp.md section 4): a player that does not search
    # gets a private MCTS searcher; playout estimates of final_score come with MCTS only.
    install_analysis(engine, engine.session)
    src = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    dst = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="replace", newline="\n")
    log_file: CappedLog | None = None
    if log is not None:
        try:
            # a FIFO without a reader: an error, not a hang; capped: the controller decides how much is logged
            log_file = CappedLog(textfile.open_for_writing(log, append=True))
        except OSError as error:
            raise typer.BadParameter(f"cannot open {str(log)!r} for appending: {error.strerror or error}", param_hint="--log") from None
    exit_code = None
    try:
        idle = make_ponderer(engine.session) if ponder else None
        run_gtp_session(engine, src, dst, log=_wire_logger(log_file, log) if log_file else None, idle=idle)
    except KeyboardInterrupt:
        pass
    except GtpOutputClosed as closed:
        exit_code = 0 if isinstance(closed.__cause__, BrokenPipeError) else 1  # a closed pipe: the controller left
        if exit_code:
            sys.stderr.write(f"margo-gtp: cannot write the answers: {closed.__cause__.strerror or closed}\n")
    finally:
        if log_file is not None:
            with contextlib.suppress(OSError):
                log_file.close()
    if exit_code is None and any(thread.name == "gtp-reader" and thread.is_alive() for thread in threading.enumerate()):
        # A stream (margo-analyze) started the reader thread, still blocked on stdin after
        # quit: the interpreter's shutdown would abort on it (SIGABRT), so leave as below.
        exit_code = 0
    if exit_code is not None:
        # The output is gone: leave without the interpreter's own flush of stdout (one more
        # error) and without waiting on a reader thread still blocked on stdin (which
        # aborts the interpreter at shutdown).
        sys.stderr.flush()
        os._exit(exit_code)


def _wire_logger(log_file: CappedLog, path: Path):  # noqa: ANN202
    def log(direction: str, text: str) -> None:
        if log_file.closed:
            return
        try:
            for line in text.rstrip("\n").split("\n") if text.strip("\n") else [""]:
                log_file.write(f"{direction} {line}\n")
            log_file.flush()
        except OSError as error:  # the log is a help, never a reason to lose the game
            sys.stderr.write(f"margo-gtp: --log: cannot write {str(path)!r} ({error.strerror or error}); "
                             "logging stops, the session goes on\n")
            with contextlib.suppress(OSError):
                log_file.close()

    return log


def main() -> None:
    """Console script ``margo-gtp``."""
    run_app(app, "margo-gtp")

