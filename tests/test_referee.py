"""The referee's judging and bookkeeping, in-process (no engine processes): the game
loop over scripted players, move judging, clocks, the results log and resuming."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.vertex import Point

from margo_gtp.game.faults import (
    FORFEIT,
    GENMOVE_FAILED,
    ILLEGAL_MOVE,
    MALFORMED_MOVE,
    MAX_MOVES,
    REJECTED_MOVE,
    RESIGNATION,
    TIMEOUT,
    EngineFault,
)
from margo_gtp.game.loop import judge, play_game

from margo_gtp.match.game_runner import colours_of_game
from margo_gtp.match.referee import pending_games
from margo_gtp.match.results_log import MatchMismatch, ResultsLog, prepare_directory
from margo_gtp.match.match_config import EngineSpec, MatchConfig, TimeControl, default_names
from margo_gtp.players.clock import Clock


class ScriptedPlayer:
    """A player with its own board: answers genmove from ``script`` (genmove number ->
    answer text or EngineFault) or else with a random legal placement; records calls."""

    def __init__(self, label: str, rules: Rules, script=None, seed: int = 0, reject_play: int | None = None):
        self.label = label
        self.board = Board(rules)
        self.script = dict(script or {})
        self.rng = random.Random(seed)
        self.reject_play = reject_play
        self.genmoves = 0
        self.plays = 0
        self.calls: list[tuple[str, ...]] = []

    def genmove(self, colour: Colour) -> tuple[str, float]:
        self.genmoves += 1
        self.calls.append(("genmove", colour.letter))
        answer = self.script.get(self.genmoves)
        if isinstance(answer, EngineFault):
            raise answer
        if answer is None:
            placements = [m for m in self.board.legal_moves(colour) if m.point is not None]
            answer = self.rng.choice(placements).gtp()
        try:
            move = Move.from_gtp(answer, self.board.size)
            if self.board.is_legal(move, colour):
                self.board.push(move, colour)
        except ValueError:
            pass
        return answer, 0.25

    def play(self, colour: Colour, move: Move) -> None:
        self.plays += 1
        self.calls.append(("play", colour.letter, move.gtp()))
        if self.plays == self.reject_play:
            raise EngineFault(REJECTED_MOVE, "'play' answered 'illegal move'")
        self.board.push(move, colour)


def _game(rules: Rules, script_w=None, script_b=None, max_moves=None, reject_b=None, seeds=(1, 2)):
    board = Board(rules)
    white = ScriptedPlayer("A", rules, script_w, seeds[0])
    black = ScriptedPlayer("B", rules, script_b, seeds[1], reject_play=reject_b)
    end = play_game(board, {Colour.WHITE: white, Colour.BLACK: black}, max_moves)
    return board, white, black, end


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=2, max_value=4), st.integers(0, 10_000), st.integers(0, 10_000))
def test_random_games_end_where_the_rules_core_says_and_both_players_saw_every_move(size, seed_w, seed_b):
    rules = Rules(size=size)
    board, white, black, end = _game(rules, seeds=(seed_w, seed_b))
    outcome = board.outcome()
    assert outcome is not None
    assert (end.winner, end.result, end.reason, end.forfeit) == (outcome.winner, outcome.result(), outcome.termination.value, None)
    assert [(m["colour"], m["move"]) for m in end.moves] == [(c.letter, m.gtp()) for c, m in board.history]
    assert white.board.balls() == black.board.balls() == board.balls()
    assert [m["engine"] for m in end.moves] == ["A" if m["colour"] == "W" else "B" for m in end.moves]


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("A1:1", Move(Point(0, 0, 0))),
        ("a1", Move(Point(0, 0, 0))),
        ("  c3:1 ", Move(Point(2, 2, 0))),
        ("resign", None),
        ("Resign", None),
    ],
)
def test_judge_accepts_legal_moves_and_resign(answer, expected):
    assert judge(Board(Rules(size=3)), answer, Colour.WHITE) == expected


@pytest.mark.parametrize(
    "answer, reason, detail",
    [
        ("", MALFORMED_MOVE, "genmove W answered ''"),
        ("Z9:1", MALFORMED_MOVE, "genmove W answered 'Z9:1'"),
        ("D4:1", MALFORMED_MOVE, "genmove W answered 'D4:1'"),  # off a 3x3 board
        ("A1:1 B1:1", MALFORMED_MOVE, "genmove W answered 'A1:1 B1:1'"),
        ("A\u0661", MALFORMED_MOVE, "genmove W answered 'A\u0661'"),  # Arabic-Indic 1 is not A1
        ("A1:\u0661", MALFORMED_MOVE, "genmove W answered 'A1:\u0661'"),
        ("pass", ILLEGAL_MOVE, "genmove W answered 'pass', illegal in this position"),
        ("swap", ILLEGAL_MOVE, "genmove W answered 'swap', illegal in this position"),
        ("A1:2", ILLEGAL_MOVE, "genmove W answered 'A1:2', illegal in this position"),  # unsupported
        ("B2:1", ILLEGAL_MOVE, "genmove W answered 'B2:1', illegal in this position"),  # occupied
    ],
)
def test_judge_turns_bad_answers_into_faults(answer, reason, detail):
    board = Board(Rules(size=3))
    board.push(Move.from_gtp("B2:1", 3), Colour.BLACK)
    with pytest.raises(EngineFault) as info:
        judge(board, answer, Colour.WHITE)
    assert (info.value.reason, info.value.detail, info.value.restart) == (reason, detail, False)


def test_judge_accepts_pass_when_the_rules_allow_it():
    assert judge(Board(Rules(size=3, allow_pass=True)), "PASS", Colour.WHITE) == Move.PASS


@pytest.mark.parametrize(
    "script_w, script_b, reject_b, loser, reason, result",
    [
        ({2: "Z9:9"}, None, None, Colour.WHITE, MALFORMED_MOVE, "B+F"),
        (None, {1: "A1:2"}, None, Colour.BLACK, ILLEGAL_MOVE, "W+F"),
        (None, {1: EngineFault(TIMEOUT, "slow", restart=True)}, None, Colour.BLACK, TIMEOUT, "W+T"),
        ({1: EngineFault(GENMOVE_FAILED, "no")}, None, None, Colour.WHITE, GENMOVE_FAILED, "B+F"),
        (None, None, 1, Colour.BLACK, REJECTED_MOVE, "W+F"),
    ],
)
def test_forfeits_name_the_loser_and_the_reason(script_w, script_b, reject_b, loser, reason, result):
    board, _, _, end = _game(Rules(size=3), script_w, script_b, reject_b=reject_b)
    assert end.reason == FORFEIT
    assert end.forfeit is not None and (end.forfeit[0], end.forfeit[1].reason) == (loser, reason)
    assert (end.winner, end.result) == (loser.opponent, result)
    assert len(end.moves) == len(board.history)


def test_resignation_ends_the_game_and_is_not_a_move():
    board, white, black, end = _game(Rules(size=3), script_b={2: "resign"})
    assert (end.winner, end.result, end.reason, end.forfeit) == (Colour.WHITE, "W+R", RESIGNATION, None)
    assert len(end.moves) == 3 == len(board.history)
    assert black.calls[-1] == ("genmove", "B") and white.calls[-1] == ("genmove", "W")


def test_swap_exchanges_the_players_and_the_same_colour_moves_next():
    rules = Rules(size=3, swap=True)
    board, first, second, end = _game(rules, script_w={1: "B2:1"}, script_b={1: "swap"}, max_moves=4)
    # White's engine (A) played B2:1; B swapped and now holds White; A holds Black and moves.
    assert first.calls[:3] == [("genmove", "W"), ("play", "B", "swap"), ("genmove", "B")]
    assert second.calls[:3] == [("play", "W", "B2:1"), ("genmove", "B"), ("play", "B", end.moves[2]["move"])]
    assert [m["engine"] for m in end.moves] == ["A", "B", "A", "B"]
    assert [m["colour"] for m in end.moves] == ["W", "B", "B", "W"]
    assert board.swapped and end.reason == MAX_MOVES


def test_a_refused_play_after_a_swap_forfeits_the_engine_that_now_holds_the_colour():
    rules = Rules(size=3, swap=True)
    board = Board(rules)
    a = ScriptedPlayer("A", rules, {1: "B2:1"}, reject_play=1)
    b = ScriptedPlayer("B", rules, {1: "swap"})
    end = play_game(board, {Colour.WHITE: a, Colour.BLACK: b})
    # A refuses "play B swap"; after the swap A holds Black.
    assert end.forfeit is not None and end.forfeit[0] == Colour.BLACK and end.result == "W+F"


@pytest.mark.parametrize(
    "komi, max_moves, result",
    [(0.0, 3, "W+1"), (1.0, 4, "W+1"), (0.0, 4, "0"), (2.5, 4, "W+2.5"), (0.0, 0, "0")],
)
def test_max_moves_is_adjudicated_by_ball_count_with_komi(komi, max_moves, result):
    board, _, _, end = _game(Rules(size=4, komi=komi), max_moves=max_moves)
    assert (end.reason, end.result, len(end.moves)) == (MAX_MOVES, result, max_moves)


@pytest.mark.parametrize(
    "text, control",
    [
        ("300", TimeControl(300.0)),
        ("60 10 5", TimeControl(60.0, 10.0, 5)),
        ("60,10,5", TimeControl(60.0, 10.0, 5)),
        ("0/30/1", TimeControl(0.0, 30.0, 1)),
    ],
)
def test_time_control_parse(text, control):
    assert TimeControl.parse(text) == control


@pytest.mark.parametrize("text", ["", "1 2", "a b c", "60 10 x"])
def test_time_control_parse_rejects(text):
    with pytest.raises(ValueError, match="time control must be"):
        TimeControl.parse(text)


@pytest.mark.parametrize(
    "control, spends, alive, time_left",
    [
        (TimeControl(10.0), [4.0, 5.0], [True, True], (1, 0)),
        (TimeControl(10.0), [4.0, 7.0], [True, False], (0, 0)),
        # 2 s main, then 3 s per 2 moves: 3 s (1 in main, 2 in the period), 0.5, new period
        (TimeControl(2.0, 3.0, 2), [3.0, 0.5], [True, True], (3, 2)),
        (TimeControl(2.0, 3.0, 2), [3.0, 2.5], [True, False], (0, 1)),
        (TimeControl(0.0, 3.0, 1), [2.9, 2.9, 2.9], [True, True, True], (3, 1)),
        (TimeControl(0.0, 5.0, 0), [100.0], [True], (5, 0)),  # GTP: stones 0 = no limit
    ],
)
def test_clock(control, spends, alive, time_left):
    clock = Clock(control.settings())
    assert [clock.spend(seconds) for seconds in spends] == alive
    assert clock.time_left() == time_left


def test_colours_alternate_and_default_names_tell_equal_commands_apart():
    assert [colours_of_game(g)["A"] for g in (1, 2, 3, 4)] == [Colour.WHITE, Colour.BLACK, Colour.WHITE, Colour.BLACK]
    assert colours_of_game(2)["B"] == Colour.WHITE
    assert default_names("x", "x") == ("x (A)", "x (B)")
    assert default_names("x", "y") == ("x", "y")


def _config(games=3, **changes):
    return MatchConfig(EngineSpec("A", "a", "engine-a"), EngineSpec("B", "b", "engine-b"), games, Rules(size=3), **changes)


def test_results_log_tolerates_a_torn_last_line_and_keeps_the_first_record_of_a_game(tmp_path: Path):
    log = ResultsLog(tmp_path)
    log.append({"game": 2, "result": "W+1"})
    log.append({"game": 1, "result": "B+1"})
    log.append({"game": 2, "result": "B+9"})  # a duplicate never replaces the first
    with open(log.path, "ab") as handle:
        handle.write(b'{"game": 3, "res')  # the writer was killed mid-line
    assert [(r["game"], r["result"]) for r in log.load(repair=False)] == [(1, "B+1"), (2, "W+1")]
    assert log.path.read_bytes().endswith(b'"res')
    assert [r["game"] for r in log.load()] == [1, 2]
    assert log.path.read_bytes().endswith(b"}\n")
    log.append({"game": 3, "result": "0"})
    assert [json.loads(line)["game"] for line in log.path.read_text().splitlines()] == [2, 1, 2, 3]


def test_results_log_skips_unreadable_lines(tmp_path: Path):
    (tmp_path / "results.jsonl").write_text('{"game": 1}\nnot json\n{"no": "game"}\n{"game": 4}\n')
    assert [r["game"] for r in ResultsLog(tmp_path).load()] == [1, 4]


def test_prepare_directory_resumes_the_same_match_and_refuses_another(tmp_path: Path):
    assert prepare_directory(_config(), tmp_path) == []
    ResultsLog(tmp_path).append({"game": 2})
    finished = prepare_directory(_config(games=5), tmp_path)  # more games: same match
    assert pending_games(_config(games=5), finished) == [1, 3, 4, 5]
    with pytest.raises(MatchMismatch, match=r"holds a different match \(differs in: max_moves, rules\)"):
        prepare_directory(
            MatchConfig(EngineSpec("A", "a", "engine-a"), EngineSpec("B", "b", "engine-b"), 3, Rules(size=4), max_moves=9),
            tmp_path,
        )


@pytest.mark.parametrize("text", ["[1]", "null", '"match"', "not json"])
def test_a_match_file_that_is_not_a_match_description(tmp_path: Path, text: str):
    (tmp_path / "match.json").write_text(text)
    assert prepare_directory(_config(), tmp_path) == []  # no game finished: described afresh
    assert json.loads((tmp_path / "match.json").read_text()) == _config().identity()
    (tmp_path / "match.json").write_text(text)
    ResultsLog(tmp_path).append({"game": 1})
    with pytest.raises(MatchMismatch, match=r"holds a different match \(differs in: "):
        prepare_directory(_config(), tmp_path)  # finished games of an unknown match: refused


def test_a_match_file_that_cannot_be_read_is_refused(tmp_path: Path):
    (tmp_path / "match.json").mkdir()
    with pytest.raises(MatchMismatch) as refused:
        prepare_directory(_config(), tmp_path)
    assert str(refused.value) == f"{tmp_path / 'match.json'}: cannot read: Is a directory; use another --out"
