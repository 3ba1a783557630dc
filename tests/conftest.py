"""Shared pytest configuration: make tests/golden importable for its recorder module, the
hypothesis profile every property test runs under, and the check that no process the suite started
outlives it."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent / "golden"))

# The suite runs one pytest-xdist worker per core beside real servers, so how long an example takes
# says nothing about the code under test: no property may fail on a timing (the 200 ms deadline or
# the too-slow health check). Each property keeps its own max_examples; the profile fills in what
# its settings leave out. HYPOTHESIS_PROFILE=default restores hypothesis's own defaults.
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# --------------------------------------------------------------------------- the layers' markers

LAYER_MARKERS = {"sessions": "sessions"}
"""Folders of tests/ whose every test carries a marker, so the quick loop (``-m "not transport and
not sessions"``) leaves them out though a file forgets its ``pytestmark`` (tests/sessions/test_cluster.py
once did, and brought a Redis Cluster into the quick loop)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    for item in items:
        try:
            folder = item.path.relative_to(tests).parts[0]
        except ValueError:
            continue
        marker = LAYER_MARKERS.get(folder)
        if marker is not None and item.get_closest_marker(marker) is None:
            item.add_marker(marker)


# --------------------------------------------------------------------------- no process outlives the suite

RUN_TAG = "PYTEST_LAWSPEAKER_RUN"
"""Set by the run's first process and inherited by everything it starts (xdist workers, servers,
Redis, bot pools, browsers), so that what is left at the end can be found though its parent has
exited (an orphan's parent is PID 1). Not a ``LAWSPEAKER_*`` name: the tests that start
``lawspeaker serve`` without the service's own variables keep this one, so their servers and what
those start (bot workers, a fork server) are checked too."""
GRACE_SECONDS = 10.0
"""How long a process the suite started may take to exit after the session ends (a server draining,
a fork server seeing its last worker go) before it counts as outliving the suite."""


def pytest_configure(config: pytest.Config) -> None:
    if RUN_TAG not in os.environ:  # the controller, or a run with -n 0
        os.environ[RUN_TAG] = f"{os.getpid()}-{time.time_ns()}"
        config.stash[_FIRST] = True


_FIRST = pytest.StashKey[bool]()


def _environ_tag(pid: int) -> str | None:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone, or not ours to read
        return None
    for entry in raw.split(b"\0"):
        if entry.startswith(RUN_TAG.encode() + b"="):
            return entry.split(b"=", 1)[1].decode()
    return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _survivors(tag: str) -> list[int]:
    """Processes of this run still alive, other than this one (and zombies, which are dead)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and _environ_tag(int(entry.name)) == tag:
            found.append(int(entry.name))
    return sorted(found)


def _stop_own_children() -> None:
    """What this process started for its tests and keeps for its lifetime: the bot pools' workers
    (those of open pools, and any a closed pool left), then the fork server they came from (it exits
    once no worker holds its "alive" pipe), so that an xdist worker, which ends with ``os._exit``
    and no exit handlers, leaves nothing behind."""
    if "lawspeaker.api.botpool" in sys.modules:
        sys.modules["lawspeaker.api.botpool"].close_all()
    import multiprocessing
    import multiprocessing.forkserver

    # a pool closed without waiting (``close()``) told its workers to go, but the thread that tells
    # them dies with an xdist worker's os._exit: any worker still alive is stopped here
    for child in multiprocessing.active_children():
        child.terminate()
        child.join(5)

    server = multiprocessing.forkserver._forkserver  # type: ignore[attr-defined]
    alive = getattr(server, "_forkserver_alive_fd", None)
    if alive is not None:
        os.close(alive)  # what ForkServer._stop does, without its unbounded waitpid
        server._forkserver_alive_fd = None


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _stop_own_children()
    if not session.config.stash.get(_FIRST, False):
        return
    tag = os.environ[RUN_TAG]
    deadline = time.monotonic() + GRACE_SECONDS
    left = _survivors(tag)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)  # polled: the processes are no children of this one, so nothing to wait on
        left = _survivors(tag)
    if not left:
        return
    described = [f"  {pid}: {_cmdline(pid)[:200]}" for pid in left]
    for pid in left:  # the machine is left clean all the same
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = f"{len(left)} process(es) the suite started outlived it ({GRACE_SECONDS:g} s after its end):"
    if reporter is not None:
        reporter.write_line("\n".join([message, *described]), red=True, bold=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
