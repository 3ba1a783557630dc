"""The Pax Viking Junior codec: engine values <-> ``lawspeaker.v1.pax_viking_junior`` messages."""

from __future__ import annotations

from typing import Any

from lawspeaker.games import pax_viking_junior as pvj
from lawspeaker.games.core import Rng
from lawspeaker.games.pax_viking_junior.components import ComponentsError, components_for
from lawspeaker.v1 import pax_viking_junior_pb2
from lawspeaker.wire.codec import StatePaths, by_name, enum_value, inverse, malformed, nested, per_seat


class PaxVikingJuniorCodec:
    """Maps Pax Viking Junior engine values to and from the messages of ``pb``: the generated
    protobuf module, or any namespace with the same message classes and enum constants."""

    field = "pax_viking_junior"
    state_paths = StatePaths(
        (r"^players\[(\d+)\]", r"seats[\1]"),  # a seat (players alone is the number of players)
        # the engine keeps each seat's values in tuples by seat; the state message, in seats[]
        *per_seat(
            {
                "boards": "board",
                "ships": "ship",
                "silfr": "silfr",
                "scrolls": "scrolls",
                "kittens_left": "kittens_left",
                "big_cats_left": "big_cats_left",
            }
        ),
        # and each region's in tuples by region; the state message, in regions[]
        *per_seat(
            {"tiles": "tiles", "kittens": "kittens", "big_cats": "big_cat", "friends": "friend_seat"},
            into="regions",
        ),
        (r"^regions\[(\d+)\]\.friend$", r"regions[\1].friend_seat"),
    )

    def __init__(self, pb: Any = pax_viking_junior_pb2) -> None:
        self.pb = pb
        self.phase = by_name(pvj.Phase, pb, "PAX_VIKING_JUNIOR_PHASE_")
        self.phase_in = inverse(self.phase)
        self.cards = by_name(pvj.VictoryCards, pb, "PAX_VIKING_JUNIOR_VICTORY_CARDS_")
        self.cards_in = inverse(self.cards)
        self.tie = by_name(pvj.KittenTie, pb, "PAX_VIKING_JUNIOR_KITTEN_TIE_")
        self.tie_in = inverse(self.tie)
        # The engine's payment numbers are the enum's: 0 (no Buff) is UNSPECIFIED.
        self.buff = {
            pvj.NONE: pb.PAX_VIKING_JUNIOR_BUFF_UNSPECIFIED,
            pvj.SILFR: pb.PAX_VIKING_JUNIOR_BUFF_SILFR,
            pvj.SCROLLS: pb.PAX_VIKING_JUNIOR_BUFF_SCROLLS,
        }
        self.buff_in = inverse(self.buff)

    # -- options
    def options_to_proto(self, options: pvj.Options) -> Any:
        fields: dict[str, Any] = {}
        if options.starting_seat >= 0:
            fields["starting_seat"] = options.starting_seat
        return self.pb.PaxVikingJuniorOptions(
            victory_cards=self.cards[options.victory_cards],
            buff=options.buff,
            seat_boards=list(options.seat_boards),
            kitten_tie=self.tie[options.kitten_tie],
            components=options.components,
            return_journeys=options.return_journeys,
            **fields,
        )

    def options_from_proto(self, msg: Any | None) -> pvj.Options:
        d = pvj.Options()
        if msg is None:
            return d
        try:
            components_for(msg.components)
        except ComponentsError as err:
            raise malformed("components", str(err), "INVALID_COMPONENTS") from None
        return pvj.Options(
            victory_cards=enum_value(msg.victory_cards, self.cards_in, "victory_cards", d.victory_cards),
            buff=msg.buff,
            starting_seat=msg.starting_seat if msg.HasField("starting_seat") else -1,
            seat_boards=tuple(msg.seat_boards),
            kitten_tie=enum_value(msg.kitten_tie, self.tie_in, "kitten_tie", d.kitten_tie),
            components=msg.components,
            return_journeys=msg.return_journeys,
        )

    # -- state
    def rng_of(self, state: pvj.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: pvj.State) -> Any:
        pb = self.pb
        player, region = pb.PaxVikingJuniorPlayer, pb.PaxVikingJuniorRegion
        return pb.PaxVikingJuniorState(
            options=self.options_to_proto(state.options),
            players=state.players,
            phase=self.phase[state.phase],
            actor=state.actor,
            turn=state.turn,
            start=state.start,
            step=state.step,
            seats=[
                player(
                    board=state.boards[s],
                    ship=state.ships[s],
                    silfr=state.silfr[s],
                    scrolls=state.scrolls[s],
                    kittens_left=state.kittens_left[s],
                    big_cats_left=state.big_cats_left[s],
                )
                for s in range(len(state.boards))
            ],
            cards=list(state.cards),
            lid=list(state.lid),
            drawn=list(state.drawn),
            to_draw=state.to_draw,
            regions=[
                region(tiles=list(tiles), kittens=list(kittens), big_cat=big, friend_seat=friend)
                for tiles, kittens, big, friend in zip(
                    state.tiles, state.kittens, state.big_cats, state.friends, strict=True
                )
            ],
            buffed=state.buffed,
            placed=state.placed,
            winner=state.winner,
            won_card=state.won_card,
            ply=state.ply,
        )

    def state_from_proto(self, msg: Any, rng: Rng) -> pvj.State:
        options = nested("options.", lambda: self.options_from_proto(msg.options))
        phase = enum_value(msg.phase, self.phase_in, "phase")
        seats = list(msg.seats)
        regions = list(msg.regions)
        return pvj.State(
            options=options,
            players=msg.players,
            phase=phase,
            actor=msg.actor,
            turn=msg.turn,
            start=msg.start,
            step=msg.step,
            boards=tuple(p.board for p in seats),
            ships=tuple(p.ship for p in seats),
            cards=tuple(msg.cards),
            lid=tuple(msg.lid),
            drawn=tuple(msg.drawn),
            to_draw=msg.to_draw,
            tiles=tuple(tuple(r.tiles) for r in regions),
            kittens=tuple(tuple(r.kittens) for r in regions),
            big_cats=tuple(r.big_cat for r in regions),
            friends=tuple(r.friend_seat for r in regions),
            silfr=tuple(p.silfr for p in seats),
            scrolls=tuple(p.scrolls for p in seats),
            kittens_left=tuple(p.kittens_left for p in seats),
            big_cats_left=tuple(p.big_cats_left for p in seats),
            buffed=msg.buffed,
            placed=msg.placed,
            winner=msg.winner,
            won_card=msg.won_card,
            ply=msg.ply,
            rng=rng,
        )

    # -- moves
    def move_to_proto(self, move: pvj.Move) -> Any:
        pb = self.pb
        m = pb.PaxVikingJuniorMove
        buff = self.buff
        if isinstance(move, pvj.Draw):
            if move.outcome is None:
                return m(draw=pb.PaxVikingJuniorDraw())
            return m(draw=pb.PaxVikingJuniorDraw(outcome=move.outcome))
        if isinstance(move, pvj.Journey):
            return m(
                journey=pb.PaxVikingJuniorJourney(region=move.region, buff=buff.get(move.buff, move.buff))
            )
        if isinstance(move, pvj.PlaceKittens):
            return m(
                place_kittens=pb.PaxVikingJuniorPlaceKittens(
                    count=move.count, buff=buff.get(move.buff, move.buff)
                )
            )
        if isinstance(move, pvj.DrawTiles):
            return m(
                draw_tiles=pb.PaxVikingJuniorDrawTiles(count=move.count, buff=buff.get(move.buff, move.buff))
            )
        if isinstance(move, pvj.PlaceTile):
            return m(place_tile=pb.PaxVikingJuniorPlaceTile(tile=move.tile))
        if isinstance(move, pvj.SkipDraw):
            return m(skip_draw=pb.PaxVikingJuniorSkipDraw())
        if isinstance(move, pvj.ReturnTiles):
            return m(return_tiles=pb.PaxVikingJuniorReturnTiles())
        if isinstance(move, pvj.PlaceBigCat):
            return m(place_big_cat=pb.PaxVikingJuniorPlaceBigCat())
        if isinstance(move, pvj.PickUpCats):
            return m(pick_up_cats=pb.PaxVikingJuniorPickUpCats())
        return m(choose_board=pb.PaxVikingJuniorChooseBoard(board=move.board))

    def move_from_proto(self, msg: Any) -> pvj.Move:
        which = msg.WhichOneof("action")
        if which is None:
            raise malformed("", "is required: one of the Pax Viking Junior moves", "MOVE_REQUIRED")
        a = getattr(msg, which)
        if which == "draw":
            return pvj.Draw(a.outcome if a.HasField("outcome") else None)
        if which == "journey":
            return pvj.Journey(a.region, self._buff(a.buff))
        if which == "place_kittens":
            return pvj.PlaceKittens(a.count, self._buff(a.buff))
        if which == "draw_tiles":
            return pvj.DrawTiles(a.count, self._buff(a.buff))
        if which == "place_tile":
            return pvj.PlaceTile(a.tile)
        if which == "skip_draw":
            return pvj.SkipDraw()
        if which == "return_tiles":
            return pvj.ReturnTiles()
        if which == "place_big_cat":
            return pvj.PlaceBigCat()
        if which == "pick_up_cats":
            return pvj.PickUpCats()
        return pvj.ChooseBoard(a.board)

    def _buff(self, value: Any) -> int:
        """The engine's payment number (an unknown number is the engine's to refuse, naming the rule)."""
        found = self.buff_in.get(value)
        return int(found) if found is not None else int(value)

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Any:
        if not isinstance(detail, pvj.EventDetail):
            return None
        return self.pb.PaxVikingJuniorEvent(
            region=detail.region,
            tiles=list(detail.tiles),
            card=detail.card,
            silfr=detail.silfr,
            scrolls=detail.scrolls,
            count=detail.count,
            seats=list(detail.seats),
        )


CODEC = PaxVikingJuniorCodec()
