"""Command-line entry points (placeholder until the GTP engine lands)."""


def main() -> None:  # pragma: no cover - replaced by the GTP issue
    raise SystemExit("margo-gtp: GTP engine not built yet")


def play_main() -> None:  # pragma: no cover
    raise SystemExit("margo-play: not built yet")
