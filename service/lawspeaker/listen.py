"""The ports ``lawspeaker serve`` listens on, claimed before anything starts.

The HTTP sockets are bound and listening here and handed to uvicorn, and the gRPC port is checked
free (grpc binds it itself, with ``SO_REUSEPORT`` off: see ``grpc_server.create_server``). So a
busy port is one :class:`PortUnavailable` naming it, before a server, a store or a task exists,
not a uvicorn ``sys.exit`` inside a task (which left the gRPC server running and, at exit, an
``Event loop is closed`` traceback) nor, for gRPC, a second process silently sharing the port.
"""

from __future__ import annotations

import contextlib
import errno
import socket

BACKLOG = 2048  # uvicorn's default


class PortUnavailable(Exception):
    """A port the server cannot listen on; the message is the one line to log."""


def _addresses(host: str, port: int) -> list[tuple[int, tuple[object, ...]]]:
    """Every (address family, socket address) ``host`` names, as a server binding it would."""
    infos = socket.getaddrinfo(host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    seen: list[tuple[int, tuple[object, ...]]] = []
    for family, _, _, _, address in infos:
        if (family, tuple(address)) not in seen:
            seen.append((family, tuple(address)))
    return seen


def _unavailable(what: str, flag: str, host: str, port: int, err: OSError) -> PortUnavailable:
    where = f"{host}:{port}" if host else f"port {port}"
    if err.errno == errno.EADDRINUSE:
        why = "is already in use (another lawspeaker or another server listens there)"
    else:
        why = f"cannot be listened on: {err.strerror or err}"
    return PortUnavailable(
        f"{what} port {port} ({where}) {why}; choose another with {flag} or LAWSPEAKER_{what.upper()}_PORT"
    )


def _bound(family: int, address: tuple[object, ...]) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not SO_REUSEPORT: one owner
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def http_sockets(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for HTTP on ``host:port`` (for ``uvicorn.Server.serve(sockets=...)``)."""
    opened: list[socket.socket] = []
    try:
        for family, address in _addresses(host, port):
            sock = _bound(family, address)
            opened.append(sock)
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except OSError as err:
        for sock in opened:
            sock.close()
        raise _unavailable("HTTP", "--http-port", host, port, err) from None
    return opened


def check_free(host: str, port: int) -> None:
    """Raises :class:`PortUnavailable` when the gRPC port cannot be bound now (port 0 always can)."""
    if port == 0:
        return
    try:
        for family, address in _addresses(host, port):
            _bound(family, address).close()
    except OSError as err:
        raise _unavailable("gRPC", "--grpc-port", host, port, err) from None


def grpc_unavailable(host: str, port: int, err: OSError) -> PortUnavailable:
    """The error of a gRPC bind that failed after all (the port was taken since ``check_free``)."""
    return _unavailable("gRPC", "--grpc-port", host, port, err)


def close(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.close()
