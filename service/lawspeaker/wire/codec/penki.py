"""The Penki codec: engine values <-> ``lawspeaker.v1.penki`` messages."""

from __future__ import annotations

from typing import Any

from lawspeaker.games import penki as p
from lawspeaker.games.core import FieldViolation, InvalidState, Rng
from lawspeaker.v1 import penki_pb2
from lawspeaker.wire.codec import SAME_PATHS, by_name, enum_value, inverse, malformed


class PenkiCodec:
    """Maps Penki engine values to and from the messages of ``pb``: the generated protobuf module,
    or any namespace with the same message classes and enum constants."""

    field = "penki"
    state_paths = SAME_PATHS  # the engine's State and the state message spell their fields alike

    def __init__(self, pb: Any = penki_pb2) -> None:
        self.pb = pb
        self.setup = by_name(p.Setup, pb, "PENKI_SETUP_")
        self.tiles = by_name(p.Tiles, pb, "PENKI_TILES_")
        self.alignment = by_name(p.Alignment, pb, "PENKI_ALIGNMENT_")
        self.stuck = by_name(p.Stuck, pb, "PENKI_STUCK_")
        self.phase = by_name(p.Phase, pb, "PENKI_PHASE_")
        self.piece = {
            p.LIGHT: pb.PENKI_PIECE_LIGHT,
            p.DARK: pb.PENKI_PIECE_DARK,
            p.JOKER: pb.PENKI_PIECE_JOKER,
        }
        self.setup_in, self.tiles_in = inverse(self.setup), inverse(self.tiles)
        self.alignment_in, self.phase_in = inverse(self.alignment), inverse(self.phase)
        self.piece_in, self.stuck_in = inverse(self.piece), inverse(self.stuck)
        # A tile's cavity: a piece, or EMPTY as the unset (UNSPECIFIED) enum value.
        self.tile_piece = {**self.piece, p.EMPTY: pb.PENKI_PIECE_UNSPECIFIED}
        self.piece_unspecified = pb.PENKI_PIECE_UNSPECIFIED
        # engine ``upright`` <-> orientation; UNSPECIFIED reads as horizontal
        self.orientation = {False: pb.PENKI_ORIENTATION_HORIZONTAL, True: pb.PENKI_ORIENTATION_UPRIGHT}
        self.orientation_unspecified = pb.PENKI_ORIENTATION_UNSPECIFIED
        self.upright_in = {**inverse(self.orientation), pb.PENKI_ORIENTATION_UNSPECIFIED: False}

    # -- helpers
    def _piece(self, value: int, field: str) -> int:
        found = self.piece_in.get(value)
        if found is None:
            raise malformed(field, f"must be LIGHT, DARK or JOKER (got {int(value)})", "INVALID_ENUM")
        return int(found)

    def _tile_piece(self, value: int, field: str) -> int:
        return p.EMPTY if value == self.piece_unspecified else self._piece(value, field)

    def _upright(self, value: int, field: str) -> bool:
        found = self.upright_in.get(value)
        if found is None:
            raise malformed(field, f"has no valid value (got {int(value)})", "INVALID_ENUM")
        return bool(found)

    def pair_to_proto(self, pair: tuple[int, int]) -> Any:
        piece = self.piece
        return self.pb.PenkiPair(first=piece[pair[0]], second=piece[pair[1]])

    def hand_to_proto(self, hand: tuple[int, ...]) -> Any:
        piece, pair = self.piece, self.pb.PenkiPair
        return self.pb.PenkiHand(pairs=[pair(first=piece[a], second=piece[b]) for a, b in p.hand_pairs(hand)])

    def tile_to_proto(self, t: p.Tile) -> Any:
        # An EMPTY cavity maps to the enum's zero value, which proto3 does not send: as if unset.
        return self.pb.PenkiTile(
            x=t.x,
            y=t.y,
            orientation=self.orientation[t.upright],
            first=self.tile_piece[t.first],
            second=self.tile_piece[t.second],
        )

    # -- options
    def options_to_proto(self, options: p.Options) -> Any:
        return self.pb.PenkiOptions(
            setup=self.setup[options.setup],
            tiles=self.tiles[options.tiles],
            alignment=self.alignment[options.alignment],
            stuck=self.stuck[options.stuck],
        )

    def options_from_proto(self, msg: Any | None) -> p.Options:
        d = p.Options()
        if msg is None:
            return d
        return p.Options(
            setup=enum_value(msg.setup, self.setup_in, "setup", d.setup),
            tiles=enum_value(msg.tiles, self.tiles_in, "tiles", d.tiles),
            alignment=enum_value(msg.alignment, self.alignment_in, "alignment", d.alignment),
            stuck=enum_value(msg.stuck, self.stuck_in, "stuck", d.stuck),
        )

    # -- state
    def rng_of(self, state: p.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: p.State) -> Any:
        pb = self.pb
        hand = self.hand_to_proto
        tile = self.tile_to_proto
        return pb.PenkiState(
            options=self.options_to_proto(state.options),
            phase=self.phase[state.phase],
            turn=state.turn,
            bag=pb.PenkiBag(light=state.bag[0], dark=state.bag[1], joker=state.bag[2]),
            hands=[hand(h) for h in state.hands],
            tiles=[tile(t) for t in state.tiles],
            winner=state.winner,
            ply=state.ply,
        )

    def state_from_proto(self, msg: Any, rng: Rng) -> p.State:
        options = self.options_from_proto(msg.options)
        phase = enum_value(msg.phase, self.phase_in, "phase")
        if len(msg.hands) != 2:
            raise InvalidState(
                [FieldViolation("hands", f"must list exactly two hands, not {len(msg.hands)}")]
            )
        piece_in, kind_of, kinds = self.piece_in, p.KIND_OF, len(p.PAIR_KINDS)
        hands: list[tuple[int, ...]] = []
        for seat, hand in enumerate(msg.hands):
            counts = [0] * kinds
            for n, pair in enumerate(hand.pairs):
                a, b = piece_in.get(pair.first), piece_in.get(pair.second)
                if a is None or b is None:  # name the bad field (the first one when both are)
                    f = f"hands[{seat}].pairs[{n}]"
                    a, b = self._piece(pair.first, f + ".first"), self._piece(pair.second, f + ".second")
                counts[kind_of[(a, b)]] += 1
            hands.append(tuple(counts))
        tiles = []
        for n, t in enumerate(msg.tiles):
            f = f"tiles[{n}]"
            if t.orientation == self.orientation_unspecified:
                raise malformed(f + ".orientation", "is required: HORIZONTAL or UPRIGHT", "INVALID_ENUM")
            tiles.append(
                p.Tile(
                    t.x,
                    t.y,
                    self._upright(t.orientation, f + ".orientation"),
                    self._tile_piece(t.first, f + ".first"),
                    self._tile_piece(t.second, f + ".second"),
                )
            )
        bag = msg.bag
        return p.make_state(
            options,
            phase,
            msg.turn,
            (bag.light, bag.dark, bag.joker),
            (hands[0], hands[1]),
            tuple(tiles),
            msg.winner,
            msg.ply,
            rng,
        )

    # -- moves
    def move_to_proto(self, move: p.Move) -> Any:
        pb = self.pb
        if isinstance(move, p.Draw):
            if move.pair is None:
                return pb.PenkiMove(draw=pb.PenkiDraw())
            return pb.PenkiMove(draw=pb.PenkiDraw(pair=self.pair_to_proto(move.pair)))
        if isinstance(move, p.ConnectTile):
            return pb.PenkiMove(
                connect_tile=pb.PenkiConnectTile(
                    x=move.x, y=move.y, orientation=self.orientation[move.upright]
                )
            )
        if isinstance(move, p.PlacePair):
            piece = self.piece
            return pb.PenkiMove(
                place_pair=pb.PenkiPlacePair(
                    x=move.x, y=move.y, first=piece[move.first], second=piece[move.second]
                )
            )
        return pb.PenkiMove(**{"pass": pb.PenkiPass()})

    def move_from_proto(self, msg: Any) -> p.Move:
        which = msg.WhichOneof("action")
        if which == "draw":
            draw = msg.draw
            if not draw.HasField("pair"):
                return p.Draw()
            pair = draw.pair
            return p.Draw(
                (self._piece(pair.first, "draw.pair.first"), self._piece(pair.second, "draw.pair.second"))
            )
        if which == "connect_tile":
            m = msg.connect_tile
            return p.ConnectTile(m.x, m.y, self._upright(m.orientation, "connect_tile.orientation"))
        if which == "place_pair":
            m = msg.place_pair
            return p.PlacePair(
                m.x, m.y, self._piece(m.first, "place_pair.first"), self._piece(m.second, "place_pair.second")
            )
        if which == "pass":
            return p.Pass()
        raise malformed("", "is required: one of draw, connect_tile, place_pair or pass", "MOVE_REQUIRED")

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Any:
        if not isinstance(detail, p.EventDetail):
            return None
        pb = self.pb
        cavity, hand = pb.PenkiCavity, self.hand_to_proto
        kwargs: dict[str, Any] = {
            "row": [cavity(x=x, y=y) for x, y in detail.row],
            "hands": [hand(h) for h in detail.hands],
        }
        if detail.pair is not None:
            kwargs["pair"] = self.pair_to_proto(detail.pair)
        if detail.tile is not None:
            kwargs["tile"] = self.tile_to_proto(detail.tile)
        return pb.PenkiEvent(**kwargs)


CODEC = PenkiCodec()
