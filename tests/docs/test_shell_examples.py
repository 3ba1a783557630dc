"""The shell examples of the documentation, run as written against real servers on loopback.

A block that follows a ``<!-- shell example: NAME -->`` line in README.md or a docs/ page is run by
bash in an empty directory, with ``localhost:8080`` pointed at the test servers (the only change).
What it prints must hold, in order, the lines its comments show as output: ``# ...`` lines right
under a command and before a blank line are output; other comments are prose. Some
examples print what a comment cannot spell out; :data:`ALSO` adds a pattern for those.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from transport.conftest import Servers, run_servers

from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore

pytestmark = [pytest.mark.transport, pytest.mark.sessions]

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(
    r"^<!-- shell example: ([\w-]+) -->\n```(?:sh|bash)\n(.*?)^```$", re.MULTILINE | re.DOTALL
)
ALSO: dict[str, list[str]] = {
    "watch-and-poll": [
        r"^id: 2$",  # the ticket's watch: the version's etag as the event id
        r'"seat":0',  # ... as seat 0 sees it
        r"^: resumed at the current version",  # Last-Event-ID: the current etag
    ],
}


def examples() -> Iterator[tuple[str, str, str]]:
    for page in PAGES:
        for found in MARKER.finditer(page.read_text(encoding="utf-8")):
            yield str(page.relative_to(ROOT)), found.group(1), found.group(2)


def expected_output(block: str) -> list[str]:
    """The output lines a block's comments show: a run of ``# `` lines right under a command and
    followed by a blank line or the block's end (a comment run followed by a command is about it)."""
    lines = block.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("#"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].startswith("#"):
            i += 1
        under_command = start > 0 and bool(lines[start - 1].strip())
        if under_command and (i == len(lines) or not lines[i].strip()):
            out += [line.removeprefix("# ") for line in lines[start:i]]
    return out


def test_the_output_comments_are_told_from_the_prose() -> None:
    block = "# prose before\necho a\n# a\n\n# about the next one\necho b\necho c\n# b\n# c\n"
    assert expected_output(block) == ["a", "b", "c"]
    assert expected_output("echo x\n# about y\necho y\n") == []


def test_every_example_is_found_and_named_once() -> None:
    names = [name for _, name, _ in examples()]
    assert len(names) == len(set(names)), names
    assert {"watch-and-poll", "connect-errors"} <= set(names)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with run_servers(sessions=lambda: SessionApi(MemoryStore())) as running:
        yield running


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl and jq")
@pytest.mark.parametrize(("page", "name", "block"), list(examples()), ids=[n for _, n, _ in examples()])
def test_a_shell_example_prints_what_it_says(
    servers: Servers, tmp_path: Path, page: str, name: str, block: str
) -> None:
    script = block.replace("localhost:8080", f"127.0.0.1:{servers.http_port}")
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    printed = done.stdout.splitlines()
    at = 0
    for want in expected_output(block):
        while at < len(printed) and printed[at].strip() != want.strip():
            at += 1
        assert at < len(printed), (
            f"{page} {name}: {want!r} not printed (in order); it printed:\n{done.stdout}"
        )
        at += 1
    for pattern in ALSO.get(name, ()):
        assert re.search(pattern, done.stdout, re.MULTILINE), (
            f"{page} {name}: no {pattern!r} in\n{done.stdout}"
        )
