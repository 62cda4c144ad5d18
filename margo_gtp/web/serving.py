"""How uvicorn serves margo-web: idle connections are closed (issue 36, bug 14).

uvicorn closes a keep-alive connection that stays idle after a response
(``timeout_keep_alive``), but it has no header timeout: a client that connects and sends
nothing, or sends half a request line and stops (slowloris), holds its socket forever, and
200 of them are 200 sockets and file descriptors. :class:`IdleClosingH11` adds the missing
deadline: a connection must finish its request headers within :data:`IDLE_SECONDS` of
connecting, or of the end of its last response, or it is closed. A websocket, once
upgraded, is no longer HTTP and keeps its own rules (the page's socket stays open as long as
the page does).

Imports uvicorn, which is the web extra's: only :mod:`margo_gtp.web.cli` imports this module,
after checking that it is installed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds an HTTP connection may stay idle, or spend sending its request headers.
IDLE_SECONDS = 10.0


class IdleClosingH11(H11Protocol):
    """uvicorn's h11 protocol with a header timeout (see the module docstring)."""

    _header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_header_deadline()   # the headers are in: the request is the app's now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_header_deadline()          # the next request's headers get the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._cancel_header_deadline()
        self._header_deadline = self.loop.call_later(self.timeout_keep_alive, self._header_timeout)

    def _cancel_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _header_timeout(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return   # closed already, or upgraded to a websocket
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()


def server_config(app: Any, host: str, port: int, idle_seconds: float = IDLE_SECONDS) -> uvicorn.Config:
    """The uvicorn configuration of margo-web: quiet logs, the sans-I/O websockets, and
    every idle connection closed after ``idle_seconds``."""
    return uvicorn.Config(app, host=host, port=port, log_level="warning", ws="websockets-sansio",
                          http=IdleClosingH11, timeout_keep_alive=idle_seconds)
