"""The interactive API reference over a real server on loopback: Swagger UI at ``/schema/swagger``
and ReDoc at ``/schema/redoc`` show the document ``/schema`` serves, load every asset from the
service itself (so they work without internet access), allow only their own inline scripts, and
``/docs`` leads to them."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from lawspeaker.http.docs import docs_handlers, vendor

pytestmark = pytest.mark.transport

PAGES = {"/schema/swagger": "spec: ", "/schema/redoc": "Redoc.init("}
"""Each page, and the text in it right before the embedded OpenAPI document."""

MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}


class Links(HTMLParser):
    """Every URL a page loads or links to (``src`` and ``href``), and its inline scripts' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._script: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.urls.extend(v for k, v in found.items() if k in ("src", "href") and v is not None)
        if tag == "script" and "src" not in found:
            self._script = []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.inline.append("".join(self._script))
            self._script = None


def parse(page: str) -> Links:
    links = Links()
    links.feed(page)
    links.close()
    return links


def embedded_document(page: str, before: str) -> Any:
    """The JSON value the page's script passes to the UI, read where ``before`` ends."""
    start = page.index(before) + len(before)
    value, _ = json.JSONDecoder().raw_decode(page, start)
    return value


@pytest.mark.parametrize("path", sorted(PAGES))
def test_page_loads_only_same_origin_assets(http: httpx.Client, path: str) -> None:
    r = http.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    links = parse(r.text)
    assets = [u for u in links.urls if not u.startswith("data:")]
    assert assets, "the page loads no assets"
    for url in assets:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc and url.startswith("/"), f"{url} is not on this origin"
        got = http.get(url)
        assert got.status_code == 200, url
        suffix = url[url.rfind(".") :]
        assert got.headers["content-type"] == f"{MEDIA_TYPES[suffix]}; charset=utf-8", url
        assert got.headers["x-content-type-options"] == "nosniff"
        assert "immutable" in got.headers["cache-control"]  # the version is in the URL


@pytest.mark.parametrize("path", sorted(PAGES))
def test_page_shows_the_served_document(http: httpx.Client, path: str) -> None:
    page = http.get(path).text
    assert embedded_document(page, PAGES[path]) == http.get("/schema").json()


@pytest.mark.parametrize("path", sorted(PAGES))
def test_page_policy_allows_only_its_own_scripts(http: httpx.Client, path: str) -> None:
    """The Content-Security-Policy stops the page from loading or calling anything off this origin,
    and from running any inline script but the one it was served with."""
    r = http.get(path)
    policy = {
        d.split()[0]: d.split()[1:]
        for d in (p.strip() for p in r.headers["content-security-policy"].split(";"))
    }
    assert policy["default-src"] == ["'none'"]
    assert policy["connect-src"] == ["'self'"]
    for directive in ("script-src", "style-src", "img-src", "font-src", "connect-src", "worker-src"):
        assert not [s for s in policy[directive] if s.startswith(("http:", "https:", "*"))], directive
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
    inline = parse(r.text).inline
    assert inline
    for script in inline:
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy["script-src"]


def test_docs_redirects_to_swagger_ui(http: httpx.Client) -> None:
    r = http.get("/docs", follow_redirects=False)
    assert r.status_code == 302
    assert r.headers["location"] == "/schema/swagger"
    assert http.get("/docs", follow_redirects=True).headers["content-type"].startswith("text/html")


def test_docs_routes_answer_options_with_their_allow(http: httpx.Client) -> None:
    for path in (*PAGES, "/docs"):
        r = http.options(path)
        assert r.status_code == 204, path
        assert r.headers["allow"] == "GET, OPTIONS", path


def test_licences_are_served_beside_the_bundles(http: httpx.Client) -> None:
    """Each bundle's first line points to a licence file next to it; that file is served."""
    page = http.get("/schema/swagger").text
    bundle = next(u for u in parse(page).urls if u.endswith("swagger-ui-bundle.js"))
    first_line = http.get(bundle).text.split("\n", 1)[0]
    named = re.search(r"see (\S+\.LICENSE\.txt)", first_line)
    assert named is not None, first_line
    r = http.get(bundle.rsplit("/", 1)[0] + "/" + named.group(1))
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/plain; charset=utf-8"


def test_unknown_asset_version_is_not_found(http: httpx.Client) -> None:
    page = http.get("/schema/redoc").text
    bundle = next(u for u in parse(page).urls if u.endswith("redoc.standalone.js"))
    assert http.get(re.sub(r"-\d+\.\d+\.\d+/", "-0.0.0/", bundle)).status_code == 404


def test_document_text_cannot_close_the_pages_script() -> None:
    """Text in the document must stay data in both pages, even holding ``</script>``: here the
    server URL, which a request's Host header chooses."""
    hostile = "</script><script>alert(1)</script> & <!--"
    app = Litestar(route_handlers=list(docs_handlers(lambda request: (hostile,))), openapi_config=None)
    with TestClient(app) as client:
        for path, before in PAGES.items():
            page = client.get(path).text
            assert "<script>alert(1)" not in page
            assert len(parse(page).inline) == 1  # the page's own, not one written by the document
            assert embedded_document(page, before)["servers"][0]["url"] == hostile


def test_vendored_assets_match_their_manifest() -> None:
    """The files under ``static/`` are the npm releases ``vendor.py`` pins (``--check`` compares them
    with npm itself)."""
    assert vendor.verify() == []
