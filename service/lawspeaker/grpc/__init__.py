"""The gRPC transport: ``server`` (RulesService and SessionService on a ``grpc.aio`` server, with
health checking and reflection) and ``guard`` (the access policy as a server interceptor). It calls
``lawspeaker.api`` and ``lawspeaker.sessions`` and maps their errors once, through
``lawspeaker.api.errors``; it never imports ``lawspeaker.http``, the other transport, nor
``lawspeaker.server``, which starts it.
"""
