"""The Valhalla codec: engine values <-> ``lawspeaker.v1.valhalla`` messages."""

from __future__ import annotations

from typing import Any

from lawspeaker.games import valhalla as v
from lawspeaker.games.core import FieldViolation, InvalidState, Rng
from lawspeaker.v1 import valhalla_pb2
from lawspeaker.wire.codec import SAME_PATHS, by_name, enum_value, inverse, malformed


class ValhallaCodec:
    """Maps Valhalla engine values to and from the messages of ``pb`` (the ``valhalla_pb2`` module,
    or a ``lawspeaker.wire.structs`` namespace of the same messages)."""

    field = "valhalla"
    state_paths = SAME_PATHS  # the engine's State and the state message spell their fields alike

    def __init__(self, pb: Any = valhalla_pb2) -> None:
        self.pb = pb
        self.start = by_name(v.Start, pb, "VALHALLA_START_")
        self.scoring = by_name(v.Scoring, pb, "VALHALLA_SCORING_")
        self.hagalaz = by_name(v.Hagalaz, pb, "VALHALLA_HAGALAZ_")
        self.entry_blocked = by_name(v.EntryBlocked, pb, "VALHALLA_ENTRY_BLOCKED_")
        self.phase = by_name(v.Phase, pb, "VALHALLA_PHASE_")
        self.colour = {v.LIGHT: pb.VALHALLA_COLOUR_LIGHT, v.DARK: pb.VALHALLA_COLOUR_DARK}
        self.start_in, self.scoring_in = inverse(self.start), inverse(self.scoring)
        self.hagalaz_in, self.phase_in = inverse(self.hagalaz), inverse(self.phase)
        self.colour_in, self.entry_blocked_in = inverse(self.colour), inverse(self.entry_blocked)
        # (colour, number) as a ship message spells it -> the ship's index
        self._index = {
            (pb_colour, number): colour * v.SHIPS + number - 1
            for colour, pb_colour in self.colour.items()
            for number in range(1, v.SHIPS + 1)
        }
        # Messages are values, and a state is written often: the few distinct ship, cast and options
        # messages are built once each (a message given to a constructor is copied, so a cached
        # protobuf message is never shared; a wire message is frozen).
        self._ships = [
            {(p, r): self._ship(i, p, r) for p in range(v.GATE + 1) for r in (False, True)}
            for i in range(2 * v.SHIPS)
        ]
        self._sticks: dict[v.Sticks, Any] = {}
        self._options: dict[v.Options, Any] = {}
        self._options_in: dict[tuple[Any, ...], v.Options] = {}
        # Over protobuf, a state is parsed from its serialized parts, which is about half the cost
        # of constructing it: each ship, the options and the cast are serialized once (by protobuf
        # itself, as one-field ValhallaStates) and the parts joined, since serialized messages
        # concatenate into the message holding all their fields.
        self._binary = hasattr(pb.ValhallaState, "FromString")
        if self._binary:
            self._ship_parts = [
                {place: self._part(ships=[ship]) for place, ship in by_place.items()}
                for by_place in self._ships
            ]
            self._options_parts: dict[v.Options, bytes] = {}
            self._cast_parts: dict[v.Sticks, bytes] = {}

    def _part(self, **field: Any) -> bytes:
        return self.pb.ValhallaState(**field).SerializeToString()  # type: ignore[no-any-return]

    def _ship(self, index: int, position: int, repair: bool) -> Any:
        colour, number = self.colour[index // v.SHIPS], index % v.SHIPS + 1
        return self.pb.ValhallaShip(colour=colour, number=number, position=position, under_repair=repair)

    def sticks_to_proto(self, s: v.Sticks) -> Any:
        found = self._sticks.get(s)
        if found is None:
            found = self.pb.ValhallaSticks(sowulo=s.sowulo, tiewaz=s.tiewaz, gebo=s.gebo, hagalaz=s.hagalaz)
            self._sticks[s] = found  # at most 16
        return found

    @staticmethod
    def sticks_from_proto(m: Any) -> v.Sticks:
        return v.Sticks(m.sowulo, m.tiewaz, m.gebo, m.hagalaz)

    # -- options
    def options_to_proto(self, options: v.Options) -> Any:
        found = self._options.get(options)
        if found is None:
            found = self.pb.ValhallaOptions(
                start=self.start[options.start],
                scoring=self.scoring[options.scoring],
                hagalaz=self.hagalaz[options.hagalaz],
                doubles=options.doubles,
                entry_blocked=self.entry_blocked[options.entry_blocked],
            )
            self._options[options] = found  # at most 32
        return found

    def options_from_proto(self, msg: Any | None) -> v.Options:
        if msg is None:
            return v.Options()
        key = (msg.start, msg.scoring, msg.hagalaz, msg.doubles, msg.entry_blocked)
        found = self._options_in.get(key)
        if found is None:
            d = v.Options()
            found = v.Options(
                start=enum_value(key[0], self.start_in, "start", d.start),
                scoring=enum_value(key[1], self.scoring_in, "scoring", d.scoring),
                hagalaz=enum_value(key[2], self.hagalaz_in, "hagalaz", d.hagalaz),
                doubles=key[3],
                entry_blocked=enum_value(key[4], self.entry_blocked_in, "entry_blocked", d.entry_blocked),
            )
            self._options_in[key] = found  # valid spellings only: at most 162
        return found

    # -- state
    def rng_of(self, state: v.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: v.State) -> Any:
        if self._binary:
            return self.pb.ValhallaState.FromString(self._serialized(state))
        ships = []
        for i, place in enumerate(zip(state.positions, state.repair, strict=True)):
            found = self._ships[i].get(place)
            ships.append(found if found is not None else self._ship(i, *place))
        fields: dict[str, Any] = {}
        if state.cast is not None:
            fields["cast"] = self.sticks_to_proto(state.cast)
        return self.pb.ValhallaState(
            options=self.options_to_proto(state.options),
            phase=self.phase[state.phase],
            turn=state.turn,
            dark_seat=state.dark_seat,
            ships=ships,
            points=state.points,
            winner=state.winner,
            ply=state.ply,
            **fields,
        )

    def _serialized(self, state: v.State) -> bytes:
        """The state as a serialized ValhallaState, joined from cached parts (protobuf only)."""
        options = self._options_parts.get(state.options)
        if options is None:
            options = self._part(options=self.options_to_proto(state.options))
            self._options_parts[state.options] = options  # at most 32
        parts = [
            options,
            self._part(
                phase=self.phase[state.phase],
                turn=state.turn,
                dark_seat=state.dark_seat,
                points=state.points,
                winner=state.winner,
                ply=state.ply,
            ),
        ]
        ship_parts = self._ship_parts
        for i, place in enumerate(zip(state.positions, state.repair, strict=True)):
            found = ship_parts[i].get(place)
            parts.append(found if found is not None else self._part(ships=[self._ship(i, *place)]))
        if state.cast is not None:
            cast = self._cast_parts.get(state.cast)
            if cast is None:
                cast = self._part(cast=self.sticks_to_proto(state.cast))
                self._cast_parts[state.cast] = cast  # at most 16
            parts.append(cast)
        return b"".join(parts)

    def state_from_proto(self, msg: Any, rng: Rng) -> v.State:
        options = self.options_from_proto(msg.options)
        phase = enum_value(msg.phase, self.phase_in, "phase")
        n = v.SHIPS
        ships = msg.ships
        if len(ships) != 2 * n:
            raise InvalidState(
                [FieldViolation("ships", f"must list exactly {n} light and {n} dark ships, not {len(ships)}")]
            )
        positions = [-1] * (2 * n)
        repair = [False] * (2 * n)
        problems: list[FieldViolation] = []
        index = self._index
        for i, ship in enumerate(ships):
            idx = index.get((ship.colour, ship.number))
            if idx is None or positions[idx] != -1:
                problems.append(self._ship_problem(i, ship))
                continue
            positions[idx] = ship.position
            repair[idx] = ship.under_repair
        if problems:
            raise InvalidState(problems)
        return v.State(
            options=options,
            phase=phase,
            turn=msg.turn,
            dark_seat=msg.dark_seat,
            positions=tuple(positions),
            repair=tuple(repair),
            cast=self.sticks_from_proto(msg.cast) if msg.HasField("cast") else None,
            points=msg.points,
            winner=msg.winner,
            ply=msg.ply,
            rng=rng,
        )

    def _ship_problem(self, i: int, ship: Any) -> FieldViolation:
        """What is wrong with ``ships[i]``, which names no ship or one listed before it."""
        n = v.SHIPS
        colour = self.colour_in.get(ship.colour)
        if colour is None:
            return FieldViolation(f"ships[{i}].colour", "must be LIGHT or DARK")
        number = ship.number
        if not 1 <= number <= n:
            return FieldViolation(f"ships[{i}].number", f"must be 1 to {n}, not {number}")
        name = v.COLOUR_NAMES[colour]
        return FieldViolation(f"ships[{i}]", f"{name} ship {number} is listed twice (a fleet has {n} ships)")

    # -- moves
    def move_to_proto(self, move: v.Move) -> Any:
        pb = self.pb
        if isinstance(move, v.Cast):
            if move.sticks is None:
                return pb.ValhallaMove(cast=pb.ValhallaCast())
            return pb.ValhallaMove(cast=pb.ValhallaCast(sticks=self.sticks_to_proto(move.sticks)))
        return pb.ValhallaMove(move_ship=pb.ValhallaShipMove(ship=move.ship, to=move.to))

    def move_from_proto(self, msg: Any) -> v.Move:
        which = msg.WhichOneof("action")
        if which == "cast":
            cast = msg.cast
            return v.Cast(self.sticks_from_proto(cast.sticks) if cast.HasField("sticks") else None)
        if which == "move_ship":
            return v.MoveShip(msg.move_ship.ship, msg.move_ship.to)
        raise malformed("", "is required: either cast or move_ship", "MOVE_REQUIRED")

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Any | None:
        if not isinstance(detail, v.EventDetail):
            return None
        fields: dict[str, Any] = {"from": detail.frm}
        if detail.sticks is not None:
            fields["sticks"] = self.sticks_to_proto(detail.sticks)
        if detail.colour is not None:
            fields["colour"] = self.colour[detail.colour]
        return self.pb.ValhallaEvent(
            score=detail.score, natural=detail.natural, ship=detail.ship, to=detail.to, **fields
        )


CODEC = ValhallaCodec()
