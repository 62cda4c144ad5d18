"""A scriptable GTP engine for the controller tests: each command does one wire trick.

Commands (answers use the id sent, except where said):
    echo ARGS...   = ARGS
    multi N        = line 1 ... line N, one per line
    board          = then the answer starts on the next line (like showboard)
    fail MSG...    ? MSG
    noid ARGS...   = ARGS without the id
    blank          two empty lines, then = ok
    garbage        a line that is not an answer, then an empty line
    wrongid        = ok with the id plus 100
    late S         sleeps S seconds, then = late
    die            exits with code 3 without answering
    closeout       closes stdout and sleeps for ever
    hang           sleeps for ever
    stderr MSG...  writes MSG to stderr, then = ok
    known_command  true for echo, multi, quit
    list_commands  echo, multi, quit
    quit           = then exits
Anything else: ? unknown command.
"""

import os
import sys
import time


def answer(command_id: str, text: str, ok: bool = True) -> None:
    sys.stdout.write(("=" if ok else "?") + command_id + " " + text + "\n\n")
    sys.stdout.flush()


def main() -> None:
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command_id = ""
        if words[0].isdigit():
            command_id, words = words[0], words[1:]
        name, args = words[0], words[1:]
        if name == "echo":
            answer(command_id, " ".join(args))
        elif name == "known_command":
            answer(command_id, "true" if args and args[0] in ("echo", "multi", "quit") else "false")
        elif name == "list_commands":
            answer(command_id, "echo\nmulti\nquit")
        elif name == "multi":
            answer(command_id, "\n".join(f"line {i}" for i in range(1, int(args[0]) + 1)))
        elif name == "board":
            answer(command_id, "\n  A B\n2 . .\n1 . .")
        elif name == "fail":
            answer(command_id, " ".join(args), ok=False)
        elif name == "noid":
            answer("", " ".join(args))
        elif name == "blank":
            sys.stdout.write("\n\n")
            answer(command_id, "ok")
        elif name == "garbage":
            sys.stdout.write("hello, I am not GTP\n\n")
            sys.stdout.flush()
        elif name == "wrongid":
            answer(str(int(command_id or 0) + 100), "ok")
        elif name == "late":
            time.sleep(float(args[0]))
            answer(command_id, "late")
        elif name == "die":
            os._exit(3)
        elif name == "closeout":
            sys.stdout.flush()
            os.close(1)
            time.sleep(3600)
        elif name == "hang":
            time.sleep(3600)
        elif name == "stderr":
            sys.stderr.write(" ".join(args) + "\n")
            sys.stderr.flush()
            answer(command_id, "ok")
        elif name == "quit":
            answer(command_id, "")
            return
        else:
            answer(command_id, "unknown command", ok=False)


if __name__ == "__main__":
    main()
