"""``margo-tournament``: a round robin or gauntlet from a TOML file (the options and the run: :mod:`margo_gtp.match.referee_cli`)."""

from __future__ import annotations

from margo_gtp.console import run_app
from margo_gtp.match.referee_cli import tournament_app


def main() -> None:
    """Console script ``margo-tournament``."""
    run_app(tournament_app(), "margo-tournament")
