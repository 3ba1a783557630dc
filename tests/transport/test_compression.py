"""Response compression (``lawspeaker.http.compression``) on real servers on loopback: gzip and br
decode to the identity bytes, short answers stay uncompressed, ``Vary``, entity tags and If-Match,
Server-Sent Events not held back, Connect's unary and streaming rules, and ``curl --compressed``
running the docs/api.md example verbatim."""

from __future__ import annotations

import gzip
import json
import queue
import re
import shutil
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import brotli
import httpx
import pytest

from lawspeaker.http import compression
from lawspeaker.http.compression import Choice, negotiate
from lawspeaker.http.docs import asset_url
from lawspeaker.http.play import PLAY_PATH, available
from lawspeaker.server import cli
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore

from .conftest import Servers, run_servers

pytestmark = pytest.mark.transport

ROOT = Path(__file__).parents[2]
SESSIONS = "/lawspeaker.v1.SessionService"
RULES = "/lawspeaker.v1.RulesService"
SMALL = 256  # the low-threshold server's --compress-min-bytes: session answers are longer
CAST = {"valhalla": {"cast": {}}}


def decode(body: bytes, coding: str | None) -> bytes:
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "br":
        return bytes(brotli.decompress(body))
    assert coding is None, coding
    return body


def raw_get(
    client: httpx.Client, path: str, accept: str | None, **headers: str
) -> tuple[httpx.Response, bytes]:
    """The response and its body as sent (httpx decodes gzip and br itself otherwise)."""
    sent = {"accept-encoding": accept} if accept is not None else {}
    request = client.build_request("GET", path, headers={**sent, **headers})
    if accept is None:
        del request.headers["accept-encoding"]  # httpx's own default asks for gzip and br
    response = client.send(request, stream=True)
    try:
        body = b"".join(response.iter_raw())
    finally:
        response.close()
    return response, body


@pytest.fixture(scope="module")
def small() -> Iterator[Servers]:
    """Servers with sessions that compress from SMALL bytes on, so that session answers are."""
    with run_servers(sessions=lambda: SessionApi(MemoryStore()), compress_min_bytes=SMALL) as running:
        yield running


@pytest.fixture(scope="module")
def small_http(small: Servers) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=small.base_url, timeout=30) as client:
        yield client


# --------------------------------------------------------------------------- negotiation


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        (None, Choice("identity", True)),
        ("", Choice("identity", True)),
        ("gzip", Choice("gzip", True)),
        ("br", Choice("br", True)),
        ("gzip, deflate, br, zstd", Choice("br", True)),  # a tie: the server's order (br first)
        ("gzip;q=1.0, br;q=0.8", Choice("gzip", True)),
        ("br;q=0, gzip", Choice("gzip", True)),
        ("gzip;q=0, br;q=0", Choice("identity", True)),
        ("gzip;q=0.5, identity", Choice("identity", True)),  # identity ranked higher
        ("gzip;q=0.5, identity;q=0.5", Choice("gzip", True)),
        ("*", Choice("br", True)),
        ("*;q=0.3, gzip;q=0.2", Choice("br", True)),  # * names br, at 0.3
        ("*;q=0", Choice("identity", False)),  # nothing acceptable: sent as it is
        ("*;q=0, identity", Choice("identity", True)),
        ("identity;q=0, gzip", Choice("gzip", False)),
        ("identity;q=0", Choice("identity", False)),
        ("x-gzip", Choice("gzip", True)),
        ("GZIP;Q=0.9", Choice("gzip", True)),  # identity, not listed, ranks below any listed coding
        ("gzip;q=0.001", Choice("gzip", True)),
        ("gzip;q=2, br;q=abc", Choice("identity", True)),  # malformed q-values are ignored
        ("deflate, compress", Choice("identity", True)),
    ],
)
def test_accept_encoding_is_negotiated_per_rfc_9110(header: str | None, chosen: Choice) -> None:
    assert negotiate(header) == chosen


def test_the_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        compression.http_middleware(0)


def test_the_serve_flag_and_its_variable_set_the_threshold(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def parsed(*flag: str) -> int:
        return int(cli.parser().parse_args(["serve", *flag]).compress_min_bytes)

    monkeypatch.delenv("LAWSPEAKER_COMPRESS_MIN_BYTES", raising=False)
    assert parsed() == compression.DEFAULT_MIN_BYTES
    assert parsed("--compress-min-bytes", "1") == 1
    monkeypatch.setenv("LAWSPEAKER_COMPRESS_MIN_BYTES", "")  # the image's empty ENV: the default
    assert parsed() == compression.DEFAULT_MIN_BYTES
    monkeypatch.setenv("LAWSPEAKER_COMPRESS_MIN_BYTES", "65536")
    assert parsed() == 65536
    for bad in ("0", "-5", "4k"):
        with pytest.raises(SystemExit) as exited:
            parsed("--compress-min-bytes", bad)
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert "--compress-min-bytes" in err and "at least 1" in err and repr(bad) in err


# --------------------------------------------------------------------------- responses


STATIC_PATHS = [
    "/v1/games/pax_viking_junior",
    "/schema",
    asset_url("swagger-ui-dist", "swagger-ui.css"),
    "/schema/redoc",
]


@pytest.mark.parametrize("path", STATIC_PATHS)
@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_compressed_answers_decode_to_the_identity_bytes(http: httpx.Client, path: str, coding: str) -> None:
    plain, identity = raw_get(http, path, None)
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert int(plain.headers["content-length"]) == len(identity) >= compression.DEFAULT_MIN_BYTES
    for _ in range(2):  # the first compresses, the second is served from the cache: the same
        coded, body = raw_get(http, path, coding)
        assert coded.status_code == 200
        assert coded.headers["content-encoding"] == coding
        assert int(coded.headers["content-length"]) == len(body) < len(identity) / 2
        assert decode(body, coding) == identity
        assert coded.headers["vary"] == plain.headers["vary"] == "Accept-Encoding"
        assert coded.headers["content-type"] == plain.headers["content-type"]


@pytest.mark.skipif(not available(), reason="the web app's bundle is not built in this checkout")
def test_the_web_apps_bundle_comes_compressed(http: httpx.Client) -> None:
    page = http.get(PLAY_PATH).text
    script = re.search(r'src="([^"]+\.js)"', page)
    assert script is not None, page
    path = script.group(1) if script.group(1).startswith("/") else f"{PLAY_PATH}/{script.group(1)}"
    _, identity = raw_get(http, path, None)
    coded, body = raw_get(http, path, "gzip, deflate, br, zstd")  # what Chromium sends
    assert coded.headers["content-encoding"] == "br" and decode(body, "br") == identity
    assert coded.headers["cache-control"].startswith("public")  # the route's own headers stay


def test_a_dynamic_answer_over_the_threshold_is_compressed_per_request(small_http: httpx.Client) -> None:
    r = small_http.post("/v1/games/valhalla:new", json={"players": 2, "seed": "42"})
    plain = r.content
    assert len(plain) >= SMALL
    for coding in ("gzip", "br"):
        request = small_http.build_request(
            "POST",
            "/v1/games/valhalla:new",
            json={"players": 2, "seed": "42"},
            headers={"accept-encoding": coding},
        )
        response = small_http.send(request, stream=True)
        body = b"".join(response.iter_raw())
        response.close()
        assert response.headers["content-encoding"] == coding
        assert decode(body, coding) == plain


def test_answers_below_the_threshold_are_not_compressed_but_vary(http: httpx.Client) -> None:
    new = http.post("/v1/games/valhalla:new", json={"players": 2, "seed": "42"}).json()
    move = {"state": new["state"], "move": CAST}
    r = http.post("/v1/games/valhalla:applyMove", json=move, headers={"accept-encoding": "gzip, br"})
    assert r.status_code == 200
    assert "content-encoding" not in r.headers
    assert int(r.headers["content-length"]) == len(r.content) < compression.DEFAULT_MIN_BYTES
    assert r.headers["vary"] == "Accept-Encoding"
    health, body = raw_get(http, "/healthz", "gzip")
    assert "content-encoding" not in health.headers and json.loads(body) == {"status": "SERVING"}
    assert health.headers["vary"] == "Accept-Encoding"


def test_a_client_refusing_identity_gets_even_a_short_answer_compressed(http: httpx.Client) -> None:
    r, body = raw_get(http, "/healthz", "identity;q=0, gzip")
    assert r.headers["content-encoding"] == "gzip"
    assert json.loads(decode(body, "gzip")) == {"status": "SERVING"}
    r, body = raw_get(http, "/healthz", "identity;q=0")  # nothing acceptable: as it is, not a 406
    assert r.status_code == 200 and "content-encoding" not in r.headers
    assert json.loads(body) == {"status": "SERVING"}


def test_refused_codings_are_not_used(http: httpx.Client) -> None:
    r, body = raw_get(http, "/schema", "br;q=0, gzip;q=0")
    assert "content-encoding" not in r.headers and json.loads(body)["openapi"].startswith("3.1")
    r, body = raw_get(http, "/schema", "gzip;q=0.5, identity")
    assert "content-encoding" not in r.headers
    r, _ = raw_get(http, "/schema", "*;q=0.5, br;q=0")
    assert r.headers["content-encoding"] == "gzip"


def test_an_error_over_the_threshold_is_compressed_like_any_answer(small_http: httpx.Client) -> None:
    r, body = raw_get(small_http, "/v1/no-such-route-" + "x" * SMALL, "gzip")
    assert r.status_code == 404
    got = json.loads(decode(body, r.headers.get("content-encoding")))
    assert got["reason"] == "ROUTE_NOT_FOUND"


# --------------------------------------------------------------------------- sessions: ETag, SSE


def create_session(client: httpx.Client) -> tuple[str, list[str], str]:
    r = client.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "42"})
    assert r.status_code == 200, r.text
    body = r.json()
    return body["session"]["session"], [t["token"] for t in body["seatTokens"]], body["session"]["etag"]


def test_a_compressed_session_answer_has_its_own_strong_etag_and_if_match_takes_it(
    small_http: httpx.Client,
) -> None:
    session, tokens, etag = create_session(small_http)
    plain, identity = raw_get(small_http, f"/v1/sessions/{session}", None)
    assert plain.headers["etag"] == f'"{etag}"'
    assert len(identity) >= SMALL
    for coding in ("gzip", "br"):
        coded, body = raw_get(small_http, f"/v1/sessions/{session}", coding)
        assert coded.headers["content-encoding"] == coding
        assert coded.headers["etag"] == f'"{etag}-{coding}"'  # another representation, another tag
        assert decode(body, coding) == identity
    # the tag of the compressed representation names the same version to If-Match
    seat = json.loads(identity)["session"]["toAct"][0]
    r = small_http.post(
        f"/v1/sessions/{session}:applyMove",
        json={"move": CAST},
        headers={
            "authorization": f"Bearer {tokens[seat]}",
            "if-match": f'"{etag}-gzip"',
            "accept-encoding": "br",
        },
    )
    assert r.status_code == 200, r.text
    moved = r.json()["session"]["etag"]
    assert moved != etag and r.headers["etag"] == f'"{moved}-br"'
    # and a stale one is still refused (412), whichever representation it names
    stale = small_http.post(
        f"/v1/sessions/{session}:applyMove",
        json={"move": CAST},
        headers={"authorization": f"Bearer {tokens[seat]}", "if-match": f'"{etag}-br"'},
    )
    assert stale.status_code == 412, stale.text
    assert stale.headers["content-encoding"] == "br"  # the problem document is long enough
    assert stale.headers["etag"] == f'"{moved}"'  # the current version's tag, not the 412's body's


def test_a_watch_over_sse_is_not_compressed_nor_held_back(small_http: httpx.Client, small: Servers) -> None:
    """An event arrives while the stream is open, with ``Accept-Encoding: gzip`` asked for."""
    session, tokens, etag = create_session(small_http)
    events: queue.Queue[dict[str, Any]] = queue.Queue()
    with httpx.Client(base_url=small.base_url, timeout=30) as watcher:
        headers = {"accept-encoding": "gzip, br", "authorization": f"Bearer {tokens[0]}"}
        with watcher.stream("GET", f"/v1/sessions/{session}:watch", headers=headers) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            assert "content-encoding" not in response.headers

            def read() -> None:
                try:
                    for line in response.iter_lines():
                        if line.startswith("data:"):
                            events.put(json.loads(line.split(":", 1)[1]))
                except httpx.HTTPError:
                    pass  # closed by the test

            threading.Thread(target=read, daemon=True).start()
            assert events.get(timeout=10)["session"]["etag"] == etag
            seat = small_http.get(f"/v1/sessions/{session}").json()["session"]["toAct"][0]
            moved = small_http.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": CAST, "etag": etag},
                headers={"authorization": f"Bearer {tokens[seat]}"},
            )
            assert moved.status_code == 200, moved.text
            assert events.get(timeout=10)["session"]["moveCount"] == "1"  # while the stream is open


# --------------------------------------------------------------------------- Connect


def connect_post(
    client: httpx.Client, path: str, body: bytes, headers: dict[str, str]
) -> tuple[httpx.Response, bytes]:
    request = client.build_request(
        "POST",
        path,
        content=body,
        headers={"content-type": "application/json", "connect-protocol-version": "1", **headers},
    )
    response = client.send(request, stream=True)
    try:
        raw = b"".join(response.iter_raw())
    finally:
        response.close()
    return response, raw


def test_connect_unary_answers_are_compressed_as_accept_encoding_asks(http: httpx.Client) -> None:
    body = b'{"game": "pax_viking_junior"}'
    plain, identity = connect_post(http, f"{RULES}/DescribeGame", body, {"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers
    for coding in ("gzip", "br"):
        r, raw = connect_post(http, f"{RULES}/DescribeGame", body, {"accept-encoding": coding})
        assert r.status_code == 200 and r.headers["content-encoding"] == coding
        assert decode(raw, coding) == identity


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_connect_unary_requests_may_come_compressed(http: httpx.Client, coding: str) -> None:
    message = json.dumps({"game": "valhalla", "players": 2, "seed": "42"}).encode()
    packed = gzip.compress(message) if coding == "gzip" else brotli.compress(message)
    plain, expected = connect_post(http, f"{RULES}/NewGame", message, {})
    r, raw = connect_post(http, f"{RULES}/NewGame", packed, {"content-encoding": coding})
    assert r.status_code == plain.status_code == 200
    assert raw == expected


def test_connect_refuses_an_unsupported_request_coding_naming_the_supported_ones(http: httpx.Client) -> None:
    r, raw = connect_post(http, f"{RULES}/ListGames", b"{}", {"content-encoding": "zstd"})
    assert r.status_code == 501
    error = json.loads(raw)
    assert error["code"] == "unimplemented" and "gzip, br" in error["message"]
    assert r.headers["accept-encoding"] == "gzip, br"
    corrupt, raw = connect_post(http, f"{RULES}/ListGames", b"not gzip", {"content-encoding": "gzip"})
    assert corrupt.status_code == 400 and json.loads(raw)["code"] == "invalid_argument"


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_a_compressed_connect_request_inflating_past_the_body_limit_is_refused(
    http: httpx.Client, coding: str
) -> None:
    """A few KB that inflate to 2 MiB: refused once the limit (1 MiB) is passed, not inflated whole."""
    bomb = b'{"game": "' + b"v" * (2 * 1024 * 1024) + b'"}'
    packed = gzip.compress(bomb) if coding == "gzip" else brotli.compress(bomb)
    assert len(packed) < 16 * 1024
    r, raw = connect_post(http, f"{RULES}/ListGames", packed, {"content-encoding": coding})
    assert r.status_code == 429, raw
    assert json.loads(raw)["code"] == "resource_exhausted"


def frames(chunks: Iterator[bytes]) -> Iterator[tuple[int, bytes]]:
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= 5:
            flags, size = struct.unpack(">BI", buffer[:5])
            if len(buffer) < 5 + size:
                break
            yield flags, buffer[5 : 5 + size]
            buffer = buffer[5 + size :]


def envelope(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_connect_streams_compress_each_message_as_connect_accept_encoding_asks(
    small_http: httpx.Client, coding: str
) -> None:
    session, tokens, etag = create_session(small_http)
    request = json.dumps({"session": session}).encode()
    headers = {
        "content-type": "application/connect+json",
        "connect-accept-encoding": coding,
        "connect-content-encoding": "gzip",  # the request's message comes compressed too
        "authorization": f"Bearer {tokens[0]}",
    }
    body = envelope(gzip.compress(request), flags=0x01)
    with small_http.stream("POST", f"{SESSIONS}/WatchSession", content=body, headers=headers) as r:
        assert r.status_code == 200
        assert r.headers["connect-content-encoding"] == coding
        assert "content-encoding" not in r.headers  # the messages are compressed, not the stream
        got = frames(r.iter_raw())
        flags, data = next(got)
        assert flags == 0x01 and len(data) < SMALL * 8
        first = json.loads(decode(data, coding))
        assert first["session"]["etag"] == etag
        seat = first["session"]["toAct"][0]
        moved = small_http.post(
            f"/v1/sessions/{session}:applyMove",
            json={"move": CAST, "etag": etag},
            headers={"authorization": f"Bearer {tokens[seat]}"},
        )
        assert moved.status_code == 200, moved.text
        flags, data = next(got)  # arrives while the stream is open
        assert flags == 0x01 and json.loads(decode(data, coding))["session"]["moveCount"] == "1"
        small_http.delete(f"/v1/sessions/{session}", headers={"authorization": f"Bearer {tokens[0]}"})
        flags, data = next(got)  # {"deleted": true}: shorter than the threshold, so as it is
        assert flags == 0 and len(data) < SMALL and json.loads(data)["deleted"]
        flags, data = next(got)
        assert flags == 0x02 and json.loads(data) == {}


def test_connect_streams_without_connect_accept_encoding_are_not_compressed(small_http: httpx.Client) -> None:
    session, tokens, etag = create_session(small_http)
    headers = {"content-type": "application/connect+json", "authorization": f"Bearer {tokens[0]}"}
    body = envelope(json.dumps({"session": session}).encode())
    with small_http.stream("POST", f"{SESSIONS}/WatchSession", content=body, headers=headers) as r:
        assert "connect-content-encoding" not in r.headers
        assert r.headers["connect-accept-encoding"] == "gzip, br"
        flags, data = next(frames(r.iter_raw()))
        assert flags == 0 and json.loads(data)["session"]["etag"] == etag


def test_connect_streams_refuse_an_unsupported_message_coding(small_http: httpx.Client) -> None:
    headers = {"content-type": "application/connect+json", "connect-content-encoding": "snappy"}
    r = small_http.post(
        f"{SESSIONS}/WatchSession", content=envelope(b'{"session": "valhalla.x"}'), headers=headers
    )
    assert r.status_code == 200  # a stream's error is in its end-of-stream message
    [(flags, data)] = list(frames(iter([r.content])))
    assert flags == 0x02
    error = json.loads(data)["error"]
    assert error["code"] == "unimplemented" and "gzip, br" in error["message"]
    assert r.headers["connect-accept-encoding"] == "gzip, br"
    # a message flagged compressed needs a Connect-Content-Encoding
    flagged = envelope(zlib.compress(b"{}"), flags=0x01)
    r = small_http.post(
        f"{SESSIONS}/WatchSession", content=flagged, headers={"content-type": "application/connect+json"}
    )
    [(flags, data)] = list(frames(iter([r.content])))
    assert json.loads(data)["error"]["code"] == "invalid_argument"


# --------------------------------------------------------------------------- curl, as docs/api.md says


def api_md_compression_commands() -> list[tuple[str, list[str]]]:
    """Each command of docs/api.md's "Compression" ```sh block with the output its ``# `` lines
    right after it say."""
    section = (ROOT / "docs" / "api.md").read_text().split("\n## Compression\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, 'docs/api.md\'s "Compression" section has no ```sh block'
    commands: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("# "):
            assert commands, "the block opens with a comment, not a command"
            commands[-1][1].append(line[2:])
        elif line.strip():
            commands.append((line, []))
    return commands


@pytest.mark.skipif(shutil.which("curl") is None or shutil.which("jq") is None, reason="needs curl and jq")
def test_the_api_md_curl_compressed_example_runs_verbatim(http: httpx.Client, servers: Servers) -> None:
    commands = api_md_compression_commands()
    assert len(commands) == 3 and all("curl -s --compressed" in c for c, _ in commands)
    for command, expected in commands:
        assert "localhost:8080" in command
        ran = command.replace("localhost:8080", f"127.0.0.1:{servers.http_port}")
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", ran], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, (command, done.stderr)
        assert [line.rstrip("\r") for line in done.stdout.splitlines()] == expected, command
