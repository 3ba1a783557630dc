"""Lawspeaker: the rules of five Viking-era board games as a service.

The packages are layers; each may import the ones below it and none above (import-linter holds
them to it: the contracts are in ``pyproject.toml``, the map in ``docs/architecture.md``):

- ``server``: the ``lawspeaker`` command and the running process (workers, ports, TLS, logs, traces);
- ``grpc`` and ``http``: the transports, side by side, neither importing the other;
- ``sessions``: games kept on the server, in process or in Redis;
- ``api``: the stateless rules API, the error mapping and reason catalogue, access, the bot pool;
- ``bots``, ``observe`` and ``wire``: computer opponents; the call record and metrics; the codecs
  and the JSON and protobuf edge of the contract (``v1``, generated from ``proto/``);
- ``games``: the rules engines, pure, importing nothing else of the service.
"""
