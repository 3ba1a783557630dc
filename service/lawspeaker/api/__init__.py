"""The stateless API every transport serves, over protobuf (or ``wire`` messages), and what its
answers are made of: ``rules`` (RulesService's RPCs, :class:`~lawspeaker.api.rules.RulesApi`),
``errors`` (the one mapping of an error to gRPC, HTTP and Connect codes), ``catalogue`` (every
reason the service can give) and ``errors_doc`` (``docs/errors.md`` rendered from it), ``links``
(a rule's and a problem type's URL on the service, from the call's base), ``access``
(API keys and who is calling) and ``botpool`` (where the bots think, in worker processes). It may
import ``wire``, ``bots``, ``observe`` and ``games``; never ``sessions``, a transport or ``server``.
"""
