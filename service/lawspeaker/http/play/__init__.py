"""The web frontend at ``/play``: the single-page app built from ``clients/web`` (TypeScript, on the
generated Connect client) into ``static/``, committed so that a fresh clone (and the wheel) serves
it with no Node.js; CI rebuilds it and fails when the committed bundle is stale
(``npm run check`` in ``clients/web``).

``/play`` is the page; the script, stylesheet and icons have their content hash in their names, so
they are cached for a year and a new build is a new URL. The web app manifest and the service worker
(``sw.js``: it keeps the app shell so the app starts offline, never game data) keep their names and
are revalidated on every visit. The page's Content-Security-Policy lets it run
and load only what this service serves and talk only to this service: a seat token, which the page
keeps in the URL fragment (never sent to a server), cannot be sent anywhere else by an injected
script or resource.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources

from litestar import Response, get
from litestar.enums import MediaType
from litestar.handlers import HTTPRouteHandler

from lawspeaker.http.compression import STATIC_OPT

PLAY_PATH = "/play"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
_PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_ASSET_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}
_MEDIA_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
}
# The files without a hash in their names: read afresh on each visit (``no-cache`` revalidates),
# so that a new build's manifest and service worker are found. The worker, at /play/sw.js, may
# control /play itself (its default scope would be /play/ only).
_UNHASHED = {
    "manifest.webmanifest": {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    "sw.js": {
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Service-Worker-Allowed": PLAY_PATH,
    },
}


def _static() -> resources.abc.Traversable:
    return resources.files(__name__).joinpath("static")


@functools.cache
def _files() -> dict[str, bytes]:
    """The built files, read once per process (an absent bundle serves nothing: see ``available``)."""
    static = _static()
    if not static.is_dir():
        return {}
    return {f.name: f.read_bytes() for f in static.iterdir() if f.is_file()}


def available() -> bool:
    """Whether the bundle is here (a checkout whose build was deleted has none)."""
    return "index.html" in _files()


def _asset_handler(name: str) -> HTTPRouteHandler:
    media_type = next(t for suffix, t in _MEDIA_TYPES.items() if name.endswith(suffix))

    headers = _UNHASHED.get(name, _ASSET_HEADERS)

    @get(f"{PLAY_PATH}/{name}", name=f"play:{name}", opt=STATIC_OPT)  # compressed once
    async def asset() -> Response[bytes]:
        return Response(_files()[name], media_type=media_type, headers=headers)

    return asset


def play_handlers() -> Sequence[HTTPRouteHandler]:
    """The page (``/play``) and its hashed assets, for ``create_app``."""
    if not available():
        return []

    @get(PLAY_PATH, name="play:page", opt=STATIC_OPT)  # Litestar serves /play/ by this handler too
    async def page() -> Response[bytes]:
        return Response(_files()["index.html"], media_type=MediaType.HTML, headers=_PAGE_HEADERS)

    assets = [_asset_handler(name) for name in sorted(_files()) if name.endswith(tuple(_MEDIA_TYPES))]
    return [page, *assets]
