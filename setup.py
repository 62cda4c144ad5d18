"""Build the optional native extensions and find the packages; the rest is in pyproject.toml.

Three extensions, one per room (two in players/) (docs/native-core.md, "Two rooms, two extensions"):

* ``margo_gtp.engine._native``: the rules core in plain C (``margo_gtp/engine/rules_*.c``,
  declared in ``rules_core.h``, no Python.h) and its Python glue (``_native.c`` with
  ``native_glue.h``: the Geometry and State types, status codes to exceptions).
* ``margo_gtp.players._search``: the MCTS search in C (``margo_gtp/players/search_*.c``,
  ``search_core.h``) and its glue (``_search.c``). It works on the engine's State objects
  and calls the rules through ``rules_core.h``; the same rules sources (``RULES``, one list)
  are compiled into it too, with the same flags (no C-level dependency between two shared
  objects), and it checks at import that both were built from the same ``StateObject``.
* ``margo_gtp.players._solver``: the exact solver of small boards (``solver.c``,
  ``solver_core.h``, glue ``_solver.c``; docs/solving.md), over its own copy of the same
  rules sources; it builds its own states, so it shares no object with the other two.

Packages are discovered, not listed: every folder under ``margo_gtp/`` (``margo_gtp.client``,
``margo_gtp.match``, ``margo_gtp.web.static``...), so a subpackage added later is in the wheel
without touching this file.

The sdist carries every ``*.c`` and ``*.h`` under margo_gtp/ (MANIFEST.in).
``optional=True``: when the C compiler or the Python headers are missing, setuptools prints
one "building extension ... failed" warning and the install goes on with the pure-Python
core and search (see docs/native-core.md). Plain CPython C API, C99: no build or runtime dependency.
Compiler flags depend on the compiler: GCC and Clang get ``-ffp-contract=off`` (no fused
multiply-add, so float results equal the Python core's), MSVC its own spellings and a
forced include of ``margo_gtp/engine/msvc_builtins.h``. GCC and Clang also get
``-fvisibility=hidden``: the rules functions are global within an extension, not outside it
(MSVC exports nothing from a DLL unless told to).
"""

from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
GCC_LIKE_FLAGS = ["-O2", "-std=gnu99", "-ffp-contract=off", "-fvisibility=hidden"]
# MSVC: /fp:precise makes no contractions since VS 2022; /FI gives the C core the GCC bit
# builtins it uses (MSVC has none; the header says how).
MSVC_FLAGS = ["/O2", "/std:c11", "/fp:precise", f"/FI{HERE / 'margo_gtp' / 'engine' / 'msvc_builtins.h'}"]

ENGINE = "margo_gtp/engine/"
PLAYERS = "margo_gtp/players/"
RULES = [ENGINE + name for name in ("rules_geometry.c", "rules_position.c", "rules_state.c", "rules_scoring.c",
                                    "rules_playout.c")]


def find_packages() -> list[str]:
    """Every package (with or without ``__init__.py``) under margo_gtp/."""
    return find_namespace_packages(include=["margo_gtp", "margo_gtp.*"], exclude=["*.__pycache__"])


class BuildExtPerCompiler(build_ext):
    """Give each extension the optimisation and floating-point flags of the compiler in use."""

    def build_extensions(self) -> None:
        flags = MSVC_FLAGS if self.compiler.compiler_type == "msvc" else GCC_LIKE_FLAGS
        for extension in self.extensions:
            extension.extra_compile_args = flags + extension.extra_compile_args
        super().build_extensions()


if __name__ == "__main__":  # as the build backend runs it; tests/test_packaging.py reads the flags
    setup(
        packages=find_packages(),
        ext_modules=[
            Extension(
                "margo_gtp.engine._native",
                [ENGINE + "_native.c", *RULES],
                depends=[ENGINE + "rules_core.h", ENGINE + "native_glue.h"],
                optional=True,
            ),
            Extension(
                "margo_gtp.players._search",
                [PLAYERS + "_search.c", PLAYERS + "search_eval.c", PLAYERS + "search_policy.c",
                 PLAYERS + "search_uct.c", PLAYERS + "search_prior.c", PLAYERS + "search_tree.c",
                 PLAYERS + "search_patterns.c", PLAYERS + "search_glue.c", *RULES],
                include_dirs=[ENGINE],
                depends=[ENGINE + "rules_core.h", ENGINE + "native_glue.h", PLAYERS + "search_core.h"],
                optional=True,
            ),
            Extension(
                "margo_gtp.players._solver",
                [PLAYERS + "_solver.c", PLAYERS + "solver.c", *RULES],
                include_dirs=[ENGINE],
                depends=[ENGINE + "rules_core.h", PLAYERS + "solver_core.h"],
                optional=True,
            ),
        ],
        cmdclass={"build_ext": BuildExtPerCompiler},
    )
