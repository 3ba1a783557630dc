"""What the ``greedy`` computer opponent values in each game: a pure function per game giving a
seat's prospects in a state, between 0 (lost) and 1 (won), read only from what that seat can see
(``game.view(state, seat)``). Each game's ``docs/rules/<game>.md`` says what it counts and why
("Greedy bot: what it values").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lawspeaker.bots.heuristics import birka, pax_penning, pax_viking_junior, penki, valhalla

VALUE: dict[str, Callable[[Any, int], float]] = {
    "valhalla": valhalla.value,
    "penki": penki.value,
    "pax_penning": pax_penning.value,
    "pax_viking_junior": pax_viking_junior.value,
    "birka": birka.value,
}
"""The value function of each game id: ``VALUE[game](state, seat)``, the state as ``seat`` sees it."""

VALUES: dict[str, Callable[[Sequence[Any]], list[float]]] = {
    "pax_penning": pax_penning.values,
}
"""Games that judge every seat at once: ``VALUES[game](views)``, ``views[s]`` the state as seat ``s``
sees it, gives ``[VALUE[game](views[s], s) for every s]`` (the same numbers), computing once what
every view shows alike. A search judges every seat at the end of each playout."""
