"""The comments of the .proto files, by element full name, for documentation (OpenAPI).

``lawspeaker gen-proto`` writes ``v1/lawspeaker.binpb``, a FileDescriptorSet with source info; the
generated ``_pb2`` modules drop comments, this keeps them.
"""

from __future__ import annotations

import functools
from importlib import resources

from google.protobuf import descriptor_pb2

# Field numbers in descriptor.proto used by SourceCodeInfo.Location.path.
_FILE_MESSAGES, _FILE_ENUMS, _FILE_SERVICES = 4, 5, 6
_MSG_FIELDS, _MSG_NESTED, _MSG_ENUMS = 2, 3, 4
_ENUM_VALUES = 2
_SERVICE_METHODS = 2


@functools.cache
def comments() -> dict[str, str]:
    """Leading comments keyed by full name (``lawspeaker.v1.Move``, ``lawspeaker.v1.Move.valhalla``)."""
    raw = resources.files("lawspeaker.v1").joinpath("lawspeaker.binpb").read_bytes()
    fds = descriptor_pb2.FileDescriptorSet.FromString(raw)
    out: dict[str, str] = {}
    for f in fds.file:
        names: dict[tuple[int, ...], str] = {}
        pkg = f.package

        def message(
            prefix: tuple[int, ...],
            m: descriptor_pb2.DescriptorProto,
            scope: str,
            names: dict[tuple[int, ...], str] = names,
        ) -> None:
            full = f"{scope}.{m.name}"
            names[prefix] = full
            for i, fld in enumerate(m.field):
                names[(*prefix, _MSG_FIELDS, i)] = f"{full}.{fld.name}"
            for i, nested in enumerate(m.nested_type):
                message((*prefix, _MSG_NESTED, i), nested, full, names)
            for i, e in enumerate(m.enum_type):
                enum((*prefix, _MSG_ENUMS, i), e, full, names)

        def enum(
            prefix: tuple[int, ...],
            e: descriptor_pb2.EnumDescriptorProto,
            scope: str,
            names: dict[tuple[int, ...], str] = names,
        ) -> None:
            full = f"{scope}.{e.name}"
            names[prefix] = full
            for i, v in enumerate(e.value):
                names[(*prefix, _ENUM_VALUES, i)] = f"{full}.{v.name}"

        for i, m in enumerate(f.message_type):
            message((_FILE_MESSAGES, i), m, pkg)
        for i, e in enumerate(f.enum_type):
            enum((_FILE_ENUMS, i), e, pkg)
        for i, s in enumerate(f.service):
            names[(_FILE_SERVICES, i)] = f"{pkg}.{s.name}"
            for j, method in enumerate(s.method):
                names[(_FILE_SERVICES, i, _SERVICE_METHODS, j)] = f"{pkg}.{s.name}.{method.name}"
        for loc in f.source_code_info.location:
            name = names.get(tuple(loc.path))
            text = " ".join(line.strip() for line in loc.leading_comments.strip().splitlines())
            if name and text:
                out[name] = text
    return out
