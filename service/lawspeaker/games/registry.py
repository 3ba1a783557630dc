"""Every game the service plays, by id: the only place the engines are listed (the codecs are
paired with them in ``lawspeaker.wire.registry``)."""

from __future__ import annotations

from typing import Any

from lawspeaker.games.birka import GAME as BIRKA
from lawspeaker.games.core import Game
from lawspeaker.games.pax_penning import GAME as PAX_PENNING
from lawspeaker.games.pax_viking_junior import GAME as PAX_VIKING_JUNIOR
from lawspeaker.games.penki import GAME as PENKI
from lawspeaker.games.valhalla import GAME as VALHALLA

GAMES: dict[str, Game[Any, Any, Any]] = {
    g.id: g for g in (VALHALLA, PAX_PENNING, PENKI, PAX_VIKING_JUNIOR, BIRKA)
}
