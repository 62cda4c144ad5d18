"""``margo-match``: a match between two GTP engines (the options and the run: :mod:`margo_gtp.match.referee_cli`)."""

from __future__ import annotations

from margo_gtp.console import run_app
from margo_gtp.match.referee_cli import match_app


def main() -> None:
    """Console script ``margo-match``."""
    run_app(match_app(), "margo-match")
