"""What an HTTP connection whose client stops reading may make the server hold: its send limits.

uvicorn writes a response to the connection's transport; what the socket does not take waits in the
transport, and past the transport's high-water mark uvicorn makes the response wait (a watch
stream then stops taking versions, which pile up in its bounded watcher queue). Below that sits the
kernel's socket send buffer, which Linux grows for a connection that does not drain (up to
``net.ipv4.tcp_wmem``'s maximum, 4 MiB by default: more than a hundred times an unread watch
stream's own bound). So each connection gets fixed limits: SO_SNDBUF of SEND_BUFFER_BYTES (Linux
doubles it for its bookkeeping) and a transport high-water mark of WRITE_HIGH_WATER. And a
connection whose sending has waited STALL_SECONDS with the client taking nothing is closed, so that
streams nobody reads do not hold their place for ever (a client that comes back watches again);
the environment variable LAWSPEAKER_HTTP_STALL_SECONDS changes that time (0: never close).

``http_protocol()`` is the protocol class for ``uvicorn.Config(http=...)``: httptools' when
installed, else h11's, with these limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import Any

log = logging.getLogger("lawspeaker.http")

SEND_BUFFER_BYTES = 32 * 1024  # SO_SNDBUF asked for; the kernel keeps up to twice this
WRITE_HIGH_WATER = 16 * 1024  # bytes the transport holds before a response's next send waits
WRITE_LOW_WATER = 4 * 1024  # ... and below which it goes on
STALL_SECONDS = 60.0  # a send that has waited this long with nothing taken closes the connection
STALL_ENV = "LAWSPEAKER_HTTP_STALL_SECONDS"


class _SendLimits(asyncio.Protocol):
    """Mixed in before uvicorn's HTTP protocol: sets the limits on each new connection and closes
    one whose writing stays paused (the client takes nothing) for ``stall_seconds``."""

    send_buffer = SEND_BUFFER_BYTES
    high_water = WRITE_HIGH_WATER
    low_water = WRITE_LOW_WATER
    stall_seconds = STALL_SECONDS

    _limited: Any = None  # the connection's transport (asyncio's or uvloop's)
    _stall: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._limited = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # e.g. a socket type without send buffers
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer)
        self._limited.set_write_buffer_limits(high=self.high_water, low=self.low_water)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall is None and self.stall_seconds > 0:
            self._stall = asyncio.get_running_loop().call_later(self.stall_seconds, self._stalled)

    def resume_writing(self) -> None:
        self._stop_watch()
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watch()
        super().connection_lost(exc)

    def _stop_watch(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def _stalled(self) -> None:
        self._stall = None
        transport = self._limited
        if transport is None or transport.is_closing():
            return
        log.info(
            "closing the HTTP connection from %s: its client took nothing for %.0f s",
            transport.get_extra_info("peername"),
            self.stall_seconds,
        )
        transport.abort()


def http_protocol(**limits: Any) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools, else h11) with the send limits; ``limits`` overrides the
    class attributes of :class:`_SendLimits` (``stall_seconds``, ``send_buffer``, ...)."""
    base: type[asyncio.Protocol]
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        base = HttpToolsProtocol
    except ImportError:  # httptools is not installed
        from uvicorn.protocols.http.h11_impl import H11Protocol

        base = H11Protocol
    unknown = set(limits) - {"send_buffer", "high_water", "low_water", "stall_seconds"}
    if unknown:
        raise TypeError(f"unknown send limits: {sorted(unknown)}")
    raw = os.environ.get(STALL_ENV, "")
    if raw and "stall_seconds" not in limits:
        try:
            limits["stall_seconds"] = float(raw)
        except ValueError:
            raise SystemExit(f"{STALL_ENV} must be a number of seconds (0: never), not {raw!r}") from None
    return type(f"Limited{base.__name__}", (_SendLimits, base), dict(limits))
