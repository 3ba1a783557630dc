"""What a client sends that cannot be a request, refused in words a person understands.

The guards every transport shares, so that a hostile body gets the same clear client error (a
:class:`~lawspeaker.games.core.LawspeakerError`, mapped once by :mod:`lawspeaker.api.errors`) over
gRPC, REST and Connect, never an internal error, a traceback or a Python class name:

- :func:`parse_protobuf` reads binary protobuf; bytes that are not the request message are
  ``MALFORMED_PROTOBUF``.
- :func:`check_json_depth` refuses a JSON body that nests objects and arrays more than
  :data:`MAX_JSON_DEPTH` levels deep (``JSON_TOO_DEEP``) before it is decoded: decoders recurse
  once per level, and a body nested thousands of levels deep would exhaust the stack. No request
  of the contract comes near the limit (a whole game state nests fewer than ten levels).
- :func:`json_kind_mismatch` names a JSON value of the wrong kind (an array where an object
  belongs, ...) once json_format has refused a body, in place of the words of the Python error
  json_format met.
"""

from __future__ import annotations

import array
import functools
import itertools
from typing import Any, NamedTuple, TypeVar

import msgspec
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.wire import protojson

T = TypeVar("T", bound=Message)

MAX_JSON_DEPTH = 64
"""The deepest a JSON request body may nest objects and arrays (``{"a": [1]}`` is 2 deep)."""


def parse_protobuf(cls: type[T], data: bytes) -> T:
    """The ``cls`` message binary protobuf ``data`` holds, or a MALFORMED_PROTOBUF error."""
    try:
        return cls.FromString(data)
    except DecodeError as err:
        raise malformed_protobuf(cls, err) from None


def malformed_protobuf(cls: type[Message], err: DecodeError) -> LawspeakerError:
    """The error for bytes that are not a binary ``cls`` (``err``: what the decoder said)."""
    return LawspeakerError(
        ErrorCode.MALFORMED,
        "MALFORMED_PROTOBUF",
        f"The request body is not a valid binary {cls.DESCRIPTOR.full_name}: {err}",
    )


_BRACKETS_AND_QUOTES = bytes(b for b in range(256) if b not in b'{}[]"')
# Openings become +1 and closings -1 as signed bytes, so the running sum is the depth.
_STEPS = bytes.maketrans(b"{[}]", b"\x01\x01\xff\xff")


def json_depth(body: bytes) -> int:
    """How deep a JSON text nests objects and arrays (0 for a scalar); brackets inside strings do
    not count. Exact for valid JSON; for invalid JSON, some number the decoder will refuse anyway.

    Every step is a bytes method, in C and linear in the size of the body (no regular expression
    that could backtrack): only the brackets outside strings are summed, in Python's C code too.
    """
    if b"\\" in body:
        # Escapes, read left to right as JSON reads them: each "\\" pair, then each escaped quote.
        # What is left of a backslash escapes neither a quote nor a bracket.
        body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    # Keep brackets and quotes only. Two adjacent quotes (an empty string, or the gap between two
    # strings) hold no bracket: dropping them keeps every other quote's parity.
    kept = body.translate(None, _BRACKETS_AND_QUOTES).replace(b'""', b"")
    if b'"' in kept:  # some string holds a bracket: the odd pieces are inside strings
        kept = b"".join(kept.split(b'"')[::2])
    return max(itertools.accumulate(array.array("b", kept.translate(_STEPS))), default=0)


def check_json_depth(body: bytes) -> None:
    """Refuse (JSON_TOO_DEEP) a JSON body nesting objects and arrays deeper than MAX_JSON_DEPTH."""
    if body.count(b"{") + body.count(b"[") <= MAX_JSON_DEPTH:  # cannot be deeper: the usual case
        return
    depth = json_depth(body)
    if depth > MAX_JSON_DEPTH:
        raise LawspeakerError(
            ErrorCode.MALFORMED,
            "JSON_TOO_DEEP",
            f"The request body nests JSON objects and arrays {depth} levels deep; "
            f"at most {MAX_JSON_DEPTH} are allowed.",
            (FieldViolation("body", f"must not nest objects and arrays over {MAX_JSON_DEPTH} levels deep"),),
            {"maxDepth": str(MAX_JSON_DEPTH)},
        )


# --------------------------------------------------------------------------- JSON of the wrong kind

_INT_TYPES = {
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_UINT64,
}
_FLOAT_TYPES = {FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE}


class _LeftToJsonFormat(Exception):
    """The walk meets something json_format reports in words of its own: stop there."""


def _kind(value: object) -> str:
    """A JSON value as an error message speaks of it: 'a JSON object', 'the number 1.5', ..."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}" if abs(value) < 1e15 else "a number"
    if isinstance(value, str):
        return f"the string {msgspec.json.encode(value).decode()}" if len(value) <= 40 else "a string"
    return "a JSON array" if isinstance(value, list) else "a JSON object"


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class _Field(NamedTuple):
    """What the walk needs of a field, read from its descriptor once."""

    field: Any
    is_map: bool
    repeated: bool
    cpp: int
    type: int
    message_type: Any


def _strict_mismatch(info: _Field, value: object, path: str) -> tuple[str, str] | None:
    """What is wrong with one value's spelling where proto3 JSON allows several and REST takes the
    one its OpenAPI document gives (``json_kind_mismatch`` with ``strict``), if anything."""
    cpp, typ = info.cpp, info.type
    if typ in protojson.INT64_TYPES:
        if _number(value):
            return (
                path,
                'must be a decimal string such as "42" (a 64-bit integer is a JSON string), '
                f"not {_kind(value)}",
            )
        if isinstance(value, str) and not protojson.CANONICAL_INT64.fullmatch(value):
            return path, f'must be a decimal integer such as "42", not {_kind(value)}'
    elif cpp in _INT_TYPES or cpp in _FLOAT_TYPES:
        if isinstance(value, str):
            return path, f"must be a JSON number, not {_kind(value)}"
    elif cpp == FieldDescriptor.CPPTYPE_ENUM:
        if _number(value):
            return path, f"must be the name of a {info.field.enum_type.full_name} value, not {_kind(value)}"
    elif (
        typ == FieldDescriptor.TYPE_BYTES
        and isinstance(value, str)
        and not protojson.CANONICAL_BASE64.fullmatch(value)
    ):
        return path, f"must be standard base64 with its padding, not {_kind(value)}"
    return None


def _value_mismatch(info: _Field, value: object, path: str, strict: bool = False) -> tuple[str, str] | None:
    """What is wrong with the kind of one (non-null, non-repeated) value of a field, if anything;
    with ``strict``, with its spelling too (``_strict_mismatch``)."""
    cpp = info.cpp
    f = info.field
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        if not isinstance(value, dict):
            return path, f"must be a JSON object, not {_kind(value)}"
        return _message_mismatch(value, info.message_type, path, strict)
    if strict:
        found = _strict_mismatch(info, value, path)
        if found is not None:
            return found
    if cpp in _INT_TYPES:
        number: int | None = None
        if isinstance(value, str) and " " not in value:  # json_format reads it with int()
            try:
                number = int(value)
            except ValueError:
                return path, f"must be an integer, not {_kind(value)}"
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, float) and not value.is_integer():
                return path, f"must be a whole number, not {_kind(value)}"
            number = int(value)
        elif not isinstance(value, str):
            return path, f"must be an integer, not {_kind(value)}"
        low, high = protojson.INT_RANGES[info.type]
        if number is not None and not low <= number <= high:
            return path, f"must be an integer from {low} to {high}, not {_kind(value)}"
    elif cpp in _FLOAT_TYPES:
        if not _number(value) and not isinstance(value, str):
            return path, f"must be a number, not {_kind(value)}"
    elif cpp == FieldDescriptor.CPPTYPE_BOOL:
        if not isinstance(value, bool):
            return path, f"must be true or false, not {_kind(value)}"
    elif cpp == FieldDescriptor.CPPTYPE_ENUM:
        if not isinstance(value, str) and not _number(value):
            return path, f"must be the name of a {f.enum_type.full_name} value, not {_kind(value)}"
    elif not isinstance(value, str):  # string, and bytes (as base64)
        return path, f"must be a string, not {_kind(value)}"
    return None


@functools.cache
def _fields(desc: Any) -> dict[str, _Field] | None:
    """A message's fields by JSON name and by proto name (None for a well-known type). Built once
    per message type: every JSON body of the general path is walked with it."""
    if desc.full_name.startswith("google.protobuf."):
        return None
    out: dict[str, _Field] = {}
    for f in desc.fields:
        is_map = f.message_type is not None and bool(f.message_type.GetOptions().map_entry)
        out.setdefault(
            f.name, _Field(f, is_map, protojson._is_repeated(f), f.cpp_type, f.type, f.message_type)
        )
    for f in desc.fields:  # the JSON name wins where a name is both
        out[f.json_name] = out[f.name]
    return out


def _message_mismatch(data: dict[Any, Any], desc: Any, path: str, strict: bool) -> tuple[str, str] | None:
    fields = _fields(desc)
    if fields is None:
        raise _LeftToJsonFormat  # well-known types have JSON forms of their own
    for key, value in data.items():
        info = fields.get(key)
        if info is None or info.is_map:
            raise _LeftToJsonFormat  # an unknown field (json_format names it), or a map
        if value is None:
            continue  # null stands for the field's default
        at = f"{path}.{key}" if path else str(key)
        if not info.repeated:
            found = _value_mismatch(info, value, at, strict)
        elif not isinstance(value, list):
            found = at, f"must be a JSON array, not {_kind(value)}"
        else:
            found = None
            for i, item in enumerate(value):
                if item is None:
                    raise _LeftToJsonFormat  # "null is not allowed ... in a repeated field"
                found = _value_mismatch(info, item, f"{at}[{i}]", strict)
                if found is not None:
                    break
        if found is not None:
            return found
    return None


def json_kind_mismatch(data: dict[Any, Any], desc: Any, strict: bool = False) -> tuple[str, str] | None:
    """The first value of ``data`` (a decoded JSON object) whose kind the proto3 JSON of message
    ``desc`` cannot hold (an array where an object belongs, an object for an integer, ...), as the
    path of its field and what is wrong, in words; None when json_format meets another error first.

    json_format reports such values in the words of the Python error they raise inside it
    (``'float' object is not iterable``); the transports describe them with these words instead.
    The walk visits the keys in the order sent, as json_format does, and stops where json_format
    has words of its own (an unknown field, a null in an array). A body with several faults may
    have another one named than json_format would name: each is a fault of the body.

    With ``strict`` (REST bodies), a value must also be spelled as the OpenAPI document spells it,
    where proto3 JSON reads several spellings: 32-bit integers and floating-point numbers as JSON
    numbers, 64-bit integers as decimal strings, enum values by name, bytes as padded standard
    base64. So a generated client has one type per field, and the document says exactly what the
    service takes. ``null`` is still a field's default.
    """
    try:
        return _message_mismatch(data, desc, "", strict)
    except _LeftToJsonFormat:
        return None
