"""The Valhalla codec: engine values <-> ``lawspeaker.v1.valhalla`` messages."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from lawspeaker.codec import enum_value, inverse, malformed
from lawspeaker.games import valhalla as v
from lawspeaker.games.core import FieldViolation, InvalidState, Rng
from lawspeaker.v1 import valhalla_pb2 as pb

START = {v.Start.LAYOUT: pb.VALHALLA_START_LAYOUT, v.Start.ENTER: pb.VALHALLA_START_ENTER}
SCORING = {v.Scoring.RUNES: pb.VALHALLA_SCORING_RUNES, v.Scoring.TRADITIONAL: pb.VALHALLA_SCORING_TRADITIONAL}
HAGALAZ = {
    v.Hagalaz.CANCELS_ANOTHER: pb.VALHALLA_HAGALAZ_CANCELS_ANOTHER,
    v.Hagalaz.CANCELS_OWN: pb.VALHALLA_HAGALAZ_CANCELS_OWN,
}
PHASE = {
    v.Phase.CHOOSING_COLOURS: pb.VALHALLA_PHASE_CHOOSING_COLOURS,
    v.Phase.CAST: pb.VALHALLA_PHASE_CAST,
    v.Phase.MOVE: pb.VALHALLA_PHASE_MOVE,
    v.Phase.EXTRA_POINTS: pb.VALHALLA_PHASE_EXTRA_POINTS,
    v.Phase.OVER: pb.VALHALLA_PHASE_OVER,
}
COLOUR = {v.LIGHT: pb.VALHALLA_COLOUR_LIGHT, v.DARK: pb.VALHALLA_COLOUR_DARK}


START_IN, SCORING_IN, HAGALAZ_IN = inverse(START), inverse(SCORING), inverse(HAGALAZ)
PHASE_IN, COLOUR_IN = inverse(PHASE), inverse(COLOUR)


def sticks_to_proto(s: v.Sticks) -> pb.ValhallaSticks:
    return pb.ValhallaSticks(sowulo=s.sowulo, tiewaz=s.tiewaz, gebo=s.gebo, hagalaz=s.hagalaz)


def sticks_from_proto(m: pb.ValhallaSticks) -> v.Sticks:
    return v.Sticks(m.sowulo, m.tiewaz, m.gebo, m.hagalaz)


class ValhallaCodec:
    """Maps Valhalla engine values to and from protobuf."""

    field = "valhalla"

    # -- options
    def options_to_proto(self, options: v.Options) -> pb.ValhallaOptions:
        return pb.ValhallaOptions(
            start=START[options.start],
            scoring=SCORING[options.scoring],
            hagalaz=HAGALAZ[options.hagalaz],
            doubles=options.doubles,
        )

    def options_from_proto(self, msg: Any | None) -> v.Options:
        if msg is None:
            return v.Options()
        d = v.Options()
        return v.Options(
            start=enum_value(msg.start, START_IN, "start", d.start),
            scoring=enum_value(msg.scoring, SCORING_IN, "scoring", d.scoring),
            hagalaz=enum_value(msg.hagalaz, HAGALAZ_IN, "hagalaz", d.hagalaz),
            doubles=msg.doubles,
        )

    # -- state
    def rng_of(self, state: v.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: v.State) -> Message:
        ships = [
            pb.ValhallaShip(
                colour=COLOUR[i // v.SHIPS], number=i % v.SHIPS + 1, position=p, under_repair=state.repair[i]
            )
            for i, p in enumerate(state.positions)
        ]
        out = pb.ValhallaState(
            options=self.options_to_proto(state.options),
            phase=PHASE[state.phase],
            turn=state.turn,
            dark_seat=state.dark_seat,
            ships=ships,
            points=state.points,
            winner=state.winner,
            ply=state.ply,
        )
        if state.cast is not None:
            out.cast.CopyFrom(sticks_to_proto(state.cast))
        return out

    def state_from_proto(self, msg: Any, rng: Rng) -> v.State:
        options = self.options_from_proto(msg.options)
        phase = enum_value(msg.phase, PHASE_IN, "phase")
        n = v.SHIPS
        if len(msg.ships) != 2 * n:
            raise InvalidState(
                [
                    FieldViolation(
                        "ships", f"must list exactly {n} light and {n} dark ships, not {len(msg.ships)}"
                    )
                ]
            )
        positions = [-1] * (2 * n)
        repair = [False] * (2 * n)
        problems: list[FieldViolation] = []
        for i, ship in enumerate(msg.ships):
            colour = COLOUR_IN.get(ship.colour)
            if colour is None:
                problems.append(FieldViolation(f"ships[{i}].colour", "must be LIGHT or DARK"))
                continue
            if not 1 <= ship.number <= n:
                problems.append(FieldViolation(f"ships[{i}].number", f"must be 1 to {n}, not {ship.number}"))
                continue
            idx = colour * n + ship.number - 1
            if positions[idx] != -1:
                name = v.COLOUR_NAMES[colour]
                problems.append(
                    FieldViolation(
                        f"ships[{i}]", f"{name} ship {ship.number} is listed twice (a fleet has {n} ships)"
                    )
                )
                continue
            positions[idx] = ship.position
            repair[idx] = ship.under_repair
        if problems:
            raise InvalidState(problems)
        has_cast = msg.HasField("cast")
        return v.State(
            options=options,
            phase=phase,
            turn=msg.turn,
            dark_seat=msg.dark_seat,
            positions=tuple(positions),
            repair=tuple(repair),
            cast=sticks_from_proto(msg.cast) if has_cast else None,
            points=msg.points,
            winner=msg.winner,
            ply=msg.ply,
            rng=rng,
        )

    # -- moves
    def move_to_proto(self, move: v.Move) -> Message:
        if isinstance(move, v.Cast):
            cast = pb.ValhallaCast()
            if move.sticks is not None:
                cast.sticks.CopyFrom(sticks_to_proto(move.sticks))
            return pb.ValhallaMove(cast=cast)
        return pb.ValhallaMove(move_ship=pb.ValhallaShipMove(ship=move.ship, to=move.to))

    def move_from_proto(self, msg: Any) -> v.Move:
        which = msg.WhichOneof("action")
        if which == "cast":
            return v.Cast(sticks_from_proto(msg.cast.sticks) if msg.cast.HasField("sticks") else None)
        if which == "move_ship":
            return v.MoveShip(msg.move_ship.ship, msg.move_ship.to)
        raise malformed("action", "is required: either cast or move_ship", "MOVE_REQUIRED")

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Message | None:
        if not isinstance(detail, v.EventDetail):
            return None
        out = pb.ValhallaEvent(score=detail.score, natural=detail.natural, ship=detail.ship, to=detail.to)
        setattr(out, "from", detail.frm)
        if detail.sticks is not None:
            out.sticks.CopyFrom(sticks_to_proto(detail.sticks))
        if detail.colour is not None:
            out.colour = COLOUR[detail.colour]
        return out


CODEC = ValhallaCodec()
