"""GTP 2 with the 3-D vertex: line protocol (:mod:`.gtp`), typed handlers
(:mod:`.handlers`), the game session (:mod:`.session`) and round-trip timing
(:mod:`.latency`). Importing this package does not import the rules core; the
session module does."""

from margo_gtp.protocol.gtp import (
    GtpEngine,
    GtpError,
    GtpFatalError,
    GtpQuit,
    GtpStream,
    format_response,
    parse_command,
    preprocess_line,
    run_gtp_session,
)

__all__ = [
    "GtpEngine",
    "GtpError",
    "GtpFatalError",
    "GtpQuit",
    "GtpStream",
    "format_response",
    "parse_command",
    "preprocess_line",
    "run_gtp_session",
]
