"""A local 3-primary Redis Cluster for the session tests (issue 16 part 5), with replicas if asked.

Three ``redis-server --cluster-enabled yes`` on loopback ports from :mod:`ports` (so parallel
workers never collide; the cluster bus ports too, which would otherwise be port + 10000, inside the
ephemeral range), joined by ``redis-cli --cluster create``, no persistence. ``move_slot``
migrates one hash slot to another primary the way ``redis-cli --cluster reshard`` does it
(IMPORTING/MIGRATING, MIGRATE of its keys, then SETSLOT NODE on every primary), so a test can
move a live session's slot while clients play.

With ``replicas`` (issue 36), each primary gets that many replicas and the cluster a short node
timeout, so that ``kill`` (SIGKILL) of a primary is followed by its replica's promotion within a
second or two, and ``restart`` brings the killed node back on its port and cluster config file:
it rejoins as a replica of the promoted node (and syncs from it at once: no diskless-sync delay).
"""

from __future__ import annotations

import contextlib
import shutil
import signal
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
    commands: dict[int, list[str]] = field(default_factory=dict)  # each node's redis-server argv
    running: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)  # by port

    @property
    def url(self) -> str:
        """The service's URL form for a cluster: every seed node, comma-separated."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def node(self, port: int) -> Any:  # redis-py types execute_command as untyped
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

    def node_id(self, port: int) -> str:
        return str(self.node(port).execute_command("CLUSTER MYID").decode())

    def owner(self, slot: int) -> int:
        """The port of the primary that serves ``slot`` (as the first node up sees it)."""
        for start, stop, primary, *_ in self.node(self.live()[0]).execute_command("CLUSTER SLOTS"):
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

    def nodes(self, port: int) -> list[dict[str, Any]]:
        """CLUSTER NODES as ``port`` sees it: each node's port, id, flags, its primary's id, slots."""
        return [
            {
                "port": int(address.rsplit(":", 1)[1]),
                "id": node["node_id"],
                "flags": set(node["flags"].split(",")),
                "primary": node["master_id"],
                "slots": node["slots"],
            }
            for address, node in self.node(port).execute_command("CLUSTER NODES").items()
        ]

    def primaries(self) -> list[int]:
        """The ports of the primaries that serve slots, as a live node sees them."""
        for port in self.live():
            with contextlib.suppress(redis.exceptions.RedisError):
                return sorted(
                    n["port"]
                    for n in self.nodes(port)
                    if "master" in n["flags"] and "fail" not in n["flags"] and n["slots"]
                )
        raise RuntimeError("no node answers")

    def replica_of(self, port: int) -> int:
        """The port of a replica in sync with the primary at ``port`` (as the primary says)."""
        info = self.node(port).info("replication")
        online = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)]
        return int(next(r["port"] for r in online if r.get("state") == "online"))

    def role(self, port: int) -> str:
        return str(self.node(port).execute_command("ROLE")[0].decode())

    def live(self) -> list[int]:
        return [port for port, process in self.running.items() if process.poll() is None]

    def kill(self, port: int) -> None:
        """SIGKILL of the node at ``port``: it writes nothing more, closes nothing cleanly."""
        process = self.running[port]
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def restart(self, port: int) -> None:
        """The killed node again, on its port and cluster config file (so it rejoins the cluster)."""
        self._start(port)
        _wait(lambda: _up(self, port, self.running[port]), f"redis-server on {port} again")

    def healthy(self) -> bool:
        """Every node up says cluster_state:ok and every primary has an online replica in sync."""
        for port in self.live():
            if self.node(port).execute_command("CLUSTER INFO")["cluster_state"] != "ok":
                return False
        primaries = self.primaries()
        for port in primaries:
            info = self.node(port).info("replication")
            replicas = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)]
            if not any(r.get("state") == "online" for r in replicas):
                return False
        for port in self.live():
            if port not in primaries:
                info = self.node(port).info("replication")
                if info.get("master_link_status") != "up" or info.get("master_sync_in_progress"):
                    return False
        return True

    def wait_healthy(self, timeout: float = 60.0) -> None:
        _wait(self.healthy, "every node ok and every primary with a replica", timeout)

    def _start(self, port: int) -> None:
        process = subprocess.Popen(self.commands[port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes.append(process)
        self.running[port] = process

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


def start_cluster(workdir: Path, replicas: int = 0, node_timeout_ms: int = 15000) -> LocalCluster:
    """Starts three primaries (each with ``replicas`` replicas) and joins them; waits until every node
    says cluster_state:ok (and, with replicas, every primary has one in sync)."""
    cluster = LocalCluster([free_port() for _ in range(3 * (1 + replicas))])
    try:
        for port in cluster.ports:
            cluster.commands[port] = [
                "redis-server",
                "--port", str(port),
                "--cluster-port", str(free_port()),
                "--bind", "127.0.0.1",
                "--cluster-enabled", "yes",
                "--cluster-config-file", str(workdir / f"nodes-{port}.conf"),
                "--cluster-node-timeout", str(node_timeout_ms),
                "--repl-diskless-sync-delay", "0",
                "--dir", str(workdir),
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
            ]  # fmt: skip
            cluster._start(port)
        for port, process in zip(cluster.ports, cluster.processes, strict=True):
            _wait(lambda port=port, process=process: _up(cluster, port, process), f"redis-server on {port}")
        subprocess.run(
            [
                *("redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in cluster.ports)),
                *("--cluster-replicas", str(replicas), "--cluster-yes"),
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
        if replicas:
            cluster.wait_healthy()
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
