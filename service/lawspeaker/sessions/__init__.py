"""Server-held game sessions: the state and its RNG stay on the server, players act by seat token.

``store`` keeps sessions (in process, or in Redis shared by every replica); ``service`` is the
transport-agnostic SessionService over protobuf messages, built on the same engine as the stateless
:class:`~lawspeaker.api.rules.RulesApi`. ``webhooks`` derives a version's events (pure) and
``delivery`` sends them, signed, from whichever replica is alive.
"""
