"""A blocking Python client for MarGo GTP engines, modelled on python-chess's ``chess.engine``.

The public names live here (``from margo_gtp.client import SimpleEngine, Limit, ...``);
the package's modules, lowest first:

    wire.py     the GTP wire: one command out, one answer back, over any transport
                (also used by the 2-D proxy and the tests' regression runner)
    process.py  an engine child process as a transport; finding an engine program
    errors.py   EngineError and its kinds
    engine.py   SimpleEngine (the game layer: sync, play, analyse), Limit, PlayResult
    results.py  AnalysisInfo, AnalysisResult: what an analysis gives
    stream.py   AnalysisStream: a running margo-analyze, read report by report

``docs/client.md`` is the user's guide; :mod:`margo_gtp.client.engine` has the reading guide.
"""

from margo_gtp.client.engine import (
    DEFAULT_TIMEOUT,
    MAX_LIMIT_SECONDS,
    QUIT_GRACE,
    READ_ONLY_COMMANDS,
    AnalysisInfo,
    AnalysisResult,
    Limit,
    PlayResult,
    SimpleEngine,
)
from margo_gtp.client.errors import (
    EngineCommandError, EngineError, EngineProtocolError, EngineStartError, EngineTerminatedError, EngineTimeoutError,
    IllegalEngineMoveError, InvalidCommandError,
)
from margo_gtp.client.process import STDERR_LINES, find_program, program_missing
from margo_gtp.client.stream import AnalysisStream

__all__ = [
    "AnalysisInfo", "AnalysisResult", "AnalysisStream", "EngineCommandError", "EngineError", "EngineProtocolError",
    "EngineStartError", "EngineTerminatedError", "EngineTimeoutError", "IllegalEngineMoveError",
    "InvalidCommandError", "DEFAULT_TIMEOUT", "Limit", "MAX_LIMIT_SECONDS", "PlayResult", "QUIT_GRACE",
    "READ_ONLY_COMMANDS", "STDERR_LINES", "SimpleEngine", "find_program", "program_missing",
]
