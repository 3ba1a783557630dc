"""The ports a ``--workers`` supervisor holds (``listen.reserve``): only its workers may bind them."""

from __future__ import annotations

import socket
import sys
import time

import pytest

from lawspeaker.server import listen

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SO_REUSEPORT as Linux has it")


def test_a_held_port_takes_workers_and_refuses_a_lone_server_even_while_no_worker_listens() -> None:
    held = listen.reserve("127.0.0.1", 0, 0)
    try:
        assert held.grpc_port != held.http_port
        with pytest.raises(listen.PortUnavailable, match=rf"HTTP port {held.http_port} .* in use"):
            listen.http_sockets("127.0.0.1", held.http_port)
        with pytest.raises(listen.PortUnavailable, match=rf"gRPC port {held.grpc_port} .* in use"):
            listen.check_free("127.0.0.1", held.grpc_port)
        first = listen.http_sockets("127.0.0.1", held.http_port, reuse_port=True)
        second = listen.http_sockets("127.0.0.1", held.http_port, reuse_port=True)
        with pytest.raises(listen.PortUnavailable):
            listen.http_sockets("127.0.0.1", held.http_port)
        listen.close(first + second)
    finally:
        held.close()


def test_a_port_a_worker_group_listens_on_is_refused_to_another_supervisor() -> None:
    held = listen.reserve("127.0.0.1", 0, 0)
    workers = listen.http_sockets("127.0.0.1", held.http_port, reuse_port=True)
    try:
        with pytest.raises(listen.PortUnavailable, match=rf"HTTP port {held.http_port}"):
            listen.reserve("127.0.0.1", 0, held.http_port)
        with pytest.raises(listen.PortUnavailable, match=rf"gRPC port {held.grpc_port}"):
            listen.reserve("127.0.0.1", held.grpc_port, 0)
    finally:
        listen.close(workers)
        held.close()


def test_connections_in_time_wait_of_an_earlier_lone_server_do_not_stop_the_hold() -> None:
    """The server closed first, so its side of the connection lingers in TIME_WAIT on the port."""
    (server,) = listen.http_sockets("127.0.0.1", 0)
    port = server.getsockname()[1]
    server.setblocking(True)
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = server.accept()
    accepted.close()
    time.sleep(0.05)
    client.close()
    server.close()
    held = listen.reserve("127.0.0.1", 0, port)
    try:
        assert held.http_port == port
        workers = listen.http_sockets("127.0.0.1", port, reuse_port=True)
        with pytest.raises(listen.PortUnavailable):
            listen.http_sockets("127.0.0.1", port)
        listen.close(workers)
    finally:
        held.close()
