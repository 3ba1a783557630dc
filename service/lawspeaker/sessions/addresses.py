"""The ``host:port[,host:port...]`` list a cluster URL (its seeds) and a Sentinel URL (its
Sentinels) name their servers by."""

from __future__ import annotations


def host_ports(hosts: str, what: str) -> list[tuple[str, int]]:
    """Each ``host:port`` of ``hosts`` (an IPv6 host in brackets); ValueError in one line, starting
    with ``what`` (say, "a cluster URL names its seeds"), at the first that is not one."""
    found: list[tuple[str, int]] = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        host = host.strip("[]")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{what} as host:port[,host:port...] (got {item.strip()!r})")
        found.append((host, int(port)))
    return found
