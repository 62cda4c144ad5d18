"""The rules core's API: options, moves, push/pop, setup, copy, outcome, playouts.

Rules semantics are tested in test_rules_*.py and test_positions.py; this file pins the
API contract python-chess users would expect.
"""

import random

import pytest

from margo_gtp.engine import (
    BLACK, WHITE, Board, Colour, CoreState, IllegalMoveError, InvalidColourError, InvalidMoveError, InvalidVertexError,
    Move, Outcome, Point, Rules, RulesError, Termination,
)

# Every test here runs on both rules cores (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("rules_core")


def P(text, size=4):
    return Point.from_gtp(text, size)


def position(board):
    return {p.gtp(): c.letter for p, c in board.balls().items()}


# ---------------------------------------------------------------- colours and options

@pytest.mark.parametrize("text, colour", [("w", WHITE), ("W", WHITE), ("white", WHITE), ("WHITE", WHITE),
                                          ("b", BLACK), ("Black", BLACK)])
def test_colour_parse(text, colour):
    assert Colour.parse(text) is colour
    assert colour.opponent.opponent is colour


@pytest.mark.parametrize("text", ["", "x", "wh", "none", "0"])
def test_colour_parse_rejects(text):
    with pytest.raises(ValueError, match=f"invalid colour: {text!r}"):
        Colour.parse(text)


def test_default_rules_match_rules_md_section_9():
    assert Rules().options() == {
        "size": 9, "first_player": "white", "swap": "off", "max_level": 8, "bridge_cutting": "on",
        "all_freedoms": "off", "own_freedomless_group": "capture", "ko_rule": "situational",
        "ko_position": "full", "scoring": "balls", "allow_pass": "off", "first_capture_wins": "off",
        "komi": 0.0,
    }


OPTION_CASES = [
    ({"size": "7"}, "size", 7),
    ({"first_player": "black"}, "first_player", "black"),
    ({"swap": "on"}, "swap", "on"),
    ({"max_level": "0"}, "max_level", 0),
    ({"bridge_cutting": "OFF"}, "bridge_cutting", "off"),
    ({"all_freedoms": "on"}, "all_freedoms", "on"),
    ({"own_freedomless_group": "illegal"}, "own_freedomless_group", "illegal"),
    ({"ko_rule": "positional"}, "ko_rule", "positional"),
    ({"ko_rule": "simple"}, "ko_rule", "simple"),
    ({"ko_rule": "none"}, "ko_rule", "none"),
    ({"ko_position": "top_view"}, "ko_position", "top_view"),
    ({"scoring": "territory"}, "scoring", "territory"),
    ({"allow_pass": "on"}, "allow_pass", "on"),
    ({"first_capture_wins": "on"}, "first_capture_wins", "on"),
    ({"komi": "6.5"}, "komi", 6.5),
    ({"komi": "-3"}, "komi", -3.0),
    ({"size": "5", "max_level": "4"}, "max_level", 4),
]


@pytest.mark.parametrize("options, name, value", OPTION_CASES)
def test_with_options(options, name, value):
    assert Rules().with_options(options).options()[name] == value


BAD_OPTIONS = [
    ({"colour": "white"}, "unknown rule option: 'colour'"),
    ({"size": "20"}, "invalid value for size: '20'"),
    ({"size": "1"}, "invalid value for size: '1'"),
    ({"size": "nine"}, "invalid value for size: 'nine'"),
    ({"swap": "yes"}, "invalid value for swap: 'yes'"),
    ({"max_level": "9"}, "invalid max_level: '9'"),
    ({"max_level": "-1"}, "invalid value for max_level: '-1'"),
    ({"ko_rule": "superko"}, "invalid value for ko_rule: 'superko'"),
    ({"komi": "nan"}, "invalid value for komi: 'nan'"),
    ({"komi": "x"}, "invalid value for komi: 'x'"),
    ({"first_player": "red"}, "invalid value for first_player: 'red'"),
    ({"scoring": "area"}, "invalid value for scoring: 'area'"),
]


@pytest.mark.parametrize("options, message", BAD_OPTIONS)
def test_bad_options_are_refused_whole(options, message):
    rules = Rules()
    with pytest.raises(RulesError) as info:
        rules.with_options({"komi": "1", **options})
    assert str(info.value).startswith(message)
    assert rules == Rules()


def test_changing_size_drops_a_max_level_that_no_longer_fits():
    assert Rules(size=9, max_level=6).replace(size=5).top_level == 4
    assert Rules(size=9, max_level=2).replace(size=5).top_level == 2


# ---------------------------------------------------------------- moves

@pytest.mark.parametrize("text, move", [("D4:2", Move(Point(3, 3, 1))), ("d4", Move(Point(3, 3, 0))),
                                        ("PASS", Move.PASS), ("swap", Move.SWAP)])
def test_move_from_gtp(text, move):
    assert Move.from_gtp(text, 9) == move
    assert Move.from_gtp(move.gtp(), 9) == move


def test_move_basics():
    assert not Move.PASS and Move.SWAP and Move(Point(0, 0, 0))
    assert repr(Move.from_gtp("D4:2", 9)) == "Move(Point(3, 3, 1))"
    assert eval(repr(Move(Point(3, 3, 1)))) == Move(Point(3, 3, 1))
    assert repr(Move.PASS) == "Move.PASS"
    assert (str(Move.from_gtp("B2:1", 9)), f"{Move.from_gtp('d4:2', 9)}", str(Move.PASS), str(Move.SWAP)) == (
        "B2:1", "D4:2", "pass", "swap")
    with pytest.raises(InvalidVertexError, match="vertex is off board: 'K1'"):
        Move.from_gtp("K1", 9)


def test_str_of_a_board_is_the_showboard_diagram_and_repr_stays_short():
    from margo_gtp.protocol.session import make_gtp_engine
    from margo_gtp.players import make_player

    board = Board(Rules(size=3))
    for vertex in ("A1:1", "B1:1", "A2:1", "B2:1", "A1:2"):
        board.push(Move.from_gtp(vertex, 3))
    assert str(board) == (
        "Level 2\n"
        "    A B\n"
        "  2 . . 2\n"
        "  1 O . 1\n"
        "    A B\n"
        "Level 1\n"
        "    A B C\n"
        "  3 . . . 3\n"
        "  2 O X . 2\n"
        "  1 O X . 1\n"
        "    A B C\n"
        "Black to move; moves played: 5\n"
        "Balls: White (O) 3, Black (X) 2\n"
        "Captured by: White 0, Black 0")
    assert repr(board) == "<Board size=3 to_move=BLACK balls=5 moves=5>"
    engine = make_gtp_engine(make_player("random", 0), Rules(size=3))
    for colour, vertex in zip("wbwbw", ("A1:1", "B1:1", "A2:1", "B2:1", "A1:2")):
        assert engine.run_command("play", [colour, vertex]) == (False, "", False)
    assert engine.run_command("showboard", []) == (False, "\n" + str(board), False)


# ---------------------------------------------------------------- play

def test_white_moves_first_and_colours_alternate():
    board = Board(Rules(size=4))
    assert board.to_move is WHITE
    board.push(Move(P("B2")))
    assert board.to_move is BLACK and position(board) == {"B2:1": "W"}
    board.push(Move(P("C2")))
    assert position(board) == {"B2:1": "W", "C2:1": "B"}
    assert board.history == [(WHITE, Move(P("B2"))), (BLACK, Move(P("C2")))]


def test_first_player_black():
    assert Board(Rules(size=4, first_player=BLACK)).to_move is BLACK


def test_push_any_colour_like_gtp_play():
    board = Board(Rules(size=4))
    board.push(Move(P("A1")), BLACK)
    board.push(Move(P("B1")), BLACK)
    assert board.to_move is WHITE and position(board) == {"A1:1": "B", "B1:1": "B"}


ILLEGAL = [
    # setup (white, black), move, colour, message
    (("B2", ""), "B2", WHITE, "illegal move: B2:1 for WHITE: point is occupied"),
    (("", "A1 A2 B1"), "A1:2", BLACK, "illegal move: A1:2 for BLACK: point is not supported"),
    (("", "A2 B1"), "A1", WHITE, "illegal move: A1:1 for WHITE: suicide or repetition"),
]


@pytest.mark.parametrize("setup, vertex, colour, message", ILLEGAL)
def test_illegal_moves_change_nothing(setup, vertex, colour, message):
    board = Board(Rules(size=4))
    balls = {P(v): WHITE for v in setup[0].split()} | {P(v): BLACK for v in setup[1].split()}
    board.setup(balls, colour)
    before = (position(board), board.zobrist_key, board.to_move, board.history)
    assert not board.is_legal(Move(P(vertex)), colour)
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move(P(vertex)), colour)
    assert str(info.value) == message
    assert (position(board), board.zobrist_key, board.to_move, board.history) == before


@pytest.mark.parametrize("kind, shown", [("weird", "'weird'"), ("PASS", "'PASS'"), ("", "''"), (None, "None"),
                                         (1, "1")])
def test_a_move_kind_other_than_place_pass_or_swap_is_refused(kind, shown):
    with pytest.raises(InvalidMoveError) as info:
        Move(P("B2"), kind)
    assert str(info.value) == f"invalid move kind: {shown} (allowed place, pass, swap)"
    assert isinstance(info.value, ValueError)


BAD_COLOURS = [(1.5, "1.5"), (1.0, "1.0"), (True, "True"), ("B", "'B'"), (2, "2"), (-1, "-1"), (None, "None")]

# Each call that takes a colour, with the bad colour put in (None means "the side to move"
# for the first four, so it is only bad for the others).
COLOUR_CALLS = {
    "push": lambda board, colour: board.push(Move(P("B2")), colour),
    "is_legal": lambda board, colour: board.is_legal(Move(P("B2")), colour),
    "legal_moves": lambda board, colour: board.legal_moves(colour),
    "has_legal_placement": lambda board, colour: board.has_legal_placement(colour),
    "set_to_move": lambda board, colour: board.set_to_move(colour),
    "setup to_move": lambda board, colour: board.setup({P("C3"): WHITE}, colour),
    "setup ball": lambda board, colour: board.setup({P("C3"): colour}),
    "ball_mask": lambda board, colour: board.ball_mask(colour),
    "group_freedoms": lambda board, colour: board.group_freedoms(colour),
    "outcome_by_resignation": lambda board, colour: board.outcome_by_resignation(colour),
}
NONE_MEANS_SIDE_TO_MOVE = {"push", "is_legal", "legal_moves", "has_legal_placement", "setup to_move"}


@pytest.mark.parametrize("call, colour, shown", [
    (call, colour, shown) for call in COLOUR_CALLS for colour, shown in BAD_COLOURS
    if not (colour is None and call in NONE_MEANS_SIDE_TO_MOVE)])
def test_a_colour_other_than_white_or_black_is_refused_and_changes_nothing(call, colour, shown):
    board = Board(Rules(size=4))
    board.push(Move(P("A1")))
    before = (position(board), board.zobrist_key, board.to_move, board.history)
    with pytest.raises(InvalidColourError) as info:
        COLOUR_CALLS[call](board, colour)
    assert str(info.value) == f"invalid colour: {shown} (allowed Colour.WHITE, Colour.BLACK)"
    assert (position(board), board.zobrist_key, board.to_move, board.history) == before


def test_the_ints_0_and_1_are_white_and_black():
    board = Board(Rules(size=4))
    board.push(Move(P("A1")), 1)
    board.push(Move(P("B1")), 0)
    assert board.history == [(BLACK, Move(P("A1"))), (WHITE, Move(P("B1")))]
    assert board.legal_moves(1) == board.legal_moves(BLACK)


def test_max_level_refuses_higher_levels():
    board = Board(Rules(size=4, max_level=0))
    board.setup({P("A1"): WHITE, P("B1"): BLACK, P("A2"): BLACK, P("B2"): WHITE}, WHITE)
    with pytest.raises(IllegalMoveError, match="level is above max_level 1"):
        board.push(Move(P("A1:2")))
    assert Move(P("A1:2")) not in board.legal_moves()


def test_pass_and_swap_only_when_the_rules_allow():
    board = Board(Rules(size=4))
    with pytest.raises(IllegalMoveError, match="passing is not allowed"):
        board.push(Move.PASS)
    board.push(Move(P("B2")))
    with pytest.raises(IllegalMoveError, match="swap"):
        board.push(Move.SWAP)


def test_swap_exchanges_players_and_keeps_side_to_move():
    board = Board(Rules(size=4, swap=True))
    assert Move.SWAP not in board.legal_moves()
    board.push(Move(P("B2")))
    assert board.legal_moves()[-1] == Move.SWAP
    key = board.zobrist_key
    board.push(Move.SWAP)
    assert board.swapped and board.to_move is BLACK and board.zobrist_key == key
    assert Move.SWAP not in board.legal_moves()
    board.pop()
    assert not board.swapped and board.legal_moves()[-1] == Move.SWAP


def test_two_passes_end_the_game_with_territory_scoring():
    board = Board(Rules(size=4, allow_pass=True))
    board.push(Move(P("B2")))
    board.push(Move.PASS)
    assert board.outcome() is None
    board.push(Move.PASS)
    outcome = board.outcome()
    # White: 1 ball + the whole empty plane (15 points) + the pyramid over it (9+4+1).
    assert outcome == Outcome(Termination.TWO_PASSES, WHITE, 1 + 15 + 14, 0)
    assert outcome.result() == "W+30"
    assert board.legal_moves() == []
    board.pop()
    assert board.outcome() is None


def test_pop_restores_exactly_and_refuses_at_root():
    board = Board(Rules(size=5))
    rng = random.Random(3)
    snapshots = []
    for _ in range(60):
        snapshot = (position(board), board.zobrist_key, board.to_move, board.captured, board.history,
                    board.zombies(), board.buried())
        if board.random_playout(rng, max_moves=1) == 0:
            break
        snapshots.append(snapshot)
    assert len(snapshots) >= 40  # the seeded game lasts 47 moves: undo them all
    while snapshots:
        board.pop()
        assert (position(board), board.zobrist_key, board.to_move, board.captured, board.history,
                board.zombies(), board.buried()) == snapshots.pop()
    with pytest.raises(IndexError):
        board.pop()


# ---------------------------------------------------------------- setup

def test_setup_places_lower_levels_first_and_resets_history():
    board = Board(Rules(size=4))
    board.push(Move(P("D4")))
    board.setup([(P("A1:2"), BLACK), (P("A1"), WHITE), (P("B1"), WHITE), (P("A2"), BLACK), (P("B2"), BLACK)],
                to_move=BLACK)
    assert position(board) == {"A1:1": "W", "B1:1": "W", "D4:1": "W", "A2:1": "B", "B2:1": "B", "A1:2": "B"}
    assert board.history == [] and board.to_move is BLACK
    assert board.root_balls() == board.balls()
    with pytest.raises(IndexError):
        board.pop()


@pytest.mark.parametrize("balls, message", [
    ([("A1:2", WHITE)], "illegal setup: A1:2 is not supported"),
    ([("A1", WHITE), ("A1", BLACK)], "illegal setup: A1:1 is occupied"),
    ([("C3", WHITE), ("C3:2", WHITE)], "illegal setup: C3:2 is not supported"),
])
def test_setup_is_all_or_nothing(balls, message):
    board = Board(Rules(size=4))
    board.setup({P("D4"): BLACK})
    with pytest.raises(IllegalMoveError, match=message):
        board.setup([(P(v), c) for v, c in balls])
    assert position(board) == {"D4:1": "B"}


def test_setup_position_is_the_repetition_root():
    # T14 of positions.md: the immediate recapture would repeat the set-up position.
    board = Board(Rules(size=4))
    board.setup({P("A1"): WHITE, P("B2"): WHITE, P("B1"): BLACK, P("C2"): BLACK, P("D1"): BLACK}, WHITE)
    board.push(Move(P("C1")))
    assert position(board) == {"A1:1": "W", "C1:1": "W", "B2:1": "W", "D1:1": "B", "C2:1": "B"}
    assert not board.is_legal(Move(P("B1")))
    relaxed = Board(Rules(size=4, ko_rule="none"))
    relaxed.setup(board.root_balls(), WHITE)
    relaxed.push(Move(P("C1")))
    assert relaxed.is_legal(Move(P("B1")))


# ---------------------------------------------------------------- copy, outcome, playout

def test_copy_is_independent():
    board = Board(Rules(size=5))
    board.push(Move(Point(2, 2, 0)))
    other = board.copy()
    other.push(Move(Point(1, 1, 0)))
    assert len(board.balls()) == 1 and len(other.balls()) == 2
    assert other.pop() == Move(Point(1, 1, 0)) and other == board


def test_game_ends_when_side_to_move_has_no_legal_move():
    # 2x2 board: after White fills three points... play random games to the end and check R17.
    rng = random.Random(5)
    for _ in range(20):
        board = Board(Rules(size=3))
        board.random_playout(rng)
        outcome = board.outcome()
        assert outcome is not None and outcome.termination is Termination.NO_LEGAL_MOVE
        assert board.legal_moves() == []
        white, black = board.ball_counts()[WHITE], board.ball_counts()[BLACK]
        assert (outcome.white_score, outcome.black_score) == (white, black)
        expected = "0" if white == black else (f"W+{white - black}" if white > black else f"B+{black - white}")
        assert outcome.result() == expected


def test_komi_goes_to_white():
    board = Board(Rules(size=3, komi=0.5))
    assert board.score() == (0.5, 0.0)


def test_first_capture_wins():
    board = Board(Rules(size=5, first_capture_wins=True))
    board.setup({P("B1", 5): WHITE, P("A1", 5): BLACK}, WHITE)
    board.push(Move(P("A2", 5)))
    outcome = board.outcome()
    assert outcome.termination is Termination.FIRST_CAPTURE and outcome.winner is WHITE
    assert outcome.result() == "W+1" and board.legal_moves() == []


def test_random_playout_is_seeded_and_legal():
    a, b = Board(Rules(size=5)), Board(Rules(size=5))
    assert a.random_playout(random.Random(9)) == b.random_playout(random.Random(9))
    assert a.history == b.history
    replay = Board(Rules(size=5))
    for colour, move in a.history:
        assert replay.is_legal(move, colour)
        replay.push(move, colour)
    assert replay.balls() == a.balls() and replay.is_game_over()


@pytest.mark.parametrize("seed, size, all_freedoms, cutting", [(1, 5, False, True), (2, 6, True, True),
                                                               (3, 7, False, False), (4, 5, True, False)])
def test_group_at_is_the_group_and_freedoms_of_group_freedoms(seed, size, all_freedoms, cutting):
    """Board.group_at walks one group: the same bit sets as group_freedoms lists for every
    ball of every group (freedoms following all_freedoms), None on an empty point or a
    buried ball; the same on both cores (the rules_core fixture)."""
    board = Board(Rules(size=size, all_freedoms=all_freedoms, bridge_cutting=cutting))
    rng = random.Random(seed)
    checked = buried_seen = 0
    for _ in range(6):
        board.random_playout(rng, max_moves=25)
        owner = {}
        for colour in Colour:
            for group, freedoms in board.group_freedoms(colour):
                for index in range(board.geometry.count):
                    if group >> index & 1:
                        owner[index] = (group, freedoms)
        for index in range(board.geometry.count):
            assert board.group_at(index) == owner.get(index)
            checked += index in owner
            buried_seen += bool(board.buried_mask() >> index & 1)
        if board.is_game_over():
            break
    assert checked > 20 and buried_seen > 0  # groups and buried balls were both met


def test_core_state_is_the_cores_ints_and_pop_restores_it():
    """Board.core_state names the core's ints (the same on both cores): here a 2x2 set-up
    whose four level-0 balls are freedomless with nothing on them (unsettled), the level-1
    point the one supported empty point; then push/pop restores the state exactly."""
    board = Board(Rules(size=2))
    board.setup({Point(0, 0, 0): WHITE, Point(1, 0, 0): BLACK, Point(0, 1, 0): BLACK, Point(1, 1, 0): BLACK})
    zobrist = board.geometry.zobrist
    key = zobrist[0][0] ^ zobrist[1][1] ^ zobrist[1][2] ^ zobrist[1][3]
    assert board.core_state() == CoreState(white=0b0001, black=0b1110, buried=0, supported_empty=0b10000,
                                           unsettled=0b1111, key=key, buried_key=0)
    assert board.zobrist_key == key ^ board.geometry.zobrist_to_move[int(board.to_move)]

    board = Board(Rules(size=5))
    board.random_playout(random.Random(3), max_moves=40)
    state = board.core_state()
    assert (state.white, state.black, state.buried) == (board.ball_mask(WHITE), board.ball_mask(BLACK),
                                                        board.buried_mask())
    for move in board.legal_moves():
        board.push(move)
        board.pop()
        assert board.core_state() == state


def test_group_at_refuses_indices_off_the_board():
    board = Board(Rules(size=3))
    for index in (-1, board.geometry.count):
        with pytest.raises(IndexError, match="^point index out of range$"):
            board.group_at(index)
