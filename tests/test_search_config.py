"""The search's one shape: SearchConfig (checked once, filled by the spec), read by the C
tree by field name, and the one stderr line when a setting keeps the C tree from running.

The trees themselves are compared in test_native_search.py; here, that every setting
reaches both of them through the one config."""

from __future__ import annotations

import dataclasses
import random
import types

import pytest

from margo_gtp.engine import Board, Rules, core
from margo_gtp.engine.positions import midgame_positions
from margo_gtp.players import PlayerSpecError, make_player, native_search
from margo_gtp.players.base import Budget
from margo_gtp.players.mcts import MctsPlayer
from margo_gtp.players.search_config import SETTINGS, TUNABLES, SearchConfig
from margo_gtp.players.spec import OPTIONS

needs_c_tree = pytest.mark.skipif(not (core.native_available() and native_search.available()),
                                  reason="native core or native search not built")

NOTICE = "mcts: {} cannot run on the C tree: the Python tree searches instead (slower)\n"


# -- the config: checked once, with one-line errors


@pytest.mark.parametrize(("changes", "message"), [
    ({"pattern_mix": 1.5}, "pattern_mix must be between 0 and 1: 1.5"),
    ({"heavy_tactics": -0.1}, "heavy_tactics must be between 0 and 1: -0.1"),
    ({"resign": 2}, "resign must be between 0 and 1: 2"),
    ({"prior_temp": 0}, "prior_temp must be a finite number > 0: 0"),
    ({"prior_temp": float("inf")}, "prior_temp must be a finite number > 0: inf"),
    ({"seconds": -1.0}, "seconds must be a finite number >= 0: -1.0"),
    ({"seconds": float("nan")}, "seconds must be a finite number >= 0: nan"),
    ({"playouts": 0}, "playouts must be a whole number >= 1: 0"),
    ({"playouts": 2.5}, "playouts must be a whole number >= 1: 2.5"),
    ({"playout_moves": -2}, "playout_moves must be -1 or a whole number >= 0: -2"),
    ({"prior_depth": -2}, "prior_depth must be -1 or a whole number >= 0: -2"),
    ({"prior_visits": -1}, "prior_visits must be a whole number >= 0: -1"),
    ({"resign_min_visits": True}, "resign_min_visits must be a whole number >= 0: True"),
    ({"ladder_depth": 9}, "ladder_depth must be between 0 and 8: 9"),
    ({"max_nodes": 5}, "max_nodes must be a whole number from 2473 to 2147483647: 5"),
    ({"max_nodes": 2**31}, "max_nodes must be a whole number from 2473 to 2147483647: 2147483648"),
    ({"evaluator": "material"}, "evaluator must be one of heuristic, territory (or a callable): 'material'"),
    ({"playout_policy": "medium"}, "playout_policy must be one of light, heavy: 'medium'"),
    ({"core": "fortran"}, "core must be one of native, python: 'fortran'"),
    ({"playout_cap": 0}, "playout_cap must be a whole number >= 1: 0"),
    ({"decided_check_every": 0}, "decided_check_every must be a whole number >= 1: 0"),
])
def test_a_config_out_of_range_is_refused_in_one_line(changes, message):
    with pytest.raises(ValueError) as refused:
        SearchConfig(**changes)
    assert str(refused.value) == message
    with pytest.raises(ValueError) as refused:  # the player's keywords are the config's
        MctsPlayer(random.Random(1), **changes)
    assert str(refused.value) == message


def test_the_config_is_frozen_and_clamps_counts_below_one():
    config = SearchConfig(expand_visits=0, resign_moves=-3, threads=0)
    assert (config.expand_visits, config.resign_moves, config.threads) == (1, 1, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.uct_c = 1.0  # type: ignore[misc]
    assert config.replace(uct_c=1.0).uct_c == 1.0 and config.uct_c == 0.2
    with pytest.raises(ValueError, match="^pattern_mix must be between 0 and 1: 3$"):
        config.replace(pattern_mix=3)


def test_ladder_none_reads_the_tunable_at_each_evaluation(monkeypatch):
    from margo_gtp.players import search_config

    config = SearchConfig()
    assert config.ladder_depth is None and config.ladder == 0
    monkeypatch.setattr(search_config, "LADDER_DEPTH", 3)
    assert config.ladder == 3 and SearchConfig(ladder_depth=1).ladder == 1


def test_every_spec_option_sets_a_config_field_and_the_spec_fills_the_config():
    assert sorted(name for name, _ in OPTIONS.values()) == sorted(SETTINGS)
    assert not set(TUNABLES) & set(SETTINGS)
    player = make_player("mcts:c=0.3,rave=100,playout_moves=-1,ladder=2,eval=territory,expand=1,prior_depth=0,"
                         "prior_visits=4,prior_temp=2.5,resign=0.1,resign_visits=50,resign_moves=2,reuse=off,"
                         "early_stop=off,max_nodes=5000,playouts=70,seconds=3", seed=1)
    assert player.config == SearchConfig(
        uct_c=0.3, rave_k=100.0, playout_moves=-1, ladder_depth=2, evaluator="territory", expand_visits=1,
        prior_depth=0, prior_visits=4, prior_temp=2.5, resign=0.1, resign_min_visits=50, resign_moves=2,
        reuse=False, early_stop=False, max_nodes=5000, playouts=70, seconds=3.0, threads=1)
    assert player.uct_c == 0.3 and player.max_nodes == 5000  # the settings, by field name, on the player


def test_the_spec_refusals_are_the_spec_texts_not_the_configs():
    with pytest.raises(PlayerSpecError) as refused:
        make_player("mcts:pattern_mix=1.5")
    assert str(refused.value) == "player option pattern_mix must be between 0 and 1: '1.5'"
    with pytest.raises(PlayerSpecError) as refused:
        make_player("mcts:c=-1")
    assert str(refused.value) == "player option c must be a finite number >= 0: '-1'"


# -- the config reaches the C tree by field name


def _root_stats(config: SearchConfig, *, on_c_tree: bool, board: Board) -> list[tuple]:
    player = MctsPlayer(random.Random(5), config=config, c_tree=on_c_tree)
    root = player.search(board, board.to_move, playouts=200)
    assert (player.last_tree_nodes > 0) == on_c_tree
    return [(child.move, child.n, child.w, child.rave_n, child.rave_w, child.prior) for child in root.children]


@needs_c_tree
@pytest.mark.parametrize("change", [
    {"uct_c": 1.0}, {"rave_k": 20.0}, {"expand_visits": 1}, {"prior_visits": 3}, {"prior_temp": 1.0},
    {"prior_low": 0.3}, {"prior_high": 0.7}, {"uct_prior_visits": 3}, {"prior_value": 0.0},
    {"playout_moves": 3}, {"playout_moves": -1, "playout_cap": 4}, {"evaluator": "territory"}, {"ladder_depth": 3},
    {"eval_scale_min": 4.0}, {"eval_scale_per_point": 0.5}, {"freedom_value": 1.0},
    {"short_of_freedoms_loss": 0.9}, {"group_cost": 2.0},
], ids=lambda change: ",".join(change))
def test_a_changed_field_changes_the_c_tree_as_it_changes_the_python_tree(change):
    """Each field the C tree reads, changed: the C tree's search changes, and is the Python
    tree's search of the same config (so the C glue read that field, by its name)."""
    board = core.board_on_core(midgame_positions()[1], "native")
    base = SearchConfig(reuse=False, early_stop=False)
    changed = base.replace(**change)
    on_c = _root_stats(changed, on_c_tree=True, board=board)
    assert on_c == _root_stats(changed, on_c_tree=False, board=board)
    assert on_c != _root_stats(base, on_c_tree=True, board=board)


@needs_c_tree
def test_the_c_glue_reads_fields_by_name_and_names_a_missing_one():
    board = core.board_on_core(midgame_positions()[0], "native")
    config = SearchConfig(early_stop=False, uct_c=0.5)
    fields = {name: getattr(config, name) for name in SearchConfig.__dataclass_fields__} | {"ladder": config.ladder}
    same = types.SimpleNamespace(**fields)  # not a SearchConfig, not a tuple: the same fields by name
    searched = [native_search.tree_search(board, board.to_move, random.Random(2), settings, 60, None)
                for settings in (config, same)]
    assert searched[0] == searched[1] and searched[0][0] == 60
    del fields["rave_k"]
    with pytest.raises(TypeError) as refused:
        native_search.tree_search(board, board.to_move, random.Random(2), types.SimpleNamespace(**fields), 60, None)
    assert str(refused.value) == "no field 'rave_k' in the search config (types.SimpleNamespace given)"
    with pytest.raises(TypeError) as refused:
        native_search.simulate(board, 1, 10, 0, types.SimpleNamespace())
    assert str(refused.value) == "no field 'eval_scale_min' in the search config (types.SimpleNamespace given)"
    with pytest.raises(ValueError) as refused:  # a Python evaluator has no C port
        native_search.tree_search(board, board.to_move, random.Random(2),
                                  types.SimpleNamespace(**(fields | {"rave_k": 300.0, "evaluator": print})), 60, None)
    assert str(refused.value) == "the search config's evaluator must be 'heuristic' or 'territory'"


# -- a setting the C tree cannot run: one line on stderr, once per player


class Constant:
    """An evaluator the C tree cannot run: a Python callable."""

    def __call__(self, board: Board) -> float:
        return 0.5


def fake_clock() -> float:
    return 0.0


def _play_moves(player: MctsPlayer, moves: int = 3) -> None:
    board = Board(Rules(size=5))
    for _ in range(moves):
        move = player.select_move(board, board.to_move, Budget(playouts=20))
        colour = board.to_move
        board.push(move)
        player.notify(board, move, colour)


@needs_c_tree
@pytest.mark.parametrize(("settings", "named"), [
    ({"playout_policy": "heavy"}, "policy=heavy"),
    ({"evaluator": Constant()}, "evaluator=Constant"),
    ({"clock": fake_clock}, "clock=fake_clock"),
    ({"core": "python"}, "core=python"),
])
def test_a_setting_the_c_tree_cannot_run_is_said_once_per_player(capsys, settings, named):
    for _ in range(2):  # two players: a line each, whatever the number of moves
        player = MctsPlayer(random.Random(1), playouts=20, **settings)
        assert capsys.readouterr().err == ""  # said when it searches, not when it is made
        _play_moves(player)
        assert player.last_tree_nodes == 0  # the Python tree searched
        assert capsys.readouterr().err == NOTICE.format(named)


@needs_c_tree
def test_the_spec_player_says_it_too_and_c_tree_off_or_a_c_tree_config_says_nothing(capsys):
    _play_moves(make_player("mcts:policy=heavy,playouts=20", seed=3))
    assert capsys.readouterr().err == NOTICE.format("policy=heavy")
    quiet = MctsPlayer(random.Random(1), playout_policy="heavy", c_tree=False)  # the reference, asked for
    _play_moves(quiet)
    c_tree_player = make_player("mcts:playouts=20", seed=3)
    _play_moves(c_tree_player)
    assert c_tree_player.last_tree_nodes > 0 and capsys.readouterr().err == ""
