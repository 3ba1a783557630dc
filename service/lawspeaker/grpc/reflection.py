"""gRPC server reflection, both versions: ``grpc.reflection.v1.ServerReflection`` (what ``grpcurl``,
``buf curl --reflect-protocol grpc-v1`` and Postman ask first) and ``grpc.reflection.v1alpha``.

grpcio-reflection (through 1.85) ships only v1alpha. The v1 protocol is the same ``reflection.proto``
in another package: the same messages with the same field numbers, so the same bytes on the wire.
The v1 service is therefore grpcio-reflection's own v1alpha servicer, registered under the v1 name;
its request and response bytes are read and written by the v1alpha classes, which parse and write
v1's exactly. The v1 file descriptor (``grpc/reflection/v1/reflection.proto``) is derived from the
v1alpha one by renaming its package, and added to the default descriptor pool, so that reflection
lists ``grpc.reflection.v1.ServerReflection`` and can describe it like any other service.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

V1_FILE = "grpc/reflection/v1/reflection.proto"
V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"
V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
SERVICE_NAMES = (V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)


def v1_file_descriptor() -> FileDescriptor:
    """``grpc/reflection/v1/reflection.proto`` in the default pool (added on the first call): the
    v1alpha file with its package, type references and options renamed as upstream's v1 file has
    them."""
    pool = descriptor_pool.Default()
    try:
        found: FileDescriptor = pool.FindFileByName(V1_FILE)
        return found
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    old = f".{reflection_pb2.DESCRIPTOR.package}."
    new = f".{V1_PACKAGE}."

    def renamed(type_name: str) -> str:
        return new + type_name[len(old) :] if type_name.startswith(old) else type_name

    proto.name = V1_FILE
    proto.package = V1_PACKAGE
    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = renamed(field.type_name)
    for service in proto.service:
        for method in service.method:
            method.input_type = renamed(method.input_type)
            method.output_type = renamed(method.output_type)
    proto.options.Clear()
    proto.options.go_package = "google.golang.org/grpc/reflection/grpc_reflection_v1"
    proto.options.java_multiple_files = True
    proto.options.java_package = "io.grpc.reflection.v1"
    proto.options.java_outer_classname = "ServerReflectionProto"
    pool.AddSerializedFile(proto.SerializeToString())
    added: FileDescriptor = pool.FindFileByName(V1_FILE)
    return added


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection v1 and v1alpha on ``server``, listing ``service_names`` and both reflection
    services (as grpcio-reflection's ``enable_server_reflection`` does for v1alpha alone)."""
    v1_file_descriptor()
    names = (*service_names, *SERVICE_NAMES)
    servicer = ReflectionServicer(names)
    request = reflection_pb2.ServerReflectionRequest
    response = reflection_pb2.ServerReflectionResponse
    for name in SERVICE_NAMES:
        handler = grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=request.FromString,
            response_serializer=response.SerializeToString,
        )
        handlers = {"ServerReflectionInfo": handler}
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
        cast(Any, server).add_registered_method_handlers(name, handlers)
