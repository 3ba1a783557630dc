"""The rules engines: pure game modules over frozen states (``core`` and one package per game).

The bottom layer: no I/O, no protobuf, no transport, store or bot; nothing here imports anything of
the service outside ``lawspeaker.games``. ``games.registry`` lists every game by id.
"""
