"""The web frontend in a real browser: Debian's Chromium, headless, driven by Playwright, against a
real ``lawspeaker serve`` keeping its sessions in the machine's Redis.

Without Chromium (or Playwright) these tests are skipped, unless ``LAWSPEAKER_REQUIRE_BROWSER=1``
(CI sets it, after installing Chromium) turns the skip into a failure. Screenshots go to
``artifacts/screenshots/`` (``LAWSPEAKER_SCREENSHOTS`` to change it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/0"
SCREENSHOTS = Path(os.environ.get("LAWSPEAKER_SCREENSHOTS", ROOT / "artifacts" / "screenshots"))
AXE = ROOT / "clients" / "web" / "node_modules" / "axe-core" / "axe.min.js"


def chromium_path() -> str | None:
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    return found if found and Path(found).exists() else None


def need(condition: bool, why: str) -> None:
    """Skips the test when ``condition`` is false, or fails it when the browser tests are required."""
    if condition:
        return
    if os.environ.get("LAWSPEAKER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{why} (LAWSPEAKER_REQUIRE_BROWSER=1)")
    pytest.skip(why)


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    base_url: str
    prefix: str


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``lawspeaker serve`` on free loopback ports with its sessions in Redis (a key prefix of its own)."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
        up = True
    except redis.RedisError:
        up = False
    need(up, f"no Redis at {REDIS_URL}")
    workdir = tmp_path_factory.mktemp("web-serve")
    out, err = workdir / "stdout.log", workdir / "stderr.log"
    prefix = f"lawspeaker-test-web-{uuid.uuid4().hex}"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("LAWSPEAKER_")}
    command = [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1", "--grpc-port", "0"]
    command += ["--http-port", "0", "--redis-url", REDIS_URL, "--redis-prefix", prefix]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=environ)
    deadline = time.monotonic() + 30
    base_url = ""
    while time.monotonic() < deadline and not base_url:
        found = re.search(rb"grpc_port=(\d+) http_port=(\d+)\n", out.read_bytes())
        if found:
            base_url = f"http://127.0.0.1:{int(found[2])}"
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.05)
    if not base_url:
        proc.kill()
        pytest.fail(f"lawspeaker serve did not start: {err.read_text()[-2000:]}")
    yield Server(proc, base_url, prefix)
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    need(executable is not None, "Chromium is not installed (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - playwright is in the dev extra
        need(False, "playwright is not installed")
        raise
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()
