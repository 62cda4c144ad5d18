"""The house rule: each room imports only from the rooms below it, and nothing imports in a circle.

Every ``import`` statement of every module under ``margo_gtp/`` and ``adapters/`` is read with
:mod:`ast` (lazy imports inside functions count too: they are imports all the same). A module's
room is the longest prefix of its dotted name found in ``ROOMS``; an import of a module in a
higher room fails the test, and so does any cycle between modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"margo_gtp": ROOT / "margo_gtp", "margo_adapters": ROOT / "adapters"}

# Lowest first. ``margo_gtp`` itself (the package __init__: only __version__) is the floor.
ROOMS = [
    "margo_gtp",
    "margo_gtp.textfile",  # reading user-named files: no project imports at all
    "margo_gtp.options",
    "margo_gtp.vertex",
    "margo_gtp.engine",
    "margo_gtp.players",
    "margo_gtp.sgf",
    "margo_gtp.protocol",
    "margo_gtp.client",
    "margo_gtp.game",  # the game loop, bots and record: uses client, players, sgf; used by web and adapters
    "margo_gtp.cli",
    "margo_gtp.bench",  # above cli: it runs through cli.run_app like every console script
    "margo_gtp.web",
    "margo_adapters",
    "margo_gtp.lab",  # self-play data and network training: above the referee (its folder lock)
]


def module_name(package: str, path: Path) -> str:
    parts = list(path.relative_to(PACKAGES[package]).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def all_modules() -> dict[str, Path]:
    return {
        module_name(package, path): path
        for package, folder in PACKAGES.items()
        for path in sorted(folder.rglob("*.py"))
    }


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of ours that ``name`` imports, resolved to the most specific known module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def room_of(name: str) -> int:
    best = max((room for room in ROOMS if name == room or name.startswith(room + ".")), key=len)
    return ROOMS.index(best)


MODULES = all_modules()
GRAPH = {name: imported_modules(name, path, set(MODULES)) for name, path in MODULES.items()}


def test_the_walk_sees_the_known_modules():
    assert {"margo_gtp.engine.board", "margo_gtp.players.mcts", "margo_gtp.protocol.session",
            "margo_gtp.sgf", "margo_adapters.referee"} <= set(MODULES)
    assert {"margo_gtp.engine", "margo_gtp.vertex"} <= GRAPH["margo_gtp.players.mcts"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_upward_import(name):
    upward = sorted(
        target for target in GRAPH[name]
        if room_of(target) > room_of(name) and not (target == "margo_gtp" and name.startswith("margo_gtp"))
    )
    assert upward == [], f"{name} ({ROOMS[room_of(name)]}) imports from rooms above it: {upward}"


def test_nothing_under_margo_gtp_imports_the_adapters():
    offenders = {name: sorted(t for t in targets if t.startswith("margo_adapters"))
                 for name, targets in GRAPH.items() if name.startswith("margo_gtp")}
    assert {name: targets for name, targets in offenders.items() if targets} == {}


def test_no_import_cycle():
    """Modules importing each other, directly or through others (package __init__ re-exports excepted)."""
    def edges(name: str) -> set[str]:
        # A package __init__ re-exporting its submodules is not a cycle with them.
        return {t for t in GRAPH[name] if not (MODULES[t].name == "__init__.py" and name.startswith(t + "."))}

    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(name: str, stack: list[str]) -> None:
        state[name] = 1
        stack.append(name)
        for target in sorted(edges(name)):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target, stack)
        stack.pop()
        state[name] = 2

    for name in sorted(MODULES):
        if name not in state:
            visit(name, [])
    assert cycles == []
