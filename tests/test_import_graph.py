"""The house rule: each room imports only from the rooms below it, and nothing imports in a circle.

Every ``import`` statement of every module under ``margo_gtp/`` is read with
:mod:`ast` (lazy imports inside functions count too: they are imports all the same). A module's
room is the longest prefix of its dotted name found in ``ROOMS``; an import of a module in a
higher room fails the test, and so does any cycle between modules.

Inside the engine room, a board's rules core is the engine's own: no code outside
``margo_gtp/engine/`` (the package, the scripts, the tests) reads ``._core``
of a board; it asks the ``Board`` API (``core_state()``, ``core.board_core``, ...).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"margo_gtp": ROOT / "margo_gtp"}

# Lowest first. ``margo_gtp`` itself (the package __init__: only __version__) is the floor.
ROOMS = [
    "margo_gtp",
    "margo_gtp.textfile",  # reading user-named files: no project imports at all
    # The rest of the ground floor: each imports nothing from the package (test below).
    "margo_gtp.files",  # atomic writes, JSON lines and the torn-line rule
    "margo_gtp.progress",  # the one progress bar
    "margo_gtp.machine",  # available_cores, percentile
    "margo_gtp.workers",  # the one worker pool: the referee's, self-play's, training's, margo-analysis's
    "margo_gtp.runlock",  # a folder held by one run: the referee's and the lab's folders
    "margo_gtp.options",
    "margo_gtp.vertex",
    "margo_gtp.engine",
    "margo_gtp.players",
    "margo_gtp.sgf",
    "margo_gtp.analysis",  # game analysis and review: libraries over the search, no GTP
    "margo_gtp.protocol",
    "margo_gtp.client",
    "margo_gtp.game",  # the game loop, bots and record: uses client, players, sgf; used by web and match
    "margo_gtp.gtp2d",  # the 2-D proxy: a GTP server (protocol) over an engine client (client)
    "margo_gtp.console",  # what every console script shares (run_app, --version)
    "margo_gtp.speed_figures",  # scripts/bench: runs through console.run_app
    "margo_gtp.web",
    "margo_gtp.match",  # the referee, tournaments, statistics, openings, the cluster backend
    "margo_gtp.lab",  # self-play and training: above the referee (self-play's statistics)
    "margo_gtp.commands",  # one module per console script: nothing imports them
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
            "margo_gtp.sgf", "margo_gtp.match.referee", "margo_gtp.commands.match"} <= set(MODULES)
    assert {"margo_gtp.engine", "margo_gtp.vertex"} <= GRAPH["margo_gtp.players.mcts"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_upward_import(name):
    upward = sorted(
        target for target in GRAPH[name]
        if room_of(target) > room_of(name) and not (target == "margo_gtp" and name.startswith("margo_gtp"))
    )
    assert upward == [], f"{name} ({ROOMS[room_of(name)]}) imports from rooms above it: {upward}"


GROUND_FLOOR = ["margo_gtp.textfile", "margo_gtp.files", "margo_gtp.progress", "margo_gtp.machine", "margo_gtp.workers",
                "margo_gtp.runlock"]


@pytest.mark.parametrize("name", GROUND_FLOOR)
def test_the_ground_floor_stands_on_nothing_of_ours(name):
    """Every room may use the ground floor, so it uses nothing but the package's own
    ``__init__`` and the ground floor below it."""
    assert GRAPH[name] <= {"margo_gtp", *GROUND_FLOOR[: GROUND_FLOOR.index(name)]}, GRAPH[name]


def third_party_imports(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports (absolute imports only)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.partition(".")[0])
    return names


def module_level_imports(path: Path) -> set[str]:
    """The top-level names ``path`` imports when it is imported: everywhere but inside a
    function (a class body or a ``try`` at module level runs at import)."""
    names = set()
    pending = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        pending.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.partition(".")[0])
    return names


def test_ray_is_imported_by_the_worker_pool_alone_and_only_when_used():
    """Ray is an optional extra: the worker pool's Ray kind imports it inside its own
    functions, which the referee's cluster backend calls and ``--cluster`` imports when
    asked for; no other module imports Ray."""
    importers = sorted(name for name, path in MODULES.items() if "ray" in third_party_imports(path))
    assert importers == ["margo_gtp.workers"]
    assert "ray" not in module_level_imports(MODULES["margo_gtp.workers"])
    lazily = [name for name, targets in GRAPH.items() if "margo_gtp.match.cluster" in targets]
    assert sorted(lazily) == ["margo_gtp.match.referee_cli"]


def test_the_import_guards_tell_module_level_imports_from_lazy_ones(tmp_path):
    source = tmp_path / "lazy.py"
    source.write_text("import json\ntry:\n    import numpy\nexcept ImportError:\n    pass\n\n"
                      "def later():\n    import ray\n    from ray.exceptions import RayTaskError\n")
    assert (third_party_imports(source), module_level_imports(source)) == ({"json", "numpy", "ray"}, {"json", "numpy"})


def pool_makers(path: Path) -> set[str]:
    """What of ``multiprocessing`` and ``concurrent.futures``' pools ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("multiprocessing"))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.startswith("multiprocessing"):
                found.add(node.module)
            found.update(alias.name for alias in node.names
                         if node.module == "concurrent.futures" and alias.name.endswith("PoolExecutor"))
    return found


def test_the_pool_guard_sees_pools(tmp_path):
    source = tmp_path / "pools.py"
    source.write_text("import multiprocessing\nfrom concurrent.futures import Future, ProcessPoolExecutor\n")
    assert pool_makers(source) == {"multiprocessing", "ProcessPoolExecutor"}


def test_every_worker_pool_is_the_one_pool():
    """Issue 33: one worker pool (:mod:`margo_gtp.workers`). No other module of the package
    makes a pool or worker processes of its own (the web board's engine threads are not
    workers that share out a job: they keep a slow engine from blocking the event loop)."""
    own = {name: sorted(pool_makers(path)) for name, path in MODULES.items() if name != "margo_gtp.workers"}
    assert {name: found for name, found in own.items() if found} == {"margo_gtp.web.game": ["ThreadPoolExecutor"]}


def test_no_module_imports_a_program():
    """A module of ``commands/`` is one program's command line: the libraries sit below it,
    and no module (another program included) imports it."""
    offenders = {name: sorted(t for t in targets if t.startswith("margo_gtp.commands."))
                 for name, targets in GRAPH.items()}
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


# -- nothing outside the engine reaches into a board's core ---------------------------------

ENGINE = ROOT / "margo_gtp" / "engine"
CORE_ATTRIBUTE = re.compile(r"\._core\b")


def core_reaches(source: str) -> list[int]:
    """Lines of Python ``source`` that read an attribute ``_core`` (``board._core``,
    ``board._core._state``), in code or in a string of code (``python -c "..."``)."""
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "_core":
            lines.add(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and CORE_ATTRIBUTE.search(node.value):
            lines.add(node.lineno)
    return sorted(lines)


def outside_the_engine() -> list[Path]:
    """Every Python file of the package outside engine/ and of the tests, and
    every script (shell scripts too: their embedded Python is read as text). This file is
    left out: its own examples below are the reaches it looks for."""
    python = [path for folder in ("margo_gtp", "tests") for path in sorted((ROOT / folder).rglob("*.py"))
              if ENGINE not in path.parents and path != Path(__file__).resolve()]
    return python + sorted(path for path in (ROOT / "scripts").rglob("*") if path.is_file())


def test_the_core_guard_sees_attribute_reads_and_code_in_strings():
    source = 'state = board._core._state\nname = core_name()\ncode = "print(Board()._core)"\n_core = 1\n'
    assert core_reaches(source) == [1, 3]


def test_nothing_outside_the_engine_reaches_into_a_boards_core():
    offenders = {}
    for path in outside_the_engine():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            lines = core_reaches(text)
        else:
            lines = [n for n, line in enumerate(text.splitlines(), 1) if CORE_ATTRIBUTE.search(line)]
        if lines:
            offenders[str(path.relative_to(ROOT))] = lines
    assert len(outside_the_engine()) > 100
    assert offenders == {}, "read the Board API (core_state(), core.board_core) instead of ._core"


def test_no_module_of_the_package_is_over_800_lines():
    """Issue 33: a module a reader can hold. Every source of the package (Python, C, the page's
    JS, CSS and HTML) is at most 800 lines; a longer one is split by job, as app.js, _search.c
    and rules_position.c were."""
    sources = [path for path in (ROOT / "margo_gtp").rglob("*")
               if path.suffix in {".py", ".c", ".h", ".js", ".css", ".html"} and path.is_file()]
    assert len(sources) > 100 and ROOT / "margo_gtp" / "web" / "static" / "app.js" in sources
    lines = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in sources}
    assert {name: n for name, n in lines.items() if n > 800} == {}
