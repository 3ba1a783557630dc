"""Computer opponents: ``core`` (the ``random``, ``greedy`` and ``search`` levels behind
:func:`suggest`), ``heuristics`` (what ``greedy`` and the search's playouts value in each game) and
``worker`` (what runs in a bot worker process). Bots see a game only through its engine and the
seat's view: they import ``lawspeaker.games`` and nothing else of the service (no codecs, metrics,
sessions or transports); where they run, off the event loop, is ``lawspeaker.api.botpool``'s
concern. The interface is re-exported here.
"""

from lawspeaker.bots.core import (
    DEFAULT_PLAYOUTS,
    MAX_MILLIS,
    MAX_PLAYOUTS,
    Level,
    Suggestion,
    check,
    player_count,
    sample_chance,
    suggest,
)

__all__ = [
    "DEFAULT_PLAYOUTS",
    "MAX_MILLIS",
    "MAX_PLAYOUTS",
    "Level",
    "Suggestion",
    "check",
    "player_count",
    "sample_chance",
    "suggest",
]
