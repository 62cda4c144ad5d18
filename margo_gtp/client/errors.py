"""The client's errors: every one an :class:`EngineError` carrying the engine's last stderr lines.

Which error leaves the engine usable is in ``docs/client.md`` (the table of errors).
"""

from __future__ import annotations

from collections.abc import Sequence

from margo_gtp.client.wire import InvalidCommandError as WireInvalidCommandError

__all__ = [
    "EngineCommandError", "EngineError", "EngineProtocolError", "EngineStartError", "EngineTerminatedError",
    "EngineTimeoutError", "IllegalEngineMoveError", "InvalidCommandError",
]


class EngineError(Exception):
    """Raised when an engine misbehaves or cannot do what was asked.

    ``stderr`` holds the engine's last lines of standard error (at most ``margo_gtp.client.process.STDERR_LINES``)
    at the time of the error: where a crashing engine usually says why.
    """

    def __init__(self, message: str, *, stderr: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.stderr: tuple[str, ...] = tuple(stderr)


class EngineStartError(EngineError):
    """Raised when the engine command cannot be started (not found, not executable)"""


class EngineTerminatedError(EngineError):
    """Raised when the engine exited, closed its output or was killed.

    ``returncode`` is the exit code when the engine had exited by itself, else None.
    """

    def __init__(self, message: str, *, stderr: Sequence[str] = (), returncode: int | None = None) -> None:
        super().__init__(message, stderr=stderr)
        self.returncode = returncode


class EngineTimeoutError(EngineError, TimeoutError):
    """Raised when the engine did not answer within the timeout (it has been killed)"""


class EngineProtocolError(EngineError):
    """Raised when the engine wrote something that is not a GTP answer (it has been killed)"""


class EngineCommandError(EngineError):
    """Raised when the engine answered a command with a failure (``? message``); the
    engine stays usable. ``command``, ``args`` and ``message`` are what was sent and said."""

    def __init__(self, command: str, args: Sequence[str], message: str, *, stderr: Sequence[str] = ()) -> None:
        self.command = command
        self.args_sent = tuple(args)
        self.message = message
        shown = " ".join([command, *self.args_sent])
        super().__init__(f"{shown!r} failed: {message!r}", stderr=stderr)


class IllegalEngineMoveError(EngineError):
    """Raised when ``genmove`` answered a malformed or illegal move; ``answer`` is its text"""

    def __init__(self, message: str, answer: str, *, stderr: Sequence[str] = ()) -> None:
        super().__init__(message, stderr=stderr)
        self.answer = answer


class InvalidCommandError(EngineError, WireInvalidCommandError):
    """Raised before sending a command that GTP framing would split or change (a line
    break or other control character); nothing is sent and the engine stays usable.
    Also a ValueError: the caller's argument is wrong, not the engine."""
