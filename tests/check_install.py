"""Check an installed margo-gtp as a user meets it: ``--version`` names the expected rules
core, and a short GTP session gives exact answers.

Standard library only, so it runs in any environment the package was installed into:
cibuildwheel's test-command runs it against every wheel it builds
(``python {project}/tests/check_install.py --core native``), and tests/test_packaging.py
against the wheel and the sdist installed into fresh virtualenvs. It finds the console
script next to the running interpreter (``bin/`` or ``Scripts\\``), not on ``PATH``.

Exit 0 when everything matches; else one line per mismatch on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig

# boardsize 3, white on A1, black asks for a move: with --seed 1 the random player answers
# A2:1 on both rules cores (their seeded move lists are equal). It is named: the default
# player is the strongest one, whose move is not what this check is about.
SESSION = "boardsize 3\nplay w a1\ngenmove b\nquit\n"
ANSWERS = "=\n\n=\n\n= A2:1\n\n=\n\n"


def console_script(name: str) -> str:
    """The path of console script ``name`` installed beside this interpreter."""
    found = shutil.which(name, path=sysconfig.get_path("scripts"))
    if found is None:
        raise SystemExit(f"check_install: no {name} in {sysconfig.get_path('scripts')}")
    return found


def check(expected_core: str, version: str | None) -> list[str]:
    """What differs from the expected install, one line each (empty when all is well)."""
    import margo_gtp

    problems = []
    margo_gtp_path = console_script("margo-gtp")
    want_version = f"margo-gtp {version or margo_gtp.__version__} (rules core: {expected_core})\n"
    done = subprocess.run([margo_gtp_path, "--version"], capture_output=True, text=True, timeout=120)
    if (done.returncode, done.stdout) != (0, want_version):
        problems.append(f"margo-gtp --version: exit {done.returncode}, {done.stdout!r} {done.stderr!r}; "
                        f"expected {want_version!r}")
    done = subprocess.run([margo_gtp_path, "--player", "random", "--seed", "1"], input=SESSION, capture_output=True, text=True,
                          timeout=120)
    if (done.returncode, done.stdout) != (0, ANSWERS):
        problems.append(f"GTP session: exit {done.returncode}, {done.stdout!r} {done.stderr!r}; "
                        f"expected {ANSWERS!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--core", choices=["native", "python"], required=True,
                        help="the rules core margo-gtp --version must name")
    parser.add_argument("--version", help="the version it must name (default: margo_gtp.__version__)")
    options = parser.parse_args()
    problems = check(options.core, options.version)
    for problem in problems:
        print(f"check_install: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_install: margo-gtp answers as expected (rules core: {options.core})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
