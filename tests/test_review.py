"""margo-review (margo_gtp/commands/review.py) and the review library (margo_gtp.analysis.game_review):
the JSONL entries, the reviewed SGF (it round-trips through our reader and sgfmill, the
main line unchanged, Sabaki's SBKV on every move, the best line beside each mistake),
seeded repeatability, the summary, and one line with exit 2 for every bad input."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf as sgfmill_sgf

from margo_gtp.engine import Colour, Move, Rules
from margo_gtp.analysis.game_analysis import analyse_game
from margo_gtp.analysis.game_review import ReviewError, loss_grade, read_game, review_entries, reviewed_sgf, summary
from margo_gtp.sgf import SgfRecord, dumps, loads
from margo_gtp.vertex import project

BIN = Path(sys.executable).parent
FAKES = Path(__file__).parent / "fake_engines"
MOVES = ["C3:1", "B2:1", "C2:1", "B3:1", "D4:1", "B4:1", "C4:1", "D2:1", "B1:1", "A2:1"]


def game_record() -> SgfRecord:
    colours = [Colour.WHITE, Colour.BLACK] * 5
    record = SgfRecord(rules=Rules(size=5), moves=[(c, Move.from_gtp(v, 5)) for c, v in zip(colours, MOVES)],
                        white_name="alice", black_name="bob")
    record.move_properties = [{} for _ in MOVES]
    record.move_properties[2] = {"C": ["a note \\] kept"]}
    return record


def run_review(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "margo-review"), *args], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("review")
    game = folder / "game.sgf"
    game.write_text(dumps(game_record()), encoding="utf-8")
    done = run_review(str(game), "--visits", "40", "--parallel", "1", "--seed", "3", "--player", "mcts")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    entries = [json.loads(line) for line in (folder / "game.review.jsonl").read_text().splitlines()]
    return {"folder": folder, "game": game, "stdout": done.stdout, "entries": entries,
            "sgf": (folder / "game.reviewed.sgf").read_text(encoding="utf-8"),
            "go_sgf": (folder / "game.reviewed-go.sgf").read_text(encoding="utf-8")}


def test_one_entry_per_move_with_the_win_rates_of_the_mover(reviewed):
    entries = reviewed["entries"]
    assert [(e["move_number"], e["colour"], e["move"]) for e in entries] == [
        (i + 1, "WB"[i % 2], move) for i, move in enumerate(MOVES)]
    for entry in entries:
        assert 0 <= entry["winrate_before"] <= 1 and 0 <= entry["winrate_after"] <= 1
        assert entry["loss"] == pytest.approx(entry["winrate_before"] - entry["winrate_after"], abs=1e-6)
        assert entry["pv"][0] == entry["best"] and entry["visits"] == 40
        assert entry["agrees"] == (entry["move"] == entry["best"]) and entry["judgement"] == loss_grade(entry["loss"])
        assert len(entry["ownership"]) == 55 and isinstance(entry["score_lead"], float)
    # before: the engine's best move in the position before (its own simulations' mean);
    # after: the search from the position after, both with the opponent to move
    record = game_record()
    analyses = list(analyse_game(record.rules, record.moves, 40, seed=3, ownership=True))
    for entry, before, after in zip(entries, analyses, analyses[1:]):
        assert (before["rootInfo"]["currentPlayer"], after["rootInfo"]["currentPlayer"]) == (
            entry["colour"], "BW"[entry["colour"] == "B"])
        assert entry["winrate_before"] == before["moveInfos"][0]["winrate"]
        assert entry["winrate_after"] == round(1 - after["rootInfo"]["winrate"], 6)
        assert entry["ownership"] == after["ownership"]


def test_the_same_seed_gives_the_same_review(reviewed, tmp_path):
    done = run_review(str(reviewed["game"]), "--visits", "40", "--parallel", "2", "--seed", "3", "--out", str(tmp_path),
                      "--player", "mcts")
    assert done.returncode == 0
    assert (tmp_path / "game.review.jsonl").read_text() == (reviewed["folder"] / "game.review.jsonl").read_text()
    assert (tmp_path / "game.reviewed.sgf").read_text() == reviewed["sgf"]


def test_the_reviewed_sgf_round_trips_with_the_main_line_unchanged(reviewed):
    record = loads(reviewed["sgf"])
    original = game_record()
    assert record.moves == original.moves
    assert (record.white_name, record.black_name, record.rules) == ("alice", "bob", original.rules)
    assert record.move_properties[2]["C"][0].startswith("a note \\] kept\n\nW win rate ")
    game = sgfmill_sgf.Sgf_game.from_bytes(reviewed["sgf"].encode())
    main = game.get_main_sequence()
    assert len(main) == len(MOVES) + 1
    for node, entry in zip(main[1:], reviewed["entries"]):
        black = entry["winrate_after"] if entry["colour"] == "B" else 1 - entry["winrate_after"]
        assert float(node.get("SBKV")) == pytest.approx(100 * black, abs=0.006)
        marks = {"blunder": "BM", "mistake": "BM", "inaccuracy": "DO", "good": "TE"}
        assert {p for p in ("BM", "DO", "TE") if node.has_property(p)} == (
            {marks[entry["judgement"]]} if entry["judgement"] else set())


def test_the_go_viewer_sgf_is_the_projection_with_sabakis_win_rates(reviewed):
    """GM[1] on the (2N-1)x(2N-1) board, each move at its column's 2-D point with the
    entry's SBKV (Black's win rate after it, in percent), as sgfmill and Sabaki read it."""
    game = sgfmill_sgf.Sgf_game.from_bytes(reviewed["go_sgf"].encode())
    root = game.get_root()
    assert (root.get("GM"), game.get_size(), root.get("PB"), root.get("PW")) == (1, 9, "bob", "alice")
    movers = [node for node in game.get_main_sequence()[1:] if node.get_move()[0] is not None]
    assert len(movers) == len(MOVES) == len(reviewed["entries"])
    native = sgfmill_sgf.Sgf_game.from_bytes(reviewed["sgf"].encode()).get_main_sequence()[1:]
    for node, entry, twin in zip(movers, reviewed["entries"], native):
        assert node.get("C") == twin.get("C") and f"{entry['colour']} win rate " in node.get("C")
        colour, (row, col) = node.get_move()
        point = Move.from_gtp(entry["move"], 5).point
        assert (colour.upper(), (col, row)) == (entry["colour"], project(point))
        black = entry["winrate_after"] if entry["colour"] == "B" else 1 - entry["winrate_after"]
        assert node.get("SBKV") == f"{round(100 * black, 2):g}"
        assert node.get("SBKS") == f"{round(entry['score_lead'] if entry['colour'] == 'B' else -entry['score_lead'], 2):g}"
    assert [move for _, move in loads(reviewed["go_sgf"]).moves] == [move for _, move in game_record().moves]


def test_each_mistake_has_the_best_line_as_a_variation():
    record = game_record()
    analyses = list(analyse_game(record.rules, record.moves, 30, seed=1))
    entries = list(review_entries(record, analyses))
    entries[3] = {**entries[3], "loss": 0.3, "judgement": "blunder", "agrees": False, "best": "D4:1",
                  "pv": ["D4:1", "C4:1"]}
    game = sgfmill_sgf.Sgf_game.from_bytes(reviewed_sgf(record, entries).encode())
    parent = game.get_main_sequence()[3]  # the position before move 4
    assert len(parent) == 2
    assert parent[0].get_raw("B") == b"bc:1"  # the main line first: B3:1 as played
    variation = parent[1]
    assert variation.get_raw("B") == b"db:1" and variation[0].get_raw("W") == b"cb:1"
    assert variation.get("C") == "B's best move by the review (" + f"{100 * entries[3]['winrate_before']:.1f}%)"
    assert [move for _, move in loads(reviewed_sgf(record, entries)).moves] == [m for _, m in record.moves]


def test_the_summary_counts_per_player():
    entries = [
        {"colour": "W", "loss": 0.25, "judgement": "blunder", "agrees": False},
        {"colour": "B", "loss": -0.12, "judgement": "good", "agrees": True},
        {"colour": "W", "loss": 0.07, "judgement": "inaccuracy", "agrees": True},
        {"colour": "B", "loss": 0.11, "judgement": "mistake", "agrees": False},
    ]
    assert summary(entries) == {
        "B": {"moves": 2, "mistakes": 1, "blunders": 0, "inaccuracies": 0, "mean_loss": 0.055, "agreement": 0.5},
        "W": {"moves": 2, "mistakes": 1, "blunders": 1, "inaccuracies": 1, "mean_loss": 0.16, "agreement": 0.5},
    }


def test_the_table_and_the_files_are_printed(reviewed):
    lines = reviewed["stdout"].splitlines()
    assert lines[1].split() == ["player", "moves", "mistakes", "blunders", "mean", "loss", "agreement"]
    assert lines[2].split()[:3] == ["B", "bob", "5"] and lines[3].split()[:3] == ["W", "alice", "5"]
    folder = reviewed["folder"]
    assert lines[-4:] == [f"wrote {folder}/game.review.jsonl", f"wrote {folder}/game.reviewed.sgf",
                          f"wrote {folder}/game.reviewed-go.sgf", f"wrote {folder}/game.winrate.png"]
    assert (folder / "game.winrate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_variations_are_reviewed_on_the_main_line_and_said(tmp_path):
    game = tmp_path / "v.sgf"
    game.write_text("(;FF[4]GM[77]SZ[4];W[bb:1](;B[cc:1];W[ab:1])(;B[aa:1]))", encoding="utf-8")
    done = run_review(str(game), "--visits", "5", "--parallel", "1", "--player", "mcts")
    assert (done.returncode, done.stderr) == (0, f"margo-review: {game} has variations: reviewing the main line only\n")
    assert len((tmp_path / "v.review.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize(("text", "message"), [
    ("(;FF[4]GM[1]SZ[9];B[ee];W[dd])", "not a MarGo record: GM[1] is a Go record (margo-review reads native MarGo SGF, GM[77])"),
    ("(;FF[4]SZ[9];B[ee])", "not a MarGo record: GM[1] is a Go record (margo-review reads native MarGo SGF, GM[77])"),
    ("(;FF[4]GM[3]SZ[8];B[ee])", "not a MarGo record: GM[3] is another game (margo-review reads native MarGo SGF, GM[77])"),
    ("(;FF[4]GM[77]SZ[5])", "the game has no moves to review"),
    ("(;FF[4]GM[77]SZ[5];W[cc:1];B[cc:1])", "move 2 (B C3:1) is illegal: illegal move: C3:1 for BLACK: point is occupied"),
    ("not sgf", "not an SGF record: no SGF data found"),
])
def test_a_bad_game_is_one_line_and_exit_2(tmp_path, text, message):
    game = tmp_path / "bad.sgf"
    game.write_text(text, encoding="utf-8")
    done = run_review(str(game), "--visits", "5", "--parallel", "1")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"margo-review: {game}: {message}\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.sgf"]


def test_bad_places_and_engines_are_one_line_and_exit_2(reviewed, tmp_path):
    game = str(reviewed["game"])
    cases = [
        ([str(tmp_path / "missing.sgf")], f"cannot read {str(tmp_path / 'missing.sgf')!r}: No such file or directory"),
        ([game, "--out", game], f"--out {game!r} is not a directory"),
        ([game, "--out", f"{game}/sub"], f"cannot create --out {game + '/sub'!r}: Not a directory"),
        ([game, "--out", "/proc/self"], None),
        ([game, "--engine", f"{sys.executable} {FAKES / 'echo_engine.py'}"],
         "engine 'python' cannot analyse: it does not know 'margo-analyze_snapshot' (margo-gtp has it, whatever its player)"),
    ]
    for args, message in cases:
        done = run_review(*args, "--visits", "5", "--parallel", "1")
        assert (done.returncode, done.stdout) == (2, ""), args
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("margo-review: "), done.stderr
        if message is not None:
            assert done.stderr == f"margo-review: {message}\n"


def test_an_output_file_that_is_a_pipe_is_refused_before_the_review(tmp_path):
    # each file is renamed over its path, which would replace a pipe or a device (as root,
    # /dev/zero itself) with a regular file: one line before any position is searched
    game = tmp_path / "game.sgf"
    game.write_text(dumps(game_record()), encoding="utf-8")
    fifo = tmp_path / "game.reviewed.sgf"
    os.mkfifo(fifo)
    done = run_review(str(game), "--visits", "5", "--parallel", "1", "--player", "mcts")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"margo-review: cannot write {str(fifo)!r}: is a named pipe (FIFO), not a regular file\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game.reviewed.sgf", "game.sgf"]


def test_a_new_out_folder_is_made_as_margo_match_does(reviewed, tmp_path):
    out = tmp_path / "new" / "deeper"
    done = run_review(str(reviewed["game"]), "--visits", "5", "--parallel", "1", "--out", str(out), "--player", "mcts")
    assert (done.returncode, done.stderr) == (0, "")
    assert sorted(path.name for path in out.iterdir()) == [
        "game.review.jsonl", "game.reviewed-go.sgf", "game.reviewed.sgf", "game.winrate.png"]


def test_any_margo_gtp_engine_can_review(tmp_path):
    game = tmp_path / "short.sgf"
    game.write_text("(;FF[4]GM[77]SZ[4];W[bb:1];B[cc:1])", encoding="utf-8")
    done = run_review(str(game), "--engine", f"{BIN / 'margo-gtp'} --player random --seed 1", "--visits", "10")
    assert done.returncode == 0, done.stderr
    entries = [json.loads(line) for line in (tmp_path / "short.review.jsonl").read_text().splitlines()]
    assert [e["move"] for e in entries] == ["B3:1", "C2:1"] and all(e["score_lead"] is None for e in entries)


def test_a_missing_review_extra_is_named_before_any_work(monkeypatch, tmp_path):
    from margo_gtp.commands import review

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(review.ReviewFailed, match=r"^the review extra is not installed \(pip install 'margo-gtp\[review\]'\)$"):
        review.review(tmp_path / "any.sgf", None, 5, None, None, 1, 0)


def test_read_game_refuses_what_is_not_a_margo_record():
    with pytest.raises(ReviewError, match="GM\\[1\\] is a Go record"):
        read_game("(;GM[1]SZ[9];B[aa])")
    record, variations = read_game(dumps(game_record()))
    assert (len(record.moves), variations) == (10, False)


def test_without_ownership_the_c_tree_reviews_the_same_moves_the_same_way(reviewed, tmp_path):
    done = run_review(str(reviewed["game"]), "--visits", "40", "--parallel", "1", "--seed", "3", "--player", "mcts",
                      "--no-ownership", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    entries = [json.loads(line) for line in (tmp_path / "game.review.jsonl").read_text().splitlines()]
    # the score lead is the search's own (it no longer needs the ownership counts)
    assert all("ownership" not in e and isinstance(e["score_lead"], float) for e in entries)
    keys = ("move", "winrate_before", "winrate_after", "loss", "best", "pv", "visits", "rank", "judgement",
            "score_lead", "score_lead_before")
    assert [{k: e[k] for k in keys} for e in entries] == [{k: e[k] for k in keys} for e in reviewed["entries"]]


def test_review_game_streams_the_entries_margo_review_writes(reviewed):
    from margo_gtp.analysis.game_review import review_game

    entries = review_game(game_record(), 40, seed=3)
    assert next(entries) == reviewed["entries"][0]  # the first entry before the rest is searched
    assert list(entries) == reviewed["entries"][1:]
    bad = SgfRecord(rules=Rules(size=5), moves=[(Colour.WHITE, Move.from_gtp("C3:1", 5))] * 2)
    with pytest.raises(ReviewError, match=r"^move 2 \(W C3:1\) is illegal"):
        next(review_game(bad, 5))


def test_review_game_reports_the_progress_of_each_position_before_its_entry():
    from margo_gtp.analysis.game_review import review_game

    record = SgfRecord(rules=Rules(size=4), moves=[(Colour.WHITE, Move.from_gtp("B2:1", 4)),
                                                    (Colour.BLACK, Move.from_gtp("C3:1", 4))])
    events: list[tuple] = []
    for entry in review_game(record, 64, ownership=True, on_progress=lambda turn, p: events.append(("progress", turn)),
                             progress_interval=0):
        events.append(("entry", entry["move_number"]))
    # the search of turn k is watched before the entry of move k (which needs it) comes
    for number in (1, 2):
        assert events.index(("progress", number)) < events.index(("entry", number))
    assert events.index(("progress", 0)) < events.index(("progress", 1))


def test_the_default_search_is_strongest_and_says_where_it_plays_mcts(reviewed, tmp_path):
    """No --player: strongest, margo-gtp's default. On 5x5, where no network ships, that is
    the fresh seeded mcts of --player mcts, to the byte, and one line says so (as margo-gtp's
    default does when it plays there)."""
    done = run_review(str(reviewed["game"]), "--visits", "40", "--parallel", "1", "--seed", "3", "--out", str(tmp_path))
    assert (done.returncode, done.stderr) == (
        0, "margo-review: no network for 5x5 (weights for 7x7, 9x9): reviewing with mcts\n")
    assert (tmp_path / "game.review.jsonl").read_text() == (reviewed["folder"] / "game.review.jsonl").read_text()
    assert (tmp_path / "game.reviewed.sgf").read_text() == reviewed["sgf"]


def test_the_default_search_on_7x7_is_the_net(tmp_path):
    """On 7x7 the default reviews with the shipped network, as --player net does, and says
    nothing; the seed changes nothing there (the net's search draws no random numbers)."""
    game = tmp_path / "seven.sgf"
    game.write_text("(;FF[4]GM[77]SZ[7];W[dd:1];B[cc:1];W[ce:1])", encoding="utf-8")
    runs = {}
    for name, extra in (("default", ["--seed", "4"]), ("net", ["--player", "net"]), ("mcts", ["--player", "mcts"])):
        out = tmp_path / name
        done = run_review(str(game), "--visits", "24", "--parallel", "1", "--out", str(out), *extra)
        assert (done.returncode, done.stderr) == (0, ""), (name, done.stderr)
        runs[name] = (out / "seven.review.jsonl").read_text()
    assert runs["default"] == runs["net"] != runs["mcts"]
