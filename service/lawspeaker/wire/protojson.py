"""A fast path for the proto3 JSON mapping, exact to ``google.protobuf.json_format``.

``json_format`` walks every field in pure Python and dominates the cost of a REST call. These two
functions produce exactly what ``json_format.MessageToDict`` / ``ParseDict`` produce, using tables
built once per message type. Parsing takes only the canonical spelling of each value (camelCase or
proto names, enum names, numbers, 64-bit integers as strings or numbers, standard base64); anything
else, including every error, is handed to ``json_format`` itself, so its results and its error
messages are the ones a client sees. A property test holds the two together.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

T = TypeVar("T", bound=Message)
# Descriptors are typed loosely by the protobuf stubs (optional members, two implementations).
Descriptor = Any

_WKT_PREFIX = "google.protobuf."
INT64_TYPES = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_FIXED64,
}
INT32_TYPES = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_FIXED32,
}
INT_RANGES = {  # the values each integer type holds (``lawspeaker.wire.structs`` checks by them too)
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


CANONICAL_INT64 = re.compile(r"-?(?:0|[1-9][0-9]*)")
"""A 64-bit integer as proto3 JSON writes it: a decimal numeral, no sign but ``-``, no leading
zeros, no spaces (``int()`` reads more: ``+5``, ``007``, ``1_000``, other scripts' digits). The
wire path reads only this; REST refuses anything else (``lawspeaker.wire.inbound``)."""
CANONICAL_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
"""Bytes as proto3 JSON writes them: standard base64 with its padding."""


class _Fallback(Exception):
    """The fast path does not handle this input: let json_format decide."""


def _slow(desc: Descriptor) -> bool:
    """Messages the fast path leaves to json_format: well-known types, maps, float32 fields."""
    if desc.full_name.startswith(_WKT_PREFIX):
        return True
    for f in desc.fields:
        if f.type == FieldDescriptor.TYPE_FLOAT:
            return True
        if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
            return True
    return False


# --------------------------------------------------------------------------- message -> dict

_Writer = Callable[[Any], Any]
_WRITERS: dict[str, dict[str, tuple[str, _Writer]] | None] = {}


def _double_out(v: float) -> Any:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _writer(f: Any) -> _Writer:
    t = f.type
    single: _Writer
    if t == FieldDescriptor.TYPE_MESSAGE:
        single = to_dict
    elif t == FieldDescriptor.TYPE_ENUM:
        names = {v.number: v.name for v in f.enum_type.values}

        def single(v: Any) -> Any:
            return names.get(v, v)

    elif t in INT64_TYPES:
        single = str
    elif t == FieldDescriptor.TYPE_BYTES:

        def single(v: Any) -> Any:
            return base64.b64encode(v).decode("ascii")

    elif t == FieldDescriptor.TYPE_DOUBLE:
        single = _double_out
    else:
        return list if _is_repeated(f) else _identity
    if _is_repeated(f):
        return lambda values: [single(v) for v in values]
    return single


def _identity(v: Any) -> Any:
    return v


def _is_repeated(f: Any) -> bool:
    repeated = getattr(f, "is_repeated", None)  # protobuf >= 6; older versions have .label
    if repeated is None:
        return bool(getattr(f, "label") == FieldDescriptor.LABEL_REPEATED)  # noqa: B009
    return bool(repeated)


def _writers(desc: Descriptor) -> dict[str, tuple[str, _Writer]] | None:
    key = desc.full_name
    if key in _WRITERS:
        return _WRITERS[key]
    table = None if _slow(desc) else {f.name: (f.json_name, _writer(f)) for f in desc.fields}
    _WRITERS[key] = table
    return table


def to_dict(msg: Message) -> Any:
    """Exactly ``json_format.MessageToDict(msg)`` (camelCase names, defaults omitted)."""
    table = _writers(msg.DESCRIPTOR)
    if table is None:
        return json_format.MessageToDict(msg)
    out = {}
    for f, value in msg.ListFields():
        name, write = table[f.name]
        out[name] = write(value)
    return out


# --------------------------------------------------------------------------- dict -> message

_Reader = Callable[[Any], Any]
_READERS: dict[str, tuple[dict[str, tuple[str, str | None, _Reader]], bool]] = {}


def _int_reader(f: Any) -> _Reader:
    lo, hi = INT_RANGES[f.type]
    allow_str = f.type in INT64_TYPES

    def read(v: Any) -> Any:
        if type(v) is not int:
            if not allow_str or type(v) is not str:
                raise _Fallback
            digits = v[1:] if v[:1] == "-" else v
            if not (digits.isascii() and digits.isdigit()):
                raise _Fallback
            v = int(v)
        if not lo <= v <= hi:
            raise _Fallback
        return v

    return read


def _reader(f: Any) -> _Reader:
    t = f.type
    single: _Reader
    if t == FieldDescriptor.TYPE_MESSAGE:
        sub = f.message_type

        def single(v: Any) -> Any:
            if type(v) is not dict:
                raise _Fallback
            return _kwargs(sub, v)

    elif t == FieldDescriptor.TYPE_ENUM:
        numbers = {v.name: v.number for v in f.enum_type.values}

        def single(v: Any) -> Any:
            if type(v) is str and v in numbers:
                return numbers[v]
            raise _Fallback

    elif t in INT32_TYPES or t in INT64_TYPES:
        single = _int_reader(f)
    elif t == FieldDescriptor.TYPE_BOOL:

        def single(v: Any) -> Any:
            if type(v) is bool:
                return v
            raise _Fallback

    elif t == FieldDescriptor.TYPE_STRING:

        def single(v: Any) -> Any:
            if type(v) is str:
                return v
            raise _Fallback

    elif t == FieldDescriptor.TYPE_BYTES:

        def single(v: Any) -> Any:
            if type(v) is not str:
                raise _Fallback
            try:
                return base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise _Fallback from None

    elif t == FieldDescriptor.TYPE_DOUBLE:

        def single(v: Any) -> Any:
            if type(v) is int or type(v) is float:
                return float(v)
            raise _Fallback

    else:  # pragma: no cover - float32 and groups are routed to json_format by _slow
        raise _Fallback
    if _is_repeated(f):

        def many(values: Any) -> Any:
            if type(values) is not list:
                raise _Fallback
            return [single(v) for v in values]

        return many
    return single


def _readers(desc: Descriptor) -> tuple[dict[str, tuple[str, str | None, _Reader]], bool]:
    key = desc.full_name
    found = _READERS.get(key)
    if found is None:
        slow = _slow(desc) or any(
            f.type == FieldDescriptor.TYPE_MESSAGE and _slow(f.message_type) for f in desc.fields
        )
        table: dict[str, tuple[str, str | None, _Reader]] = {}
        if not slow:
            for f in desc.fields:
                oneof = f.containing_oneof.name if f.containing_oneof is not None else None
                entry = (f.name, oneof, _reader(f))
                table[f.json_name] = entry
                table[f.name] = entry
        found = (table, slow)
        _READERS[key] = found
    return found


def _kwargs(desc: Descriptor, data: dict[str, Any]) -> dict[str, Any]:
    table, slow = _readers(desc)
    if slow:
        raise _Fallback
    out: dict[str, Any] = {}
    oneofs: set[str] = set()
    for key, value in data.items():
        entry = table.get(key)
        if entry is None or value is None:
            raise _Fallback
        name, oneof, read = entry
        if name in out:
            raise _Fallback
        if oneof is not None:
            if oneof in oneofs:
                raise _Fallback
            oneofs.add(oneof)
        out[name] = read(value)
    return out


def parse(data: Any, cls: type[T]) -> T:
    """Exactly ``json_format.ParseDict(data, cls(), ignore_unknown_fields=False)``.

    Raises ``json_format.ParseError`` (from json_format itself) for anything that is not valid.
    """
    if type(data) is dict:
        try:
            return cls(**_kwargs(cls.DESCRIPTOR, data))
        except (_Fallback, TypeError, ValueError):
            pass
    msg = cls()
    json_format.ParseDict(data, msg, ignore_unknown_fields=False)
    return msg
