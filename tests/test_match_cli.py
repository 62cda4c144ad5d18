"""margo-match and margo-tournament from a user's side: bad input, per-game lines, SPRT,
openings, adjudication, the live feed, engines that die at start-up."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from margo_gtp import sgf
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.game.faults import CRASH, START_FAILED

from margo_gtp.match.referee import measure_parallel, run_match
from margo_gtp.match.match_config import EngineSpec, MatchConfig
from margo_gtp.match.referee_cli import match_app, tournament_app
from margo_gtp.match.sprt import SprtSpec
from margo_gtp.match.stats import model_counts
from needs import need_module

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
MARGO_MATCH = str(BIN / "margo-match")
MARGO_TOURNAMENT = str(BIN / "margo-tournament")
MARGO_GTP = str(BIN / "margo-gtp")
FAKES = Path(__file__).parent / "fake_engines"
RANDOM = f"{MARGO_GTP} --player random"


def faulty(*args: str) -> str:
    return shlex.join([sys.executable, str(FAKES / "faulty_engine.py"), *args])


def gated(gate: Path, open_games: int, engine: str) -> str:
    gate.mkdir(exist_ok=True)
    return shlex.join([sys.executable, str(FAKES / "gated.py"), str(gate), str(open_games), "--", *shlex.split(engine)])


def results(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def run_cli(app, args: list[str]):
    return CliRunner().invoke(app, args, catch_exceptions=False)


# ---------------------------------------------------------------------------------------
# Bad input: one line, exit 2, nothing written


@pytest.mark.parametrize(
    "options, message",
    [
        (["--move-timeout", "-1"], "margo-match: --move-timeout must be 0 (no limit) or a positive number of seconds: -1"),
        (["--command-timeout", "0"], "margo-match: --command-timeout must be a positive number of seconds: 0"),
        (["--max-moves", "-5"], "margo-match: --max-moves must be 0 (never) or a positive number of moves: -5"),
        (["--time-control", "-5"], "margo-match: time control values must be finite and not negative: '-5'"),
        (["--time-control", "0 0 0"], "margo-match: time control gives no time at all: '0 0 0'"),
        (["--sprt", "elo0=5 elo1=0"], "margo-match: --sprt needs elo0 < elo1: elo0=5 elo1=0"),
        (["--adjudicate", "margin=0 moves=3"], "margo-match: --adjudicate needs margin > 0 and moves >= 1: 'margin=0 moves=3'"),
        (["--adjudicate", "moves=3"], "margo-match: --adjudicate takes margin=M moves=N: 'moves=3'"),
        (["--runtime-env", "[1]", "--cluster", "local"], "margo-match: --runtime-env must be a JSON object or @FILE: '[1]'"),
        (["--wire-log", "--cluster", "local"], "margo-match: --wire-log is not available with --cluster: the engines run on other machines"),
        (["--engine-a", "margo-gtp 'mcts"], "margo-match: ENGINE_A: cannot split the engine command (No closing quotation): \"margo-gtp 'mcts\""),
        (["--engine-b", "  "], "margo-match: ENGINE_B: empty engine command: '  '"),
        (["--rule", "swap=on", "--rule", "swap=off"], "margo-match: --rule swap given twice"),
        (["--rule", "komi"], "margo-match: --rule takes K=V: 'komi'"),
        (["--runtime-env", "{}"], "margo-match: --runtime-env needs --cluster: it says what Ray ships to the cluster's workers"),
        (["--name-a", "x", "--name-b", "x"], "margo-match: --name-a and --name-b must differ (the tables tell the engines apart by name): 'x'"),
        (["--runtime-env", "@/dev/zero", "--cluster", "local"],
         "margo-match: --runtime-env: cannot read /dev/zero: is a character device, not a regular file"),
        (["--cluster", ""], "margo-match: --cluster needs an address: 'local', 'auto', HOST:PORT or ray://HOST:PORT: ''"),
        (["--cluster", "ray://"], "margo-match: --cluster takes 'local', 'auto', HOST:PORT or ray://HOST:PORT: no host: 'ray://'"),
        (["--cluster", "ray://127.0.0.1:abc"],
         "margo-match: --cluster takes 'local', 'auto', HOST:PORT or ray://HOST:PORT: the port is not a number: 'ray://127.0.0.1:abc'"),
        (["--cluster", "ray://127.0.0.1"], "margo-match: --cluster takes 'local', 'auto', HOST:PORT or ray://HOST:PORT: no port: 'ray://127.0.0.1'"),
        (["--cluster", ":6379"], "margo-match: --cluster takes 'local', 'auto', HOST:PORT or ray://HOST:PORT: no host: ':6379'"),
        (["--cluster", "127.0.0.1:"],
         "margo-match: --cluster takes 'local', 'auto', HOST:PORT or ray://HOST:PORT: no port after the colon: '127.0.0.1:'"),
        (["--cluster", "127.0.0.1:70000"], "margo-match: --cluster port must be 1 to 65535: '127.0.0.1:70000'"),
        (["--cluster", "http://head:10001"],
         "margo-match: --cluster takes 'local', 'auto', HOST:PORT or ray://HOST:PORT: the only scheme is ray://: 'http://head:10001'"),
    ],
)
def test_bad_limits_are_one_line_errors_with_exit_2(tmp_path, options, message):
    out = tmp_path / "out"
    engines = {"--engine-a": "a", "--engine-b": "b"}
    for flag in engines:  # the two engine commands are positional: replace one by the case's
        if flag in options:
            at = options.index(flag)
            engines[flag], options = options[at + 1], options[:at] + options[at + 2:]
    result = run_cli(match_app(), [engines["--engine-a"], engines["--engine-b"], "--out", str(out), *options])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [message]
    assert not out.exists()


def test_out_naming_a_file_or_a_folder_under_a_file_is_refused(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    for out, message in [
        (afile, f"margo-match: --out {afile} is a file, not a directory"),
        (afile / "sub", f"margo-match: --out {afile / 'sub'} lies under {afile}, which is a file, not a directory"),
    ]:
        result = run_cli(match_app(), [RANDOM, RANDOM, "--out", str(out)])
        assert (result.exit_code, result.stderr.splitlines()) == (2, [message])
    assert afile.read_text() == "keep me"


def test_opening_book_errors_name_the_file_and_line(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("C3:1\nC3:1 C3:1\n")
    result = run_cli(match_app(), ["a", "b", "--size", "5", "--openings", str(book), "--out", str(tmp_path / "o")])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [f"margo-match: --openings: {book}:2: B C3:1 is illegal there"])
    missing = tmp_path / "missing.sgf"
    result = run_cli(match_app(), ["a", "b", "--openings", str(missing), "--out", str(tmp_path / "o")])
    assert result.stderr.splitlines() == [f"margo-match: --openings: cannot read opening book {missing}: No such file or directory"]


def test_tournament_rejects_a_binary_file_and_an_out_that_is_a_file(tmp_path):
    binary = tmp_path / "config.toml"
    binary.write_bytes(b"\xff\xfe\x00binary\x80")
    result = run_cli(tournament_app(), [str(binary)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [f"margo-tournament: {binary}: not a text file (a TOML configuration is UTF-8 text)"])
    (tmp_path / "taken").write_text("")
    config = tmp_path / "t.toml"
    config.write_text(f'out = "taken"\n[[engines]]\ncommand = "{RANDOM}"\nname = "x"\n[[engines]]\ncommand = "{RANDOM}"\nname = "y"\n')
    result = run_cli(tournament_app(), [str(config)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [f"margo-tournament: the tournament's out {tmp_path / 'taken'} is a file, not a directory"])
    config.write_text(f'move_timeout = -1\n[[engines]]\ncommand = "a"\n[[engines]]\ncommand = "b"\n')
    result = run_cli(tournament_app(), [str(config)])
    assert result.stderr.splitlines() == ["margo-tournament: 'move_timeout' must be 0 (no limit) or a positive number of seconds: -1"]


def test_tournament_help_points_to_docs_that_exist():
    result = run_cli(tournament_app(), ["--help"])
    repo = Path(__file__).resolve().parent.parent
    named = [word.rstrip(".,") for word in result.stdout.split() if word.startswith("docs/")]
    assert named and all((repo / path).is_file() for path in named), named


def test_an_engine_that_dies_at_start_up_stops_the_match_with_its_stderr(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [MARGO_MATCH, f"{MARGO_GTP} --player bogus", RANDOM, "--games", "4", "--size", "3", "--out", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert f"margo-match: engine A '{MARGO_GTP} --player bogus' stopped during start-up:" in done.stderr
    assert "unknown player 'bogus'" in done.stderr  # the engine's own words
    assert "Traceback" not in done.stderr
    assert not (out / "results.jsonl").exists()


def test_a_typo_in_an_engine_command_does_not_block_the_corrected_rerun(tmp_path):
    out = tmp_path / "out"
    typo = subprocess.run([MARGO_MATCH, "margo-gpt", RANDOM, "--games", "2", "--size", "3", "--out", str(out), "--no-progress"], capture_output=True, text=True, timeout=60)
    assert typo.returncode == 2 and "cannot start engine A 'margo-gpt'" in typo.stderr
    fixed = subprocess.run([MARGO_MATCH, RANDOM, RANDOM, "--games", "2", "--size", "3", "--out", str(out), "--no-progress", "--json"], capture_output=True, text=True, timeout=60)
    assert fixed.returncode == 0, fixed.stderr
    assert json.loads(fixed.stdout)["games"] == 2
    assert json.loads((out / "match.json").read_text())["engines"]["A"]["command"] == RANDOM


# ---------------------------------------------------------------------------------------
# What a match prints and writes


def test_per_game_lines_score_lines_and_the_output_folder(tmp_path):
    out = tmp_path / "out"
    command = [MARGO_MATCH, f"{RANDOM} --seed 1", f"{RANDOM} --seed 2", "--games", "3", "--size", "3", "--out", str(out),
               "--no-progress", "--name-a", "alpha", "--name-b", "beta", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == f"margo-match: writing to {out}{os.sep} (results.jsonl, game-NNNN.sgf, summary.json)"
    records = results(out)
    wins = losses = 0
    expected = [lines[0]]
    for record in records:
        white, black = ("alpha", "beta") if record["a_colour"] == "W" else ("beta", "alpha")
        expected.append(f"Finished game {record['game']} ({white} vs {black}): {record['result']} {{{record['reason']}}}")
        wins += record["winner"] == "A"
        losses += record["winner"] == "B"
        count = record["game"]
        draws = count - wins - losses
        expected.append(f"Score of alpha vs beta: {wins} - {losses} - {draws}  [{(wins + draws / 2) / count:.3f}] {count}")
    assert lines == expected
    json.loads(done.stdout)  # stdout stays pure JSON
    quiet = subprocess.run([*command, "--quiet", "--out", str(tmp_path / "q")], capture_output=True, text=True, timeout=120)
    assert quiet.stderr.splitlines() == [f"margo-match: writing to {tmp_path / 'q'}{os.sep} (results.jsonl, game-NNNN.sgf, summary.json)"]


def test_sprt_stops_as_soon_as_the_llr_crosses_a_bound_and_a_rerun_plays_nothing(tmp_path):
    out = tmp_path / "out"
    # Two equal random players: an even score soon makes +200 Elo implausible (H0).
    command = [MARGO_MATCH, faulty("--seed", "1"), faulty("--seed", "2"), "--games", "300", "--size", "3",
               "--sprt", "elo0=0 elo1=200", "--out", str(out), "--no-progress", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    spec = SprtSpec(0, 200)
    records = results(out)
    statuses = [spec.status(model_counts(records[:n], paired=False)) for n in range(1, len(records) + 1)]
    # Stopped at the first game that took the LLR out of its bounds, not one later.
    assert [s["result"] is not None for s in statuses] == [False] * (len(records) - 1) + [True]
    assert summary["games"] == len(records) < 300
    assert summary["sprt"] == statuses[-1] and summary["sprt"]["result"] in ("H0", "H1")
    assert summary["statistics"]["model"] == "trinomial" and sum(summary["statistics"]["trinomial"]) == len(records)
    last = done.stderr.splitlines()[-1]
    assert last.endswith(f"LLR {statuses[-1]['llr']:.2f} (-2.94, 2.94) {statuses[-1]['result']} accepted")
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert json.loads(again.stdout)["run"]["games_played"] == 0


def test_openings_are_played_twice_with_colours_reversed(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("# two openings\nC3:1\n\nB2:1 D4:1\n")
    out, log = tmp_path / "out", tmp_path / "a.log"
    done = subprocess.run(
        [MARGO_MATCH, faulty("--seed", "1", "--log", str(log)), faulty("--seed", "2"), "--games", "5", "--size", "5",
         "--openings", str(book), "--out", str(out), "--no-progress", "--json", "--quiet"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    records = results(out)
    assert [r["opening"]["number"] for r in records] == [1, 1, 2, 2, 1]
    assert [r["opening"]["moves"] for r in records[:3]] == [["W C3:1"], ["W C3:1"], ["W B2:1", "B D4:1"]]
    assert [r["a_colour"] for r in records] == ["W", "B", "W", "B", "W"]
    summary = json.loads(done.stdout)
    assert summary["statistics"]["model"] == "pentanomial" and summary["statistics"]["pairs"] == 2
    for record in records:
        game = sgf.loads((out / record["sgf"]).read_text())
        opening = [f"{colour.letter} {move.gtp()}" for colour, move in game.moves[: len(record["opening"]["moves"])]]
        assert opening == record["opening"]["moves"]
        board = sgf.replay(game)
        assert board.outcome() is not None and board.outcome().result() == record["result"]
    commands = log.read_text().splitlines()
    first_genmove = next(i for i, line in enumerate(commands) if "genmove" in line)
    assert any(line.endswith("play W C3:1") for line in commands[:first_genmove])


def test_adjudication_by_margin_and_max_moves_use_the_rules_scoring(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [MARGO_MATCH, f"{RANDOM} --seed 3", f"{RANDOM} --seed 4", "--games", "2", "--size", "5", "--rule", "scoring=territory",
         "--adjudicate", "margin=2 moves=2", "--max-moves", "12", "--out", str(out), "--no-progress", "--quiet"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rules = Rules(size=5, scoring="territory")
    for record in results(out):
        board = Board(rules)
        leads = []
        for move in record["moves"]:
            board.push(Move.from_gtp(move["move"], 5), Colour.WHITE if move["colour"] == "W" else Colour.BLACK)
            white, black = board.score()
            leads.append("W" if white - black >= 2 else "B" if black - white >= 2 else None)
        assert record["reason"] in ("adjudicated by margin", "adjudicated at max moves", "no legal move")
        white, black = board.score()
        if record["reason"] == "adjudicated by margin":
            assert leads[-1] is not None and leads[-1] == leads[-2] and record["result"].startswith(leads[-1])
            assert all(leads[i] is None or leads[i] != leads[i + 1] for i in range(len(leads) - 2))
        if record["reason"].startswith("adjudicated"):
            assert record["result"] == (f"W+{white - black:g}" if white > black else f"B+{black - white:g}" if black > white else "0")


def test_deterministic_engines_without_a_book_get_a_warning(tmp_path):
    # Four games in four fresh worker processes: seeded engines replay games 1 and 3 (and 2 and 4).
    engine = f"{MARGO_GTP} --player heuristic --seed 1"
    done = subprocess.run(
        [MARGO_MATCH, engine, engine, "--games", "4", "--size", "3", "--parallel", "4", "--out", str(tmp_path), "--no-progress", "--quiet"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "are move for move the same: the engines look deterministic, so the games will repeat" in warnings[0]


def test_live_feed_follows_a_running_game_and_is_removed_after_its_record(tmp_path):
    out, gate = tmp_path / "out", tmp_path / "gate"
    (gate.mkdir(), (gate / "closed").touch())
    referee = subprocess.Popen(
        [MARGO_MATCH, gated(gate, 1, faulty("--seed", "1")), faulty("--seed", "2"), "--games", "2", "--size", "3", "--rule", "komi=0.5",
         "--out", str(out), "--no-progress", "--quiet", "--name-a", "alpha", "--name-b", "beta"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(gate.glob("held-*")):  # game 1 is written, game 2 waits for A's move
            assert time.monotonic() < deadline and referee.poll() is None
            time.sleep(0.05)
        assert [r["game"] for r in results(out)] == [1]
        assert sorted(p.name for p in (out / "live").iterdir()) == ["game-0002.jsonl"]
        lines = [json.loads(line) for line in (out / "live" / "game-0002.jsonl").read_text().splitlines()]
        # Game 2: A (alpha) is Black; White moves first, so B's first move is there and A's is held.
        assert lines[0] == {"type": "start", "game": 2, "black": "alpha", "white": "beta", "size": 3,
                            "rules": Rules(size=3, komi=0.5).options(), "setup": []}
        assert [line["type"] for line in lines[1:]] == ["move"] and lines[1]["ply"] == 1 and lines[1]["colour"] == "W"
        (gate / "closed").unlink()
        assert referee.wait(timeout=60) == 0
    finally:
        referee.kill()
    record = results(out)[1]
    assert lines[1]["move"] == record["moves"][0]["move"]
    assert not (out / "live").exists()


def test_tournament_pairings_get_their_own_summary(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(
        f'games = 2\nsize = 3\nout = "t"\n[[engines]]\nname = "r1"\ncommand = "{RANDOM} --seed 1"\n'
        f'[[engines]]\nname = "r2"\ncommand = "{RANDOM} --seed 2"\n'
    )
    done = subprocess.run([MARGO_TOURNAMENT, str(config), "--no-progress", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pairing = tmp_path / "t" / "01-r1-vs-r2"
    summary = json.loads((pairing / "summary.json").read_text())
    assert summary["games"] == 2 and summary["engines"]["A"]["name"] == "r1"
    assert summary["statistics"]["trinomial"] == model_counts(results(pairing), paired=False)
    assert sum(1 for line in done.stderr.splitlines() if line.startswith("Finished game")) == 2


# ---------------------------------------------------------------------------------------
# Engine restarts and measure_parallel


def test_an_engine_that_ran_once_and_cannot_restart_forfeits_with_start_failed(tmp_path):
    """The engine crashes in game 1 and its program is gone before game 2 needs a restart."""
    script = tmp_path / "vanishing-engine"
    script.write_text(f'#!/bin/sh\nrm -- "$0"\nexec {faulty("--fault", "crash", "--at", "2", "--seed", "3")}\n')
    script.chmod(0o755)
    config = MatchConfig(EngineSpec("A", "good", faulty("--seed", "1")), EngineSpec("B", "vanishing", str(script)), 3, Rules(size=3))
    run = run_match(config, tmp_path / "out")
    forfeits = [(r["game"], r["forfeit"]["engine"], r["forfeit"]["reason"]) for r in run.records]
    assert forfeits == [(1, "B", CRASH), (2, "B", START_FAILED), (3, "B", START_FAILED)]
    assert "cannot start engine B" in run.records[1]["forfeit"]["detail"]


def test_measure_parallel_plays_a_fresh_match_per_setting(tmp_path):
    rates = measure_parallel(f"{RANDOM} --seed 1", f"{RANDOM} --seed 2", tmp_path, games=4, size=3, parallels=(1, 2))
    assert set(rates) == {1, 2} and all(rate is not None and rate > 0 for rate in rates.values())
    for parallel in (1, 2):
        records = results(tmp_path / f"parallel-{parallel}")
        assert sorted(r["game"] for r in records) == [1, 2, 3, 4]
        summary_of_run = json.loads((tmp_path / f"parallel-{parallel}" / "match.json").read_text())
        assert summary_of_run["rules"]["size"] == 3
    with pytest.raises(FileExistsError, match="parallel-1 exists: measure into a fresh directory"):
        measure_parallel(RANDOM, RANDOM, tmp_path, games=1, size=3, parallels=(1,))


def test_a_local_match_never_imports_ray(tmp_path):
    code = (
        "import sys\n"
        "from margo_gtp.match.referee_cli import match_app\n"
        "from typer.testing import CliRunner\n"
        f"result = CliRunner().invoke(match_app(), [{RANDOM!r}, {RANDOM!r}, '--games', '2', '--size', '3', '--parallel', '2', "
        f"'--out', {str(tmp_path / 'out')!r}, '--quiet', '--no-progress'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print(sorted(name for name in sys.modules if name == 'ray' or name.startswith('ray.') or name == 'margo_gtp.match.cluster'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_backend_that_returns_a_game_twice_gets_it_written_once_and_stop_when_ends_the_match(tmp_path):
    """What the Ray backend relies on: commit ignores a game number already written (a
    replayed game whose first play also came back), and stop_when (the SPRT) stops it."""
    config = MatchConfig(EngineSpec("A", "a", "unused"), EngineSpec("B", "b", "unused"), 5, Rules(size=3))

    def twice(config, directory, games, commit):
        for game in games:
            record = {"game": game, "winner": "A", "a_colour_final": "W", "reason": "test", "sgf": f"game-{game:04d}.sgf"}
            commit(record, "(;FF[4]GM[77]SZ[3])")
            commit({**record, "winner": "B"}, "(;FF[4]GM[77]SZ[3]C[second])")

    run = run_match(config, tmp_path, backend=twice, stop_when=lambda records: len(records) == 3)
    assert run.stopped and not run.interrupted
    assert [(r["game"], r["winner"]) for r in results(tmp_path)] == [(1, "A"), (2, "A"), (3, "A")]
    assert "second" not in (tmp_path / "game-0001.sgf").read_text()
    resumed = run_match(config, tmp_path, backend=twice, stop_when=lambda records: len(records) >= 3)
    assert resumed.stopped is False and resumed.games_played == 0  # decided before the first game


def test_the_cluster_start_up_check_names_the_node_and_the_engine(tmp_path):
    need_module("ray", "the cluster extra; scripts/setup installs it")
    import socket

    from margo_gtp.match.cluster import GameSlot
    from margo_gtp.game.faults import EngineStartError

    good = GameSlot(MatchConfig(EngineSpec("A", "a", faulty()), EngineSpec("B", "b", RANDOM), 1, Rules(size=3)))
    try:
        report = good.check()
    finally:
        good.runner.close()
    assert report["engines"] == {"A": "faulty 1", "B": "margo-gtp 0.1.0"} and report["host"] == socket.gethostname()
    missing = GameSlot(MatchConfig(EngineSpec("A", "a", RANDOM), EngineSpec("B", "b", "no-such-engine-xyz"), 1, Rules(size=3)))
    with pytest.raises(EngineStartError) as error:
        missing.check()
    missing.runner.close()
    assert str(error.value).startswith(f"on node {socket.gethostname()}: cannot start engine B 'no-such-engine-xyz': ")


# ---------------------------------------------------------------------------------------
# One writer per folder; folders of the other tool; files that are directories


def test_a_second_referee_on_a_locked_folder_is_refused_naming_the_holder(tmp_path):
    import socket

    from margo_gtp.runlock import lock_folder

    out = tmp_path / "out"
    with lock_folder(out):  # this test process plays the first referee
        done = subprocess.run([MARGO_MATCH, RANDOM, RANDOM, "--games", "1", "--size", "3", "--out", str(out), "--no-progress"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        holder = json.loads((out / ".lock").read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
        assert done.stderr.splitlines() == [
            f"margo-match: {out} is in use by another run: pid {os.getpid()} on host {holder['host']}, "
            f"since {holder['started']}: {holder['command']}; wait for it or use another --out"
        ]
        assert not (out / "results.jsonl").exists()
        config = tmp_path / "t.toml"
        config.write_text(f'out = "out"\ngames = 1\nsize = 3\n[[engines]]\ncommand = "{RANDOM}"\nname = "x"\n'
                          f'[[engines]]\ncommand = "{RANDOM}"\nname = "y"\n')
        done = subprocess.run([MARGO_TOURNAMENT, str(config), "--no-progress"], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr.splitlines()[-1]) == (2, (
            f"margo-tournament: {out} is in use by another run: pid {os.getpid()} on host {holder['host']}, "
            f"since {holder['started']}: {holder['command']}; wait for it or use another 'out'"))
    done = subprocess.run([MARGO_MATCH, RANDOM, RANDOM, "--games", "1", "--size", "3", "--out", str(out), "--no-progress", "-q"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and len(results(out)) == 1


def test_the_lock_of_a_killed_referee_is_gone_with_it(tmp_path):
    from margo_gtp.runlock import lock_folder

    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", f"from margo_gtp.runlock import lock_folder; from pathlib import Path; "
                               f"lock_folder(Path({str(out)!r})); print('held', flush=True); import time; time.sleep(600)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(ValueError, match=f"in use by another run: pid {holder.pid} "):
            lock_folder(out)
    finally:
        holder.kill()
        holder.wait()
    lock_folder(out).release()  # kill -9 released it: no stale lock to clean up


def test_match_and_tournament_folders_are_not_mixed_and_a_summary_that_is_a_directory_is_found_first(tmp_path):
    tournament_folder = tmp_path / "t"
    tournament_folder.mkdir()
    (tournament_folder / "tournament.json").write_text("{}")
    result = run_cli(match_app(), [RANDOM, RANDOM, "--out", str(tournament_folder)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"margo-match: --out {tournament_folder} is a margo-tournament folder (it holds tournament.json); use another --out"])
    match_folder = tmp_path / "m"
    match_folder.mkdir()
    (match_folder / "match.json").write_text("{}")
    config = tmp_path / "t.toml"
    config.write_text(f'out = "m"\n[[engines]]\ncommand = "{RANDOM}"\nname = "x"\n[[engines]]\ncommand = "{RANDOM}"\nname = "y"\n')
    result = run_cli(tournament_app(), [str(config)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"margo-tournament: 'out' {match_folder} is a margo-match folder (it holds match.json); use another 'out'"])
    fresh = tmp_path / "fresh"
    (fresh / "summary.json").mkdir(parents=True)
    result = run_cli(match_app(), [RANDOM, RANDOM, "--games", "1", "--size", "3", "--out", str(fresh)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"margo-match: {fresh / 'summary.json'} is a directory; the run writes a file there: move it away or use another --out"])
    assert not (fresh / "results.jsonl").exists()  # refused before any game
    (fresh / "summary.json").rmdir()
    os.mkfifo(fresh / "wire-1.log")  # opened for appending by --wire-log: it would block
    result = run_cli(match_app(), [RANDOM, RANDOM, "--games", "1", "--size", "3", "--out", str(fresh), "--wire-log"])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"margo-match: {fresh / 'wire-1.log'} is not a regular file; the run writes a file there: move it away or use another --out"])


@pytest.mark.parametrize(
    "options, message",
    [
        (["--games", "1000000000"], "margo-match: --games must be at most 100000 (play a longer test as several matches): 1000000000"),
        (["--move-timeout", "3e6"], "margo-match: --move-timeout must be at most 604800 seconds (a week; 0 means no limit): 3e+06"),
        (["--command-timeout", "1e10"], "margo-match: --command-timeout must be at most 604800 seconds (a week): 1e+10"),
        (["--parallel", "5000", "--cluster", "local"], "margo-match: --parallel must be at most 4096 Ray game slots: 5000"),
        (["--sprt", "elo0=-200000 elo1=0"],
         "margo-match: --sprt elo0 must be within -1000 to +1000 Elo (a score of 0.3% to 99.7%): '-200000'"),
    ],
)
def test_values_that_would_exhaust_memory_or_overflow_are_bounded(tmp_path, options, message):
    out = tmp_path / "out"
    result = run_cli(match_app(), ["a", "b", "--out", str(out), *options])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [message])
    assert not out.exists()


def test_parallel_is_capped_at_four_games_per_cpu_and_a_failed_fork_is_one_line(tmp_path, monkeypatch):
    from margo_gtp.match.limits import local_parallel_cap

    cap = local_parallel_cap()
    assert cap == 4 * (os.cpu_count() or 1)
    result = run_cli(match_app(), ["a", "b", "--out", str(tmp_path / "o"), "--parallel", str(cap + 1)])
    assert result.stderr.splitlines() == [f"margo-match: --parallel must be at most {cap} on this machine "
                                          f"(4 games per CPU; each game runs two engine processes): {cap + 1}"]
    config = tmp_path / "t.toml"
    config.write_text(f'parallel = {cap + 1}\ngames = 2000000\n[[engines]]\ncommand = "{RANDOM}"\n[[engines]]\ncommand = "{RANDOM} "\n')
    result = run_cli(tournament_app(), [str(config)])
    assert result.stderr.splitlines() == [
        "margo-tournament: 'games' must be at most 100000 (play a longer test as several matches): 2000000"]
    config.write_text(f'parallel = {cap + 1}\n[[engines]]\ncommand = "{RANDOM}"\n[[engines]]\ncommand = "{RANDOM} "\n')
    result = run_cli(tournament_app(), [str(config)])
    assert result.stderr.splitlines() == [f"margo-tournament: 'parallel' must be at most {cap} on this machine "
                                          f"(4 games per CPU; each game runs two engine processes): {cap + 1}"]

    import errno
    import multiprocessing.process

    started = []
    real_start = multiprocessing.process.BaseProcess.start

    def start_until_the_process_limit(process):
        if started:  # the second fork hits the limit
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        started.append(process)
        real_start(process)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start_until_the_process_limit)
    config = MatchConfig(EngineSpec("A", "a", RANDOM), EngineSpec("B", "b", RANDOM), games=4, rules=Rules(size=3), parallel=2)
    with pytest.raises(RuntimeError) as error:
        run_match(config, tmp_path / "m")
    assert str(error.value) == "cannot start worker process 2 of 2: Resource temporarily unavailable; lower --parallel"


def test_tournaments_take_an_opening_book_and_adjudication_as_matches_do(tmp_path):
    (tmp_path / "book.txt").write_text("B2:1\nA1:1\n")
    config = tmp_path / "t.toml"
    engines = f'[[engines]]\nname = "r1"\ncommand = "{RANDOM} --seed 1"\n[[engines]]\nname = "r2"\ncommand = "{RANDOM} --seed 2"\n'
    config.write_text(f'games = 4\nsize = 3\nout = "t"\nopenings = "book.txt"\nadjudicate = "margin=0.5 moves=1"\n' + engines)
    done = subprocess.run([MARGO_TOURNAMENT, str(config), "--no-progress", "--quiet"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = results(tmp_path / "t" / "01-r1-vs-r2")
    assert [record["opening"] for record in records] == [
        {"number": 1, "moves": ["W B2:1"]}, {"number": 1, "moves": ["W B2:1"]},
        {"number": 2, "moves": ["W A1:1"]}, {"number": 2, "moves": ["W A1:1"]},
    ]
    assert {record["reason"] for record in records} <= {"adjudicated by margin", "no legal move"}
    match = json.loads((tmp_path / "t" / "01-r1-vs-r2" / "match.json").read_text())
    assert match["adjudication"] == {"margin": 0.5, "moves": 1} and "openings" in match
    for line, message in [
        ('openings = "missing.txt"\n', f"'openings': cannot read opening book {tmp_path / 'missing.txt'}: No such file or directory"),
        ('adjudicate = "moves=3"\n', "'adjudicate' takes margin=M moves=N: 'moves=3'"),
        ('time_control = " "\n', "'time_control' is empty: give it a value, or leave the key out"),
    ]:
        config.write_text('size = 3\nout = "u"\n' + line + engines)
        result = run_cli(tournament_app(), [str(config)])
        assert (result.exit_code, result.stderr.splitlines()) == (2, [f"margo-tournament: {message}"])


@pytest.mark.parametrize("option", ["--sprt", "--time-control", "--adjudicate", "--runtime-env", "--name-a"])
def test_an_empty_value_is_an_error_not_a_default_or_off(tmp_path, option):
    """--sprt '' ran the default SPRT while --time-control '' meant none: now neither."""
    result = run_cli(match_app(), ["a", "b", "--out", str(tmp_path / "o"), option, ""])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [f"margo-match: {option} is empty: give it a value, or leave {option} out"])


def test_help_through_a_pipe_keeps_descriptions_readable():
    """Rich drew the help for 80 columns with ~15 left for the descriptions."""
    for program, line in [(MARGO_MATCH, "  --games <int range>         number of games (the most, with --sprt)"),
                          (MARGO_TOURNAMENT, "  --json                      print the report as JSON on stdout")]:
        done = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=60, env={**os.environ, "TERMINAL_WIDTH": ""})
        assert done.returncode == 0 and line in done.stdout.splitlines(), done.stdout


def test_checking_a_large_opening_book_is_announced(tmp_path, monkeypatch):
    """A 9 MB book was checked for minutes without a word."""
    from margo_gtp.match import openings, referee_cli

    monkeypatch.setattr(referee_cli.BookProgress, "LARGE_BYTES", 100)
    monkeypatch.setattr(openings, "PROGRESS_EVERY", 10)
    book = tmp_path / "book.txt"
    book.write_text("".join(f"C3:1 {vertex}:1\n" for vertex in ("A1", "B2", "E5", "D4")) * 10)
    result = run_cli(match_app(), ["a", "b", "--size", "5", "--openings", str(book), "--out", str(tmp_path / "o"),
                                   "--no-progress", "--games", "1"])
    assert result.stderr.splitlines()[0] == f"margo-match: checking the opening book {book} (0.0 MB)"


#: The fields of a results.jsonl line that the summaries read (match/stats.is_game_record).
GAME_RECORD = {"game": 1, "engine_a": "a", "engine_b": "b", "a_colour": "W", "a_colour_final": "W", "winner": "A",
               "result": "W+1", "reason": "no legal move", "forfeit": None, "moves": [{"engine": "A", "seconds": 0.1}]}


@pytest.mark.parametrize(
    "change",
    [{"winner": "Z"}, {"a_colour_final": None}, {"moves": [{"engine": "C", "seconds": 1}]}, {"forfeit": {"engine": 1}}],
    ids=["winner", "colour", "move-engine", "forfeit"],
)
def test_a_results_line_edited_by_hand_is_refused_before_playing(tmp_path, change):
    """It stopped the match with a KeyError traceback after the games were played."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text(json.dumps(GAME_RECORD) + "\n" + json.dumps({**GAME_RECORD, "game": 2, **change}) + "\n")
    result = run_cli(match_app(), [RANDOM, RANDOM, "--games", "3", "--size", "3", "--out", str(out)])
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"margo-match: {out / 'results.jsonl'}: game 2 is not a record the referee wrote (a field is missing or wrong); "
        "delete its line to play it again"])


def test_a_tournament_pairing_folder_holding_another_match_is_refused_naming_the_out_key(tmp_path):
    pairing = tmp_path / "t" / "01-x-vs-y"
    pairing.mkdir(parents=True)
    (pairing / "match.json").write_text('{"format": "another match"}\n')
    (pairing / "results.jsonl").write_text(json.dumps(GAME_RECORD) + "\n")
    config = tmp_path / "t.toml"
    config.write_text(f'size = 3\ngames = 1\nout = "t"\n[[engines]]\nname = "x"\ncommand = "{RANDOM}"\n'
                      f'[[engines]]\nname = "y"\ncommand = "{RANDOM} "\n')
    result = run_cli(tournament_app(), [str(config), "--no-progress"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"margo-tournament: {pairing} holds a different match (differs in: engines, format, move_timeout, rules); "
        "use another 'out'")
