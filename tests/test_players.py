"""Every built-in player returns only legal moves, over many random positions and every
combination of its options, and never changes the board it is given.

Positions come from seeded random games on small boards under several rule sets
(situational/simple/no ko, passing allowed, swap on, all freedoms, the ``illegal`` own
group rule, max_level 1), stopped at several depths, for both colours (GTP lets a
controller ask for either side). The search budgets are tiny (a few playouts) to keep
the whole module fast; what is checked does not depend on the budget.
"""

from __future__ import annotations

import itertools
import random

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import RESIGN, Budget, PlayerSpecError, make_player
from margo_gtp.players.heuristic import HeuristicPlayer, group_report
from margo_gtp.players.spec import OPTIONS as MCTS_OPTIONS

RULE_SETS = [
    {"size": "4"},
    {"size": "3", "ko_rule": "simple"},
    {"size": "4", "allow_pass": "on"},
    {"size": "3", "swap": "on"},
    {"size": "4", "all_freedoms": "on", "ko_rule": "none"},
    {"size": "4", "own_freedomless_group": "illegal", "bridge_cutting": "off"},
    {"size": "5", "max_level": "1", "first_player": "black", "komi": "0.5"},
]


def random_positions(count_per_rules: int = 4, seed: int = 11) -> list[tuple[str, Board]]:
    """Seeded random positions (label, board), including some finished games."""
    rng = random.Random(seed)
    out = []
    for index, options in enumerate(RULE_SETS):
        rules = Rules().with_options(options)
        for k in range(count_per_rules):
            board = Board(rules)
            depth = [1, 7, 25, 400][k % 4]
            board.random_playout(rng, max_moves=depth)
            out.append((f"rules{index}-ply{len(board.history)}", board))
    return out


POSITIONS = random_positions()

MCTS_OPTION_GRID = {
    "eval": ["heuristic", "territory"],
    "playout_moves": ["0", "3", "-1"],
    "prior_depth": ["-1", "1"],
    "reuse": ["on", "off"],
    "expand": ["1", "2"],
}


def mcts_specs() -> list[str]:
    keys = list(MCTS_OPTION_GRID)
    specs = []
    for values in itertools.product(*(MCTS_OPTION_GRID[key] for key in keys)):
        options = ",".join(f"{key}={value}" for key, value in zip(keys, values))
        early_stop = "on" if len(specs) % 2 else "off"
        specs.append(f"mcts:playouts=6,seed=3,{options},early_stop={early_stop}")
    return specs


SPECS = ["random", "random:seed=5", "heuristic", "heuristic:seed=2", *mcts_specs(),
         "mcts:playouts=6,resign=0.99,resign_visits=1", "mcts:seconds=0.01,seed=1"]


def check_choice(board: Board, colour: Colour, choice: object) -> None:
    legal = board.legal_moves(colour)
    if not legal:
        assert choice is Move.PASS
    elif choice is not RESIGN:
        assert choice in legal, f"{choice!r} not legal for {colour.name}"


@pytest.mark.parametrize("number, spec", list(enumerate(SPECS)), ids=SPECS)
def test_player_returns_only_legal_moves(number: int, spec: str) -> None:
    player = make_player(spec)
    # the mcts grid is large: each spec sees a different third of the positions
    positions = POSITIONS if not spec.startswith("mcts") else POSITIONS[number % 3::3]
    for label, board in positions:
        player.reset(board)
        for colour in (Colour.WHITE, Colour.BLACK):
            before = board.copy()
            choice = player.select_move(board, colour, Budget(playouts=6) if spec.startswith("mcts:seconds") else Budget())
            assert board == before and board.zobrist_key == before.zobrist_key, label
            check_choice(board, colour, choice)


@pytest.mark.parametrize("spec", ["random:seed=1", "heuristic:seed=1", "mcts:playouts=8,seed=1",
                                  "mcts:playouts=8,seed=1,reuse=off,eval=territory,playout_moves=5"])
@pytest.mark.parametrize("options", RULE_SETS[:5], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_player_plays_whole_games_legally(spec: str, options: dict[str, str]) -> None:
    """Self-play to the end with notify after every move (tree reuse is exercised)."""
    board = Board(Rules().with_options(options))
    player = make_player(spec)
    player.reset(board)
    for _ in range(300):
        if board.is_game_over():
            break
        colour = board.to_move
        choice = player.select_move(board, colour, Budget())
        check_choice(board, colour, choice)
        if choice is RESIGN:
            break
        assert isinstance(choice, Move)
        if choice.is_pass and not board.is_legal(choice, colour):
            break
        board.push(choice, colour)
        player.notify(board, choice, colour)
    assert board.is_game_over() or choice is RESIGN or len(board.history) == 300


@pytest.mark.parametrize(
    "spec, message",
    [
        ("heuristic:depth=2", "unknown option(s) for player 'heuristic': depth"),
        ("mcts:depth=2", f"unknown option for player 'mcts': 'depth' (known: {', '.join(MCTS_OPTIONS)}, seed)"),
        ("mcts:playouts=x", "player option playouts must be a whole number >= 1: 'x'"),
        ("mcts:playouts=0", "player option playouts must be a whole number >= 1: '0'"),
        ("random:seed=1,seed=2", "player option seed given twice in spec 'random:seed=1,seed=2'"),
        ("mcts:prior_temp=0", "player option prior_temp must be a finite number > 0: '0'"),
        ("mcts:resign=2", "player option resign must be between 0 and 1: '2'"),
        ("mcts:playout_moves=-5", "player option playout_moves must be -1 or a whole number >= 0: '-5'"),
        ("mcts:prior_depth=-2", "player option prior_depth must be -1 or a whole number >= 0: '-2'"),
        ("mcts:seconds=-1", "player option seconds must be a finite number >= 0: '-1'"),
        ("mcts:seconds=nan", "player option seconds must be a finite number >= 0: 'nan'"),
        ("mcts:reuse=maybe", "player option reuse must be on or off: 'maybe'"),
        ("mcts:eval=oracle", "player option eval must be one of heuristic, territory: 'oracle'"),
        ("mcts:playout_moves=1.5", "player option playout_moves must be an integer: '1.5'"),
        ("mcts:core=fortran", "player option core must be one of native, python: 'fortran'"),
        # root parallelism over processes was removed for threads on the one C tree
        ("mcts:workers=2", f"unknown option for player 'mcts': 'workers' (known: {', '.join(MCTS_OPTIONS)}, seed)"),
        ("mcts:policy=medium", "player option policy must be one of light, heavy: 'medium'"),
        ("mcts:tactics=1.5", "player option tactics must be between 0 and 1: '1.5'"),
        ("mcts:tactics=x", "player option tactics must be a number: 'x'"),
    ],
)
def test_bad_options_are_quoted(spec: str, message: str) -> None:
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec)
    assert str(error.value) == message


# -- the heuristic's rules of thumb, on small diagrams ---------------------------------

def board_from(rows: list[str], to_move: Colour, size: int | None = None) -> Board:
    """Level-1 diagram, top row first: X Black, O White, . empty."""
    size = size or len(rows)
    board = Board(Rules(size=size))
    from margo_gtp.vertex import Point

    balls = {Point(x, size - 1 - y, 0): (Colour.BLACK if ch == "X" else Colour.WHITE)
             for y, row in enumerate(rows) for x, ch in enumerate(row.replace(" ", "")) if ch in "XO"}
    board.setup(balls, to_move=to_move)
    return board


HEURISTIC_CASES = [
    # (name, diagram, colour, expected move): capture the ball in atari
    ("captures", [". . . . .",
                  ". . . . .",
                  ". X O . .",
                  ". . X . .",
                  ". . . . ."], Colour.BLACK, {"D3:1"}),
    # White's ball at C3 has one freedom (D3) -> White extends to save it
    ("saves a group in atari", [". . . . .",
                                ". . X . .",
                                ". X O . .",
                                ". . X . .",
                                ". . . . ."], Colour.WHITE, {"D3:1"}),
]


@pytest.mark.parametrize("name, rows, colour, expected", HEURISTIC_CASES, ids=[c[0] for c in HEURISTIC_CASES])
def test_heuristic_rules_of_thumb(name: str, rows: list[str], colour: Colour, expected: set[str]) -> None:
    board = board_from(rows, colour)
    move = HeuristicPlayer(random.Random(0)).select_move(board, colour, Budget())
    assert move.gtp() in expected


def test_heuristic_avoids_self_atari() -> None:
    # B1 would put White's new ball down to one freedom next to Black's wall
    board = board_from([". . .", "X X .", ". . ."], Colour.WHITE)
    player = HeuristicPlayer(random.Random(0))
    scores = {move.gtp(): player.evaluate(board.copy(), move, Colour.WHITE) for move in board.legal_moves()}
    assert scores["A1:1"] < scores["C1:1"] and scores["A3:1"] < scores["C3:1"]


def test_heuristic_prefers_the_centre_on_an_empty_board() -> None:
    board = Board(Rules(size=7))
    assert HeuristicPlayer(random.Random(4)).select_move(board, Colour.WHITE, Budget()).gtp() == "D4:1"


def test_group_report_counts_groups_atari_and_freedoms() -> None:
    board = board_from([". . . . .", ". . X . .", ". X O . .", ". . X . .", ". . . . ."], Colour.WHITE)
    assert group_report(board, int(Colour.WHITE)) == (1, 1, 1, 0)
    assert group_report(board, int(Colour.BLACK)) == (3, 0, 3 + 3 + 3, 0)


def test_heuristic_is_deterministic_for_a_seed() -> None:
    def game(seed: int) -> list[str]:
        board = Board(Rules(size=5))
        player = make_player(f"heuristic:seed={seed}")
        moves = []
        while not board.is_game_over() and len(moves) < 40:
            move = player.select_move(board, board.to_move, Budget())
            board.push(move)
            moves.append(move.gtp())
        return moves

    assert game(3) == game(3)


def test_heuristic_climbs_to_link_diagonal_groups() -> None:
    # White B2 and C3 touch only diagonally; B2:2 rests on both and links them (R9a)
    board = board_from([". . . .", ". X O .", ". O X .", ". . . ."], Colour.WHITE)
    assert group_report(board, int(Colour.WHITE))[0] == 2
    move = HeuristicPlayer(random.Random(0)).select_move(board, Colour.WHITE, Budget())
    assert move.gtp() == "B2:2"
    board.push(move)
    assert group_report(board, int(Colour.WHITE))[0] == 1


def test_heuristic_cuts_with_a_bridge() -> None:
    # Black B2-C2 is crossed by B1:2 (White already) and B2:2: White there cuts it (R10)
    from margo_gtp.vertex import Point

    board = Board(Rules(size=5))
    white, black = Colour.WHITE, Colour.BLACK
    board.setup({Point(1, 1): black, Point(2, 1): black, Point(1, 0): white, Point(2, 0): white,
                 Point(1, 2): white, Point(2, 2): white, Point(1, 0, 1): white}, to_move=white)
    assert group_report(board, int(black)) == (1, 0, 2, 0)
    move = HeuristicPlayer(random.Random(0)).select_move(board, white, Budget())
    assert move.gtp() == "B2:2"
    board.push(move)
    assert group_report(board, int(black)) == (2, 2, 2, 0)  # two groups, both in atari


# -- the heuristic player and passing (allow_pass, R20) -----------------------------------


@pytest.mark.parametrize("size", [3, 4, 5, 7, 9])
@pytest.mark.parametrize("seed", range(4))
def test_heuristic_does_not_pass_on_move_one(size: int, seed: int) -> None:
    """A pass risks nothing, so the features would rate it above every move: valued by
    what it leads to (R20), it loses to any real move when it does not end the game."""
    board = Board(Rules().with_options({"size": str(size), "allow_pass": "on"}))
    assert Move.PASS in board.legal_moves(board.to_move)
    assert not HeuristicPlayer(random.Random(seed)).select_move(board, board.to_move, Budget()).is_pass


def _moves(board: Board, *moves: str) -> Board:
    for text in moves:
        board.push(Move.PASS if text == "pass" else Move.from_gtp(text, board.size), board.to_move)
    return board


@pytest.mark.parametrize(
    "moves, ends_with",
    [
        (["b2", "pass"], "win"),                      # White leads 1-0: its pass ends the game, won
        (["b2", "c3", "pass"], "draw"),               # 1-1: Black's pass would end it drawn
        (["b2", "pass", "a1", "c3", "pass"], "loss"),  # Black behind 1-2: its pass would lose
    ],
)
def test_heuristic_passes_only_to_end_a_won_game(moves: list[str], ends_with: str) -> None:
    rules = Rules().with_options({"size": "4", "allow_pass": "on", "scoring": "balls"})
    board = _moves(Board(rules), *moves)
    for seed in range(5):
        choice = HeuristicPlayer(random.Random(seed)).select_move(board, board.to_move, Budget())
        assert choice.is_pass == (ends_with == "win")


def test_heuristic_games_with_passing_allowed_are_played_out() -> None:
    """Before, every game ended in 3-4 moves (the first player passed, then the other)."""
    rules = Rules().with_options({"size": "5", "allow_pass": "on"})
    for seed in range(3):
        board = Board(rules)
        players = {Colour.WHITE: HeuristicPlayer(random.Random(seed)), Colour.BLACK: HeuristicPlayer(random.Random(seed + 10))}
        while not board.is_game_over() and len(board.history) < 400:
            board.push(players[board.to_move].select_move(board, board.to_move, Budget()), board.to_move)
        assert board.is_game_over() and len(board.history) > 15
