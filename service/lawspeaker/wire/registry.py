"""The game registry: every game the service plays (``lawspeaker.games.registry``), with its codec."""

from __future__ import annotations

from typing import Any

from lawspeaker.games.registry import GAMES
from lawspeaker.wire.codec import Entry, GameCodec
from lawspeaker.wire.codec.birka import CODEC as BIRKA_CODEC
from lawspeaker.wire.codec.pax_penning import CODEC as PAX_PENNING_CODEC
from lawspeaker.wire.codec.pax_viking_junior import CODEC as PAX_VIKING_JUNIOR_CODEC
from lawspeaker.wire.codec.penki import CODEC as PENKI_CODEC
from lawspeaker.wire.codec.valhalla import CODEC as VALHALLA_CODEC

CODECS: dict[str, GameCodec[Any, Any, Any]] = {
    "valhalla": VALHALLA_CODEC,
    "pax_penning": PAX_PENNING_CODEC,
    "penki": PENKI_CODEC,
    "pax_viking_junior": PAX_VIKING_JUNIOR_CODEC,
    "birka": BIRKA_CODEC,
}

REGISTRY: dict[str, Entry[Any, Any, Any]] = {
    game_id: Entry(game, CODECS[game_id]) for game_id, game in GAMES.items()
}
