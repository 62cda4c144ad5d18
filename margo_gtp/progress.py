"""The one progress bar of the command-line tools (a ``rich`` bar, on the ground floor).

Every tool that shows progress (margo-match's score and its opening-book check,
margo-review, ``scripts/net-selfplay``, ``scripts/train-patterns``) builds it here, so the
bars look alike: a label, the bar, the count done of the total, the time elapsed and the
time left. Each part but the bar can be left out or, for the count, worded by a template.
``rich`` is imported when a bar is built, not when this module is, so a tool that shows
no bar does not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress


def progress_bar(
    label: str = "{task.description}",
    *,
    counts: bool | str = True,
    elapsed: bool = True,
    remaining: bool = True,
    console: Any = None,
    enabled: bool | None = None,
    transient: bool = True,
) -> "Progress":
    """A ``rich.progress.Progress`` (use it as a context manager, ``add_task``, ``advance``).

    ``label``: the text before the bar (a rich template: ``{task.description}``,
    ``{task.fields[name]}``); ``counts``: ``done/total`` after the bar (True), a template
    of its own (a str), or nothing (False); ``elapsed`` and ``remaining``: the times;
    ``console``: where it draws (rich's default console when None); ``enabled``: whether
    it draws at all (default: when the console is a terminal); ``transient``: whether the
    bar is erased when it ends."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress

    columns: list[str | ProgressColumn] = [TextColumn(label), BarColumn()]
    if counts is True:
        columns.append(MofNCompleteColumn())
    elif counts:
        columns.append(TextColumn(counts))
    if elapsed:
        columns.append(TimeElapsedColumn())
    if remaining:
        columns.append(TimeRemainingColumn())
    if enabled is None:
        from rich import get_console

        enabled = (console if isinstance(console, Console) else get_console()).is_terminal
    return RichProgress(*columns, console=console, transient=transient, disable=not enabled)
