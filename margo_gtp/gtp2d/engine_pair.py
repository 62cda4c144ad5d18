"""Two native engines seen as one, for ``margo-gtp-2d --white-engine``.

Why it exists: GoGui 1.6 shows a MarGo game truthfully only when its program answers the
``gogui-rules_*`` commands (GoGui then uses it as the *ruler*). gogui-twogtp does not
answer them, so with twogtp inside GoGui, GoGui keeps a plain Go board: it never removes
MarGo captures and refuses the first computer move to a point it still thinks occupied
("played on a non-empty point"). An :class:`EnginePair` behind one ``margo-gtp-2d``
gives GoGui two players *and* a ruler in one program.

How it routes one command line (the proxy above it never knows there are two):

- ``genmove C`` goes to the engine that plays C; its move (a vertex, ``pass`` or
  ``swap``) is then played on the other engine with ``play C MOVE``, so both always hold
  the same game. ``reg_genmove C`` goes to C's engine and is not relayed.
- Commands that only read the game (:data:`READ_ONLY`, and ``margo-to_move`` without an
  argument) are asked of Black's engine only.
- Every other command (``play``, ``boardsize``, ``clear_board``, ``komi``, ``undo``,
  ``margo-set_rules``, clocks, ...) goes to both, and the answer is Black's. If the two
  answer differently (one accepts, one refuses), the command fails with
  ``engines disagree: ...``: the pair cannot be trusted after that, and saying so beats
  playing on with two different games.

Each engine is any object with ``send(command) -> (ok, text)``, ``running``, ``failure``,
``check()`` and ``close()`` (the proxy's engine client). Once either engine is gone, every
command goes to that one, so the proxy answers ``engine is not running`` as it does for a
single engine: exceptions the engines raise pass through unchanged.
"""

from __future__ import annotations

from typing import Protocol

#: Commands that read the game without changing it: Black's engine answers alone.
READ_ONLY = frozenset({
    "protocol_version", "name", "version", "known_command", "list_commands", "cputime",
    "showboard", "final_score", "final_status_list", "printsgf", "gogui-analyze_commands",
    "margo-board", "margo-legal_moves", "margo-get_rules", "margo-score", "margo-analyze_snapshot",
    "margo-ownership", "margo-ownership_kind",
})
#: Move generators: the engine of the colour asked answers.
GENERATORS = frozenset({"genmove", "reg_genmove"})
_WHITE_WORDS = frozenset({"w", "white"})
_BLACK_WORDS = frozenset({"b", "black"})


class Engine(Protocol):
    """What the pair needs of each engine (the proxy's engine client has it)."""

    failure: str | None

    @property
    def running(self) -> bool: ...

    def send(self, command: str) -> tuple[bool, str]: ...

    def check(self) -> bool: ...

    def close(self) -> None: ...


class EnginePair:
    """Black's and White's engines behind one engine interface (see the module docstring)."""

    def __init__(self, black: Engine, white: Engine) -> None:
        self.black = black
        self.white = white

    @property
    def running(self) -> bool:
        return self.black.running and self.white.running

    @property
    def failure(self) -> str | None:
        return self.black.failure or self.white.failure

    def check(self) -> bool:
        """Both engines' start-up checks (both run, so both report)."""
        black_ok = self.black.check()
        white_ok = self.white.check()
        return black_ok and white_ok

    def send(self, command: str) -> tuple[bool, str]:
        for engine in (self.black, self.white):
            if not engine.running:  # one engine gone: the pair is; its own send says so
                return engine.send(command)
        words = command.split()
        name = words[0] if words else ""
        if name in GENERATORS and len(words) == 2 and words[1].lower() in _WHITE_WORDS | _BLACK_WORDS:
            return self._generate(name, words[1], command)
        if name in READ_ONLY or (name == "margo-to_move" and len(words) == 1):
            return self.black.send(command)
        black_ok, black_text = self.black.send(command)
        white_ok, white_text = self.white.send(command)
        if black_ok != white_ok:
            refused = "White's" if black_ok else "Black's"
            reason = white_text if black_ok else black_text
            return False, f"engines disagree: {refused} engine refused {command!r}: {reason}"
        return black_ok, black_text

    def _generate(self, name: str, colour: str, command: str) -> tuple[bool, str]:
        mover, other = (self.white, self.black) if colour.lower() in _WHITE_WORDS else (self.black, self.white)
        ok, text = mover.send(command)
        move = text.strip()
        if not ok or name != "genmove" or move.lower() == "resign":
            return ok, text
        relayed_ok, relayed_text = other.send(f"play {colour} {move}")
        if not relayed_ok:
            return False, f"engines disagree: the other engine refused {move}: {relayed_text}"
        return ok, text

    def close(self) -> None:
        self.black.close()
        self.white.close()
