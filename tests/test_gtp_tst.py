"""GTP regression files (tests/gtp/*.tst, GNU Go format) run by tests/gtp_runner.py, and
the runner's own behaviour (expectations, negation, known failures, framing)."""

from __future__ import annotations

from pathlib import Path

import pytest

import gtp_runner
from gtp_runner import Outcome, parse_tst, run_file, run_text, split_answers

TST_FILES = gtp_runner.tst_files()


def test_the_suites_are_there() -> None:
    names = {path.name for path in TST_FILES}
    assert {"framing.tst", "commands.tst", "errors.tst", "positions.tst"} <= names


@pytest.mark.parametrize("path", TST_FILES, ids=lambda path: path.name)
def test_tst_file(path: Path) -> None:
    outcomes = run_file(path)
    assert outcomes, f"{path.name} has no expectations"
    surprises = [outcome.describe() for outcome in outcomes if not outcome.passed]
    assert surprises == []


def _fake_session(answers: dict[str, str]):
    def run(text: str) -> str:
        out = []
        for expectation in parse_tst(text):
            answer = answers.get(expectation.number)
            if answer is not None:
                out.append(answer)
        return "".join(out)

    return run


def test_runner_matches_whole_answers_and_honours_negation_and_stars() -> None:
    text = "1 a\n#? [ok]\n2 b\n#? [o]\n3 c\n#? [!bad]\n4 d\n#? [fixed]*\n5 e\n#? [broken]*\n6 f\n#? [\\? no]\n7 g\n#? [x]\n"
    session = _fake_session(
        {"1": "=1 ok\n\n", "2": "=2 ok\n\n", "3": "=3 good\n\n", "4": "=4 fixed\n\n", "5": "=5 other\n\n", "6": "?6 no\n\n"}
    )
    results = {o.expectation.number: (o.matched, o.passed) for o in run_text(text, session)}
    assert results == {
        "1": (True, True),
        "2": (False, False),  # fullmatch, not search
        "3": (True, True),
        "4": (True, False),  # known failure that now passes: a surprise to report
        "5": (False, True),
        "6": (True, True),
        "7": (False, False),  # no answer at all
    }


def test_split_answers() -> None:
    output = "= x\n\n=3 a b\n\n?4 syntax error\n\n=5\nLevel 1\nrow\n\n=6\n\n"
    assert split_answers(output) == {"3": "a b", "4": "? syntax error", "5": "Level 1\nrow", "6": ""}
    with pytest.raises(ValueError):
        split_answers("garbage\n\n")


@pytest.mark.parametrize(
    "text, message",
    [
        ("#? [x]\n", "without a numbered command"),
        ("1 a\n#? x\n", "malformed expectation"),
        ("1 a\n1 b\n", "used twice"),
        ("1 a\n#? [x]\n#? [y]\n", "without a numbered command"),
    ],
)
def test_parse_tst_rejects_bad_files(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_tst(text)


def test_describe_names_the_surprise() -> None:
    [expectation] = parse_tst("12 name\n#? [nobody]\n")
    assert Outcome(expectation, "margo-gtp").describe() == (
        "line 2: 12 'name': got 'margo-gtp', want [nobody]: FAILED"
    )
