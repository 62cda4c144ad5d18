"""The ``margo-web`` command line: options, errors, and a real server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.error
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
    assert list(commands) == ["strongest", *(f"level-{n}" for n in range(1, 8)), "random", "heuristic", "mcts"]
    entry = [sys.executable, "-c", "from margo_gtp.commands.gtp import main; main()"]
    assert commands["mcts"] == [*entry, "--player", "mcts"]
    assert commands["strongest"] == [*entry, "--player", "strongest"]  # the first: the form's default
    assert commands["level-3"] == [*entry, "--level", "3"]


def test_the_form_labels_the_levels_from_the_levels_file(tmp_path, monkeypatch) -> None:
    from margo_gtp.players import levels
    from margo_gtp.web.cli import default_engine_labels

    unmeasured = tmp_path / "unmeasured.json"
    unmeasured.write_text('{"elo": {}}')
    monkeypatch.setattr(levels, "LEVELS_FILE", unmeasured)
    monkeypatch.setattr(levels.level_labels, "__defaults__", (unmeasured,))
    assert default_engine_labels() == {"strongest": "Level 8 (strongest)", **{f"level-{n}": f"Level {n}" for n in range(1, 8)}}
    measured = tmp_path / "levels.json"
    measured.write_text('{"elo": {"3": 1234, "8": 2051}}')
    monkeypatch.setattr(levels, "LEVELS_FILE", measured)
    monkeypatch.setattr(levels.level_labels, "__defaults__", (measured,))
    labels = default_engine_labels()
    assert (labels["level-3"], labels["level-2"], labels["strongest"]) == (
        "Level 3 — about 1,200", "Level 2", "Level 8 — about 2,100 (strongest)")


def test_version() -> None:
    done = subprocess.run([*MARGO_WEB, "--version"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"margo-web {__version__}\n")


def test_a_bad_option_exits_2_with_one_message(tmp_path: Path) -> None:
    done = subprocess.run([*MARGO_WEB, "--watch", str(tmp_path / "missing"), "--no-open"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "Invalid value for --watch: not a folder:" in done.stderr and "Traceback" not in done.stderr


def fetch_status(url: str, host: str | None = None, origin: str | None = None) -> int:
    headers = {**({"Host": host} if host else {}), **({"Origin": origin} if origin else {})}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def start_server(*options: str, games_dir: Path) -> tuple[subprocess.Popen, str, list[str]]:
    """A margo-web process, its URL and the lines it wrote before it (a warning)."""
    process = subprocess.Popen([*MARGO_WEB, *options, "--port", "0", "--no-open", "--games-dir", str(games_dir)],
                               stderr=subprocess.PIPE, text=True)
    before = []
    while not (line := process.stderr.readline()).startswith(f"margo-web {__version__}: serving on "):
        assert line, before
        before.append(line)
    return process, line.split(" on ")[1].split()[0], before


def test_a_non_loopback_bind_without_an_allow_list_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([*MARGO_WEB, "--host", "0.0.0.0", "--port", "0", "--no-open", "--games-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("margo-web: --host 0.0.0.0 is not a loopback address: name the host names pages may use "
                           "to reach it with --allow-host NAME (every other Host is refused)\n")


@pytest.mark.process
def test_a_non_loopback_bind_answers_only_its_allowed_names_and_warns_so(tmp_path: Path) -> None:
    process, url, before = start_server("--host", "0.0.0.0", "--allow-host", "Box.example", games_dir=tmp_path)
    try:
        assert before == ["margo-web: warning: binding 0.0.0.0, not a loopback address: anyone who reaches it can "
                          "start the engines of this server; pages are answered only under 127.0.0.1, localhost, "
                          "[::1], box.example\n"]
        port = url.rsplit(":", 1)[1].strip("/")
        assert fetch_status(url + "api/saved") == 200
        assert fetch_status(url + "api/saved", host=f"box.example:{port}") == 200
        assert fetch_status(url + "api/saved", host=f"evil.example:{port}", origin=f"http://evil.example:{port}") == 400
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.process
@pytest.mark.parametrize("bind", ["localhost", "::1", "127.0.0.2"])
def test_a_loopback_bind_refuses_a_rebound_host_whatever_its_name(tmp_path: Path, bind: str) -> None:
    """DNS rebinding: a page of evil.example whose name now resolves to this machine sends
    Host and Origin evil.example:PORT; it was answered 200 when the bind was not 127.0.0.1."""
    if bind == "::1" and not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    process, url, before = start_server("--host", bind, games_dir=tmp_path)
    try:
        assert before == []   # a loopback address: nothing to warn about
        port = url.rsplit(":", 1)[1].strip("/")
        assert fetch_status(url + "api/saved") == 200
        assert fetch_status(url + "api/saved", host=f"evil.example:{port}", origin=f"http://evil.example:{port}") == 400
        assert fetch_status(url, host=f"evil.example:{port}") == 400
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_allowed_hosts_are_the_loopback_names_the_bound_address_and_the_allow_list() -> None:
    from margo_gtp.web.cli import allowed_hosts

    assert allowed_hosts("127.0.0.1", []) == ["127.0.0.1", "localhost", "[::1]"]
    assert allowed_hosts("::1", []) == ["127.0.0.1", "localhost", "[::1]"]
    assert allowed_hosts("127.0.0.2", []) == ["127.0.0.1", "localhost", "[::1]", "127.0.0.2"]
    assert allowed_hosts("0.0.0.0", ["fe80::1", "lan.example"]) == [
        "127.0.0.1", "localhost", "[::1]", "[fe80::1]", "lan.example"]
    for bad in ("*", "*.example", "a b", "evil.example:80", ""):
        with pytest.raises(typer.BadParameter) as error:
            allowed_hosts("0.0.0.0", [bad])
        assert error.value.message == f"not a host name or address: {bad!r}"


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
        serving = process.stderr.readline()
        assert serving.startswith(f"margo-web {__version__}: serving on http://[::1]:"), serving
        with urllib.request.urlopen(serving.split(" on ")[1].split()[0], timeout=30) as response:
            assert b"<title>margo-web</title>" in response.read()
    finally:
        process.terminate()
        process.wait(timeout=30)
