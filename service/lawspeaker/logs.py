"""Logging: plain text or one JSON object per line (``--log-format``), and the access log.

JSON lines are written by python-json-logger's formatter over the standard library's logging, so
every logger (ours, uvicorn's, grpc's) writes the same shape: ``time``, ``level``, ``logger``,
``message`` and, for a line written while a call is served, the call's ``transport``, ``service``,
``method`` and ``game`` (and, with the access log on, its ``request_id`` and ``trace_id``). An
access line (``--access-log``, logger ``lawspeaker.access``) adds the outcome ``code``, the HTTP
``status`` (REST and Connect) and ``duration_ms``.

Nothing here reads a body, a token, a state or a move: a call record (``lawspeaker.calls``) holds
none, and the access line is built from it alone.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from lawspeaker import calls

ACCESS = logging.getLogger("lawspeaker.access")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s{process}: %(message)s"
JSON_FIELDS = ("asctime", "levelname", "name", "message")
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}


class CallFields(logging.Filter):
    """Adds the current call's fields to a record written while it is served."""

    def filter(self, record: logging.LogRecord) -> bool:
        call = calls.CURRENT.get()
        if call is not None and not hasattr(record, "transport"):
            record.transport = call.transport
            record.service = call.service
            record.method = call.method
            record.game = call.game
            if call.request_id:
                record.request_id = call.request_id
            if call.trace_id:
                record.trace_id = call.trace_id
        return True


def formatter(fmt: str, several: bool = False) -> logging.Formatter:
    if fmt == "json":
        return JsonFormatter(
            JSON_FIELDS,
            rename_fields=RENAMED,
            timestamp=False,
            datefmt="%Y-%m-%dT%H:%M:%S%z",
            static_fields={"pid": _pid()} if several else None,
        )
    return logging.Formatter(TEXT_FORMAT.format(process="[%(process)d]" if several else ""))


def configure(fmt: str = "text", several: bool = False, stream: Any = None) -> None:
    """One handler on the root logger, for ``lawspeaker serve`` (``several``: worker processes, so
    each line names its process)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter(fmt, several))
    handler.addFilter(CallFields())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def access_line(call: calls.Call, seconds: float) -> None:
    """The access log line of a finished call (``--access-log``)."""
    fields: dict[str, Any] = {
        "transport": call.transport,
        "service": call.service,
        "method": call.method,
        "game": call.game,
        "code": call.code,
        "duration_ms": round(seconds * 1000, 3),
        "request_id": call.request_id,
        "trace_id": call.trace_id,
    }
    if call.status:
        fields["status"] = call.status
    if call.reason:
        fields["reason"] = call.reason
    what = f"{call.service}/{call.method}" if call.method != calls.OTHER else "other"
    ACCESS.info(
        "%s %s%s %s%s in %.2f ms request_id=%s%s",
        call.transport,
        what,
        f" {call.game}" if call.game else "",
        call.code,
        f" ({call.reason})" if call.reason else "",
        seconds * 1000,
        call.request_id or "-",
        f" trace_id={call.trace_id}" if call.trace_id else "",
        extra=fields,
    )


def _pid() -> int:
    import os

    return os.getpid()
