"""The analysis programs search with margo-gtp's default player (issue 34 item 4, issue 35
item 1): ``margo-analysis``, ``margo-review`` and the web board's review default to
``strongest`` -- the shipped network where it plays, the fresh seeded ``mcts`` of
``--player mcts`` elsewhere -- and where the net searches, every ``prior`` they and
``margo-analyze`` show is the policy's probability, checked here against ONNX Runtime's
own session of the shipped file (not through NetEvaluator), to 1e-5."""

from __future__ import annotations

import asyncio
import io
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from margo_gtp.analysis import game_analysis
from margo_gtp.analysis.analysis_json import serve
from margo_gtp.analysis.game_analysis import DEFAULT_PLAYER, fresh_player, katago_points, mcts_instead
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import levels
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.net import NetPlayer
from margo_gtp.players.net_features import encoding_for, global_features, point_features
from margo_gtp.players.net_spec import shipped_weights
from margo_gtp.sgf import SgfRecord
from margo_gtp.protocol.analysis import install, parse_info
from margo_gtp.protocol.gtp import run_gtp_session
from margo_gtp.protocol.session import make_gtp_engine
from margo_gtp.web import review_mode

BIN = Path(sys.executable).parent
SHIPPED = Path(__file__).resolve().parent.parent / "margo_gtp" / "players" / "data"
QUERY = {"id": "p", "moves": [["W", "D4:1"], ["B", "C3:1"]], "boardSize": 7, "maxVisits": 40,
         "analyzeTurns": [2], "includePolicy": True}


def board_after(size: int, moves: str) -> Board:
    board = Board(Rules(size=size))
    for text in moves.split():
        board.push(Move.from_gtp(text, size))
    return board


def onnx_policy(board: Board) -> dict[str, float]:
    """Each legal move's policy probability at ``board`` for the colour to move: the policy
    head's logits of ONNX Runtime's own session of the shipped file, soft-maxed over the
    legal moves (placements at their point's index, then pass, then swap)."""
    size = board.size
    session = onnxruntime.InferenceSession((SHIPPED / f"net-{size}x{size}.onnx").read_bytes(),
                                           providers=["CPUExecutionProvider"])
    mover = board.to_move
    planes = encoding_for("levels", size).planes(point_features(board, mover)[None], global_features(board, mover)[None])
    logits = session.run(None, {"planes": planes})[0][0].astype(np.float64)
    count = board.geometry.count
    index = board.geometry.index
    moves = board.legal_moves(mover)
    chosen = np.array([count + 1 if move.is_swap else count if move.is_pass else index[move.point] for move in moves])
    shares = np.exp(logits[chosen] - logits[chosen].max())
    shares /= shares.sum()
    return {move.gtp(): float(share) for move, share in zip(moves, shares)}


def answer_of(query: dict, player: str | None) -> dict:
    answers: list[str] = []
    assert serve([json.dumps(query)], answers.append, parallel=1, player=player)
    (answer,) = answers
    return json.loads(answer)


def test_the_default_is_strongest_and_plays_the_net_where_a_network_ships() -> None:
    assert DEFAULT_PLAYER == "strongest"
    assert isinstance(fresh_player(DEFAULT_PLAYER, Board(Rules(size=7))), NetPlayer)
    # elsewhere, and for mcts: None, the fresh mcts seeded per turn of analyse_position
    assert fresh_player(DEFAULT_PLAYER, Board(Rules(size=5))) is None
    assert fresh_player("mcts", Board(Rules(size=7))) is None
    assert mcts_instead(DEFAULT_PLAYER, 5) == "no network for 5x5 (weights for 7x7, 9x9)"
    assert mcts_instead(DEFAULT_PLAYER, 9) is None and mcts_instead("mcts", 5) is None and mcts_instead("net", 5) is None


def test_margo_analysis_priors_are_the_policys_probabilities_where_the_net_searches() -> None:
    answer = answer_of(QUERY, DEFAULT_PLAYER)
    policy = onnx_policy(board_after(7, "d4 c3"))
    infos = answer["moveInfos"]
    assert len(infos) >= 3
    for info in infos:
        assert info["prior"] == pytest.approx(policy[info["move"]], abs=1e-5), info["move"]
    # includePolicy: the same probabilities over every point, in KataGo's order, then pass (-1: illegal)
    expected = [policy.get(Move(point).gtp(), -1.0) for point in katago_points(7)] + [policy.get("pass", -1.0)]
    assert answer["policy"] == pytest.approx(expected, abs=1e-5)
    # strongest is the net here: the same answer as --player net
    assert answer == answer_of(QUERY, "net")


def test_player_mcts_is_the_fresh_seeded_mcts_that_was_the_default() -> None:
    """--player mcts gives exactly the answers of the search before strongest became the
    default (serve's own default, None); the mcts prior stays the normalised heuristic."""
    query = {**QUERY, "includePolicy": False, "includeOwnership": True}
    mcts = answer_of(query, "mcts")
    assert mcts == answer_of(query, None)
    assert mcts["moveInfos"] != answer_of(query, DEFAULT_PLAYER)["moveInfos"]


def test_without_the_net_extra_strongest_is_the_fresh_seeded_mcts(monkeypatch) -> None:
    monkeypatch.setattr(levels, "_net_runtime_missing", lambda: "onnxruntime is not installed")
    monkeypatch.setattr(game_analysis, "_PLAYERS", {})  # this process built its strongest with the net
    assert fresh_player(DEFAULT_PLAYER, Board(Rules(size=7))) is None
    assert mcts_instead(DEFAULT_PLAYER, 5) is None  # a missing optional package is no fault: nothing said
    query = {**QUERY, "includePolicy": False}
    assert answer_of(query, DEFAULT_PLAYER) == answer_of(query, "mcts")


def test_margo_analysis_without_player_answers_with_the_net_on_7x7_and_mcts_on_3x3() -> None:
    small = {"id": "s", "moves": [["W", "B2:1"]], "boardSize": 3, "maxVisits": 30}
    text = "".join(json.dumps(query) + "\n" for query in (QUERY, small))
    done = subprocess.run([str(BIN / "margo-analysis"), "--threads", "1"], input=text, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    net, mcts = (json.loads(line) for line in done.stdout.splitlines())
    assert net == answer_of(QUERY, "net")
    assert mcts == answer_of(small, "mcts")


def test_margo_analyze_priors_are_the_policys_probabilities_with_the_net_session_player() -> None:
    """margo-gtp's default on 7x7 is the net: its info lines' prior (4 decimals) is the
    policy's, and so is each root child's prior in the tree it grew (to 1e-5)."""
    player = NetPlayer(shipped_weights(), random.Random(0))
    engine = make_gtp_engine(player, Rules(size=7))
    install(engine, engine.session)
    script = "play w d4\nplay b c3\nmargo-set_limit playouts=40\nmargo-analyze_snapshot w\n"
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO(script), out)
    answer = out.getvalue()
    assert answer.startswith("=\n\n=\n\n=\n\n= \ninfo move ") and answer.endswith("\n\n")
    infos = [parse_info(line) for line in answer[len("=\n\n=\n\n=\n\n= \n"):-2].split("\n")]
    policy = onnx_policy(board_after(7, "d4 c3"))
    assert len(infos) >= 3
    for info in infos:
        assert info["prior"] == pytest.approx(policy[info["move"]], abs=5e-5 + 1e-9), info  # printed to 4 decimals
    children = player.root.children
    assert len(children) == len(policy)
    for child in children:
        assert child.prior == pytest.approx(policy[child.move.gtp()], abs=1e-5)


def test_the_heuristic_prior_stays_with_the_mcts_player() -> None:
    """What the net changed is the net's: an mcts session player's info prior is still the
    heuristic's win rate (0.9 for its favourite, not a probability summing to 1)."""
    engine = make_gtp_engine(MctsPlayer(random.Random(0)), Rules(size=7))
    install(engine, engine.session)
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO("play w d4\nmargo-set_limit playouts=60\nmargo-analyze_snapshot b\n"), out)
    priors = [parse_info(line)["prior"] for line in out.getvalue().split("\n") if line.startswith("info ")]
    assert max(priors) == 0.9


def test_the_web_boards_review_searches_with_the_default() -> None:
    """The review run by the web board is margo-review's default: on 7x7 the net's entries
    (the same as review_game with --player net), each sent to the page as it comes."""
    from margo_gtp.analysis.game_review import review_game

    record = SgfRecord(rules=Rules(size=7), moves=[(Colour.WHITE, Move.from_gtp("D4:1", 7)),
                                                   (Colour.BLACK, Move.from_gtp("C3:1", 7))])

    class Replay:
        plies = 2
        replay_id = "r"
        review_entries: list = []

    Replay.record = record
    sent: list = []

    async def run() -> None:
        async def send(message: dict) -> None:
            sent.append(message)

        await review_mode.ReviewRunner().start(Replay(), 30, send)

    asyncio.run(run())
    assert sent[-1]["done"] is True and "error" not in sent[-1]
    entries = [entry for message in sent for entry in message["entries"]]
    expected = review_game(record, 30, seed=0, ownership=True, seconds=review_mode.SECONDS_PER_POSITION, player="net")
    assert entries == [review_mode.page_entry(entry) for entry in expected]
    assert entries != [review_mode.page_entry(entry) for entry in review_game(record, 30, seed=0, ownership=True)]
