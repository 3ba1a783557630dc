"""The pages a refusal links (issue 35), in a real browser against a real ``lawspeaker serve``: each
heading of a rules page has the id GitHub gives it, as the ``github-slugger`` npm package (the slugger
of GitHub-style renderers, from ``clients/web``'s dev dependencies) makes it from the heading's text
as Chromium reads it; a refused move's ``rule``, opened, lands on its rule (``:target``); a problem's
``type`` opens its page; the pages' style runs under their Content-Security-Policy and nothing is
refused. Some 12 s: its module-scoped server and browser take about 5 s to start, and each page
about 1 s (Chromium lays it out, node runs the slugger)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import httpx
import pytest

from lawspeaker.wire.registry import REGISTRY

from .conftest import ROOT, Server, need

pytestmark = pytest.mark.transport

SLUGGER = ROOT / "clients" / "web" / "node_modules" / "github-slugger" / "index.js"
HEADINGS = "els => els.map(e => [e.tagName, e.id, e.textContent])"


def github_slugs(texts: list[str]) -> list[str]:
    """The ids github-slugger gives headings of these texts, in order (repeats get -1, -2, ...)."""
    script = (
        f"import GithubSlugger from {json.dumps(SLUGGER.as_uri())};"
        "const s = new GithubSlugger(); let input = '';"
        "process.stdin.on('data', d => input += d);"
        "process.stdin.on('end', () => console.log(JSON.stringify(JSON.parse(input).map(t => s.slug(t)))));"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    slugs: list[str] = json.loads(done.stdout)
    return slugs


class Watched:
    """A page with every console message and page error it raises kept."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda m: self.problems.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))


@pytest.fixture
def watched(browser: Any) -> Any:
    w = Watched(browser)
    yield w
    w.context.close()


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_every_heading_has_the_id_github_gives_it(server: Server, watched: Watched, game_id: str) -> None:
    need(
        SLUGGER.exists() and shutil.which("node") is not None, f"github-slugger is not installed ({SLUGGER})"
    )
    page = watched.page
    assert page.goto(f"{server.base_url}/rules/{game_id}").status == 200
    headings = page.eval_on_selector_all("h1, h2, h3, h4, h5, h6", HEADINGS)
    assert len(headings) > 10
    assert [h[1] for h in headings] == github_slugs([h[2] for h in headings])
    assert page.eval_on_selector("body", "b => getComputedStyle(b).maxWidth") == "832px"  # 52rem: styled
    assert watched.problems == []


def test_a_refused_moves_rule_lands_on_its_rule_and_its_type_opens(server: Server, watched: Watched) -> None:
    state = httpx.post(f"{server.base_url}/v1/games/valhalla:new", json={"players": 2}).json()["state"]
    move = {"valhalla": {"moveShip": {"ship": 1, "to": 3}}}
    refused = httpx.post(
        f"{server.base_url}/v1/games/valhalla:applyMove", json={"state": state, "move": move}
    )
    assert refused.status_code == 409
    doc = refused.json()
    page = watched.page
    assert page.goto(doc["metadata"]["rule"]).status == 200
    assert page.evaluate("() => document.querySelector(':target')?.id") == "cast-first"
    assert page.evaluate("() => location.href") == f"{server.base_url}/rules/valhalla#cast-first"
    assert page.goto(doc["type"]).status == 200
    assert page.eval_on_selector("h1", "h => h.textContent") == "CAST_FIRST"
    page.click("text=Valhalla rules")  # the problem page's link to the rule, relative to it
    page.wait_for_url(f"{server.base_url}/rules/valhalla#cast-first")
    assert page.evaluate("() => document.querySelector(':target')?.id") == "cast-first"
    assert watched.problems == []
