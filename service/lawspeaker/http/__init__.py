"""The HTTP edge: RulesService and SessionService over REST (as their ``google.api.http``
annotations say) and over the Connect protocol and gRPC-Web, on one Litestar app. A transport: it calls
``lawspeaker.api`` and ``lawspeaker.sessions`` and maps their errors once (``lawspeaker.api.errors``);
it never imports ``lawspeaker.grpc``, the other transport, nor ``lawspeaker.server``, which starts it.

Imports inside go one way, from the contract to the app:

- ``media``: media types and request headers;
- ``grpcweb_frames``: gRPC-Web's media types, frames and trailers;
- ``routes``: each RPC and its HTTP binding, read from the descriptors;
- ``semantics``: ``Allow`` and ``If-Match``, as a generic HTTP client expects them;
- ``limits``: what a connection whose client stops reading may make the server hold;
- ``problems``: RFC 9457 problem documents and the exception handlers;
- ``guard``: the access policy (API keys, the caller) as an ASGI middleware;
- ``compression``: gzip and br responses (an ASGI middleware) and Connect's compressed messages;
- ``bodies``: decoding requests and encoding answers (proto3 JSON or binary protobuf);
- ``rules_routes`` and ``session_routes``: the REST routes of the two services (SSE for the watch);
- ``connect``: the Connect protocol for both services;
- ``grpcweb``: gRPC-Web for both services, on the Connect routes and their dispatch;
- ``openapi``: the OpenAPI 3.1 document;
- ``docs``: the interactive reference (Swagger UI, ReDoc) on that document, its assets vendored;
- ``pages``: the pages an answer links (``/rules/{game}``, ``/problems/{slug}``) and the middleware
  giving each request's links its base;
- ``app``: ``create_app``, which puts them together with ``/healthz`` and ``/schema``.
"""
