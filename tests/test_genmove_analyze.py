"""margo-genmove_analyze (gtp.md section 4): genmove as it is, with the player's own search
written as info reports while it runs and the move on a last ``play`` line."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

from margo_gtp.client import AnalysisResult, Limit, SimpleEngine
from margo_gtp.engine import Board, Colour, Rules
from margo_gtp.players import RandomPlayer
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.protocol.analysis import install, parse_info
from margo_gtp.protocol.gtp import run_gtp_session
from margo_gtp.protocol.session import make_gtp_engine


def run_script(player, lines: list[str]) -> str:
    engine = make_gtp_engine(player, Rules(size=5))
    install(engine, engine.session)
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO("".join(line + "\n" for line in lines)), out)
    return out.getvalue()


def reports(info_lines: list[str]) -> list[list[dict]]:
    """The info lines cut into reports (each starts with order 0)."""
    cut: list[list[dict]] = []
    for line in info_lines:
        fields = parse_info(line)
        if fields["order"] == 0:
            cut.append([])
        cut[-1].append(fields)
    return cut


def test_it_plays_what_genmove_plays_and_the_move_stays_played() -> None:
    setup = ["margo-set_limit playouts=3000", "play w C3:1"]
    streamed = run_script(MctsPlayer(random.Random(5)), [*setup, "margo-genmove_analyze b 1", "margo-board"])
    plain = run_script(MctsPlayer(random.Random(5)), [*setup, "genmove b", "margo-board"])
    info = [line for line in streamed.split("\n") if line.startswith("info ")]
    assert info and all(parse_info(line) for line in info)
    without_reports = "\n".join(line for line in streamed.split("\n") if not line.startswith("info "))
    move = plain.split("\n\n")[2].removeprefix("= ")
    # the same transcript but for the stream's shape: '=' alone, the reports, then 'play MOVE';
    # the same board after it, so the move was played
    assert without_reports == plain.replace(f"= {move}\n", f"= \nplay {move}\n", 1)


def test_reports_grow_while_the_search_runs() -> None:
    output = run_script(MctsPlayer(random.Random(1)), ["margo-set_limit seconds=0.6", "margo-genmove_analyze w 10"])
    body = output.split("\n\n")[1]
    assert body.startswith("= \n")
    lines = body[3:].split("\n")
    assert lines[-1].startswith("play ")
    cut = reports(lines[:-1])
    assert len(cut) >= 2, output
    totals = [sum(item["visits"] for item in report) for report in cut]
    assert totals == sorted(totals) and totals[0] < totals[-1]
    assert all(report[0]["visits"] >= report[-1]["visits"] for report in cut)


def test_a_player_without_a_search_writes_only_the_move() -> None:
    streamed = run_script(RandomPlayer(random.Random(2)), ["margo-genmove_analyze w 1"])
    plain = run_script(RandomPlayer(random.Random(2)), ["genmove w"])
    assert streamed == "= \n" + plain.replace("= ", "play ", 1)


def test_bad_arguments_are_syntax_errors_and_change_nothing() -> None:
    output = run_script(RandomPlayer(random.Random(2)),
                        ["margo-genmove_analyze", "margo-genmove_analyze x", "margo-genmove_analyze b -5",
                         "margo-genmove_analyze b soon", "margo-to_move"])
    assert output == "? syntax error\n\n" * 4 + "= W\n\n"


# -- the client: SimpleEngine.play_analysed ------------------------------------------------

MARGO_GTP = str(Path(sys.executable).parent / "margo-gtp")


def test_the_client_hands_over_growing_reports_and_plays_the_move() -> None:
    board = Board(Rules(size=5))
    seen: list[AnalysisResult] = []
    with SimpleEngine.popen([MARGO_GTP, "--player", "mcts", "--seed", "1"], timeout=30) as engine:
        result = engine.play_analysed(board, Limit(seconds=0.8), interval=0.1, on_report=seen.append)
        assert board.is_legal(result.move, Colour.WHITE)
        board.push(result.move)
        engine.play(board, Limit(seconds=0.05))  # the wire is in step and the engine knows the move
        assert engine.do_command("margo-board").count('"W"') >= 1
    assert len(seen) >= 3
    totals = [sum(info.visits for info in report.candidates) for report in seen]
    assert totals == sorted(totals) and totals[0] < totals[-1]
    assert all(report.colour is Colour.WHITE and report.candidates for report in seen)


def test_the_client_plays_as_play_without_reports_where_nothing_searches() -> None:
    board = Board(Rules(size=5))
    seen: list[AnalysisResult] = []
    with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--seed", "3"], timeout=30) as engine:
        streamed = engine.play_analysed(board, interval=0.05, on_report=seen.append)
    with SimpleEngine.popen([MARGO_GTP, "--player", "random", "--seed", "3"], timeout=30) as engine:
        plain = engine.play(board)
    assert (streamed, seen) == (plain, [])
