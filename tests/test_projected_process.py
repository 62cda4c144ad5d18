"""margo-gtp-2d as real processes: what gogui-twogtp and GoGui (as a ruler) send, exact
transcripts for bad input, and the lift rule against native play.

The command sequences follow GoGui's sources: twogtp's Program start-up (protocol_version,
name, version, list_commands), its synchroniser (boardsize, clear_board, komi, play for the
other program's moves) and final_score; GoGui's ruler calls play then gogui-rules_board,
board_size, captured_count, side_to_move and legal_moves after each move, and final_result
once legal_moves is empty.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.client import EngineCommandError, SimpleEngine
from margo_gtp.gtp2d.projection import board_rows, lift
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.vertex import column_points, format_point_2d, parse_point_2d, parse_vertex, project, projected_size

BIN = Path(sys.executable).parent
MARGO_GTP = BIN / "margo-gtp"
MARGO_GTP_2D = BIN / "margo-gtp-2d"

pytestmark = pytest.mark.process


def proxy(engine_args: str = "", *extra: str) -> SimpleEngine:
    """The proxy over margo-gtp with ``engine_args`` (the fast random player unless they
    choose one: these tests are about the projection, not the default player)."""
    player = "" if "--player" in engine_args else "--player random "
    return SimpleEngine.popen([str(MARGO_GTP_2D), "--engine", f"{MARGO_GTP} {player}{engine_args}".strip(), *extra],
                              timeout=60)


def lift_2d(board: Board, vertex: str) -> Move:
    """The native move a 2-D vertex names on ``board`` (the rule under test, done by hand)."""
    col, row = parse_point_2d(vertex, projected_size(board.size))
    point = lift(col, row, board.size, board.balls())
    assert point is not None, vertex
    return Move(point)


@pytest.mark.parametrize("size", range(2, 8))
def test_lowest_empty_point_is_the_native_move_in_random_games(size: int) -> None:
    """Every legal native move is the lift of its own projection, all game long."""
    rng = random.Random(size)
    for _ in range(3):
        board = Board(Rules(size=size))
        while not board.is_game_over():
            moves = [m for m in board.legal_moves() if m.point is not None]
            for move in moves:
                col, row = project(move.point)
                assert lift(col, row, size, board.balls()) == move.point
            board.push(rng.choice(moves))


def play_twogtp_game(black: SimpleEngine, white: SimpleEngine, komi: str) -> tuple[list[tuple[str, str]], str, str]:
    """gogui-twogtp's conversation with two engines for one game."""
    for program in (black, white):
        assert program.do_command("protocol_version") == "2"
        assert program.do_command("name") == "margo-gtp"
        program.do_command("version")
        commands = program.commands  # list_commands, as twogtp asks it
        assert {"genmove", "play", "final_score", "gogui-rules_board"} <= set(commands)
        program.do_command("boardsize", 17)
        program.do_command("clear_board")
        program.do_command("komi", komi)
    moves: list[tuple[str, str]] = []
    passes = 0
    colour = "b"
    while passes < 2:
        mover, other = (black, white) if colour == "b" else (white, black)
        answer = mover.do_command("genmove", colour)
        assert answer == "pass" or parse_point_2d(answer, 17)
        moves.append((colour, answer))
        other.do_command("play", colour, "PASS" if answer == "pass" else answer)
        passes = passes + 1 if answer == "pass" else 0
        colour = "w" if colour == "b" else "b"
    return moves, black.do_command("final_score"), white.do_command("final_score")


@pytest.mark.parametrize("seeds", [(1, 2), (3, 4)])
def test_twogtp_game_between_two_projected_engines(seeds: tuple[int, int]) -> None:
    # twogtp's -komi reaches the engines only if it is their rule komi (the proxy fixes komi)
    engine = "--rule first_player=black --rule komi=0.5 --seed {}"
    with proxy(engine.format(seeds[0])) as black, proxy(engine.format(seeds[1])) as white:
        moves, score_black, score_white = play_twogtp_game(black, white, "0.5")
        black_board = json.loads(black.do_command("margo-board"))
        white_board = json.loads(white.do_command("margo-board"))
        black.do_command("quit")
        white.do_command("quit")
    assert score_black == score_white
    assert black_board == white_board and black_board["over"] is True
    # the referee's view: the 2-D moves, lifted one by one, replay a finished MarGo game
    board = Board(Rules(size=9, first_player=Colour.BLACK, komi=0.5))
    for colour, vertex in moves[:-2]:
        assert vertex != "pass"
        board.push(lift_2d(board, vertex), Colour.parse(colour))
    assert [v for _, v in moves[-2:]] == ["pass", "pass"]
    assert board.is_game_over()
    assert board.outcome().result() == score_black
    assert {p.gtp(): c.letter for p, c in board.balls().items()} == black_board["balls"]


def test_gogui_ruler_conversation_follows_the_game() -> None:
    size = 4
    rng = random.Random(7)
    mirror = Board(Rules(size=size))
    with proxy() as ruler:
        assert ruler.do_command("gogui-analyze_commands").splitlines()[0] == (
            "gfx/MarGo levels and zombies/gogui-rules_board_gfx")
        assert ruler.do_command("gogui-rules_game_id") == "Margo"
        ruler.do_command("boardsize", 7)
        assert ruler.do_command("gogui-rules_board_size") == "7"
        assert ruler.do_command("gogui-rules_board") == "\n".join(board_rows(size, {}))
        while True:
            legal = ruler.do_command("gogui-rules_legal_moves").split()
            expected = sorted({project(m.point) for m in mirror.legal_moves() if m.point is not None},
                              key=lambda p: (p[1], p[0]))
            assert legal == [format_point_2d(*p) for p in expected]
            if not legal:
                break
            side = ruler.do_command("gogui-rules_side_to_move")
            assert side == ("white" if mirror.to_move == Colour.WHITE else "black")
            assert ruler.do_command("gogui-rules_final_result") == "unknown"
            vertex = rng.choice(legal)
            ruler.do_command("play", side[0], vertex)
            mirror.push(lift_2d(mirror, vertex))
            letters = {p: c.letter for p, c in mirror.balls().items()}
            assert ruler.do_command("gogui-rules_board") == "\n".join(board_rows(size, letters))
            assert ruler.do_command("gogui-rules_board_size") == "7"
            captured = ruler.do_command("gogui-rules_captured_count")
            assert captured == f"{mirror.captured[Colour.BLACK]} {mirror.captured[Colour.WHITE]}"
            gfx = ruler.do_command("gogui-rules_board_gfx").splitlines()
            stacked = sum(1 for p in mirror.balls() if p.level > 0 and p not in mirror.buried())
            labels = [line for line in gfx if line.startswith("LABEL ")]
            assert len(labels[0].split()) - 1 == 2 * stacked if labels else stacked == 0
            zombies = [line for line in gfx if line.startswith("COLOR red ")]
            visible_zombies = {format_point_2d(*project(p)) for p in mirror.zombies() if p not in mirror.buried()}
            assert (set(zombies[0].split()[2:]) if zombies else set()) == visible_zombies
        assert mirror.is_game_over()
        assert ruler.do_command("gogui-rules_final_result") == mirror.outcome().result()
        assert ruler.do_command("genmove", "w") == "pass" and ruler.do_command("genmove", "b") == "pass"
        ruler.do_command("play", "w", "pass")
        ruler.do_command("quit")


def test_illegal_and_impossible_points() -> None:
    with proxy() as engine:
        engine.do_command("boardsize", 5)
        for vertex, error in [("B1", "illegal move"), ("B2", "illegal move"), ("K1", "syntax error"),
                              ("A10", "syntax error"), ("A1:1", "syntax error"), ("swap", "illegal move")]:
            with pytest.raises(EngineCommandError) as failure:
                engine.do_command("play", "w", vertex)
            assert failure.value.message == error, vertex
        for vertex in ["A1", "C1", "A3", "C3"]:
            engine.do_command("play", "w", vertex)
        with pytest.raises(EngineCommandError) as failure:
            engine.do_command("play", "b", "B2")  # a lone black ball on four white ones: suicide
        assert failure.value.message == "illegal move"
        engine.do_command("play", "w", "B2")  # the level-2 ball on top of the four
        with pytest.raises(EngineCommandError) as failure:
            engine.do_command("play", "b", "B2")  # its column is full now
        assert failure.value.message == "illegal move"
        assert json.loads(engine.do_command("margo-board"))["balls"]["A1:2"] == "W"
        assert engine.do_command("gogui-rules_board_gfx").splitlines()[0] == "LABEL B2 2"
        assert engine.do_command("final_status_list", "dead") == ""


def test_margo_gtp_is_found_beside_this_python_without_an_activated_venv() -> None:
    """docs/adapters.md's example, `--engine "margo-gtp --seed 1"`, from a venv not on PATH."""
    done = subprocess.run([str(MARGO_GTP_2D), "--engine", "margo-gtp --seed 1"], input="boardsize 5\nname\n",
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout) == (0, "=\n\n= margo-gtp\n\n")


def test_a_swap_is_relayed_as_the_word_both_ways() -> None:
    """Two proxies under gogui-twogtp: one's genmove answer `swap` is the other's `play`."""
    with proxy("--rule swap=on --seed 1") as first, proxy("--rule swap=on --seed 1") as second:
        for engine in (first, second):
            engine.do_command("boardsize", 5)
            engine.do_command("play", "w", "C3")
        second.do_command("play", "b", "swap")
        boards = [json.loads(engine.do_command("margo-board")) for engine in (first, second)]
        assert boards[0]["moves"] == 1 and boards[1]["moves"] == 2
        first.do_command("play", "b", "swap")
        assert json.loads(first.do_command("margo-board")) == json.loads(second.do_command("margo-board"))
        with pytest.raises(EngineCommandError) as failure:
            second.do_command("play", "w", "swap")  # only the second player, once
        assert failure.value.message == "illegal move"


TRANSCRIPT_IN = (
    "protocol_version\n"
    "1 boardsize 18\n"
    "2 boardsize 27\n"
    "3 boardsize nine\n"
    "4 boardsize\n"
    "5 boardsize 1\n"
    "6 boardsize 9\n"
    "\x01 7 play w\te5 # comment\r\n"
    "8 play white\n"
    "9 play purple A1\n"
    "   \n"
    "# only a comment\n"
    "10\n"
    "11 genmove\n"
    "12 genmove w extra\n"
    "13 gogui-rules_side_to_move\n"
    "14 GOGUI-RULES_BOARD\n"
    "15 margo-analyze w\n"
    "16 known_command margo-analyze\n"
    "17 known_command gogui-rules_board_gfx\n"
    "18 gogui-rules_board\n"
    "19 quit\n"
)

TRANSCRIPT_OUT = (
    "= 2\n\n"
    "?1 unacceptable size\n\n"
    "?2 unacceptable size\n\n"
    "?3 syntax error\n\n"
    "?4 syntax error\n\n"
    "?5 unacceptable size\n\n"
    "=6 \n\n"
    "=7 \n\n"
    "?8 syntax error\n\n"
    "?9 syntax error\n\n"
    "?10 syntax error\n\n"
    "?11 syntax error\n\n"
    "?12 syntax error\n\n"
    "=13 black\n\n"
    "?14 unknown command\n\n"
    "?15 unknown command\n\n"
    "=16 false\n\n"
    "=17 true\n\n"
    "=18 \n"
    ". ? . ? . ? . ? .\n"
    "? . ? . ? . ? . ?\n"
    ". ? . ? . ? . ? .\n"
    "? . ? . ? . ? . ?\n"
    ". ? . ? O ? . ? .\n"
    "? . ? . ? . ? . ?\n"
    ". ? . ? . ? . ? .\n"
    "? . ? . ? . ? . ?\n"
    ". ? . ? . ? . ? .\n\n"
    "=19 \n\n"
)


def test_bad_input_gets_canonical_errors_and_never_stops_the_proxy() -> None:
    completed = subprocess.run([str(MARGO_GTP_2D)], input=TRANSCRIPT_IN, capture_output=True, text=True, timeout=60)
    assert completed.stdout == TRANSCRIPT_OUT
    assert completed.returncode == 0


def test_a_dead_engine_is_reported_and_quit_still_works() -> None:
    script = "gogui-rules_game_id\ngogui-rules_board\nplay w a1\nname\nquit\n"
    completed = subprocess.run(
        [str(MARGO_GTP_2D), "--engine", f"{sys.executable} -c pass"],
        input=script, capture_output=True, text=True, timeout=60,
    )
    assert completed.stdout == (
        "= Margo\n\n? engine is not running\n\n? engine is not running\n\n? engine is not running\n\n=\n\n"
    )
    assert completed.returncode == 0


def test_hole_option_writes_dots_for_gogui() -> None:
    completed = subprocess.run(
        [str(MARGO_GTP_2D), "--hole", "."], input="boardsize 3\ngogui-rules_board\n",
        capture_output=True, text=True, timeout=60,
    )
    assert completed.stdout == "=\n\n= \n. . .\n. . .\n. . .\n\n"


def test_eof_ends_the_proxy_and_its_engine() -> None:
    completed = subprocess.run([str(MARGO_GTP_2D)], input="boardsize 3\n", capture_output=True, text=True,
                               timeout=60)
    assert completed.stdout == "=\n\n"
    assert completed.returncode == 0


def test_mixed_parity_columns_are_never_offered() -> None:
    with proxy() as engine:
        engine.do_command("boardsize", 9)
        legal = engine.do_command("gogui-rules_legal_moves").split()
        assert len(legal) == 25
        for vertex in legal:
            col, row = parse_point_2d(vertex, 9)
            assert column_points(col, row, 5)[0].level == 0
        assert parse_vertex("A1:1", 5) == column_points(0, 0, 5)[0]


@pytest.mark.parametrize(
    "args, stderr_end",
    [
        (["--engine", "/nonexistent/engine"],
         "cannot start engine ['/nonexistent/engine']: [Errno 2] No such file or directory: '/nonexistent/engine'\n"),
        (["--engine", "margo-gtp 'unbalanced"], "error: --engine: No closing quotation\n"),
        (["--engine", ""], "error: --engine: empty command\n"),
        (["--hole", "ab"], "error: --hole takes one visible character\n"),
        # The second engine of the two-engine mode (tests/test_gogui_two_engines.py).
        (["--engine", str(MARGO_GTP), "--white-engine", "/nonexistent/engine"],
         "cannot start engine ['/nonexistent/engine']: [Errno 2] No such file or directory: '/nonexistent/engine'\n"),
        (["--engine", str(MARGO_GTP), "--white-engine", "margo-gtp 'unbalanced"],
         "error: --white-engine: No closing quotation\n"),
        (["--engine", str(MARGO_GTP), "--white-engine", ""], "error: --white-engine: empty command\n"),
    ],
)
def test_bad_command_lines_exit_with_status_2(args: list[str], stderr_end: str) -> None:
    completed = subprocess.run([str(MARGO_GTP_2D), *args], input="quit\n", capture_output=True, text=True,
                               timeout=60)
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.endswith(stderr_end) and completed.stderr.count("\n") <= 3


@pytest.mark.parametrize("timeout", ["1e20", "1e308"])
def test_a_timeout_of_any_size_works(timeout: str) -> None:
    """Issue #27: --timeout 1e20 crashed with OverflowError in the first wait; the wire
    now waits for a long deadline an hour at a time."""
    completed = subprocess.run([str(MARGO_GTP_2D), "--timeout", timeout], input="boardsize 5\nname\nquit\n",
                               capture_output=True, text=True, timeout=60)
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "=\n\n= margo-gtp\n\n=\n\n", "")


def test_a_nan_timeout_is_refused_in_one_line() -> None:
    completed = subprocess.run([str(MARGO_GTP_2D), "--timeout", "nan"], input="quit\n", capture_output=True,
                               text=True, timeout=60)
    assert (completed.returncode, completed.stdout) == (2, "")
    assert completed.stderr.splitlines()[-1] == "margo-gtp-2d: error: --timeout must be a positive number of seconds"
