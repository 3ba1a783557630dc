"""The REST stack with no rules in it, for ``e2e.measure_ceiling``: the HTTP server and framework
``lawspeaker serve`` uses (uvicorn with httptools and uvloop, Litestar), answering ``GET /healthz``
as the service does and a POST that reads its body and answers with a fixed reply as large as an
ApplyMove response. ``python echo_app.py PORT REPLY_FILE``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import uvicorn
from litestar import Litestar, Request, Response, get, post

REPLY = Path(sys.argv[2]).read_bytes() if __name__ == "__main__" else b"{}"


@get("/healthz")
async def healthz() -> Response[bytes]:
    return Response(b'{"status":"SERVING"}', media_type="application/json")


@post("/v1/games/{game:str}", status_code=200)
async def echo(request: Request[Any, Any, Any], game: str) -> Response[bytes]:
    more = True
    while more:  # read the whole body, as the service does
        message = await request.receive()
        more = message.get("more_body", False)
    return Response(REPLY, media_type="application/json")


if __name__ == "__main__":
    app = Litestar([healthz, echo], openapi_config=None)
    uvicorn.run(
        app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False, http="httptools"
    )
