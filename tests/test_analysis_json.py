"""margo-analysis speaks KataGo's analysis protocol (margo_gtp/analysis/analysis_json.py,
docs/review.md): KataGo's documented example queries, in MarGo vertices, are answered and
the answers validate against a JSON Schema written from KataGo's docs/Analysis_Engine.md;
special actions; warnings for what MarGo cannot honour; one exact line per refusal; a
reader that goes away ends the engine quietly (issue 36, bug 9)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from margo_gtp.analysis.analysis_json import serve
from margo_gtp.analysis.game_analysis import katago_points

BIN = Path(sys.executable).parent

NUMBER = {"type": "number"}
MOVE_INFO = {
    "type": "object",
    "required": ["move", "visits", "winrate", "scoreLead", "scoreMean", "scoreStdev", "prior", "utility", "lcb",
                 "order", "pv"],
    "properties": {
        "move": {"type": "string"}, "visits": {"type": "integer", "minimum": 1},
        "winrate": {"type": "number", "minimum": 0, "maximum": 1},
        "prior": {"type": "number", "minimum": 0, "maximum": 1},
        "utility": NUMBER, "lcb": NUMBER, "scoreLead": NUMBER, "scoreMean": NUMBER, "scoreStdev": NUMBER,
        "order": {"type": "integer", "minimum": 0}, "pv": {"type": "array", "items": {"type": "string"}},
    },
}
ROOT_INFO = {
    "type": "object",
    "required": ["winrate", "scoreLead", "scoreMean", "scoreStdev", "visits", "utility", "currentPlayer"],
    "properties": {"winrate": {"type": "number", "minimum": 0, "maximum": 1}, "visits": {"type": "integer"},
                   "utility": NUMBER, "lcb": NUMBER, "scoreLead": NUMBER, "scoreMean": NUMBER,
                   "scoreStdev": {"type": "number", "minimum": 0},
                   "currentPlayer": {"enum": ["B", "W"]}},
}
#: One answer line of KataGo's analysis engine (docs/Analysis_Engine.md, "Responses" and
#: "Special Action Queries"): an analysis, a terminated turn without results, an error, a
#: warning, or an action's echo.
RESPONSE_SCHEMA = {
    "oneOf": [
        {"type": "object", "required": ["id", "turnNumber", "isDuringSearch", "moveInfos", "rootInfo"],
         "properties": {"id": {"type": "string"}, "turnNumber": {"type": "integer", "minimum": 0},
                        "isDuringSearch": {"type": "boolean"}, "moveInfos": {"type": "array", "items": MOVE_INFO},
                        "rootInfo": ROOT_INFO,
                        "ownership": {"type": "array", "items": {"type": "number", "minimum": -1, "maximum": 1}},
                        "policy": {"type": "array", "items": NUMBER}}},
        {"type": "object", "required": ["id", "turnNumber", "isDuringSearch", "noResults"],
         "properties": {"isDuringSearch": {"const": False}, "noResults": {"const": True}},
         "not": {"required": ["moveInfos"]}},
        {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}, "field": {"type": "string"}},
         "not": {"required": ["moveInfos"]}},
        {"type": "object", "required": ["id", "warning", "field"],
         "properties": {"warning": {"type": "string"}, "field": {"type": "string"}}},
        {"type": "object", "required": ["id", "action"], "properties": {"action": {"type": "string"}},
         "not": {"required": ["moveInfos"]}},
    ],
}


def answers(lines: list[str], parallel: int = 1) -> list[dict]:
    out: list[str] = []
    serve(lines, out.append, parallel=parallel)
    responses = [json.loads(line) for line in out]
    for response in responses:
        jsonschema.validate(response, RESPONSE_SCHEMA)
    return responses


def test_katagos_example_query_in_margo_vertices_validates_and_warns_about_its_go_rules():
    # KataGo's documented example, on a 7x7 board: 2-D vertices are read on level 1
    example = {"id": "foo", "initialStones": [["B", "D4"], ["B", "C4"]], "moves": [["W", "B5"], ["B", "C5"]],
               "rules": "tromp-taylor", "komi": 7.5, "boardXSize": 7, "boardYSize": 7, "analyzeTurns": [0, 1, 2],
               "maxVisits": 30}
    responses = answers([json.dumps(example)])
    assert responses[0] == {"id": "foo", "field": "rules", "warning": "Go rules 'tromp-taylor' change nothing in "
                            "MarGo: its rules are the defaults of rules.md and the options given in a rules object"}
    assert [(r["turnNumber"], r["isDuringSearch"], r["rootInfo"]["visits"]) for r in responses[1:]] == [
        (0, False, 30), (1, False, 30), (2, False, 30)]
    # White to move at turns 0 and 2 with two balls fewer: a ball count of the playouts'
    # ends gave both the same scoreLead (5.925); the territory count tells them apart
    assert responses[1]["rootInfo"]["scoreLead"] != responses[3]["rootInfo"]["scoreLead"]
    example["moves"] = [["W", "B5:1"], ["B", "C5:1"]]
    example["initialStones"] = [["B", "D4:1"], ["B", "C4:1"]]
    assert answers([json.dumps(example)])[1:] == responses[1:]


def test_policy_and_ownership_arrays_follow_katagos_point_order_over_every_level():
    [response] = answers([json.dumps({"id": "p", "moves": [["W", "B2:1"]], "boardSize": 3, "maxVisits": 20,
                                      "includePolicy": True, "includeOwnership": True, "rules": {}})])
    order = [point.gtp() for point in katago_points(3)]
    assert order == ["A3:1", "B3:1", "C3:1", "A2:1", "B2:1", "C2:1", "A1:1", "B1:1", "C1:1",
                     "A2:2", "B2:2", "A1:2", "B1:2", "A1:3"]
    policy = response["policy"]
    assert len(policy) == len(order) + 1 and policy[-1] == -1  # pass is not allowed by default
    assert policy[order.index("B2:1")] == -1 and abs(sum(v for v in policy if v >= 0) - 1) < 1e-5
    assert len(response["ownership"]) == len(order)
    assert response["ownership"][order.index("B2:1")] < 0  # White's ball, Black to move


@pytest.mark.parametrize(("fields", "warning"), [
    ({"visits": 3}, {"field": "visits", "warning": "unknown field 'visits' is ignored"}),
    ({"rules": "japanese"}, {"field": "rules", "warning": "Go rules 'japanese' change nothing in MarGo: its rules "
                                                          "are the defaults of rules.md and the options given in a rules object"}),
    ({"rules": {"ko": "SIMPLE", "ko_rule": "simple"}}, {"field": "rules", "warning": "the Go rule ko='SIMPLE' changes nothing in MarGo"}),
    ({"rules": {"scoring": "AREA"}}, {"field": "rules", "warning": "the Go rule scoring='AREA' changes nothing in MarGo"}),
    ({"whiteHandicapBonus": "N"}, {"field": "whiteHandicapBonus", "warning": "whiteHandicapBonus is ignored: MarGo has no handicap stones"}),
    ({"overrideSettings": {"cpuctExploration": 2}}, {"field": "overrideSettings", "warning": "overrideSettings is ignored: MarGo has no config file settings to override"}),
    ({"priority": 3}, {"field": "priority", "warning": "priority is ignored: queries are searched in the order they come"}),
    ({"avoidMoves": []}, None),
])
def test_what_margo_cannot_honour_is_accepted_with_a_warning(fields, warning):
    query = {"id": "w", "moves": [["W", "C3"]], "boardSize": 5, "maxVisits": 10, **fields}
    responses = answers([json.dumps(query)])
    if warning is None:
        assert [r["turnNumber"] for r in responses] == [1]
        return
    assert responses[0] == {"id": "w", **warning}
    assert (responses[1]["id"], responses[1]["turnNumber"], len(responses)) == ("w", 1, 2)


@pytest.mark.parametrize(("fields", "error"), [
    ({"rules": {"size": 5}, "boardSize": 3}, "rules.size 5 and boardSize 3 differ: give one of them"),
    ({"rules": {"size": 5}, "boardSize": None, "boardXSize": 4, "boardYSize": 4}, "rules.size 5 and boardXSize 4 differ: give one of them"),
    ({"rules": {"komi": 2.5}, "komi": 1}, "rules.komi 2.5 and komi 1 differ: give one of them"),
    ({"rules": "go-please"}, "unknown rules: 'go-please' (KataGo's Go rules names are accepted with a warning; "
                             "MarGo's options go in an object, e.g. {\"ko_rule\": \"simple\"})"),
    ({"rules": 7}, "rules must be a rules name or an object of rule options, got 7"),
    ({"avoidMoves": [{"player": "B", "moves": ["C3"], "untilDepth": 0}]},
     "avoidMoves[0].untilDepth must be a whole number 1..1000000000, got 0"),
    ({"allowMoves": [{"player": "W", "moves": ["C3"], "untilDepth": 10**9 + 1}]},
     "allowMoves[0].untilDepth must be a whole number 1..1000000000, got 1000000001"),
    ({"avoidMoves": [{"player": "B", "moves": ["C3"], "untilDepth": True}]},
     "avoidMoves[0].untilDepth must be a whole number 1..1000000000, got True"),
    ({"allowMoves": [{"player": "B", "moves": ["A1", "B1"], "untilDepth": 1}],
      "avoidMoves": [{"player": "W", "moves": ["B1"], "untilDepth": 3}]},
     "allowMoves: cannot give both allowMoves and avoidMoves (KataGo refuses them together)"),
    ({"allowMoves": [], "avoidMoves": []},
     "allowMoves: cannot give both allowMoves and avoidMoves (KataGo refuses them together)"),
    ({"avoidMoves": [{"player": "B", "moves": ["C3"]}]},
     "avoidMoves[0] must be an object with player, moves and untilDepth, got {'player': 'B', 'moves': ['C3']}"),
    ({"avoidMoves": [{"player": "B", "moves": ["Z9"], "untilDepth": 1}]},
     "avoidMoves[0].moves[0]: vertex is off board: 'Z9' (board size 5)"),
    ({"allowMoves": [{"player": "B", "moves": ["C3"], "untilDepth": 1}] * 2},
     "allowMoves must hold one object at most, got 2"),
    ({"allowMoves": {"player": "B"}},
     'allowMoves must be a list of {"player", "moves", "untilDepth"} objects'),
    ({"includePolicy": 1}, "includePolicy must be true or false, got 1"),
    ({"reportDuringSearchEvery": 0}, "reportDuringSearchEvery must be a number of seconds above 0, got 0"),
    ({"komi": float("inf")}, "komi must be a number, got inf"),
])
def test_a_refused_query_gets_one_exact_line_and_the_engine_goes_on(fields, error):
    query = {"id": "r", "moves": [["W", "C3"]], "boardSize": 5, "maxVisits": 10, **fields}
    query = {key: value for key, value in query.items() if value is not None}
    responses = answers([json.dumps(query), json.dumps({"id": "next", "boardSize": 3, "maxVisits": 5})])
    assert responses[0] == {"id": "r", "error": error}
    assert [(r["id"], r["turnNumber"]) for r in responses[1:]] == [("next", 0)]


def move_set(fields: dict) -> set[str]:
    """The moves of the one answer to a 3x3 query after W B2:1 (Black to move: 8 legal moves)."""
    query = {"id": "m", "moves": [["W", "B2:1"]], "boardSize": 3, "maxVisits": 300, **fields}
    [response] = answers([json.dumps(query)])
    return {info["move"] for info in response["moveInfos"]}


EIGHT = {"A1:1", "B1:1", "C1:1", "A2:1", "C2:1", "A3:1", "B3:1", "C3:1"}


@pytest.mark.parametrize(("fields", "moves"), [
    ({}, EIGHT),
    ({"avoidMoves": [{"player": "B", "moves": ["A1", "C3:1"], "untilDepth": 1}]}, EIGHT - {"A1:1", "C3:1"}),
    ({"avoidMoves": [{"player": "B", "moves": ["A1"], "untilDepth": 1},
                     {"player": "B", "moves": ["B1"], "untilDepth": 1}]}, EIGHT - {"A1:1", "B1:1"}),
    ({"avoidMoves": [{"player": "W", "moves": ["A1"], "untilDepth": 1}]}, EIGHT),  # not White's turn
    ({"allowMoves": [{"player": "B", "moves": ["A1", "B1:1", "B2"], "untilDepth": 1}]}, {"A1:1", "B1:1"}),
    ({"allowMoves": [{"player": "B", "moves": ["A1", "B1"], "untilDepth": 1}], "avoidMoves": None}, {"A1:1", "B1:1"}),
    ({"avoidMoves": None}, EIGHT),
    ({"avoidMoves": [{"player": "B", "moves": ["A1"], "untilDepth": 3}]}, EIGHT - {"A1:1"}),
    ({"avoidMoves": [{"player": "W", "moves": ["A1", "B1", "C1"], "untilDepth": 4}]}, EIGHT),  # White's plies only
])
def test_avoid_and_allow_moves_leave_moves_out_at_the_root(fields, moves):
    assert move_set(fields) == moves


def test_moves_left_with_no_legal_move_answer_the_turn_with_an_error():
    query = {"id": "e", "moves": [["W", "B2:1"]], "boardSize": 3, "maxVisits": 20, "analyzeTurns": [0, 1],
             "allowMoves": [{"player": "B", "moves": ["B2"], "untilDepth": 1}]}
    responses = answers([json.dumps(query)])
    assert responses[1] == {"id": "e", "turnNumber": 1, "error": "allowMoves leaves B no legal move"}
    assert responses[0]["turnNumber"] == 0 and responses[0]["moveInfos"]  # White's turn: searched
    query["allowMoves"][0]["player"] = "W"  # White's turn 0 may play B2 alone; Black's turn 1 is free
    first, second = answers([json.dumps(query)])
    assert [info["move"] for info in first["moveInfos"]] == ["B2:1"] and first["moveInfos"][0]["visits"] == 20
    assert len(second["moveInfos"]) > 1


def pv_moves(fields: dict) -> list[list[str]]:
    """The ``pv`` of every move of the one answer to a 4x4 query after W B2:1 (Black to move)."""
    query = {"id": "p", "moves": [["W", "B2:1"]], "boardSize": 4, "maxVisits": 400, **fields}
    [response] = answers([json.dumps(query)])
    return [info["pv"] for info in response["moveInfos"]]


def test_avoid_moves_to_depth_three_keep_them_out_of_every_pv_for_that_player():
    """untilDepth 3: the first three plies from the root (Black's 1st and 3rd, White's 2nd
    here). The moves forbidden are those the free search's lines play there, so the test
    bites: with the rules, no line plays them at those plies for that player."""
    free = pv_moves({})
    black = {pv[k] for pv in free for k in (0, 2) if k < len(pv)}
    white = {pv[1] for pv in free if len(pv) > 1}
    black_forbidden, white_forbidden = sorted(black)[:4], sorted(white)[:4]
    assert sum(len(pv) >= 3 for pv in free) > 3 and black_forbidden and white_forbidden
    fields = {"avoidMoves": [{"player": "B", "moves": black_forbidden, "untilDepth": 3},
                             {"player": "W", "moves": white_forbidden, "untilDepth": 3}]}
    lines = pv_moves(fields)
    assert sum(len(pv) >= 3 for pv in lines) > 3
    for pv in lines:
        assert not {pv[k] for k in (0, 2) if k < len(pv)} & set(black_forbidden), pv
        assert len(pv) < 2 or pv[1] not in white_forbidden, pv
    # White's rule alone leaves Black's plies free: Black's lines play its moves again
    only_white = pv_moves({"avoidMoves": fields["avoidMoves"][1:]})
    assert any({pv[k] for k in (0, 2) if k < len(pv)} & set(black_forbidden) for pv in only_white)
    assert all(len(pv) < 2 or pv[1] not in white_forbidden for pv in only_white)


def test_allow_moves_to_depth_two_for_white_hold_on_whites_ply_only():
    allowed = ["A1:1", "D4:1", "A4:1", "D1:1"]
    lines = pv_moves({"allowMoves": [{"player": "W", "moves": allowed, "untilDepth": 2}]})
    assert len(lines) > 4 and sum(len(pv) >= 2 for pv in lines) > 2  # Black's root: every move
    assert all(pv[1] in allowed for pv in lines if len(pv) >= 2)


def test_the_root_score_lead_is_the_moves_scores_weighted_by_their_visits():
    """KataGo's rootInfo scoreLead is the root's mean score: with every move listed, the
    moves' scoreLead weighted by their visits (up to the 6-decimal rounding)."""
    query = {"id": "s", "moves": [["W", "B2:1"]], "boardSize": 3, "maxVisits": 300, "komi": 2.5}
    [response] = answers([json.dumps(query)])
    infos, root = response["moveInfos"], response["rootInfo"]
    assert sum(info["visits"] for info in infos) == root["visits"] == 300
    weighted = sum(info["visits"] * info["scoreLead"] for info in infos) / root["visits"]
    assert abs(weighted - root["scoreLead"]) < 2e-6 and root["scoreMean"] == root["scoreLead"]
    assert all(info["scoreMean"] == info["scoreLead"] and info["scoreStdev"] >= 0 for info in infos)
    assert len({info["scoreLead"] for info in infos}) > 1  # the moves differ


def test_agreeing_size_and_komi_fields_are_accepted():
    query = {"id": "a", "rules": {"size": 3, "komi": 1.5}, "boardSize": 3, "komi": 1.5, "maxVisits": 5}
    assert [r["turnNumber"] for r in answers([json.dumps(query)])] == [0]


@pytest.mark.parametrize(("line", "reply"), [
    ({"id": "v", "action": "query_version"}, {"id": "v", "action": "query_version", "version": "0.1.0", "git_hash": "<omitted>"}),
    ({"id": "c", "action": "clear_cache"}, {"id": "c", "action": "clear_cache"}),
    ({"id": "t", "action": "terminate", "terminateId": "nobody"}, {"id": "t", "action": "terminate", "terminateId": "nobody"}),
    ({"id": "t", "action": "terminate_all", "turnNumbers": [1]}, {"id": "t", "action": "terminate_all", "turnNumbers": [1]}),
    ({"id": "x", "action": "query_sizes"}, {"id": "x", "error": "unknown action: 'query_sizes' (known: query_version, clear_cache, terminate, terminate_all)"}),
    ({"id": "t", "action": "terminate"}, {"id": "t", "error": "terminate needs terminateId, the id of the query to stop, got None"}),
    ({"id": "t", "action": "terminate", "terminateId": "a", "turnNumbers": "1"},
     {"id": "t", "error": "turnNumbers must be a list of turn numbers, got '1'"}),
])
def test_special_actions_echo_the_query_as_katago_does(line, reply):
    assert answers([json.dumps(line)]) == [reply]


def test_reports_during_search_come_before_the_one_final_answer():
    query = {"id": "d", "moves": [["W", "C3:1"]], "boardSize": 5, "maxVisits": 100000,
             "reportDuringSearchEvery": 0.05}
    out: list[str] = []

    def lines():
        yield json.dumps(query)
        time.sleep(0.6)  # the search runs meanwhile, reporting
        yield json.dumps({"id": "stop", "action": "terminate", "terminateId": "d"})

    serve(lines(), out.append)
    responses = [json.loads(line) for line in out]
    for response in responses:
        jsonschema.validate(response, RESPONSE_SCHEMA)
    searching = [r for r in responses if r.get("isDuringSearch")]
    finals = [r for r in responses if r.get("isDuringSearch") is False]
    assert len(searching) >= 2 and len(finals) == 1
    assert responses[-1] == finals[0] and finals[0]["rootInfo"]["visits"] < 100000  # terminated early
    assert {"id": "stop", "action": "terminate", "terminateId": "d"} in responses
    visits = [r["rootInfo"]["visits"] for r in searching]
    assert visits == sorted(visits)


def test_a_terminated_turn_that_never_started_answers_no_results():
    query = {"id": "n", "moves": [["W", "C3:1"]], "boardSize": 5, "maxVisits": 100000, "analyzeTurns": [0, 1]}

    def lines():
        yield json.dumps(query)
        time.sleep(0.3)
        yield json.dumps({"id": "stop", "action": "terminate", "terminateId": "n"})

    out: list[str] = []
    serve(lines(), out.append)
    responses = [json.loads(line) for line in out]
    assert responses[0] == {"id": "stop", "action": "terminate", "terminateId": "n"}
    assert responses[1]["turnNumber"] == 0 and responses[1]["rootInfo"]["visits"] < 100000
    assert responses[2] == {"id": "n", "turnNumber": 1, "isDuringSearch": False, "noResults": True}


def test_a_reader_that_goes_away_ends_margo_analysis_quietly_and_promptly():
    """Issue 36, bug 9: 60 queued queries and the reader of the answers gone; no
    traceback, and not every queued search is run (each would take seconds)."""
    query = {"id": "g", "moves": [["W", "C3:1"]], "boardSize": 7, "maxVisits": 20000}
    lines = "".join(json.dumps({**query, "id": f"g{i}"}) + "\n" for i in range(60))
    # --player mcts: the timing below is mcts's (the first search, which meets the broken
    # pipe, takes seconds; the net's 20000 visits take longer on two busy cores)
    process = subprocess.Popen([str(BIN / "margo-analysis"), "--threads", "2", "--player", "mcts"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()  # the reader goes away before the first answer
    start = time.monotonic()
    try:
        _, stderr = process.communicate(lines, timeout=60)
    finally:
        process.kill()
    assert (process.returncode, stderr) == (0, "")
    # the first answer finds the pipe broken; the 59 other searches (over a minute here) are not run
    assert time.monotonic() - start < 30
