"""faulty_engine.py, reseeded at every ``clear_board``: a game's moves depend only on the
seed and the moves before them, not on which process played the games before it (so a
match gives the same games on any backend, however the games are spread over processes)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import faulty_engine  # noqa: E402


class PerGameSeeded(faulty_engine.FaultyEngine):
    def handle(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name == "clear_board":
            self.rng = random.Random(self.options.seed)
        return super().handle(name, args)


if __name__ == "__main__":
    faulty_engine.FaultyEngine = PerGameSeeded  # type: ignore[misc]
    faulty_engine.main()
