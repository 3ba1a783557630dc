"""The HTTP edge: RulesService and SessionService over REST (as their ``google.api.http``
annotations say) and over the Connect protocol, on one Litestar app.

Imports go one way, from the contract to the app:

- ``media``: media types and request headers;
- ``routes``: each RPC and its HTTP binding, read from the descriptors;
- ``problems``: RFC 9457 problem documents and the exception handlers;
- ``bodies``: decoding requests and encoding answers (proto3 JSON or binary protobuf);
- ``rules_routes`` and ``session_routes``: the REST routes of the two services (SSE for the watch);
- ``connect``: the Connect protocol for both services;
- ``openapi``: the OpenAPI 3.1 document;
- ``docs``: the interactive reference (Swagger UI, ReDoc) on that document, its assets vendored;
- ``app``: ``create_app``, which puts them together with ``/healthz`` and ``/schema``.
"""
