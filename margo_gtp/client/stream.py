"""Streaming analysis: :class:`AnalysisStream`, what :meth:`SimpleEngine.analysis` returns.

The engine's ``margo-analyze C INTERVAL`` (gtp.md section 4) answers ``=``, then every
interval writes one ``info`` line per candidate move, best first (``order 0`` first),
until the next input line arrives; then it ends the answer with an empty line. So on the
one GTP wire:

* a **report** is the run of ``info`` lines from an ``order 0`` line to the line before the
  next ``order 0`` line; it is complete when the next one starts, when no line follows
  within :data:`QUIET_SECONDS` (the engine writes a report's lines at once, then waits an
  interval), or when the stream ends. Each report is one :class:`AnalysisResult`;
* **stopping** is writing an empty line (GTP answers nothing to it) and reading on to the
  stream's empty line, after which the wire is in step again and the engine takes
  commands. Any other command sent through the engine stops the stream first, as the
  engine itself would.

As python-chess's ``engine.analysis()``: iterate for the updates (each call blocks until
the next report), or read :attr:`AnalysisStream.latest`; use it as a context manager so
the stream is stopped however the block is left. Memory is bounded: one report at a time
(at most :data:`MAX_REPORT_LINES` lines); reports are not queued, so a slow reader
only slows the engine (its output pipe fills) and never grows the client.

Threads: one thread iterates; :meth:`AnalysisStream.stop` may be called from any thread
(a web server stops a stream when a move is played): it sends the stop line at once and
waits until the reading thread (or itself) has read the stream to its end.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any

from margo_gtp.client.errors import EngineProtocolError, EngineTimeoutError
from margo_gtp.client.results import AnalysisResult, parse_candidate
from margo_gtp.engine import Colour

__all__ = ["AnalysisStream", "MAX_REPORT_LINES", "QUIET_SECONDS"]

#: A report is complete when no further line comes within this many seconds (the engine
#: writes a report's lines together, then searches for an interval).
QUIET_SECONDS = 0.05
#: Most ``info`` lines one report may have (far above the moves of any board).
MAX_REPORT_LINES = 10_000


class AnalysisStream:
    """A running ``margo-analyze`` of one position: an iterator of :class:`AnalysisResult`
    updates and a context manager that stops it.

    ``latest`` is the newest complete report (empty before the first), ``updates`` how
    many were read. The stream ends when :meth:`stop` is called, when ``limit`` is reached
    (``seconds`` since it started, or ``playouts``: the candidates' visits together), or
    when the engine fails (the error is raised to the reader, and the engine is killed,
    as for any wire error). Iteration ends after the last report.
    """

    def __init__(self, engine: Any, colour: Colour, size: int, command_id: int | None,
                 interval: float, limit: Any, wait: float | None) -> None:
        # engine: the SimpleEngine that started the stream (it owns the wire); limit: a Limit or None
        self.colour = colour
        self.interval = interval
        self.limit = limit
        self.latest: AnalysisResult = AnalysisResult(colour)
        self.updates = 0
        self._engine = engine
        self._size = size
        self._command_id = command_id
        self._wait = wait              # longest wait for a line (None: for ever)
        self._started = time.monotonic()
        self._report: list[tuple[int, Any]] = []   # the report being read
        self._read_lock = threading.Lock()        # one reader of the wire at a time
        self._stop_lock = threading.Lock()
        self._stop_sent = False
        self._ended = False

    # -- the iterator -----------------------------------------------------------------

    def __iter__(self) -> "AnalysisStream":
        return self

    def __next__(self) -> AnalysisResult:
        with self._read_lock:
            result = self._next_report()
        if result is None:
            raise StopIteration
        return result

    @property
    def ended(self) -> bool:
        """True once the engine ended the stream (the wire is free again)."""
        return self._ended

    def stop(self) -> None:
        """Stop the stream and read it to its end; safe from any thread, and twice. Waits
        at most the engine's timeout (then the engine is killed and the error raised)."""
        self.request_stop()
        with self._read_lock:
            while self._next_report() is not None:
                pass  # reports after the stop line: nobody wants them now

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._engine.is_usable:
            self.stop()

    def __repr__(self) -> str:
        state = "ended" if self._ended else "stopping" if self._stop_sent else "running"
        return f"<AnalysisStream {self.colour.letter} {state} updates={self.updates}>"

    # -- reading ----------------------------------------------------------------------

    def request_stop(self) -> None:
        """Send the stop line and return at once (the reading thread reads the stream to
        its end); safe from any thread, and twice. :meth:`stop` also waits for the end."""
        with self._stop_lock:
            if self._stop_sent or self._ended:
                return
            self._stop_sent = True
        self._engine._stream_stop_line()  # noqa: SLF001 - the engine owns the wire

    def _next_report(self) -> AnalysisResult | None:
        """Read up to the end of the next report; None when the stream has ended."""
        while not self._ended:
            line = self._engine._stream_line(self._wait if not self._report else QUIET_SECONDS)  # noqa: SLF001
            if line is None:
                if self._report:
                    return self._publish()
                raise self._engine._stream_fail(  # noqa: SLF001
                    EngineTimeoutError, f"wrote no 'margo-analyze' line within {self._wait:g} s")
            if not line.strip():
                self._ended = True
                self._engine._stream_ended(self)  # noqa: SLF001
                return self._publish() if self._report else None
            try:
                order, info = parse_candidate(line, self._size)
            except (ValueError, KeyError) as error:
                raise self._engine._stream_fail(  # noqa: SLF001
                    EngineProtocolError, f"wrote a bad info line in 'margo-analyze': {line!r} ({error})")
            if order == 0 and self._report:
                result = self._publish()
                self._report.append((order, info))
                return result
            self._report.append((order, info))
            if len(self._report) > MAX_REPORT_LINES:
                raise self._engine._stream_fail(  # noqa: SLF001
                    EngineProtocolError, f"wrote a 'margo-analyze' report longer than {MAX_REPORT_LINES} lines")
        return None

    def _publish(self) -> AnalysisResult:
        report, self._report = sorted(self._report, key=lambda item: item[0]), []
        self.latest = AnalysisResult(self.colour, tuple(info for _, info in report))
        self.updates += 1
        if self.limit is not None and not self._stop_sent:
            elapsed = time.monotonic() - self._started
            visits = sum(info.visits for info in self.latest.candidates)
            if ((self.limit.seconds is not None and elapsed >= self.limit.seconds)
                    or (self.limit.playouts is not None and visits >= self.limit.playouts)):
                self.request_stop()
        return self.latest
