"""Response compression on the HTTP port: gzip, and brotli (``br``, the ``brotli`` package).

One ASGI middleware (:func:`http_middleware`, installed by ``create_app``) compresses a response
when the request's ``Accept-Encoding`` asks for it (RFC 9110 section 12.5.3, q-values honoured) and
its body is at least ``min_bytes`` long (``lawspeaker serve --compress-min-bytes``, default
:data:`DEFAULT_MIN_BYTES`, chosen from ``benchmarks/compression.py``: see docs/benchmarks.md). It
covers REST, Connect's unary calls (which use the standard ``Accept-Encoding`` / ``Content-Encoding``)
and the static files.

- **Negotiation** (:func:`negotiate`): the acceptable coding with the highest q wins, brotli before
  gzip on a tie, and identity when the client ranks it higher. ``*`` stands for every coding the
  header does not name, ``identity;q=0`` (or ``*;q=0`` without ``identity``) refuses an uncompressed
  answer: such a response is compressed whatever its size. No header, or an empty one: identity.
  When nothing the client accepts is available (``identity;q=0`` and no gzip or br), the response is
  sent uncompressed rather than as a 406 (RFC 9110 section 12.1 lets a server disregard the
  preference), so that a call is never refused for its Accept-Encoding.
- **Which responses**: one whose length is known (``Content-Length``) and whose body is not already
  encoded. Streams are never compressed and never held back: a Server-Sent Events watch
  (``text/event-stream``) is sent as it is, event by event (one compressor per open watch would cost
  about as much memory as the watch itself, docs/watch-memory.md), and Connect's streaming
  (``application/connect+*``) compresses each message itself, per the Connect protocol
  (:func:`compress_message`, ``Connect-Accept-Encoding``). ``HEAD`` answers are left as they are.
- **Caches**: every response the middleware could compress carries ``Vary: Accept-Encoding``,
  compressed or not, merged with any ``Vary`` it already has.
- **Entity tags**: a compressed response's strong ``ETag`` (a session's version, ``"7"``) becomes
  ``"7-gzip"`` or ``"7-br"`` (on a 2xx: an error's ETag names the current version, not the error),
  since a strong tag names one representation (RFC 9110 section 8.8.3),
  and ``If-Match`` / ``If-None-Match`` tags with those suffixes are read back as the version they
  name before the routes see them: a client may send back either tag it was given. Weak tags are
  left as they are.
- **Static files** (routes whose ``opt`` has :data:`STATIC`: the web app's bundle, the API
  reference's assets, ``/schema``, each game's description): their bodies do not change, so each is
  compressed once per process at the highest useful levels, in a worker thread, and kept
  (:data:`STATIC_CACHE_BYTES` at most); other responses are compressed per request at levels chosen
  for speed.

Why not Litestar's own ``CompressionConfig`` (its ``CompressionMiddleware``, gzip or brotli): it
finds the coding by substring in ``Accept-Encoding`` (``gzip;q=0`` gets gzip, ``identity;q=0`` is not
seen), says ``Vary`` only on the answers it compressed, compresses streamed bodies too (an SSE watch
would keep a compressor open for its whole life), leaves a strong ``ETag`` as it was, and compresses
every answer again on every request (gzip at level 9 by default), static files included.
"""

from __future__ import annotations

import asyncio
import re
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import brotli

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

GZIP = "gzip"
BROTLI = "br"
IDENTITY = "identity"
CODINGS = (BROTLI, GZIP)
"""The content codings served, in the server's order of preference when the client's q-values tie."""
SUPPORTED = f"{GZIP}, {BROTLI}"  # the codings requests may use, as the Connect errors list them

DEFAULT_MIN_BYTES = 4096
"""Responses shorter than this are sent uncompressed (unless the client refuses identity). Chosen from
``benchmarks/compression.py`` (docs/benchmarks.md, "Compression"): the hot path's answers (ApplyMove,
a session move: 1 to 3.3 KB across the games) stay below it, so a client asking for gzip costs them
nothing (compressing ApplyMove's would cost about 10% more server CPU per request with gzip, 25% with
br, to save under 800 bytes), while
the large reads (a game's description, 58 KB; ``/schema``, 280 KB; the web app's bundle) are
compressed."""

GZIP_LEVEL = 6  # per request: zlib's default, close to level 9's size at half its time
BROTLI_QUALITY = 4  # per request: gzip 6's size, and faster than it on bodies of tens of KB
STATIC_GZIP_LEVEL = 9
STATIC_BROTLI_QUALITY = 9  # 10 and 11 take ten times as long (3 s for Swagger UI's bundle) for 5-8%
STATIC_CACHE_BYTES = 64 * 1024 * 1024  # the compressed static bodies kept per process, at most

STATIC = "lawspeaker.compress_static"
"""The route ``opt`` key of the routes whose body is fixed: compressed once and kept."""
STATIC_OPT: dict[str, Any] = {STATIC: True}

_UNCOMPRESSED_TYPES = (b"text/event-stream", b"application/connect+", b"application/grpc")
_QVALUE = re.compile(r"(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)")
_CODED_TAG = re.compile(rb'"([^"]*)-(?:gzip|br)"')


# --------------------------------------------------------------------------- negotiation


@dataclass(frozen=True, slots=True)
class Choice:
    """What an ``Accept-Encoding`` allows: the coding to compress with (``identity`` when the client
    asks for none, or prefers none), and whether an uncompressed answer is acceptable."""

    coding: str
    identity_ok: bool


_IDENTITY_ONLY = Choice(IDENTITY, True)


def _qvalue(params: list[str]) -> float | None:
    """The q of one list element's parameters (1 when absent), None when it is malformed."""
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            value = value.strip()
            if not _QVALUE.fullmatch(value):
                return None
            return float(value)
    return 1.0


@lru_cache(maxsize=256)
def negotiate(accept_encoding: str | None, codings: tuple[str, ...] = CODINGS) -> Choice:
    """The coding for a response to a request with this ``Accept-Encoding`` (None: no such header),
    among ``codings`` (the server's preference order), per RFC 9110 section 12.5.3. A malformed
    element (a q that is no qvalue) is ignored."""
    if accept_encoding is None or not accept_encoding.strip(" \t,"):
        return _IDENTITY_ONLY
    listed: dict[str, float] = {}
    for element in accept_encoding.split(","):
        name, *params = element.split(";")
        name = name.strip().lower()
        if not name:
            continue
        q = _qvalue(params)
        if q is None:
            continue
        if name == "x-gzip":  # RFC 9110 section 8.4.1.3: the same as gzip
            name = GZIP
        listed[name] = max(q, listed.get(name, 0.0))
    star = listed.get("*")
    # identity, when neither it nor * is listed, is acceptable but ranks below every listed coding
    identity_q = listed.get(IDENTITY, star)
    best, best_q = IDENTITY, 0.0
    for coding in codings:
        q = listed.get(coding, star if star is not None else 0.0)
        if q > best_q:
            best, best_q = coding, q
    if identity_q is not None and best_q < identity_q:  # the client ranks identity higher
        best = IDENTITY
    return Choice(best, identity_q is None or identity_q > 0)


# --------------------------------------------------------------------------- compressing


def compress(data: bytes, coding: str, static: bool = False) -> bytes:
    """``data`` in ``coding`` (gzip or br): at the static levels when ``static``."""
    if coding == GZIP:
        gz = zlib.compressobj(STATIC_GZIP_LEVEL if static else GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return gz.compress(data) + gz.flush()
    if coding == BROTLI:
        return brotli.compress(data, quality=STATIC_BROTLI_QUALITY if static else BROTLI_QUALITY)
    raise ValueError(f"unsupported content coding {coding!r}")


_static_cache: dict[tuple[bytes, str], bytes] = {}
_static_cached_bytes = 0


async def compress_static(data: bytes, coding: str) -> bytes:
    """``data`` compressed at the static levels, once per process: in a worker thread the first time
    (zlib and brotli release the GIL), from the cache afterwards. When the cache is full the oldest
    entries make room."""
    global _static_cached_bytes
    key = (data, coding)
    found = _static_cache.get(key)
    if found is not None:
        return found
    done = await asyncio.to_thread(compress, data, coding, True)
    if key not in _static_cache:
        while _static_cache and _static_cached_bytes + len(data) + len(done) > STATIC_CACHE_BYTES:
            oldest = next(iter(_static_cache))
            gone = _static_cache.pop(oldest)
            _static_cached_bytes -= len(oldest[0]) + len(gone)
        if len(data) + len(done) <= STATIC_CACHE_BYTES:
            _static_cache[key] = done
            _static_cached_bytes += len(data) + len(done)
    return done


STREAM_CODINGS = (GZIP, BROTLI)
"""The codings of Connect's stream messages, gzip first (what Connect clients implement)."""


def message_codec(accept: str | None, codings: tuple[str, ...] = STREAM_CODINGS) -> str | None:
    """The coding for the messages of a Connect stream whose request sent ``Connect-Accept-Encoding:
    accept`` (the same rules as ``Accept-Encoding``), None for identity."""
    chosen = negotiate(accept, codings).coding
    return None if chosen == IDENTITY else chosen


def compress_message(data: bytes, coding: str | None, min_bytes: int) -> tuple[int, bytes]:
    """One Connect stream message as (flags, payload): compressed with ``coding`` (flag 0x01) when
    one was negotiated and the message is at least ``min_bytes`` long, else as it is (flag 0)."""
    if coding is None or len(data) < min_bytes:
        return 0, data
    return 0x01, compress(data, coding)


# --------------------------------------------------------------------------- the middleware


def _with_vary(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``Vary: Accept-Encoding``, merged into a Vary they have."""
    for i, (name, value) in enumerate(headers):
        if name.lower() == b"vary":
            lowered = value.lower()
            if b"accept-encoding" not in lowered and value.strip() != b"*":
                headers[i] = (name, value + b", Accept-Encoding")
            return headers
    headers.append((b"vary", b"Accept-Encoding"))
    return headers


def _coded_tag(value: bytes, coding: str) -> bytes:
    """A strong entity tag of the identity representation as the tag of its ``coding`` one."""
    if value.startswith(b'"') and value.endswith(b'"') and len(value) >= 2:
        return value[:-1] + b"-" + coding.encode() + b'"'
    return value  # weak (W/"...") or not a tag: as it is


def identity_tags(value: bytes) -> bytes:
    """An ``If-Match`` / ``If-None-Match`` value with the tags this middleware gave compressed
    representations (``"7-gzip"``, ``"7-br"``) written as the tags they were made from (``"7"``)."""
    return _CODED_TAG.sub(rb'"\1"', value)


def http_middleware(min_bytes: int = DEFAULT_MIN_BYTES) -> Callable[[Any], Any]:
    """The Litestar middleware factory compressing responses of at least ``min_bytes`` (a positive
    number) as the request's ``Accept-Encoding`` asks."""
    if min_bytes < 1:
        raise ValueError(f"min_bytes must be at least 1, not {min_bytes}")

    def factory(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            accept: bytes | None = None
            conditional = False
            for name, value in scope["headers"]:
                if name == b"accept-encoding":
                    accept = value if accept is None else accept + b"," + value
                elif name == b"if-match" or name == b"if-none-match":
                    conditional = True
            if conditional:
                scope["headers"] = [
                    (k, identity_tags(v)) if k in (b"if-match", b"if-none-match") else (k, v)
                    for k, v in scope["headers"]
                ]
            choice = negotiate(accept.decode("latin-1") if accept is not None else None)
            handler = scope.get("route_handler")
            static = bool(handler is not None and handler.opt.get(STATIC))
            head = scope["method"] == "HEAD"
            await app(scope, receive, _sender(send, choice, min_bytes, static, head))

        return middleware

    return factory


def _sender(send: Send, choice: Choice, min_bytes: int, static: bool, head: bool) -> Send:
    """``send`` compressing the response as ``choice`` allows, or adding only ``Vary``."""
    held: Message | None = None
    parts: list[bytes] = []

    async def sending(message: Message) -> None:
        nonlocal held
        kind = message["type"]
        if kind == "http.response.start":
            headers = list(message.get("headers", ()))
            length = -1
            for name, value in headers:
                lowered = name.lower()
                if lowered == b"content-length":
                    length = int(value)
                elif lowered == b"content-type":
                    if value.lower().startswith(_UNCOMPRESSED_TYPES):
                        await send(message)  # a stream: never held, never coded
                        return
                elif lowered == b"content-encoding":
                    length = -2  # coded already
            status = message["status"]
            if length == -1 or status < 200 or status == 204:  # streamed, or no content
                await send(message)
                return
            message["headers"] = _with_vary(headers)
            coding = choice.coding
            if (
                head
                or length <= 0
                or coding == IDENTITY
                or status == 304
                or (length < min_bytes and choice.identity_ok)
            ):
                await send(message)
                return
            held = message
            return
        if held is None or kind != "http.response.body":
            await send(message)
            return
        parts.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = b"".join(parts)
        parts.clear()
        start, held = held, None
        coded = await compress_static(body, choice.coding) if static else compress(body, choice.coding)
        if len(coded) >= len(body) and choice.identity_ok:  # nothing gained: as it is
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        tagged = 200 <= start["status"] < 300  # an error's ETag names the current version, not its body
        headers = [
            (name, _coded_tag(value, choice.coding) if tagged and name.lower() == b"etag" else value)
            for name, value in start["headers"]
            if name.lower() != b"content-length"
        ]
        headers.append((b"content-encoding", choice.coding.encode()))
        headers.append((b"content-length", str(len(coded)).encode()))
        start["headers"] = headers
        await send(start)
        await send({"type": "http.response.body", "body": coded})

    return sending
