"""The game registry: every game the service plays, with its codec. The only place games are listed."""

from __future__ import annotations

from typing import Any

from lawspeaker.codec import Entry
from lawspeaker.codec.birka import CODEC as BIRKA_CODEC
from lawspeaker.codec.pax_penning import CODEC as PAX_PENNING_CODEC
from lawspeaker.codec.pax_viking_junior import CODEC as PAX_VIKING_JUNIOR_CODEC
from lawspeaker.codec.penki import CODEC as PENKI_CODEC
from lawspeaker.codec.valhalla import CODEC as VALHALLA_CODEC
from lawspeaker.games.birka import GAME as BIRKA
from lawspeaker.games.pax_penning import GAME as PAX_PENNING
from lawspeaker.games.pax_viking_junior import GAME as PAX_VIKING_JUNIOR
from lawspeaker.games.penki import GAME as PENKI
from lawspeaker.games.valhalla import GAME as VALHALLA

REGISTRY: dict[str, Entry[Any, Any, Any]] = {
    VALHALLA.id: Entry(VALHALLA, VALHALLA_CODEC),
    PAX_PENNING.id: Entry(PAX_PENNING, PAX_PENNING_CODEC),
    PENKI.id: Entry(PENKI, PENKI_CODEC),
    PAX_VIKING_JUNIOR.id: Entry(PAX_VIKING_JUNIOR, PAX_VIKING_JUNIOR_CODEC),
    BIRKA.id: Entry(BIRKA, BIRKA_CODEC),
}
