"""margo-match/margo-tournament --cluster against a real Ray (the ``cluster`` extra).

One Ray head for the whole module (``ray start --head --block`` on 127.0.0.1, token
authentication on, ended by its PID): starting Ray takes several seconds, so the tests
share it. Each test drives margo-match as a user would, in its own process.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from needs import need_module

need_module("ray", "the cluster extra; scripts/setup installs it")

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
MARGO_MATCH = str(BIN / "margo-match")
MARGO_TOURNAMENT = str(BIN / "margo-tournament")
FAKES = Path(__file__).parent / "fake_engines"
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
GAME_FIELDS = ("game", "a_colour", "white", "black", "winner", "result", "reason", "forfeit", "balls", "move_count", "opening")


def seeded(seed: int) -> str:
    """An engine whose every game depends only on its seed (reseeded at clear_board)."""
    return shlex.join([sys.executable, str(FAKES / "per_game_seeded.py"), "--seed", str(seed)])


def gated(gate: Path, open_games: int, engine: str) -> str:
    gate.mkdir(exist_ok=True)
    return shlex.join([sys.executable, str(FAKES / "gated.py"), str(gate), str(open_games), "--", *shlex.split(engine)])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def results(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def game_facts(records: list[dict]) -> list[dict]:
    """What each game is, without its timings, in game order."""
    records = sorted(records, key=lambda r: r["game"])
    return [{**{key: r.get(key) for key in GAME_FIELDS}, "moves": [(m["colour"], m["move"], m["engine"]) for m in r["moves"]]} for r in records]


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory):
    """``(address, environment)`` of a Ray head with 2 CPUs and token authentication."""
    home = tmp_path_factory.mktemp("ray-head")
    token = home / "auth_token"
    token.write_text(secrets.token_hex(32))
    environment = {key: value for key, value in os.environ.items() if not key.startswith("RAY_")}
    environment.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    port = free_port()
    log = open(home / "head.log", "w")
    head = subprocess.Popen(
        [str(BIN / "ray"), "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "2",
         "--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", str(home / "tmp")],
        stdout=log, stderr=subprocess.STDOUT, env=environment,
    )
    try:
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in (home / "head.log").read_text():
            assert head.poll() is None, (home / "head.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the Ray head did not start"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}", environment
    finally:
        head.send_signal(signal.SIGTERM)  # ray start --block stops its Ray processes on SIGTERM
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        log.close()


def match(ray_head, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    address, environment = ray_head
    return subprocess.run([MARGO_MATCH, *args, "--cluster", address, "--no-progress"], capture_output=True, text=True, timeout=timeout, env=environment)


def test_a_cluster_match_plays_the_same_games_as_the_local_backend(ray_head, tmp_path):
    common = [seeded(1), seeded(2), "--games", "6", "--size", "4", "--json", "--quiet"]
    local = subprocess.run([MARGO_MATCH, *common, "--out", str(tmp_path / "local"), "--no-progress"], capture_output=True, text=True, timeout=120)
    assert local.returncode == 0, local.stderr
    done = match(ray_head, *common, "--out", str(tmp_path / "ray"))
    assert done.returncode == 0, done.stderr
    assert game_facts(results(tmp_path / "ray")) == game_facts(results(tmp_path / "local"))
    summary = json.loads(done.stdout)
    assert summary["run"]["cluster"] == ray_head[0] and summary["run"]["games_played"] == 6
    assert summary["run"]["parallel"] == 2  # one game slot per CPU of the head
    for record in results(tmp_path / "ray"):  # the referee wrote every SGF
        assert (tmp_path / "ray" / record["sgf"]).read_text().startswith("(;FF[4]")


def test_a_worker_killed_mid_game_has_its_game_replayed_exactly_once(ray_head, tmp_path):
    out, gate = tmp_path / "out", tmp_path / "gate"
    gate.mkdir()
    (gate / "closed").touch()  # games 3 and later wait at engine A's first genmove
    address, environment = ray_head
    referee = subprocess.Popen(
        [MARGO_MATCH, gated(gate, 2, seeded(1)), seeded(2), "--games", "8", "--size", "3", "--cluster", address,
         "--out", str(out), "--no-progress", "--json", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )
    try:
        deadline = time.monotonic() + 120
        while not (held := sorted(gate.glob("held-*"))):
            assert referee.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        proxy = int(held[0].name.split("-")[1])
        status = Path(f"/proc/{proxy}/status").read_text()
        actor = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
        os.kill(actor, signal.SIGKILL)  # the Ray worker process playing that game
        (gate / "closed").unlink()
        stdout, stderr = referee.communicate(timeout=180)
    finally:
        referee.kill()
    assert referee.returncode == 0, stderr
    games = [record["game"] for record in results(out)]
    assert sorted(games) == list(range(1, 9))  # every game once: none lost, none twice
    replays = [line for line in stderr.splitlines() if "its Ray worker was lost; playing it again" in line]
    assert len(replays) == 1
    assert json.loads(stdout)["games"] == 8


def test_a_cluster_run_resumes_after_the_referee_is_killed(ray_head, tmp_path):
    out, gate = tmp_path / "out", tmp_path / "gate"
    gate.mkdir()
    (gate / "closed").touch()
    address, environment = ray_head
    command = [MARGO_MATCH, gated(gate, 2, seeded(1)), seeded(2), "--games", "5", "--size", "3", "--cluster", address,
               "--out", str(out), "--no-progress", "--json", "--quiet"]
    referee = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    deadline = time.monotonic() + 120
    while not ((out / "results.jsonl").exists() and len(results(out)) == 2 and any(gate.glob("held-*"))):
        assert referee.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    referee.send_signal(signal.SIGKILL)
    referee.wait()
    (gate / "closed").unlink()
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, env=environment)
    assert done.returncode == 0, done.stderr
    assert sorted(record["game"] for record in results(out)) == [1, 2, 3, 4, 5]
    assert json.loads(done.stdout)["run"]["games_played"] == 3


def test_an_engine_missing_on_the_workers_stops_the_match_before_any_game(ray_head, tmp_path):
    done = match(ray_head, "no-such-engine-xyz", seeded(2), "--games", "4", "--size", "3", "--out", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("margo-match: on node ")
    assert "cannot start engine A 'no-such-engine-xyz'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "results.jsonl").exists()


def test_a_tournament_runs_on_the_cluster(ray_head, tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(
        'games = 2\nsize = 3\nparallel = 2\nout = "t"\n'
        + "".join(f'[[engines]]\nname = "s{seed}"\ncommand = {json.dumps(seeded(seed))}\n' for seed in (1, 2, 3))
    )
    address, environment = ray_head
    done = subprocess.run([MARGO_TOURNAMENT, str(config), "--cluster", address, "--no-progress", "--json", "--quiet"],
                          capture_output=True, text=True, timeout=180, env=environment)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 6
    assert len(list((tmp_path / "t").glob("*/summary.json"))) == 3


def test_a_wrong_token_is_refused_by_the_cluster(ray_head, tmp_path):
    """Token authentication stays on: a driver with another token cannot use the cluster."""
    address, environment = ray_head
    done = subprocess.run(
        [MARGO_MATCH, seeded(1), seeded(2), "--games", "2", "--size", "3", "--cluster", address, "--out", str(tmp_path), "--no-progress"],
        capture_output=True, text=True, timeout=180, env={**environment, "RAY_AUTH_TOKEN": "not-the-token"},
    )
    assert done.returncode == 2
    assert f"margo-match: cannot connect to the Ray cluster at '{address}'" in done.stderr
    assert not (tmp_path / "results.jsonl").exists()


def refusal_to_connect(port: int, out: Path) -> str:
    """Runs a match against --cluster 127.0.0.1:PORT, which must be refused before any game
    (exit 2, no results); returns the one line that says why."""
    done = subprocess.run(
        [MARGO_MATCH, seeded(1), seeded(2), "--games", "2", "--size", "3", "--cluster", f"127.0.0.1:{port}",
         "--out", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert not (out / "results.jsonl").exists()
    return done.stderr.splitlines()[-1]


def test_an_address_where_no_cluster_listens_is_refused_at_once(tmp_path):
    """Ray alone waits minutes on a dead address, printing its own log lines."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # free again once closed: nothing listens there
    assert refusal_to_connect(port, tmp_path) == (f"margo-match: cannot connect to the Ray cluster at '127.0.0.1:{port}': "
                                                  f"nothing answers at 127.0.0.1:{port} (Connection refused)")


def test_cluster_local_starts_a_private_ray_for_the_match_and_stops_it(tmp_path):
    # RAY_TMPDIR: every process of this Ray names it on its command line. A short path:
    # Ray's socket paths under it must fit in 107 bytes.
    ray_tmp = Path(tempfile.mkdtemp(prefix="mr-", dir="/tmp"))
    environment = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    try:
        done = subprocess.run(
            [MARGO_MATCH, seeded(1), seeded(2), "--games", "2", "--size", "3", "--cluster", "local", "--out", str(tmp_path / "out"),
             "--no-progress", "--json", "--quiet"],
            capture_output=True, text=True, timeout=180, env={**environment, "RAY_TMPDIR": str(ray_tmp)},
        )
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        assert summary["games"] == 2 and summary["run"]["cluster"] == "local"
        assert any(ray_tmp.iterdir())  # that Ray did run there
        deadline = time.monotonic() + 30
        while processes_mentioning(str(ray_tmp)):
            assert time.monotonic() < deadline, processes_mentioning(str(ray_tmp))
            time.sleep(0.2)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that contain ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(cmdline)
    return found


def test_actors_that_cannot_start_stop_the_match_instead_of_respawning_forever(ray_head, tmp_path):
    """A working_dir whose margo_gtp cannot be imported: every actor dies in its
    creation task, and the referee gives up with the reason instead of looping."""
    broken = tmp_path / "broken" / "margo_gtp"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('margo_gtp is broken on this worker')\n")
    done = match(ray_head, seeded(1), seeded(2), "--games", "2", "--size", "3", "--out", str(tmp_path / "out"),
                 "--runtime-env", json.dumps({"working_dir": str(broken.parent)}))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("margo-match: Ray actors die before they can start: ")
    assert not (tmp_path / "out" / "results.jsonl").exists()


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--games", "0"], "--games, --slots, --node-games and --rounds must be at least 1"),
        (["--size", "20"], "--size must be between 2 and 19: 20"),
        (["--nodes", "1,two"], "--nodes takes comma-separated node counts: '1,two'"),
        (["--nodes", "0"], "--nodes: every node count must be at least 1: '0'"),
        (["--engine", ""], "--engine is empty"),
        (["--node-engine", "'unclosed"], "--node-engine: No closing quotation: \"'unclosed\""),
    ],
)
def test_cluster_bench_refuses_bad_options_before_starting_ray(tmp_path, options, error):
    out = tmp_path / "bench"
    done = subprocess.run([str(SCRIPTS / "cluster-bench"), "--out", str(out), *options],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"cluster-bench: error: {error}"
    assert not out.exists()


def test_cluster_bench_will_not_write_into_an_existing_directory(tmp_path):
    done = subprocess.run([str(SCRIPTS / "cluster-bench"), "--out", str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"cluster-bench: error: --out: already exists (each run writes new match directories): '{tmp_path}'")


def test_an_address_where_something_else_listens_is_refused_within_seconds(tmp_path):
    """Ray retried for minutes against a port held by a server that is not Ray's."""
    import threading

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        accepted = []
        threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()  # accepts, never answers
        refusal = refusal_to_connect(port, tmp_path)
    assert refusal == (f"margo-match: cannot connect to the Ray cluster at '127.0.0.1:{port}': something "
                       f"listens at 127.0.0.1:{port}, but it is not a Ray cluster (no gRPC answer within 5 s)")
