"""The one game loop (margo_gtp.game) over scripted bots: exact move lists, forfeit reasons,
adjudication, relayed openings, in-process players as bots, and the one record, which
must write the same results line, live feed and SGF as the referee did before the loop
was shared (tests/data/one_record: written by the referee at commit 0b151dc)."""

from __future__ import annotations

import json
import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

import margo_gtp
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.game import EngineFault, GameRecord, PlayerBot, feed_move, judge, play_game, relay
from margo_gtp.game.faults import (
    ADJUDICATED, FORFEIT, ILLEGAL_MOVE, MALFORMED_MOVE, MAX_MOVES, REJECTED_MOVE, RESIGNATION, TIME_CONTROL,
)
from margo_gtp.players import RESIGN, Budget, make_player

from margo_gtp.match.match_config import Adjudication

DATA = Path(__file__).parent / "data" / "one_record"
W, B = Colour.WHITE, Colour.BLACK


class ListBot:
    """Answers genmove from a list, one answer (or EngineFault) per call; records calls."""

    def __init__(self, label: str, answers, refuse_play: int | None = None, seconds: float = 0.5):
        self.label = label
        self.answers = list(answers)
        self.refuse_play = refuse_play
        self.seconds = seconds
        self.calls: list[str] = []

    def genmove(self, colour: Colour) -> tuple[str, float]:
        self.calls.append(f"genmove {colour.letter}")
        answer = self.answers.pop(0)
        if isinstance(answer, EngineFault):
            raise answer
        return answer, self.seconds

    def play(self, colour: Colour, move: Move) -> None:
        self.calls.append(f"play {colour.letter} {move.gtp()}")
        if len([c for c in self.calls if c.startswith("play")]) == self.refuse_play:
            raise EngineFault(REJECTED_MOVE, "'play' answered 'illegal move'")


def moves_of(end):
    return [f"{m['engine']} {m['colour']} {m['move']}" for m in end.moves]


def test_a_game_to_the_rules_end_with_exact_moves_and_calls():
    # 2x2: White's B2 captures Black's B1, and Black has no legal move left.
    board = Board(Rules(size=2))
    white = ListBot("A", ["A1:1", "B2:1"])
    black = ListBot("B", ["B1:1"])
    end = play_game(board, {W: white, B: black})
    assert moves_of(end) == ["A W A1:1", "B B B1:1", "A W B2:1"]
    assert white.calls == ["genmove W", "play B B1:1", "genmove W"]
    assert black.calls == ["play W A1:1", "genmove B", "play W B2:1"]
    assert (end.winner, end.result, end.reason, end.forfeit) == (W, "W+2", "no legal move", None)
    assert [m["seconds"] for m in end.moves] == [0.5] * 3


@pytest.mark.parametrize(
    "white_answers, black_answers, refuse, loser, reason, result, played",
    [
        (["A1:1", "Z9:1"], ["B2:1"], None, W, MALFORMED_MOVE, "B+F", ["A W A1:1", "B B B2:1"]),
        (["A1:1"], ["A1:1"], None, B, ILLEGAL_MOVE, "W+F", ["A W A1:1"]),
        (["A1:1", "B2:1 C3:1"], ["B2:1"], None, W, MALFORMED_MOVE, "B+F", ["A W A1:1", "B B B2:1"]),
        (["A1:1", EngineFault(TIME_CONTROL, "out")], ["B2:1"], None, W, TIME_CONTROL, "B+T", ["A W A1:1", "B B B2:1"]),
        (["A1:1"], [], 1, B, REJECTED_MOVE, "W+F", ["A W A1:1"]),
    ],
)
def test_forfeits(white_answers, black_answers, refuse, loser, reason, result, played):
    end = play_game(Board(Rules(size=3)), {W: ListBot("A", white_answers), B: ListBot("B", black_answers, refuse)})
    assert (end.reason, end.result, end.winner) == (FORFEIT, result, loser.opponent)
    assert (end.forfeit[0], end.forfeit[1].reason) == (loser, reason)
    assert moves_of(end) == played


def test_the_forfeit_details_are_exact():
    end = play_game(Board(Rules(size=3)), {W: ListBot("A", ["A1:1", "pass"]), B: ListBot("B", ["B2:1"])})
    assert end.forfeit[1].detail == "genmove W answered 'pass', illegal in this position"
    end = play_game(Board(Rules(size=3)), {W: ListBot("A", [" "]), B: ListBot("B", [])})
    assert end.forfeit[1].detail == "genmove W answered ' '"


def test_resignation():
    end = play_game(Board(Rules(size=3)), {W: ListBot("A", ["A1:1"]), B: ListBot("B", ["RESIGN"])})
    assert (end.winner, end.result, end.reason, moves_of(end)) == (W, "W+R", RESIGNATION, ["A W A1:1"])


def test_max_moves_and_margin_adjudication():
    white, black = ["A1:1", "C1:1", "A3:1"], ["B2:1", "C3:1"]
    end = play_game(Board(Rules(size=3, komi=0.5)), {W: ListBot("A", white), B: ListBot("B", black)}, max_moves=3)
    assert (end.reason, end.result, moves_of(end)) == (MAX_MOVES, "W+1.5", ["A W A1:1", "B B B2:1", "A W C1:1"])
    # With komi 0.5, White leads by at least 0.5 after every move: adjudicated after the third.
    end = play_game(Board(Rules(size=3, komi=0.5)), {W: ListBot("A", white), B: ListBot("B", black)},
                    adjudication=Adjudication(margin=0.5, moves=3))
    assert (end.reason, end.result, len(end.moves)) == (ADJUDICATED, "W+1.5", 3)
    # Without komi White's lead of 1 is lost after each Black move: the streak starts over.
    end = play_game(Board(Rules(size=3)), {W: ListBot("A", white), B: ListBot("B", black)},
                    max_moves=5, adjudication=Adjudication(margin=1, moves=2))
    assert (end.reason, end.result, len(end.moves)) == (MAX_MOVES, "W+1", 5)


def test_relay_tells_both_bots_and_a_refusal_forfeits():
    board = Board(Rules(size=3))
    a, b = ListBot("A", []), ListBot("B", [], refuse_play=2)
    seen = []
    end = relay(board, {W: a, B: b}, [(W, Move.from_gtp("A1:1", 3)), (B, Move.from_gtp("B2:1", 3))], seen.append)
    assert a.calls == ["play W A1:1", "play B B2:1"] and b.calls == ["play W A1:1", "play B B2:1"]
    assert seen == [{"colour": "W", "move": "A1:1", "engine": None, "seconds": 0.0}]
    assert (end.result, end.forfeit[0], end.forfeit[1].reason, end.moves) == ("W+F", B, REJECTED_MOVE, [])


def test_in_process_players_as_bots_follow_the_game_on_their_own_boards():
    rules = Rules(size=4)
    board = Board(rules)
    bots = {W: PlayerBot(make_player("random", 1), "A"), B: PlayerBot(make_player("heuristic", 2), "B")}
    for bot in bots.values():
        bot.new_game(board)
    end = play_game(board, bots)
    assert board.outcome() is not None and end.reason == board.outcome().termination.value
    assert bots[W].board.balls() == board.balls()  # the mover plays its own move, the other is told
    assert bots[B].board.history == board.history


class WrongPlayer:
    name = "wrong"

    def __init__(self, answers):
        self.answers = list(answers)

    def select_move(self, board, colour, budget):
        return self.answers.pop(0)

    def notify(self, board, move, colour):
        pass

    def reset(self, board):
        pass


def test_an_in_process_player_that_chooses_an_illegal_move_forfeits_and_resign_is_resign():
    board = Board(Rules(size=3))
    bots = {W: PlayerBot(WrongPlayer([Move.from_gtp("A1:1", 3)])), B: PlayerBot(WrongPlayer([Move.from_gtp("A1:1", 3)]))}
    for bot in bots.values():
        bot.new_game(board)
    end = play_game(board, bots)
    assert (end.result, end.forfeit[1].detail) == ("W+F", "genmove B answered 'A1:1', illegal in this position")
    bots = {W: PlayerBot(WrongPlayer([RESIGN])), B: PlayerBot(WrongPlayer([]))}
    for bot in bots.values():
        bot.new_game(Board(Rules(size=3)))
    assert play_game(Board(Rules(size=3)), bots).result == "B+R"


def test_a_player_bot_must_be_given_its_game():
    with pytest.raises(RuntimeError, match="new_game"):
        PlayerBot(make_player("random"), "A", Budget()).genmove(W)


# ---------------------------------------------------------------------------------------
# The one record against the referee's output before the loop was shared


class SeededBot:
    """The bot that played the recorded games: scripted answers, else a seeded random placement."""

    def __init__(self, label, rules, script, seed):
        self.label, self.board, self.script, self.rng, self.n = label, Board(rules), dict(script), random.Random(seed), 0

    def genmove(self, colour):
        self.n += 1
        placements = [move for move in self.board.legal_moves(colour) if move.point is not None]
        answer = self.script.get(self.n) or self.rng.choice(placements).gtp()
        try:
            self.board.push(judge(self.board, answer, colour), colour)
        except EngineFault:
            pass  # a scripted mistake: the loop forfeits the game
        return answer, 0.125 * self.n

    def play(self, colour, move):
        self.board.push(move, colour)


RECORDED = [
    ("opening", 1, Rules(size=4, komi=0.5), (("W", "A1:1"), ("B", "B2:1")), {}, None),
    ("swap-forfeit", 2, Rules(size=4, swap=True), (), {1: "swap", 3: "Z9:1"}, None),
    ("margin", 3, Rules(size=4), (), {}, Adjudication(1, 2)),
]


@pytest.mark.parametrize("name, game, rules, opening, script_a, adjudication", RECORDED, ids=[c[0] for c in RECORDED])
def test_the_one_record_writes_the_results_line_live_feed_and_sgf_as_before(name, game, rules, opening, script_a, adjudication):
    colours = {"A": W if game % 2 else B, "B": B if game % 2 else W}
    bots = {"A": SeededBot("A", rules, script_a, 7), "B": SeededBot("B", rules, {}, 8)}
    by_colour = {colour: bots[label] for label, colour in colours.items()}
    board = Board(rules)
    record = GameRecord(rules, {"A": "alpha", "B": "beta \\ ]"}, colours, board, game=game,
                        opening=(1, opening) if opening else None,
                        started=datetime(2026, 11, 24, 12, 0, 0, tzinfo=timezone.utc))
    feed = [record.feed_start()]
    observe = lambda entry: feed.append(feed_move(len(feed), entry))  # noqa: E731
    assert relay(board, by_colour, [(Colour.parse(c), Move.from_gtp(m, 4)) for c, m in opening], observe) is None
    record.finish(play_game(board, by_colour, None, adjudication, on_move=observe), 1.5)
    entry, sgf_text = record.results_entry()
    assert json.dumps(entry, separators=(",", ":")) + "\n" == (DATA / f"{name}.results.jsonl").read_text()
    assert "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in feed) == (DATA / f"{name}.live.jsonl").read_text()
    expected_sgf = (DATA / f"{name}.sgf").read_text().replace("AP[margo-gtp:0.1.0]", f"AP[margo-gtp:{margo_gtp.__version__}]")
    assert sgf_text == expected_sgf


SELFPLAY_TIMED = ("seconds", "longest_move", "mean_move")


@pytest.mark.parametrize("line", (DATA / "selfplay.jsonl").read_text().splitlines(), ids=lambda line: json.loads(line)["case"][0])
def test_self_play_through_the_loop_records_what_it_did_before(line):
    """Seeded games (a capped one, an opening, a resignation) against self-play's own loop at 0b151dc."""
    from margo_gtp.lab.selfplay import play_game as self_play

    case = json.loads(line)
    white, black, rules, seeds, cap, opening = case["case"]
    record = self_play(white, black, Rules(**rules), tuple(seeds), cap, opening)
    assert {key: value for key, value in record.items() if key not in SELFPLAY_TIMED} == case["record"]
    assert set(record["longest_move"]) == set(record["mean_move"]) == {"W", "B"}


def test_the_web_board_writes_its_sgf_from_the_one_record():
    """Players named by the colour held at the start (a swap exchanges the seats), a
    human's moves without a time, the result once the game is over."""
    from margo_gtp import sgf
    from margo_gtp.web.game import EngineRegistry, Seat, WebGame

    game = WebGame("g1", Rules(size=3, swap=True), {W: Seat("human"), B: Seat("mcts")}, 1.0, EngineRegistry({}))
    for text, colour, seconds in [("B2:1", W, None), ("swap", B, 0.5), ("A1:1", B, None), ("C3:1", W, 0.25)]:
        game._push(Move.from_gtp(text, 3), colour, seconds)
    assert game.seats[W].player == "mcts"  # the seats swapped with the colours
    expected = sgf.record_from_board(game.board, result=None, white_name="human", black_name="mcts", times=[None, 0.5, None, 0.25])
    assert game.sgf() == sgf.dumps(expected)
    game._finish(game.board.outcome_by_resignation(B))
    assert "RE[W+R]" in game.sgf() and game.record().end.reason == RESIGNATION


def test_self_play_stops_on_a_player_that_breaks_the_rules(monkeypatch):
    """In self-play a forfeit is a bug in a player: it raises, naming the player."""
    import margo_gtp.players as players
    from margo_gtp.lab.selfplay import play_game as self_play

    monkeypatch.setitem(players._REGISTRY, "wrong", lambda options, seed: WrongPlayer([Move.PASS]))
    with pytest.raises(RuntimeError, match=r"^wrong broke the rules: genmove W answered 'pass', illegal in this position$"):
        self_play("wrong", "random", Rules(size=3), (1, 2), 10)
