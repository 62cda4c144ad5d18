"""MarGo SGF: point encoding, exact texts, round trips of random finished games, malformed
input, and the projected Go export."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf as sgfmill_sgf

from margo_gtp import sgf
from margo_gtp.sgf import SgfRecord, SgfError
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.vertex import Point, parse_vertex, project, projected_size

DATA = Path(__file__).parent / "data"
MARGO_GTP = Path(sys.executable).parent / "margo-gtp"


@pytest.mark.parametrize(
    "vertex, size, sgf_point",
    [
        ("D4:1", 9, "df:1"),  # level 1 letters are exactly Go SGF's
        ("A9:1", 9, "aa:1"),
        ("J1:1", 9, "ii:1"),
        ("D4:2", 9, "de:2"),  # level 2 grid is 8x8: row 4 is the 5th from the top
        ("A1:9", 9, "aa:9"),
        ("B1:2", 3, "bb:2"),
        ("T19:1", 19, "sa:1"),
        ("T1:1", 19, "ss:1"),
    ],
)
def test_point_encoding_table(vertex: str, size: int, sgf_point: str) -> None:
    point = parse_vertex(vertex, size)
    assert sgf.format_sgf_point(point, size) == sgf_point
    assert sgf.parse_sgf_point(sgf_point, size) == point


def test_bare_two_letters_are_level_one() -> None:
    assert sgf.parse_sgf_point("df", 9) == Point(3, 3, 0)


@pytest.mark.parametrize(
    "text, message",
    [
        ("dd:0", "point is off board: 'dd:0' (board size 9)"),
        ("dd:10", "point is off board: 'dd:10' (board size 9)"),
        ("ai:2", "point is off board: 'ai:2' (board size 9)"),
        ("jj:1", "point is off board: 'jj:1' (board size 9)"),
        ("d:1", "malformed point: 'd:1'"),
        ("DD:1", "malformed point: 'DD:1'"),
        ("dd:x", "malformed point: 'dd:x'"),
    ],
)
def test_bad_points(text: str, message: str) -> None:
    with pytest.raises(SgfError) as error:
        sgf.parse_sgf_point(text, 9)
    assert str(error.value) == message


def small_game() -> Board:
    board = Board(Rules(size=3, komi=0.5))
    for vertex in ["A1", "B1", "A2", "B2", "A1:2", "C2"]:
        board.push(Move.from_gtp(vertex, 3))
    return board


EXPECTED_SMALL = (
    "(;FF[4]AP[margo-gtp:0.1.0]CA[UTF-8]GM[77]KM[0.5]\n"
    "MR[first_player=white][swap=off][max_level=2][bridge_cutting=on][all_freedoms=off]"
    "[own_freedomless_group=capture][ko_rule=situational][ko_position=full][scoring=balls]"
    "[allow_pass=off][first_capture_wins=off]\n"
    "PB[bob]PW[alice \\] \\\\ ok]RU[MarGo]SZ[3];TU[1.5]W[ac:1];B[bc:1]BL[29];C[nice]\n"
    "W[ab:1];B[bb:1];W[ab:2];B[cb:1])\n"
)


def test_exact_text_of_a_small_game() -> None:
    record = sgf.record_from_board(
        small_game(), black_name="bob", white_name="alice ] \\ ok", times=[1.5], time_left=[None, 29.0],
        move_properties=[{}, {}, {"C": ["nice"]}],
    )
    assert record.result is None  # game not over
    text = sgf.dumps(record)
    assert text == EXPECTED_SMALL
    back = sgf.loads(text)
    assert back.white_name == "alice ] \\ ok"
    assert back.times[:2] == [1.5, None] and back.time_left[:2] == [None, 29.0]
    assert back.move_properties[2] == {"C": ["nice"]}
    assert back.moves == record.moves
    assert sgf.dumps(back) == text


def test_sample_file_with_setup_and_unknown_properties() -> None:
    text = (DATA / "setup_and_extras.sgf").read_text(encoding="utf-8")
    record = sgf.loads(text)
    assert record.rules.size == 4 and record.rules.komi == 1.5 and record.rules.ko_rule == "simple"
    assert record.setup == {Point(0, 0, 0): Colour.BLACK, Point(1, 0, 0): Colour.WHITE,
                            Point(0, 1, 0): Colour.WHITE, Point(1, 1, 0): Colour.BLACK,
                            Point(0, 0, 1): Colour.BLACK}
    assert record.setup_to_move == Colour.BLACK
    assert record.root_properties == {"DT": ["2026-11-22"], "EV": ["test \\] event"], "XX": ["a", "b"]}
    assert record.result == "B+2"
    board = sgf.replay(record)
    assert board.get(Point(0, 0, 1)) == Colour.BLACK
    assert [m.gtp() for _, m in record.moves] == ["C1:1", "D4:1"]
    assert sgf.dumps(sgf.loads(sgf.dumps(record))) == sgf.dumps(record)


RULE_VARIANTS = [
    Rules(size=2),
    Rules(size=3, first_player=Colour.BLACK, komi=-2.5),
    Rules(size=4, ko_rule="positional", bridge_cutting=False),
    Rules(size=4, all_freedoms=True, own_freedomless_group="illegal", ko_position="top_view"),
    Rules(size=5, max_level=2, scoring="territory"),
    Rules(size=5, swap=True),
    Rules(size=5, allow_pass=True, scoring="territory"),
    Rules(size=5, first_capture_wins=True),
    Rules(size=6),
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=lambda r: f"N{r.size}")
@pytest.mark.parametrize("seed", range(3))
def test_random_finished_games_round_trip(rules: Rules, seed: int) -> None:
    board = Board(rules)
    board.random_playout(random.Random(seed * 101 + rules.size))
    assert board.is_game_over()
    record = sgf.record_from_board(board, black_name="b", white_name="w")
    assert record.result == board.outcome().result()
    text = sgf.dumps(record)
    back = sgf.loads(text)
    assert back.rules.options() == rules.options()
    assert back.moves == board.history
    assert back.result == board.outcome().result()
    again = sgf.replay(back)
    assert again.balls() == board.balls()
    assert again.to_move == board.to_move
    assert again.captured == board.captured
    assert again.is_game_over()
    assert again.outcome().result() == board.outcome().result()
    assert sgf.dumps(back) == text
    # replay up to a move gives the position after that many moves
    half = len(board.history) // 2
    partial = sgf.replay(back, half)
    assert len(partial.history) == half


def test_record_of_a_set_up_position_round_trips() -> None:
    board = Board(Rules(size=4))
    board.setup({Point(0, 0, 0): Colour.WHITE, Point(1, 0, 0): Colour.BLACK,
                 Point(0, 1, 0): Colour.BLACK, Point(1, 1, 0): Colour.WHITE,
                 Point(0, 0, 1): Colour.WHITE}, to_move=Colour.BLACK)
    board.random_playout(random.Random(5))
    record = sgf.record_from_board(board)
    assert record.setup_to_move == Colour.BLACK and len(record.setup) == 5
    again = sgf.replay(sgf.loads(sgf.dumps(record)))
    assert again.balls() == board.balls()
    assert again.outcome().result() == board.outcome().result()


def test_end_of_game_passes_from_2d_referees_replay_as_no_ops() -> None:
    board = Board(Rules(size=2))
    board.random_playout(random.Random(1))
    record = sgf.record_from_board(board)
    loser = board.to_move
    record.moves += [(loser, Move.PASS), (loser.opponent, Move.PASS)]
    again = sgf.replay(sgf.loads(sgf.dumps(record)))
    assert again.balls() == board.balls()


MALFORMED = [
    ("", "malformed SGF: no SGF data found"),
    ("(;GM[77]SZ[5]", "malformed SGF: unexpected end of SGF data"),
    ("hello", "malformed SGF: no SGF data found"),
    ("(;GM[2]SZ[9])", "not a MarGo record: GM[2], expected GM[77] (or GM[1], a projected record)"),
    ("(;GM[1]SZ[8])", "projected Go record: SZ[8] is not an odd size from 3 to 25 (2N-1 for N = 2..13)"),
    ("(;SZ[1])", "projected Go record: SZ[1] is not an odd size from 3 to 25 (2N-1 for N = 2..13)"),
    ("(;GM[1]SZ[9]AB[ee])", "projected Go record: setup stones (AB) cannot be lifted to MarGo points"),
    ("(;GM[1]SZ[9];B[ab])", "projected Go record: node 1: B at A8 names no empty MarGo point"),
    ("(;GM[1]SZ[5];B[aa];W[aa])", "projected Go record: node 2: W at A5 names no empty MarGo point"),
    ("(;GM[1]SZ[5];B[bd])", "projected Go record: node 1: move 1 (B A1:2) is illegal: "
                            "illegal move: A1:2 for BLACK: point is not supported"),
    ("(;GM[1]SZ[5];B[zz])", "projected Go record: node 1: bad Go move: 'zz'"),
    ("(;GM[1]SZ[5];B[aa]W[bb])", "projected Go record: node 1: both B and W in one node"),
    ("(;GM[x]SZ[9])", "bad GM value: 'x'"),
    ("(;GM[77])", "missing SZ: a MarGo record must give its board size"),
    ("(;GM[77]SZ[20])", "unsupported board size: SZ[20] (allowed 2..19)"),
    ("(;GM[77]SZ[1])", "unsupported board size: SZ[1] (allowed 2..19)"),
    ("(;GM[77]SZ[nine])", "malformed SGF: bad SZ property: b'nine'"),
    ("(;GM[77]SZ[5]MR[ko_rule=sometimes])",
     "bad rule option in MR: invalid value for ko_rule: 'sometimes' (allowed situational, positional, simple, none)"),
    ("(;GM[77]SZ[5]MR[colour=red])", "bad rule option in MR: unknown rule option: 'colour'"),
    ("(;GM[77]SZ[5]MR[swap])", "bad MR entry: 'swap' (expected name=value)"),
    ("(;GM[77]SZ[5]MR[size=5])", "MR must not hold 'size': it is recorded in SZ"),
    ("(;GM[77]SZ[5]KM[lots])", "bad KM value: 'lots' (a number)"),
    ("(;GM[77]SZ[5]PL[red])", "bad PL value: 'red' (B or W)"),
    ("(;GM[77]SZ[5]AB[aa:1][aa:1])", "setup point given twice: 'aa:1'"),
    ("(;GM[77]SZ[5]AB[aa:7])", "point is off board: 'aa:7' (board size 5)"),
    ("(;GM[77]SZ[5];W[ff:1])", "node 1: point is off board: 'ff:1' (board size 5)"),
    ("(;GM[77]SZ[5];W[aa:1];B[a])", "node 2: malformed point: 'a'"),
    ("(;GM[77]SZ[5];W[aa:1]B[bb:1])", "node 1: both B and W in one node"),
    ("(;GM[77]SZ[5];W[aa:1];C[hi])", "node 2: no move (B or W)"),
    ("(;GM[77]SZ[5];W[aa:1];AB[bb:1])", "node 2: setup property AB after the root is not supported"),
    ("(;GM[77]SZ[5]W[aa:1])", "a move in the root node is not supported: put moves after the root"),
    ("(;GM[77]SZ[5];W[aa:1]WL[soon])", "bad WL value: 'soon' (a number)"),
]


@pytest.mark.parametrize("text, message", MALFORMED)
def test_malformed_sgf_is_an_sgf_error(text: str, message: str) -> None:
    with pytest.raises(SgfError) as error:
        sgf.loads(text)
    assert str(error.value) == message


@pytest.mark.parametrize(
    "text, message",
    [
        ("(;GM[77]SZ[3];W[ac:1];B[ac:1])", "move 2 (B A1:1) is illegal: "),
        ("(;GM[77]SZ[3];W[ab:2])", "move 1 (W A1:2) is illegal: "),
        ("(;GM[77]SZ[3];B[swap])", "move 1 (B swap) is illegal: "),
        ("(;GM[77]SZ[3];W[])", "move 1 (W pass) is illegal: "),
        ("(;GM[77]SZ[3]AB[ab:2])", "illegal setup: "),
    ],
)
def test_unplayable_records_fail_in_replay(text: str, message: str) -> None:
    record = sgf.loads(text)
    with pytest.raises(SgfError) as error:
        sgf.replay(record)
    assert str(error.value).startswith(message)
    assert str(error.value).count(message.strip()) == 1  # said once ("illegal setup: illegal setup: ..." was)


def test_replay_beyond_the_record_is_an_error() -> None:
    record = sgf.loads("(;GM[77]SZ[3];W[ac:1])")
    with pytest.raises(SgfError, match="cannot replay 2 moves: the record has 1"):
        sgf.replay(record, 2)


def test_record_from_board_rejects_unknown_fields() -> None:
    with pytest.raises(TypeError, match="unexpected fields \\['colour'\\]"):
        sgf.record_from_board(Board(Rules(size=3)), colour="red")


# -- projected export ------------------------------------------------------------------


def replay_go_view(text: str) -> tuple[sgfmill_sgf.Sgf_game, dict[tuple[int, int], str], list]:
    """Replay a projected export as a Go viewer would (place stones, apply setup nodes,
    never capture: occupied projected points are never neighbours)."""
    game = sgfmill_sgf.Sgf_game.from_string(text)
    view: dict[tuple[int, int], str] = {}
    moves = []
    for node in game.get_main_sequence():
        black, white, empty = node.get_setup_stones()
        for stones, colour in ((black, "B"), (white, "W")):
            for row, col in stones:
                view[(col, row)] = colour
        for row, col in empty:
            view.pop((col, row), None)
        colour, move = node.get_move()
        if colour is not None:
            moves.append((colour, move))
            if move is not None:
                view[(move[1], move[0])] = colour.upper()
    return game, view, moves


@pytest.mark.parametrize("rules", [Rules(size=3), Rules(size=5, swap=True), Rules(size=7), Rules(size=13)],
                         ids=lambda r: f"N{r.size}")
def test_projected_export_replays_to_the_top_view(rules: Rules) -> None:
    board = Board(rules)
    board.random_playout(random.Random(rules.size), max_moves=150 if rules.size == 13 else 2000)
    meta = {} if board.is_game_over() else {"result": "W+R"}
    record = sgf.record_from_board(board, **meta)
    assert record.result is not None
    text = sgf.dumps_projected(record)
    game, view, moves = replay_go_view(text)
    root = game.get_root()
    assert root.get("GM") == 1 and game.get_size() == projected_size(rules.size)
    assert root.get("RE") == record.result
    placed = [(c, m) for c, m in record.moves if not m.is_swap]
    assert len(moves) == len(placed)
    for (colour, move), (go_colour, go_move) in zip(placed, moves):
        assert go_colour == colour.letter.lower()
        if move.is_pass:
            assert go_move is None
        else:
            col, row = project(move.point)
            assert go_move == (row, col)
    expected = {p: c.letter for p, c in sgf.top_colours(board.balls()).items()}
    assert view == expected


@pytest.mark.parametrize("rules", [Rules(size=2), Rules(size=4, komi=2.5, ko_rule="simple"), Rules(size=9)],
                         ids=lambda r: f"N{r.size}")
def test_projected_export_reads_back_as_the_same_game(rules: Rules) -> None:
    board = Board(rules)
    board.random_playout(random.Random(3))
    record = sgf.record_from_board(board, black_name="b", white_name="w", times=[0.25] * 3)
    back = sgf.loads(sgf.dumps_projected(record))
    assert back.moves == record.moves
    assert back.rules.options() == rules.options()
    assert back.result == record.result and back.black_name == "b"
    assert back.times == [0.25] * 3 + [None] * (len(record.moves) - 3)
    assert sgf.replay(back).balls() == board.balls()


def test_a_go_tool_saved_game_loads_with_end_passes() -> None:
    text = (DATA / "gogui_saved_n3.sgf").read_text(encoding="utf-8")
    record = sgf.loads(text)
    assert record.rules.size == 3 and record.rules.komi == 0.5
    assert record.rules.first_player == Colour.BLACK  # gogui-twogtp: Black moved first, the record has no MR
    assert [(c.letter, m.gtp()) for c, m in record.moves][:5] == [
        ("B", "A1:1"), ("W", "B1:1"), ("B", "A2:1"), ("W", "B2:1"), ("B", "A1:2")]
    assert record.move_properties[0] == {"C": ["first"]}
    board = sgf.replay(record)
    assert board.is_game_over()
    assert board.outcome().result() == record.result == "W+3.5"
    assert [m.gtp() for _, m in record.moves[-2:]] == ["pass", "pass"]


def test_projected_export_refuses_boards_beyond_13() -> None:
    with pytest.raises(SgfError, match="cannot project a 14x14 board"):
        sgf.dumps_projected(SgfRecord(rules=Rules(size=14)))


# -- the engine's loadsgf / printsgf use this module ------------------------------------


def run_engine(script: str) -> str:
    completed = subprocess.run([str(MARGO_GTP), "--player", "random"], input=script, capture_output=True, text=True, timeout=60)
    return completed.stdout


@pytest.mark.process
def test_engine_loadsgf_of_malformed_file_changes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[77]SZ[5];W[zz:1])", encoding="utf-8")
    illegal = tmp_path / "illegal.sgf"
    illegal.write_text("(;GM[77]SZ[3];W[ac:1];B[ac:1])", encoding="utf-8")
    out = run_engine(f"play w d4\nmargo-board\nloadsgf {bad}\nloadsgf {illegal}\nloadsgf {tmp_path}/none.sgf\n"
                     "margo-board\n")
    answers = out.split("\n\n")
    assert answers[2:5] == ["? cannot load file"] * 3
    assert answers[1] == answers[5]


@pytest.mark.process
def test_engine_printsgf_then_loadsgf_restores_the_game(tmp_path: Path) -> None:
    saved = tmp_path / "game.sgf"
    moves = "play w c3\nplay b c2\nplay w b2\nplay b b3\nplay w b2:2\n"
    out = run_engine(f"boardsize 5\n{moves}margo-board\nprintsgf {saved}\nclear_board\nloadsgf {saved}\nmargo-board\n")
    answers = out.split("\n\n")
    assert answers[7] == "=" and answers[8] == "=" and answers[9] == "="
    assert answers[6] == answers[10]
    assert sgf.loads(saved.read_text(encoding="utf-8")).moves[-1][1].gtp() == "B2:2"


def test_command_line_converts_both_ways(tmp_path: Path) -> None:
    def convert(target: str, path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "margo_gtp.commands.sgf", target, str(path)],
                              capture_output=True, text=True, timeout=60)

    native = convert("native", DATA / "gogui_saved_n3.sgf")
    assert native.returncode == 0 and "GM[77]" in native.stdout
    assert "MR[first_player=black]" in native.stdout  # Black moved first in this twogtp game
    assert sgf.replay(sgf.loads(native.stdout)).outcome().result() == "W+3.5"
    (tmp_path / "native.sgf").write_text(native.stdout, encoding="utf-8")
    projected = convert("projected", tmp_path / "native.sgf")
    assert projected.returncode == 0
    again = sgf.loads(projected.stdout)
    assert again.moves == sgf.loads(native.stdout).moves
    assert again.root_properties["C"][0].endswith("White command: margo-gtp-2d")
    missing = convert("projected", tmp_path / "missing.sgf")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith(f"margo_gtp.commands.sgf: {tmp_path / 'missing.sgf'}: [Errno 2]")
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[77]SZ[3];W[ab:2])", encoding="utf-8")
    failed = convert("native", bad)
    assert failed.returncode == 1
    assert failed.stderr == f"margo_gtp.commands.sgf: {bad}: move 1 (W A1:2) is illegal: " \
                            "illegal move: A1:2 for WHITE: point is not supported\n"


def test_load_board_is_loadsgf_n_as_gnu_go() -> None:
    """``loadsgf FILE n``: the position before move n (from 1); None or past the end: the whole game."""
    text = "(;GM[77]SZ[3];W[aa:1];B[cc:1];W[ba:1])"
    boards = {n: sgf.load_board(text, n)[1] for n in (None, 1, 2, 4, 99)}
    assert [len(boards[n].history) for n in (None, 1, 2, 4, 99)] == [3, 0, 1, 3, 3]
    assert boards[2].balls() == {parse_vertex("A3:1", 3): Colour.WHITE}
    record, _ = sgf.load_board(text)
    assert len(record.moves) == 3


def test_the_converter_refuses_a_named_pipe_at_once(tmp_path):
    import os

    fifo = tmp_path / "game.sgf"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "margo_gtp.commands.sgf", "native", str(fifo)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, f"margo_gtp.commands.sgf: {fifo}: is a named pipe (FIFO), not a regular file\n")
