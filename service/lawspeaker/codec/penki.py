"""The Penki codec: engine values <-> ``lawspeaker.v1.penki`` messages."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from lawspeaker.codec import enum_value, inverse, malformed
from lawspeaker.games import penki as p
from lawspeaker.games.core import FieldViolation, InvalidState, Rng
from lawspeaker.v1 import penki_pb2 as pb

SETUP = {p.Setup.PAIR_BY_PAIR: pb.PENKI_SETUP_PAIR_BY_PAIR, p.Setup.RANDOM_PAIRS: pb.PENKI_SETUP_RANDOM_PAIRS}
TILES = {
    p.Tiles.HORIZONTAL_ONLY: pb.PENKI_TILES_HORIZONTAL_ONLY,
    p.Tiles.UPRIGHT_ALLOWED: pb.PENKI_TILES_UPRIGHT_ALLOWED,
}
ALIGNMENT = {p.Alignment.CAVITIES: pb.PENKI_ALIGNMENT_CAVITIES, p.Alignment.TILES: pb.PENKI_ALIGNMENT_TILES}
PHASE = {
    p.Phase.DRAW: pb.PENKI_PHASE_DRAW,
    p.Phase.PLAY: pb.PENKI_PHASE_PLAY,
    p.Phase.CONNECT: pb.PENKI_PHASE_CONNECT,
    p.Phase.OVER: pb.PENKI_PHASE_OVER,
}
PIECE = {p.LIGHT: pb.PENKI_PIECE_LIGHT, p.DARK: pb.PENKI_PIECE_DARK, p.JOKER: pb.PENKI_PIECE_JOKER}


SETUP_IN, TILES_IN, ALIGNMENT_IN = inverse(SETUP), inverse(TILES), inverse(ALIGNMENT)
PHASE_IN, PIECE_IN = inverse(PHASE), inverse(PIECE)


def _piece(value: int, field: str) -> int:
    found = PIECE_IN.get(value)
    if found is None:
        raise malformed(field, f"must be LIGHT, DARK or JOKER (got {value})", "INVALID_ENUM")
    return int(found)


def _tile_piece(value: int, field: str) -> int:
    return p.EMPTY if value == pb.PENKI_PIECE_UNSPECIFIED else _piece(value, field)


def pair_to_proto(pair: tuple[int, int]) -> pb.PenkiPair:
    return pb.PenkiPair(first=PIECE[pair[0]], second=PIECE[pair[1]])


def hand_to_proto(hand: tuple[int, ...]) -> pb.PenkiHand:
    return pb.PenkiHand(pairs=[pair_to_proto(pair) for pair in p.hand_pairs(hand)])


def tile_to_proto(t: p.Tile) -> pb.PenkiTile:
    out = pb.PenkiTile(
        x=t.x,
        y=t.y,
        orientation=pb.PENKI_ORIENTATION_UPRIGHT if t.upright else pb.PENKI_ORIENTATION_HORIZONTAL,
    )
    if t.first != p.EMPTY:
        out.first = PIECE[t.first]
    if t.second != p.EMPTY:
        out.second = PIECE[t.second]
    return out


def _upright(value: int, field: str) -> bool:
    if value in (pb.PENKI_ORIENTATION_UNSPECIFIED, pb.PENKI_ORIENTATION_HORIZONTAL):
        return False
    if value == pb.PENKI_ORIENTATION_UPRIGHT:
        return True
    raise malformed(field, f"has no valid value (got {value})", "INVALID_ENUM")


class PenkiCodec:
    """Maps Penki engine values to and from protobuf."""

    field = "penki"

    # -- options
    def options_to_proto(self, options: p.Options) -> pb.PenkiOptions:
        return pb.PenkiOptions(
            setup=SETUP[options.setup], tiles=TILES[options.tiles], alignment=ALIGNMENT[options.alignment]
        )

    def options_from_proto(self, msg: Any | None) -> p.Options:
        d = p.Options()
        if msg is None:
            return d
        return p.Options(
            setup=enum_value(msg.setup, SETUP_IN, "setup", d.setup),
            tiles=enum_value(msg.tiles, TILES_IN, "tiles", d.tiles),
            alignment=enum_value(msg.alignment, ALIGNMENT_IN, "alignment", d.alignment),
        )

    # -- state
    def rng_of(self, state: p.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: p.State) -> Message:
        return pb.PenkiState(
            options=self.options_to_proto(state.options),
            phase=PHASE[state.phase],
            turn=state.turn,
            bag=pb.PenkiBag(light=state.bag[0], dark=state.bag[1], joker=state.bag[2]),
            hands=[hand_to_proto(h) for h in state.hands],
            tiles=[tile_to_proto(t) for t in state.tiles],
            winner=state.winner,
            ply=state.ply,
        )

    def state_from_proto(self, msg: Any, rng: Rng) -> p.State:
        options = self.options_from_proto(msg.options)
        phase = enum_value(msg.phase, PHASE_IN, "phase")
        if len(msg.hands) != 2:
            raise InvalidState(
                [FieldViolation("hands", f"must list exactly two hands, not {len(msg.hands)}")]
            )
        hands: list[tuple[int, ...]] = []
        for seat, hand in enumerate(msg.hands):
            counts = [0] * len(p.PAIR_KINDS)
            for n, pair in enumerate(hand.pairs):
                f = f"hands[{seat}].pairs[{n}]"
                a, b = _piece(pair.first, f + ".first"), _piece(pair.second, f + ".second")
                counts[p.KIND_OF[(a, b)]] += 1
            hands.append(tuple(counts))
        tiles = []
        for n, t in enumerate(msg.tiles):
            f = f"tiles[{n}]"
            if t.orientation == pb.PENKI_ORIENTATION_UNSPECIFIED:
                raise malformed(f + ".orientation", "is required: HORIZONTAL or UPRIGHT", "INVALID_ENUM")
            tiles.append(
                p.Tile(
                    t.x,
                    t.y,
                    _upright(t.orientation, f + ".orientation"),
                    _tile_piece(t.first, f + ".first"),
                    _tile_piece(t.second, f + ".second"),
                )
            )
        return p.make_state(
            options,
            phase,
            msg.turn,
            (msg.bag.light, msg.bag.dark, msg.bag.joker),
            (hands[0], hands[1]),
            tuple(tiles),
            msg.winner,
            msg.ply,
            rng,
        )

    # -- moves
    def move_to_proto(self, move: p.Move) -> Message:
        if isinstance(move, p.Draw):
            draw = pb.PenkiDraw()
            if move.pair is not None:
                draw.pair.CopyFrom(pair_to_proto(move.pair))
            return pb.PenkiMove(draw=draw)
        if isinstance(move, p.ConnectTile):
            orientation = pb.PENKI_ORIENTATION_UPRIGHT if move.upright else pb.PENKI_ORIENTATION_HORIZONTAL
            return pb.PenkiMove(connect_tile=pb.PenkiConnectTile(x=move.x, y=move.y, orientation=orientation))
        if isinstance(move, p.PlacePair):
            return pb.PenkiMove(
                place_pair=pb.PenkiPlacePair(
                    x=move.x, y=move.y, first=PIECE[move.first], second=PIECE[move.second]
                )
            )
        out = pb.PenkiMove()
        getattr(out, "pass").SetInParent()
        return out

    def move_from_proto(self, msg: Any) -> p.Move:
        which = msg.WhichOneof("action")
        if which == "draw":
            if not msg.draw.HasField("pair"):
                return p.Draw()
            pair = msg.draw.pair
            return p.Draw((_piece(pair.first, "draw.pair.first"), _piece(pair.second, "draw.pair.second")))
        if which == "connect_tile":
            m = msg.connect_tile
            return p.ConnectTile(m.x, m.y, _upright(m.orientation, "connect_tile.orientation"))
        if which == "place_pair":
            m = msg.place_pair
            return p.PlacePair(
                m.x, m.y, _piece(m.first, "place_pair.first"), _piece(m.second, "place_pair.second")
            )
        if which == "pass":
            return p.Pass()
        raise malformed(
            "action", "is required: one of draw, connect_tile, place_pair or pass", "MOVE_REQUIRED"
        )

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Message | None:
        if not isinstance(detail, p.EventDetail):
            return None
        out = pb.PenkiEvent(
            row=[pb.PenkiCavity(x=x, y=y) for x, y in detail.row],
            hands=[hand_to_proto(h) for h in detail.hands],
        )
        if detail.pair is not None:
            out.pair.CopyFrom(pair_to_proto(detail.pair))
        if detail.tile is not None:
            out.tile.CopyFrom(tile_to_proto(detail.tile))
        return out


CODEC = PenkiCodec()
