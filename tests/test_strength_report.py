"""scripts/strength-report: several scripts/strength runs of one pairing, combined into one
result (the figures a long measurement reports), with duplicates counted once and
mismatched or unreadable files refused with one line and exit status 2."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from margo_gtp.lab.selfplay import format_summary, summary

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def strength(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPTS / "strength"), *args], check=True, capture_output=True, text=True,
                          timeout=300)


def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPTS / "strength-report"), *args], capture_output=True, text=True, timeout=120)


def games_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if '"record"' in line]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two 5x5 runs of random against heuristic, seeds 1 and 2 (3 and 4 games)."""
    folder = tmp_path_factory.mktemp("runs")
    first, second = folder / "first.jsonl", folder / "second.jsonl"
    strength("random", "heuristic", "--games", "3", "--size", "5", "--seed", "1", "--out", str(first))
    strength("random", "heuristic", "--games", "4", "--size", "5", "--seed", "2", "--out", str(second))
    return first, second


def test_the_combined_result_is_the_summary_of_every_game(two_runs) -> None:
    first, second = two_runs
    games = games_of(first) + games_of(second)
    marks = [game["a_result"] for game in games]
    expected = summary("random", "heuristic", marks.count("W"), marks.count("D"), marks.count("L"))
    done = report(str(first), str(second))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{first}: random vs heuristic: W/D/L ")
    assert lines[1].startswith(f"{second}: random vs heuristic: W/D/L ")
    white = [game for game in games if game["a_colour"] == "W"]
    black = [game for game in games if game["a_colour"] == "B"]
    mean_moves = round(sum(game["moves"] for game in games) / len(games), 1)
    assert lines[2] == (f"all 2 files (size=5): {format_summary(expected)}; "
                        f"A won {sum(g['a_result'] == 'W' for g in white)}/{len(white)} as White, "
                        f"{sum(g['a_result'] == 'W' for g in black)}/{len(black)} as Black; "
                        f"{mean_moves} moves a game; a move: A {spent(games, 'W', 'B')}, B {spent(games, 'B', 'W')}")
    assert (len(white), len(black)) == (4, 3)  # game k gives A White when k is even


def spent(games: list[dict], colour_of_a: str, other: str) -> str:
    """What the report should say one side spent a move, computed here from the raw lines:
    the side is A's colour in each game, or the other one (plies alternate, White first)."""
    seconds = moves = 0
    visits = []
    for game in games:
        colour = colour_of_a if game["a_colour"] == "W" else other
        count = len(game["record"][0 if colour == "W" else 1::2])
        seconds += game["mean_move"][colour] * count
        moves += count
        visits += [entry[2] for entry in game["evals"] if entry is not None and entry[0] == colour]
    # The report rounds the mean to 3 places (its --json figure) and prints that with 2, so
    # this rounds the same way: 0.00499 is "0.01 s" there, and must be here.
    text = f"{round(seconds / moves, 3):.2f} s"
    return text + (f" and {round(sum(visits) / len(visits)):,} root visits" if visits else "")


def test_each_sides_time_and_root_visits_a_move(tmp_path: Path) -> None:
    run = tmp_path / "mcts.jsonl"
    strength("mcts:playouts=40", "random", "--games", "2", "--size", "4", "--seed", "3", "--out", str(run))
    games = games_of(run)
    done = report(str(run), "--json")
    assert done.returncode == 0, done.stderr
    combined = json.loads(done.stdout)
    visits = [entry[2] for game in games for entry in game["evals"] if entry is not None]
    assert visits  # only mcts reports its search
    assert combined["a_move"]["visits"] == round(sum(visits) / len(visits))
    assert combined["b_move"]["visits"] is None  # random does not search
    line = report(str(run)).stdout.splitlines()[-1]
    assert line.endswith(f"a move: A {spent(games, 'W', 'B')}, B {spent(games, 'B', 'W')}")


def test_json_gives_the_same_figures(two_runs) -> None:
    first, second = two_runs
    done = report(str(first), str(second), "--json")
    assert done.returncode == 0, done.stderr
    combined = json.loads(done.stdout)
    games = games_of(first) + games_of(second)
    assert combined["games"] == 7 and combined["duplicates"] == 0
    assert combined["wins"] + combined["draws"] + combined["losses"] == 7
    assert combined["wins"] == sum(game["a_result"] == "W" for game in games)
    assert combined["rules"] == {"size": "5"}
    assert combined["files"] == [str(first), str(second)]


def test_a_game_given_twice_is_counted_once(two_runs, tmp_path: Path) -> None:
    first, second = two_runs
    done = report(str(first), str(second), str(first), "--json")
    assert done.returncode == 0, done.stderr
    combined = json.loads(done.stdout)
    assert (combined["games"], combined["duplicates"]) == (7, 3)
    # A deterministic pairing replayed with the same seed plays the same games: once each.
    again = tmp_path / "again.jsonl"
    strength("random", "heuristic", "--games", "3", "--size", "5", "--seed", "1", "--out", str(again))
    assert [game["record"] for game in games_of(again)] == [game["record"] for game in games_of(first)]
    done = report(str(first), str(again))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == f"{again}: no new games"
    assert lines[2] == "skipped 3 game(s) counted already (same specs, seeds and moves)"


def test_other_specs_rules_and_bad_files_are_refused(two_runs, tmp_path: Path) -> None:
    first, _ = two_runs
    other_size = tmp_path / "size4.jsonl"
    strength("random", "heuristic", "--games", "1", "--size", "4", "--out", str(other_size))
    other_pair = tmp_path / "pair.jsonl"
    strength("heuristic", "random", "--games", "1", "--size", "5", "--out", str(other_pair))
    not_json = tmp_path / "bad.jsonl"
    not_json.write_text(first.read_text().splitlines()[0] + "\n{oops\n")
    no_start = tmp_path / "nostart.jsonl"
    no_start.write_text("\n".join(first.read_text().splitlines()[1:]) + "\n")
    cases = [
        (other_size, f"strength-report: {other_size}: other rules than the first file: {{'size': '4'}} "
                     f"(first {{'size': '5'}})"),
        (other_pair, f"strength-report: {other_pair}: game 1 pairs 'heuristic' with 'random', "
                     f"not 'random' with 'heuristic'"),
        (not_json, f"strength-report: {not_json}:2: not a JSON line"),
        (no_start, f"strength-report: {no_start}: no start line: not a scripts/strength --out file"),
        (tmp_path / "nope.jsonl", f"strength-report: {tmp_path / 'nope.jsonl'}: no such file"),
        (tmp_path, f"strength-report: {tmp_path}: is a directory"),
    ]
    for path, message in cases:
        done = report(str(first), str(path))
        assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")


def test_files_without_games_are_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"start": "scripts/strength random random", "rules": {"size": "5"}}) + "\n")
    done = report(str(empty))
    assert (done.returncode, done.stderr) == (2, "strength-report: no finished games in these files\n")


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
