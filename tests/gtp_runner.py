"""A runner for GTP regression files: GNU Go's ``.tst`` format, read as gogui-regress
reads it, and our own ``.errors`` format for expected failures.

A regression file is a GTP session with expectations in comments::

    # any comment
    boardsize 5                 # unnumbered: sent; it must not fail
    10 play w C3:1              # numbered: a test; its answer is checked
    #? []                       #   against the bracketed regular expression
    12 margo-legal_moves b
    #? [!.*C3:1.*]              # [!re]: the answer must NOT match
    13 genmove b
    #? [pass]*                  # trailing *: a known failure (expected not to match)

The two formats differ only in how a failure (``?``) answer counts:

``.tst`` (GNU Go / gogui-regress)
    Every ``?`` answer to a numbered command is a failure, whatever the pattern says;
    a pattern is matched against the answer of a success only. These files pass
    unchanged under the real ``gogui-regress``. The answer is read the GoGui way:
    everything after the first space of the whole reply, trimmed (so ``=7 \\nLevel 1``
    reads ``Level 1``, while a reply written ``=7\\nLevel 1`` would read ``1``).
    A ``?`` answer to an unnumbered command, which gogui-regress counts in its "Error"
    column, is a failure here too.

``.errors`` (ours)
    The same layout, but a pattern may match a failure: it is matched against
    ``? message`` for a failure and the answer for a success, so
    ``#? [\\? illegal move]`` asserts the canonical failure text (gtp.md section 1).
    A numbered command without a pattern and every unnumbered command must succeed.
    gogui-regress cannot run these files (it fails every ``?``), so expected-error
    cases live here and nowhere else.

The whole file, byte for byte, is the engine's input (comments and ``#?`` lines are
comments to the engine), so files can also exercise framing: tabs, CR, control
characters, blank lines. Each input line that is not blank after preprocessing
(gtp.md section 1) gets exactly one reply, in order; each expectation belongs to the
nearest numbered command above it. A regex must match the whole answer
(``re.fullmatch`` with DOTALL and MULTILINE, as Java's ``Matcher.matches`` in
gogui-regress).

Run by hand (works with any Python 3.11, inside the venv or not)::

    python tests/gtp_runner.py [--engine CMD] [--verbose] [FILE ...]

runs the given files (default: every ``tests/gtp/*.tst`` and ``*.errors``) against an
in-process engine (random player, seed 0) or the engine command ``CMD``, prints each
surprise (every check with ``--verbose``) and a total per file, and exits 1 on any
surprise, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TST_DIR = Path(__file__).parent / "gtp"
REPO_ROOT = Path(__file__).resolve().parent.parent

_NUMBERED = re.compile(r"\s*([0-9]+)(?:\s|$)")
_EXPECTATION = re.compile(r"#\?\s*\[(!?)(.*)\](\*?)\s*$")
_DROPPED_CONTROLS = {code: None for code in list(range(32)) + [127] if code not in (9, 10)}


@dataclass(frozen=True)
class Command:
    """One input line the engine answers: its number (None when unnumbered), its text
    as the engine sees it, its line in the file, and its expectation if any."""

    number: str | None
    command: str
    line: int
    pattern: str | None = None
    negated: bool = False
    known_failure: bool = False
    pattern_line: int | None = None


@dataclass(frozen=True)
class Reply:
    """One engine reply, as a GTP client reads it."""

    ok: bool
    number: str | None
    full: str  # the whole reply, head included, without the final empty line

    @property
    def gogui_answer(self) -> str:
        """What GoGui's ``GtpClient``/gogui-regress read: everything after the first
        space of the whole reply, trimmed as Java's ``String.trim`` (chars <= U+0020)."""
        space = self.full.find(" ")
        return "" if space < 0 else _java_trim(self.full[space:])

    @property
    def tagged_answer(self) -> str:
        """The ``.errors`` reading: the answer of a success, ``'? message'`` of a failure."""
        return self.gogui_answer if self.ok else f"? {self.gogui_answer}"


@dataclass(frozen=True)
class Outcome:
    """A check of one command in one file kind (``'tst'`` or ``'errors'``)."""

    expectation: Command
    reply: Reply | None  # None: the engine never answered
    kind: str = "tst"

    @property
    def answer(self) -> str | None:
        if self.reply is None:
            return None
        return self.reply.gogui_answer if self.kind == "tst" else self.reply.tagged_answer

    @property
    def matched(self) -> bool:
        e, reply = self.expectation, self.reply
        if reply is None:
            return False
        if e.pattern is None:
            return reply.ok
        if self.kind == "tst" and not reply.ok:
            return False  # gogui-regress: a failure never matches, whatever the pattern
        found = re.fullmatch(e.pattern, self.answer or "", re.DOTALL | re.MULTILINE) is not None
        return found != e.negated

    @property
    def passed(self) -> bool:
        """As GNU Go reports: a normal case passes when it matches; a ``*`` case is
        expected not to (an unexpected pass is a surprise, to be promoted)."""
        return self.matched != self.expectation.known_failure

    def describe(self) -> str:
        e = self.expectation
        status = "ok" if self.passed else ("UNEXPECTED PASS" if e.known_failure else "FAILED")
        if e.pattern is None:
            want = "success"
        else:
            want = "[" + ("!" if e.negated else "") + e.pattern + "]" + ("*" if e.known_failure else "")
        got = None if self.reply is None else (self.answer if self.reply.ok else f"? {self.reply.gogui_answer}")
        label = f"{e.number} {e.command!r}" if e.number is not None else f"unnumbered {e.command!r}"
        return f"line {e.pattern_line or e.line}: {label}: got {got!r}, want {want}: {status}"


def _java_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def engine_view(line: str) -> str:
    """A raw input line as the engine sees it (gtp.md section 1), computed here
    independently of the engine: control characters except HT dropped, the comment
    cut, HT -> space, trimmed."""
    line = line.translate(_DROPPED_CONTROLS).split("#", 1)[0]
    return line.replace("\t", " ").strip()


def parse_commands(text: str) -> list[Command]:
    """Every command of a regression text, in order, with its expectation attached;
    ValueError for a misplaced ``#?`` or a repeated command number."""
    commands: list[Command] = []
    seen: set[str] = set()
    waiting = False  # the last command is numbered and has no expectation yet
    for line_number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped.startswith("#?"):
            match = _EXPECTATION.match(stripped)
            if match is None:
                raise ValueError(f"line {line_number}: malformed expectation {line!r}")
            if not waiting:
                raise ValueError(f"line {line_number}: expectation without a numbered command above it")
            negated, pattern, star = match.groups()
            last = commands[-1]
            commands[-1] = Command(last.number, last.command, last.line, pattern, bool(negated), bool(star), line_number)
            waiting = False
            continue
        command = engine_view(line)
        if not command:
            continue
        numbered = _NUMBERED.match(command)
        number = numbered.group(1) if numbered else None
        if number is not None:
            if number in seen:
                raise ValueError(f"line {line_number}: command number {number} used twice")
            seen.add(number)
            command = " ".join(command.split()[1:])
        commands.append(Command(number, command, line_number))
        waiting = number is not None
    return commands


def parse_tst(text: str) -> list[Command]:
    """The numbered commands that carry an expectation, in file order."""
    return [c for c in parse_commands(text) if c.pattern is not None]


def split_replies(output: str) -> list[Reply]:
    """Engine output -> its replies in order, read by the project's one GTP answer
    reader (:mod:`margo_gtp.client.wire`, over the output at hand); ValueError for
    output that is not GTP answers."""
    wire_module = _wire()
    # the final empty line ends a last reply whose engine stopped before writing its own
    wire = wire_module.GtpWire(wire_module.BufferTransport((output + "\n\n").encode("utf-8")), ids=False)
    replies: list[Reply] = []
    while True:
        try:
            answer = wire.read_answer()
        except wire_module.WireClosed:
            return replies
        except wire_module.WireProtocolError as error:
            raise ValueError(f"not a GTP response: {error.line or str(error)!r}") from None
        number = None if answer.id is None else str(answer.id)
        replies.append(Reply(answer.ok, number, "\n".join(answer.lines)))


def _wire() -> Any:
    """:mod:`margo_gtp.client.wire`, from this checkout when this Python has no
    margo_gtp installed (it needs nothing beyond the standard library)."""
    try:
        from margo_gtp.client import wire
    except ImportError:
        sys.path.append(str(REPO_ROOT))
        from margo_gtp.client import wire
    return wire


def split_answers(output: str) -> dict[str, str]:
    """Engine output -> ``{id: answer}`` for the replies that carry an id, answers read
    the ``.errors`` way (success text, or ``'? message'``)."""
    return {r.number: r.tagged_answer for r in split_replies(output) if r.number is not None}


def file_kind(path: Path | str) -> str:
    suffix = Path(path).suffix
    if suffix not in (".tst", ".errors"):
        raise ValueError(f"{path}: not a .tst or .errors file")
    return suffix[1:]


def run_text(text: str, run_session: Callable[[str], str], kind: str = "tst") -> list[Outcome]:
    """Feed ``text`` to an engine (``run_session(input) -> output``) and check every
    numbered command and every unnumbered one (which must not fail).

    Replies are paired with commands in order (every command gets exactly one reply);
    a numbered reply must carry its command's number.
    """
    commands = parse_commands(text)
    replies = split_replies(run_session(text))
    outcomes = []
    for index, command in enumerate(commands):
        reply = replies[index] if index < len(replies) else None
        if reply is not None and command.number is not None and reply.number != command.number:
            reply = None  # out of step: the engine lost or invented a reply
        if command.number is None and (reply is None or reply.ok):
            continue  # an unnumbered command that succeeded: nothing to report
        outcomes.append(Outcome(command, reply, kind))
    return outcomes


def in_process_session(text: str, seed: int = 0) -> str:
    """Run ``text`` through a fresh in-process engine built as ``margo-gtp --player
    random --seed 0`` builds it (default rules, analysis commands installed)."""
    from margo_gtp.players import make_player
    from margo_gtp.protocol.analysis import install
    from margo_gtp.protocol.gtp import run_gtp_session
    from margo_gtp.protocol.session import make_gtp_engine

    engine = make_gtp_engine(make_player("random", seed), stderr=io.StringIO())
    install(engine, engine.session)
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(text, newline="\n"), out)
    return out.getvalue()


def process_session(argv: list[str], timeout: float = 600) -> Callable[[str], str]:
    """A session that pipes the text through an engine process ``argv``."""

    def run(text: str) -> str:
        completed = subprocess.run(
            argv, input=text.encode("utf-8"), capture_output=True, timeout=timeout, check=False
        )
        return completed.stdout.decode("utf-8", errors="replace")

    return run


def run_file(path: Path, run_session: Callable[[str], str] = in_process_session) -> list[Outcome]:
    return run_text(path.read_bytes().decode("utf-8"), run_session, file_kind(path))


def tst_files() -> list[Path]:
    """The gogui-regress suites."""
    return sorted(TST_DIR.glob("*.tst"))


def errors_files() -> list[Path]:
    """Our expected-failure suites."""
    return sorted(TST_DIR.glob("*.errors"))


def _import_the_engine() -> None:
    """Make the in-process engine importable from any Python: the checkout itself goes
    on ``sys.path``; when its dependencies (sgfmill...) are missing from this Python, the
    runner runs again under the checkout's ``.venv`` (made by ``scripts/setup``)."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    try:
        import margo_gtp.protocol.session  # noqa: F401
        import margo_gtp.sgf  # noqa: F401  (printsgf/loadsgf need sgfmill)
    except ImportError as error:
        venv = REPO_ROOT / ".venv"
        venv_python = venv / "bin" / "python"
        if venv_python.exists() and Path(sys.prefix).resolve() != venv.resolve():
            os.execv(str(venv_python), [str(venv_python), str(Path(__file__).resolve()), *sys.argv[1:]])
        print(f"gtp_runner.py: cannot import the engine ({error}); run scripts/setup first", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gtp_runner.py",
        description="Run GTP regression files (.tst as gogui-regress reads them; .errors, ours, "
        "where a pattern may match a '? message' failure).",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="default: tests/gtp/*.tst and *.errors")
    parser.add_argument("--engine", metavar="CMD", help="engine command line (default: in-process margo-gtp, random player, seed 0)")
    parser.add_argument("--verbose", action="store_true", help="print every check, not only the surprises")
    options = parser.parse_args(argv)
    paths = [Path(name) for name in options.files] or tst_files() + errors_files()
    for path in paths:
        if not path.is_file():
            parser.error(f"{path}: no such file")
        try:
            file_kind(path)
        except ValueError as error:
            parser.error(str(error))
    if options.engine is not None:
        try:
            session = process_session(shlex.split(options.engine))
        except ValueError as error:
            parser.error(f"--engine: {error}")
    else:
        _import_the_engine()
        session = in_process_session
    passed = failed = 0
    for path in paths:
        try:
            outcomes = run_file(path, session)
        except (ValueError, OSError, subprocess.SubprocessError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            failed += 1
            continue
        good = sum(outcome.passed for outcome in outcomes)
        for outcome in outcomes:
            if options.verbose or not outcome.passed:
                print(f"{path}: {outcome.describe()}")
        print(f"{path}: {good} passed, {len(outcomes) - good} failed")
        passed += good
        failed += len(outcomes) - good
    print(f"total: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
