"""The pages the links of an answer open (issue 35): ``/rules/{game}`` (each game's rules document as
HTML, with the anchors GitHub gives it) and ``/problems/{slug}`` (each reason of the catalogue), over
the shared servers on loopback; the links made from ``--public-url`` (REST and Connect in an
in-process app, gRPC with the base ``lawspeaker serve`` configures); the page headers; and what an
unknown page answers. ``tests/transport/test_reason_catalogue.py`` follows every link an answer
carries."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from litestar.testing import TestClient

from lawspeaker.api import catalogue, links
from lawspeaker.api.rules import RulesApi
from lawspeaker.http import pages
from lawspeaker.http.app import create_app
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.registry import REGISTRY

from .conftest import Servers

pytestmark = pytest.mark.transport

ROOT = Path(__file__).resolve().parents[2]
SHIP_MOVE = game_pb2.Move(
    valhalla=valhalla_pb2.ValhallaMove(move_ship=valhalla_pb2.ValhallaShipMove(ship=1, to=3))
)
HTML = "text/html; charset=utf-8"


class _Page(HTMLParser):
    """The ids, links and scripts of a page, as a browser's parser sees them."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.tags: set[str] = set()
        self.handlers: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if name == "id" and value:
                self.ids.append(value)
            elif name == "href" and value and tag == "a":
                self.hrefs.append(value)
            elif name.startswith("on"):
                self.handlers.append(f"{tag} {name}")


def _document(game_id: str) -> Path:
    return ROOT / "docs" / "rules" / links.documents()[game_id]


# --------------------------------------------------------------------------- the rules pages


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_a_rules_page_has_the_anchors_github_gives_its_document(http: httpx.Client, game_id: str) -> None:
    r = http.get(f"/rules/{game_id}")
    assert r.status_code == 200 and r.headers["content-type"] == HTML
    page = _Page(r.text)
    assert len(page.ids) == len(set(page.ids)), "an id twice"
    # the document's own anchors (each reason's); the headings' ids are GitHub's (tests/web, with
    # github-slugger in a browser)
    assert set(page.ids) >= set(re.findall(r'<a id="([^"]+)"', _document(game_id).read_text()))
    for rule in REGISTRY[game_id].game.reasons.values():
        assert rule.rule.partition("#")[2] in page.ids, rule.reason
    for href in page.hrefs:  # the document's own links to its sections land too
        if href.startswith("#"):  # percent-encoded (köpingen), as a browser decodes it to find the id
            assert urllib.parse.unquote(href[1:]) in page.ids, href
    assert "script" not in page.tags and not page.handlers
    assert f"<title>{REGISTRY[game_id].game.title}: rules</title>" in r.text


def test_the_rules_page_is_rendered_from_the_document_the_wheel_carries() -> None:
    """``lawspeaker/http/rulebooks`` is ``docs/rules``: the same bytes (the wheel copies them)."""
    for game_id in REGISTRY:
        assert pages.rulebook_text(game_id) == _document(game_id).read_text(encoding="utf-8")
    assert set(links.documents()) == set(REGISTRY)


def test_raw_html_in_a_document_is_shown_as_text_but_its_anchors() -> None:
    rendered = pages.render_markdown(
        '<a id="kept"></a>A rule.\n\n<script>alert(1)</script>\n\n'
        '<img src=x onerror="alert(1)"> and <b onclick="x()">bold</b>\n\n'
        "[a link](javascript:alert(1)) and [another](#kept)\n\n"
        "## Birka (köpingen) & more\n\n## Birka (köpingen) & more\n"
    )
    page = _Page(rendered)
    assert page.ids == ["kept", "birka-köpingen--more", "birka-köpingen--more-1"]
    assert page.tags <= {"a", "p", "h2"} and not page.handlers, (page.tags, page.handlers)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered
    assert page.hrefs == ["#kept"]  # markdown-it drops the javascript: link


def test_a_page_has_a_strong_etag_is_cached_and_runs_no_script(http: httpx.Client) -> None:
    first = http.get("/rules/valhalla", headers={"accept-encoding": "identity"})
    tag = first.headers["etag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', tag)
    compressed = http.get("/rules/valhalla")  # brotli: its own strong tag (lawspeaker.http.compression)
    assert compressed.headers["etag"] == tag[:-1] + '-br"' and compressed.content == first.content
    assert (
        http.get("/rules/valhalla", headers={"if-none-match": compressed.headers["etag"]}).status_code == 304
    )
    assert first.headers["cache-control"] == "public, max-age=300"
    policy = first.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy and "unsafe-inline" not in policy
    assert first.headers["x-content-type-options"] == "nosniff"
    again = http.get("/rules/valhalla", headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    assert http.get("/rules/valhalla", headers={"if-none-match": '"other"'}).status_code == 200
    assert http.get("/rules/penki").headers["etag"] != tag
    assert http.get("/rules/valhalla").content == first.content  # the same bytes each time


def test_the_indexes_link_every_page(http: httpx.Client) -> None:
    rules = _Page(http.get("/rules").text)
    assert {h for h in rules.hrefs if h.startswith("rules/")} == {f"rules/{g}" for g in REGISTRY}
    problems = http.get("/problems")
    assert problems.status_code == 200 and problems.headers["content-type"] == HTML
    listed = {h.removeprefix("problems/") for h in _Page(problems.text).hrefs if h.startswith("problems/")}
    assert listed == {links.slug(r) for r in catalogue.all_reasons()}
    for path in ("/rules/", "/problems/", "/rules/valhalla/", "/problems/cast-first/"):  # one level deeper
        moved = http.get(path, follow_redirects=True)
        assert moved.status_code == 200 and moved.url.path == path.rstrip("/"), (path, moved.url)
        assert moved.history[0].status_code == 308
    for href in rules.hrefs + _Page(problems.text).hrefs:  # relative: they resolve under any base
        assert not href.startswith(("/", "http")), href
        assert http.get(str(httpx.URL(f"{http.base_url}/").join(href))).status_code == 200, href


# --------------------------------------------------------------------------- the problem pages


def test_a_problem_page_says_what_a_general_reason_means(http: httpx.Client) -> None:
    r = http.get("/problems/session-etag-mismatch")
    assert r.status_code == 200 and r.headers["content-type"] == HTML
    text = r.text
    reason = catalogue.GENERAL_BY_REASON["SESSION_ETAG_MISMATCH"]
    for shown in ("<code>SESSION_ETAG_MISMATCH</code>", "<code>STALE_STATE</code>", "<code>ABORTED</code>"):
        assert shown in text
    assert "<dd>409</dd>" in text and "<code>aborted</code> (HTTP 409)" in text
    assert reason.meaning.split(":")[0] in text and "<dd>REST, gRPC, Connect</dd>" in text


def test_a_problem_page_of_a_rule_links_the_rule_in_every_game_that_has_it(http: httpx.Client) -> None:
    shared = {code for _, code in catalogue.game_reasons() if code == "NOT_A_LEGAL_MOVE"}
    assert shared, "no reason shared by games"
    r = http.get("/problems/not-a-legal-move")
    page = _Page(r.text)
    games = sorted(g for g, code in catalogue.game_reasons() if code == "NOT_A_LEGAL_MOVE")
    assert len(games) > 1
    rule_links = [h for h in page.hrefs if h.startswith("../rules/")]
    assert sorted(rule_links) == sorted(f"../rules/{g}#not-a-legal-move" for g in games)
    for href in rule_links:  # each lands on an anchor of its rules page
        target, _, anchor = str(httpx.URL(f"{http.base_url}/problems/not-a-legal-move").join(href)).partition(
            "#"
        )
        assert anchor in _Page(httpx.get(target).text).ids
    rulebook = REGISTRY["valhalla"].game.reasons["CAST_FIRST"].rulebook
    cast_first = http.get("/problems/cast-first").text
    assert "<code>FAILED_PRECONDITION</code>" in cast_first and "<dd>409</dd>" in cast_first
    assert rulebook.replace('"', "&quot;") in cast_first


# --------------------------------------------------------------------------- unknown pages


def test_an_unknown_game_or_problem_type_is_a_404_problem_naming_it(http: httpx.Client) -> None:
    game = http.get("/rules/chess")
    assert game.status_code == 404 and game.headers["content-type"] == "application/problem+json"
    doc = game.json()
    assert doc["reason"] == "GAME_NOT_FOUND" and "'chess'" in doc["detail"] and "valhalla" in doc["detail"]
    assert doc["type"] == f"{str(http.base_url).rstrip('/')}/problems/game-not-found"
    problem = http.get("/problems/no-such-thing")
    assert problem.status_code == 404 and problem.headers["content-type"] == "application/problem+json"
    doc = problem.json()
    assert doc["reason"] == "ROUTE_NOT_FOUND" and "'no-such-thing'" in doc["detail"]
    assert http.get("/problems/CAST_FIRST").status_code == 404  # the slug, not the code
    assert http.get(doc["type"]).status_code == 200  # the 404's own type is a page
    assert http.post("/rules/valhalla").status_code == 405


# --------------------------------------------------------------------------- where the links point


@pytest.fixture(scope="module")
def behind_a_proxy() -> Iterator[TestClient[Any]]:
    """The app as ``lawspeaker serve --public-url https://rules.example/lawspeaker`` makes it."""
    with TestClient(create_app(public_url="https://rules.example/lawspeaker")) as client:
        yield client


def test_public_url_starts_every_link_of_rest_and_connect(behind_a_proxy: TestClient[Any]) -> None:
    state = RulesApi().new_game(pb.NewGameRequest(game="valhalla", players=2)).state
    body = {"state": json.loads(_json(state)), "move": {"valhalla": {"moveShip": {"ship": 1, "to": 3}}}}
    refused = behind_a_proxy.post("/v1/games/valhalla:applyMove", json=body).json()
    assert refused["type"] == "https://rules.example/lawspeaker/problems/cast-first"
    assert refused["metadata"]["rule"] == "https://rules.example/lawspeaker/rules/valhalla#cast-first"
    verdict = behind_a_proxy.post("/v1/games/valhalla:validateMove", json=body).json()
    assert verdict["violation"]["rule"] == "https://rules.example/lawspeaker/rules/valhalla#cast-first"
    described = behind_a_proxy.get("/v1/games/valhalla").json()
    assert {r["rule"] for r in described["reasons"]} == {
        f"https://rules.example/lawspeaker/rules/valhalla#{links.slug(code)}"
        for code in REGISTRY["valhalla"].game.reasons
    }
    connect = behind_a_proxy.post(
        "/lawspeaker.v1.RulesService/ApplyMove", json={"game": "valhalla", **body}
    ).json()
    [info] = [_error_info(d["value"]) for d in connect["details"] if d["type"] == "google.rpc.ErrorInfo"]
    assert info.metadata["rule"] == "https://rules.example/lawspeaker/rules/valhalla#cast-first"
    unmatched = behind_a_proxy.get("/v1/no-such-route").json()  # no route's middleware ran
    assert unmatched["type"] == "https://rules.example/lawspeaker/problems/route-not-found"


def test_without_public_url_links_follow_the_host_the_request_named(http: httpx.Client) -> None:
    described = http.get("/v1/games/penki", headers={"host": "games.example:8443"}).json()
    assert described["reasons"][0]["rule"].startswith("http://games.example:8443/rules/penki#")
    again = http.get("/v1/games/penki").json()  # each base its own answer, not the last one cached
    assert again["reasons"][0]["rule"].startswith(f"{str(http.base_url).rstrip('/')}/rules/penki#")


def test_grpc_links_are_paths_or_start_with_the_configured_public_url(
    stub: rules_service_pb2_grpc.RulesServiceStub,
) -> None:
    state = stub.NewGame(pb.NewGameRequest(game="valhalla", players=2)).state
    request = pb.ApplyMoveRequest(game="valhalla", state=state, move=SHIP_MOVE)
    assert _grpc_rule(stub, request) == "/rules/valhalla#cast-first"
    links.configure("https://rules.example/")  # as `lawspeaker serve --public-url` does
    try:
        assert _grpc_rule(stub, request) == "https://rules.example/rules/valhalla#cast-first"
        described = stub.DescribeGame(pb.DescribeGameRequest(game="valhalla"))
        assert described.reasons[0].rule.startswith("https://rules.example/rules/valhalla#")
        verdict = stub.ValidateMove(pb.ValidateMoveRequest(game="valhalla", state=state, move=SHIP_MOVE))
        assert verdict.violation.rule == "https://rules.example/rules/valhalla#cast-first"
    finally:
        links.configure("")
    assert _grpc_rule(stub, request) == "/rules/valhalla#cast-first"


@pytest.mark.skipif(shutil.which("curl") is None or shutil.which("jq") is None, reason="needs curl and jq")
def test_the_api_md_links_example_runs_verbatim(servers: Servers) -> None:
    """docs/api.md's "Links an app can open" commands, each with the output its ``# `` lines say,
    against the shared server in place of localhost:8080."""
    section = (ROOT / "docs" / "api.md").read_text().split("\n## Links an app can open\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    assert block is not None
    commands: list[tuple[str, list[str]]] = []
    for line in block.group(1).replace("\\\n", "").splitlines():
        if line.startswith("# "):
            commands[-1][1].append(line[2:])
        elif line.strip():
            commands.append((line, []))
    assert len(commands) == 4
    here = f"127.0.0.1:{servers.http_port}"
    for command, expected in commands:
        assert "localhost:8080" in command
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command.replace("localhost:8080", here)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.splitlines() == [e.replace("localhost:8080", here) for e in expected], command


# --------------------------------------------------------------------------- helpers


def _json(message: Any) -> str:
    from google.protobuf import json_format

    return json_format.MessageToJson(message)


def _error_info(value: str) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))


def _grpc_rule(stub: rules_service_pb2_grpc.RulesServiceStub, request: pb.ApplyMoveRequest) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        stub.ApplyMove(request)
    status = rpc_status.from_call(caught.value)
    assert status is not None
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.metadata["rule"])
    raise AssertionError("no ErrorInfo")
