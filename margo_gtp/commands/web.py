"""``margo-web``: the browser board (its options: :mod:`margo_gtp.web.cli`)."""

from __future__ import annotations

from margo_gtp.console import run_app
from margo_gtp.web.cli import app


def main() -> None:
    """Console script ``margo-web``."""
    run_app(app, "margo-web")
