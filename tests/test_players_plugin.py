"""A third-party player registered through the ``margo_gtp.players`` entry-point group is
selectable by name, from Python and from ``margo-gtp --player``.

The fixture package ``tests/plugin_player`` is copied to a temporary directory and
installed from there with pip into a temporary ``--target`` directory that the child
processes put on ``PYTHONPATH``; the project .venv is not touched. The build is offline:
no package index (``--no-index``) and no build isolation, so pip builds with the
setuptools and wheel that ``scripts/setup`` installed (the ``test`` extra).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).parent / "plugin_player"
pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("plugin-site")
    source = tmp_path_factory.mktemp("plugin-source") / "plugin_player"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no index from a config file either: offline
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-build-isolation",
         "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=120, cwd=source.parent, env=env,
    )
    assert done.returncode == 0, done.stderr
    return target


def _run(code: str, plugin_path: Path | None, stdin: str | None = None, args: list[str] | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if plugin_path is not None:
        env["PYTHONPATH"] = str(plugin_path) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, "-c", code] if args is None else args
    return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=60)


PROBE = """
from margo_gtp.engine import Board, Rules, Colour
from margo_gtp.players import available_players, make_player, Budget
board = Board(Rules(size=3))
print('plugin-last' in available_players())
for spec in ('plugin-last', 'plugin-last:first=on'):
    player = make_player(spec)
    print(player.name, player.select_move(board, Colour.WHITE, Budget()).gtp())
"""


def test_entry_point_player_is_selectable(plugin_path: Path) -> None:
    result = _run(PROBE, plugin_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "True\nplugin-last C3:1\nplugin-last A1:1\n"


def test_without_the_package_the_name_is_unknown() -> None:
    result = _run(PROBE, None)
    assert result.returncode != 0
    assert "unknown player 'plugin-last' in spec 'plugin-last'" in result.stderr


def test_entry_point_player_bad_option_quotes_it(plugin_path: Path) -> None:
    result = _run("from margo_gtp.players import make_player\nmake_player('plugin-last:depth=2')", plugin_path)
    assert "unknown option(s) for player 'plugin-last': depth" in result.stderr


def test_margo_gtp_cli_plays_with_the_entry_point_player(plugin_path: Path) -> None:
    result = _run("", plugin_path, stdin="boardsize 3\ngenmove w\ngenmove b\nquit\n",
                  args=[str(Path(sys.executable).with_name("margo-gtp")), "--player", "plugin-last"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "=\n\n= C3:1\n\n= B3:1\n\n=\n\n"
