"""The interactive API reference: Swagger UI at ``/schema/swagger``, ReDoc at ``/schema/redoc``, and
``/docs`` redirecting to Swagger UI. Every asset they load is served by the service itself, so the
reference works on a machine without internet access.

The pages are written by Litestar's own render plugins (``SwaggerRenderPlugin``,
``RedocRenderPlugin``). Litestar normally mounts them through ``OpenAPIConfig`` with the document it
generates from the handlers' signatures; this app turns that off (``openapi_config=None``) because
its document is built from the protobuf descriptors (:mod:`lawspeaker.http.openapi`, served at
``/schema``). Both plugins embed the document they are handed in the page rather than fetching it,
so our handlers call their ``render`` with our document: the reference shows exactly what
``/schema`` serves. The document is embedded with ``<``, ``>`` and ``&`` escaped, so no text in it
can close the page's script.

The assets are vendored from npm by :mod:`lawspeaker.http.docs.vendor` into ``static/`` and served
under ``/schema/assets/<package>-<version>/``: a new version is a new URL, so they are cached for a
year. Each page sends a Content-Security-Policy that lets it load, connect to and run only what the
service serves (its inline scripts by hash), so a bundle that tried to reach a CDN would be stopped
by the browser, not just left unused.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from importlib import resources
from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.enums import MediaType
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.plugins import OpenAPIRenderPlugin, RedocRenderPlugin, SwaggerRenderPlugin
from litestar.response import Redirect

from lawspeaker.http.compression import STATIC_OPT
from lawspeaker.http.openapi import DEFAULT_SERVERS, openapi_document

SWAGGER_PATH = "/schema/swagger"
REDOC_PATH = "/schema/redoc"
DOCS_PATH = "/docs"
ASSETS_PATH = "/schema/assets"

# Litestar adds "; charset=utf-8" to every text/* media type.
_MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}
_TEXT = "text/plain"  # the licence files kept beside the bundles
_NO_ICON = '<link rel="icon" href="data:,">'  # the plugins' default favicon is on a CDN
_ASSET_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}
_JSON_IN_HTML = {b"<": b"\\u003c", b">": b"\\u003e", b"&": b"\\u0026"}


@functools.cache
def _manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(_static().joinpath("vendored.json").read_text())
    return manifest


def _static() -> resources.abc.Traversable:
    return resources.files(__name__).joinpath("static")


def asset_url(package: str, name: str) -> str:
    """The URL the service serves a vendored file at (its package's version in the path)."""
    return f"{ASSETS_PATH}/{package}-{_manifest()[package]['version']}/{name}"


@functools.cache
def _asset(package: str, name: str) -> bytes:
    """A vendored file, read once on first request and shared by every app in the process."""
    return _static().joinpath(package, name).read_bytes()


def _embedded_json(request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
    """The document as JSON that is safe inside a ``<script>``: ``<``, ``>`` and ``&`` (found only in
    strings) written as ``\\u`` escapes, which JSON reads back as the same characters."""
    encoded = msgspec.json.encode(openapi_schema)
    for char, escape in _JSON_IN_HTML.items():
        encoded = encoded.replace(char, escape)
    return encoded


class _Swagger(SwaggerRenderPlugin):
    render_json = staticmethod(_embedded_json)


class _Redoc(RedocRenderPlugin):
    render_json = staticmethod(_embedded_json)


class _InlineScripts(HTMLParser):
    """Collects the text of each ``<script>`` without a ``src``, to allow exactly those by hash."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self._current: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and not any(name == "src" for name, _ in attrs):
            self._current = []

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._current.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._current is not None:
            self.scripts.append("".join(self._current))
            self._current = None


def content_security_policy(page: bytes) -> str:
    """The policy for one rendered page: scripts, styles, images, fonts and requests from this
    origin only; the page's own inline scripts by their SHA-256; ReDoc's search worker from a blob.
    Inline styles are allowed because both UIs set them at run time."""
    parser = _InlineScripts()
    parser.feed(page.decode())
    parser.close()
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in parser.scripts
    )
    return (
        f"default-src 'none'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


Servers = Callable[[Request[Any, Any, Any]], tuple[str, ...]]
"""Where the OpenAPI document a page shows says the API is, for a request (as ``/schema`` says)."""


def _page_handler(path: str, plugin: OpenAPIRenderPlugin, servers: Servers) -> HTTPRouteHandler:
    """A GET handler serving ``plugin``'s page for the document naming the request's servers,
    rendered once per set of servers (the last few kept, each with its policy)."""
    rendered: dict[tuple[str, ...], tuple[bytes, dict[str, str]]] = {}

    @get(path, name=f"api-docs:{path}", opt=STATIC_OPT)  # each rendering compressed once
    async def page(request: Request[Any, Any, Any]) -> Response[bytes]:
        named = servers(request)
        found = rendered.get(named)
        if found is None:
            content = plugin.render(request, openapi_document(named))
            headers = {
                "Content-Security-Policy": content_security_policy(content),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            }
            if len(rendered) >= 8:  # a Host header chooses the servers: keep a few
                rendered.pop(next(iter(rendered)))
            found = rendered[named] = (content, headers)
        content, headers = found
        return Response(content, media_type=MediaType.HTML, headers=headers)

    return page


def _asset_handler(package: str, name: str) -> HTTPRouteHandler:
    path = asset_url(package, name)
    media_type = next((t for suffix, t in _MEDIA_TYPES.items() if name.endswith(suffix)), _TEXT)

    @get(path, name=f"api-docs:{path}", opt=STATIC_OPT)  # compressed once
    async def asset() -> Response[bytes]:
        return Response(_asset(package, name), media_type=media_type, headers=_ASSET_HEADERS)

    return asset


def docs_handlers(servers: Servers = lambda request: DEFAULT_SERVERS) -> Sequence[HTTPRouteHandler]:
    """The route handlers of the API reference, for ``create_app`` to include: the two pages, their
    assets (with the licence files beside them) and the ``/docs`` redirect. ``servers`` says where
    the OpenAPI document the pages show puts the API for a request (as ``/schema`` says)."""
    swagger = _Swagger(
        path=SWAGGER_PATH,
        js_url=asset_url("swagger-ui-dist", "swagger-ui-bundle.js"),
        css_url=asset_url("swagger-ui-dist", "swagger-ui.css"),
        standalone_preset_js_url=asset_url("swagger-ui-dist", "swagger-ui-standalone-preset.js"),
        favicon=_NO_ICON,
    )
    redoc = _Redoc(
        path=REDOC_PATH,
        js_url=asset_url("redoc", "redoc.standalone.js"),
        google_fonts=False,
        favicon=_NO_ICON,
    )

    @get(DOCS_PATH, name="api-docs:redirect")
    async def docs() -> Redirect:
        return Redirect(SWAGGER_PATH, status_code=302)

    assets = [
        _asset_handler(package, name) for package, entry in _manifest().items() for name in entry["files"]
    ]
    return [
        _page_handler(SWAGGER_PATH, swagger, servers),
        _page_handler(REDOC_PATH, redoc, servers),
        docs,
        *assets,
    ]
