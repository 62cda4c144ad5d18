"""What every console script shares: the ``--version`` line and option, and :func:`run_app`,
which runs a typer app with a bad command line said in one line (exit 2) and its help rich on
a terminal, plain through a pipe. One module per program lives in :mod:`margo_gtp.commands`;
``scripts/bench`` (:mod:`margo_gtp.speed_figures`) uses it too.
"""

from __future__ import annotations

import os
import shutil
import sys

import typer


def version_line(prog: str) -> str:
    """What ``PROG --version`` prints: ``'<prog> <version>'``; for ``margo-gtp`` also the
    rules core in use (``margo_gtp.engine.core_name()`` when the engine has a native core
    to choose, else ``python``)."""
    import margo_gtp

    line = f"{prog} {margo_gtp.__version__}"
    if prog == "margo-gtp":
        import margo_gtp.engine as engine

        core_name = getattr(engine, "core_name", None)
        line += f" (rules core: {core_name() if callable(core_name) else 'python'})"
    return line


def version_callback(prog: str):  # noqa: ANN201 - a typer callback
    """An eager ``--version`` option callback for a typer command: print, exit 0."""

    def callback(value: bool) -> None:
        if value:
            typer.echo(version_line(prog))
            raise typer.Exit()

    return callback


# typer raises the usage errors of the click it carries: found from its public BadParameter.
USAGE_ERROR = next(kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "UsageError")


#: Where a refused player, option or level is listed (the pointer of its error line).
LIST_PLAYERS = "margo-gtp --list-players lists the players, their options and the levels"


def pointed_to_players(error: Exception) -> Exception:
    """A usage error whose line points to ``--list-players`` rather than ``--help``
    (:func:`run_app` reads ``pointer``): ``margo-gtp`` and ``margo-analysis`` ``--player``."""
    error.pointer = LIST_PLAYERS  # type: ignore[attr-defined]
    return error


def help_markup() -> str | None:
    """typer's rich help draws boxes sized to the terminal; through a pipe (``--help | less``)
    rich assumes 80 columns and the long option names leave the descriptions about 15, so
    there click's plain two-column help is used instead (``TERMINAL_WIDTH`` keeps rich)."""
    return "rich" if sys.stdout.isatty() or os.environ.get("TERMINAL_WIDTH") else None


def run_app(app: typer.Typer, program: str, args: list[str] | None = None) -> None:
    """Run a console script's typer ``app`` with a bad command line reported in one line,
    ``PROGRAM: MESSAGE (PROGRAM --help lists the options)``, and exit code 2, as the tools
    of this project report every other bad input (typer would draw a boxed panel). Its help
    is rich on a terminal and plain through a pipe (:func:`help_markup`), for every console
    script alike."""
    app.rich_markup_mode = help_markup()
    try:
        # Plain help as wide as COLUMNS says (click would stop at 80 columns).
        code = app(args=args, standalone_mode=False, prog_name=program,
                   max_content_width=shutil.get_terminal_size().columns)
    except USAGE_ERROR as error:  # a bad value, a missing argument, an unknown option
        pointer = getattr(error, "pointer", None) or f"{program} --help lists the options"
        sys.stderr.write(f"{program}: {error.format_message()} ({pointer})\n")
        sys.exit(2)
    except typer.Abort:  # Ctrl-C while typer itself was reading
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
