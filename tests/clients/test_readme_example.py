"""The Python client examples of docs/clients.md (the first was the README's, before it moved), run
as written against real servers on loopback.

A reader copies it into a file and runs it with ``.venv/bin/python``; it must print what its comments
say and then end: its session loop watches the session, so it ends only because it leaves the watch
on game over (the stream itself runs until the session is deleted). The same example with
``Client.rest(...)``, as its first comment offers, must do the same.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from transport.conftest import Servers, run_servers

from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker_client import Client

pytestmark = [pytest.mark.transport, pytest.mark.sessions]

README = Path(__file__).parents[2] / "docs" / "clients.md"
OPENING = 'client = Client.grpc("localhost:50051")'


def readme_examples() -> list[str]:
    """The ```python blocks of docs/clients.md's "Python client" section."""
    section = README.read_text(encoding="utf-8").split("\n## Python client\n", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"^```python\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert found, 'docs/clients.md\'s "Python client" section has no ```python block'
    return found


def readme_example() -> str:
    """The first of them: a game, a refusal, a whole session."""
    return readme_examples()[0]


def run_example(code: str, servers: Servers, transport: str) -> list[str]:
    """``code`` run with its client made for ``servers`` over ``transport``: the lines it printed."""
    assert OPENING in code, f"the example no longer opens with {OPENING}"
    client = (
        f'Client.grpc("127.0.0.1:{servers.grpc_port}")'
        if transport == "grpc"
        else f'Client.rest("{servers.base_url}")'
    )
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace(OPENING, f"client = {client}"), str(README), "exec"), namespace)
    made = namespace["client"]
    assert isinstance(made, Client)
    made.close()
    return out.getvalue().splitlines()


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with run_servers(sessions=lambda: SessionApi(MemoryStore())) as running:
        yield running


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_readme_python_example_prints_what_it_says_and_ends(servers: Servers, transport: str) -> None:
    lines = run_example(readme_example(), servers, transport)
    assert lines[:2] == [
        "['Player 1 cast Tiewaz and Gebo heads up: 2, natural.']",
        "FAILED_PRECONDITION CAST_FIRST",
    ]
    assert re.fullmatch(
        r"(Light|Dark) \(player [12]\) has sailed all 6 ships into Valhalla and wins\.", lines[2]
    )
    assert len(lines) == 3


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_lobby_example_prints_what_its_comments_say(servers: Servers, transport: str) -> None:
    """The lobby example: a claim found by listing, the host's reissue, a rematch that rotates the
    seats. Its printed lines are the ones its comments show."""
    (code,) = [c for c in readme_examples() if "claim_seat" in c]
    lines = run_example(code, servers, transport)
    assert lines == ["1 ['Astrid', 'Björn']", "['Björn', 'Astrid']"]
