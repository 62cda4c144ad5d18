"""Packaging as a user meets it: the sdist and the wheel a release builds, each installed into a
fresh virtualenv with no C compiler reachable, then driven through its console scripts; and the
metadata that goes with them (one version source, extras, classifiers, URLs, licence,
changelog, the cibuildwheel matrix). docs/packaging.md explains the choices.

The build and install tests are slow (three fresh virtualenvs, one C build) and marked so;
they stay in the suite. Dependencies come from pip's usual indexes (through its cache) once,
into a local wheelhouse; the installs then use ``--no-index`` on that wheelhouse and the
built artifacts only, as an offline user would.
"""

from __future__ import annotations

import functools
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import margo_gtp

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
VERSION = margo_gtp.__version__
NAME = f"margo_gtp-{VERSION}"

# What the base install must bring, and the extras a user chooses from (docs/packaging.md).
BASE_DEPENDENCIES = {"typer", "rich", "sgfmill"}
EXTRAS = {"web", "cluster", "plot", "review", "test", "train", "net"}
# Modules that need an extra, and the one distribution whose absence they must report.
EXTRA_MODULES = {"margo_gtp.web.app": "starlette",
                 "margo_gtp.web.serving": "uvicorn",  # uvicorn's server settings, with the header timeout
                 "margo_gtp.match.cluster": "ray",
                 "margo_gtp.players.net_features": "numpy",  # the network's inputs are arrays
                 "margo_gtp.lab.netdata": "numpy",
                 "margo_gtp.lab.netgen": "numpy",
                 "margo_gtp.lab.nettrain": "numpy"}
# Files of the repository that the sdist does not carry, each for a reason.
NOT_IN_SDIST = {".gitignore"}  # git's own file; an unpacked sdist is no clone


def requirement_name(requirement: str) -> str:
    """The distribution name of a PEP 508 requirement (``'ray[default]>=2.52'`` -> ``'ray'``)."""
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower()


# In an unpacked sdist (no git to ask): what building the sdist added, and what .gitignore
# keeps out of a clone (virtualenvs, caches, build products, run folders).
SDIST_GENERATED = {"PKG-INFO", "setup.cfg"}
IGNORED_FOLDERS = {".venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", "runs", "matches"}


def source_files() -> set[str]:
    """The repository's files as a clone has them: tracked ones and new ones git does not
    ignore; in an unpacked sdist (where packagers run the tests), its own source files."""
    if (ROOT / ".git").exists():
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
        return {name for name in listed.split("\0") if name and (ROOT / name).is_file()}
    names = set()
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT)
        if (path.is_file() and not IGNORED_FOLDERS & set(relative.parts[:-1])
                and not relative.parts[0].endswith(".egg-info") and path.suffix not in {".pyc", ".so"}
                and relative.as_posix() not in SDIST_GENERATED):
            names.add(relative.as_posix())
    return names


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command to its end; its output is kept and shown if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


# ---------------------------------------------------------------------------------------------
# Metadata (fast)


def test_the_version_has_one_source():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "margo_gtp.__version__"}
    assigning = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "margo_gtp").rglob("*.py")
                       if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.M))
    assert assigning == ["margo_gtp/__init__.py"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)


def test_the_changelog_opens_with_this_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[(.+?)\] - (.+)$", text, re.M)
    assert headings and headings[0][0] == VERSION
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}|unreleased", headings[0][1])
    assert re.search(rf"^\[{re.escape(VERSION)}\]: https://\S+$", text, re.M)  # the heading's link
    assert re.findall(r"^### (\w+)", text, re.M)[0] in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_licence_file_is_declared():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) ") and "THE SOFTWARE IS PROVIDED \"AS IS\"" in text


def test_classifiers_name_the_python_versions_the_wheels_are_built_for():
    declared = {c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"]
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    built = set()
    for platform in ("linux", "macos", "windows"):
        built |= {f"3.{int(m)}" for m in re.findall(r"^cp3(\d+)-", cibuildwheel_identifiers(platform), re.M)}
    assert declared == built and min(declared, key=lambda v: int(v.split(".")[1])) == "3.11"
    assert PROJECT["requires-python"] == ">=3.11"
    assert "License :: OSI Approved :: MIT License" not in PROJECT["classifiers"]  # the licence expression says it


def test_project_urls_point_at_files_that_exist():
    urls = PROJECT["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Source", "Issues", "Changelog"}
    assert all(url.startswith(urls["Source"]) for url in urls.values())
    for key, path in (("Documentation", "docs"), ("Changelog", "CHANGELOG.md")):
        assert urls[key].endswith("/" + path) and (ROOT / path).exists()


def test_extras_and_the_base_install():
    assert {requirement_name(r) for r in PROJECT["dependencies"]} == BASE_DEPENDENCIES
    extras = PROJECT["optional-dependencies"]
    assert set(extras) == EXTRAS
    assert {requirement_name(r) for r in extras["web"]} == {"starlette", "uvicorn", "websockets"}
    assert {requirement_name(r) for r in extras["cluster"]} == {"ray"}
    assert {requirement_name(r) for r in extras["plot"]} == {"matplotlib"}
    assert {requirement_name(r) for r in extras["review"]} == {"matplotlib"}
    assert {requirement_name(r) for r in extras["train"]} == {"numpy", "torch", "onnx"}
    assert {requirement_name(r) for r in extras["net"]} == {"numpy", "onnxruntime"}
    assert "pexpect" in {requirement_name(r) for r in extras["test"]}
    # scripts/setup (and so CI) installs every extra
    setup = (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    installed = re.search(r'pip install --quiet -e "\.\[([a-z,]+)\]"', setup).group(1).split(",")
    assert sorted(installed) == sorted(EXTRAS)


@functools.cache
def cibuildwheel_identifiers(platform: str) -> str:
    """What ``cibuildwheel --print-build-identifiers`` lists for ``platform`` (one per line).
    cibuildwheel validates [tool.cibuildwheel] first: an unknown option fails here."""
    cibuildwheel = Path(sys.executable).parent / "cibuildwheel"
    return run([str(cibuildwheel), "--platform", platform, "--print-build-identifiers"], cwd=ROOT).stdout


@pytest.mark.parametrize("platform, tags", [
    ("linux", {"manylinux_x86_64", "musllinux_x86_64"}),
    ("macos", {"macosx_x86_64", "macosx_arm64"}),
    ("windows", {"win_amd64", "win_arm64"}),
])
def test_cibuildwheel_builds_one_wheel_per_cpython_version(platform, tags):
    identifiers = cibuildwheel_identifiers(platform).split()
    versions = sorted({identifier.split("-")[0] for identifier in identifiers})
    assert versions[0] == "cp311" and all(re.fullmatch(r"cp3\d+", v) for v in versions)  # no abi3, no 3.14t
    assert set(identifiers) == {f"{version}-{tag}" for version in versions for tag in tags}


def test_cibuildwheel_tests_each_wheel_with_the_install_check():
    assert PYPROJECT["tool"]["cibuildwheel"]["test-command"] == "python {project}/tests/check_install.py --core native"


# ---------------------------------------------------------------------------------------------
# The C core on MSVC (Windows wheels)

BIT_BUILTINS = {"__builtin_ctzll", "__builtin_clzll", "__builtin_popcountll"}  # msvc_builtins.h has these


def test_the_c_sources_use_no_builtin_that_msvc_builtins_lacks():
    used = set()
    for path in (ROOT / "margo_gtp").rglob("*.[ch]"):
        if path.name != "msvc_builtins.h":
            used |= set(re.findall(r"\b__builtin_\w+", path.read_text(encoding="utf-8")))
    assert used and used <= BIT_BUILTINS, f"add {sorted(used - BIT_BUILTINS)} to margo_gtp/engine/msvc_builtins.h"
    header = (ROOT / "margo_gtp" / "engine" / "msvc_builtins.h").read_text(encoding="utf-8")
    assert {f"#define {name} margo_{name.removeprefix('__builtin_')}" for name in BIT_BUILTINS} <= set(header.splitlines())


MSVC_BUILTINS_CHECK = r"""
#include <stdio.h>
#include "msvc_builtins.h"
int main(void) {
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    long failures = 0;
    for (int shift = 0; shift < 64; shift++) {  /* every single bit, then mixed words */
        unsigned long long one = 1ull << shift;
        failures += margo_ctzll(one) != __builtin_ctzll(one) || margo_clzll(one) != __builtin_clzll(one)
                    || margo_popcountll(one) != __builtin_popcountll(one);
    }
    for (long i = 0; i < 1000000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        unsigned long long y = x >> (i % 64);  /* words of every length */
        if (y == 0) continue;
        failures += margo_ctzll(y) != __builtin_ctzll(y) || margo_clzll(y) != __builtin_clzll(y)
                    || margo_popcountll(y) != __builtin_popcountll(y);
    }
    failures += margo_popcountll(0) != 0 || margo_popcountll(~0ull) != 64;
    printf("%ld\n", failures);
    return 0;
}
"""


def test_the_portable_bit_functions_equal_the_builtins(tmp_path):
    """msvc_builtins.h's portable scans and count (what MSVC builds run, bar the x64/ARM64
    scans) give the builtins' answers; built with GCC, whose builtins are the reference."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler on this machine")
    (tmp_path / "check.c").write_text(MSVC_BUILTINS_CHECK, encoding="utf-8")
    run([compiler, "-O1", "-std=c11", "-Wall", "-Werror", "-I", str(ROOT / "margo_gtp" / "engine"),
         "-o", str(tmp_path / "check"), str(tmp_path / "check.c")])
    assert run([str(tmp_path / "check")]).stdout == "0\n"


def test_msvc_gets_the_header_and_its_own_flags():
    namespace = runpy.run_path(str(ROOT / "setup.py"))  # not as __main__: defines, builds nothing
    assert namespace["MSVC_FLAGS"][-1] == f"/FI{ROOT / 'margo_gtp' / 'engine' / 'msvc_builtins.h'}"
    assert Path(namespace["MSVC_FLAGS"][-1].removeprefix("/FI")).is_file()
    assert "-ffp-contract=off" in namespace["GCC_LIKE_FLAGS"] and "/fp:precise" in namespace["MSVC_FLAGS"]


# ---------------------------------------------------------------------------------------------
# Build and install (slow)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel, built as a release builds them: from a copy of the repository's
    files (no .venv, no build products), the wheel from the unpacked sdist."""
    where = tmp_path_factory.mktemp("packaging")
    source = where / "source"
    for name in source_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(where / "dist"), str(source)], cwd=where)
    (sdist,) = (where / "dist").glob("*.tar.gz")
    (wheel,) = (where / "dist").glob("*.whl")
    return {"sdist": sdist, "wheel": wheel, "dist": where / "dist", "where": where}


@pytest.fixture(scope="module")
def wheelhouse(built) -> Path:
    """The base dependencies (as the wheel's metadata names them) and the build requirements,
    fetched once through pip's cache; the installs below see nothing else."""
    house = built["where"] / "wheelhouse"
    base = [r for r in wheel_metadata(built["wheel"]).get_all("Requires-Dist") if "extra ==" not in r]
    run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--dest", str(house),
         *base, *PYPROJECT["build-system"]["requires"]])
    return house


def wheel_metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        return Parser().parsestr(archive.read(f"{NAME}.dist-info/METADATA").decode())


def no_compiler_env(where: Path) -> dict[str, str]:
    """An environment with no C compiler: PATH is an empty folder, CC and LDSHARED go nowhere."""
    empty = where / "empty-bin"
    empty.mkdir(exist_ok=True)
    environment = {key: value for key, value in os.environ.items()
                   if key not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"} and not key.startswith("PIP_")}
    environment.update(PATH=str(empty), CC="/nonexistent/cc", LDSHARED="/nonexistent/cc", PYTHONNOUSERSITE="1")
    return environment


def fresh_install(built, wheelhouse, artifact: str) -> Path:
    """A new virtualenv with ``artifact`` (the sdist or the wheel) installed offline, no
    compiler reachable; returns its bin folder."""
    place = built["where"] / f"venv-{artifact}"
    venv.EnvBuilder(with_pip=True, clear=True).create(place)
    python = place / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--find-links", str(wheelhouse),
         str(built[artifact])], cwd=built["where"], env=no_compiler_env(built["where"]))
    return place / "bin"


@pytest.fixture(scope="module")
def wheel_install(built, wheelhouse) -> Path:
    return fresh_install(built, wheelhouse, "wheel")


@pytest.fixture(scope="module")
def sdist_install(built, wheelhouse) -> Path:
    return fresh_install(built, wheelhouse, "sdist")


@pytest.mark.slow
def test_the_sdist_carries_every_source_file(built):
    with tarfile.open(built["sdist"]) as archive:
        names = {member.name.removeprefix(f"{NAME}/") for member in archive.getmembers() if member.isfile()}
    generated = SDIST_GENERATED | {n for n in names if n.startswith("margo_gtp.egg-info/")}
    assert names - generated == source_files() - NOT_IN_SDIST
    # named again, so that the test says what it is about when the lists above change
    c_sources = {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp").rglob("*.[ch]")}
    assert "margo_gtp/engine/_native.c" in c_sources and c_sources <= names
    assert {"LICENSE", "CHANGELOG.md", "README.md", "MANIFEST.in", "setup.py", "docs/testing.md",
            "docs/packaging.md", "tests/test_packaging.py", "tests/check_install.py"} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".so"))]


@pytest.mark.slow
def test_the_wheel_carries_the_packages_and_the_compiled_core(built):
    with zipfile.ZipFile(built["wheel"]) as archive:
        names = set(archive.namelist())
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp").rglob("*.py")}
    static = {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp" / "web" / "static").iterdir()}
    static |= {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp" / "players" / "data").glob("*.json")}
    static |= {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp" / "players" / "data").glob("*.onnx")}
    static |= {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp" / "players" / "data" / "proofs").glob("*.txt")}
    static |= {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp" / "players" / "data" / "proofs").glob("*.json")}
    static |= {str(p.relative_to(ROOT)) for p in (ROOT / "margo_gtp" / "players" / "data" / "proofs").glob("*.xz")}
    assert "margo_gtp/players/data/proofs/proof-2x2.txt" in static  # the perfect player's checked proofs
    assert "margo_gtp/players/data/proofs/proof-3x3.txt" in static  # (3x3: the compact proof, docs/solving.md)
    assert "margo_gtp/players/data/proofs/book-4x4.json" in static  # (4x4: the book of the proven tree)
    assert "margo_gtp/players/data/patterns-v1.json" in static  # the shipped pattern weights
    assert {"margo_gtp/players/data/net-7x7.onnx", "margo_gtp/players/data/net-9x9.onnx"} <= static  # the nets
    python_tag = f"cp{sys.version_info.major}{sys.version_info.minor}"  # one wheel per version: not abi3
    platform_tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert built["wheel"].name == f"{NAME}-{python_tag}-{python_tag}-{platform_tag}.whl"
    # compiled extensions: the rules core, and any other C extension added beside it
    native = {n for n in names if re.fullmatch(r"margo_gtp/[\w/]+\.cpython-3\d+-[\w-]+\.so", n)}
    assert len([n for n in native if n.startswith("margo_gtp/engine/_native.")]) == 1
    metadata = {f"{NAME}.dist-info/{n}" for n in ("METADATA", "WHEEL", "RECORD", "entry_points.txt",
                                                   "top_level.txt", "licenses/LICENSE")}
    assert names == modules | static | native | metadata
    info = wheel_metadata(built["wheel"])
    assert info["Version"] == VERSION and info["License-Expression"] == "MIT"
    assert {requirement_name(r) for r in info.get_all("Requires-Dist") if "extra ==" not in r} == BASE_DEPENDENCIES
    assert set(info.get_all("Provides-Extra")) == EXTRAS
    assert len(info.get_all("Project-URL")) == len(PROJECT["urls"])


def run_check_install(bin_folder: Path, core: str, where: Path) -> subprocess.CompletedProcess:
    """tests/check_install.py under the installed interpreter, as cibuildwheel's test-command runs it."""
    command = shlex.split(PYPROJECT["tool"]["cibuildwheel"]["test-command"].replace("{project}", str(ROOT)))
    assert command[0] == "python" and command[-2:] == ["--core", "native"]
    command = [str(bin_folder / "python"), *command[1:-1], core]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=where,
                          env=no_compiler_env(where))


@pytest.mark.slow
def test_the_wheel_installs_without_a_compiler_and_runs_the_native_core(built, wheel_install):
    done = run_check_install(wheel_install, "native", built["where"])
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "check_install: margo-gtp answers as expected (rules core: native)\n", "")


@pytest.mark.slow
def test_the_sdist_installs_without_a_compiler_on_the_python_core(built, sdist_install):
    done = run_check_install(sdist_install, "python", built["where"])
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "check_install: margo-gtp answers as expected (rules core: python)\n", "")
    description = run([str(sdist_install / "python"), "-c",
                       "from margo_gtp.engine.core import core_description; print(core_description())"],
                      cwd=built["where"]).stdout
    assert description.startswith("python (native core not built: ")


@pytest.mark.slow
def test_the_base_install_has_no_extra(built, wheel_install):
    listed = run([str(wheel_install / "python"), "-m", "pip", "list", "--format=freeze"], cwd=built["where"]).stdout
    installed = {line.split("==")[0].lower().replace("_", "-") for line in listed.split()}
    installed -= {"pip", "setuptools"}  # what `python -m venv` puts there itself (Python 3.11)
    extras_only = {requirement_name(r) for extra in EXTRAS for r in PROJECT["optional-dependencies"][extra]}
    assert installed & extras_only == set()
    assert BASE_DEPENDENCIES | {"margo-gtp"} <= installed


@pytest.mark.slow
def test_every_module_imports_on_the_base_install_but_the_extras(built, wheel_install):
    """Each module of the package imports with only the base dependencies; the few that need
    an extra fail on that extra's package and on nothing else."""
    probe = (
        "import importlib, pkgutil, margo_gtp\n"
        "for module in pkgutil.walk_packages(margo_gtp.__path__, 'margo_gtp.'):\n"
        "    try:\n"
        "        importlib.import_module(module.name)\n"
        "    except ModuleNotFoundError as error:\n"
        "        print(module.name, error.name.split('.')[0])\n"
    )
    done = run([str(wheel_install / "python"), "-c", probe], cwd=built["where"])
    failed = dict(line.split() for line in done.stdout.splitlines())
    assert failed == EXTRA_MODULES


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(PROJECT["scripts"]))
def test_every_console_script_answers_version_on_the_base_install(built, wheel_install, script):
    done = subprocess.run([str(wheel_install / script), "--version"], capture_output=True, text=True,
                          timeout=120, cwd=built["where"], env=no_compiler_env(built["where"]))
    core = " (rules core: native)" if script == "margo-gtp" else ""
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{script} {VERSION}{core}\n", "")


@pytest.mark.slow
@pytest.mark.parametrize("command, message", [
    (["margo-web", "--no-open"], "margo-web: the web extra is not installed (pip install 'margo-gtp[web]')\n"),
    (["margo-review", "game.sgf"], "margo-review: the review extra is not installed (pip install 'margo-gtp[review]')\n"),
    (["margo-gtp", "--player", "net"],
     "margo-gtp: Invalid value for --player: player 'net': the net player needs numpy and ONNX Runtime (numpy is missing): "
     "pip install 'margo-gtp[net]' (margo-gtp --list-players lists the players, their options and the levels)\n"),
    (["margo-match", "margo-gtp", "margo-gtp", "--games", "1", "--cluster", "local", "--out", "out"],
     "margo-match: --cluster needs Ray: pip install 'margo-gtp[cluster]' (No module named 'ray')\n"),
])
def test_a_missing_extra_is_named_in_one_line(built, wheel_install, command, message):
    done = subprocess.run([str(wheel_install / command[0]), *command[1:]], capture_output=True, text=True,
                          timeout=120, cwd=built["where"], env=no_compiler_env(built["where"]), stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


FAKE_PYTHON = """#!/bin/sh
# A stand-in for python3.11 and the venv's python: records every call, makes the venv,
# and answers the import check once an editable install has run.
here=$(dirname "$0")
echo "$*" >> "$SETUP_LOG"
if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; exit 0; fi
if [ "$1" = -m ] && [ "$2" = pip ]; then case "$*" in *" -e "*) touch "$here/installed";; esac; exit 0; fi
if [ "$1" = -c ]; then [ -f "$here/installed" ]; exit $?; fi
exit 0
"""


def test_scripts_run_installs_the_base_package_and_scripts_test_the_rest(tmp_path):
    """scripts/run's match needs the base package only (`scripts/setup base`); scripts/test
    (plain `scripts/setup`) installs every extra. Both make .venv on a fresh checkout; a
    full install serves a later base one, not the other way round."""
    assert "\nscripts/setup base\n" in (ROOT / "scripts" / "run").read_text(encoding="utf-8")
    assert "\nscripts/setup\n" in (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup", checkout / "scripts" / "setup")
    (checkout / "margo_gtp").mkdir()
    for name in ("pyproject.toml", "setup.py", "margo_gtp/core.c"):
        (checkout / name).write_text("")
    tools = tmp_path / "tools"
    tools.mkdir()
    for name, text in (("python3.11", FAKE_PYTHON), ("id", "#!/bin/sh\necho 1000\n")):  # id: never apt-get here
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    log = tmp_path / "log"
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "SETUP_LOG": str(log), "PYTHON": "python3.11"}

    def setup(*args: str) -> tuple[int, list[str], str]:
        log.write_text("")
        done = subprocess.run([str(checkout / "scripts" / "setup"), *args], capture_output=True, text=True,
                              env=env, timeout=60)
        installs = [line for line in log.read_text().splitlines() if line.startswith("-m pip install --quiet -e")]
        return done.returncode, installs, done.stderr

    code, installs, stderr = setup("base")
    assert (code, installs) == (0, ["-m pip install --quiet -e ."]), stderr
    assert "setup: creating .venv" in stderr and "setup: installing margo-gtp (base, no extras) into .venv" in stderr
    assert setup("base")[:2] == (0, [])  # the second run only checks
    code, installs, stderr = setup()
    assert (code, installs) == (0, ['-m pip install --quiet -e .[test,web,cluster,plot,review,train,net]']), stderr
    assert setup()[:2] == (0, []) and setup("base")[:2] == (0, [])
    code, installs, stderr = setup("web")
    assert (code, installs, stderr) == (2, [], "setup: unknown argument 'web' (scripts/setup [base])\n")
