"""The strongest player by default, the strength levels (``--level N``, ``margo-level N``),
the move temperature they weaken with, and ``margo-gtp --list-players``."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from margo_gtp.engine import Board, Colour, Move, Rules
from margo_gtp.players import PlayerSpecError, make_player
from margo_gtp.players import levels
from margo_gtp.players.catalogue import catalogue
from margo_gtp.players.levels import LEVELS, LevelError, level_labels, read_level, strongest_here
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.searcher import Node, choose_by_visits
from margo_gtp.protocol.session import make_gtp_engine

MARGO_GTP = str(Path(sys.executable).parent / "margo-gtp")
HAS_NET = all(importlib.util.find_spec(module) for module in ("numpy", "onnxruntime"))


# -- the move temperature --------------------------------------------------------------


def test_temperature_zero_plays_the_most_visited_and_the_first_of_equals() -> None:
    rng = random.Random(1)
    assert choose_by_visits([3, 9, 9, 1], 0, rng) == 1
    assert choose_by_visits([0, 0, 0], 0.5, rng) == 0  # nothing visited: the first, no draw


def test_temperature_draws_in_proportion_to_visits_to_the_power_one_over_t() -> None:
    visits = [60, 30, 10, 0]
    draws = 20000
    for temperature, expected in [(1, [0.6, 0.3, 0.1, 0]), (0.5, [3600 / 4600, 900 / 4600, 100 / 4600, 0])]:
        rng = random.Random(7)
        counts = [0] * len(visits)
        for _ in range(draws):
            counts[choose_by_visits(visits, temperature, rng)] += 1
        assert counts[3] == 0  # a move the search never visited is never played
        for count, share in zip(counts, expected):
            assert abs(count / draws - share) < 0.015, (temperature, counts)


def test_temperature_draws_are_reproducible_from_a_seed_and_survive_a_tiny_temperature() -> None:
    visits = [5, 40, 20, 35]
    first = [choose_by_visits(visits, 1.0, random.Random(3)) for _ in range(5)]
    again = [choose_by_visits(visits, 1.0, random.Random(3)) for _ in range(5)]
    assert first == again
    assert [choose_by_visits(visits, 1e-6, random.Random(seed)) for seed in range(20)] == [1] * 20  # no overflow


def _fixed_root() -> Node:
    """A root whose children have fixed visits: C3:1 60, D4:1 30, B2:1 10."""
    root = Node(None, 1, 0, None)
    root.children = []
    for vertex, visits in [("C3", 60), ("D4", 30), ("B2", 10)]:
        child = Node(Move.from_gtp(vertex, 5), 0, 0, root)
        child.n, child.w = visits, visits / 2
        root.children.append(child)
    root.n = 100
    return root


@pytest.mark.parametrize("temperature, expected", [(0, {"C3:1": 400}), (1, {"C3:1": 233, "D4:1": 120, "B2:1": 47})])
def test_mcts_plays_by_its_temperature_on_a_fixed_tree(temperature: float, expected: dict[str, int],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    player = make_player(f"mcts:temperature={temperature},threads=1", seed=11)
    assert isinstance(player, MctsPlayer) and player.config.temperature == temperature
    monkeypatch.setattr(player, "search", lambda *args, **kwargs: _fixed_root())
    board = Board(Rules(size=5))
    counts: dict[str, int] = {}
    for _ in range(400):
        move = player.select_move(board, Colour.BLACK, player_budget())
        counts[move.gtp()] = counts.get(move.gtp(), 0) + 1
    assert counts == expected


def player_budget():
    from margo_gtp.players import Budget

    return Budget(playouts=1)


@pytest.mark.parametrize("spec, message", [
    ("mcts:temperature=-1", "player option temperature must be a finite number >= 0: '-1'"),
    ("mcts:temperature=inf", "player option temperature must be a finite number >= 0: 'inf'"),
])
def test_a_bad_temperature_is_one_line(spec: str, message: str) -> None:
    with pytest.raises(PlayerSpecError) as caught:
        make_player(spec)
    assert str(caught.value) == message


# -- the levels ---------------------------------------------------------------------


def test_the_levels_run_from_a_handful_of_playouts_to_the_strongest() -> None:
    assert list(LEVELS) == list(range(1, 9))
    assert LEVELS[8] == "strongest"
    playouts = [int(spec.split("playouts=")[1].split(",")[0]) for level, spec in LEVELS.items() if level <= 6]
    assert playouts == sorted(playouts) and playouts[0] <= 10
    for level in range(1, 8):
        player = make_player(LEVELS[level], seed=1)
        assert isinstance(player, MctsPlayer) and player.config.threads == 1


@pytest.mark.parametrize("text", ["0", "9", "x", "", "1.5", "-1", "３", "+3"])
def test_an_unknown_level_names_the_value_and_the_range(text: str) -> None:
    with pytest.raises(LevelError) as caught:
        read_level(text)
    assert str(caught.value) == f"level must be a whole number from 1 to 8: {text!r}"


def test_level_labels_read_the_measured_elo_and_name_an_unmeasured_level_alone(tmp_path: Path) -> None:
    path = tmp_path / "levels.json"
    path.write_text(json.dumps({"elo": {"1": 312.4, "3": 1234, "8": None}}))
    labels = level_labels(path)
    assert labels[1] == "Level 1 — about 300"
    assert labels[3] == "Level 3 — about 1,200"
    assert labels[2] == labels[2] == "Level 2" and labels[8] == "Level 8"
    path.write_text("{not json")
    assert level_labels(path) == {level: f"Level {level}" for level in LEVELS}
    assert level_labels(tmp_path / "missing.json") == {level: f"Level {level}" for level in LEVELS}


def test_the_shipped_levels_file_is_what_the_labels_read() -> None:
    data = json.loads(levels.LEVELS_FILE.read_text(encoding="utf-8"))
    assert set(data["elo"]) == {str(level) for level in LEVELS}
    assert data["specs"] == {str(level): spec for level, spec in LEVELS.items()}


# -- strongest ----------------------------------------------------------------------


def test_strongest_is_net_where_onnxruntime_is_installed_else_mcts(monkeypatch: pytest.MonkeyPatch) -> None:
    if HAS_NET:
        from margo_gtp.players.net import NetPlayer

        assert strongest_here() == ("net", "net on 7x7, 9x9 (mcts on other sizes)")
        assert isinstance(make_player("strongest", seed=1), NetPlayer)
    monkeypatch.setattr(levels.importlib.util, "find_spec", lambda name: None if name == "onnxruntime" else object())
    assert strongest_here() == ("mcts", "the net player needs the net extra (onnxruntime is not installed: "
                                        "pip install 'margo-gtp[net]')")
    player = make_player("strongest", seed=1)
    assert isinstance(player, MctsPlayer) and player.config.threads == 1
    with pytest.raises(PlayerSpecError, match=r"^unknown option\(s\) for player 'strongest': seconds$"):
        make_player("strongest:seconds=1")


# -- GTP: margo-level -----------------------------------------------------------------


def test_margo_level_changes_the_player_and_a_refused_level_keeps_it() -> None:
    stderr = io.StringIO()
    engine = make_gtp_engine(make_player("random", 0), stderr=stderr, seed=5)
    engine.respond("play w c3\n")
    before = engine.session.player
    assert engine.respond("margo-level 12\n")[0] == "? syntax error\n\n"
    assert engine.session.player is before
    assert stderr.getvalue() == "margo-gtp: syntax error: 'margo-level 12': level must be a whole number from 1 to 8: '12'\n"
    assert engine.respond("margo-level 2\n")[0] == "=\n\n"
    player = engine.session.player
    assert isinstance(player, MctsPlayer) and (player.config.playouts, player.config.temperature) == (25, 0.7)
    assert engine.respond("genmove b\n")[0].startswith("= ")


# -- the command line ----------------------------------------------------------------


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([MARGO_GTP, *args], input=stdin, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, COLUMNS="200"))


def test_list_players_lists_every_player_its_options_and_the_levels() -> None:
    done = run("--list-players")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == catalogue()
    lines = done.stdout.splitlines()
    assert lines[0] == "Players of --player NAME[:KEY=VALUE,...] (every player also takes seed=N):"
    assert lines[2].startswith("strongest: the default, the strongest player here: ")
    assert "  temperature=0                 a finite number >= 0" in lines
    assert "  threads=auto (1 with a seed)  auto or 1..256" in lines
    assert "random: a uniformly random legal move" in lines
    assert lines[-9:] == [
        "Levels of --level N (over GTP: margo-level N), weakest first; docs/strength.md has their Elo:",
        *(f"  {level}  {spec}" for level, spec in LEVELS.items()),
    ]


POINTER = "(margo-gtp --list-players lists the players, their options and the levels)"


@pytest.mark.parametrize("args, line", [
    (["--level", "9"], f"margo-gtp: Invalid value for --level: level must be a whole number from 1 to 8: '9' {POINTER}"),
    (["--player", "nosuch"], "margo-gtp: Invalid value for --player: unknown player 'nosuch' in spec 'nosuch' "
                             f"(known: heuristic, mcts, net, perfect, random, strongest) {POINTER}"),
    (["--player", "random:depth=2"], f"margo-gtp: Invalid value for --player: unknown option(s) for player 'random': depth {POINTER}"),
    (["--player", "random", "--level", "2"], "margo-gtp: give --player or --level, not both (margo-gtp --help lists the options)"),
])
def test_a_refused_player_or_level_is_one_line_pointing_to_the_list(args: list[str], line: str) -> None:
    done = run(*args, stdin="name\n")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")


def test_help_shows_the_real_default_and_the_level_option() -> None:
    text = " ".join(run("--help").stdout.split())
    assert "Default: strongest (the net player where ONNX Runtime is installed and a network ships for the size, " \
           "else mcts; 1 s a move, or the controller's clock)" in text
    assert "--level N Play at strength level N, 1 (a beginner) to 8 (the strongest, the default)" in text
    assert "[default: random]" not in text


def test_a_level_plays_over_the_wire() -> None:
    done = run("--level", "1", "--seed", "3", "--size", "5", stdin="genmove b\nmargo-level 2\ngenmove w\n")
    assert done.returncode == 0 and done.stderr == ""
    answers = done.stdout.split("\n\n")
    assert answers[0].startswith("= ") and answers[1] == "=" and answers[2].startswith("= ")


# -- scripts/levels -------------------------------------------------------------------


def _levels_script():
    import importlib.machinery

    path = Path(__file__).resolve().parent.parent / "scripts" / "levels"
    loader = importlib.machinery.SourceFileLoader("levels_script", str(path))
    spec = importlib.util.spec_from_loader("levels_script", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_levels_script_chains_the_pairs_and_fills_the_file_the_form_reads(tmp_path: Path) -> None:
    script = _levels_script()
    winners = {1: ["A"] * 4, 2: ["A", "B", "A", None], 3: ["A", "B"]}  # level 3's last pair not played yet
    for upper, results in winners.items():
        folder = script.pair_folder(tmp_path / "out", upper)
        folder.mkdir(parents=True)
        lines = "".join(json.dumps({"game": n, "winner": w}) + "\n" for n, w in enumerate(results, 1))
        (folder / "results.jsonl").write_text(lines + '{"game": 9, "win')  # a torn last line is left out
    rows = script.chain(tmp_path / "out", 4)
    assert [(row["games"], row["points"], row["bound"]) for row in rows] == [(4, 4, True), (4, 2.5, False), (2, 1, False), (0, 0, False)]
    assert round(rows[0]["step"]) == 382 and round(rows[1]["step"]) == 89 and rows[2]["step"] == 0
    assert [None if row["elo"] is None else round(row["elo"]) for row in rows] == [382, 470, 470, None]
    assert script.table(rows, 4).splitlines()[2:] == [
        "| 1 | `mcts:playouts=8,temperature=1,threads=1` | 4 of 4 | 4 | +382 (a floor: clean sweep) | 382 |",
        "| 2 | `mcts:playouts=25,temperature=0.7,threads=1` | 4 of 4 | 2.5 | +89 | 470 |",
        "| 3 | `mcts:playouts=80,temperature=0.5,threads=1` | 2 of 4 | 1 | +0 | 470 |",
        "| 4 | `mcts:playouts=250,temperature=0.35,threads=1` | 0 of 4 | 0 | to be measured | to be measured |",
    ]
    levels_file = tmp_path / "levels.json"
    script.write_levels_file(levels_file, rows, "scripts/levels --top 4", 7)
    labels = level_labels(levels_file)
    assert (labels[1], labels[2], labels[4], labels[8]) == ("Level 1 — about 400", "Level 2 — about 500", "Level 4", "Level 8")
    doc = tmp_path / "strength.md"
    doc.write_text(f"# Strength\n\n{script.BEGIN}\nold table\n{script.END}\nkept\n")
    script.write_doc(doc, "new table\n")
    assert doc.read_text() == f"# Strength\n\n{script.BEGIN}\nnew table\n{script.END}\nkept\n"


@pytest.mark.parametrize("option", ["--levels-file", "--doc"])
def test_the_levels_script_refuses_a_file_it_writes_that_is_a_pipe_before_any_match(tmp_path: Path, option: str,
                                                                                    capsys) -> None:
    # both are renamed over their paths at the end, which would replace a pipe with a
    # regular file; a pipe as --doc hung the read of its markers
    script = _levels_script()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(SystemExit) as exit_:
        script.parse(["--out", str(tmp_path / "out"), option, str(fifo)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"levels: error: {option} {fifo}: is a named pipe (FIFO), not a regular file"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_the_default_player_thinks_1s_without_a_clock_and_the_clocks_share_with_one() -> None:
    """strongest has no budget of its own (net's or mcts's defaults), so Budget.limits gives
    it 1 s a move with no clock, and the share of time_settings/time_left when there is one."""
    player = make_player("strongest", seed=1)
    own_playouts, own_seconds = ((player.playouts, player.seconds) if not isinstance(player, MctsPlayer)
                                 else (player.config.playouts, player.config.seconds))
    assert (own_playouts, own_seconds) == (None, None)
    engine = make_gtp_engine(player, Rules(size=7))
    assert engine.session.budget_for(Colour.WHITE).limits(own_playouts, own_seconds, 1.0, 100.0) == (None, 101.0)
    engine.respond("time_settings 60 0 0\n")
    assert engine.respond("time_left w 6 0\n")[0] == "=\n\n"
    budget = engine.session.budget_for(Colour.WHITE)
    assert budget.seconds == pytest.approx(6 / 30 * 0.9)  # the main-time share (30 moves left, SAFETY_FACTOR), not 1 s
    assert budget.limits(own_playouts, own_seconds, 1.0, 100.0) == (None, 100.0 + budget.seconds)
