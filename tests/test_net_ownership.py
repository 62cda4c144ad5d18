"""The net player's ownership and score, read from its heads as KataGo reads its own: the
root's ownership is the mean, over the search's simulations, of the ownership head at the
node each one evaluated; every consumer of the mcts player's ownership reads it unchanged
(``ownership true`` on GTP, ``margo-ownership``, ``margo-analysis``'s ``includeOwnership``).
Everything here runs the shipped 7x7 and 9x9 weights."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from margo_gtp.analysis.analysis_json import serve
from margo_gtp.analysis.game_analysis import analyse_position, katago_ownership, katago_points, root_info
from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.net import NetEvaluator, NetPlayer, NetSearch, board_points
from margo_gtp.players.net_features import encoding_for, final_ownership, global_features, point_features
from margo_gtp.players.ownership import Ownership
from margo_gtp.protocol.analysis import install
from margo_gtp.protocol.gtp import run_gtp_session
from margo_gtp.protocol.session import make_gtp_engine
from margo_gtp.vertex import gtp_order

SHIPPED = Path(__file__).resolve().parent.parent / "margo_gtp" / "players" / "data"
OPENINGS = {7: "d4 c3 e5 c5", 9: "e5 d4 f6 c7 d6"}


def weights(size: int) -> Path:
    return SHIPPED / f"net-{size}x{size}.onnx"


def board_after(size: int, moves: str) -> Board:
    board = Board(Rules(size=size))
    for text in moves.split():
        board.push(Move.from_gtp(text, size))
    return board


def onnx_heads(size: int, board: Board) -> tuple[np.ndarray, float]:
    """The ownership head (White's view: +1 White's) and the score head (the colour to
    move's lead, in points) at ``board``, from ONNX Runtime's own session of the file:
    not through NetEvaluator."""
    session = onnxruntime.InferenceSession(weights(size).read_bytes(), providers=["CPUExecutionProvider"])
    mover = board.to_move
    planes = encoding_for("levels", size).planes(point_features(board, mover)[None],
                                                 global_features(board, mover)[None])
    _policy, _value, ownership, score = session.run(None, {"planes": planes})
    sign = 1.0 if mover == Colour.WHITE else -1.0
    return sign * ownership[0].astype(np.float64), float(score[0, 0]) * board_points(size)


def leaf_ownership_mean(evaluator: NetEvaluator, root, board: Board) -> np.ndarray:
    """The root's ownership computed again from the tree's visit counts alone: each node's
    position replayed from the root and evaluated afresh, weighted by the visits that
    ended there (its visits less its children's), summed and divided by the root's."""
    total = np.zeros(board.geometry.count, np.float64)
    stack = [(root, board.copy())]
    while stack:
        node, position = stack.pop()
        below = 0
        for i, child in enumerate(node.children):
            if child is not None and child.n:
                below += child.n
                after = position.copy()
                after.push(node.moves[i], Colour(node.to_move))
                stack.append((child, after))
        ended = node.n - below
        if not ended:
            continue
        if position.is_game_over():
            owner = final_ownership(position)[0].astype(np.float64)
        else:
            mover = position.to_move
            _, _, ownership, _ = evaluator.evaluate(point_features(position, mover)[None],
                                                    global_features(position, mover)[None])
            owner = (1.0 if mover == Colour.WHITE else -1.0) * ownership[0].astype(np.float64)
        total += ended * owner
    return total / root.n


@pytest.mark.parametrize("size", [7, 9])
def test_a_one_visit_search_reports_the_ownership_and_score_heads_at_the_root(size: int) -> None:
    board = board_after(size, OPENINGS[size])
    mover = board.to_move
    player = NetPlayer([weights(size)])
    counts = Ownership(board.geometry.points)
    player.ownership = counts
    root = player.search(board, mover, playouts=0)  # the root's own evaluation: one visit
    assert root.n == 1
    head, score = onnx_heads(size, board)
    tree = player.search_for(board)
    assert np.abs(tree.ownership(tree.root) - head).max() < 1e-5
    shares = counts.probabilities()
    reported = np.array([shares[point][0] - shares[point][1] for point in board.geometry.points])
    assert np.abs(reported - head).max() < 1e-5
    # the GTP/JSON layout: the mover's view, in katago_points order, 4 decimals
    sign = 1.0 if mover == Colour.WHITE else -1.0
    index = board.geometry.index
    expected = [round(sign * head[index[point]], 4) for point in katago_points(size)]
    assert np.abs(np.array(katago_ownership(counts, size, mover)) - expected).max() <= 1.01e-4
    # the root's scoreLead is the score head's (a share of the points, times them), for the
    # colour to move (mcts's sign): the head's output to 1e-5
    assert abs(root_info(player, root, mover)["scoreLead"] - score) < 1e-5 * board_points(size)


@pytest.mark.parametrize("size", [7, 9])
def test_the_ownership_is_the_visit_weighted_mean_over_the_tree(size: int) -> None:
    board = board_after(size, OPENINGS[size])
    mover = board.to_move
    evaluator = NetEvaluator(weights(size))
    search = NetSearch(evaluator)
    root = search.search(board, mover, playouts=48)
    assert root.n == 49 and sum(child.n for child in root.children if child is not None) == 48
    reported = search.ownership(root)
    independent = leaf_ownership_mean(evaluator, root, board)
    assert np.abs(reported - independent).max() < 1e-5
    # it differs from the root's own head output: the search's visits are in it
    assert np.abs(reported - onnx_heads(size, board)[0]).max() > 1e-3


@pytest.mark.parametrize("threads", [1, 2])
def test_the_sum_kept_while_a_search_runs_is_the_tree_sum(threads: int) -> None:
    """Asked for during the search (a stream's reports), the ownership is then kept up to
    date simulation by simulation, by every search thread: at the end it is what summing
    the whole tree gives."""
    board = board_after(7, OPENINGS[7])
    evaluator = NetEvaluator(weights(7))
    search = NetSearch(evaluator, threads=threads)
    seen: list[int] = []

    def report(root) -> None:
        search.ownership(root)
        seen.append(root.n)

    root = search.search(board, board.to_move, playouts=64, on_progress=report, interval=0.0)
    assert len(seen) >= 2 and seen[0] < root.n
    kept = search.ownership(root)
    search._owned = None  # noqa: SLF001 - force the sum over the whole tree
    assert np.abs(kept - search.ownership(root)).max() < 1e-9
    assert np.abs(kept - leaf_ownership_mean(evaluator, root, board)).max() < 1e-5


def near_the_end(size: int, seed: int, moves_left: int) -> Board:
    """A random game of ``size`` from the opening, taken back ``moves_left`` moves before its end."""
    board = board_after(size, OPENINGS[size])
    rng = random.Random(seed)
    while not board.is_game_over():
        board.push(rng.choice(board.legal_moves()))
    for _ in range(moves_left):
        board.pop()
    return board


def test_finished_games_in_the_tree_count_their_exact_owners_every_visit() -> None:
    """A finished game met by the search counts the owners the head was trained on
    (final_ownership), once for every visit that ends there."""
    board = near_the_end(7, 2, 3)
    evaluator = NetEvaluator(weights(7))
    search = NetSearch(evaluator)
    root = search.search(board, board.to_move, playouts=40)
    finished, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.terminal is not None:
            finished.append(node)
        stack.extend(child for child in node.children if child is not None and child.n)
    assert finished and any(node.n > 1 for node in finished)
    assert np.abs(search.ownership(root) - leaf_ownership_mean(evaluator, root, board)).max() < 1e-5


def test_the_finished_ownership_of_a_net_size_is_the_training_target() -> None:
    board = board_after(7, OPENINGS[7])
    rng = random.Random(2)
    while not board.is_game_over():
        board.push(rng.choice(board.legal_moves()))
    player = NetPlayer([weights(7)])
    result = analyse_position(board, 10, ownership=True, player=player, layout="katago")
    owner = final_ownership(board)[0]
    sign = 1 if board.to_move == Colour.WHITE else -1
    index = board.geometry.index
    assert result["ownership"] == [float(sign * owner[index[point]]) for point in katago_points(7)]


# -- GTP ----------------------------------------------------------------------------------


def gtp(engine, lines: list[str]) -> str:
    out = io.StringIO()
    run_gtp_session(engine, io.StringIO("".join(line + "\n" for line in lines)), out)
    return out.getvalue()


def net_engine(size: int = 7):
    engine = make_gtp_engine(MctsPlayer(random.Random(0)), Rules(size=size))
    install(engine, engine.session)
    engine.session.player = NetPlayer([weights(size)])  # the session's player is read per command
    return engine


def test_ownership_true_with_the_net_player_answers_its_averaged_head() -> None:
    """Refused before (``? syntax error``): the snapshot now ends with the ownership line,
    one value a point of the pyramid for the colour analysed, the net's averaged head."""
    answer = gtp(net_engine(), ["play w d4", "margo-set_limit playouts=24", "margo-analyze_snapshot b ownership true"])
    assert answer.startswith("=\n\n=\n\n= \ninfo move ") and answer.endswith("\n\n")
    lines = answer[len("=\n\n=\n\n= \n"):-2].split("\n")
    assert all(line.startswith("info move ") for line in lines[:-1])
    words = lines[-1].split()
    assert words[0] == "ownership" and len(words) == 1 + 140  # 49 + 36 + 25 + 16 + 9 + 4 + 1 points
    # the same search by hand: 24 simulations from the same position, Black's view
    board = board_after(7, "d4")
    search = NetSearch(NetEvaluator(weights(7)))
    root = search.search(board, Colour.BLACK, playouts=24)
    values = -search.ownership(root)
    index = board.geometry.index
    assert lines[-1] == "ownership " + " ".join(f"{round(values[index[p]], 4):.4f}" for p in katago_points(7))


def test_margo_ownership_with_the_net_player_answers_every_point_from_its_head() -> None:
    engine = net_engine()
    answer = gtp(engine, ["play w d4", "margo-set_limit playouts=16", "margo-ownership"])
    assert answer.startswith("=\n\n=\n\n= ") and answer.endswith("\n\n")
    lines = answer[len("=\n\n=\n\n= "):-2].split("\n")
    board = board_after(7, "d4")
    points = sorted(board.geometry.points, key=gtp_order)
    assert [line.split()[0] for line in lines] == [Move(point).gtp() for point in points]
    search = NetSearch(NetEvaluator(weights(7)))
    values = search.ownership(search.search(board, Colour.BLACK, playouts=16))  # White's view
    index = board.geometry.index
    expected = []
    for point in points:  # margo-ownership's value: Black's share less White's, 3 decimals
        white, black = max(values[index[point]], 0.0), max(-values[index[point]], 0.0)
        expected.append(f"{Move(point).gtp()} {round(black, 3) - round(white, 3):.3f}")
    assert lines == expected


# -- margo-analysis -------------------------------------------------------------------------


def test_margo_analysis_with_the_net_player_gives_katagos_flat_ownership() -> None:
    query = {"id": "n", "moves": [["W", "D4:1"], ["B", "C3:1"]], "boardSize": 7, "maxVisits": 20,
             "includeOwnership": True, "analyzeTurns": [2]}
    answers: list[str] = []
    assert serve([json.dumps(query)], answers.append, parallel=1, player="net")
    (answer,) = [json.loads(line) for line in answers]
    assert answer["turnNumber"] == 2 and answer["rootInfo"]["currentPlayer"] == "W"
    ownership = answer["ownership"]
    assert isinstance(ownership, list) and len(ownership) == len(katago_points(7)) == 140
    assert all(isinstance(value, float) and -1 <= value <= 1 for value in ownership)
    # a fresh net search of the turn: the same answer again, and the one a NetSearch gives
    again: list[str] = []
    serve([json.dumps(query)], again.append, parallel=1, player="net")
    assert again == answers
    board = board_after(7, "d4 c3")
    search = NetSearch(NetEvaluator(weights(7)))
    values = search.ownership(search.search(board, Colour.WHITE, playouts=20))  # White to move: White's view
    index = board.geometry.index
    assert ownership == [round(values[index[point]], 4) for point in katago_points(7)]


def test_a_review_with_the_net_player_maps_its_averaged_ownership() -> None:
    """margo-review --player net (review_game's ``player``): each entry's ownership map is
    the net's, split into shares as set_expected says (White max(v, 0), Black max(-v, 0))."""
    from margo_gtp.analysis.game_review import review_game
    from margo_gtp.sgf import SgfRecord

    board = board_after(7, "d4 c3")
    record = SgfRecord(rules=Rules(size=7), moves=[(colour, move) for colour, move in board.history])
    entries = list(review_game(record, 12, ownership=True, player="net"))
    assert [entry["move"] for entry in entries] == ["D4:1", "C3:1"]
    search = NetSearch(NetEvaluator(weights(7)))
    values = search.ownership(search.search(board, board.to_move, playouts=12))  # the position after C3:1
    index = board.geometry.index
    expected = {Move(point).gtp(): [round(max(values[index[point]], 0.0), 3), round(max(-values[index[point]], 0.0), 3),
                                    round(1.0 - abs(values[index[point]]), 3)]
                for point in sorted(board.geometry.points, key=gtp_order)}
    assert entries[-1]["ownership"] == expected
