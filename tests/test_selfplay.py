"""In-process games for the strength tools (margo_gtp.lab.selfplay) and the resignation
check (scripts/resign-check): records, openings, resignation switched off, replays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.lab.selfplay import no_resign, play_game
from margo_gtp.engine import Board, Move, Rules

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.mark.parametrize("spec, expected", [
    ("mcts", "mcts:resign=0"),
    ("mcts:playouts=50,resign=0.1,seed=3", "mcts:playouts=50,seed=3,resign=0"),
    ("heuristic", "heuristic"),
    ("random:seed=2", "random:seed=2"),
])
def test_no_resign(spec: str, expected: str) -> None:
    assert no_resign(spec) == expected


def test_a_game_record_replays_to_its_final_score() -> None:
    rules = Rules(size=4)
    record = play_game("mcts:playouts=20", "heuristic", rules, (1, 2), 500)
    board = Board(rules)
    for text in record["record"]:
        board.push(Move.from_gtp(text, 4))
    assert record["moves"] == len(record["record"]) == len(board.history)
    assert list(board.score()) == record["score"]
    assert record["seeds"] == [1, 2]
    # mcts (White) reports a win rate and visits for each of its moves; heuristic none.
    assert all(e is not None and e[0] == "W" and 0 <= e[1] <= 1 and e[2] > 0 for e in record["evals"][0::2])
    assert all(e is None for e in record["evals"][1::2])


def test_an_opening_is_played_first_and_the_players_follow_it() -> None:
    rules = Rules(size=4)
    whole = play_game("mcts:playouts=20", "mcts:playouts=20", rules, (5, 6), 500)
    cut = 6
    again = play_game("mcts:playouts=20,reuse=off", "mcts:playouts=20,reuse=off", rules, (5, 6), 500,
                      opening=whole["record"][:cut])
    assert again["record"][:cut] == whole["record"][:cut]
    assert again["evals"][:cut] == [None] * cut
    assert again["moves"] == len(again["record"])


@pytest.mark.process
def test_resign_check_replays_resigned_games_and_tabulates_thresholds(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    # A trigger-happy resigner: resigns below a 45% win rate after 30 visits.
    spec = "mcts:playouts=40,resign=0.45,resign_visits=30,resign_moves=1"
    subprocess.run([sys.executable, str(SCRIPTS / "strength"), spec, "heuristic", "--games", "4", "--size", "4",
                    "--out", str(folder)], check=True, capture_output=True, text=True, timeout=300)
    run = folder / "results.jsonl"  # scripts/strength's lines are the referee's, with a self_play field
    games = [json.loads(line) for line in run.read_text().splitlines()]
    resigned = [g for g in games if g["result"].endswith("+R")]
    assert resigned, "the test needs at least one resignation"
    out = tmp_path / "continued.jsonl"
    done = subprocess.run([sys.executable, str(SCRIPTS / "resign-check"), str(run), "--replay", "--out", str(out),
                           "--min-visits", "30", "--thresholds", "0.2,0.45"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(" resigned at move " in line for line in lines) == len(resigned)
    assert f"games read: 4; resigned: {len(resigned)}" in lines
    continued = [json.loads(line) for line in out.read_text().splitlines()]
    for game, after in zip(resigned, continued):
        played = [move["move"] for move in game["moves"]]
        assert after["record"][: len(played)] == played  # same game up to the resignation
        white_spec = game["engine_a"] if game["a_colour"] == "W" else game["engine_b"]
        assert after["white"] == no_resign(white_spec)
        assert after["seeds"] == game["self_play"]["seeds"]  # the same players, with the same seeds
        assert not after["result"].endswith("+R")  # resignation off: played to the end
        assert "resign=0" in after["white"] + after["black"]
    table = lines[lines.index("threshold  judged  false-resign  rate    losses-resigned  plies-saved") + 1:]
    assert [row.split()[0] for row in table] == ["0.2", "0.45"]
    assert all(int(row.split()[1]) == 4 for row in table)  # every game's winner is known after the replay


@pytest.mark.parametrize("name", ["nope.jsonl", "folder"])
def test_resign_check_rejects_a_missing_file_or_a_folder(tmp_path: Path, name: str) -> None:
    (tmp_path / "folder").mkdir()
    replays = tmp_path / "replays.jsonl"
    done = subprocess.run([sys.executable, str(SCRIPTS / "resign-check"), str(tmp_path / name), "--out", str(replays)],
                          capture_output=True, text=True, timeout=60)
    reason = "no such file" if name == "nope.jsonl" else "is a directory"  # the texts strength-report gives
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"resign-check: {tmp_path / name}: {reason}\n")
    assert not replays.exists()


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--thresholds", "0.02,2"], "error: --thresholds: each is a win rate between 0 and 1: '0.02,2'"),
        (["--min-visits", "-1"], "error: --min-visits must be at least 0, --consecutive and --max-moves at least 1"),
        (["--consecutive", "0"], "error: --min-visits must be at least 0, --consecutive and --max-moves at least 1"),
        (["--replay", "--out", "/proc/no/replays.jsonl"], "error: --out: cannot write '/proc/no/replays.jsonl': No such file or directory"),
    ],
)
def test_resign_check_refuses_bad_options(tmp_path: Path, options: list[str], error: str) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text("")
    done = subprocess.run([sys.executable, str(SCRIPTS / "resign-check"), str(run), *options], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"resign-check: {error}"


def test_resign_check_names_an_unreadable_run(tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    run.write_bytes(b"\xff\xfe not text")
    done = subprocess.run([sys.executable, str(SCRIPTS / "resign-check"), str(run)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (f"resign-check: {run}: cannot read: 'utf-8' codec can't decode byte 0xff "
                                            "in position 0: invalid start byte")


@pytest.mark.parametrize(
    ("files", "error"),
    [
        ({"run.jsonl": "5\n"}, "{tmp}/run.jsonl:1: not a game line of scripts/strength or margo-match"),
        ({"run.jsonl": '{"record": ["A1:1"]}\n'}, "{tmp}/run.jsonl:1: a game line without the fields scripts/strength writes"),
        ({"run.jsonl": ""}, "no finished games in these files"),
        ({"run.jsonl": '{"engine_a": "x", "moves": [], "white": "a"}\n'},
         "{tmp}/run.jsonl:1: a results line without the fields margo-match writes"),
        ({"run.jsonl": '{"engine_a": "x", "moves": [], "white": "a \'b", "black": "c", "result": "W+1", "move_count": 0, "winner": "W"}\n'},
         "{tmp}/run.jsonl:1: cannot split an engine command (No closing quotation)"),
        ({"run.jsonl": '{"engine_a": "x", "moves": []}\n', "match.json": "[oops"}, "{tmp}/match.json: not a margo-match description"),
    ],
)
def test_resign_check_names_the_file_and_line_it_cannot_use(tmp_path: Path, files: dict[str, str], error: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    done = subprocess.run([sys.executable, str(SCRIPTS / "resign-check"), str(tmp_path / "run.jsonl")], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"resign-check: {error.replace('{tmp}', str(tmp_path))}\n"


@pytest.mark.process
def test_scripts_run_plays_through_the_referee_and_says_where_the_results_are(tmp_path: Path) -> None:
    import os

    out = tmp_path / "match"
    env = dict(os.environ, MCTS_SPEC="mcts:playouts=5", RUN_OUT=str(out))
    done = subprocess.run([str(SCRIPTS / "run"), "--size", "3", "--games", "1", "--no-progress"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"Results: {out}/results.jsonl (one JSON line per game), {out}/game-NNNN.sgf (the games), {out}/match.json")
    [game] = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert game["engine_a"].endswith("--player mcts:playouts=5")
    assert game["engine_b"].endswith("--player heuristic")


def test_resign_check_reads_margo_match_results(tmp_path: Path) -> None:
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("resign_check", str(SCRIPTS / "resign-check"))
    spec = importlib.util.spec_from_loader("resign_check", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    (tmp_path / "match.json").write_text(json.dumps({"rules": {"size": 5, "swap": "off", "komi": 0.5}}))
    line = {"game": 1, "engine_a": "x", "white": "margo-gtp --size 5 --player 'mcts:playouts=50,seed=2'",
            "black": "/venv/bin/margo-gtp --player=heuristic", "winner": "B", "winner_colour": "B",
            "result": "B+R", "move_count": 2,
            "moves": [{"colour": "W", "move": "C3:1"}, {"colour": "B", "move": "B2:1"}]}
    (tmp_path / "results.jsonl").write_text(json.dumps(line) + "\n")
    [game] = module.read_games([tmp_path / "results.jsonl"])
    assert (game["white"], game["black"]) == ("mcts:playouts=50,seed=2", "heuristic")
    assert game["record"] == ["C3:1", "B2:1"] and game["result"] == "B+R" and game["winner"] == "B"
    assert game["rules_options"] == {"size": "5", "swap": "off", "komi": "0.5"}
    assert module.player_spec("margo-gtp --size 7") == "strongest"  # margo-gtp's default
    assert module.player_spec("margo-gtp --level 2") == "mcts:playouts=25,temperature=0.7,threads=1"
    assert module.player_spec("margo-gtp --level=7") == "mcts:seconds=1,threads=1"
