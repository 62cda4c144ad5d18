"""Exact in-process transcripts (io.StringIO) for every command of gtp.md sections 3-4,
success and failure, and the rule that a failed command never changes state."""

from __future__ import annotations

import io
import json
import textwrap

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import RESIGN, Budget, make_player
from margo_gtp.protocol.gtp import GtpEngine, run_gtp_session
from margo_gtp.protocol.session import GameSession, format_result, make_gtp_engine


def new_engine(seed: int = 0, rules: Rules | None = None, player=None) -> GtpEngine:
    return make_gtp_engine(player or make_player("random", seed), rules, stderr=io.StringIO())


def gtp(script: str, engine: GtpEngine | None = None) -> str:
    engine = engine or new_engine()
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(textwrap.dedent(script).lstrip("\n")), out)
    return out.getvalue()


def ask(engine: GtpEngine, line: str) -> str:
    response, _ = engine.respond(line)
    assert response is not None
    return response


def board_json(engine: GtpEngine) -> dict:
    return json.loads(ask(engine, "margo-board")[2:])


ALL_COMMANDS = sorted(
    """boardsize clear_board cputime final_score final_status_list genmove gogui-analyze_commands
    kgs-time_settings known_command komi list_commands loadsgf margo-board margo-get_rules
    margo-legal_moves margo-level margo-score margo-set_limit margo-set_rules margo-setup margo-to_move name play printsgf
    protocol_version quit reg_genmove showboard time_left time_settings undo version""".split()
)

DEFAULT_RULES_JSON = (
    '{"size":9,"first_player":"white","swap":"off","max_level":8,"bridge_cutting":"on",'
    '"all_freedoms":"off","own_freedomless_group":"capture","ko_rule":"situational",'
    '"ko_position":"full","scoring":"balls","allow_pass":"off","first_capture_wins":"off","komi":0.0}'
)

# (case id, script, exact expected output). Scripts run on a fresh 9x9 default engine.
TRANSCRIPTS = [
    ("protocol_version", "protocol_version\n1 protocol_version\n", "= 2\n\n=1 2\n\n"),
    ("name", "name\n2 name\nname x\n", "= margo-gtp\n\n=2 margo-gtp\n\n? syntax error\n\n"),
    ("version", "version\n", "= 0.1.0\n\n"),
    ("PROTOCOL_VERSION", "PROTOCOL_VERSION\n3 PROTOCOL_VERSION\n", "? unknown command\n\n?3 unknown command\n\n"),
    ("unknown", "xyzzy\nmargo-analyzer\nkata-analyze\n", "? unknown command\n\n" * 3),
    ("list_commands", "list_commands\n", "= " + "\n".join(ALL_COMMANDS) + "\n\n"),
    (
        "known_command",
        "known_command play\nknown_command margo-setup\nknown_command PLAY\nknown_command margo-analyze\nknown_command\n",
        "= true\n\n= true\n\n= false\n\n= false\n\n? syntax error\n\n",
    ),
    ("quit", "quit\nname\n", "=\n\n"),
    ("quit with id", "9 quit\n", "=9 \n\n"),
    ("cputime takes no argument", "cputime now\n", "? syntax error\n\n"),  # its value: commands.tst
    ("quit with arg", "quit now\nquit\n", "? syntax error\n\n=\n\n"),
    (
        "boardsize",
        "boardsize 2\nboardsize 19\nboardsize 1\nboardsize 20\nboardsize 0\nboardsize -3\nboardsize x\nboardsize\nboardsize 5 5\nboardsize 7\nmargo-get_rules\n",
        "=\n\n=\n\n? unacceptable size\n\n? unacceptable size\n\n? unacceptable size\n\n? unacceptable size\n\n"
        "? syntax error\n\n? syntax error\n\n? syntax error\n\n=\n\n= "
        + DEFAULT_RULES_JSON.replace('"size":9', '"size":7').replace('"max_level":8', '"max_level":6')
        + "\n\n",
    ),
    (
        "boardsize clears",
        "play w d4\nboardsize 9\nmargo-board\n",
        '=\n\n=\n\n= {"size":9,"to_move":"W","balls":{},"zombies":[],"buried":[],"captured":{"W":0,"B":0},"moves":0,"over":false}\n\n',
    ),
    (
        "clear_board",
        "boardsize 3\nplay w a1\nplay b c3\nclear_board\nmargo-board\nclear_board x\n",
        '=\n\n=\n\n=\n\n=\n\n= {"size":3,"to_move":"W","balls":{},"zombies":[],"buried":[],"captured":{"W":0,"B":0},"moves":0,"over":false}\n\n'
        "? syntax error\n\n",
    ),
    (
        "komi",
        "komi 6.5\nfinal_score\nkomi -2\nfinal_score\nkomi 0\nfinal_score\nkomi x\nkomi\nkomi nan\nkomi 1 2\n",
        "=\n\n= W+6.5\n\n=\n\n= B+2\n\n=\n\n= 0\n\n" + "? syntax error\n\n" * 4,
    ),
    ("komi keeps the game", "play w d4\nkomi 0.5\nmargo-score\nundo\nmargo-score\n", "=\n\n=\n\n= W 1 B 0\n\n=\n\n= W 0 B 0\n\n"),
    (
        "play",
        "boardsize 3\nplay w a1\nplay B c3:1\nplay WHITE b2\nplay black A2:1\nmargo-board\n",
        '=\n\n=\n\n=\n\n=\n\n=\n\n= {"size":3,"to_move":"W","balls":{"A1:1":"W","A2:1":"B","B2:1":"W","C3:1":"B"},'
        '"zombies":[],"buried":[],"captured":{"W":0,"B":0},"moves":4,"over":false}\n\n',
    ),
    (
        "play syntax errors",
        "play\nplay w\nplay w a1 b1\nplay x a1\nplay w i1\nplay w j10\nplay w a0\nplay w a1:0\nplay w a1:10\nplay w 11\nplay w resign\nplay w :1\n",
        "? syntax error\n\n" * 12,
    ),
    (
        "play illegal",
        "play w a1\nplay b a1\nplay w b1:2\nplay w swap\nplay w pass\n",
        "=\n\n? illegal move\n\n? illegal move\n\n? illegal move\n\n? illegal move\n\n",
    ),
    (
        "play with ids",
        "5 play w a1\n6 play b a1\n7 play b a1:10\n",
        "=5 \n\n?6 illegal move\n\n?7 syntax error\n\n",
    ),
    (
        "play any colour any order",
        "boardsize 3\nplay b a1\nplay b b1\nmargo-to_move\nplay b c1\nmargo-score\n",
        "=\n\n=\n\n=\n\n= W\n\n=\n\n= W 0 B 3\n\n",
    ),
    ("genmove syntax", "genmove\ngenmove x\ngenmove w b\n", "? syntax error\n\n" * 3),
    ("reg_genmove syntax", "reg_genmove\nreg_genmove red\n", "? syntax error\n\n" * 2),
    ("undo at root", "undo\n4 undo\n", "? cannot undo\n\n?4 cannot undo\n\n"),
    ("undo syntax", "play w a1\nundo 1\nundo\nundo\n", "=\n\n? syntax error\n\n=\n\n? cannot undo\n\n"),
    (
        "undo restores to_move",
        "play w a1\nplay b b1\nundo\nmargo-to_move\nmargo-score\n",
        "=\n\n=\n\n=\n\n= B\n\n= W 1 B 0\n\n",
    ),
    (
        "showboard empty 2x2",
        "boardsize 2\nshowboard\n7 showboard\n",
        "=\n\n= \nLevel 1\n    A B\n  2 . . 2\n  1 . . 1\n    A B\nWhite to move; moves played: 0\n"
        "Balls: White (O) 0, Black (X) 0\nCaptured by: White 0, Black 0\n\n"
        "=7 \nLevel 1\n    A B\n  2 . . 2\n  1 . . 1\n    A B\nWhite to move; moves played: 0\n"
        "Balls: White (O) 0, Black (X) 0\nCaptured by: White 0, Black 0\n\n",
    ),
    ("showboard syntax", "showboard x\n", "? syntax error\n\n"),
    (
        "final_score",
        "boardsize 3\nfinal_score\nplay w a1\nfinal_score\nplay b b1\nplay b c1\nfinal_score\nkomi 1\nfinal_score\nfinal_score x\n",
        "=\n\n= 0\n\n=\n\n= W+1\n\n=\n\n=\n\n= B+1\n\n=\n\n= 0\n\n? syntax error\n\n",
    ),
    (
        "final_status_list",
        "boardsize 3\nplay w b2\nplay b c3\nfinal_status_list alive\nfinal_status_list dead\nfinal_status_list seki\n"
        "final_status_list\nfinal_status_list ALIVE\nfinal_status_list zombie\n",
        "=\n\n=\n\n=\n\n= B2:1 C3:1\n\n=\n\n=\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n",
    ),
    (
        "time_settings",
        "time_settings 300 30 5\ntime_settings 0 0 0\ntime_settings 60 10 0\ntime_settings 1 2\ntime_settings -1 0 0\ntime_settings 1.5 0 0\ntime_settings a b c\n",
        "=\n\n=\n\n=\n\n" + "? syntax error\n\n" * 4,
    ),
    (
        "time_left",
        "time_left w 120 0\ntime_left B 30 5\ntime_left w 10\ntime_left x 10 0\ntime_left w -1 0\ntime_left w 10 -1\ntime_left w 10 0 0\n",
        "=\n\n=\n\n" + "? syntax error\n\n" * 5,
    ),
    (
        "kgs-time_settings",
        "kgs-time_settings none\nkgs-time_settings absolute 600\nkgs-time_settings byoyomi 600 30 5\n"
        "kgs-time_settings canadian 600 300 25\nkgs-time_settings\nkgs-time_settings none 1\nkgs-time_settings absolute\n"
        "kgs-time_settings byoyomi 600 30\nkgs-time_settings fischer 600 10\nkgs-time_settings absolute -5\nkgs-time_settings canadian 1 2 x\n",
        "=\n\n=\n\n=\n\n=\n\n" + "? syntax error\n\n" * 7,
    ),
    (
        "loadsgf failures",
        "loadsgf /nonexistent/file.sgf\nloadsgf\nloadsgf a.sgf x\nloadsgf a.sgf 0\nloadsgf a b c\n",
        "? cannot load file\n\n" + "? syntax error\n\n" * 4,
    ),
    ("printsgf syntax", "printsgf a b\n", "? syntax error\n\n"),
    (
        "gogui-analyze_commands",
        "gogui-analyze_commands\n",
        "= string/Board (JSON)/margo-board\nstring/Legal moves/margo-legal_moves\nstring/Ball counts/margo-score\n"
        "string/Rules (JSON)/margo-get_rules\nstring/Final score/final_score\nstring/Dead balls/final_status_list dead\n\n",
    ),
    (
        "margo-setup",
        "boardsize 3\nmargo-setup w a1 b b1 w a1:2 b a2 w b2\nmargo-board\nundo\n",
        '=\n\n=\n\n= {"size":3,"to_move":"W","balls":{"A1:1":"W","B1:1":"B","A2:1":"B","B2:1":"W","A1:2":"W"},'
        '"zombies":[],"buried":[],"captured":{"W":0,"B":0},"moves":0,"over":false}\n\n? cannot undo\n\n',
    ),
    (
        "margo-setup failures",
        "boardsize 3\nplay w a1\nmargo-setup\nmargo-setup w\nmargo-setup w b1 b\nmargo-setup x b1\nmargo-setup w z1\n"
        "margo-setup w a1\nmargo-setup w b1 b b1\nmargo-setup w a1:2\nmargo-setup w b1 w a1:2\nmargo-score\n",
        "=\n\n=\n\n" + "? syntax error\n\n" * 5 + "? illegal move\n\n" * 4 + "= W 1 B 0\n\n",
    ),
    (
        "margo-to_move",
        "margo-to_move\nmargo-to_move b\nmargo-to_move\nmargo-to_move WHITE\nmargo-to_move\nmargo-to_move x\nmargo-to_move w b\n",
        "= W\n\n=\n\n= B\n\n=\n\n= W\n\n? syntax error\n\n? syntax error\n\n",
    ),
    (
        "margo-to_move resets history",
        "play w a1\nmargo-to_move w\nundo\nmargo-board\n",
        '=\n\n=\n\n? cannot undo\n\n= {"size":9,"to_move":"W","balls":{"A1:1":"W"},"zombies":[],"buried":[],"captured":{"W":0,"B":0},"moves":0,"over":false}\n\n',
    ),
    ("margo-board syntax", "margo-board x\n", "? syntax error\n\n"),
    (
        "margo-legal_moves",
        "boardsize 2\nmargo-legal_moves\nmargo-legal_moves b\nplay w a1\nplay b b2\nplay w b1\nmargo-legal_moves\nmargo-legal_moves w\nmargo-legal_moves x\nmargo-legal_moves w b\n",
        "=\n\n= A1:1 B1:1 A2:1 B2:1\n\n= A1:1 B1:1 A2:1 B2:1\n\n=\n\n=\n\n=\n\n= A2:1\n\n= A2:1\n\n? syntax error\n\n? syntax error\n\n",
    ),
    ("margo-get_rules", "margo-get_rules\nmargo-get_rules x\n", "= " + DEFAULT_RULES_JSON + "\n\n? syntax error\n\n"),
    (
        "margo-set_rules",
        "margo-set_rules swap=on komi=0.5 ko_rule=simple\nmargo-get_rules\n",
        "=\n\n= "
        + DEFAULT_RULES_JSON.replace('"swap":"off"', '"swap":"on"')
        .replace('"ko_rule":"situational"', '"ko_rule":"simple"')
        .replace('"komi":0.0', '"komi":0.5')
        + "\n\n",
    ),
    (
        "margo-set_rules failures",
        "margo-set_rules\nmargo-set_rules swap\nmargo-set_rules swap=maybe\nmargo-set_rules colour=red\nmargo-set_rules size=30\n"
        "margo-set_rules komi=x\nmargo-set_rules swap=on swap=off\nmargo-set_rules swap=on ko_rule=bogus\nmargo-set_rules =on\n"
        "margo-get_rules\nplay w a1\nmargo-set_rules swap=on\nmargo-set_rules swap=bogus\nmargo-get_rules\n",
        "? syntax error\n\n" * 9
        + "= " + DEFAULT_RULES_JSON + "\n\n=\n\n? cannot change rules now\n\n? syntax error\n\n= " + DEFAULT_RULES_JSON + "\n\n",
    ),
    (
        "margo-set_limit",
        "margo-set_limit seconds=0.5 playouts=20\nmargo-set_limit playouts=3\nmargo-set_limit\nmargo-set_limit seconds=x\n"
        "margo-set_limit seconds=-1\nmargo-set_limit playouts=0\nmargo-set_limit playouts=1.5\nmargo-set_limit visits=3\n"
        "margo-set_limit seconds=1 seconds=2\nmargo-set_limit seconds\nmargo-set_limit seconds=inf\n",
        "=\n\n" * 3 + "? syntax error\n\n" * 8,
    ),
    (
        "margo-level",
        "margo-level 1\nmargo-level 0\nmargo-level 9\nmargo-level x\nmargo-level\nmargo-level 1 2\nmargo-level ３\n",
        "=\n\n" + "? syntax error\n\n" * 6,
    ),
    ("margo-score", "margo-score\nplay w a1\nplay b b1\nplay b c1\nmargo-score\nmargo-score x\n", "= W 0 B 0\n\n=\n\n=\n\n=\n\n= W 1 B 2\n\n? syntax error\n\n"),
]


@pytest.mark.parametrize("script, expected", [pytest.param(s, e, id=i) for i, s, e in TRANSCRIPTS])
def test_transcript(script: str, expected: str) -> None:
    assert gtp(script) == expected


@pytest.mark.parametrize(
    "script, expected",
    [
        ("", Budget()),
        ("margo-set_limit seconds=0.25\n", Budget(seconds=0.25)),
        ("margo-set_limit playouts=7\n", Budget(playouts=7)),
        ("margo-set_limit seconds=2 playouts=7\nmargo-set_limit\n", Budget()),
        ("time_settings 0 1 1\nmargo-set_limit seconds=60 playouts=9\n", None),  # the clock is tighter
        ("margo-set_limit seconds=60\nmargo-set_limit seconds=x\n", Budget(seconds=60)),  # a bad line changes nothing
    ],
)
def test_margo_set_limit_bounds_the_genmove_budget(script: str, expected: Budget | None) -> None:
    engine = new_engine()
    gtp(script, engine)
    clock_only = GameSession(make_player("random", 0))
    clock_only.cmd_time_settings(0, 1, 1)
    if expected is None:  # with a clock: its seconds (smaller than 60), the limit's playouts
        expected = Budget(seconds=clock_only.budget_for(Colour.WHITE).seconds, playouts=9)
        assert expected.seconds < 60
    assert engine.session.budget_for(Colour.WHITE) == expected


def test_every_command_has_a_transcript() -> None:
    scripts = " ".join(script for _, script, _ in TRANSCRIPTS)
    missing = [name for name in ALL_COMMANDS if f"{name}" not in scripts]
    assert missing == []


def test_list_commands_and_known_command_read_one_registry() -> None:
    engine = new_engine()
    listed = ask(engine, "list_commands")[2:-2].split("\n")
    assert listed == ALL_COMMANDS
    assert all(ask(engine, f"known_command {name}") == "= true\n\n" for name in listed)


def test_genmove_plays_a_legal_move_and_reg_genmove_does_not() -> None:
    engine = new_engine(seed=5)
    before = board_json(engine)
    reg = ask(engine, "reg_genmove b")
    assert reg.startswith("= ") and board_json(engine) == before
    move = ask(engine, "genmove b")[2:-2]
    after = board_json(engine)
    assert after["balls"] == {move: "B"} and after["to_move"] == "W" and after["moves"] == 1


def test_genmove_is_reproducible_for_a_seed() -> None:
    script = "boardsize 5\n" + "genmove w\ngenmove b\n" * 10
    assert gtp(script, new_engine(seed=3)) == gtp(script, new_engine(seed=3))
    assert gtp(script, new_engine(seed=3)) != gtp(script, new_engine(seed=4))


def _ball_count_result(state: dict, komi: float) -> str:
    white = sum(1 for c in state["balls"].values() if c == "W") + komi
    black = sum(1 for c in state["balls"].values() if c == "B")
    return format_result(white, black)


@pytest.mark.parametrize("size, seed", [(2, 0), (3, 1), (4, 2), (5, 3)])
def test_game_to_the_end_by_genmove(size: int, seed: int) -> None:
    engine = new_engine(seed=seed)
    assert ask(engine, f"boardsize {size}") == "=\n\n"
    assert ask(engine, "komi 0.5") == "=\n\n"
    colour = "w"
    for _ in range(400):
        answer = ask(engine, f"genmove {colour}")
        if answer == "= pass\n\n":
            break
        colour = "b" if colour == "w" else "w"
    else:
        pytest.fail("game did not end")
    state = board_json(engine)
    assert state["over"] is True
    assert ask(engine, "margo-legal_moves") == "=\n\n"
    # genmove keeps answering pass, for either colour, and changes nothing
    assert ask(engine, f"genmove {colour}") == "= pass\n\n"
    assert ask(engine, f"reg_genmove {colour}") == "= pass\n\n"
    assert board_json(engine) == state
    # play C pass is accepted (a no-op) for the blocked colour
    assert ask(engine, f"play {colour} pass") == "=\n\n"
    assert board_json(engine) == state
    assert ask(engine, "final_score") == f"= {_ball_count_result(state, 0.5)}\n\n"


def test_play_pass_with_allow_pass() -> None:
    engine = new_engine()
    assert ask(engine, "margo-set_rules allow_pass=on size=3") == "=\n\n"
    assert ask(engine, "play w pass") == "=\n\n"
    assert board_json(engine)["moves"] == 1 and board_json(engine)["to_move"] == "B"
    assert ask(engine, "play b pass") == "=\n\n"
    assert board_json(engine)["over"] is True
    assert ask(engine, "genmove w") == "= pass\n\n"
    assert ask(engine, "undo") == "=\n\n"
    assert board_json(engine)["over"] is False


def test_swap_rule() -> None:
    engine = new_engine()
    assert ask(engine, "margo-set_rules swap=on size=3") == "=\n\n"
    assert ask(engine, "play w b2") == "=\n\n"
    assert ask(engine, "margo-legal_moves b").split()[-1] == "swap"
    assert ask(engine, "play b swap") == "=\n\n"
    assert ask(engine, "margo-to_move") == "= B\n\n"
    assert ask(engine, "play b swap") == "? illegal move\n\n"


class _Resigner:
    name = "resigner"

    def select_move(self, board: Board, colour: Colour, budget: Budget):
        return RESIGN

    def notify(self, board, move, colour) -> None:
        pass

    def reset(self, board) -> None:
        pass


def test_resign_path() -> None:
    engine = new_engine(player=_Resigner())
    assert gtp("play w a1\ngenmove b\nreg_genmove b\nfinal_score\nmargo-legal_moves\n", engine) == (
        "=\n\n= resign\n\n= pass\n\n= W+R\n\n=\n\n"
    )
    assert board_json(engine)["over"] is True
    assert gtp("undo\nfinal_score\n", engine) == "=\n\n= 0\n\n"


class _Cheater(_Resigner):
    name = "cheater"

    def select_move(self, board, colour, budget):
        return Move.from_gtp("A1:2", board.size)


def test_player_choosing_an_illegal_move_is_an_internal_error() -> None:
    engine = new_engine(player=_Cheater())
    assert gtp("genmove w\nmargo-score\n", engine) == "? internal error\n\n= W 0 B 0\n\n"


class _Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.events: list[str] = []
        self.budgets: list[Budget] = []

    def select_move(self, board, colour, budget):
        self.budgets.append(budget)
        return board.legal_moves(colour)[0]

    def notify(self, board, move, colour) -> None:
        assert board.history[-1] == (colour, move)
        self.events.append(f"notify {colour.letter} {move.gtp()}")

    def reset(self, board) -> None:
        self.events.append(f"reset {len(board.balls())}")


def test_player_is_notified_of_moves_and_reset_on_other_changes() -> None:
    recorder = _Recorder()
    engine = new_engine(player=recorder)
    gtp("play w b2\ngenmove b\nplay w z1\nundo\nmargo-setup w c3\nclear_board\nboardsize 3\nkomi 1\n", engine)
    assert recorder.events == [
        "reset 0",
        "notify W B2:1",
        "notify B A1:1",
        "reset 1",
        "reset 2",
        "reset 0",
        "reset 0",
        "reset 0",
    ]


def test_budget_follows_time_settings() -> None:
    recorder = _Recorder()
    engine = new_engine(player=recorder)
    gtp("genmove w\ntime_settings 300 0 0\ngenmove b\ntime_left w 30 5\ngenmove w\ntime_settings 60 30 0\ngenmove b\n", engine)
    assert recorder.budgets[0] == Budget()
    assert recorder.budgets[1].seconds == pytest.approx(300 / 30 * 0.9)
    assert recorder.budgets[2].seconds == pytest.approx(30 / 5 * 0.9)
    assert recorder.budgets[3] == Budget()


# -- a failed command never changes state ---------------------------------------------------

FAILING_COMMANDS = [
    "margo-level 9",
    "boardsize 1",
    "boardsize 99",
    "boardsize x",
    "clear_board 1",
    "komi x",
    "play w z9",
    "play w",
    "play x a1",
    "play w a1:5",
    "play w pass",
    "play w swap",
    "genmove x",
    "reg_genmove",
    "undo x",
    "showboard 1",
    "final_score 1",
    "final_status_list x",
    "time_settings 1 2",
    "time_left w x 0",
    "kgs-time_settings fischer 1 2",
    "loadsgf /nonexistent.sgf",
    "loadsgf",
    "printsgf a b",
    "margo-setup w",
    "margo-setup w a1 b a1",
    "margo-setup w e5:2",
    "margo-to_move red",
    "margo-legal_moves red",
    "margo-set_rules swap=maybe",
    "margo-set_rules swap=on",
    "margo-score 1",
    "PROTOCOL_VERSION",
    "xyzzy",
    "12",
]


def _snapshot(engine: GtpEngine) -> tuple:
    session: GameSession = engine.session  # type: ignore[attr-defined]
    return (
        ask(engine, "margo-board"),
        ask(engine, "margo-get_rules"),
        list(session.board.history),
        session.board.root_balls(),
        repr(session.time_settings),
        ask(engine, "final_score"),
    )


@pytest.mark.parametrize("command", FAILING_COMMANDS)
def test_failed_command_changes_nothing(command: str) -> None:
    engine = new_engine()
    gtp("time_settings 100 10 5\nmargo-setup w a1 b b1\nplay w e5\nplay b a2\nplay w a1:2\n", engine)
    before = _snapshot(engine)
    answer = ask(engine, command)
    assert answer.startswith("?"), answer
    assert _snapshot(engine) == before


@pytest.mark.parametrize(
    "command, answer",
    [
        ("play w a1", "? illegal move\n\n"),
        ("play w a1:2", "? illegal move\n\n"),
        ("boardsize 20", "? unacceptable size\n\n"),
        ("undo", "? cannot undo\n\n"),
        ("margo-setup w a1:4", "? syntax error\n\n"),
        ("margo-setup w a1:3", "? illegal move\n\n"),
        ("margo-setup w b2 w a1:2", "? illegal move\n\n"),
        ("margo-set_rules size=2", "? cannot change rules now\n\n"),
    ],
)
def test_failed_command_changes_nothing_after_setup(command: str, answer: str) -> None:
    engine = new_engine()
    assert gtp("boardsize 3\nmargo-setup w a1 b b1 w a2 w b2 b a1:2 w c3\n", engine) == "=\n\n=\n\n"
    before = _snapshot(engine)
    assert ask(engine, command) == answer
    assert _snapshot(engine) == before


def test_set_rules_after_setup_keeps_the_position() -> None:
    engine = new_engine()
    gtp("boardsize 3\nmargo-setup w a1 b b1\nmargo-to_move b\n", engine)
    assert ask(engine, "margo-set_rules ko_rule=none komi=1.5") == "=\n\n"
    state = board_json(engine)
    assert state["balls"] == {"A1:1": "W", "B1:1": "B"} and state["to_move"] == "B"
    assert ask(engine, "final_score") == "= W+1.5\n\n"


# -- the hook for extra handler groups (margo-analyze comes from the players' side) ------------


class _AnalyzeLike:
    """A streaming result in the style of margo-analyze: one info line per legal move."""

    def __init__(self, session: GameSession, colour: Colour) -> None:
        self.session, self.colour = session, colour

    def run(self, write, stop_requested) -> None:
        for order, move in enumerate(self.session.board.legal_moves(self.colour)[:2]):
            write(f"info move {move.gtp()} visits 0 order {order}\n")


def test_an_extra_handler_group_can_add_a_streaming_command() -> None:
    from margo_gtp.protocol.handlers import HandlerGroup

    engine = new_engine()
    session: GameSession = engine.session  # type: ignore[attr-defined]

    class AnalyzeGroup(HandlerGroup):
        def commands(self):
            return {"margo-analyze": self.cmd_analyze}

        def converters(self):
            return session.converters()

        def cmd_analyze(self, colour: Colour, interval: int = 100):
            return _AnalyzeLike(session, colour)

    engine.add_handlers(AnalyzeGroup().handlers())
    session.analyze_commands.append("string/Analyze/margo-analyze %c")
    assert gtp("boardsize 2\n3 margo-analyze b\nknown_command margo-analyze\nmargo-analyze\n", engine) == (
        "=\n\n=3 \ninfo move A1:1 visits 0 order 0\ninfo move B1:1 visits 0 order 1\n\n= true\n\n? syntax error\n\n"
    )
    assert ask(engine, "gogui-analyze_commands").endswith("string/Analyze/margo-analyze %c\n\n")
    assert "margo-analyze" in ask(engine, "list_commands").split()
