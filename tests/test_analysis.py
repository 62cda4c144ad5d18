"""margo-analyze (gtp.md section 4): it streams parseable info lines, stops at the next
input line and ends with an empty line; the snapshot form, the GoGui entry, and the
playout estimates behind final_score / final_status_list with an MCTS player."""

from __future__ import annotations

import io
import os
import random
import re
import threading

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import RandomPlayer
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.protocol.analysis import format_info, install, parse_info
from margo_gtp.protocol.gtp import run_gtp_session
from margo_gtp.protocol.session import make_gtp_engine


def run_script(engine, lines: list[str]) -> str:
    """All output of a session fed ``lines`` (no streaming commands)."""
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO("".join(line + "\n" for line in lines)), out)
    return out.getvalue()


def analysis_engine(player=None, size: int = 5):
    engine = make_gtp_engine(player or MctsPlayer(random.Random(0)), Rules(size=size))
    install(engine, engine.session)
    return engine


class WatchedOutput(io.StringIO):
    """Output that signals once ``count`` info lines were written."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.getvalue().count("info move") >= self.count:
            self.seen.set()
        return written


def stream_session(engine, script: str, then: str, lines_before_input: int = 1) -> str:
    """Run ``script`` (ending in a streaming command); once the stream has written
    ``lines_before_input`` info lines, send ``then``; return the whole output."""
    read_fd, write_fd = os.pipe()
    src = os.fdopen(read_fd, "r")
    sink = os.fdopen(write_fd, "w")
    out = WatchedOutput(lines_before_input)
    session = threading.Thread(target=run_gtp_session, args=(engine, src, out), daemon=True)
    session.start()
    sink.write(script)
    sink.flush()
    if lines_before_input:
        assert out.seen.wait(60), out.getvalue()
    sink.write(then)
    sink.close()
    session.join(60)
    assert not session.is_alive()
    return out.getvalue()


def split_stream(output: str, prefix: str) -> tuple[list[str], str]:
    """(info lines of the stream that starts after ``prefix``, the text after the stream)."""
    assert output.startswith(prefix + "= \n"), output
    body, end, rest = output[len(prefix) + 3:].partition("\n\n")
    assert end, output
    return body.split("\n") if body else [], rest


@pytest.mark.parametrize("player", [MctsPlayer(random.Random(1)), RandomPlayer(random.Random(1))],
                         ids=["mcts player", "random player (private search)"])
def test_analyze_streams_parseable_lines_and_stops_on_input(player) -> None:
    engine = analysis_engine(player)
    output = stream_session(engine, "play w c3\nmargo-analyze b 1\n", "name\nquit\n", lines_before_input=3)
    lines, rest = split_stream(output, "=\n\n")
    assert rest == "= margo-gtp\n\n=\n\n"
    legal = {move.gtp() for move in engine.session.board.legal_moves(Colour.BLACK)}
    assert len(lines) >= 3
    for line in lines:
        info = parse_info(line)
        assert info["move"] in legal and info["pv"][0] == info["move"]
        assert info["visits"] > 0 and 0 <= info["winrate"] <= 1 and 0 <= info["prior"] <= 1 and 0 <= info["amaf"] <= 1
        assert info["order"] >= 0
    assert engine.session.board.history == [(Colour.WHITE, Move.from_gtp("c3", 5))]  # board untouched


def test_analyze_with_an_id_and_default_interval() -> None:
    engine = analysis_engine()
    output = stream_session(engine, "7 margo-analyze w\n", "8 name\n")
    assert output.startswith("=7 \n") and output.endswith("\n\n=8 margo-gtp\n\n")


def test_analyze_without_legal_moves_writes_no_line() -> None:
    engine = analysis_engine(size=2)
    board = Board(Rules(size=2))
    board.random_playout(random.Random(3))
    assert board.is_game_over()
    setup = " ".join(f"{colour.letter} {point.gtp()}" for point, colour in board.balls().items())
    assert engine.respond(f"margo-setup {setup}\n")[0] == "=\n\n"
    colour = board.to_move.letter
    assert not engine.session.board.legal_moves(board.to_move)
    output = stream_session(engine, f"margo-analyze {colour} 1\n", "name\n", lines_before_input=0)
    assert output == "= \n\n= margo-gtp\n\n"  # the stream head is written before its lines


@pytest.mark.parametrize("command", ["margo-analyze", "margo-analyze x", "margo-analyze w -1", "margo-analyze w 1 2",
                                     "margo-analyze w x", "margo-analyze_snapshot", "margo-analyze_snapshot w -5",
                                     "margo-analyze w 1 ownership", "margo-analyze w 1 ownership yes",
                                     "margo-analyze w ownership true 1", "margo-analyze_snapshot w 5 owner true"])
def test_analyze_syntax_errors(command: str) -> None:
    assert run_script(analysis_engine(), [command]) == "? syntax error\n\n"


def test_snapshot_lines_parse_and_are_best_first() -> None:
    """A playout budget, not a time: the answer holds a real search (more visits than
    the virtual prior visits), even though the input ends right after the command."""
    engine = analysis_engine()
    answer = run_script(engine, ["margo-set_limit playouts=300", "margo-analyze_snapshot w"])
    assert answer.startswith("=\n\n= \ninfo move ")
    lines = answer[len("=\n\n= \n"):].strip("\n").split("\n")
    infos = [parse_info(line) for line in lines]
    assert len(infos) == 10
    assert [info["order"] for info in infos] == list(range(len(infos)))
    assert [info["visits"] for info in infos] == sorted((info["visits"] for info in infos), reverse=True)
    assert sum(info["visits"] for info in infos) > 10 * 10  # beyond the 10 virtual prior visits each
    assert all(0.1 <= info["prior"] <= 0.9 and 0 <= info["amaf"] <= 1 for info in infos)


@pytest.mark.parametrize("centiseconds", ["6001", "99999999999", "-1"])
def test_snapshot_duration_is_capped(centiseconds: str) -> None:
    assert run_script(analysis_engine(), [f"margo-analyze_snapshot b {centiseconds}", "name"]) == "? syntax error\n\n= margo-gtp\n\n"


def test_a_piped_snapshot_spends_its_whole_budget_whatever_is_queued_behind_it() -> None:
    """Issue 35: GTP is sequential, so the command queued after the snapshot waits for
    it: the piped script gets the lines the snapshot gives as the last command (which
    the end of input does not cut short), from the same seeded player and budget."""
    script = ["play w c3", "margo-set_limit playouts=400", "margo-analyze_snapshot b"]
    alone = run_script(analysis_engine(MctsPlayer(random.Random(4))), script)
    piped = stream_session(analysis_engine(MctsPlayer(random.Random(4))), "\n".join(script) + "\nname\n", "",
                           lines_before_input=0)
    assert piped == alone + "= margo-gtp\n\n"
    infos = [parse_info(line) for line in alone.split("\n") if line.startswith("info")]
    assert sum(info["visits"] for info in infos) > 10 * 3 * len(infos)  # far beyond the prior's 10 virtual visits


def test_snapshot_prior_is_the_heuristic_prior() -> None:
    """``prior`` is what the search started from (the heuristic's one-ply opinion, the
    same for a move however long the search), ``amaf`` its RAVE rate."""
    answers = []
    for playouts in (20, 400):
        engine = analysis_engine(MctsPlayer(random.Random(5)))
        out = run_script(engine, ["play w c3", f"margo-set_limit playouts={playouts}", "margo-analyze_snapshot b"])
        answers.append({info["move"]: info for info in map(parse_info, out.split("= \n")[1].strip().split("\n"))})
    common = set(answers[0]) & set(answers[1])
    assert common
    assert {move: answers[0][move]["prior"] for move in common} == {move: answers[1][move]["prior"] for move in common}
    assert any(answers[1][move]["amaf"] != answers[1][move]["prior"] for move in common)


@pytest.mark.parametrize("playouts", [1, 40])
def test_snapshot_without_a_time_searches_exactly_the_margo_set_limit_playouts(playouts: int) -> None:
    """The same seeded search, run by hand with the same playouts, writes the same lines."""
    engine = analysis_engine(MctsPlayer(random.Random(3)))
    answer = run_script(engine, [f"margo-set_limit playouts={playouts}", "margo-analyze_snapshot w"])
    reference = MctsPlayer(random.Random(3))
    board = Board(Rules(size=5))
    reference.reset(board)
    root = reference.search(board.copy(), Colour.WHITE, playouts=playouts, scores=True)  # as the analyses ask
    assert answer == "=\n\n= \n" + "\n".join(format_info(item) for item in reference.analysis(root)) + "\n\n"


def test_install_lists_the_commands_and_the_gogui_entry() -> None:
    engine = analysis_engine()
    commands = run_script(engine, ["list_commands"])
    assert "\nmargo-analyze\nmargo-analyze_snapshot\n" in commands
    entries = run_script(engine, ["gogui-analyze_commands"])
    assert entries.endswith("string/Dead balls/final_status_list dead\n"
                            "string/MCTS analysis (1 s)/margo-analyze_snapshot %m 100\n\n")


def test_parse_info_any_field_order_and_errors() -> None:
    assert parse_info("info order 2 visits 5 move A1:1 prior 0.5 winrate 0.25 pv A1:1 B2:1") == {
        "order": 2, "visits": 5, "move": "A1:1", "prior": 0.5, "winrate": 0.25, "pv": ["A1:1", "B2:1"]}
    with pytest.raises(ValueError, match="lacks"):
        parse_info("info move A1:1 visits 3")
    with pytest.raises(ValueError, match="not an info line"):
        parse_info("move A1:1")


def test_format_info_round_trips() -> None:
    player = MctsPlayer(random.Random(0), playouts=40)
    root = player.search(Board(Rules(size=4)), Colour.WHITE, playouts=40)
    for item in player.analysis(root):
        info = parse_info(format_info(item))
        assert info["move"] == item.move.gtp() and info["visits"] == item.visits
        assert info["pv"] == [move.gtp() for move in item.pv]


# -- final_score / final_status_list from playouts -------------------------------------------

RESULT = re.compile(r"^= (0|[WB]\+\d+(\.\d+)?)\n\n$")


def test_final_score_estimate_with_an_mcts_player() -> None:
    """A playout budget (margo-set_limit), not the default 1 s cap: the answer does not
    depend on the machine's speed."""
    engine = analysis_engine(size=4)
    assert engine.respond("margo-set_limit playouts=300\n")[0] == "=\n\n"
    # White's lone ball in Black's corner is as good as dead
    assert engine.respond("margo-setup w a1 b b1 b a2 b b2 b c2 b b3\n")[0] == "=\n\n"
    assert engine.respond("margo-to_move b\n")[0] == "=\n\n"
    answer = engine.respond("final_score\n")[0]
    assert RESULT.match(answer) and answer.startswith("= B+")
    assert engine.respond("final_status_list dead\n")[0] == "= A1:1\n\n"
    alive = engine.respond("final_status_list alive\n")[0]
    assert alive == "= B1:1 A2:1 B2:1 C2:1 B3:1\n\n"
    assert engine.respond("final_status_list seki\n")[0] == "=\n\n"
    assert engine.respond("final_status_list zombie\n")[0] == "? syntax error\n\n"


def test_finished_and_resigned_games_keep_the_exact_answers() -> None:
    engine = analysis_engine(size=2)
    board = Board(Rules(size=2))
    board.random_playout(random.Random(3))
    setup = " ".join(f"{colour.letter} {point.gtp()}" for point, colour in board.balls().items())
    assert engine.respond(f"margo-setup {setup}\n")[0] == "=\n\n"
    assert engine.respond(f"margo-to_move {board.to_move.letter}\n")[0] == "=\n\n"
    assert engine.session.board.is_game_over()
    white, black = board.score()
    expected = "0" if white == black else f"{'W' if white > black else 'B'}+{abs(white - black):g}"
    assert engine.respond("final_score\n")[0] == f"= {expected}\n\n"
    assert engine.respond("final_status_list dead\n")[0] == "=" + "".join(
        " " + point.gtp() for point in board.zombies()) + "\n\n"
    engine = analysis_engine(size=5)
    assert engine.respond("play w c3\n")[0] == "=\n\n"
    engine.session._state.resigned = Colour.BLACK  # as after "genmove b" answered resign
    assert engine.respond("final_score\n")[0] == "= W+R\n\n"


def test_random_player_sessions_keep_ball_counts() -> None:
    engine = analysis_engine(RandomPlayer(random.Random(0)), size=4)
    assert engine.respond("margo-setup w a1 b b1 b a2\n")[0] == "=\n\n"
    assert engine.respond("final_score\n")[0] == "= B+1\n\n"


def test_margo_gtp_installs_analysis_for_every_player() -> None:
    """gtp.md section 4 lists margo-analyze for every engine: players that do not search
    get a private MCTS searcher (see test_client.py for its answers)."""
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).with_name("margo-gtp"))
    script = "known_command margo-analyze\nknown_command margo-analyze_snapshot\nquit\n"
    for player, answer in (("mcts", "true"), ("random", "true"), ("heuristic", "true")):
        result = subprocess.run([exe, "--player", player], input=script, capture_output=True, text=True, timeout=60)
        assert result.stdout == f"= {answer}\n\n= {answer}\n\n=\n\n", player


def snapshot(engine, command: str) -> list[str]:
    """The lines of one ``margo-analyze_snapshot`` answer after a playouts limit of 300."""
    answer = run_script(engine, ["margo-set_limit playouts=300", command])
    assert answer.startswith("=\n\n= \n") and answer.endswith("\n\n"), answer
    return answer[len("=\n\n= \n"):-2].split("\n")


def test_snapshot_lines_carry_each_moves_score_lead_after_the_win_rate() -> None:
    """kata-analyze's scoreLead, in its place (after winrate): the colour's mean final
    score lead after the move, the search's own per-move figure."""
    player = MctsPlayer(random.Random(0))
    lines = snapshot(analysis_engine(player), "margo-analyze_snapshot w")
    assert all(re.fullmatch(r"info move \S+ visits \d+ winrate [\d.]+ scoreLead -?\d+\.\d\d prior .*", line)
               for line in lines), lines
    by_move = {child.move.gtp(): child for child in player.root.children}
    for info in map(parse_info, lines):
        child = by_move[info["move"]]
        assert info["scoreLead"] == float(f"{child.score_sum / child.scored:.2f}")
    assert len({parse_info(line)["scoreLead"] for line in lines}) > 1


def test_ownership_true_ends_the_snapshot_with_katagos_ownership_line() -> None:
    from margo_gtp.analysis.game_analysis import katago_points

    engine = analysis_engine()
    assert run_script(engine, ["play w c3", "play b b2"]) == "=\n\n=\n\n"
    plain = snapshot(analysis_engine(MctsPlayer(random.Random(0))), "margo-analyze_snapshot w")
    lines = snapshot(engine, "margo-analyze_snapshot w ownership true")
    assert len(lines) == len(plain) + 1 and lines[-1].startswith("ownership ")
    values = [float(word) for word in lines[-1].split()[1:]]
    order = [point.gtp() for point in katago_points(5)]
    assert len(values) == len(order) == 55 and all(-1 <= value <= 1 for value in values)
    # for White, the colour analysed: its own ball is there in (nearly) every final position
    assert values[order.index("C3:1")] > 0.9 and values[order.index("B2:1")] < -0.9
    assert snapshot(engine, "margo-analyze_snapshot w ownership false")[-1].startswith("info move ")


def test_ownership_true_ends_every_report_of_the_stream_with_its_line() -> None:
    engine = analysis_engine()
    output = stream_session(engine, "play w c3\nmargo-analyze b 1 ownership true\n", "name\n", lines_before_input=12)
    lines, rest = split_stream(output, "=\n\n")
    assert rest == "= margo-gtp\n\n"
    reports = "\n".join(lines).split("\nownership ")
    assert len(reports) >= 2 and lines[0].startswith("info move ")
    for report in reports[1:-1]:  # each but the last: the ownership values, then the next report's info lines
        values, *infos = report.split("\n")
        assert len(values.split()) == 55 and infos and all(line.startswith("info move ") for line in infos)


def test_the_net_player_on_a_size_without_a_net_counts_ownership_through_its_mcts_fallback() -> None:
    """``ownership true`` was refused for the net player; it answers now (its averaged
    ownership head where a net ships, tests/test_net_ownership.py), and on 5x5, where
    none ships, the mcts it falls back to counts its simulations into the same line."""
    from margo_gtp.players.net import NetPlayer
    from margo_gtp.players.net_spec import shipped_weights

    engine = make_gtp_engine(MctsPlayer(random.Random(0)), Rules(size=5))
    install(engine, engine.session)
    engine.session.player = NetPlayer(shipped_weights(), random.Random(0))  # read per command
    lines = snapshot(engine, "margo-analyze_snapshot w ownership true")
    assert lines[-1].startswith("ownership ") and all(line.startswith("info move ") for line in lines[:-1])
    values = [float(word) for word in lines[-1].split()[1:]]
    assert len(values) == 55 and all(-1 <= value <= 1 for value in values) and any(values)
