"""The native rules core: built, selectable, and the same MarGo as the Python core.

* CI cannot pass on a silent fallback: with a C compiler and the Python headers present,
  the extension must have been built by the install.
* ``MARGO_CORE`` selects the core; a bad value falls back with one stderr line.
* Differential: random games under random options (sizes 2-9, some 13 and 19) give the
  same legal moves, balls, keys, captures, zombies, groups, territory and outcome on both
  cores; seeded ``random_playout`` plays the same game and leaves the generator in the same
  state.
* Memory and safety: RSS stays flat over 10^6 push/pop cycles; bad arguments reaching the C
  object raise Python exceptions.
The rules tests themselves (positions, clauses, options, properties against the reference,
perft, Board API) run on both cores through the ``rules_core`` fixture of conftest.py.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Point, Rules, core

needs_native = pytest.mark.skipif(not core.native_available(), reason="native core not built")


def _search_available() -> bool:
    from margo_gtp.players import native_search

    return native_search.available()


needs_search = pytest.mark.skipif(not _search_available(), reason="native search not built")


def _have_c_toolchain() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(compiler) is not None and headers.exists()


def test_native_core_is_built_where_it_can_be():
    if not _have_c_toolchain():
        pytest.skip("no C compiler or Python headers: the pure-Python core is the expected fallback")
    assert core.native_available(), f"the install did not build the native core: {core.native_unavailable_reason()}"


def test_native_search_is_built_where_it_can_be():
    from margo_gtp.players import native_search

    if not _have_c_toolchain():
        pytest.skip("no C compiler or Python headers: the Python search is the expected fallback")
    assert native_search.available(), f"the install did not build the native search: {native_search.unavailable_reason}"


def test_the_rules_room_holds_no_search_code():
    """Issue #23: the C rules core (margo_gtp/engine/*.c, *.h) defines no function of the
    search (evaluator, ladders, heavy playout policy, UCT, the MCTS bulk call), and the
    rules extension exposes none; they live in margo_gtp/players (search_*.c, _search.c)."""
    import re

    engine = Path(__file__).resolve().parent.parent / "margo_gtp" / "engine"
    search_names = re.compile(r"^\w[\w \*]*\b(uct_\w+|heavy_\w+|heuristic|simulate|can_escape|ladder_captures|"
                              r"child_score|eval_cb|stats_cb)\s*\(", re.M)
    sources = sorted(engine.glob("*.[ch]"))
    assert {path.name for path in sources} >= {"rules_core.h", "_native.c", "rules_position.c"}
    for path in sources:
        assert search_names.findall(path.read_text(encoding="utf-8")) == [], path.name
    if core.native_available():
        from margo_gtp.engine import _native

        assert not hasattr(_native, "uct_select")
        assert not {"heavy_playout", "simulate"} & set(dir(_native.State))


def _core_in_subprocess(env_value: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MARGO_CORE", None)
    if env_value is not None:
        env["MARGO_CORE"] = env_value
    code = ("from margo_gtp.engine import Board, core_name; from margo_gtp.engine.core import board_core; "
            "print(core_name(), board_core(Board(size=3)))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


@needs_native
def test_default_core_is_native_when_built():
    result = _core_in_subprocess(None)
    assert (result.stdout, result.stderr) == ("native native\n", "")


def test_margo_core_python_selects_the_reference():
    result = _core_in_subprocess("python")
    assert (result.stdout, result.stderr) == ("python python\n", "")


def test_bad_margo_core_falls_back_with_one_line():
    result = _core_in_subprocess("fortran")
    default = "native" if core.native_available() else "python"
    assert result.stdout.split()[0] == default
    assert result.stderr == (f"margo-gtp: MARGO_CORE=fortran: invalid core: 'fortran' (allowed native, python); "
                             f"using the {default} core\n")


def test_set_core_rejects_unknown_names():
    with pytest.raises(ValueError, match=r"^invalid core: 'c\+\+' \(allowed native, python\)$"):
        core.set_core("c++")


@pytest.fixture
def both_cores():
    """A factory of (python board, native board) pairs; restores the selected core."""
    previous = core.core_name()

    def make(rules: Rules) -> tuple[Board, Board]:
        core.set_core("python")
        python_board = Board(rules)
        core.set_core("native")
        native_board = Board(rules)
        core.set_core(previous)
        assert (core.board_core(python_board), core.board_core(native_board)) == ("python", "native")
        return python_board, native_board

    yield make
    core.set_core(previous)


@st.composite
def random_rules(draw: st.DrawFn) -> Rules:
    size = draw(st.one_of(st.integers(2, 9), st.sampled_from([13, 19])))
    return Rules(
        size=size,
        first_player=draw(st.sampled_from(list(Colour))),
        swap=draw(st.booleans()),
        max_level=draw(st.one_of(st.none(), st.integers(0, size - 1))),
        bridge_cutting=draw(st.booleans()),
        all_freedoms=draw(st.booleans()),
        own_freedomless_group=draw(st.sampled_from(["capture", "illegal"])),
        ko_rule=draw(st.sampled_from(["situational", "positional", "simple", "none"])),
        ko_position=draw(st.sampled_from(["full", "top_view"])),
        scoring=draw(st.sampled_from(["balls", "territory"])),
        allow_pass=draw(st.booleans()),
        first_capture_wins=draw(st.booleans()),
        komi=draw(st.sampled_from([0.0, 0.5, -2.0])),
    )


def state_of(board: Board) -> tuple:
    """Everything a player or the protocol can read, plus the core's own ints (core_state)."""
    return (
        board.balls(), board.buried(), board.zombies(), board.history, board.to_move, board.captured,
        board.swapped, board.zobrist_key, board.ball_counts(), board.score("balls"), board.score("territory"),
        board.territory_masks(), board.group_freedoms(Colour.WHITE), board.group_freedoms(Colour.BLACK),
        board.groups(), board.outcome(), board.ply, board.peek(),
        board.core_state(),
    )


native_settings = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                           suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@needs_native
@native_settings
@given(rules=random_rules(), seed=st.integers(0, 2**32 - 1))
def test_random_games_agree_move_by_move(both_cores, rules, seed):
    python_board, native_board = both_cores(rules)
    rng = random.Random(seed)
    limit = 60 if rules.size >= 13 else 250
    states = [state_of(python_board)]
    assert state_of(native_board) == states[0]
    for _ in range(limit):
        moves = python_board.legal_moves()
        assert native_board.legal_moves() == moves
        if not moves:
            break
        if rng.random() < 0.3:  # an illegal try must fail the same way on both cores
            point = rng.choice(python_board.geometry.points)
            for board in (python_board, native_board):
                assert board.is_legal(Move(point)) == (Move(point) in moves)
            if Move(point) not in moves:
                errors = []
                for board in (python_board, native_board):
                    with pytest.raises(IllegalMoveError) as caught:
                        board.push(Move(point))
                    errors.append(str(caught.value))
                assert errors[0] == errors[1]
        move = rng.choice(moves)
        python_board.push(move)
        native_board.push(move)
        states.append(state_of(python_board))
        assert state_of(native_board) == states[-1]
        if rng.random() < 0.1:
            assert python_board.pop() == native_board.pop() == move
            states.pop()
            assert state_of(native_board) == states[-1]
    assert native_board == python_board
    copy = native_board.copy()
    final = states[-1]
    while python_board.ply:  # undo is exact
        assert native_board.pop() == python_board.pop()
        states.pop()
        assert state_of(native_board) == states[-1]
    assert state_of(copy) == final  # a copy is independent and keeps the history


@needs_native
@native_settings
@given(rules=random_rules(), seed=st.integers(0, 2**32 - 1), prefix=st.integers(0, 30),
       max_moves=st.sampled_from([1, 10, 2000]))
def test_seeded_playouts_are_the_same_game(both_cores, rules, seed, prefix, max_moves):
    python_board, native_board = both_cores(rules)
    opening = random.Random(seed ^ 0x5EED)
    for _ in range(prefix):  # start from a position with some history (repetition, swap)
        moves = python_board.legal_moves()
        if not moves:
            break
        move = opening.choice(moves)
        python_board.push(move)
        native_board.push(move)
    python_rng, native_rng = random.Random(seed), random.Random(seed)
    python_played = python_board.random_playout(python_rng, max_moves=max_moves)
    native_played = native_board.random_playout(native_rng, max_moves=max_moves)
    assert native_played == python_played
    assert native_board.history == python_board.history
    assert state_of(native_board) == state_of(python_board)
    assert native_rng.getstate() == python_rng.getstate()  # the generator advanced alike
    index = python_board.geometry.index
    for ply in (0, prefix, python_board.ply - 3, python_board.ply):  # the AMAF sets of MCTS
        expected: tuple[set, set] = (set(), set())
        for colour, move in python_board.moves_since(max(ply, 0)):
            if move.point is not None:
                expected[colour].add(index[move.point])
        assert python_board.played_points_since(ply) == expected
        assert native_board.played_points_since(ply) == expected


@needs_native
def test_setup_positions_agree(both_cores):
    """Random set-ups (balls stacked anywhere, freedomless groups included) load alike."""
    rng = random.Random(7)
    for size in (3, 4, 5, 9, 13, 19):
        for _ in range(20):
            rules = Rules(size=size, own_freedomless_group=rng.choice(["capture", "illegal"]),
                          all_freedoms=rng.random() < 0.5)
            python_board, native_board = both_cores(rules)
            index = python_board.geometry.index
            for point in python_board.geometry.points:  # fill bottom-up at random
                if rng.random() < 0.5 and python_board.core_state().supported_empty >> index[point] & 1:
                    colour = rng.choice(list(Colour))
                    python_board.setup({point: colour})
                    native_board.setup({point: colour})
            assert state_of(native_board) == state_of(python_board)
            for _ in range(5):
                moves = python_board.legal_moves()
                assert native_board.legal_moves() == moves
                if not moves:
                    break
                move = rng.choice(moves)
                python_board.push(move)
                native_board.push(move)
                assert state_of(native_board) == state_of(python_board)


class _LinearCongruential:
    """A generator that is not random.Random: its own random() stream."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def random(self) -> float:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.state >> 11) / 2**53


class _Halves(random.Random):
    def random(self) -> float:  # a subclass that replaces the generator
        return 0.5


@needs_native
@pytest.mark.parametrize("make_rng", [_LinearCongruential, _Halves], ids=["not-Random", "Random-subclass"])
def test_other_generators_drive_the_same_game(both_cores, make_rng):
    for seed in range(10):
        python_board, native_board = both_cores(Rules(size=5, allow_pass=seed % 2 == 0))
        python_rng, native_rng = make_rng(seed), make_rng(seed)
        assert native_board.random_playout(native_rng, 300) == python_board.random_playout(python_rng, 300)
        assert native_board.history == python_board.history and native_board.ply > 0
        assert vars(native_rng) == vars(python_rng)


@needs_native
@native_settings
@given(rules=random_rules(), seed=st.integers(0, 2**32 - 1), prefix=st.integers(0, 60),
       max_moves=st.integers(0, 400), tactics=st.sampled_from([0.0, 0.5, 0.9, 1.0]))
def test_heavy_playouts_are_the_same_game(both_cores, rules, seed, prefix, max_moves, tactics):
    """The heavy playout policy in C (native_search.heavy_playout) plays the game of the
    Python policy (playout_policy.HeavyPolicy on the Python core): same moves, same count,
    the generator left in the same state, after a random opening under random rules."""
    from margo_gtp.players.playout_policy import HeavyPolicy

    python_board, native_board = both_cores(rules)
    results = []
    for board in (python_board, native_board):
        rng = random.Random(seed)
        board.random_playout(rng, max_moves=prefix)
        played = HeavyPolicy(tactics).play(board, rng, max_moves)
        results.append((played, board.history, rng.getstate()))
    assert results[0] == results[1]
    assert state_of(native_board) == state_of(python_board)


@needs_native
@pytest.mark.parametrize("make_rng", [_LinearCongruential, _Halves], ids=["not-Random", "Random-subclass"])
def test_heavy_playouts_with_other_generators_run_the_python_loop(both_cores, make_rng):
    from margo_gtp.players import native_search
    from margo_gtp.players.playout_policy import HeavyPolicy

    for seed in range(6):
        python_board, native_board = both_cores(Rules(size=5))
        assert native_search.heavy_playout(native_board, make_rng(seed), 10, 0.9) is None  # not for C
        python_rng, native_rng = make_rng(seed), make_rng(seed)
        assert (HeavyPolicy(0.9).play(native_board, native_rng, 80)
                == HeavyPolicy(0.9).play(python_board, python_rng, 80))
        assert native_board.history == python_board.history and native_board.ply > 0
        assert vars(native_rng) == vars(python_rng)


@needs_native
def test_a_failing_generator_raises_and_keeps_the_moves_played(both_cores):
    class Failing:
        def __init__(self) -> None:
            self.calls = 0

        def random(self) -> float:
            self.calls += 1
            if self.calls > 3:
                raise RuntimeError("generator broke")
            return 0.25

    _, board = both_cores(Rules(size=5))
    with pytest.raises(RuntimeError, match="generator broke"):
        board.random_playout(Failing(), 100)
    assert board.ply == 3
    with pytest.raises(ValueError, match=r"outside \[0, 1\)"):
        board.random_playout(type("Big", (), {"random": lambda self: 1.0})(), 100)
    assert board.ply == 3


@needs_native
@pytest.mark.parametrize("action", ["push", "pop", "push and pop"])
def test_a_generator_that_changes_the_board_stops_the_playout_on_both_cores(both_cores, action):
    """A random() that plays or undoes a move on the board being played out used to leave the
    playout loop working on stale candidates (a point ended up holding both colours). Both
    cores now stop with the same RuntimeError and a consistent board (the same on both)."""
    from margo_gtp.engine.playout import BOARD_CHANGED_DURING_PLAYOUT

    class Meddling:
        def __init__(self, board: Board) -> None:
            self.board, self.calls, self.inner = board, 0, random.Random(5)

        def random(self) -> float:
            self.calls += 1
            if self.calls == 6:
                if action == "pop":
                    self.board.pop()
                else:
                    self.board.push(self.board.legal_moves()[0])
                    if action == "push and pop":  # the same position, yet a change: still stopped
                        self.board.pop()
            return self.inner.random()

    boards = both_cores(Rules(size=5))
    for board in boards:
        with pytest.raises(RuntimeError) as raised:
            board.random_playout(Meddling(board), 100)
        assert str(raised.value) == BOARD_CHANGED_DURING_PLAYOUT
        assert not board.ball_mask(Colour.WHITE) & board.ball_mask(Colour.BLACK)
    assert state_of(boards[1]) == state_of(boards[0])


def test_uct_select_survives_a_child_whose_getter_empties_the_list():
    """_search.uct_select (_native.uct_select before issue #23) read a list item without
    holding it, then read its attributes: a getter that empties the list freed the child mid-call (SIGSEGV). Run in a subprocess so
    that a crash fails this test instead of the run. The C loop sees the children Python's
    own ``for child in children`` loop sees: the first, whose getter emptied the list."""
    code = """
import math
from margo_gtp.players import native_search
if not native_search.available():
    print("no native search")
    raise SystemExit
from margo_gtp.players import _search

children = []

class Emptying:
    def __init__(self, label):
        self.label, self.w, self.rave_n, self.rave_w = label, 0.0, 0, 0.0
    @property
    def n(self):
        children.clear()  # drops the last reference to every child, this one included
        return 3

children.extend(Emptying(label) for label in "abc")
for _ in range(200):
    best = _search.uct_select(children, math.log(10), 0.2, 300.0, 1, 0.5)
    print(best.label if best is not None else None, len(children))
    children.extend(Emptying(label) for label in "xyz")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    if lines == ["no native search"]:
        pytest.skip("native search not built")
    assert lines == ["a 0"] + ["x 0"] * 199


@needs_native
@native_settings
@given(rules=random_rules(), seed=st.integers(0, 2**64 - 1), max_moves=st.sampled_from([0, 1, 10, 2000]))
def test_splitmix_playouts_are_the_same_game(both_cores, rules, seed, max_moves):
    """Board.seeded_playout (MCTS's generator) plays the same game on both cores."""
    python_board, native_board = both_cores(rules)
    assert native_board.seeded_playout(seed, max_moves) == python_board.seeded_playout(seed, max_moves)
    assert state_of(native_board) == state_of(python_board)


def test_splitmix64_reference_values():
    """The first outputs for seed 0 (Vigna's splitmix64.c: 0xE220A8397B1DCDAF,
    0x6E789E6AA1B965F4, ...), as 53-bit floats."""
    from margo_gtp.engine.playout import splitmix64

    draw = splitmix64(0)
    assert [draw() for _ in range(3)] == [(0xE220A8397B1DCDAF >> 11) / 2**53, (0x6E789E6AA1B965F4 >> 11) / 2**53,
                                          (0x06C45D188009454F >> 11) / 2**53]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@needs_native
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc")
def test_rss_is_flat_over_a_million_push_pop_cycles(both_cores):
    _, board = both_cores(Rules(size=9))
    board.random_playout(random.Random(3), max_moves=40)
    moves = board.legal_moves()
    push, pop = board.push, board.pop
    for move in moves * 200:  # warm up: allocator pools, the repetition table
        push(move)
        pop()
    before = _rss_bytes()
    cycles = 0
    while cycles < 1_000_000:
        for move in moves:
            push(move)
            pop()
        cycles += len(moves)
    grown = _rss_bytes() - before
    assert grown < 1 << 20, f"RSS grew by {grown} bytes over {cycles} push/pop cycles"


@needs_native
def test_bad_arguments_raise_python_exceptions():
    from margo_gtp.engine import _native
    from margo_gtp.engine.native import native_geometry

    geo = native_geometry(3)
    moves = tuple(Move(p) for p in Board(size=3).geometry.points)
    zeros = (0,) * len(moves)
    colours = (Colour.WHITE, Colour.BLACK)
    with pytest.raises(ValueError, match="colours"):
        _native.Geometry(3, zeros, zeros, (0, 0), moves, Move.PASS, Move.SWAP, (1, 2, 3))
    with pytest.raises(ValueError, match="size must be 2..19"):
        _native.Geometry(20, zeros, zeros, (0, 0), moves, Move.PASS, Move.SWAP, colours)
    with pytest.raises(ValueError, match="zobrist_white"):
        _native.Geometry(3, (0,), zeros, (0, 0), moves, Move.PASS, Move.SWAP, colours)
    with pytest.raises(TypeError):
        _native.Geometry(3, zeros, zeros, (0, "x"), moves, Move.PASS, Move.SWAP, colours)
    with pytest.raises(TypeError):
        _native.State("not a geometry", False, True, 2, False, 0, False, False, False, False, 0)
    with pytest.raises(ValueError, match="top_level"):
        _native.State(geo, False, True, 5, False, 0, False, False, False, False, 0)
    with pytest.raises(ValueError, match="ko_rule"):
        _native.State(geo, False, True, 2, False, 9, False, False, False, False, 0)
    state = _native.State(geo, False, True, 2, False, 0, False, False, False, False, 0)
    with pytest.raises(ValueError, match="colour"):
        state.play(0, 2)
    with pytest.raises(OverflowError):
        state.play(2**40, None)
    assert state.play(10**6, None) == 4  # off the board: a reason code, not a crash
    with pytest.raises(ValueError, match="negative"):
        state.load(-1, 0)
    with pytest.raises(ValueError, match="beyond"):
        state.load(1 << 200, 0)
    with pytest.raises(ValueError, match="both colours"):
        state.load(1, 1)
    with pytest.raises(ValueError, match="not supported"):
        state.load(1 << 13, 0)  # a level-1 ball on an empty plane
    with pytest.raises(TypeError):
        state.load("1", 0)
    with pytest.raises(IndexError, match="no moves since the root"):
        state.pop()
    with pytest.raises(ValueError, match="625"):
        state.random_playout((1, 2, 3), 10)
    with pytest.raises(ValueError, match="32 bits"):
        state.random_playout((2**33,) * 625, 10)
    with pytest.raises(IndexError):
        state.get(14)
    with pytest.raises(IndexError, match="^point index out of range$"):
        state.group_at(-1)
    with pytest.raises(TypeError):
        state.group_at("A1")
    with pytest.raises(ValueError):
        state.mask(7)
    with pytest.raises(ValueError, match="negative"):
        state.territory_masks(-5)
    assert state.history(-3) == [] and state.history(0, True) == [] and state.seeded_playout(1, 0) == 0
    board = Board(size=3)
    with pytest.raises(IllegalMoveError, match=r"^illegal move: Move\(Point\(7, 7, 0\)\) is off a 3x3 board$"):
        board.push(Move(Point(7, 7, 0)))



@needs_search
def test_bad_arguments_to_the_search_raise_python_exceptions():
    from margo_gtp.players import _search

    state = core.native_state(core.board_on_core(Board(size=3), "native"))
    with pytest.raises(ValueError, match="625"):
        _search.heavy_playout(state, (1, 2, 3), 10, 0.9)
    with pytest.raises(TypeError):
        _search.heavy_playout(state, random.Random(1).getstate()[1], 10, "often")
    with pytest.raises(TypeError, match="^a margo_gtp.engine._native.State expected, not Board$"):
        _search.heavy_playout(core.board_on_core(Board(size=3), "python"), random.Random(1).getstate()[1], 10, 0.9)
    with pytest.raises(TypeError, match="^a margo_gtp.engine._native.State expected, not int$"):
        _search.simulate(7, 1, 10, 0.5, True, 0, (1.5, 0.15, 0.3, 0.25, 0.5, 0))
    with pytest.raises(ValueError, match="^evaluator must be 0 or 1$"):
        _search.simulate(state, 1, 10, 0.5, True, 2, (1.5, 0.15, 0.3, 0.25, 0.5, 0))

@needs_native
@pytest.mark.parametrize("ladder_depth", [0, 1, 4])
def test_mcts_bulk_call_evaluates_like_the_python_evaluators(both_cores, monkeypatch, ladder_depth):
    """max_moves=0: the C leaf evaluation alone, against mcts.py's evaluators, exactly,
    with the ladder reading off and on."""
    from margo_gtp.players import mcts, search_config

    monkeypatch.setattr(search_config, "LADDER_DEPTH", ladder_depth)  # the tunables block

    rng = random.Random(11)
    for trial in range(120):
        size = rng.choice([3, 4, 5, 7, 9])
        rules = Rules(size=size, all_freedoms=rng.random() < 0.3, scoring=rng.choice(["balls", "territory"]),
                      komi=rng.choice([0.0, 0.5]), allow_pass=rng.random() < 0.2, bridge_cutting=rng.random() < 0.8)
        python_board, native_board = both_cores(rules)
        python_board.random_playout(random.Random(trial), rng.randrange(150))
        for move in python_board.move_stack:
            native_board.push(move)
        for evaluator in (mcts.heuristic_evaluator, mcts.territory_evaluator):
            expected = evaluator(python_board) if not python_board.is_game_over() else None
            python_result = mcts.seeded_playout(python_board.copy(), 0, 0, evaluator)
            assert mcts.seeded_playout(native_board.copy(), 0, 0, evaluator) == python_result
            assert expected is None or python_result == expected


@needs_native
@pytest.mark.parametrize("playout_moves", [10, -1])
def test_mcts_simulations_are_the_same_on_both_cores(both_cores, playout_moves):
    """The bulk call plays the splitmix64 game of Board.seeded_playout and scores it as
    the Python path does."""
    from margo_gtp.players import mcts

    played = 0
    for seed in range(30):
        rules = Rules(size=5, allow_pass=seed % 3 == 0, first_capture_wins=seed % 4 == 0, scoring="territory")
        python_board, native_board = both_cores(rules)
        for board in (python_board, native_board):  # a common opening
            board.seeded_playout(seed + 1000, 6)
        python_result = mcts.seeded_playout(python_board, seed, playout_moves, mcts.heuristic_evaluator)
        native_result = mcts.seeded_playout(native_board, seed, playout_moves, mcts.heuristic_evaluator)
        assert native_result == python_result
        assert native_board.history == python_board.history
        played += native_board.ply - 6
    assert played > 0


@needs_native
@pytest.mark.parametrize("ladder_depth", [0, 4])
def test_mcts_search_is_the_same_on_both_cores(both_cores, monkeypatch, ladder_depth):
    from margo_gtp.players import search_config
    from margo_gtp.players.mcts import MctsPlayer

    monkeypatch.setattr(search_config, "LADDER_DEPTH", ladder_depth)  # a new player's default

    choices = []
    for board in both_cores(Rules(size=5)):
        player = MctsPlayer(random.Random(4), reuse=False, early_stop=False)
        root = player.search(board, board.to_move, playouts=150)
        choices.append([(child.move, child.n, child.w, child.rave_n) for child in root.children])
    assert choices[0] == choices[1]


@needs_native
def test_native_boards_pickle_and_deepcopy(both_cores):
    import copy
    import pickle

    _, board = both_cores(Rules(size=5, ko_rule="simple"))
    board.setup({Point(0, 0, 0): Colour.BLACK}, to_move=Colour.BLACK)
    board.random_playout(random.Random(2), max_moves=30)
    for clone in (pickle.loads(pickle.dumps(board)), copy.deepcopy(board)):
        assert type(clone) is type(board) and clone == board and state_of(clone) == state_of(board)
        clone.pop()
        assert clone.ply == board.ply - 1  # independent



@needs_native
@native_settings
@given(rules=random_rules(), seed=st.integers(0, 2**32 - 1), setup_points=st.integers(0, 6))
def test_board_on_core_gives_the_same_board_on_the_other_core(rules, seed, setup_points):
    """core.board_on_core: the same root (a set-up position), history and state, so undo
    and repetition carry over; the board itself when it is on that core already."""
    board = Board(rules)
    rng = random.Random(seed)
    geometry = board.geometry
    plane = [point for point in geometry.points if point.level == 0]
    board.setup({point: rng.choice(list(Colour)) for point in rng.sample(plane, min(setup_points, len(plane)))})
    board.random_playout(rng, max_moves=rng.randrange(0, 40))
    own = core.board_core(board)
    assert core.board_on_core(board, own) is board
    for name in ("python", "native"):
        other = core.board_on_core(core.board_on_core(board, name), own)  # there and back
        if name != own:
            assert core.board_core(core.board_on_core(board, name)) == name
        assert core.board_core(other) == own
        assert other == board and state_of(other) == state_of(board)
        assert other.legal_moves() == board.legal_moves()
        if other.ply and other is not board:
            other.pop()
            assert other.ply == board.ply - 1  # a separate board


def test_board_on_core_rejects_unknown_names():
    with pytest.raises(ValueError, match=r"^invalid core: 'fortran' \(allowed native, python\)$"):
        core.board_on_core(Board(Rules(size=3)), "fortran")


@needs_native
@pytest.mark.parametrize("search_core", ["python", "native"])
def test_mcts_core_option_searches_on_that_core(both_cores, monkeypatch, search_core):
    """``mcts:core=...`` searches a copy on the named core, whatever core the game board is
    on: a seeded search builds the same tree either way (the cores play the same
    simulations), and every board the search plays on is on that core."""
    from margo_gtp.players import evaluate, make_player

    seen_cores = set()
    real_seeded_playout = evaluate.seeded_playout

    def spy(board, *args, **kwargs):
        seen_cores.add(core.board_core(board))
        return real_seeded_playout(board, *args, **kwargs)

    monkeypatch.setattr(evaluate, "seeded_playout", spy)  # what the Python tree calls
    trees = []
    for board in both_cores(Rules(size=5)):
        board.seeded_playout(11, 8)
        player = make_player(f"mcts:playouts=120,core={search_core},reuse=off,early_stop=off", seed=4)
        player.c_tree = False  # the Python search, whose playouts the spy sees (test_native_search.py: the C tree)
        root = player.search(board, board.to_move, playouts=120)
        trees.append([(child.move, child.n, child.w, child.rave_n) for child in root.children])
    assert trees[0] == trees[1]
    assert seen_cores == {search_core}


# -- the MCTS selection step in C (_search.uct_select) -------------------------------------

_stat_counts = st.integers(min_value=0, max_value=400)


@st.composite
def _children_stats(draw):
    """Children as MCTS leaves them: visits, wins <= visits (with the prior), AMAF stats;
    values drawn from a few so that ties between children happen often."""
    from margo_gtp.players.mcts import Node

    children = []
    for k in range(draw(st.integers(min_value=1, max_value=12))):
        child = Node(None, 0, k, None)
        child.n = draw(st.sampled_from([0, 1, 2, 3, 10, 57, 400]))
        child.w = draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0])) * (child.n / 2 if child.n else 0.0)
        child.rave_n = draw(st.sampled_from([0, 0, 1, 4, 33]))
        child.rave_w = draw(st.sampled_from([0.0, 0.5, 1.0])) * child.rave_n
        children.append(child)
    return children


@needs_search
@settings(max_examples=300, deadline=None)
@given(children=_children_stats(), parent_n=st.integers(min_value=0, max_value=5000),
       uct_c=st.sampled_from([0.0, 0.2, 0.44, 1.0]), rave_k=st.sampled_from([0, 0.0, 50, 300.0, 1000.0]))
def test_native_uct_select_picks_the_child_the_python_loop_picks(children, parent_n, uct_c, rave_k):
    import math

    from margo_gtp.players import _search, mcts

    log_parent = math.log(parent_n + 1)
    best, best_score = None, -1.0
    for child in children:
        score = mcts._child_score(child, log_parent, uct_c, rave_k)
        if score > best_score:
            best, best_score = child, score
    prior_w = mcts.PRIOR_VALUE * mcts.PRIOR_VISITS
    assert _search.uct_select(children, log_parent, uct_c, rave_k, mcts.PRIOR_VISITS, prior_w) is best


@needs_search
def test_native_uct_select_rejects_bad_arguments():
    from margo_gtp.players import _search

    with pytest.raises(TypeError, match="uct_select takes 6 arguments"):
        _search.uct_select([], 0.0)
    with pytest.raises(TypeError, match="children must be a list"):
        _search.uct_select((), 0.0, 1.0, 0.0, 1, 0.5)
    with pytest.raises(AttributeError):
        _search.uct_select([object()], 0.0, 1.0, 0.0, 1, 0.5)
    assert _search.uct_select([], 0.0, 1.0, 0.0, 1, 0.5) is None
