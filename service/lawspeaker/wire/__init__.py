"""The edge between the engines and the contract (``lawspeaker.v1``, generated from ``proto/``):
``codec`` (one per game: protobuf messages to engine values and back), ``registry`` (every game with
its codec), ``protojson`` and ``structs`` (the proto3 JSON mapping, fast, and over msgspec Structs),
``inbound`` (what cannot be a request, refused in words), ``fieldpaths`` (paths in the names the
client wrote) and ``proto_comments`` (the contract's comments, for documentation). It may import
``lawspeaker.games`` and ``lawspeaker.v1``; never the API, sessions, bots or a transport.
"""
