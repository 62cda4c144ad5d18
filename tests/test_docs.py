"""The documentation runs: every command shown in README.md and docs/*.md is executed and
its output compared, so the docs cannot drift from the code.

The convention (also in docs/testing.md) is carried by the fence's language:

``console``  ``$ command`` lines, each followed by its exact output (stdout and stderr
             together). Run with bash in a scratch directory (one per document, shared by
             its blocks in order) with ``.venv/bin`` first on PATH. A last output line
             ``[exit N]`` states a non-zero exit code; an output line ``...`` matches any
             number of lines (for timings). A command line ending in ``\\`` continues.
``gtp``      a GTP session: ``$ PROGRAM ARGS`` first, then each command followed by its
             exact answer; answers end at an empty line. The commands are fed to the
             program's stdin and its stdout must be exactly the answers.
``pycon``    a Python session, run by doctest in the scratch directory.
``sh``, ``python``
             NOT run: the first line must be ``# not run by the docs test: <reason>``.
             Every program named must still exist (a console script, ``scripts/*``,
             ``python``, or a known external tool).
``text``     diagrams, synopses, layouts: must hold no ``$ `` command line.
``toml``, ``sgf``
             data that must parse; ``toml file=NAME`` (or ``sgf file=NAME``) also writes the
             block to NAME in the scratch directory for the blocks after it.

A fence without a language, any other language, or a command in an indented code block
fails the test.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from margo_gtp import sgf

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
CONSOLE_SCRIPTS = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"])
EXTERNAL_TOOLS = {"gogui", "gogui-twogtp"}  # not installed here: named only in blocks that are not run
NOT_RUN = re.compile(r"# not run by the docs test: \S")
LANGUAGES = {"console", "gtp", "pycon", "sh", "python", "text", "toml", "sgf"}
INDENTED_COMMAND = re.compile(r"^ {4,}(margo-|scripts/|\.venv/|python |gogui)")
TIMEOUT = 300

pytestmark = pytest.mark.process


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    options: dict[str, str]
    body: list[str]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, in order; asserts every fence is closed."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            info = lines[i][3:].split()
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            assert i < len(lines), f"{path.relative_to(ROOT)}:{start + 1}: fence never closed"
            language = info[0] if info else ""
            options = dict(word.split("=", 1) for word in info[1:] if "=" in word)
            found.append(Block(path, start + 1, language, options, body))
        i += 1
    return found


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update({"COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1", "PYTHONHASHSEED": "0"})
    return env


# -- the runners ------------------------------------------------------------------------


def run_console(block: Block, scratch: Path) -> None:
    commands: list[tuple[str, list[str]]] = []
    lines = iter(block.body)
    for line in lines:
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\"):  # bash reads backslash-newline as a continuation
                command += "\n" + next(lines)
            commands.append((command, []))
        else:
            assert commands, f"{block.where}: output before the first '$ ' command: {line!r}"
            commands[-1][1].append(line)
    assert commands, f"{block.where}: a console block without a command"
    for command, expected in commands:
        code = 0
        if expected and re.fullmatch(r"\[exit \d+\]", expected[-1]):
            code = int(expected[-1][6:-1])
            expected = expected[:-1]
        done = subprocess.run(["bash", "-c", command], cwd=scratch, env=environment(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
        actual = done.stdout.rstrip("\n").split("\n") if done.stdout.strip("\n") else []
        assert matches(expected, actual), (
            f"{block.where}: output of {command!r} differs\n--- documented\n" + "\n".join(expected)
            + "\n--- actual\n" + "\n".join(actual)
        )
        assert done.returncode == code, f"{block.where}: {command!r} exited with {done.returncode}, documented {code}"


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line-exact comparison where an expected line ``...`` matches any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def run_gtp(block: Block, scratch: Path) -> None:
    assert block.body and block.body[0].startswith("$ "), f"{block.where}: a gtp block starts with '$ PROGRAM ARGS'"
    argv = shlex.split(block.body[0][2:])
    commands: list[str] = []
    answers: list[str] = []
    rest = block.body[1:]
    i = 0
    while i < len(rest):
        line = rest[i]
        i += 1
        if not line.strip() or not line.split("#", 1)[0].strip():
            commands.append(line)  # blank lines and comments get no answer
            continue
        commands.append(line)
        answer = []
        while i < len(rest) and rest[i] != "":
            answer.append(rest[i])
            i += 1
        assert answer, f"{block.where}: the command {line!r} has no documented answer"
        answers.append("\n".join(answer) + "\n\n")
    program = argv[0] if os.sep in argv[0] else str(BIN / argv[0])
    done = subprocess.run([program, *argv[1:]], cwd=scratch, env=environment(), input="\n".join(commands) + "\n",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    # Trailing spaces are not compared: the one after '=' of a reply that starts on the
    # next line ('= \nLevel 1') is invisible and editors strip it from Markdown; the exact
    # bytes are pinned by test_gtp_framing.py and test_gogui_reading.py.
    actual = re.sub(r" +\n", "\n", done.stdout)
    assert actual == "".join(answers), (
        f"{block.where}: the session differs\n--- documented\n" + "".join(answers) + "--- actual\n" + done.stdout
    )
    assert done.returncode == 0, f"{block.where}: exit code {done.returncode}; stderr: {done.stderr}"


def run_pycon(block: Block, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(scratch)
    monkeypatch.setenv("PATH", environment()["PATH"])
    test = doctest.DocTestParser().get_doctest("\n".join(block.body), {}, block.where, str(block.path), block.line)
    assert test.examples, f"{block.where}: a pycon block without '>>> ' examples"
    output: list[str] = []
    runner = doctest.DocTestRunner(verbose=False)
    result = runner.run(test, out=output.append)
    assert result.failed == 0, "".join(output)


def check_not_run(block: Block) -> None:
    assert block.body and NOT_RUN.match(block.body[0]), (
        f"{block.where}: a {block.language} block is not run by the docs test, so it must start with "
        f"'# not run by the docs test: <reason>'"
    )
    if block.language != "sh":
        return
    logical: list[str] = []  # lines joined where a line ends in a backslash
    for line in block.body[1:]:
        if logical and logical[-1].endswith("\\"):
            logical[-1] = logical[-1][:-1] + " " + line
        else:
            logical.append(line)
    for line in logical:
        code = line.split(" #", 1)[0].strip()
        if not code or code.startswith("#"):
            continue
        words = shlex.split(code)
        while words and re.match(r"^[A-Z_]+=", words[0]):  # VAR=value prefixes and assignments
            words = words[1:]
        if not words:
            continue
        program = words[0]
        known = (
            program in CONSOLE_SCRIPTS
            or program in EXTERNAL_TOOLS
            or program == "python"
            or (ROOT / program).is_file()
            or (program.startswith(".venv/bin/") and (BIN / program.removeprefix(".venv/bin/")).exists())
        )
        assert known, f"{block.where}: {program!r} is not a console script, a file of the repository or a known tool"


def check_data(block: Block, scratch: Path) -> None:
    text = "\n".join(block.body) + "\n"
    if block.language == "toml":
        tomllib.loads(text)
    else:
        sgf.loads(text)
    if "file" in block.options:
        (scratch / block.options["file"]).write_text(text, encoding="utf-8")


# -- the tests ----------------------------------------------------------------------------


def test_the_docs_are_found():
    names = {path.name for path in DOCS}
    assert {"README.md", "client.md", "gtp.md", "referee.md", "adapters.md", "testing.md"} <= names


@pytest.mark.parametrize("path", DOCS, ids=[str(path.relative_to(ROOT)) for path in DOCS])
def test_every_block_follows_the_convention_and_every_command_runs(path, tmp_path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    inside = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            inside = not inside
        elif not inside:
            assert not INDENTED_COMMAND.match(line), f"{path.relative_to(ROOT)}:{number}: a command in an indented block: use a fence"
    for block in blocks_of(path):
        assert block.language in LANGUAGES, f"{block.where}: fence language {block.language!r} is not one of {sorted(LANGUAGES)}"
        if block.language == "console":
            run_console(block, tmp_path)
        elif block.language == "gtp":
            run_gtp(block, tmp_path)
        elif block.language == "pycon":
            run_pycon(block, tmp_path, monkeypatch)
        elif block.language in ("sh", "python"):
            check_not_run(block)
        elif block.language == "text":
            commands = [line for line in block.body if line.startswith("$ ")]
            assert not commands, f"{block.where}: a text block shows commands {commands}: use console or gtp"
        else:
            check_data(block, tmp_path)


def test_the_convention_catches_drift(tmp_path, monkeypatch):
    """The runners fail on a wrong output, a wrong exit code, a wrong GTP answer and a
    not-run block without its reason (so a passing docs test means something)."""
    def block(language: str, *body: str) -> Block:
        return Block(ROOT / "x.md", 1, language, {}, list(body))

    run_console(block("console", "$ echo hello", "hello"), tmp_path)
    with pytest.raises(AssertionError, match="differs"):
        run_console(block("console", "$ echo hello", "goodbye"), tmp_path)
    with pytest.raises(AssertionError, match="exited with 3, documented 0"):
        run_console(block("console", "$ exit 3"), tmp_path)
    run_console(block("console", "$ printf 'a\\nb\\nc\\n'; exit 2", "a", "...", "c", "[exit 2]"), tmp_path)
    run_gtp(block("gtp", "$ margo-gtp", "name", "= margo-gtp", "", "boardsize 1", "? unacceptable size"), tmp_path)
    with pytest.raises(AssertionError, match="session differs"):
        run_gtp(block("gtp", "$ margo-gtp", "name", "= gnugo"), tmp_path)
    with pytest.raises(AssertionError, match="must start with"):
        check_not_run(block("sh", "margo-gtp"))
    with pytest.raises(AssertionError, match="not a console script"):
        check_not_run(block("sh", "# not run by the docs test: example", "margo-nonexistent --x"))
    with pytest.raises(AssertionError, match="Expected"):
        run_pycon(block("pycon", ">>> 1 + 1", "3"), tmp_path, monkeypatch)


def test_the_readme_fits_a_screen_or_four():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("path", DOCS, ids=[str(path.relative_to(ROOT)) for path in DOCS])
def test_every_relative_link_names_an_existing_file_and_heading(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code is not linked
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        assert linked.is_file(), f"{path.relative_to(ROOT)}: link to a missing file: {target}"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", linked.read_text(encoding="utf-8"), flags=re.S), re.M)
            assert anchor in {slug(h) for h in headings}, f"{path.relative_to(ROOT)}: no heading for the anchor in {target}"


def test_every_file_the_architecture_map_cites_exists():
    """docs/architecture.md is the true map: each backticked path in it names a file or folder
    of the repository (a module under margo_gtp/, a test, a doc)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"`((?:[\w.-]+/)*[\w.-]+\.(?:py|c|h|md)|[\w-]+/)`", text)) - {"Python.h"}  # CPython's
    assert len(cited) > 40
    roots = [ROOT, ROOT / "margo_gtp", ROOT / "margo_gtp" / "players", ROOT / "margo_gtp" / "engine",
             ROOT / "margo_gtp" / "protocol", ROOT / "margo_gtp" / "web", ROOT / "margo_gtp" / "lab", ROOT / "docs",
             ROOT / "margo_gtp" / "match", ROOT / "margo_gtp" / "analysis", ROOT / "margo_gtp" / "gtp2d",
             ROOT / "margo_gtp" / "commands"]
    missing = sorted(path for path in cited if not any((root / path).exists() for root in roots))
    assert missing == []
