"""The ports ``lawspeaker serve`` listens on, claimed before anything starts.

The HTTP sockets are bound and listening here and handed to uvicorn, and the gRPC port is checked
free (grpc binds it itself, with ``SO_REUSEPORT`` off: see ``grpc_server.create_server``). So a
busy port is one :class:`PortUnavailable` naming it, before a server, a store or a task exists,
not a uvicorn ``sys.exit`` inside a task (which left the gRPC server running and, at exit, an
``Event loop is closed`` traceback) nor, for gRPC, a second process silently sharing the port.

With ``--workers N`` the ports are shared on purpose, and only among the workers: the supervisor
claims them with :func:`reserve` (refused when anything else is bound there, then held with
``SO_REUSEPORT`` and without listening), and each worker binds its own listening sockets with
``SO_REUSEPORT`` (``reuse_port=True`` here and in ``grpc_server.create_server``). Linux lets a socket
join a port only when every socket bound there set ``SO_REUSEPORT`` and belongs to the same user, so
a plain ``lawspeaker serve`` (or any server without that option) still gets "in use".
"""

from __future__ import annotations

import contextlib
import errno
import socket
from dataclasses import dataclass, field

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


def _bound(family: int, address: tuple[object, ...], reuse_port: bool = False) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:  # a worker: shares the port its supervisor holds; otherwise one owner
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def http_sockets(host: str, port: int, reuse_port: bool = False) -> list[socket.socket]:
    """Listening sockets for HTTP on ``host:port`` (for ``uvicorn.Server.serve(sockets=...)``);
    with ``reuse_port``, sockets of a worker sharing the port with the other workers."""
    opened: list[socket.socket] = []
    try:
        for family, address in _addresses(host, port):
            sock = _bound(family, address, reuse_port)
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


def metrics_unavailable(host: str, port: int, err: OSError) -> PortUnavailable:
    """The error of a ``--metrics-port`` that cannot be listened on."""
    return _unavailable("metrics", "--metrics-port", host, port, err)


def close(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.close()


@dataclass
class Reservation:
    """The two ports a ``--workers`` supervisor holds for its workers, chosen once (port 0 picks)."""

    grpc_port: int
    http_port: int
    sockets: list[socket.socket] = field(default_factory=list)

    def close(self) -> None:
        close(self.sockets)


def reserve(host: str, grpc_port: int, http_port: int) -> Reservation:
    """Claim both ports for workers that bind them with ``SO_REUSEPORT``; :class:`PortUnavailable`
    naming the first port that is taken.

    Each port is first bound the way a lone server binds it, and released: that fails when anything
    is bound there, even another supervisor's workers (which a socket with ``SO_REUSEPORT`` would
    join). Then it is held by a socket with ``SO_REUSEPORT`` that never listens, for as long as the
    supervisor runs: the kernel gives it no connections, workers may bind beside it, any other
    server is refused, and the port stays ours while every worker is being replaced."""
    held: list[socket.socket] = []
    try:
        bound_grpc = _reserve("gRPC", "--grpc-port", host, grpc_port, held)
        bound_http = _reserve("HTTP", "--http-port", host, http_port, held)
    except PortUnavailable:
        close(held)
        raise
    return Reservation(bound_grpc, bound_http, held)


def _reserve(what: str, flag: str, host: str, port: int, held: list[socket.socket]) -> int:
    """Hold ``port`` (0: a free one, the same for every address of ``host``); the port held."""
    asked = port
    for family, address in _addresses(host, port):
        where = (address[0], port, *address[2:])
        try:
            if port:
                _bound(family, where).close()
            held.append(_held(family, where))
        except OSError as err:
            raise _unavailable(what, flag, host, asked, err) from None
        port = held[-1].getsockname()[1]
    return port


def _held(family: int, address: tuple[object, ...]) -> socket.socket:
    """A bound socket with ``SO_REUSEPORT`` that will not listen.

    Without ``SO_REUSEADDR``: Linux lets any ``SO_REUSEADDR`` socket bind beside a socket that has
    it and does not listen, which would let another server take the port while no worker listens.
    Connections of an earlier server without ``SO_REUSEPORT`` that linger in TIME_WAIT refuse such
    a bind (the check in :func:`_reserve` passed them): then the hold takes ``SO_REUSEADDR`` after all,
    and is only as strong as the workers' own listening sockets."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        try:
            sock.bind(address)
        except OSError as err:
            if err.errno != errno.EADDRINUSE:
                raise
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock
