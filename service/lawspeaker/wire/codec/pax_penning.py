"""The Pax Penning codec: engine values <-> ``lawspeaker.v1.pax_penning`` messages."""

from __future__ import annotations

from typing import Any

from lawspeaker.games import pax_penning as pp
from lawspeaker.games.core import FieldViolation, InvalidState, Rng
from lawspeaker.games.pax_penning.board import board_for as load_board_for
from lawspeaker.v1 import pax_penning_pb2
from lawspeaker.wire.codec import StatePaths, by_name, inverse, malformed


class PaxPenningCodec:
    """Maps Pax Penning engine values to and from the messages of ``pb``: the generated protobuf
    module, or any namespace with the same message classes and enum constants."""

    field = "pax_penning"
    state_paths = StatePaths(
        # the engine keeps each House's size and coins in tuples by House; the message, in houses[]
        (r"^sizes\[(\d+)\]", r"houses[\1].size"),
        (r"^coins\[(\d+)\]", r"houses[\1].coins"),
        (r"^(?:sizes|coins)$", "houses"),
    )

    def __init__(self, pb: Any = pax_penning_pb2) -> None:
        self.pb = pb
        self.phase = by_name(pp.Phase, pb, "PAX_PENNING_PHASE_")
        self.phase_in = inverse(self.phase)
        # The engine's piece numbers are the enum's; 0 (no piece) is UNSPECIFIED.
        pieces = {
            pp.KNIGHT: pb.PAX_PENNING_PIECE_KNIGHT,
            pp.BISHOP: pb.PAX_PENNING_PIECE_BISHOP,
            pp.ROOK: pb.PAX_PENNING_PIECE_ROOK,
            pp.PAWN: pb.PAX_PENNING_PIECE_PAWN,
            pp.KING: pb.PAX_PENNING_PIECE_KING,
        }
        self.piece_in = inverse(pieces)
        self.piece = {0: pb.PAX_PENNING_PIECE_UNSPECIFIED, **pieces}
        self.piece_or_none_in = inverse(self.piece)
        self.victory = {
            pp.NO_VICTORY: pb.PAX_PENNING_VICTORY_UNSPECIFIED,
            pp.THEGN: pb.PAX_PENNING_VICTORY_THEGN,
            pp.JARL: pb.PAX_PENNING_VICTORY_JARL,
            pp.EVERYONE_LOSES: pb.PAX_PENNING_VICTORY_EVERYONE_LOSES,
        }
        self.victory_in = inverse(self.victory)

    def _piece(self, value: int, field: str, allow_none: bool = False) -> int:
        found = self.piece_in.get(value)
        if found is not None:
            return int(found)
        if allow_none and value == 0:
            return 0
        raise malformed(field, f"has no valid piece (got {int(value)})", "INVALID_ENUM")

    # -- options
    def options_to_proto(self, options: pp.Options) -> Any:
        return self.pb.PaxPenningOptions(
            board=options.board,
            gathering_limited_by_dice=options.gathering_limited_by_dice,
            pawns_stop_at_pawns=options.pawns_stop_at_pawns,
        )

    def options_from_proto(self, msg: Any | None) -> pp.Options:
        if msg is None:
            return pp.Options()
        try:
            load_board_for(msg.board)
        except pp.BoardError as err:
            raise malformed("board", str(err), "INVALID_BOARD") from None
        return pp.Options(
            board=msg.board,
            gathering_limited_by_dice=msg.gathering_limited_by_dice,
            pawns_stop_at_pawns=msg.pawns_stop_at_pawns,
        )

    # -- state
    def rng_of(self, state: pp.State) -> Rng:
        return state.rng

    def state_to_proto(self, state: pp.State) -> Any:
        pb, piece = self.pb, self.piece
        house, bowl, choice = pb.PaxPenningHouse, pb.PaxPenningBowl, pb.PaxPenningChoice
        return pb.PaxPenningState(
            options=self.options_to_proto(state.options),
            players=state.players,
            phase=self.phase[state.phase],
            actor=state.actor,
            turn=state.turn,
            step=state.step,
            sigtuna=list(state.sigtuna),
            houses=[
                house(stones=list(row), hidden=not row, size=size, coins=list(coins))
                for row, size, coins in zip(state.houses, state.sizes, state.coins, strict=True)
            ],
            hierarchy=list(state.hierarchy),
            hierarchy_penning=state.hierarchy_penning,
            king=state.king,
            bowls=[bowl(pieces=[piece[x] for x in row]) for row in state.bowls],
            pawns=list(state.pawns),
            roads=list(state.roads),
            runestones=list(state.runestones),
            things=state.things,
            dice=list(state.dice),
            to_roll=state.to_roll,
            moved=state.moved,
            gathered=state.gathered,
            asked=state.asked,
            blessing=state.blessing,
            pairs=state.pairs,
            chosen=[choice(bowl=b, piece=piece[p]) for b, p in state.chosen],
            taken=[piece[x] for x in state.taken],
            king_used=state.king_used,
            piece=piece[state.piece],
            x=state.x,
            target=state.target,
            payers=list(state.payers),
            pawn=state.pawn,
            thing_pending=state.thing_pending,
            best_vote=state.best_vote,
            victory=self.victory[state.victory],
            chain=list(state.chain),
            winners=list(state.winners),
            ply=state.ply,
        )

    def state_from_proto(self, msg: Any, rng: Rng) -> pp.State:
        try:
            load_board_for(msg.options.board)
        except pp.BoardError as err:
            raise malformed("options.board", str(err), "INVALID_BOARD") from None
        options = pp.Options(
            board=msg.options.board,
            gathering_limited_by_dice=msg.options.gathering_limited_by_dice,
            pawns_stop_at_pawns=msg.options.pawns_stop_at_pawns,
        )
        phase = self.phase_in.get(msg.phase)
        if phase is None:
            raise malformed("phase", f"has no valid value (got {int(msg.phase)})", "INVALID_ENUM")
        victory = self.victory_in.get(msg.victory)
        if victory is None:
            raise malformed("victory", f"has no valid value (got {int(msg.victory)})", "INVALID_ENUM")
        problems: list[FieldViolation] = []
        for i, house in enumerate(msg.houses):
            if house.hidden:
                problems.append(
                    FieldViolation(
                        f"houses[{i}].hidden",
                        "a player's view hides House contents and cannot be played: send the full state",
                    )
                )
        if problems:
            raise InvalidState(problems)
        piece = self._piece
        return pp.State(
            options=options,
            players=msg.players,
            phase=phase,
            actor=msg.actor,
            turn=msg.turn,
            step=msg.step,
            sigtuna=tuple(msg.sigtuna),
            houses=tuple(tuple(h.stones) for h in msg.houses),
            sizes=tuple(h.size for h in msg.houses),
            hierarchy=tuple(msg.hierarchy),
            hierarchy_penning=msg.hierarchy_penning,
            coins=tuple(tuple(h.coins) for h in msg.houses),
            king=msg.king,
            bowls=tuple(
                tuple(piece(p, f"bowls[{i}].pieces") for p in b.pieces) for i, b in enumerate(msg.bowls)
            ),
            pawns=tuple(msg.pawns),
            roads=tuple(msg.roads),
            runestones=tuple(msg.runestones),
            things=msg.things,
            dice=tuple(msg.dice),
            to_roll=msg.to_roll,
            moved=msg.moved,
            gathered=msg.gathered,
            asked=msg.asked,
            blessing=msg.blessing,
            pairs=msg.pairs,
            chosen=tuple((c.bowl, piece(c.piece, f"chosen[{i}].piece")) for i, c in enumerate(msg.chosen)),
            taken=tuple(piece(p, "taken") for p in msg.taken),
            king_used=msg.king_used,
            piece=piece(msg.piece, "piece", allow_none=True),
            x=msg.x,
            target=msg.target,
            payers=tuple(msg.payers),
            pawn=msg.pawn,
            thing_pending=msg.thing_pending,
            best_vote=msg.best_vote,
            victory=victory,
            chain=tuple(msg.chain),
            winners=tuple(msg.winners),
            ply=msg.ply,
            rng=rng,
        )

    # -- moves
    def move_to_proto(self, move: pp.Move) -> Any:
        pb = self.pb
        m = pb.PaxPenningMove
        if isinstance(move, pp.Draw):
            if move.outcome is None:
                return m(draw=pb.PaxPenningDraw())
            return m(draw=pb.PaxPenningDraw(outcome=move.outcome))
        if isinstance(move, pp.Gather):
            return m(gather=pb.PaxPenningGather(colour=move.colour, count=move.count))
        if isinstance(move, pp.AskBlessing):
            return m(ask_blessing=pb.PaxPenningAskBlessing(colour=move.colour))
        if isinstance(move, pp.Bless):
            return m(bless=pb.PaxPenningBless(grant=move.grant))
        if isinstance(move, pp.Roll):
            return m(roll=pb.PaxPenningRoll())
        if isinstance(move, pp.SendStone):
            return m(send_stone=pb.PaxPenningSendStone(colour=move.colour, house=move.house))
        if isinstance(move, pp.ChangeStanding):
            return m(change_standing=pb.PaxPenningChangeStanding(position=move.position))
        if isinstance(move, pp.AnnounceLoyalty):
            return m(announce_loyalty=pb.PaxPenningAnnounceLoyalty(seat=move.seat, coin=move.coin))
        if isinstance(move, pp.ChooseBowl):
            return m(
                choose_bowl=pb.PaxPenningChooseBowl(
                    bowl=move.bowl, piece=self.piece.get(move.piece, move.piece)
                )
            )
        if isinstance(move, pp.Resolve):
            return m(resolve=pb.PaxPenningResolve(slot=move.slot, die=move.die))
        if isinstance(move, pp.PlaceRunestone):
            return m(
                place_runestone=pb.PaxPenningPlaceRunestone(crossroads=move.crossroads, colour=move.colour)
            )
        if isinstance(move, pp.PlaceDie):
            return m(place_die=pb.PaxPenningPlaceDie(space=move.space))
        if isinstance(move, pp.RemoveDie):
            return m(remove_die=pb.PaxPenningRemoveDie(space=move.space))
        if isinstance(move, pp.MovePawn):
            return m(move_pawn=pb.PaxPenningMovePawn(pawn=move.pawn))
        if isinstance(move, pp.PlaceStone):
            return m(place_stone=pb.PaxPenningPlaceStone(colour=move.colour))
        if isinstance(move, pp.ReturnPawn):
            return m(return_pawn=pb.PaxPenningReturnPawn(star=move.star))
        if isinstance(move, pp.Vote):
            return m(vote=pb.PaxPenningVote(support=move.support))
        return m(choose_heir=pb.PaxPenningChooseHeir(seat=move.seat))

    def move_from_proto(self, msg: Any) -> pp.Move:
        which = msg.WhichOneof("action")
        if which is None:
            raise malformed("", "is required: one of the Pax Penning moves", "MOVE_REQUIRED")
        a = getattr(msg, which)
        if which == "draw":
            return pp.Draw(a.outcome if a.HasField("outcome") else None)
        if which == "gather":
            return pp.Gather(a.colour, a.count)
        if which == "ask_blessing":
            return pp.AskBlessing(a.colour)
        if which == "bless":
            return pp.Bless(a.grant)
        if which == "roll":
            return pp.Roll()
        if which == "send_stone":
            return pp.SendStone(a.colour, a.house)
        if which == "change_standing":
            return pp.ChangeStanding(a.position)
        if which == "announce_loyalty":
            return pp.AnnounceLoyalty(a.seat, a.coin)
        if which == "choose_bowl":
            # the engine's piece number (an unknown number is the engine's to refuse)
            return pp.ChooseBowl(a.bowl, self.piece_or_none_in.get(a.piece, a.piece))
        if which == "resolve":
            return pp.Resolve(a.slot, a.die)
        if which == "place_runestone":
            return pp.PlaceRunestone(a.crossroads, a.colour)
        if which == "place_die":
            return pp.PlaceDie(a.space)
        if which == "remove_die":
            return pp.RemoveDie(a.space)
        if which == "move_pawn":
            return pp.MovePawn(a.pawn)
        if which == "place_stone":
            return pp.PlaceStone(a.colour)
        if which == "return_pawn":
            return pp.ReturnPawn(a.star)
        if which == "vote":
            return pp.Vote(a.support)
        return pp.ChooseHeir(a.seat)

    # -- events
    def event_detail_to_proto(self, detail: Any) -> Any:
        if not isinstance(detail, pp.EventDetail):
            return None
        return self.pb.PaxPenningEvent(
            value=detail.value,
            colours=list(detail.colours),
            seats=list(detail.seats),
            secret=detail.secret,
            viewers=list(detail.viewers),
        )


CODEC = PaxPenningCodec()
