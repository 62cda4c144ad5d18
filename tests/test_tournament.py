"""margo-tournament: configuration, pairings, report, and a real (small) tournament."""

from __future__ import annotations

import json
import math
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.match.results_log import MatchMismatch
from margo_gtp.match.stats import ELO_PER_NAT
from margo_gtp.match.tournament import (
    TournamentConfig,
    TournamentConfigError,
    finished_records,
    prepare_tournament_directory,
    run_tournament,
    tournament_report,
)

FAULTY = Path(__file__).parent / "fake_engines" / "faulty_engine.py"
MARGO_TOURNAMENT = str(Path(sys.executable).parent / "margo-tournament")


def faulty(*args: str) -> str:
    return shlex.join([sys.executable, str(FAULTY), *args])


BASE = {"engines": [{"name": "a", "command": "x"}, {"name": "b", "command": "y"}, {"name": "c", "command": "z"}]}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"engines": [{"name": "a", "command": "x"}]}, "'engines' must list at least two"),
        ({"engines": [{"name": "a", "command": "x"}, {"name": "a", "command": "y"}]}, "engine names must be unique: 'a' appears twice"),
        ({"engines": [{"name": "a"}, {"name": "b", "command": "y"}]}, "engine 1: needs 'command'"),
        ({"engines": [{"name": "a", "command": "x", "cmd": 1}, {"name": "b", "command": "y"}]}, "engine 1: needs 'command'"),
        ({"engines": [{"name": "a", "command": "x"}, {"name": "b", "command": "'y"}]},
         "engine 2: cannot split the engine command (No closing quotation): \"'y\""),
        ({"engines": [{"name": "a", "command": ""}, {"name": "b", "command": "y"}]}, "engine 1: empty engine command: ''"),
        ({"format": "swiss"}, "'format' must be one of round-robin, gauntlet: 'swiss'"),
        ({"challenger": "zz"}, "'challenger' is not an engine name: 'zz'"),
        ({"games": "4"}, "'games' must be int: '4'"),
        ({"games": 0}, "'games' and 'parallel' must be at least 1"),
        ({"rules": {"ko_rule": "never"}}, "rules: invalid value for ko_rule: 'never'"),
        ({"size": 40}, "rules: invalid value for size: '40'"),
        ({"time_control": "1 2"}, "'time_control': time control must be"),
    ],
)
def test_bad_configurations_name_the_key(changes, message):
    with pytest.raises(TournamentConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        TournamentConfig.from_mapping({**BASE, **changes}, Path("/base"))


def test_configuration_values_and_defaults():
    config = TournamentConfig.from_mapping(
        {**BASE, "size": 5, "komi": 0.5, "rules": {"swap": True, "ko_rule": "simple"}, "max_moves": 50, "move_timeout": 0, "out": "t1"},
        Path("/base"),
    )
    assert config.out == Path("/base/t1")
    assert (config.rules.size, config.rules.komi, config.rules.swap, config.rules.ko_rule) == (5, 0.5, True, "simple")
    assert (config.max_moves, config.move_timeout, config.games, config.parallel) == (50, None, 2, 1)
    match = config.match_config(*config.pairings()[0])
    assert (match.engine_a.name, match.engine_b.command, match.rules) == ("a", "y", config.rules)


def test_pairings_round_robin_and_gauntlet():
    names = lambda config: [(a.name, b.name) for a, b in config.pairings()]  # noqa: E731
    assert names(TournamentConfig.from_mapping(BASE, Path("."))) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert names(TournamentConfig.from_mapping({**BASE, "format": "gauntlet"}, Path("."))) == [("a", "b"), ("a", "c")]
    gauntlet_c = TournamentConfig.from_mapping({**BASE, "format": "gauntlet", "challenger": "c"}, Path("."))
    assert names(gauntlet_c) == [("c", "a"), ("c", "b")]
    assert gauntlet_c.pairing_directory(2, *gauntlet_c.pairings()[1]) == Path("tournament/02-c-vs-b")


def _records(*winners):
    return [{"game": i, "winner": w} for i, w in enumerate(winners, 1)]


def test_report_crosstable_and_two_engine_ratings_match_the_closed_form():
    report = tournament_report(["x", "y"], {("x", "y"): _records("A", "A", "A", "B", None)})
    assert report["games"] == 5 and report["prior_draws"] == 0.0
    assert report["crosstable"]["x"]["y"] == {"wins": 3, "draws": 1, "losses": 1, "score": 3.5, "games": 5}
    assert report["crosstable"]["y"]["x"] == {"wins": 1, "draws": 1, "losses": 3, "score": 1.5, "games": 5}
    x, y = report["ratings"]
    assert x["name"] == "x" and x["elo"] == pytest.approx(200 * math.log10(3.5 / 1.5), abs=1e-5)
    assert y["elo"] == pytest.approx(-x["elo"], abs=1e-5)
    assert x["stderr"] == pytest.approx(ELO_PER_NAT / math.sqrt(5 * 0.7 * 0.3) / 2, abs=1e-5)


def test_report_falls_back_to_a_prior_when_an_engine_won_everything():
    report = tournament_report(["x", "y", "z"], {("x", "y"): _records("A", "A"), ("x", "z"): _records("A"), ("y", "z"): _records("A", "B")})
    assert report["prior_draws"] == 1.0
    assert report["ratings"][0]["name"] == "x"
    assert all(r["elo"] is not None for r in report["ratings"])
    assert sum(r["elo"] for r in report["ratings"]) == pytest.approx(0.0, abs=1e-4)


@pytest.mark.process
def test_round_robin_plays_resumes_and_reports(tmp_path):
    config_file = tmp_path / "t.toml"
    config_file.write_text(
        "games = 2\nsize = 3\nout = \"run\"\nmove_timeout = 30\n"
        f"[[engines]]\nname = \"one\"\ncommand = '{faulty('--seed', '1')}'\n"
        f"[[engines]]\nname = \"two\"\ncommand = '{faulty('--seed', '2')}'\n"
        f"[[engines]]\nname = \"crasher\"\ncommand = '{faulty('--fault', 'crash')}'\n"
    )
    config = TournamentConfig.load(config_file)
    run = run_tournament(config)
    assert not run.interrupted
    assert {pair: len(records) for pair, records in run.records.items()} == {("one", "two"): 2, ("one", "crasher"): 2, ("two", "crasher"): 2}
    for pair in (("one", "crasher"), ("two", "crasher")):
        assert [r["forfeit"]["reason"] for r in run.records[pair]] == ["crash", "crash"]
    report = tournament_report([e.name for e in config.engines], run.records)
    assert report["games"] == 6 and report["prior_draws"] == 1.0  # the crasher never scored
    assert report["ratings"][-1]["name"] == "crasher"
    assert report["crosstable"]["crasher"]["one"] == {"wins": 0, "draws": 0, "losses": 2, "score": 0.0, "games": 2}
    # The same command again plays nothing new and reports the same games.
    done = subprocess.run([MARGO_TOURNAMENT, str(config_file), "--json", "--no-progress"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["crosstable"] == report["crosstable"]
    assert {pair: len(r) for pair, r in finished_records(config).items()} == {pair: 2 for pair in run.records}
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["01-one-vs-two", "02-one-vs-crasher", "03-two-vs-crasher", "summary.json", "tournament.json"]
    tables = subprocess.run([MARGO_TOURNAMENT, str(config_file), "--no-progress"], capture_output=True, text=True, timeout=120)
    assert "Crosstable (6 games" in tables.stdout and "Maximum-likelihood Elo" in tables.stdout


@pytest.mark.process
def test_bad_configuration_file_exits_2_with_the_message(tmp_path):
    config_file = tmp_path / "t.toml"
    config_file.write_text("games = 2\n")
    done = subprocess.run([MARGO_TOURNAMENT, str(config_file)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "margo-tournament: 'engines' must list at least two [[engines]] tables" in done.stderr


def test_an_engine_whose_program_is_missing_is_named_before_any_game(tmp_path):
    config_file = tmp_path / "t.toml"
    config_file.write_text(f'games = 1\nsize = 3\n[[engines]]\nname = "a"\ncommand = "{faulty()}"\n'
                           f'[[engines]]\nname = "b"\ncommand = "{faulty()}"\n'
                           '[[engines]]\nname = "c"\ncommand = "no-such-engine-here --gtp"\n')
    done = subprocess.run([MARGO_TOURNAMENT, str(config_file), "--no-progress"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == "margo-tournament: engine 'c': program not found: 'no-such-engine-here'"
    assert not (tmp_path / "tournament").exists()  # no pairing was played


def test_another_tournament_in_the_same_out_directory_is_refused_once_games_are_finished(tmp_path):
    first = TournamentConfig.from_mapping({**BASE, "out": "t"}, tmp_path)
    other = TournamentConfig.from_mapping({"engines": [{"name": "d", "command": "x"}, {"name": "e", "command": "y"}],
                                           "out": "t"}, tmp_path)
    prepare_tournament_directory(first)
    prepare_tournament_directory(other)  # no game finished yet: the description is replaced
    assert json.loads((tmp_path / "t" / "tournament.json").read_text()) == other.identity()
    prepare_tournament_directory(first)
    pairing = first.pairing_directory(1, *first.pairings()[0])
    pairing.mkdir(parents=True)
    (pairing / "results.jsonl").write_text('{"game": 1}\n')
    prepare_tournament_directory(first)  # the same tournament resumes
    with pytest.raises(MatchMismatch) as refused:
        prepare_tournament_directory(other)
    assert str(refused.value) == f"{tmp_path / 't'} holds a different tournament (differs in: engines); use another 'out'"


def test_a_tournament_file_that_is_a_pipe_is_refused_in_one_line_before_any_game(tmp_path):
    # it is renamed over its path, which would replace a pipe with a regular file, and its
    # read hung on a pipe first
    config_file = tmp_path / "t.toml"
    config_file.write_text(f'games = 1\nsize = 3\nout = "t"\n[[engines]]\nname = "a"\ncommand = "{faulty()}"\n'
                           f'[[engines]]\nname = "b"\ncommand = "{faulty()}"\n')
    (tmp_path / "t").mkdir()
    fifo = tmp_path / "t" / "tournament.json"
    os.mkfifo(fifo)
    done = subprocess.run([MARGO_TOURNAMENT, str(config_file), "--no-progress"], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"margo-tournament: {fifo}: is a named pipe (FIFO), not a regular file\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and [p.name for p in (tmp_path / "t").iterdir()] == ["tournament.json"]


def test_a_configuration_nested_too_deeply_is_one_error(tmp_path):
    """tomllib recurses into nested arrays: a RecursionError traceback before."""
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(TournamentConfigError) as error:
        TournamentConfig.load(path)
    assert str(error.value) == f"{path}: not valid TOML: arrays or tables nested too deeply"


def test_a_tournament_of_too_many_engines_is_refused_before_its_pairings_are_listed(tmp_path):
    engines = [{"name": f"e{number}", "command": "x"} for number in range(20_000)]
    with pytest.raises(TournamentConfigError) as error:
        TournamentConfig.from_mapping({"engines": engines}, tmp_path)
    assert str(error.value) == "'engines' must list at most 100 engines: 20000"
    assert len(TournamentConfig.from_mapping({"engines": engines[:100]}, tmp_path).pairings()) == 4950
