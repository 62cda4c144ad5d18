"""MCTS: determinism for a seed and playout budget, tree reuse, resignation, the three
steps' bookkeeping, the evaluators, estimates for final_score, and the bench figures."""

from __future__ import annotations

import random

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules, core_name
from margo_gtp.players import RESIGN, Budget, make_player
from margo_gtp.players.mcts import (
    PRIOR_HEURISTIC_VISITS,
    PRIOR_VALUE,
    MctsPlayer,
    Node,
    estimate,
    heuristic_evaluator,
    playout,
    territory_evaluator,
)
from margo_gtp.vertex import Point


def self_play(spec: str, size: int = 5, plies: int = 30, budget: Budget = Budget()) -> list[str]:
    """Moves of a self-play game by one player (with notify, so its tree is reused)."""
    board = Board(Rules(size=size))
    player = make_player(spec)
    player.reset(board)
    moves = []
    while len(moves) < plies and not board.is_game_over():
        choice = player.select_move(board, board.to_move, budget)
        if choice is RESIGN:
            moves.append("resign")
            break
        colour = board.to_move
        board.push(choice, colour)
        player.notify(board, choice, colour)
        moves.append(choice.gtp())
    return moves


@pytest.mark.parametrize("spec", [
    "mcts:playouts=60,seed=7",
    "mcts:playouts=60,seed=7,reuse=off,early_stop=off",
    "mcts:playouts=40,seed=7,eval=territory,playout_moves=10,prior_depth=-1",
])
def test_deterministic_for_seed_and_playout_budget(spec: str) -> None:
    first = self_play(spec)
    assert first == self_play(spec)
    assert len(first) == 30


def test_budget_playouts_replace_the_players_and_are_deterministic() -> None:
    assert self_play("mcts:seed=2", budget=Budget(playouts=50)) == self_play("mcts:seed=2", budget=Budget(playouts=50))


def test_runs_exactly_the_playout_budget_without_early_stop() -> None:
    player = MctsPlayer(random.Random(1), playouts=77, early_stop=False, reuse=False)
    board = Board(Rules(size=5))
    player.select_move(board, Colour.WHITE, Budget())
    assert player.last_simulations == 77
    assert player.root is not None and player.root.n == 77
    assert sum(child.n - player.prior_visits for child in player.root.children) == 77


def test_early_stop_never_changes_the_chosen_move() -> None:
    board = Board(Rules(size=5))
    for seed in range(4):
        eager = MctsPlayer(random.Random(seed), playouts=120, reuse=False)
        full = MctsPlayer(random.Random(seed), playouts=120, reuse=False, early_stop=False)
        assert eager.select_move(board, Colour.WHITE, Budget()) == full.select_move(board, Colour.WHITE, Budget())
        assert eager.last_simulations <= full.last_simulations == 120


def test_tree_is_reused_after_notify_and_dropped_otherwise() -> None:
    board = Board(Rules(size=5))
    # c_tree=False: the Python tree, whose nodes this test follows (test_native_search.py
    # compares the C tree's reuse with it)
    player = MctsPlayer(random.Random(3), playouts=200, early_stop=False, c_tree=False)
    move = player.select_move(board, Colour.WHITE, Budget())
    child = next(c for c in player.root.children if c.move == move)
    board.push(move)
    player.notify(board, move, Colour.WHITE)
    assert player.root is child and child.parent is None
    visits_before = child.n
    reply = player.select_move(board, Colour.BLACK, Budget())
    assert player.root is child and child.n == visits_before + 200
    # a move outside the tree (or any reset) drops it
    other = next(m for m in board.legal_moves() if m != reply)
    board.push(other)
    grandchild = next((c for c in child.children if c.move == other), None)
    player.notify(board, other, Colour.BLACK)
    assert player.root is grandchild
    player.reset(board)
    assert player.root is None


def test_search_for_the_colour_not_to_move() -> None:
    board = Board(Rules(size=4))
    board.push(Move.from_gtp("b2", 4))  # Black to move; ask for White
    player = MctsPlayer(random.Random(0), playouts=30)
    choice = player.select_move(board, Colour.WHITE, Budget())
    assert choice in board.legal_moves(Colour.WHITE)
    assert all(child.player == int(Colour.WHITE) for child in player.root.children)


def test_node_bookkeeping_after_backup() -> None:
    """Step 3: visits add up along the tree; wins are for the colour that moved."""
    board = Board(Rules(size=4))
    player = MctsPlayer(random.Random(5), playouts=50, early_stop=False, prior_depth=-1, expand_visits=1)
    root = player.search(board, Colour.WHITE, playouts=50)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.children:
            assert node.n >= sum(child.n for child in node.children)
            assert all(child.player == node.children[0].player for child in node.children)
            stack.extend(node.children)
        assert 0 <= node.w <= node.n and 0 <= node.rave_w <= node.rave_n
    assert root.player == int(Colour.BLACK)  # the root holds the colour of the last move


class Constant:
    """An injected evaluator: White's result is always ``value``."""

    def __init__(self, value: float) -> None:
        self.value = value

    def __call__(self, board: Board) -> float:
        return self.value


@pytest.mark.parametrize("white_result, resigner", [(0.0, Colour.WHITE), (1.0, Colour.BLACK)])
def test_resigns_when_the_evaluator_says_lost(white_result: float, resigner: Colour) -> None:
    board = Board(Rules(size=5))
    for colour in (Colour.WHITE, Colour.BLACK):
        player = MctsPlayer(random.Random(0), playouts=60, evaluator=Constant(white_result), resign=0.01,
                            resign_min_visits=50, prior_depth=-1, early_stop=False, resign_moves=1)
        choice = player.select_move(board, colour, Budget())
        assert (choice is RESIGN) == (colour is resigner)


def test_resignation_waits_for_several_low_moves_in_a_row_per_colour() -> None:
    board = Board(Rules(size=5))
    player = MctsPlayer(random.Random(0), playouts=60, evaluator=Constant(0.0), resign=0.01, resign_min_visits=50,
                        prior_depth=-1, early_stop=False, resign_moves=3, reuse=False)
    answers = [player.select_move(board, Colour.WHITE, Budget()) for _ in range(2)]
    assert all(answer is not RESIGN for answer in answers)
    assert player.select_move(board, Colour.BLACK, Budget()) is not RESIGN  # Black wins here: no streak
    assert player.select_move(board, Colour.WHITE, Budget()) is RESIGN  # White's third low move
    player.reset(board)  # a new position starts every streak afresh
    assert player.select_move(board, Colour.WHITE, Budget()) is not RESIGN


def test_resignation_off_and_min_visits_hold_it_back() -> None:
    board = Board(Rules(size=5))
    off = MctsPlayer(random.Random(0), playouts=60, evaluator=Constant(0.0), resign=0, prior_depth=-1)
    few = MctsPlayer(random.Random(0), playouts=60, evaluator=Constant(0.0), resign=0.01, resign_min_visits=61,
                     prior_depth=-1, early_stop=False)
    assert off.select_move(board, Colour.WHITE, Budget()) is not RESIGN
    assert few.select_move(board, Colour.WHITE, Budget()) is not RESIGN


def test_resignation_is_off_by_default_and_conservative_when_asked_for() -> None:
    player = make_player("mcts")
    assert player.resign == 0
    board = Board(Rules(size=5))
    hopeless = MctsPlayer(random.Random(0), playouts=60, evaluator=Constant(0.0), prior_depth=-1, early_stop=False)
    assert all(hopeless.select_move(board, Colour.WHITE, Budget()) is not RESIGN for _ in range(5))
    asked = make_player("mcts:resign=0.01")
    assert asked.resign == 0.01 and asked.resign_min_visits == 400 and asked.resign_moves == 3
    assert make_player("mcts:resign_moves=1").resign_moves == 1


def test_only_move_is_played_without_search() -> None:
    board = Board(Rules(size=2))
    board.setup({Point(0, 0): Colour.WHITE, Point(1, 0): Colour.BLACK, Point(0, 1): Colour.BLACK})
    moves = board.legal_moves()
    assert len(moves) == 1
    player = MctsPlayer(random.Random(0), playouts=100)
    assert player.select_move(board, board.to_move, Budget()) == moves[0]
    assert player.last_simulations == 0


def test_pass_when_no_legal_move() -> None:
    board = Board(Rules(size=2))
    board.random_playout(random.Random(1))
    assert board.is_game_over()
    assert MctsPlayer(random.Random(0), playouts=10).select_move(board, board.to_move, Budget()) is Move.PASS


def test_time_budget_with_a_fake_clock() -> None:
    """A seconds budget stops the search on the injected clock (1 ms per reading)."""
    ticks = [0.0]

    def clock() -> float:
        ticks[0] += 0.001
        return ticks[0]

    player = MctsPlayer(random.Random(0), clock=clock, early_stop=False)
    player.select_move(Board(Rules(size=5)), Colour.WHITE, Budget(seconds=0.05))
    assert 40 <= player.last_simulations <= 50
    capped = MctsPlayer(random.Random(0), clock=clock, seconds=0.02, early_stop=False)
    capped.select_move(Board(Rules(size=5)), Colour.WHITE, Budget(seconds=10))
    assert capped.last_simulations <= 20


def test_playout_results_and_evaluators() -> None:
    finished = Board(Rules(size=3))
    finished.random_playout(random.Random(2))
    outcome = finished.outcome()
    expected = 0.5 if outcome.winner is None else float(outcome.winner is Colour.WHITE)
    assert playout(finished.copy(), random.Random(0), 5) == expected
    board = Board(Rules(size=5))
    board.setup({Point(2, 2): Colour.WHITE})
    assert territory_evaluator(board) == 1.0
    assert heuristic_evaluator(board) > 0.9
    board.set_to_move(Colour.BLACK)
    assert heuristic_evaluator(Board(Rules(size=5))) == 0.5
    assert playout(board.copy(), random.Random(0), 0, Constant(0.25)) == 0.25


def test_estimate_of_a_finished_game_is_exact() -> None:
    board = Board(Rules(size=3))
    board.random_playout(random.Random(4))
    outcome = board.outcome()
    score, dead = estimate(board, 0.1, playouts=5)
    assert score == outcome.white_score - outcome.black_score
    assert dead == board.zombies()


def test_estimate_marks_a_captured_looking_ball_dead() -> None:
    # White's lone ball in Black's corner is lost in nearly every playout to the end
    board = Board(Rules(size=4))
    balls = {Point(0, 0): Colour.WHITE, Point(1, 0): Colour.BLACK, Point(0, 1): Colour.BLACK,
             Point(1, 1): Colour.BLACK, Point(2, 1): Colour.BLACK, Point(1, 2): Colour.BLACK}
    board.setup(balls, to_move=Colour.BLACK)
    score, dead = estimate(board, None, playouts=60)  # a playout budget, no clock
    assert Point(0, 0) in dead
    assert not set(dead) & {p for p, c in balls.items() if c is Colour.BLACK}
    assert score < 0
    assert estimate(board, None, playouts=60) == (score, dead)  # seeded


def test_analysis_lines_of_a_search() -> None:
    player = MctsPlayer(random.Random(0), playouts=80)
    root = player.search(Board(Rules(size=5)), Colour.WHITE, playouts=80)
    items = player.analysis(root)
    assert [item.order for item in items] == list(range(len(items)))
    assert [item.visits for item in items] == sorted((item.visits for item in items), reverse=True)
    assert all(item.pv[0] == item.move and 0 <= item.winrate <= 1 for item in items)


def test_node_repr_and_size() -> None:
    root = Node(None, 1, -1, None)
    assert repr(root) == "<Node root n=0 w=0 rave=0/0>"
    root.children = [Node(Move(Point(0, 0)), 0, 0, root)]
    assert root.size() == 2


def test_the_python_tree_pays_for_the_score_sums_only_in_a_tree_that_counts_them() -> None:
    """Issue 33: a search nobody asks scores of builds plain Nodes, 24 bytes smaller, whose
    sums read as none counted and cannot be written; once a search asks, the tree is of
    ScoredNodes throughout, and stays so for the player's later searches of it."""
    import sys

    from margo_gtp.players.searcher import ScoredNode

    def kinds(root: Node) -> set[type]:
        found, stack = set(), [root]
        while stack:
            node = stack.pop()
            found.add(type(node))
            stack.extend(node.children or [])
        return found

    assert sys.getsizeof(ScoredNode(None, 1, -1, None)) - sys.getsizeof(Node(None, 1, -1, None)) == 24
    board = Board(Rules(size=5))
    player = MctsPlayer(random.Random(4), c_tree=False, early_stop=False)
    plain = player.search(board, board.to_move, playouts=60)
    assert kinds(plain) == {Node} and plain.size() > 20
    assert (plain.score_sum, plain.score_sq, plain.scored, plain.score_mean(), plain.score_stdev()) == (
        0.0, 0.0, 0, None, None)
    with pytest.raises(AttributeError, match="read-only"):
        plain.score_sum = 1.0
    player.search(board, board.to_move, playouts=50, scores=True)
    again = player.search(board, board.to_move, playouts=40)  # the player now counts them in every search
    assert kinds(again) == {ScoredNode} and again.scored == again.n == 90


def test_benchmark_reports_the_bench_keys() -> None:
    from margo_gtp.players.mcts import benchmark

    figures = benchmark(seconds=0.05)
    assert figures["mcts_sims_per_s_9x9_empty"] > 0 and figures["mcts_sims_per_s_9x9_midgame"] > 0
    assert 100 < figures["mcts_bytes_per_node"] < 2000
    from margo_gtp.players import native_search

    threads2 = figures["mcts_sims_per_s_9x9_midgame_threads2"]  # two threads on the C tree, when it runs
    assert (threads2 > 0) if native_search.available() and core_name() == "native" else threads2 is None
    if threads2 is not None:  # the C node of the searches timed: no score sums (an analysis adds them beside)
        from margo_gtp.players import _search

        assert figures["mcts_c_tree_bytes_per_node"] == _search.NODE_BYTES == 64
        assert native_search.node_bytes() == _search.NODE_BYTES + _search.SCORE_BYTES == 88  # what the caps count


def test_a_reused_tree_gets_the_priors_a_fresh_search_gives() -> None:
    # Priors go to nodes within prior_depth (1) of the root. A node two plies down was
    # expanded without them; when tree reuse makes it the root, it must get them, or the
    # reused search is weaker than a fresh one (it lost 3/0/14 at 0.25 s on 9x9).
    board = Board(Rules(size=5))
    player = MctsPlayer(random.Random(3), playouts=600, early_stop=False, c_tree=False)  # the Python tree's nodes
    player.select_move(board, Colour.WHITE, Budget())
    first = max(player.root.children, key=lambda child: child.n)
    second = max(first.children, key=lambda child: child.n)
    assert second.children and not second.primed
    assert all(child.prior == PRIOR_VALUE for child in second.children)
    own = {child.move: (child.n, child.w) for child in second.children}
    for move, colour in ((first.move, Colour.WHITE), (second.move, Colour.BLACK)):
        board.push(move)
        player.notify(board, move, colour)
    assert player.root is second
    player.search(board, Colour.WHITE, playouts=0)  # no simulation: only the priming
    fresh = MctsPlayer(random.Random(3)).search(board, Colour.WHITE, playouts=0)
    priors = {child.move: child.prior for child in fresh.children}
    assert len(priors) > 1 and len(set(priors.values())) > 1
    assert {child.move: child.prior for child in second.children} == priors
    for child in second.children:  # the prior's virtual visits are added to the child's own
        n, w = own[child.move]
        assert child.n == n + PRIOR_HEURISTIC_VISITS
        assert child.w == pytest.approx(w + child.prior * PRIOR_HEURISTIC_VISITS)
    deeper = [child for child in second.children if child.children]
    assert deeper and all(child.primed for child in deeper)
    assert all(grandchild.prior != PRIOR_VALUE for child in deeper if len(child.children) > 1 for grandchild in child.children)
    assert not any(grandchild.primed for child in deeper for grandchild in child.children)  # depth 2: no priors
