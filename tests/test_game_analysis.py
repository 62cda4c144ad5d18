"""The game-analysis library and margo-analysis, the JSON analysis engine
(margo_gtp.analysis.game_analysis, margo_gtp/commands/analysis.py, docs/review.md): the
responses' fields, ownership from the playouts, seeded repeatability, and one error
object per bad query while the engine keeps serving."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players.ownership import Ownership
from margo_gtp.analysis.analysis_json import parse_query, serve
from margo_gtp.analysis.game_analysis import (
    MAX_VISITS,
    AnalysisQueryError,
    analyse_game,
    analyse_position,
    katago_points,
)
from margo_gtp.vertex import Point

BIN = Path(sys.executable).parent
MOVES = [["W", "C3:1"], ["B", "B2:1"], ["W", "C2:1"], ["B", "B3:1"]]


def query(**fields) -> str:
    base = {"id": "q", "moves": MOVES, "boardSize": 5, "maxVisits": 60}
    base.update(fields)
    return json.dumps({key: value for key, value in base.items() if value is not None})


def answers(lines: list[str], parallel: int = 1) -> list[dict]:
    out: list[str] = []
    serve(lines, out.append, parallel=parallel)
    return [json.loads(line) for line in out]


def test_a_response_has_katago_fields_in_margo_vertices():
    [response] = answers([query(analyzeTurns=[2])])
    assert (response["id"], response["turnNumber"]) == ("q", 2)
    assert response["rootInfo"]["currentPlayer"] == "W"
    assert response["rootInfo"]["visits"] == 60
    infos = response["moveInfos"]
    assert [info["order"] for info in infos] == list(range(len(infos)))
    board = Board(Rules(size=5))
    board.push(Move.from_gtp("C3:1", 5), Colour.WHITE)
    board.push(Move.from_gtp("B2:1", 5), Colour.BLACK)
    legal = {move.gtp() for move in board.legal_moves(Colour.WHITE)}
    for info in infos:
        assert set(info) == {"move", "visits", "winrate", "scoreLead", "scoreMean", "scoreStdev", "lcb", "utility",
                             "prior", "order", "pv"}
        assert info["move"] in legal and info["pv"][0] == info["move"]
        assert 0 <= info["winrate"] <= 1 and 0 <= info["prior"] <= 1
    # the moves' own simulations (the prior's virtual visits taken out) add up to at most
    # the root's: one simulation goes through one root move, and only ten are listed
    assert 0 < sum(info["visits"] for info in infos) <= 60
    assert 0 <= response["rootInfo"]["winrate"] <= 1
    assert [info["visits"] for info in infos] == sorted((info["visits"] for info in infos), reverse=True)


def test_ownership_is_katagos_flat_array_over_every_level_for_the_colour_to_move():
    [response] = answers([query(analyzeTurns=[4], includeOwnership=True)])
    ownership = response["ownership"]
    order = [point.gtp() for point in katago_points(5)]
    assert len(ownership) == len(order) == 25 + 16 + 9 + 4 + 1
    assert order[:6] == ["A5:1", "B5:1", "C5:1", "D5:1", "E5:1", "A4:1"] and order[-5:] == ["A2:4", "B2:4", "A1:4", "B1:4", "A1:5"]
    assert all(-1 <= value <= 1 for value in ownership)
    # White is to move after four moves: White's balls are positive, Black's negative
    assert response["rootInfo"]["currentPlayer"] == "W"
    assert ownership[order.index("C3:1")] > 0.5 and ownership[order.index("B2:1")] < -0.5
    assert ownership[-1] == 0.0  # the apex cannot be reached in ten moves
    assert isinstance(response["rootInfo"]["scoreLead"], float)


def test_ownership_counts_the_final_positions_bit_by_bit():
    points = [Point(0, 0, 0), Point(1, 0, 0), Point(0, 1, 0)]
    counts = Ownership(points)
    counts.add_masks(0b001, 0b010)
    counts.add_masks(0b011, 0b000)
    assert counts.probabilities() == {points[0]: (1.0, 0.0, 0.0), points[1]: (0.5, 0.5, 0.0),
                                      points[2]: (0.0, 0.0, 1.0)}
    assert counts.expected_margin() == 1.0
    counts.add_counts([2, 0, 0], [0, 0, 2], 2)
    assert (counts.white, counts.black, counts.playouts) == ([4, 1, 0], [0, 1, 2], 4)
    with pytest.raises(ValueError, match="ownership counts must have 3 entries"):
        counts.add_counts([1], [1], 1)


def test_a_seeded_query_gives_the_same_answer_twice_and_seeds_change_it():
    first = answers([query(analyzeTurns=[0, 3], includeOwnership=True)])
    assert answers([query(analyzeTurns=[0, 3], includeOwnership=True)]) == first
    other = answers([query(analyzeTurns=[0, 3], includeOwnership=True, seed=5)])
    assert other != first


def test_processes_give_the_answers_of_one():
    rules = Rules(size=5)
    moves = [(Colour.parse(c), Move.from_gtp(v, 5)) for c, v in MOVES]
    alone = list(analyse_game(rules, moves, 40, seed=3))
    assert [item["turnNumber"] for item in alone] == [0, 1, 2, 3, 4]
    assert list(analyse_game(rules, moves, 40, seed=3, parallel=2)) == alone


def test_a_finished_game_is_its_exact_result():
    board = Board(Rules(size=3))
    board.random_playout(random.Random(1), max_moves=500)
    assert board.is_game_over()
    result = analyse_position(board, 10)
    outcome = board.outcome()
    mover = board.to_move
    assert result["moveInfos"] == []
    assert result["rootInfo"]["winrate"] == (0.5 if outcome.winner is None else float(outcome.winner == mover))
    assert result["rootInfo"]["visits"] == 0


@pytest.mark.parametrize(("line", "error"), [
    ("{nope", {"id": None, "error": "malformed JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"}),
    ("[1, 2]", {"id": None, "error": "a query must be a JSON object"}),
    ('{"moves": []}', {"id": None, "error": "id must be a string"}),
    (query(maxVisits=10**9), {"id": "q", "error": f"maxVisits must be a whole number 1..{MAX_VISITS}, got 1000000000"}),
    (query(maxVisits=True), {"id": "q", "error": f"maxVisits must be a whole number 1..{MAX_VISITS}, got True"}),
    (query(moves=[["W", "C3:1"], ["B", "C3:1"]]),
     {"id": "q", "error": "move 2 (B C3:1) is illegal: illegal move: C3:1 for BLACK: point is occupied"}),
    (query(moves=[["W", "Z9:1"]]), {"id": "q", "error": "moves[0]: vertex is off board: 'Z9:1' (board size 5)"}),
    (query(moves=[["X", "C3:1"]]), {"id": "q", "error": "moves[0]: colour must be \"B\" or \"W\", got 'X'"}),
    (query(moves="C3:1"), {"id": "q", "error": "moves must be a list of [colour, vertex] pairs"}),
    (query(analyzeTurns=[5]), {"id": "q", "error": "analyzeTurns[] must be a whole number 0..4, got 5"}),
    (query(analyzeTurns=[]), {"id": "q", "error": "analyzeTurns must be a non-empty list of turn numbers"}),
    (query(boardSize=40), {"id": "q", "error": "boardSize must be a whole number 2..19, got 40"}),
    (query(boardXSize=5, boardYSize=7), {"id": "q", "error": "a MarGo board is square: boardSize 5 and boardXSize 5 and boardYSize 7 differ"}),
    (query(boardYSize=0), {"id": "q", "error": "boardYSize must be a whole number 2..19, got 0"}),
    (query(rules={"ko_rule": "magic"}), {"id": "q", "error": "invalid value for ko_rule: 'magic' (allowed situational, positional, simple, none)"}),
    (query(includeOwnership="yes"), {"id": "q", "error": "includeOwnership must be true or false, got 'yes'"}),
])
def test_a_bad_query_gets_one_error_object_and_the_engine_keeps_serving(line, error):
    responses = answers([line, query(analyzeTurns=[1], maxVisits=5)])
    assert responses[0] == error
    assert (responses[1]["id"], responses[1]["turnNumber"]) == ("q", 1)
    assert len(responses) == 2


def test_katagos_board_size_fields_are_read_as_its_clients_send_them():
    katago_style = query(boardSize=None, boardXSize=5, boardYSize=5, analyzeTurns=[2], maxVisits=30)
    assert parse_query(katago_style).rules == Rules(size=5)
    assert answers([katago_style]) == answers([query(analyzeTurns=[2], maxVisits=30)])


def test_parse_query_reads_setup_rules_and_komi():
    parsed = parse_query(json.dumps({"id": "s", "initialStones": [["B", "A1:1"]], "initialPlayer": "W",
                                     "rules": {"first_player": "black", "swap": False}, "boardSize": 4, "komi": 1.5}))
    assert parsed.rules == Rules(size=4, first_player=Colour.BLACK, komi=1.5)
    assert parsed.setup == ((Point(0, 0, 0), Colour.BLACK),) and parsed.setup_to_move == Colour.WHITE
    assert parsed.turns == (0,)
    with pytest.raises(AnalysisQueryError, match="a setup ball needs a point, got 'pass'"):
        parse_query(json.dumps({"id": "s", "initialStones": [["B", "pass"]]}))


def test_margo_analysis_answers_on_stdout_as_a_process():
    lines = "\n".join(["oops", query(analyzeTurns=[0, 4], maxVisits=20), ""])
    done = subprocess.run([str(BIN / "margo-analysis"), "--threads", "1"], input=lines, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    responses = [json.loads(line) for line in done.stdout.splitlines()]
    assert responses[0] == {"id": None, "error": "malformed JSON: Expecting value: line 1 column 1 (char 0)"}
    assert [(r["id"], r["turnNumber"]) for r in responses[1:]] == [("q", 0), ("q", 4)]
    assert responses[1:] == answers([query(analyzeTurns=[0, 4], maxVisits=20)])


def test_move_infos_are_the_searchs_own_simulations_without_the_prior():
    from margo_gtp.players.mcts import PRIOR_HEURISTIC_VISITS, MctsPlayer

    board = Board(Rules(size=5))
    board.push(Move.from_gtp("C3:1", 5), Colour.WHITE)
    result = analyse_position(board, 80, seed="7/1")
    player = MctsPlayer(random.Random("7/1"), reuse=False, early_stop=False)
    root = player.search(board, Colour.BLACK, playouts=80)
    ranked = sorted(root.children, key=lambda child: (child.n, child.w), reverse=True)
    own = [(c.move.gtp(), c.n - PRIOR_HEURISTIC_VISITS, round((c.w - c.prior * PRIOR_HEURISTIC_VISITS) / (c.n - PRIOR_HEURISTIC_VISITS), 6))
           for c in ranked[:10] if c.n > PRIOR_HEURISTIC_VISITS]
    assert [(i["move"], i["visits"], i["winrate"]) for i in result["moveInfos"]] == own
    assert result["rootInfo"]["winrate"] == round(1 - root.w / root.n, 6)


def test_the_client_analyses_every_position_of_a_game():
    from margo_gtp.client import Limit, SimpleEngine

    board = Board(Rules(size=4))
    for text in ("B2:1", "C3:1", "B3:1"):
        board.push(Move.from_gtp(text, 4), board.to_move)
    with SimpleEngine.popen(f"{BIN / 'margo-gtp'} --player mcts --seed 3 --size 4", timeout=60) as engine:
        with pytest.raises(ValueError, match=r"turn 4 is out of range 0\.\.3"):
            next(engine.analyse_game(board, Limit(playouts=20), turns=[0, 4]))
        results = list(engine.analyse_game(board, Limit(playouts=20)))
        assert [turn for turn, _ in results] == [0, 1, 2, 3]
        assert [result.colour.letter for _, result in results] == ["W", "B", "W", "B"]
        assert all(result.candidates and 0 <= result.winrate <= 1 for _, result in results)
        assert [turn for turn, _ in engine.analyse_game(board, Limit(playouts=20), turns=[3, 1])] == [3, 1]
    assert [move.gtp() for _, move in board.history] == ["B2:1", "C3:1", "B3:1"]


def test_a_query_line_too_long_is_refused_without_reading_it_whole():
    import io

    from margo_gtp.analysis.analysis_json import TOO_LONG, bounded_lines

    stream = io.StringIO("x" * 25 + "\nshort\n" + "z" * 9 + "\n" + "y" * 5)
    assert list(bounded_lines(stream, limit=8)) == [TOO_LONG, "short\n", TOO_LONG, "y" * 5]
    assert answers([TOO_LONG, query(analyzeTurns=[0], maxVisits=5)])[0] == {
        "id": None, "error": "query longer than 1048576 characters"}


def test_margo_analysis_refuses_a_huge_line_and_goes_on():
    lines = "{" + " " * (2 << 20) + "\n" + query(analyzeTurns=[0], maxVisits=5) + "\n"
    done = subprocess.run([str(BIN / "margo-analysis"), "--threads", "1"], input=lines, capture_output=True,
                          text=True, timeout=120)
    responses = [json.loads(line) for line in done.stdout.splitlines()]
    assert responses[0] == {"id": None, "error": "query longer than 1048576 characters"}
    assert (responses[1]["id"], responses[1]["turnNumber"], done.returncode) == ("q", 0, 0)


def test_queries_answered_by_processes_are_the_answers_of_one():
    lines = [query(id="a", analyzeTurns=[0, 2, 4], maxVisits=30), "{bad", query(id="b", analyzeTurns=[1], maxVisits=30)]
    alone = answers(lines)
    together = answers(lines, parallel=2)
    key = lambda response: (str(response["id"]), response.get("turnNumber", -1))  # noqa: E731
    assert sorted(together, key=key) == sorted(alone, key=key)
    assert [key(r) for r in alone] == [("a", 0), ("a", 2), ("a", 4), ("None", -1), ("b", 1)]


def test_on_progress_watches_each_search_grow_and_changes_nothing():
    """The review's streamed progress: every turn is watched while it is searched, the
    visits grow within a turn, the best line is legal, and the answers are the ones an
    unwatched analysis gives (the C tree with ownership: watching draws nothing)."""
    rules = Rules(size=5)
    moves = [(Colour.parse(c), Move.from_gtp(v, 5)) for c, v in MOVES]
    seen: list[tuple[int, dict]] = []
    watched = list(analyse_game(rules, moves, 120, ownership=True, on_progress=lambda turn, p: seen.append((turn, p)),
                                progress_interval=0))   # at every check: the searches take milliseconds
    assert watched == list(analyse_game(rules, moves, 120, ownership=True))
    assert sorted({turn for turn, _ in seen}) == [0, 1, 2, 3, 4]
    board = Board(rules)
    for turn in range(5):
        mine = [p for t, p in seen if t == turn]
        assert [p["visits"] for p in mine] == sorted(p["visits"] for p in mine) and mine[0]["visits"] < mine[-1]["visits"]
        assert all(p["to_move"] == board.to_move.letter and 0 <= p["winrate"] <= 1 for p in mine)
        assert all(board.is_legal(Move.from_gtp(p["best"], 5)) and p["pv"][0] == p["best"] for p in mine)
        if turn < 4:
            board.push(moves[turn][1], moves[turn][0])


def test_on_progress_with_several_processes_is_refused():
    with pytest.raises(ValueError) as info:
        next(analyse_game(Rules(size=5), [], 10, parallel=2, on_progress=lambda turn, progress: None))
    assert str(info.value) == "on_progress needs parallel=1, not 2 (a search in another process cannot call back)"
