"""Training the learned move patterns: ``margo_gtp/lab/patterns_training.py`` and
``scripts/train-patterns`` (docs/patterns.md).

* The MM fit raises the likelihood at every sweep and ranks a feature that always wins
  above one that never does; the tie-aware top-k rates on hand-made rankings.
* The script end to end on tiny games (random players, 5x5): what it prints, the weights
  file it writes (header, digest of the records, loadable), and the same gammas when the
  games it wrote are read back with ``--from``.
* Refusals, exit 2 and one line naming the folder or file: no such folder, no records,
  an unreadable record, a game of another board size.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from margo_gtp.lab.patterns_training import TrainingError, fit_mm, hit_rates, read_games, split_games
from margo_gtp import sgf
from margo_gtp.engine import Board, Move, Rules
from margo_gtp.players.patterns import GROUPS, load_weights

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "train-patterns"
CAPTURES = [name for name, _ in GROUPS].index("captures")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------------------------------
# The fit and the measures


def synthetic(positions: int, seed: int):
    """Positions of 4 candidates; the one with captures=1 (if any) is always played."""
    rng = np.random.default_rng(seed)
    rows, starts, chosen = [], [], []
    for j in range(positions):
        starts.append(4 * j)
        block = np.zeros((4, len(GROUPS)), dtype=np.int32)
        block[:, 0] = rng.integers(0, 50, 4)  # shapes: noise
        capturing = rng.integers(0, 4)
        block[capturing, CAPTURES] = 1
        chosen.append(4 * j + capturing)
        rows.append(block)
    return np.concatenate(rows), np.array(starts), np.array(chosen)


def log_posterior(log_gammas, rows, starts, chosen) -> float:
    """What MM climbs: the log-likelihood of the moves played plus the prior's virtual games
    (for each feature one win and one loss against gamma 1: log g - 2 log(1 + g))."""
    logs = sum(log_gammas[g][rows[:, g]] for g in range(len(GROUPS)))
    totals = np.log(np.add.reduceat(np.exp(logs), starts))
    prior = sum(float((table - 2 * np.log1p(np.exp(table))).sum()) for table in log_gammas)
    return float(logs[chosen].sum() - totals.sum()) + prior


def test_the_mm_fit_climbs_and_finds_the_feature_that_wins():
    rows, starts, chosen = synthetic(200, 1)
    values = [log_posterior(fit_mm(rows, starts, chosen, iterations), rows, starts, chosen)
              for iterations in (1, 2, 4, 8)]
    assert values == sorted(values) and values[0] < values[-1]
    log_gammas = fit_mm(rows, starts, chosen, 10)
    assert log_gammas[CAPTURES][1] - log_gammas[CAPTURES][0] > 2 and log_gammas[CAPTURES][0] < 0 < log_gammas[CAPTURES][1]
    # values never seen keep gamma 1 (the prior: one virtual win, one virtual loss)
    assert log_gammas[CAPTURES][4] == 0.0 and log_gammas[0][60] == 0.0


def test_top_k_counts_ties_as_a_random_order_would():
    # position 0: scores 3, 1, 1, the move played is a 1 (one better, tied with one other)
    # position 1: scores 2, 2, the move played is one of them
    scores = np.array([3.0, 1.0, 1.0, 2.0, 2.0])
    rates = hit_rates(scores, np.array([0, 3]), np.array([1, 3]), ks=(1, 2, 5))
    assert rates == {1: (0.0 + 0.5) / 2, 2: (0.5 + 1.0) / 2, 5: 1.0}


def test_the_held_out_games_are_a_seeded_share():
    assert split_games(1, 0.5, 0) == set()
    assert len(split_games(10, 0.2, 3)) == 2 and split_games(10, 0.2, 3) == split_games(10, 0.2, 3)
    assert len(split_games(3, 0.0, 1)) == 1 and len(split_games(3, 0.99, 1)) == 2


# ---------------------------------------------------------------------------------------
# The script


def test_the_script_trains_on_the_games_it_plays_and_on_the_same_games_read_back(tmp_path):
    games, out, again = tmp_path / "games", tmp_path / "w.json", tmp_path / "again.json"
    args = ["--player", "random", "--size", "5", "--games", "4", "--held-out", "0.25", "--seed", "3",
            "--iterations", "5"]
    done = run(*args, "--games-dir", str(games), "--out", str(out))
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("games: 4 (3 for the fit, 1 held out); positions: ")
    assert lines[1].startswith("held-out move prediction: patterns top-1 ") and "heuristic priors top-1 " in lines[1]
    assert lines[2].startswith("mixed priors: pattern_mix=0.25 top-1 ") and "; pattern_mix=0.75 top-1 " in lines[2]
    assert lines[3].startswith(f"wrote {out} (") and " gammas) in " in lines[3]
    records = sorted(games.glob("*.sgf"))
    assert [p.name for p in records] == [f"game-{k:04d}.sgf" for k in range(4)]
    digest = hashlib.sha256()
    for path in records:
        digest.update(path.name.encode() + b"\0" + path.read_text(encoding="utf-8").encode() + b"\0")
    header = load_weights(out).header
    assert header["command"] == "scripts/train-patterns " + " ".join(args + ["--games-dir", str(games), "--out", str(out)])
    assert (header["seed"], header["games"], header["held_out_games"], header["board_sizes"]) == (3, 4, 1, [5])
    assert header["data_digest"] == "sha256:" + digest.hexdigest()
    assert header["source"] == f"self-play of random, written to {games}"
    assert set(header["held_out"]) == {"positions", "patterns", "heuristic_priors", "mixed"}
    assert set(header["held_out"]["mixed"]) == {"0.25", "0.5", "0.75"}
    # every record is a legal 5x5 game of random players
    for path in records:
        record = sgf.loads(path.read_text(encoding="utf-8"))
        assert record.size == 5 and sgf.replay(record).is_game_over()
    read_back = run(*args, "--from", str(games), "--out", str(again))
    assert read_back.returncode == 0
    first, second = json.loads(out.read_text()), json.loads(again.read_text())
    assert second["gammas"] == first["gammas"] and second["held_out"] == first["held_out"]
    assert second["data_digest"] == first["data_digest"] and second["source"] == f"read from {games}"


def write_game(path: Path, size: int) -> None:
    board = Board(Rules(size=size))
    board.push(Move.from_gtp("a1", size))
    path.write_text(sgf.dumps(sgf.record_from_board(board)), encoding="utf-8")


@pytest.mark.parametrize("case, message", [
    ("missing", "{folder}: no such directory"),
    ("empty", "{folder}: no game records (*.sgf)"),
    ("unreadable", "{folder}/b.sgf: cannot read: malformed SGF: no SGF data found"),
    ("illegal", "{folder}/b.sgf: cannot read: move 2 (B A9:1) is illegal: illegal move: A9:1 for BLACK: point is occupied"),
    ("size", "{folder}/b.sgf: a 7x7 game, the training is on 9x9"),
])
def test_training_data_that_cannot_be_used_is_refused_naming_the_file(tmp_path, case, message):
    folder = tmp_path / "games"
    if case != "missing":
        folder.mkdir()
    if case not in ("missing", "empty"):
        write_game(folder / "a.sgf", 9)
        bad = folder / "b.sgf"
        if case == "unreadable":
            bad.write_text("garbage", encoding="utf-8")
        elif case == "illegal":
            bad.write_text("(;GM[77]FF[4]SZ[9];W[aa];B[aa])", encoding="utf-8")
        else:
            write_game(bad, 7)
    expected = message.format(folder=folder)
    with pytest.raises(TrainingError) as error:
        read_games(folder, 9)
    assert str(error.value) == expected
    done = run("--from", str(folder), "--out", str(tmp_path / "w.json"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"train-patterns: {error.value}\n"
    assert not (tmp_path / "w.json").exists()


def test_bad_numbers_are_refused_by_the_command_line(tmp_path):
    done = run("--games", "0", "--out", str(tmp_path / "w.json"))
    assert done.returncode == 2 and done.stderr.endswith("train-patterns: error: argument --games: must be at least 1: '0'\n")
    done = run("--held-out", "1", "--out", str(tmp_path / "w.json"))
    assert done.returncode == 2
    assert done.stderr.endswith("train-patterns: error: argument --held-out: must be at least 0 and below 1: '1'\n")
    done = run("--cluster", "auto", "--from", str(tmp_path), "--out", str(tmp_path / "w.json"))
    assert done.returncode == 2 and done.stderr.endswith("train-patterns: error: --cluster plays games, --from reads them: give one\n")
    done = run("--player", "mcts:nope=1", "--out", str(tmp_path / "w.json"))
    assert done.returncode == 2 and "train-patterns: error: --player: unknown option for player 'mcts': 'nope'" in done.stderr


def test_an_out_that_is_a_pipe_is_refused_before_any_game_is_played(tmp_path):
    # the weights are renamed over --out, which would replace a pipe or a device (as root,
    # /dev/zero itself) with a regular file
    fifo = tmp_path / "w.json"
    os.mkfifo(fifo)
    done = run("--games", "1", "--out", str(fifo))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith(f"train-patterns: error: --out {fifo}: is a named pipe (FIFO), not a regular file\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and [p.name for p in tmp_path.iterdir()] == ["w.json"]


def test_the_reported_mix_is_the_search_s_prior(tmp_path):
    """mixed_scores, what the report measures for pattern_mix, gives the priors
    MctsPlayer._prior_rates gives with patterns on (to rounding: numpy's exp)."""
    import random

    from margo_gtp.lab.patterns_training import mixed_scores
    from margo_gtp.players.mcts import PRIOR_HIGH, PRIOR_LOW, MctsPlayer
    from margo_gtp.players.patterns import features

    board = Board(Rules(size=9))
    rng = random.Random(5)
    for _ in range(40):
        board.push(rng.choice(board.legal_moves()))
    moves = board.legal_moves()
    player = MctsPlayer(random.Random(1), patterns=True, pattern_mix=0.3)
    weights = player.patterns
    log_gammas = [np.zeros(count) for _, count in GROUPS]
    for table, logs in zip(log_gammas, weights.log_gammas):
        for value, log_gamma in logs.items():
            table[value] = log_gamma
    rows = np.array(features(board, moves), dtype=np.int32)
    heuristic = np.array(MctsPlayer(random.Random(1))._prior_rates(board, moves, int(board.to_move)))
    found = mixed_scores(log_gammas, rows, np.array([0]), heuristic, 0.3, PRIOR_LOW, PRIOR_HIGH)
    assert list(found) == pytest.approx(player._prior_rates(board, moves, int(board.to_move)), rel=1e-12, abs=0)
