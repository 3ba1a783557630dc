"""Logging: plain text or one JSON object per line (``--log-format``), and the access log.

JSON lines are written by python-json-logger's formatter over the standard library's logging, so
every logger (ours, uvicorn's, grpc's, Python's warnings) writes the same shape: ``time`` (ISO 8601
in UTC, to the millisecond), ``level``, ``logger``, ``message``, ``exc_info`` (the whole traceback,
in one string) when an exception is logged, ``pid`` when several processes serve, and, for a line
written while a call is served, the call's ``transport``, ``service``, ``method`` and ``game`` (and,
with the access log on, its ``request_id`` and ``trace_id``). An access line (``--access-log``,
logger ``lawspeaker.access``) adds the outcome ``code`` (a gRPC code name), the ``reason`` code of a
refusal, ``duration_ms`` and, for HTTP (REST and Connect), the ``status``, ``http_method`` and
``path``. The text format carries
the same facts for a person to read: the access line's message names them all.

Nothing here reads a body, a header, a token, a state or a move: a call record (``lawspeaker.observe.calls``)
holds none, and the access line is built from it alone. Its ``path`` never has the query string (a
Connect GET carries its request message there).
"""

from __future__ import annotations

import logging
import sys
import time
from types import TracebackType
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

from lawspeaker.observe import calls

ACCESS = logging.getLogger("lawspeaker.access")
FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s{process}: %(message)s"
JSON_FIELDS = ("asctime", "levelname", "name", "message")
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger", "process": "pid"}
# Record attributes no line shows: the standard ones (python-json-logger's list) and uvicorn's
# ``color_message``, its message again with ANSI colour codes.
HIDDEN = (*RESERVED_ATTRS, "color_message")


def utc_time(record: logging.LogRecord) -> str:
    """``record``'s time in ISO 8601, UTC, to the millisecond: ``2026-11-30T16:18:38.123Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"


class CallFields(logging.Filter):
    """Adds the current call's fields to a record written while it is served (an access line
    brings its own)."""

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


class JsonLines(JsonFormatter):
    """One JSON object a line, its time in UTC ISO 8601 with milliseconds."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return utc_time(record)


class TextLines(logging.Formatter):
    """``time level logger: message``; a line written during a call (not the access line, whose
    message says it all) ends with the call it belongs to, so that a person can find its access
    line."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return utc_time(record)

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        transport = getattr(record, "transport", None)
        if transport is None or record.name == ACCESS.name:
            return line
        game = getattr(record, "game", "")
        request_id = getattr(record, "request_id", "")
        return (
            f"{line} [{transport} {getattr(record, 'service', '')}/{getattr(record, 'method', '')}"
            f"{' ' + game if game else ''}{' request_id=' + request_id if request_id else ''}]"
        )


def formatter(fmt: str, several: bool = False) -> logging.Formatter:
    """The formatter of ``fmt`` ("text" or "json"); ``several``: each line names its process."""
    if fmt == "json":
        return JsonLines(
            (*JSON_FIELDS, "process") if several else JSON_FIELDS,
            rename_fields=RENAMED,
            reserved_attrs=HIDDEN,
        )
    if fmt != "text":
        raise ValueError(f"unknown log format {fmt!r} (one of {', '.join(FORMATS)})")
    return TextLines(TEXT_FORMAT.format(process="[%(process)d]" if several else ""))


def configure(fmt: str = "text", several: bool = False, stream: Any = None) -> None:
    """One handler on the root logger, for ``lawspeaker serve`` (``several``: worker processes, so
    each line names its process).

    Python's warnings go through it too, and, in JSON, so does an uncaught exception: a process
    whose log is read line by line as JSON writes no line of plain text."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter(fmt, several))
    handler.addFilter(CallFields())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    if fmt == "json":
        sys.excepthook = _uncaught


def _uncaught(kind: type[BaseException], err: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, err, tb)
        return
    logging.getLogger("lawspeaker").critical("uncaught exception, exiting", exc_info=(kind, err, tb))


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
    if call.http_method:
        fields["http_method"] = call.http_method
        fields["path"] = call.path
    if call.reason:
        fields["reason"] = call.reason
    what = f"{call.service}/{call.method}" if call.method != calls.OTHER else "other"
    ACCESS.info(
        "%s%s %s%s %s%s in %.2f ms request_id=%s%s",
        call.transport,
        f" {call.http_method} {call.path} {call.status}" if call.http_method else "",
        what,
        f" {call.game}" if call.game else "",
        call.code,
        f" ({call.reason})" if call.reason else "",
        seconds * 1000,
        call.request_id or "-",
        f" trace_id={call.trace_id}" if call.trace_id else "",
        extra=fields,
    )
