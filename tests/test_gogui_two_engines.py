"""Two engines in one GoGui window (issue #27): why gogui-twogtp inside GoGui stops, and
``margo-gtp-2d --white-engine`` that replaces it.

What GoGui 1.6 does (``src/net/sf/gogui/gogui/GoGui.java``, ``go/GenericBoard.java``),
copied here as drivers:

- Without a ruler (its program is gogui-twogtp, which answers no ``gogui-rules_*``
  command), GoGui plays every computer move on its own Go board and, before that, stops
  computer play for good if the point is not empty: "played on a non-empty point".
  Projected balls are never orthogonal neighbours, so that board never captures.
- With a ruler (a program that lists ``gogui-rules_game_id``, ``..._legal_moves`` and
  ``..._side_to_move``), GoGui starts a second copy of the program's command line as the
  ruler, takes the side to move and the legal points from it, sends each computer move to
  it twice (``GenericBoard.sendPlay`` in ``computerMoved``) and copies its board.

The games below are the same game: the seeds and the first player are the same, so the
engines draw the same moves.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.gtp2d.engine_pair import EnginePair
from margo_gtp.gtp2d.projected_session import ANALYZE_COMMANDS
from margo_gtp.gtp2d.projection import board_rows
from margo_gtp.client import EngineCommandError, SimpleEngine
from margo_gtp.vertex import Point, column_points, format_point_2d, parse_point_2d, project, projected_size

BIN = Path(sys.executable).parent
MARGO_GTP = BIN / "margo-gtp"
MARGO_GTP_2D = BIN / "margo-gtp-2d"
SIZE = 4  # a 7x7 Go board: captures come early
SEEDS = [(1, 2), (5, 6)]

pytestmark = pytest.mark.process


def engine_command(seed: int, *rules: str) -> str:
    return " ".join([str(MARGO_GTP), "--player", "random", "--size", str(SIZE), "--rule", "first_player=black", *rules,
                     "--seed", str(seed)])


def proxy(*args: str) -> SimpleEngine:
    return SimpleEngine.popen([str(MARGO_GTP_2D), *args], timeout=60)


def pair(seeds: tuple[int, int], *rules: str) -> SimpleEngine:
    """``margo-gtp-2d --engine BLACK --white-engine WHITE``, as GoGui starts it."""
    return proxy("--engine", engine_command(seeds[0], *rules), "--white-engine", engine_command(seeds[1], *rules))


def column_balls(board: dict, vertex: str) -> list[str]:
    col, row = parse_point_2d(vertex, projected_size(board["size"]))
    return [p.gtp() for p in column_points(col, row, board["size"]) if p.gtp() in board["balls"]]


def twogtp_inside_gogui(seeds: tuple[int, int]) -> tuple[list[str], str, dict]:
    """gogui-twogtp relaying between two proxies, GoGui checking each move on its Go
    board. Returns the moves GoGui accepted, the point of the move it refused, and the
    MarGo position just before that move."""
    with proxy("--engine", engine_command(seeds[0])) as black, proxy("--engine", engine_command(seeds[1])) as white:
        gogui_board: set[str] = set()
        moves: list[str] = []
        colour = "b"
        while True:
            mover, other = (black, white) if colour == "b" else (white, black)
            before = json.loads(other.do_command("margo-board"))
            answer = mover.do_command("genmove", colour)
            assert answer != "pass", "the game ended without a refusal"
            if answer in gogui_board:  # GoGui: "played on a non-empty point", computer play off
                return moves, answer, before
            other.do_command("play", colour, answer)  # twogtp's synchroniser
            gogui_board.add(answer)
            moves.append(answer)
            colour = "w" if colour == "b" else "b"


@pytest.mark.parametrize("seeds", SEEDS)
def test_twogtp_inside_gogui_stops_where_a_capture_emptied_a_point(seeds: tuple[int, int]) -> None:
    """The move-62 failure, on a small board: GoGui's Go board still shows a ball that a
    MarGo capture removed, so the first engine move back into that point is refused,
    although MarGo allows it (its column is empty)."""
    moves, refused, before = twogtp_inside_gogui(seeds)
    assert len(moves) < 30 and refused in moves
    assert sum(before["captured"].values()) > 0
    assert column_balls(before, refused) == []


def test_level_three_shares_the_point_of_the_buried_level_one_ball() -> None:
    """The other way GoGui's Go board goes wrong: A1:3 is drawn where B2:1 is."""
    assert project(Point(0, 0, 2)) == project(Point(1, 1, 0)) == (2, 2)


@pytest.mark.parametrize("seeds", SEEDS)
def test_two_engines_behind_one_ruler_play_past_it_to_the_end(seeds: tuple[int, int]) -> None:
    moves, _, _ = twogtp_inside_gogui(seeds)
    with pair(seeds) as player, pair(seeds) as ruler:
        for program in (player, ruler):
            commands = set(program.commands)
            assert {"gogui-rules_game_id", "gogui-rules_legal_moves", "gogui-rules_side_to_move"} <= commands
        played: list[str] = []
        while True:
            legal = ruler.do_command("gogui-rules_legal_moves").split()
            if not legal:
                break
            side = ruler.do_command("gogui-rules_side_to_move")
            answer = player.do_command("genmove", side)
            assert answer in legal
            ruler.do_command("play", side, answer)
            with pytest.raises(EngineCommandError) as again:  # GoGui's second sendPlay
                ruler.do_command("play", side, answer)
            assert again.value.message == "illegal move"
            assert ruler.do_command("gogui-rules_board") == player.do_command("gogui-rules_board")
            played.append(answer)
        assert played[: len(moves)] == moves and len(played) > len(moves) + 1  # the same game, past the refusal
        result = ruler.do_command("gogui-rules_final_result")
        assert result != "unknown" and player.do_command("gogui-rules_final_result") == result
        assert player.do_command("genmove", "b") == "pass"


def test_the_pair_lists_the_analyze_commands_gogui_reads() -> None:
    """GoGui builds its Analyze menu from ``gogui-analyze_commands`` when the program
    lists it (twogtp does not)."""
    with pair((1, 2)) as program:
        assert "gogui-analyze_commands" in program.commands
        assert program.do_command("gogui-analyze_commands").splitlines() == list(ANALYZE_COMMANDS)
        assert program.do_command("name") == "margo-gtp"


def test_holes_are_greyed_in_the_gfx_gogui_shows_after_each_move() -> None:
    """GoGui 1.6 reads '?' as a removed point but draws it like an empty one on a square
    board; the ruler's gfx, shown after every move, colours exactly the holes."""
    with proxy("--engine", engine_command(1)) as ruler:
        gfx = ruler.do_command("gogui-rules_board_gfx").splitlines()
        rows = board_rows(SIZE, {})
    side = projected_size(SIZE)
    holes = {format_point_2d(col, side - 1 - row) for row, line in enumerate(rows)
             for col, cell in enumerate(line.split()) if cell == "?"}
    [grey] = [line for line in gfx if line.startswith("COLOR gray ")]
    assert set(grey.split()[2:]) == holes and len(holes) == side * side - (SIZE * SIZE + (SIZE - 1) ** 2)
    assert gfx[-1].startswith("TEXT ")


@pytest.mark.parametrize("rules, komi, refused", [((), "0", "6.5"), (("--rule", "komi=0.5"), "0.5", "0")])
def test_komi_is_the_engine_rule_for_player_and_ruler(rules: tuple[str, ...], komi: str, refused: str) -> None:
    """GoGui sends ``komi`` (6.5 by default) to its program only, never to the ruler: the
    proxy keeps the rule komi, so both score alike."""
    with pair((1, 2), *rules) as player, pair((1, 2), *rules) as ruler:
        with pytest.raises(EngineCommandError) as failure:
            player.do_command("komi", refused)
        assert failure.value.message == f"komi is fixed at {komi}"
        player.do_command("komi", komi)  # the same komi: accepted, nothing changes
        for program in (player, ruler):
            assert json.loads(program.do_command("margo-get_rules"))["komi"] == float(komi)
        assert player.do_command("final_score") == ruler.do_command("final_score")


def test_rule_komi_set_through_margo_set_rules_is_the_one_komi_accepts() -> None:
    with proxy("--engine", engine_command(1)) as program:
        program.do_command("margo-set_rules", "komi=1.5")
        program.do_command("komi", "1.5")
        with pytest.raises(EngineCommandError) as failure:
            program.do_command("komi", "1_5")
        assert failure.value.message == "syntax error"


# ---------------------------------------------------------------------------------------
# The pair's routing, with recording stand-ins for the two engines


class Recorder:
    """An engine that records what it is sent and answers from a table."""

    def __init__(self, answers: dict[str, tuple[bool, str]] | None = None) -> None:
        self.sent: list[str] = []
        self.answers = answers or {}
        self.failure: str | None = None
        self.closed = False

    @property
    def running(self) -> bool:
        return not self.closed

    def send(self, command: str) -> tuple[bool, str]:
        self.sent.append(command)
        return self.answers.get(command, (True, ""))

    def check(self) -> bool:
        return self.send("protocol_version")[0]

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    "command, black_gets, white_gets",
    [
        ("genmove w", ["play w C3:1"], ["genmove w"]),
        ("genmove B", ["genmove B"], ["play B A1:1"]),
        ("reg_genmove w", [], ["reg_genmove w"]),
        ("margo-board", ["margo-board"], []),
        ("margo-to_move", ["margo-to_move"], []),
        ("margo-to_move w", ["margo-to_move w"], ["margo-to_move w"]),
        ("play b A1:1", ["play b A1:1"], ["play b A1:1"]),
        ("komi 0", ["komi 0"], ["komi 0"]),
        ("showboard", ["showboard"], []),
    ],
)
def test_the_pair_routes_each_command(command: str, black_gets: list[str], white_gets: list[str]) -> None:
    black = Recorder({"genmove B": (True, "A1:1")})
    white = Recorder({"genmove w": (True, "C3:1")})
    assert EnginePair(black, white).send(command)[0] is True
    assert (black.sent, white.sent) == (black_gets, white_gets)


def test_the_pair_does_not_relay_a_resignation_or_a_failure() -> None:
    black = Recorder({"genmove b": (True, "resign"), "genmove black": (False, "illegal move")})
    white = Recorder()
    engines = EnginePair(black, white)
    assert engines.send("genmove b") == (True, "resign")
    assert engines.send("genmove black") == (False, "illegal move")
    assert white.sent == []


def test_the_pair_says_when_the_engines_disagree() -> None:
    black = Recorder({"genmove b": (True, "B2:1")})
    white = Recorder({"play b B2:1": (False, "illegal move"), "undo": (False, "cannot undo")})
    engines = EnginePair(black, white)
    assert engines.send("genmove b") == (False, "engines disagree: the other engine refused B2:1: illegal move")
    assert engines.send("undo") == (False, "engines disagree: White's engine refused 'undo': cannot undo")
    engines.close()
    assert black.closed and white.closed and not engines.running


def test_the_pair_checks_both_engines() -> None:
    black, white = Recorder({"protocol_version": (False, "")}), Recorder()
    assert EnginePair(black, white).check() is False
    assert white.sent == ["protocol_version"]  # checked even though Black failed


def test_a_dead_white_engine_is_reported_and_quit_still_works() -> None:
    completed = subprocess.run(
        [str(MARGO_GTP_2D), "--engine", str(MARGO_GTP), "--white-engine", f"{sys.executable} -c pass"],
        input="gogui-rules_game_id\nplay b a1\ngenmove w\nname\nquit\n", capture_output=True, text=True, timeout=60,
    )
    assert completed.stdout == (
        "= Margo\n\n? engine is not running\n\n? engine is not running\n\n? engine is not running\n\n=\n\n"
    )
    assert completed.returncode == 0
    assert "is not usable" in completed.stderr and "Traceback" not in completed.stderr


def test_once_an_engine_is_gone_every_command_goes_to_it() -> None:
    """So the proxy answers ``engine is not running`` (the gone engine's send raises)."""
    black, white = Recorder(), Recorder()
    white.closed = True
    EnginePair(black, white).send("name")
    EnginePair(black, white).send("genmove b")
    assert (black.sent, white.sent) == ([], ["name", "genmove b"])
