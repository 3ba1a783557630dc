"""The Birka codec: engine values <-> ``lawspeaker.v1.birka`` messages."""

from __future__ import annotations

from typing import Any

from lawspeaker.games import birka as b
from lawspeaker.games.birka.data import data_for
from lawspeaker.games.core import FieldViolation, InvalidState, Rng
from lawspeaker.v1 import birka_pb2
from lawspeaker.wire.codec import StatePaths, by_name, enum_value, inverse, malformed, nested, per_seat


class BirkaCodec:
    """Maps Birka engine values to and from the messages of ``pb``: the generated protobuf module, or
    any namespace with the same message classes and enum constants."""

    field = "birka"
    state_paths = StatePaths(
        # the engine keeps each seat's values in tuples by seat; the state message, in seats[]
        *per_seat(
            {
                "visthus": "visthus",
                "extension": "extension",
                "skepp": "skepp",
                "plots": "plots",
                "starving": "feeding",
                "hands": "hand",
                "completed": "completed",
                "decks": "deck",
            }
        ),
    )

    def __init__(self, pb: Any = birka_pb2) -> None:
        self.pb = pb
        self.phase = by_name(b.Phase, pb, "BIRKA_PHASE_")
        self.phase_in = inverse(self.phase)
        # The engine's feeding numbers are the enum's: 0 (fed) is UNSPECIFIED.
        self.feeding = {
            b.FED: pb.BIRKA_FEEDING_UNSPECIFIED,
            b.STARVING: pb.BIRKA_FEEDING_STARVING,
            b.RECOVERED: pb.BIRKA_FEEDING_RECOVERED,
        }
        self.feeding_in = inverse(self.feeding)

    # -- options
    def options_to_proto(self, options: b.Options) -> Any:
        return self.pb.BirkaOptions(
            calendar_rounds=options.calendar_rounds, data=options.data, tokens_only=options.tokens_only
        )

    def options_from_proto(self, msg: Any | None) -> b.Options:
        if msg is None:
            return b.Options()
        rounds = msg.calendar_rounds or b.Options().calendar_rounds
        if rounds not in b.GAME_LENGTHS:
            lengths = " or ".join(str(k) for k in b.GAME_LENGTHS)
            raise malformed(
                "calendar_rounds", f"must be {lengths} (got {msg.calendar_rounds})", "INVALID_OPTIONS"
            )
        try:
            data_for(msg.data)
        except b.BirkaDataError as err:
            raise malformed("data", str(err), "INVALID_DATA") from None
        return b.Options(calendar_rounds=rounds, data=msg.data, tokens_only=msg.tokens_only)

    # -- state
    def rng_of(self, state: b.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: b.State) -> Any:
        pb = self.pb
        seat = pb.BirkaSeat
        feeding = self.feeding
        return pb.BirkaState(
            options=self.options_to_proto(state.options),
            players=state.players,
            phase=self.phase[state.phase],
            actor=state.actor,
            starter=state.starter,
            round=state.round,
            turn=state.turn,
            step=state.step,
            die=state.die,
            yellow=state.yellow,
            actions_left=state.actions_left,
            seats=[
                seat(
                    visthus=list(state.visthus[s]),
                    extension=state.extension[s],
                    skepp=state.skepp[s],
                    plots=list(state.plots[s]),
                    feeding=feeding.get(state.starving[s], state.starving[s]),
                    hand=list(state.hands[s]),
                    completed=list(state.completed[s]),
                    deck=list(state.decks[s]),
                )
                for s in range(len(state.visthus))
            ],
            owners=list(state.owners),
            mjod_token=state.mjod_token,
            market=list(state.market),
            calendar=list(state.calendar),
            card=state.card,
            round_cards=list(state.round_cards),
            drawn=list(state.drawn),
            hidden=state.hidden,
            due=list(state.due),
            pending=state.pending,
            left=state.left,
            finisher=state.finisher,
            scores=list(state.scores),
            winners=list(state.winners),
            ply=state.ply,
        )

    def state_from_proto(self, msg: Any, rng: Rng) -> b.State:
        options = nested("options.", lambda: self.options_from_proto(msg.options))
        if msg.hidden:
            raise InvalidState(
                [
                    FieldViolation(
                        "hidden",
                        "a player's view hides Runestone Cards and cannot be played: send the full state",
                    )
                ]
            )
        phase = enum_value(msg.phase, self.phase_in, "phase")
        seats = list(msg.seats)
        feeding = [enum_value(s.feeding, self.feeding_in, f"seats[{i}].feeding") for i, s in enumerate(seats)]
        return b.State(
            options=options,
            players=msg.players,
            phase=phase,
            actor=msg.actor,
            starter=msg.starter,
            round=msg.round,
            turn=msg.turn,
            step=msg.step,
            die=msg.die,
            yellow=msg.yellow,
            actions_left=msg.actions_left,
            visthus=tuple(tuple(s.visthus) for s in seats),
            extension=tuple(s.extension for s in seats),
            skepp=tuple(s.skepp for s in seats),
            plots=tuple(tuple(s.plots) for s in seats),
            owners=tuple(msg.owners),
            mjod_token=msg.mjod_token,
            market=tuple(msg.market),
            calendar=tuple(msg.calendar),
            card=msg.card,
            round_cards=tuple(msg.round_cards),
            starving=tuple(int(f) for f in feeding),
            hands=tuple(tuple(s.hand) for s in seats),
            completed=tuple(tuple(s.completed) for s in seats),
            decks=tuple(tuple(s.deck) for s in seats),
            drawn=tuple(msg.drawn),
            hidden=msg.hidden,
            due=tuple(msg.due),
            pending=msg.pending,
            left=msg.left,
            finisher=msg.finisher,
            scores=tuple(msg.scores),
            winners=tuple(msg.winners),
            ply=msg.ply,
            rng=rng,
        )

    # -- moves
    def move_to_proto(self, move: b.Move) -> Any:
        pb = self.pb
        m = pb.BirkaMove
        if isinstance(move, b.Draw):
            return m(draw=pb.BirkaDraw() if move.outcome is None else pb.BirkaDraw(outcome=move.outcome))
        if isinstance(move, b.DrawCard):
            return m(
                draw_card=pb.BirkaDrawCard() if move.index is None else pb.BirkaDrawCard(index=move.index)
            )
        if isinstance(move, b.MarketTrade):
            return m(market_trade=pb.BirkaMarketTrade(give=move.give, take=move.take))
        if isinstance(move, b.OutlawTrade):
            return m(outlaw_trade=pb.BirkaOutlawTrade(give=move.give, take=move.take))
        if isinstance(move, b.Craft):
            return m(craft=pb.BirkaCraft(building=move.building))
        if isinstance(move, b.Discard):
            return m(discard=pb.BirkaDiscard(resource=move.resource))
        if isinstance(move, b.EndActions):
            return m(end_actions=pb.BirkaEndActions())
        if isinstance(move, b.Collect):
            return m(collect=pb.BirkaCollect(resource=move.resource))
        if isinstance(move, b.StopCollecting):
            return m(stop_collecting=pb.BirkaStopCollecting())
        if isinstance(move, b.PayTribute):
            return m(pay_tribute=pb.BirkaPayTribute(resource=move.resource))
        if isinstance(move, b.TakeTribute):
            return m(take_tribute=pb.BirkaTakeTribute(seat=move.seat, resource=move.resource))
        if isinstance(move, b.BuySkepp):
            return m(buy_skepp=pb.BirkaBuySkepp())
        if isinstance(move, b.Upgrade):
            return m(upgrade=pb.BirkaUpgrade(plot=move.plot, good=move.good))
        if isinstance(move, b.PlaceToken):
            return m(place_token=pb.BirkaPlaceToken(value=move.value))
        if isinstance(move, b.Build):
            return m(build=pb.BirkaBuild(building=move.building))
        if isinstance(move, b.BuildExtension):
            return m(build_extension=pb.BirkaBuildExtension())
        if isinstance(move, b.AcquireRunestone):
            return m(acquire_runestone=pb.BirkaAcquireRunestone())
        if isinstance(move, b.KeepCard):
            return m(keep_card=pb.BirkaKeepCard(index=move.index))
        if isinstance(move, b.PayRation):
            return m(pay_ration=pb.BirkaPayRation(food=list(move.food), bread=move.bread))
        return m(pay_levy=pb.BirkaPayLevy(resource=move.resource))

    def move_from_proto(self, msg: Any) -> b.Move:
        which = msg.WhichOneof("action")
        if which is None:
            raise malformed("", "is required: one of the Birka moves", "MOVE_REQUIRED")
        a = getattr(msg, which)
        if which == "draw":
            return b.Draw(a.outcome if a.HasField("outcome") else None)
        if which == "draw_card":
            return b.DrawCard(a.index if a.HasField("index") else None)
        if which == "market_trade":
            return b.MarketTrade(a.give, a.take)
        if which == "outlaw_trade":
            return b.OutlawTrade(a.give, a.take)
        if which == "craft":
            return b.Craft(a.building)
        if which == "discard":
            return b.Discard(a.resource)
        if which == "end_actions":
            return b.EndActions()
        if which == "collect":
            return b.Collect(a.resource)
        if which == "stop_collecting":
            return b.StopCollecting()
        if which == "pay_tribute":
            return b.PayTribute(a.resource)
        if which == "take_tribute":
            return b.TakeTribute(a.seat, a.resource)
        if which == "buy_skepp":
            return b.BuySkepp()
        if which == "upgrade":
            return b.Upgrade(a.plot, a.good)
        if which == "place_token":
            return b.PlaceToken(a.value)
        if which == "build":
            return b.Build(a.building)
        if which == "build_extension":
            return b.BuildExtension()
        if which == "acquire_runestone":
            return b.AcquireRunestone()
        if which == "keep_card":
            return b.KeepCard(a.index)
        if which == "pay_ration":
            return b.PayRation(tuple(a.food), a.bread)
        return b.PayLevy(a.resource)

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Any:
        if not isinstance(detail, b.EventDetail):
            return None
        return self.pb.BirkaEvent(
            value=detail.value,
            resources=list(detail.resources),
            seats=list(detail.seats),
            cards=list(detail.cards),
            secret=detail.secret,
            private_event=detail.private,
            viewers=list(detail.viewers),
        )


CODEC = BirkaCodec()
