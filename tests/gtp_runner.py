"""A small runner for GTP regression files in GNU Go's ``.tst`` format.

A ``.tst`` file is a GTP session with expectations in comments::

    # any comment
    boardsize 5                 # unnumbered: sent, answer not checked
    10 play w C3:1              # numbered: the answer to id 10 is checked
    #? []                       #   against the bracketed regular expression
    11 play w C3:1
    #? [\\? illegal move]
    12 margo-legal_moves b
    #? [!.*C3:1.*]              # [!re]: the answer must NOT match
    13 genmove b
    #? [pass]*                  # trailing *: a known failure (expected not to match)

The whole file, byte for byte, is the engine's input (comments and ``#?`` lines are
comments to the engine), so files can also exercise framing: tabs, CR, control
characters, blank lines. Each expectation belongs to the nearest numbered command above
it. The regex must match the whole answer (``re.fullmatch``, ``.`` matches newlines):
for a success the result after ``=id `` (a leading newline, as in ``showboard``, is
dropped); for a failure ``? `` followed by the message.

Run by hand: ``python tests/gtp_runner.py FILE.tst...`` (in-process engine, random
player seeded with 0) prints one line per expectation and exits 1 on any surprise.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TST_DIR = Path(__file__).parent / "gtp"

_NUMBERED = re.compile(r"\s*(\d+)(?:\s|$)")
_EXPECTATION = re.compile(r"#\?\s*\[(!?)(.*)\](\*?)\s*$")
_RESPONSE_HEAD = re.compile(r"([=?])(\d*)")


@dataclass(frozen=True)
class Expectation:
    number: str
    command: str
    pattern: str
    negated: bool
    known_failure: bool
    line: int


@dataclass(frozen=True)
class Outcome:
    expectation: Expectation
    answer: str | None  # None: the command got no answer with its id

    @property
    def matched(self) -> bool:
        if self.answer is None:
            return False
        found = re.fullmatch(self.expectation.pattern, self.answer, re.DOTALL) is not None
        return found != self.expectation.negated

    @property
    def passed(self) -> bool:
        """As GNU Go reports: a normal case passes when it matches; a ``*`` case is
        expected not to (an unexpected pass is a surprise, to be promoted)."""
        return self.matched != self.expectation.known_failure

    def describe(self) -> str:
        e = self.expectation
        status = "ok" if self.passed else ("UNEXPECTED PASS" if e.known_failure else "FAILED")
        want = ("!" if e.negated else "") + e.pattern + ("*" if e.known_failure else "")
        return f"line {e.line}: {e.number} {e.command!r}: got {self.answer!r}, want [{want}]: {status}"


def parse_tst(text: str) -> list[Expectation]:
    """The expectations of a ``.tst`` text, in file order; ValueError for a misplaced
    ``#?`` or a repeated command number."""
    expectations: list[Expectation] = []
    last: tuple[str, str] | None = None
    seen: set[str] = set()
    for line_number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped.startswith("#?"):
            match = _EXPECTATION.match(stripped)
            if match is None:
                raise ValueError(f"line {line_number}: malformed expectation {line!r}")
            if last is None:
                raise ValueError(f"line {line_number}: expectation without a numbered command above it")
            negated, pattern, star = match.groups()
            expectations.append(Expectation(last[0], last[1], pattern, bool(negated), bool(star), line_number))
            last = None
            continue
        # Find the command as the engine will see it (gtp.md section 1), independently
        # of the engine's own preprocessing: drop control characters except HT, cut the
        # comment, HT -> space.
        command = "".join(c for c in line if c == "\t" or (" " <= c != "\x7f")).split("#", 1)[0]
        command = command.replace("\t", " ")
        numbered = _NUMBERED.match(command)
        if numbered:
            number = numbered.group(1)
            if number in seen:
                raise ValueError(f"line {line_number}: command number {number} used twice")
            seen.add(number)
            last = (number, " ".join(command.split()[1:]))
    return expectations


def split_answers(output: str) -> dict[str, str]:
    """Engine output -> ``{id: answer}`` for answers that carry an id (answer as matched
    by expectations: success text, or ``'? message'``)."""
    answers: dict[str, str] = {}
    for block in output.split("\n\n"):
        if not block:
            continue
        match = _RESPONSE_HEAD.match(block)
        if match is None:
            raise ValueError(f"not a GTP response: {block!r}")
        sign, number = match.groups()
        text = block[match.end() :]
        if text[:1] in (" ", "\n"):
            text = text[1:]
        if number:
            answers[number] = text if sign == "=" else f"? {text}"
    return answers


def run_text(text: str, run_session: Callable[[str], str]) -> list[Outcome]:
    """Feed ``text`` to an engine (``run_session(input) -> output``), check expectations."""
    expectations = parse_tst(text)
    answers = split_answers(run_session(text))
    return [Outcome(e, answers.get(e.number)) for e in expectations]


def in_process_session(text: str, seed: int = 0) -> str:
    """Run ``text`` through a fresh in-process engine (default rules, random player)."""
    from margo_gtp.players import make_player
    from margo_gtp.protocol.gtp import run_gtp_session
    from margo_gtp.protocol.session import make_gtp_engine

    engine = make_gtp_engine(make_player("random", seed), stderr=io.StringIO())
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(text, newline="\n"), out)
    return out.getvalue()


def run_file(path: Path, run_session: Callable[[str], str] = in_process_session) -> list[Outcome]:
    return run_text(path.read_bytes().decode("utf-8"), run_session)


def tst_files() -> list[Path]:
    return sorted(TST_DIR.glob("*.tst"))


def main(argv: list[str]) -> int:
    surprises = 0
    for name in argv or [str(path) for path in tst_files()]:
        for outcome in run_file(Path(name)):
            print(f"{name}: {outcome.describe()}")
            surprises += not outcome.passed
    return 1 if surprises else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
