"""A local 3-primary Redis Cluster for the session tests (issue 16 part 5).

Three ``redis-server --cluster-enabled yes`` on loopback ports from :mod:`ports` (so parallel
workers never collide; the cluster bus ports too, which would otherwise be port + 10000, inside the
ephemeral range), joined by ``redis-cli --cluster create``, no persistence. ``move_slot``
migrates one hash slot to another primary the way ``redis-cli --cluster reshard`` does it
(IMPORTING/MIGRATING, MIGRATE of its keys, then SETSLOT NODE on every primary), so a test can
move a live session's slot while clients play.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from .ports import free_port

HAVE_CLUSTER_TOOLS = shutil.which("redis-server") is not None and shutil.which("redis-cli") is not None


@dataclass
class LocalCluster:
    ports: list[int]
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The service's URL form for a cluster: every seed node, comma-separated."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def node(self, port: int) -> Any:  # redis-py types execute_command as untyped
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

    def node_id(self, port: int) -> str:
        return str(self.node(port).execute_command("CLUSTER MYID").decode())

    def owner(self, slot: int) -> int:
        """The port of the primary that serves ``slot``."""
        for start, stop, primary, *_ in self.node(self.ports[0]).execute_command("CLUSTER SLOTS"):
            if start <= slot <= stop:
                return int(primary[1])
        raise LookupError(slot)

    def move_slot(self, slot: int, to_port: int) -> int:
        """Moves ``slot`` (and its keys) to the primary at ``to_port``; returns how many keys moved."""
        return max(self.moving_slot(slot, to_port), default=0)

    def moving_slot(self, slot: int, to_port: int) -> Iterator[int]:
        """Moves ``slot`` to the primary at ``to_port`` one step at a time, as ``redis-cli --cluster
        reshard`` does: IMPORTING on the target, MIGRATING on the source, then MIGRATE one key at a
        time (meanwhile the source answers ASK for a key it no longer holds, TRYAGAIN for a command
        over keys on both sides), then SETSLOT NODE on every primary. Yields the keys moved so far
        after each step, so a caller can let clients run between steps."""
        from_port = self.owner(slot)
        if from_port == to_port:
            return
        source, target = self.node(from_port), self.node(to_port)
        source_id, target_id = self.node_id(from_port), self.node_id(to_port)
        target.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", source_id)
        source.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", target_id)
        moved = 0
        yield moved
        while names := source.execute_command("CLUSTER GETKEYSINSLOT", slot, 1):
            source.execute_command("MIGRATE", "127.0.0.1", to_port, "", 0, 5000, "KEYS", *names)
            moved += len(names)
            yield moved
        for port in (to_port, from_port, *self.ports):  # the new owner first, as redis-cli does
            self.node(port).execute_command("CLUSTER SETSLOT", slot, "NODE", target_id)
        yield moved

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_cluster(workdir: Path) -> LocalCluster:
    """Starts three primaries and joins them; waits until every node says cluster_state:ok."""
    cluster = LocalCluster([free_port() for _ in range(3)])
    try:
        for port in cluster.ports:
            cluster.processes.append(
                subprocess.Popen(
                    [
                        "redis-server",
                        "--port", str(port),
                        "--cluster-port", str(free_port()),
                        "--bind", "127.0.0.1",
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", str(workdir / f"nodes-{port}.conf"),
                        "--dir", str(workdir),
                        "--save", "",
                        "--appendonly", "no",
                        "--daemonize", "no",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip
        for port, process in zip(cluster.ports, cluster.processes, strict=True):
            _wait(lambda port=port, process=process: _up(cluster, port, process), f"redis-server on {port}")
        subprocess.run(
            [
                *("redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in cluster.ports)),
                *("--cluster-replicas", "0", "--cluster-yes"),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        for port in cluster.ports:
            _wait(
                lambda port=port: cluster.node(port).execute_command("CLUSTER INFO")["cluster_state"] == "ok",
                f"cluster_state:ok on {port}",
            )
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _up(cluster: LocalCluster, port: int, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        raise RuntimeError(f"redis-server on {port} exited with {process.returncode}")
    return bool(cluster.node(port).ping())


def _wait(check: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if callable(check) and check():
                return
        except redis.exceptions.RedisError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(0.05)
