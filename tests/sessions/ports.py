"""Loopback ports for the private redis-servers that session tests start, stop and start again.

The suite runs in parallel (pytest-xdist). A port found free by binding to port 0 comes from the
kernel's ephemeral range, the same range every outgoing connection and every port-0 listener draws
from: while a test's Redis is down between restarts, another worker's client socket could be handed
that port and the restart would fail. So these ports come from below the ephemeral range, and each
worker draws from a slice of that span of its own, so two workers never pick the same port.
"""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

SPAN = 12_000  # ports just below the ephemeral range that the slices share
_handed_out: set[int] = set()


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux's default when it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _worker_slice() -> range:
    """This xdist worker's own ports (all of the span outside xdist)."""
    top = _ephemeral_low()
    bottom = max(1024, top - SPAN)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(worker) if worker.isdigit() else 0
    width = (top - bottom) // max(1, count)
    start = bottom + (index % max(1, count)) * width
    return range(start, start + width)


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A loopback port nothing listens on, not handed out before in this process, from this
    worker's slice below the ephemeral range (an ephemeral one only if that slice is exhausted)."""
    candidates = _worker_slice()
    if len(candidates) >= 100:
        for _ in range(500):
            port = random.choice(candidates)
            if port not in _handed_out and _bindable(port):
                _handed_out.add(port)
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
