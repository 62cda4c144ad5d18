"""A stand-in for ``gogui`` and ``gogui-twogtp`` (GoGui 1.6, Java): it reads its command
line as they do, splits program command lines exactly as GoGui does, starts the engines
and has a short GTP conversation with each, then writes what happened as JSON lines to
the file named by ``$GOGUI_STANDIN_REPORT``. For tests/test_gogui_commands.py only.

    gogui_standin.py gogui [-size N] [-computer-both] -program "CMD" ...
    gogui_standin.py gogui-twogtp -black "CMD" -white "CMD" [-size N] ...

What it copies from GoGui (``src/net/sf/gogui``):

- ``util/StringUtil.splitArguments``: a program command line is split on whitespace and
  **double quotes only**; a backslash before a quote makes the quote an ordinary
  character and is itself kept; single quotes are ordinary characters.
- ``tools/twogtp``: ``-size`` defaults to 19, and ``boardsize`` with another size fails
  with ``Size must be N`` (so GoGui's ``-size 17`` must be repeated on an inner twogtp).
- ``gogui/GoGui.java``: a program that lists ``gogui-rules_game_id``,
  ``gogui-rules_legal_moves`` and ``gogui-rules_side_to_move`` is a ruler: GoGui starts a
  second copy of its command line as the ruler and takes the board size from
  ``gogui-rules_board_size``, overriding ``-size``. Otherwise GoGui sends ``boardsize``
  with its ``-size``. A program that ends at once is "The Go program terminated
  unexpectedly".

Not copied: the games themselves (the conversation is one move per engine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

TWOGTP_DEFAULT_SIZE = 19
#: What makes GoGui take a program as its ruler (GoGui.isGtpRuler).
RULER_COMMANDS = {"gogui-rules_game_id", "gogui-rules_legal_moves", "gogui-rules_side_to_move"}


def split_arguments(string: str) -> list[str]:
    """GoGui's ``StringUtil.splitArguments``, line for line."""
    result: list[str] = []
    escape = False
    in_string = False
    token: list[str] = []
    for c in string:
        if c == '"' and not escape:
            if in_string:
                result.append("".join(token))
                token.clear()
            in_string = not in_string
        elif c.isspace() and not in_string:
            if token:
                result.append("".join(token))
                token.clear()
        else:
            token.append(c)
        escape = c == "\\" and not escape
    if token:
        result.append("".join(token))
    return result


def option(args: list[str], name: str, default: str | None = None) -> str | None:
    """The value after ``-name`` (GoGui's options take ``-name value``)."""
    for index, word in enumerate(args[:-1]):
        if word == f"-{name}":
            return args[index + 1]
    return default


def converse(words: list[str], commands: list[str]) -> dict:
    """Start ``words`` as a GTP program, send ``commands``, read the replies."""
    record: dict = {"argv": words}
    try:
        done = subprocess.run(words, input="".join(c + "\n" for c in commands), capture_output=True,
                              text=True, timeout=120)
    except OSError as error:
        record["error"] = f"cannot start: {error}"
        return record
    replies = [block for block in done.stdout.split("\n\n") if block.strip()]
    record["replies"] = replies
    record["returncode"] = done.returncode
    if len(replies) < len(commands):
        record["error"] = "The Go program terminated unexpectedly"
        record["stderr"] = done.stderr[-500:]
    return record


def engine_commands(size: int) -> list[str]:
    return ["protocol_version", "name", f"boardsize {size}", "clear_board", "komi 0", "genmove b", "genmove w", "quit"]


def twogtp(args: list[str], boardsize: int | None = None) -> dict:
    """gogui-twogtp: its -size (default 19) is the only size it accepts."""
    size = int(option(args, "size", str(TWOGTP_DEFAULT_SIZE)) or TWOGTP_DEFAULT_SIZE)
    report: dict = {"tool": "gogui-twogtp", "size": size}
    if boardsize is not None and boardsize != size:
        report["error"] = f"Size must be {size}"
        return report
    for colour in ("black", "white"):
        program = option(args, colour)
        if program is None:
            report["error"] = f"missing -{colour}"
            return report
        report[colour] = converse(split_arguments(program), engine_commands(size))
    return report


def gogui(args: list[str]) -> dict:
    size = int(option(args, "size", "19") or 19)
    program = option(args, "program")
    report: dict = {"tool": "gogui", "size": size}
    if program is None:
        report["error"] = "missing -program"
        return report
    words = split_arguments(program)
    report["program"] = words
    if words[:1] == ["gogui-twogtp"]:
        report["twogtp"] = twogtp(words[1:], boardsize=size)
    else:
        ruler = converse(words, ["list_commands", "gogui-rules_board_size", "quit"])
        report["ruler"] = ruler
        listed = ruler["replies"][0][2:].split("\n") if ruler.get("replies") else []
        if RULER_COMMANDS <= set(listed) and ruler["replies"][1].startswith("= "):
            size = int(ruler["replies"][1][2:])  # GoGui's newBoard(gogui-rules_board_size)
            report["size"] = size
        commands = engine_commands(size)[:-1] + ["gogui-rules_game_id", "gogui-rules_board_size", "gogui-rules_board", "quit"]
        report["engine"] = converse(words, commands)
    return report


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    report = gogui(args) if tool == "gogui" else twogtp(args)
    with open(os.environ["GOGUI_STANDIN_REPORT"], "a", encoding="utf-8") as out:
        out.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
