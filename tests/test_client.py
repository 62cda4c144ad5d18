"""margo_gtp.client against real child processes: margo-gtp itself, and the fake engines
of tests/fake_engines/ (echo_engine.py for the wire, faulty_engine.py for misbehaviour)."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.client import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
    InvalidCommandError,
    Limit,
    PlayResult,
    SimpleEngine,
)
from margo_gtp.engine import Board, Colour, Move, Point, Rules

pytestmark = pytest.mark.process

FAKES = Path(__file__).parent / "fake_engines"
ECHO = [sys.executable, str(FAKES / "echo_engine.py")]
FAULTY = [sys.executable, str(FAKES / "faulty_engine.py")]
MARGO_GTP = str(Path(sys.executable).parent / "margo-gtp")


def wire_commands(wire: io.StringIO, name: str) -> list[str]:
    """The commands the client sent, without their ids."""
    prefix = f"{name} << "
    return [line[len(prefix):].split(" ", 1)[1] for line in wire.getvalue().splitlines() if line.startswith(prefix)]


def board_json(engine: SimpleEngine) -> dict:
    return json.loads(engine.do_command("margo-board"))


def balls_of(board: Board) -> dict[str, str]:
    """``board``'s balls as ``margo-board`` writes them."""
    return {point.gtp(): colour.letter for point, colour in board.balls().items()}


# -- the game ---------------------------------------------------------------------------


def test_a_whole_game_against_margo_gtp_random_from_a_board():
    """The engine plays White, a seeded Python random player Black, until the rules end it.
    After the first set-up the client sends only the new moves: one play and one genmove a turn."""
    board = Board(Rules(size=5))
    rng = random.Random(3)
    wire = io.StringIO()
    with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--seed", "1"], timeout=30, wire_log=wire, name="m") as engine:
        while not board.is_game_over():
            if board.to_move is Colour.WHITE:
                result = engine.play(board, Limit(seconds=1))
                assert isinstance(result, PlayResult) and not result.resigned
                board.push(result.move)
            else:
                board.push(rng.choice(board.legal_moves()))
        assert engine.play(board) == PlayResult(Move.PASS)  # no legal move: the engine passes
        state = board_json(engine)
    assert state["over"] is True
    assert state["balls"] == balls_of(board)
    assert state["moves"] == len(board.history)
    sent = wire_commands(wire, "m")
    white_moves = sum(1 for colour, _ in board.history if colour is Colour.WHITE)
    black_moves = len(board.history) - white_moves
    assert sent[:4] == ["boardsize 5", "clear_board", "margo-set_rules " + " ".join(
        f"{key}={value}" for key, value in board.rules.options().items() if key != "size"), "list_commands"]
    assert sent[4] == "margo-set_limit seconds=1"
    last = board.to_move.letter  # the closing play() asked the side to move, which passed
    assert sent.count("genmove W") == white_moves + (last == "W")
    assert sent.count("genmove B") == (last == "B")
    assert sum(1 for line in sent if line.startswith("play B ")) == black_moves
    assert sum(1 for line in sent if line.startswith("play W ")) == 0  # the engine played them itself
    assert sent.count("boardsize 5") == 1


def expected_board_json(board: Board) -> dict:
    """What ``margo-board`` must say for ``board`` (gtp.md section 4)."""
    return {
        "size": board.size, "to_move": board.to_move.letter, "balls": balls_of(board),
        "zombies": [point.gtp() for point in board.zombies()], "buried": [point.gtp() for point in board.buried()],
        "captured": {"W": board.captured[Colour.WHITE], "B": board.captured[Colour.BLACK]},
        "moves": len(board.history), "over": board.is_game_over(),
    }


@pytest.fixture(scope="module")
def shared_engine():
    with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--seed", "5"], timeout=30, name="m") as engine:
        yield engine


STEPS = st.lists(
    st.tuples(st.sampled_from(["push", "push", "push", "genmove", "pop", "pop", "rules", "setup", "raw"]), st.integers(0, 2**32)),
    min_size=1, max_size=25,
)


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_after_every_sync_the_engine_holds_exactly_the_board(shared_engine, steps):
    """Random walks over boards - moves, take-backs, the engine's own moves, new rules, set-up
    roots, raw commands behind the client's back - with one engine process throughout: after
    each sync the engine's position, history length and legal moves (which depend on the
    repetition history) are the board's, whichever of set-up, replay or undo the client chose."""
    engine = shared_engine
    board = Board(Rules(size=4))
    for step, seed in steps:
        rng = random.Random(seed)
        if step == "push" and board.legal_moves():
            board.push(rng.choice(board.legal_moves()))
        elif step == "genmove" and not board.is_game_over():
            board.push(engine.play(board).move)
        elif step == "pop" and board.history:
            for _ in range(rng.randint(1, len(board.history))):
                board.pop()
        elif step == "rules":
            board = Board(Rules(size=rng.choice([3, 4, 5]), ko_rule=rng.choice(["situational", "simple", "none"]),
                                first_player=rng.choice(list(Colour)), komi=rng.choice([0.0, 0.5])))
        elif step == "setup":
            points = [Point(x, y, 0) for x in range(board.size) for y in range(board.size)]
            board = Board(board.rules)
            board.setup({point: rng.choice(list(Colour)) for point in rng.sample(points, rng.randint(1, 4))},
                        to_move=rng.choice(list(Colour)))
        elif step == "raw":
            engine.do_command("clear_board")
        engine.sync(board)
        assert board_json(engine) == expected_board_json(board)
        assert engine.do_command("margo-legal_moves") == " ".join(move.gtp() for move in board.legal_moves())


def test_the_same_seed_plays_the_same_game():
    def game() -> list[Move]:
        board = Board(Rules(size=4))
        with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--seed", "7"], timeout=30) as engine:
            while not board.is_game_over():
                board.push(engine.play(board).move)
        return board.move_stack

    first = game()
    assert first == game()
    assert len(first) >= 4


def test_sync_sets_up_the_root_and_replays_history_then_sends_only_differences():
    rules = Rules(size=4, komi=0.5, ko_rule="simple")
    board = Board(rules)
    board.setup({Point(0, 0, 0): Colour.BLACK, Point(1, 0, 0): Colour.WHITE}, to_move=Colour.BLACK)
    board.push(Move.from_gtp("C3", 4))
    board.push(Move.from_gtp("D4", 4))
    wire = io.StringIO()
    with SimpleEngine.popen([MARGO_GTP, "--player", "random"], timeout=30, wire_log=wire, name="m") as engine:
        engine.sync(board)
        assert wire_commands(wire, "m") == [
            "boardsize 4", "clear_board",
            "margo-set_rules first_player=white swap=off max_level=3 bridge_cutting=on all_freedoms=off "
            "own_freedomless_group=capture ko_rule=simple ko_position=full scoring=balls allow_pass=off "
            "first_capture_wins=off komi=0.5",
            "margo-setup B A1:1 W B1:1", "margo-to_move B", "play B C3:1", "play W D4:1",
        ]
        assert json.loads(engine.do_command("margo-get_rules")) == rules.options()
        assert board_json(engine)["balls"] == {"A1:1": "B", "B1:1": "W", "C3:1": "B", "D4:1": "W"}
        wire.truncate(0), wire.seek(0)
        board.pop()
        board.push(Move.from_gtp("A2", 4))
        engine.sync(board)  # one undo and one play beat starting over
        assert wire_commands(wire, "m") == ["undo", "play W A2:1"]
        engine.sync(board)  # nothing to do
        assert wire_commands(wire, "m") == ["undo", "play W A2:1"]
        engine.do_command("play", "b", "d1")  # the client no longer knows the engine's position
        engine.sync(board)
        assert wire_commands(wire, "m")[2:5] == ["play b d1", "boardsize 4", "clear_board"]
        assert board_json(engine)["balls"] == balls_of(board) == {"B1:1": "W", "C3:1": "B", "A2:1": "W"}  # A1 captured


def test_a_limit_is_sent_once_and_again_after_a_raw_margo_set_limit():
    wire = io.StringIO()
    board = Board(Rules(size=4))
    with SimpleEngine.popen([MARGO_GTP, "--player", "mcts", "--seed", "1"], timeout=30, wire_log=wire, name="m") as engine:
        for _ in range(2):
            engine.analyse(board, Limit(playouts=20))
        engine.do_command("margo-set_limit", "seconds=5")
        engine.play(board, Limit(playouts=20))
    sent = [line for line in wire_commands(wire, "m") if line.startswith("margo-")]
    assert sent == [
        "margo-set_rules first_player=white swap=off max_level=3 bridge_cutting=on all_freedoms=off own_freedomless_group=capture "
        "ko_rule=situational ko_position=full scoring=balls allow_pass=off first_capture_wins=off komi=0.0",
        "margo-set_limit playouts=20", "margo-analyze_snapshot W", "margo-analyze_snapshot W",
        "margo-set_limit seconds=5", "margo-set_limit playouts=20",
    ]


def test_configure_gives_rules_and_an_empty_board():
    with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--size", "7"], timeout=30) as engine:
        engine.do_command("play", "w", "d4")
        engine.configure(Rules(size=3, swap=True))
        assert json.loads(engine.do_command("margo-get_rules"))["swap"] == "on"
        assert board_json(engine) == {"size": 3, "to_move": "W", "balls": {}, "zombies": [], "buried": [],
                                      "captured": {"W": 0, "B": 0}, "moves": 0, "over": False}


def test_analyse_gives_win_rate_best_moves_and_pv():
    board = Board(Rules(size=4))
    board.push(Move.from_gtp("B2", 4))
    with SimpleEngine.popen([MARGO_GTP, "--player", "mcts", "--seed", "1"], timeout=30) as engine:
        info = engine.analyse(board, Limit(playouts=60))
        assert info.colour is Colour.BLACK
        assert 0.0 <= info.winrate <= 1.0
        assert info.best_moves and all(board.is_legal(move) for move in info.best_moves)
        assert len(set(info.best_moves)) == len(info.best_moves)
        assert info.pv[0] == info.best_moves[0] == info.candidates[0].move
        assert info.winrate == info.candidates[0].winrate
        assert [c.visits for c in info.candidates] == sorted((c.visits for c in info.candidates), reverse=True)
        follow = board.copy()
        for move in info.pv:  # the PV is a line of legal moves
            assert follow.is_legal(move)
            follow.push(move)


def test_a_streamed_analysis_grows_then_stops_and_the_engine_plays_on():
    """margo-analyze through the client: updates whose visits grow, a clean stop, and
    the same engine answers the next command (the wire is in step again)."""
    board = Board(Rules(size=4))
    board.push(Move.from_gtp("B2", 4))
    with SimpleEngine.popen([MARGO_GTP, "--player", "mcts", "--seed", "1"], timeout=30) as engine:
        with engine.analysis(board, interval=0.05) as stream:
            totals = []
            for result in stream:
                assert result.colour is Colour.BLACK
                assert result.best_moves and all(board.is_legal(move) for move in result.best_moves)
                totals.append(sum(c.visits for c in result.candidates))
                if len(totals) == 3:
                    break
        assert stream.ended and totals == sorted(totals) and totals[0] < totals[-1]
        assert board.is_legal(engine.play(board, Limit(playouts=20)).move)
        limited = list(engine.analysis(board, interval=0.05, limit=Limit(playouts=200)))
        assert limited and sum(c.visits for c in limited[-1].candidates) >= 200


def test_a_stream_read_in_one_thread_is_stopped_from_another():
    """How a server uses it: a worker thread reads the stream, another thread stops it
    (a move was played); the reader's loop ends, and the engine takes commands at once."""
    import threading

    board = Board(Rules(size=4))
    with SimpleEngine.popen([MARGO_GTP, "--player", "mcts", "--seed", "1"], timeout=30) as engine:
        stream = engine.analysis(board, interval=0.05)
        first_read = threading.Event()
        seen: list[int] = []

        def read() -> None:
            for result in stream:
                seen.append(sum(c.visits for c in result.candidates))
                first_read.set()

        reader = threading.Thread(target=read)
        reader.start()
        assert first_read.wait(30)
        stream.stop()
        reader.join(30)
        assert not reader.is_alive() and stream.ended and seen
        assert stream.latest.candidates and sum(c.visits for c in stream.latest.candidates) >= seen[0]
        assert engine.do_command("name") == "margo-gtp"


def test_analyse_without_margo_analyze_is_a_clear_engine_error():
    with SimpleEngine.popen(FAULTY, timeout=30, name="faulty") as engine:
        with pytest.raises(EngineError) as info:
            engine.analyse(Board(Rules(size=4)), Limit(seconds=0.1))
    assert str(info.value) == ("engine 'faulty' cannot analyse: it does not know 'margo-analyze_snapshot' "
                               "(margo-gtp has it, whatever its player)")


@pytest.mark.parametrize("player", ["random", "heuristic"])
def test_margo_gtp_analyses_with_every_player(player):
    """gtp.md section 4 lists margo-analyze for every engine: a player that does not
    search gets a private MCTS searcher."""
    with SimpleEngine.popen([MARGO_GTP, "--player", player], timeout=30, name=player) as engine:
        info = engine.analyse(Board(Rules(size=4)), Limit(playouts=200))
    assert info.candidates and sum(c.visits for c in info.candidates) > 10 * len(info.candidates)


def test_a_resignation_is_a_play_result_without_a_move():
    with SimpleEngine.popen([*FAULTY, "--fault", "resign"], timeout=30) as engine:
        assert engine.play(Board(Rules(size=4))) == PlayResult(None, resigned=True)


def test_a_limit_the_engine_cannot_honour_is_an_engine_error_before_genmove():
    with SimpleEngine.popen(FAULTY, timeout=30, name="faulty") as engine:
        with pytest.raises(EngineError) as info:
            engine.play(Board(Rules(size=4)), Limit(playouts=5))
        assert str(info.value) == "engine 'faulty' cannot honour Limit(seconds=None, playouts=5): it does not know 'margo-set_limit'"
        assert engine.play(Board(Rules(size=4))).move is not None  # no limit: fine


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seconds": -1}, "invalid Limit seconds: -1 (a number >= 0)"),
        ({"seconds": float("nan")}, "invalid Limit seconds: nan (a number >= 0)"),
        ({"playouts": 0}, "invalid Limit playouts: 0 (an integer >= 1)"),
        ({"playouts": 2.5}, "invalid Limit playouts: 2.5 (an integer >= 1)"),
    ],
)
def test_bad_limits_are_value_errors(kwargs, message):
    with pytest.raises(ValueError) as info:
        Limit(**kwargs)
    assert str(info.value) == message


# -- engines that fail -------------------------------------------------------------------


def test_an_engine_that_is_not_found():
    with pytest.raises(EngineStartError) as info:
        SimpleEngine.popen(["/nonexistent/margo-engine", "--player", "random"])
    assert str(info.value) == "cannot start engine 'margo-engine': No such file or directory: '/nonexistent/margo-engine'"
    assert isinstance(info.value.__cause__, FileNotFoundError)


README_CLIENT_SCRIPT = """
from margo_gtp.client import Limit, SimpleEngine
from margo_gtp.engine import Board, Rules
board = Board(Rules(size=3))
with SimpleEngine.popen(["margo-gtp", "--player", "mcts", "--seed", "1"]) as engine:
    while not board.is_game_over():
        board.push(engine.play(board, Limit(playouts=20)).move)
print(board.outcome().result())
try:
    SimpleEngine.popen(["margo-gtp-nowhere"])
except Exception as error:
    print(type(error).__name__, error)
"""


def test_margo_gtp_is_found_beside_the_python_of_a_venv_that_is_not_activated(tmp_path):
    """`.venv/bin/python script.py` with the README's example, the venv not on PATH."""
    script = tmp_path / "script.py"
    script.write_text(README_CLIENT_SCRIPT)
    path = "/usr/bin:/bin"
    assert all(not (Path(folder) / "margo-gtp").exists() for folder in path.split(":"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": path}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result, error = done.stdout.splitlines()
    assert re.fullmatch(r"[BW]\+[0-9.]+|0", result)
    assert error == ("EngineStartError cannot start engine 'margo-gtp-nowhere': No such file or directory: "
                     "'margo-gtp-nowhere'")


def test_an_engine_that_dies_mid_game_carries_its_exit_code_and_last_stderr():
    board = Board(Rules(size=5))
    with SimpleEngine.popen([*FAULTY, "--fault", "crash", "--at", "3"], timeout=30, name="faulty") as engine:
        for _ in range(2):
            board.push(engine.play(board).move)
        with pytest.raises(EngineTerminatedError) as info:
            engine.play(board)
        assert str(info.value) == "engine 'faulty' closed its output during 'genmove' (exit code 1)"
        assert info.value.returncode == 1
        assert info.value.stderr == ("faulty: crashing on purpose at genmove 3",)
        with pytest.raises(EngineTerminatedError) as again:
            engine.play(board)
        assert str(again.value) == "engine 'faulty' is not running: engine 'faulty' closed its output during 'genmove' (exit code 1)"
        engine.restart()
        assert engine.play(board).move in board.legal_moves()  # a fresh process is set up from the board


def test_an_engine_killed_from_outside_is_a_terminated_error():
    import os
    import signal

    with SimpleEngine.popen([MARGO_GTP, "--player", "random"], timeout=30, name="m") as engine:
        board = Board(Rules(size=4))
        board.push(engine.play(board).move)
        os.kill(engine.pid, signal.SIGKILL)
        while engine.returncode is None:  # dead before the next command is written
            time.sleep(0.01)
        with pytest.raises(EngineTerminatedError) as info:
            engine.play(board)  # the client knows the engine holds this board: only genmove is sent
    assert str(info.value) == "engine 'm' closed its input during 'genmove' (exit code -9)"
    assert info.value.returncode == -signal.SIGKILL


@pytest.mark.parametrize(
    "fault, message",
    [
        ("illegal", "engine 'faulty' answered genmove W with an illegal move: 'A1:2'"),
        ("malformed", "engine 'faulty' answered genmove W with a malformed move: 'Z99:9'"),
        ("pass", "engine 'faulty' answered genmove W with an illegal move: 'pass'"),
    ],
)
def test_an_engine_that_answers_an_illegal_move(fault, message):
    board = Board(Rules(size=5))
    with SimpleEngine.popen([*FAULTY, "--fault", fault], timeout=30, name="faulty") as engine:
        with pytest.raises(IllegalEngineMoveError) as info:
            engine.play(board)
        assert str(info.value) == message
        assert engine.is_usable  # the channel is fine; the next play sets the engine up again
        assert engine.play(board).move in board.legal_moves()


def test_an_engine_that_hangs_is_killed_by_the_timeout():
    with SimpleEngine.popen([*FAULTY, "--fault", "hang"], timeout=30, name="faulty") as engine:
        board = Board(Rules(size=5))
        with pytest.raises(EngineTimeoutError) as info:
            engine.play(board, timeout=0.5)
        assert str(info.value) == "engine 'faulty' did not answer 'genmove' within 0.5 s"
        assert isinstance(info.value, TimeoutError)
        assert engine.returncode == -9  # killed, not left burning a core
        assert not engine.is_usable


def test_an_engine_that_refuses_a_move_during_sync_is_a_command_error():
    board = Board(Rules(size=5))
    board.push(Move.from_gtp("C3", 5))
    with SimpleEngine.popen([*FAULTY, "--fault", "reject"], timeout=30, name="faulty") as engine:
        with pytest.raises(EngineCommandError) as info:
            engine.play(board)
        assert (info.value.command, info.value.args_sent, info.value.message) == ("play", ("W", "C3:1"), "illegal move")
        assert str(info.value) == "'play W C3:1' failed: 'illegal move'"
        assert engine.play(board).move in board.legal_moves()  # the fault was once only (--at 1)


# -- the wire (echo_engine.py) -----------------------------------------------------------


@pytest.fixture
def echo():
    with SimpleEngine.popen(ECHO, timeout=10, name="echo") as engine:
        yield engine


@pytest.mark.parametrize(
    "command, args, expected",
    [
        ("echo", ("D4:1",), "D4:1"),
        ("echo", (), ""),
        ("echo", ("a", 2, 3.5), "a 2 3.5"),
        ("multi", (3,), "line 1\nline 2\nline 3"),
        ("board", (), "  A B\n2 . .\n1 . ."),
        ("noid", ("x", "y"), "x y"),
        ("blank", (), "ok"),
    ],
)
def test_do_command_returns_the_answer_text(echo, command, args, expected):
    assert echo.do_command(command, *args) == expected
    assert echo.do_command("echo", "still", "in", "step") == "still in step"


def test_failure_answer_raises_a_command_error_and_the_engine_stays_usable(echo):
    with pytest.raises(EngineCommandError) as info:
        echo.do_command("fail", "illegal", "move")
    assert (info.value.command, info.value.args_sent, info.value.message) == ("fail", ("illegal", "move"), "illegal move")
    assert str(info.value) == "'fail illegal move' failed: 'illegal move'"
    assert echo.is_usable
    assert echo.do_command("echo", "ok") == "ok"


def test_known_command_reads_list_commands_once(echo):
    assert echo.known_command("echo") is True
    assert echo.known_command("fly") is False
    assert echo.commands == frozenset({"echo", "multi", "quit"})


def test_an_engine_without_list_commands_knows_nothing_extra_and_plays_without_a_limit():
    with SimpleEngine.popen([*FAULTY, "--fault", "nolist"], timeout=10, name="faulty") as engine:
        assert engine.commands == frozenset()
        assert engine.play(Board(Rules(size=4))).move is not None


def test_garbage_is_a_protocol_error_and_the_engine_is_killed(echo):
    with pytest.raises(EngineProtocolError) as info:
        echo.do_command("garbage")
    assert str(info.value) == "engine 'echo' answered 'garbage' with a line that is not a GTP answer: 'hello, I am not GTP'"
    assert echo.returncode is not None
    with pytest.raises(EngineTerminatedError, match="^engine 'echo' is not running: engine 'echo' answered 'garbage'"):
        echo.do_command("echo", "x")
    echo.restart()
    assert echo.do_command("echo", "x") == "x"


def test_answer_with_an_unexpected_id_is_a_protocol_error(echo):
    with pytest.raises(EngineProtocolError) as info:
        echo.do_command("wrongid")
    assert str(info.value) == "engine 'echo' answered 'wrongid' (id 1) with id 101"


def test_timeout_kills_and_restart_gives_a_fresh_engine(echo):
    first_pid = echo.pid
    with pytest.raises(EngineTimeoutError) as info:
        echo.do_command("hang", timeout=0.3)
    assert str(info.value) == "engine 'echo' did not answer 'hang' within 0.3 s"
    assert not echo.is_usable
    echo.restart()
    assert echo.pid != first_pid
    assert echo.do_command("echo", "again") == "again"


def test_engine_exit_is_a_terminated_error_with_its_exit_code(echo):
    with pytest.raises(EngineTerminatedError) as info:
        echo.do_command("die")
    assert str(info.value) == "engine 'echo' closed its output during 'die' (exit code 3)"
    assert info.value.returncode == 3 == echo.returncode


def test_closed_stdout_while_the_engine_runs_is_a_terminated_error_and_it_is_killed(echo):
    with pytest.raises(EngineTerminatedError) as info:
        echo.do_command("closeout")
    assert str(info.value) == "engine 'echo' closed its output during 'closeout' (still running)"
    assert info.value.returncode is None
    assert echo.returncode == -9


def test_errors_carry_the_last_stderr_lines(echo):
    for i in range(25):
        echo.do_command("stderr", f"note {i}")
    deadline = time.monotonic() + 60  # a loaded machine may be slow to drain stderr
    while echo.stderr[-1:] != ["note 24"] and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(EngineCommandError) as info:
        echo.do_command("fail", "no")
    assert info.value.stderr == tuple(f"note {i}" for i in range(5, 25))


def test_wire_log_records_both_directions_and_stderr():
    wire = io.StringIO()
    with SimpleEngine.popen(ECHO, timeout=10, wire_log=wire, name="e") as engine:
        engine.do_command("echo", "hi")
        engine.do_command("stderr", "note")
        deadline = time.monotonic() + 60  # a loaded machine may be slow to drain stderr
        while "e !! note" not in wire.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = wire.getvalue().splitlines()
    assert "e << 1 echo hi" in lines
    assert "e >> =1 hi" in lines
    assert "e !! note" in lines
    assert "e << 3 quit" in lines


def test_popen_splits_a_shell_quoted_command_line_and_passes_popen_kwargs(tmp_path):
    command = f"{sys.executable} '{ECHO[1]}'"
    with SimpleEngine.popen(command, timeout=10, cwd=tmp_path) as engine:
        assert engine.argv == ECHO
        assert engine.do_command("echo", "quoted") == "quoted"


def test_quit_sends_quit_the_engine_exits_cleanly_and_later_calls_fail():
    engine = SimpleEngine.popen(ECHO, timeout=10, name="echo")
    engine.quit()
    assert engine.returncode == 0
    engine.quit()  # twice is harmless
    with pytest.raises(EngineTerminatedError) as info:
        engine.do_command("echo", "x")
    assert str(info.value) == "engine 'echo' is not running: engine has quit"


def test_a_newline_inside_a_command_is_refused_and_the_client_stays_in_step():
    """Issue #27: 'name\\nversion' was sent as two commands, and every later answer
    belonged to the command before it."""
    with SimpleEngine.popen([MARGO_GTP, "--player", "random"], timeout=30, name="m") as engine:
        with pytest.raises(InvalidCommandError) as info:
            engine.do_command("name\nversion")
        assert str(info.value) == ("invalid GTP command 'name\\nversion': the command name contains the control "
                                   "character '\\n' (GTP framing would split or change it); nothing sent")
        with pytest.raises(InvalidCommandError):
            engine.do_command("play", "b", "b2\rquit")
        assert engine.do_command("name") == "margo-gtp"
        assert engine.do_command("protocol_version") == "2"


def test_a_timeout_of_1e20_seconds_is_waited_for_not_an_overflow():
    """Issue #27: Limit(seconds=1e20) and huge timeouts overflowed the OS wait."""
    with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--seed", "1"], timeout=1e20) as engine:
        assert engine.do_command("name") == "margo-gtp"
        assert engine.play(Board(Rules(size=3)), Limit(seconds=1e6)).move is not None
