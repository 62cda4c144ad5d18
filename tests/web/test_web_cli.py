"""The ``margo-web`` command line: options, errors, and a real server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import typer

from web_helpers import need_the_web_extra

need_the_web_extra()
from margo_gtp import __version__  # noqa: E402
from margo_gtp.web.cli import default_engine_commands, parse_engine_options  # noqa: E402

MARGO_WEB = [sys.executable, "-c", "from margo_gtp.commands.web import main; main()"]


def test_engine_options_are_split_like_a_shell_never_run_by_one() -> None:
    assert parse_engine_options([f"strong={sys.executable} --player 'mcts:seconds=0.5'"]) == {
        "strong": [sys.executable, "--player", "mcts:seconds=0.5"]}
    for bad, message in [("noequals", "expected NAME=COMMAND, got 'noequals'"),
                         ("=cmd", "expected NAME=COMMAND, got '=cmd'"),
                         ("human=x", "invalid engine name: 'human' (letters, digits, - _ . ; not 'human')"),
                         ("a b=x", "invalid engine name: 'a b' (letters, digits, - _ . ; not 'human')"),
                         ("q=x 'open", "cannot split command of 'q': No closing quotation"),
                         ("q=no-such-program-here", "engine 'q': program not found: 'no-such-program-here'"),
                         ("q=/no/such/engine", "engine 'q': no such file: '/no/such/engine'"),
                         (f"q={__file__}", f"engine 'q': not executable: {__file__!r}")]:
        with pytest.raises(typer.BadParameter) as error:
            parse_engine_options([bad])
        assert error.value.message == message


def test_margo_gtp_is_found_beside_this_python_without_an_activated_venv(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # the venv's bin folder is not on it
    assert parse_engine_options(["mine=margo-gtp --player random"]) == {
        "mine": [str(Path(sys.executable).parent / "margo-gtp"), "--player", "random"]}


def test_the_default_engines_are_this_installations_players() -> None:
    commands = default_engine_commands()
    assert list(commands) == ["random", "heuristic", "mcts"]
    assert commands["mcts"] == [sys.executable, "-c", "from margo_gtp.commands.gtp import main; main()", "--player", "mcts"]


def test_version() -> None:
    done = subprocess.run([*MARGO_WEB, "--version"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"margo-web {__version__}\n")


def test_a_bad_option_exits_2_with_one_message(tmp_path: Path) -> None:
    done = subprocess.run([*MARGO_WEB, "--watch", str(tmp_path / "missing"), "--no-open"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "Invalid value for --watch: not a folder:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.process
def test_serves_and_warns_when_not_bound_to_localhost(tmp_path: Path) -> None:
    process = subprocess.Popen([*MARGO_WEB, "--host", "127.0.0.2", "--port", "0", "--no-open",
                                "--games-dir", str(tmp_path)], stderr=subprocess.PIPE, text=True)
    try:
        warning = process.stderr.readline()
        assert warning == ("margo-web: warning: binding 127.0.0.2, not 127.0.0.1: anyone who reaches this address "
                           "can start the engines of this server\n")
        serving = process.stderr.readline()
        assert serving.startswith(f"margo-web {__version__}: serving on http://127.0.0.2:")
        url = serving.split(" on ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=30) as response:
            assert b"<title>margo-web</title>" in response.read()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_busy_port_and_an_unwritable_games_dir_are_one_line_errors(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([*MARGO_WEB, "--port", str(port), "--no-open", "--games-dir", str(tmp_path)],
                              capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"margo-web: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    done = subprocess.run([*MARGO_WEB, "--port", "0", "--no-open", "--games-dir", "/proc/no/games"],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 2
    assert "Invalid value for --games-dir: cannot write in '/proc/no/games': No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.process
def test_an_ipv6_address_is_announced_as_a_url(tmp_path: Path) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    process = subprocess.Popen([*MARGO_WEB, "--host", "::1", "--port", "0", "--no-open", "--games-dir", str(tmp_path)],
                               stderr=subprocess.PIPE, text=True)
    try:
        process.stderr.readline()  # the warning: ::1 is not 127.0.0.1
        serving = process.stderr.readline()
        assert serving.startswith(f"margo-web {__version__}: serving on http://[::1]:"), serving
        with urllib.request.urlopen(serving.split(" on ")[1].split()[0], timeout=30) as response:
            assert b"<title>margo-web</title>" in response.read()
    finally:
        process.terminate()
        process.wait(timeout=30)
