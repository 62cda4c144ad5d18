"""``margo-analysis``: the JSON analysis engine (KataGo's analysis engine, in MarGo vertices).

Reads one JSON query a line on stdin and writes one JSON response a line on stdout per
turn asked for, or one ``{"id": ..., "error": "..."}`` line for a bad query; the engine
keeps serving until the end of input. The protocol is
:mod:`margo_gtp.analysis.analysis_json`, the search behind it
:mod:`margo_gtp.analysis.game_analysis` (docs/review.md has the fields).
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from margo_gtp.console import pointed_to_players, run_app, version_callback
from margo_gtp.machine import available_cores

app = typer.Typer(add_completion=False)


@app.command()
def analysis(
    threads: Annotated[Optional[str], typer.Option("--threads", metavar="N", show_default=False,
                                                   help="positions searched at once, 1..256 (processes; default: "
                                                        "every core); with 1, responses come in query order")] = None,
    player: Annotated[Optional[str], typer.Option("--player", metavar="SPEC", show_default=False,
                                                  help="the search: a player spec with a search, e.g. strongest, "
                                                       "net or mcts:playouts=800 (margo-gtp --list-players; "
                                                       "default: strongest, the net where it plays, else mcts; "
                                                       "mcts: a fresh mcts seeded per turn)")] = None,
    version: Annotated[bool, typer.Option("--version", callback=version_callback("margo-analysis"), is_eager=True,
                                          help="print the version and exit")] = False,
) -> int:
    """JSON analysis engine: one query a line on stdin, responses on stdout (docs/review.md)."""
    from margo_gtp.options import OptionError, read_integer
    from margo_gtp.analysis.analysis_json import bounded_lines, serve
    from margo_gtp.analysis.game_analysis import DEFAULT_PLAYER, searching_player
    from margo_gtp.players import PlayerSpecError

    try:
        processes = available_cores() if threads is None else read_integer(threads, "--threads", minimum=1, maximum=256)
    except OptionError as error:
        raise typer.BadParameter(str(error)) from None
    spec = DEFAULT_PLAYER if player is None else player
    try:
        searching_player(spec)  # here, once: a bad spec or weights file is one line before any query
    except PlayerSpecError as error:
        raise pointed_to_players(typer.BadParameter(str(error), param_hint="--player")) from None

    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    try:
        answered = serve(bounded_lines(sys.stdin), write, parallel=processes, player=spec)
    except KeyboardInterrupt:
        return 130
    if not answered:  # the reader went away: the searches were stopped; leave without a word
        _silence_stdout()
    return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of a broken pipe says
    nothing on stderr (the Python documentation's advice for SIGPIPE)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main() -> None:
    """Console script ``margo-analysis``."""
    run_app(app, "margo-analysis")
