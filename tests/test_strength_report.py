"""scripts/strength-report: several runs of one pairing (scripts/strength folders, in the
referee's results format), combined into one result (the figures a long measurement
reports) through the referee's reader and summary, with duplicates counted once and
mismatched or unreadable runs refused with one line and exit status 2. scripts/strength's
own folder: the referee's lines, and a resumed run that never loses a game nor counts one
twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.lab.selfplay import format_summary, summary
from margo_gtp.match.results_log import load_records
from margo_gtp.match.stats import is_game_record

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def strength(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPTS / "strength"), *args], check=True, capture_output=True, text=True,
                          timeout=300)


def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPTS / "strength-report"), *args], capture_output=True, text=True, timeout=120)


def games_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "results.jsonl").read_text().splitlines()]


def mark(game: dict) -> str:
    return "D" if game["winner"] is None else "W" if game["winner"] == "A" else "L"


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two 5x5 runs of random against heuristic, seeds 1 and 2 (3 and 4 games)."""
    folder = tmp_path_factory.mktemp("runs")
    first, second = folder / "first", folder / "second"
    strength("random", "heuristic", "--games", "3", "--size", "5", "--seed", "1", "--out", str(first))
    strength("random", "heuristic", "--games", "4", "--size", "5", "--seed", "2", "--out", str(second))
    return first, second


def test_the_combined_result_is_the_summary_of_every_game(two_runs) -> None:
    first, second = two_runs
    games = games_of(first) + games_of(second)
    marks = [mark(game) for game in games]
    expected = summary("random", "heuristic", marks.count("W"), marks.count("D"), marks.count("L"))
    done = report(str(first), str(second))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{first}: random vs heuristic: W/D/L ")
    assert lines[1].startswith(f"{second}: random vs heuristic: W/D/L ")
    white = [game for game in games if game["a_colour_final"] == "W"]
    black = [game for game in games if game["a_colour_final"] == "B"]
    mean_moves = round(sum(game["move_count"] for game in games) / len(games), 1)
    assert lines[2] == (f"all 2 runs (size=5): {format_summary(expected)}; "
                        f"A won {sum(mark(g) == 'W' for g in white)}/{len(white)} as White, "
                        f"{sum(mark(g) == 'W' for g in black)}/{len(black)} as Black; "
                        f"{mean_moves} moves a game; a move: A {spent(games, 'A')}, B {spent(games, 'B')}")
    assert (len(white), len(black)) == (4, 3)  # game n gives A White when n is odd


def spent(games: list[dict], label: str) -> str:
    """What the report should say one side spent a move, computed here from the raw lines:
    the seconds of its moves, and the visits of the evals beside them (one per move)."""
    seconds = [move["seconds"] for game in games for move in game["moves"] if move["engine"] == label]
    visits = [entry[2] for game in games for move, entry in zip(game["moves"], game["self_play"]["evals"])
              if entry is not None and move["engine"] == label]
    # The report rounds the mean to 3 places (its --json figure) and prints that with 2, so
    # this rounds the same way: 0.00499 is "0.01 s" there, and must be here.
    text = f"{round(round(sum(seconds) / len(seconds), 6), 3):.2f} s"
    return text + (f" and {round(sum(visits) / len(visits)):,} root visits" if visits else "")


def test_each_sides_time_and_root_visits_a_move(tmp_path: Path) -> None:
    run = tmp_path / "mcts"
    strength("mcts:playouts=40", "random", "--games", "2", "--size", "4", "--seed", "3", "--out", str(run))
    games = games_of(run)
    done = report(str(run), "--json")
    assert done.returncode == 0, done.stderr
    combined = json.loads(done.stdout)
    visits = [entry[2] for game in games for entry in game["self_play"]["evals"] if entry is not None]
    assert visits  # only mcts reports its search
    assert combined["a_move"]["visits"] == round(sum(visits) / len(visits))
    assert combined["b_move"]["visits"] is None  # random does not search
    line = report(str(run)).stdout.splitlines()[-1]
    assert line.endswith(f"a move: A {spent(games, 'A')}, B {spent(games, 'B')}")


def test_json_gives_the_same_figures(two_runs) -> None:
    first, second = two_runs
    done = report(str(first), str(second), "--json")
    assert done.returncode == 0, done.stderr
    combined = json.loads(done.stdout)
    games = games_of(first) + games_of(second)
    assert combined["games"] == 7 and combined["duplicates"] == 0
    assert combined["wins"] + combined["draws"] + combined["losses"] == 7
    assert combined["wins"] == sum(mark(game) == "W" for game in games)
    assert combined["rules"] == {"size": "5"}
    assert combined["runs"] == [str(first), str(second)]


def test_a_game_given_twice_is_counted_once(two_runs, tmp_path: Path) -> None:
    first, second = two_runs
    done = report(str(first), str(second), str(first / "results.jsonl"), "--json")
    assert done.returncode == 0, done.stderr
    combined = json.loads(done.stdout)
    assert (combined["games"], combined["duplicates"]) == (7, 3)
    # A deterministic pairing replayed with the same seed plays the same games: once each.
    again = tmp_path / "again"
    strength("random", "heuristic", "--games", "3", "--size", "5", "--seed", "1", "--out", str(again))
    assert [game["moves"] for game in games_of(again)] != []
    assert ([[move["move"] for move in game["moves"]] for game in games_of(again)]
            == [[move["move"] for move in game["moves"]] for game in games_of(first)])
    done = report(str(first), str(again))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == f"{again}: no new games"
    assert lines[2] == "skipped 3 game(s) counted already (a run given twice, or the same specs, seeds and moves)"


def test_other_specs_rules_and_bad_runs_are_refused(two_runs, tmp_path: Path) -> None:
    first, _ = two_runs
    other_size = tmp_path / "size4"
    strength("random", "heuristic", "--games", "1", "--size", "4", "--out", str(other_size))
    other_pair = tmp_path / "pair"
    strength("heuristic", "random", "--games", "1", "--size", "5", "--out", str(other_pair))
    bad_game = tmp_path / "bad.jsonl"
    bad_game.write_text('{"game": 3, "winner": "Z"}\n')
    no_results = tmp_path / "empty"
    no_results.mkdir()
    cases = [
        (other_size, f"strength-report: {other_size}: other rules than the first run: {{'size': '4'}} "
                     f"(first {{'size': '5'}})"),
        (other_pair, f"strength-report: {other_pair}: game 1 pairs 'heuristic' with 'random', "
                     f"not 'random' with 'heuristic'"),
        (bad_game, f"strength-report: {bad_game}: game 3: not a results line "
                   "(a field the summary reads is missing or wrong)"),
        (no_results, f"strength-report: {no_results / 'results.jsonl'}: no such file"),
        (tmp_path / "nope.jsonl", f"strength-report: {tmp_path / 'nope.jsonl'}: no such file"),
    ]
    for path, message in cases:
        done = report(str(first), str(path))
        assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
    # A file holding no line of the referee's: no game in it, and nothing counted from it.
    done = report(str(other_size / "match.json"))
    assert (done.returncode, done.stderr) == (2, "strength-report: no finished games in these runs\n")


def test_lines_are_read_as_margo_match_reads_them(two_runs, tmp_path: Path) -> None:
    """The referee's reader: a line that is not JSON and a torn last line are no games."""
    first, _ = two_runs
    lines = (first / "results.jsonl").read_text().splitlines(keepends=True)
    damaged = tmp_path / "results.jsonl"
    damaged.write_text(lines[0] + "{oops\n" + "".join(lines[1:]) + lines[0][:40])
    (tmp_path / "match.json").write_text((first / "match.json").read_text())
    done = report(str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 3


def test_runs_without_games_are_refused(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("")
    done = report(str(tmp_path))
    assert (done.returncode, done.stderr) == (2, "strength-report: no finished games in these runs\n")


def test_strength_writes_the_referees_lines_and_resumes_without_losing_or_repeating_a_game(tmp_path: Path) -> None:
    out = tmp_path / "run"
    strength("random", "heuristic", "--games", "2", "--size", "4", "--seed", "5", "--out", str(out))
    first = (out / "results.jsonl").read_bytes()
    games = games_of(out)
    assert all(is_game_record(game) for game in games) and load_records(out) == games
    referee_fields = {"game", "engine_a", "engine_b", "a_colour", "a_colour_final", "swapped", "white", "black",
                      "winner", "winner_colour", "result", "reason", "forfeit", "balls", "move_count", "moves",
                      "started", "duration", "sgf"}
    assert [sorted(game) for game in games] == [sorted(referee_fields | {"self_play"})] * 2
    assert [(g["game"], g["a_colour"], g["self_play"]["seeds"], g["sgf"]) for g in games] == [
        (1, "W", [5000, 5001], "game-0001.sgf"), (2, "B", [5003, 5002], "game-0002.sgf")]
    assert sorted(path.name for path in out.glob("game-*.sgf")) == ["game-0001.sgf", "game-0002.sgf"]
    # A run killed in the middle of a line: the torn line is no game; the run goes on after it.
    with open(out / "results.jsonl", "ab") as log:
        log.write(b'{"game":3,"engine_a":"ran')
    done = strength("random", "heuristic", "--games", "4", "--size", "4", "--seed", "5", "--out", str(out))
    assert done.stderr == f"strength: {out} holds 2 of the 4 games; playing the other 2\n"
    assert [line.split(":")[0] for line in done.stdout.splitlines()[:2]] == ["game 3/4", "game 4/4"]
    assert (out / "results.jsonl").read_bytes().startswith(first)
    assert [game["game"] for game in games_of(out)] == [1, 2, 3, 4]
    # The same command once more plays nothing; another seed on the folder is refused.
    again = strength("random", "heuristic", "--games", "4", "--size", "4", "--seed", "5", "--out", str(out))
    assert [game["game"] for game in games_of(out)] == [1, 2, 3, 4] and "game " not in again.stdout
    other = subprocess.run([sys.executable, str(SCRIPTS / "strength"), "random", "heuristic", "--size", "4", "--seed", "6",
                            "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert (other.returncode, other.stderr) == (
        2, f"strength: --out {out} holds another run (differs in: seed); use another --out\n")
    summary_file = json.loads((out / "summary.json").read_text())
    assert summary_file["games"] == 4 and summary_file["engines"]["A"]["name"] == "random"


def test_plot_draws_the_running_score_as_a_png(two_runs, tmp_path: Path) -> None:
    picture = tmp_path / "score.png"
    done = report(*map(str, two_runs), "--plot", str(picture))
    assert done.returncode == 0, done.stderr
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert done.stdout == report(*map(str, two_runs)).stdout  # the printed report is unchanged


@pytest.mark.parametrize("name", ["score.svg", "missing/score.png"])
def test_plot_refuses_a_file_it_cannot_write_before_reading(two_runs, tmp_path: Path, name: str) -> None:
    done = report(str(two_runs[0]), "--plot", str(tmp_path / name))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"strength-report: error: --plot takes a .png file in an existing directory: '{tmp_path / name}'")
