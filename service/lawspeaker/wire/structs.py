"""The proto3 JSON mapping without protobuf messages: msgspec Structs compiled from the descriptors.

A REST call that carries a whole game state spends most of its time turning JSON into protobuf
messages and back (``json_format``, or even ``lawspeaker.wire.protojson``, walks every field in Python).
This module builds, once, for every message of the contract, a frozen :class:`msgspec.Struct` with
the same name and the same fields, and exposes them on a namespace shaped like a ``_pb2`` module
(message classes and enum constants by name). msgspec decodes request JSON straight into these
objects and encodes response objects straight to JSON, in C. The codecs and ``RulesApi`` are
written against the small part of the message API both kinds of object share (keyword
construction, attribute reads, ``HasField``, ``WhichOneof``), so the same code serves both.

The objects follow protobuf's semantics where the codecs can see them:

- a field that is not set reads as its default; a sub-message that is not set reads as a shared,
  empty instance, and ``HasField`` tells it apart from a set one (so an empty but set sub-message
  is written as ``{}``, as ``json_format`` writes it);
- enum values are Enum members named and valued as the proto enum values, which compare and hash
  as their numbers; 64-bit integers are ``int`` subclasses written as strings; bytes are written
  as standard base64; defaults are left out; ``json_name`` spells the keys.

Decoding takes only the canonical spelling: lowerCamel keys, enum names, 64-bit integers as
decimal strings, standard base64. Anything else (proto field names, ``null`` for a field without
presence, numbers as strings, unknown fields) raises when decoded; two members of one oneof raise
when the oneof is read (:class:`NotCanonical`). The caller then hands the body to the general path
(``lawspeaker.wire.protojson`` and ``json_format``), whose answer, or error, the client gets. Messages
holding maps, float32 fields or well-known types are not compiled here.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Optional

import msgspec
from google.protobuf.descriptor import FieldDescriptor

from lawspeaker.wire.protojson import CANONICAL_INT64, INT32_TYPES, INT64_TYPES, INT_RANGES

# Descriptors are typed loosely by the protobuf stubs (optional members, two implementations).
Descriptor = Any


class NotCanonical(ValueError):
    """The input is not in the canonical form this module reads: take the general path.

    Raised by :meth:`Message.WhichOneof` when a decoded message sets two members of one oneof (the
    check is left until the oneof is read, so building messages costs nothing for it). Everything
    that reads wire messages is pure, so the caller can start over on the general path."""


class Unsupported(Exception):
    """A message this module does not compile (maps, float32, well-known types)."""


class WireEnum(enum.Enum):
    """An enum value of a compiled message. Its Enum value is its name, so msgspec reads and writes
    it as proto3 JSON does, in C; it compares and hashes as its number, so code written for
    protobuf's plain-int enum values (``==``, dict keys, ``in``) works unchanged."""

    _number: int

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WireEnum):
            return self is other
        return bool(self._number == other)

    def __hash__(self) -> int:
        return hash(self._number)

    def __int__(self) -> int:
        return self._number

    __index__ = __int__

    # Printed as protobuf prints an enum field's value: its number (error messages quote it).
    def __str__(self) -> str:
        return str(self._number)

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return format(self._number, spec)

    @classmethod
    def of(cls, number: int) -> WireEnum:
        """The value numbered ``number``."""
        for member in cls:
            if member._number == number:
                return member
        raise ValueError(f"Enum {cls.__name__} has no value numbered {number}")

    @classmethod
    def Value(cls, name: str) -> WireEnum:
        try:
            return cls[name]
        except KeyError:
            raise ValueError(f"Enum {cls.__name__} has no value named {name}") from None

    @classmethod
    def Name(cls, number: int) -> str:
        return cls.of(number).name


class Int64(int):
    """A signed 64-bit integer field's value: written as a JSON string, as proto3 JSON asks."""

    __slots__ = ()
    low: ClassVar[int] = -(2**63)
    high: ClassVar[int] = 2**63 - 1


class UInt64(Int64):
    """An unsigned 64-bit integer field's value."""

    __slots__ = ()
    low: ClassVar[int] = 0
    high: ClassVar[int] = 2**64 - 1


_INT64_ZERO = Int64(0)
_UINT64_ZERO = UInt64(0)


def int64(value: int) -> Int64:
    """A value for an int64 field (zero is the shared default, so it is left out of the JSON)."""
    return _INT64_ZERO if value == 0 else Int64(value)


def uint64(value: int) -> UInt64:
    """A value for a uint64 field (zero is the shared default, so it is left out of the JSON)."""
    return _UINT64_ZERO if value == 0 else UInt64(value)


class Message(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """The base of every compiled message: the part of protobuf's message API the codecs use."""

    _presence: ClassVar[dict[str, Any]]  # field -> its "not set" default, for fields with presence
    _oneofs: ClassVar[dict[str, tuple[str, ...]]]

    def HasField(self, name: str) -> bool:
        try:
            unset = self._presence[name]
        except KeyError:
            raise ValueError(f"{type(self).__name__}.{name} has no presence") from None
        return getattr(self, name) is not unset

    def WhichOneof(self, group: str) -> str | None:
        """The member of ``group`` that is set. Two set members (which protobuf cannot hold, and
        proto3 JSON refuses) raise :class:`NotCanonical`."""
        presence = self._presence
        found = None
        for name in self._oneofs[group]:
            if getattr(self, name) is not presence[name]:
                if found is not None:
                    raise NotCanonical(f"more than one field of oneof {group!r} is set")
                found = name
        return found


def _synthetic(oneof: Any, f: Any) -> bool:
    """Whether ``oneof`` is the one protoc makes for a proto3 ``optional`` field."""
    return len(oneof.fields) == 1 and oneof.name == f"_{f.name}"


def _is_repeated(f: Any) -> bool:
    repeated = getattr(f, "is_repeated", None)  # protobuf >= 6; older versions have .label
    if repeated is None:
        return bool(getattr(f, "label") == FieldDescriptor.LABEL_REPEATED)  # noqa: B009
    return bool(repeated)


class Compiler:
    """Compiles message and enum descriptors into Structs and WireEnum types, each once."""

    def __init__(self) -> None:
        self.messages: dict[str, type[Message]] = {}
        self.unsupported: set[str] = set()
        self.enums: dict[str, type[WireEnum]] = {}

    def enum(self, desc: Descriptor) -> type[WireEnum]:
        found = self.enums.get(desc.full_name)
        if found is not None:
            return found
        functional: Any = WireEnum  # Enum's functional API makes a subclass with these members
        cls: type[WireEnum] = functional(desc.name, [(v.name, v.name) for v in desc.values])
        for value in desc.values:
            cls[value.name]._number = value.number
        self.enums[desc.full_name] = cls
        return cls

    def message(self, desc: Descriptor) -> type[Message]:
        found = self.messages.get(desc.full_name)
        if found is not None:
            return found
        if desc.full_name in self.unsupported:
            raise Unsupported(desc.full_name)
        if desc.full_name.startswith("google.protobuf.") or desc.GetOptions().map_entry:
            self.unsupported.add(desc.full_name)
            raise Unsupported(desc.full_name)
        fields: list[tuple[str, Any, Any]] = []
        rename: dict[str, str] = {}
        presence: dict[str, Any] = {}
        oneofs: dict[str, list[str]] = {}
        try:
            for f in desc.fields:
                typ, default, has_presence = self._field(f)
                fields.append((f.name, typ, default))
                if f.json_name != f.name:
                    rename[f.name] = f.json_name
                if has_presence:
                    presence[f.name] = default
                oneof = f.containing_oneof
                if oneof is not None and not _synthetic(oneof, f):
                    oneofs.setdefault(oneof.name, []).append(f.name)
        except Unsupported:
            self.unsupported.add(desc.full_name)
            raise
        namespace: dict[str, Any] = {
            "_presence": presence,
            "_oneofs": {k: tuple(v) for k, v in oneofs.items()},
            "__doc__": f"The proto3 JSON form of ``{desc.full_name}``.",
        }
        cls: type[Message] = msgspec.defstruct(  # type: ignore[assignment]
            desc.name,
            fields,
            bases=(Message,),
            namespace=namespace,
            rename=rename or None,
            frozen=True,
            omit_defaults=True,
            forbid_unknown_fields=True,
        )
        self.messages[desc.full_name] = cls
        return cls

    def _field(self, f: Any) -> tuple[Any, Any, bool]:
        """(type, default, whether the field has presence) of one field."""
        t = f.type
        default: Any
        if t == FieldDescriptor.TYPE_MESSAGE:
            sub = self.message(f.message_type)
            typ: Any = sub
            default = None if _is_repeated(f) else sub()
        elif t == FieldDescriptor.TYPE_ENUM:
            enum = self.enum(f.enum_type)
            typ, default = enum, enum.of(0)
        elif t in INT32_TYPES:
            lo, hi = INT_RANGES[t]
            typ, default = Annotated[int, msgspec.Meta(ge=lo, le=hi)], 0
        elif t in INT64_TYPES:
            unsigned = INT_RANGES[t][0] == 0
            typ, default = (UInt64, _UINT64_ZERO) if unsigned else (Int64, _INT64_ZERO)
        elif t == FieldDescriptor.TYPE_BOOL:
            typ, default = bool, False
        elif t == FieldDescriptor.TYPE_STRING:
            typ, default = str, ""
        elif t == FieldDescriptor.TYPE_BYTES:
            typ, default = bytes, b""
        elif t == FieldDescriptor.TYPE_DOUBLE:
            typ, default = float, 0.0
        else:  # float32 (its JSON rounding differs), groups
            raise Unsupported(f.full_name)
        if _is_repeated(f):
            return list[typ], msgspec.field(default_factory=list), False
        if t == FieldDescriptor.TYPE_MESSAGE:
            return typ, default, True
        if f.containing_oneof is not None:  # a oneof member or a proto3 `optional` scalar
            return Optional[typ], None, True  # noqa: UP045 - typ is a value, not an annotation
        return typ, default, False


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Int64):
        return str(int(value))
    raise NotImplementedError(f"cannot write {type(value).__name__} as proto3 JSON")


def _dec_hook(typ: type, value: Any) -> Any:
    if isinstance(typ, type) and issubclass(typ, Int64):
        # a decimal string only: a JSON number (which REST refuses and Connect takes) is for the
        # general path to judge
        if type(value) is str and CANONICAL_INT64.fullmatch(value):
            number = int(value)
            if typ.low <= number <= typ.high:
                return uint64(number) if typ is UInt64 else int64(number)
        raise ValueError(f"not a {typ.__name__}")
    raise NotImplementedError(typ)


ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)


def encode(message: Message) -> bytes:
    """The proto3 JSON of a compiled message, as ``json_format.MessageToJson`` would write it."""
    return ENCODER.encode(message)


class Wire:
    """A namespace shaped like a ``_pb2`` module (message classes and enum constants by name) over
    the messages of some protobuf files, with a JSON decoder per message."""

    def __init__(self, files: Iterable[Any]) -> None:
        self._compiler = Compiler()
        self._decoders: dict[type[Message], msgspec.json.Decoder[Any]] = {}
        self.unsupported: list[str] = []
        self.int64, self.uint64 = int64, uint64  # the values of 64-bit fields, as RulesApi builds them
        for file in files:
            for desc in file.message_types_by_name.values():
                try:
                    setattr(self, desc.name, self._compiler.message(desc))
                except Unsupported:
                    self.unsupported.append(desc.full_name)
            for enum_desc in file.enum_types_by_name.values():
                enum = self._compiler.enum(enum_desc)
                setattr(self, enum_desc.name, enum)
                for value in enum_desc.values:
                    setattr(self, value.name, enum.of(value.number))

    def __getattr__(self, name: str) -> Any:  # for mypy: names are set at run time
        raise AttributeError(f"no message or enum named {name!r} in this wire namespace")

    def decoder(self, cls: type[Message]) -> msgspec.json.Decoder[Any]:
        found = self._decoders.get(cls)
        if found is None:
            found = msgspec.json.Decoder(cls, dec_hook=_dec_hook)
            self._decoders[cls] = found
        return found

    def decode(self, cls: type[Message], body: bytes) -> Any:
        """The message ``body`` holds in canonical proto3 JSON; raises ``msgspec.MsgspecError`` or
        ``ValueError`` for anything else (the caller then takes the general path)."""
        return self.decoder(cls).decode(body)


@functools.cache
def default_wire() -> Wire:
    """The namespace over every file of the contract (shared messages, RulesService, SessionService
    and each game), compiled once per process: messages and enum values of two namespaces do not mix
    (an enum value equals the same value of its own type only, and any plain int of its number)."""
    from lawspeaker.v1 import (
        birka_pb2,
        game_pb2,
        pax_penning_pb2,
        pax_viking_junior_pb2,
        penki_pb2,
        rules_service_pb2,
        session_service_pb2,
        valhalla_pb2,
    )

    files = (
        game_pb2,
        valhalla_pb2,
        penki_pb2,
        pax_penning_pb2,
        pax_viking_junior_pb2,
        birka_pb2,
        rules_service_pb2,
        session_service_pb2,
    )
    return Wire(m.DESCRIPTOR for m in files)
