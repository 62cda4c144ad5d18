"""The referee against real engine processes that misbehave (tests/fake_engines/faulty_engine.py).

Each fault happens once (``--once``), mid-game at engine B's third genmove in game 1 (for
``reject`` its first play, for ``badsetup`` its first set-up); game 2 must then be a normal
game, which shows that the match went on and that a crashed or hung engine was replaced.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules

from margo_gtp import sgf
from margo_gtp.game.faults import EngineStartError

from margo_gtp.match.referee import run_match
from margo_gtp.match.match_config import EngineSpec, MatchConfig, TimeControl

pytestmark = pytest.mark.process

FAULTY = Path(__file__).parent / "fake_engines" / "faulty_engine.py"


def engine(*args: str) -> str:
    return shlex.join([sys.executable, str(FAULTY), *args])


def match_config(command_b: str, games: int = 2, size: int = 3, **changes) -> MatchConfig:
    return MatchConfig(
        EngineSpec("A", "good", engine("--seed", "1")),
        EngineSpec("B", "faulty", command_b),
        games,
        Rules(size=size),
        **{"move_timeout": 30.0, "command_timeout": 30.0, **changes},
    )


def replayed_board(record: dict, rules: Rules = Rules(size=3)) -> Board:
    """The referee's final board, rebuilt from the record's moves."""
    board = Board(rules)
    for move in record["moves"]:
        board.push(Move.from_gtp(move["move"], 3), Colour.WHITE if move["colour"] == "W" else Colour.BLACK)
    return board


FAULT_CASES = [
    # fault args, forfeit reason, result of game 1 (A is White), start of the detail
    (["--fault", "crash"], "crash", "W+F",
     "engine 'B' closed its output during 'genmove' (exit code 1); last stderr line: 'faulty: crashing on purpose at genmove 3'"),
    (["--fault", "hang"], "timeout", "W+T", "engine 'B' did not answer 'genmove' within 2 s"),
    (["--fault", "garbage"], "protocol error", "W+F", "engine 'B' answered 'genmove' with a line that is not a GTP answer: 'I think I will play tengen'"),
    (["--fault", "malformed"], "malformed move", "W+F", "genmove B answered 'Z99:9'"),
    # by move 6, A1:1 is occupied: the first illegal point in listing order, which B names
    (["--fault", "illegal"], "illegal move", "W+F", "genmove B answered 'A1:1', illegal in this position"),
    (["--fault", "closeout"], "eof", "W+F", "engine 'B' closed its output during 'genmove' (still running)"),
    (["--fault", "pass"], "illegal move", "W+F", "genmove B answered 'pass', illegal in this position"),
    (["--fault", "fail"], "genmove failed", "W+F", "'genmove B' answered 'I give up'"),
    (["--fault", "reject"], "rejected move", "W+F", "'play W "),
    (["--fault", "badsetup"], "setup failed", "W+F", "'margo-set_rules first_player=white swap=off max_level=2 "),
]


@pytest.mark.parametrize("fault, reason, result, detail", FAULT_CASES, ids=[case[1] + "-" + case[0][1] for case in FAULT_CASES])
def test_each_fault_is_a_forfeit_with_its_reason_and_the_match_goes_on(tmp_path, fault, reason, result, detail):
    at = "1" if fault[1] in ("reject", "badsetup") else "3"
    # A short move timeout only where it is the point: a loaded machine must not turn a
    # healthy move into a timeout.
    move_timeout = 2.0 if fault[1] == "hang" else 30.0
    config = match_config(engine("--seed", "2", "--once", str(tmp_path / "fault-done"), "--at", at, *fault), move_timeout=move_timeout)
    run = run_match(config, tmp_path / "out")
    first, second = run.records
    assert not run.interrupted and [first["game"], second["game"]] == [1, 2]
    assert first["forfeit"]["engine"] == "B" and first["forfeit"]["colour"] == "B"
    assert (first["reason"], first["forfeit"]["reason"], first["result"], first["winner"]) == ("forfeit", reason, result, "A")
    assert first["forfeit"]["detail"].startswith(detail)
    assert first["move_count"] == (5 if at == "3" else 1 if fault[1] == "reject" else 0)
    # Game 2 is a full, normal game: the engine was restarted when it had to be.
    assert second["forfeit"] is None and second["reason"] == "no legal move"
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["game"] for line in lines] == [1, 2]
    for record in run.records:  # forfeited games too: the SGF holds the moves played
        game = sgf.loads((tmp_path / "out" / record["sgf"]).read_text())
        assert game.result == record["result"]
        assert sgf.replay(game).balls() == replayed_board(record).balls()


def test_resign_is_a_normal_loss_not_a_forfeit(tmp_path):
    run = run_match(match_config(engine("--fault", "resign", "--at", "2")), tmp_path)
    first = run.records[0]
    assert (first["result"], first["reason"], first["forfeit"], first["winner"]) == ("W+R", "resignation", None, "A")
    assert first["move_count"] == 3  # W, B, W; B's second genmove resigned


def test_every_sgf_replays_to_the_referees_final_position(tmp_path):
    run = run_match(match_config(engine("--seed", "7"), games=3), tmp_path)
    for record in run.records:
        text = (tmp_path / record["sgf"]).read_text()
        game = sgf.loads(text)
        assert game.result == record["result"]
        assert (game.white_name, game.black_name) == (record["white"], record["black"])
        assert sgf.replay(game).balls() == replayed_board(record).balls()
        assert len(game.moves) == record["move_count"]


def test_time_control_is_sent_and_an_exhausted_clock_loses_on_time(tmp_path):
    log = tmp_path / "b-commands.log"
    command_b = engine("--fault", "slow", "--delay", "2.5", "--log", str(log))
    run = run_match(match_config(command_b, games=1, time_control=TimeControl(2.0)), tmp_path / "out")
    record = run.records[0]
    assert (record["result"], record["forfeit"]["reason"]) == ("W+T", "time")
    sent = log.read_text().splitlines()
    assert sent[:6] == [
        "boardsize 3",
        "clear_board",
        "komi 0",
        "margo-set_rules first_player=white swap=off max_level=2 bridge_cutting=on all_freedoms=off "
        "own_freedomless_group=capture ko_rule=situational ko_position=full scoring=balls allow_pass=off first_capture_wins=off",
        "time_settings 2 0 0",
        f"play W {record['moves'][0]['move']}",
    ]
    assert sent[6:8] == ["time_left B 2 0", "genmove B"]


def test_swap_relays_and_records_the_exchanged_colours(tmp_path):
    config = MatchConfig(
        EngineSpec("A", "a", engine("--seed", "3")), EngineSpec("B", "b", engine("--seed", "4", "--swap")), 1, Rules(size=3, swap=True)
    )
    record = run_match(config, tmp_path).records[0]
    assert record["moves"][1] == {"colour": "B", "move": "swap", "engine": "B", "seconds": record["moves"][1]["seconds"]}
    assert (record["a_colour"], record["a_colour_final"], record["swapped"]) == ("W", "B", True)
    assert (record["white"], record["black"]) == ("b", "a")
    assert record["moves"][2]["engine"] == "A" and record["moves"][2]["colour"] == "B"
    game = sgf.loads((tmp_path / record["sgf"]).read_text())
    assert sgf.replay(game).balls() == replayed_board(record, Rules(size=3, swap=True)).balls()


def test_an_engine_that_cannot_start_stops_the_match_before_any_game(tmp_path):
    config = match_config("/nonexistent/engine --gtp")
    with pytest.raises(EngineStartError) as info:
        run_match(config, tmp_path)
    assert str(info.value) == "cannot start engine B '/nonexistent/engine --gtp': [Errno 2] No such file or directory: '/nonexistent/engine'"
    assert not (tmp_path / "results.jsonl").exists()


def test_parallel_workers_play_every_game_once(tmp_path):
    run = run_match(match_config(engine("--seed", "5"), games=5, parallel=2), tmp_path)
    assert [record["game"] for record in run.records] == [1, 2, 3, 4, 5]
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["game"] for line in lines) == [1, 2, 3, 4, 5]
    assert sorted(p.name for p in tmp_path.glob("game-*.sgf")) == [f"game-000{i}.sgf" for i in range(1, 6)]
    assert run.games_played == 5 and not run.interrupted


def test_parallel_workers_survive_faults(tmp_path):
    run = run_match(match_config(engine("--fault", "crash", "--at", "2"), games=4, parallel=2), tmp_path)
    assert [r["forfeit"]["reason"] for r in run.records] == ["crash"] * 4
    assert [r["winner"] for r in run.records] == ["A"] * 4


def test_wire_log_records_both_engines_conversations(tmp_path):
    run_match(match_config(engine("--seed", "6"), games=1, wire_log=True), tmp_path)
    lines = (tmp_path / "wire-0.log").read_text().splitlines()
    assert "A << 1 boardsize 3" in lines and "B << 1 boardsize 3" in lines
    assert "A >> =1" in lines
    assert any(line.startswith("A << ") and " genmove W" in line for line in lines)
    assert any(line.startswith("B << ") and " play W " in line for line in lines)


@pytest.mark.parametrize("wire_log", [True, False], ids=["wire-log", "no-log"])
def test_an_engine_flooding_its_stderr_is_drained_capped_and_its_game_recorded_once(tmp_path, monkeypatch, wire_log):
    """An engine that writes stderr without end: its pipe is drained (the game finishes, no
    timeout), the wire log it goes into stops at the cap with one cap line, and the game is
    recorded exactly once."""
    monkeypatch.setattr("margo_gtp.files.LOG_CAP_BYTES", 64 * 1024)
    run = run_match(match_config(engine("--seed", "7", "--flood"), games=1, wire_log=wire_log,
                                 move_timeout=10.0, command_timeout=10.0), tmp_path)
    assert [(record["game"], record["forfeit"]) for record in run.records] == [(1, None)]
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["game"] for line in lines] == [1]
    assert sorted(p.name for p in tmp_path.glob("game-*.sgf")) == ["game-0001.sgf"]
    if wire_log:
        log = (tmp_path / "wire-0.log").read_bytes()
        assert len(log) <= 64 * 1024
        assert log.endswith(b"\n[log capped at 65536 bytes]\n") and log.count(b"[log capped") == 1
        assert b"B !! faulty: flooding stderr xxx" in log
    else:
        assert not list(tmp_path.glob("wire-*.log"))
