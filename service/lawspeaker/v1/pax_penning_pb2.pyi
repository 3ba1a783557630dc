from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PaxPenningPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_PENNING_PHASE_UNSPECIFIED: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_MARKET: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_COINS: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_HIERARCHY: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_ROADBLOCK_ROLL: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_ROADBLOCK_PLACE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_SIGTUNA: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_SEND: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_RUNESTONE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_DIE_ROLL: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_SETUP_DIE_PLACE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_GATHER: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_BLESSING: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_GATHER_BLESSED: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_ROLL: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_FEAST_SEND: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_FEAST_FAVOUR: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_LEVERAGE_CHOOSE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_LEVERAGE_ASSIGN: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_KING_RUNESTONE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_ROOK_PLACE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_KNIGHT_REMOVE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_BISHOP_SEND: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_PAWN_CHOOSE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_PAY_STONE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_PAWN_RETURN: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_THING_VOTE: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_THING_ROLL: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_THING_COINS: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_HEIR: _ClassVar[PaxPenningPhase]
    PAX_PENNING_PHASE_OVER: _ClassVar[PaxPenningPhase]

class PaxPenningPiece(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_PENNING_PIECE_UNSPECIFIED: _ClassVar[PaxPenningPiece]
    PAX_PENNING_PIECE_KNIGHT: _ClassVar[PaxPenningPiece]
    PAX_PENNING_PIECE_BISHOP: _ClassVar[PaxPenningPiece]
    PAX_PENNING_PIECE_ROOK: _ClassVar[PaxPenningPiece]
    PAX_PENNING_PIECE_PAWN: _ClassVar[PaxPenningPiece]
    PAX_PENNING_PIECE_KING: _ClassVar[PaxPenningPiece]

class PaxPenningVictory(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_PENNING_VICTORY_UNSPECIFIED: _ClassVar[PaxPenningVictory]
    PAX_PENNING_VICTORY_THEGN: _ClassVar[PaxPenningVictory]
    PAX_PENNING_VICTORY_JARL: _ClassVar[PaxPenningVictory]
    PAX_PENNING_VICTORY_EVERYONE_LOSES: _ClassVar[PaxPenningVictory]
PAX_PENNING_PHASE_UNSPECIFIED: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_MARKET: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_COINS: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_HIERARCHY: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_ROADBLOCK_ROLL: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_ROADBLOCK_PLACE: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_SIGTUNA: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_SEND: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_RUNESTONE: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_DIE_ROLL: PaxPenningPhase
PAX_PENNING_PHASE_SETUP_DIE_PLACE: PaxPenningPhase
PAX_PENNING_PHASE_GATHER: PaxPenningPhase
PAX_PENNING_PHASE_BLESSING: PaxPenningPhase
PAX_PENNING_PHASE_GATHER_BLESSED: PaxPenningPhase
PAX_PENNING_PHASE_ROLL: PaxPenningPhase
PAX_PENNING_PHASE_FEAST_SEND: PaxPenningPhase
PAX_PENNING_PHASE_FEAST_FAVOUR: PaxPenningPhase
PAX_PENNING_PHASE_LEVERAGE_CHOOSE: PaxPenningPhase
PAX_PENNING_PHASE_LEVERAGE_ASSIGN: PaxPenningPhase
PAX_PENNING_PHASE_KING_RUNESTONE: PaxPenningPhase
PAX_PENNING_PHASE_ROOK_PLACE: PaxPenningPhase
PAX_PENNING_PHASE_KNIGHT_REMOVE: PaxPenningPhase
PAX_PENNING_PHASE_BISHOP_SEND: PaxPenningPhase
PAX_PENNING_PHASE_PAWN_CHOOSE: PaxPenningPhase
PAX_PENNING_PHASE_PAY_STONE: PaxPenningPhase
PAX_PENNING_PHASE_PAWN_RETURN: PaxPenningPhase
PAX_PENNING_PHASE_THING_VOTE: PaxPenningPhase
PAX_PENNING_PHASE_THING_ROLL: PaxPenningPhase
PAX_PENNING_PHASE_THING_COINS: PaxPenningPhase
PAX_PENNING_PHASE_HEIR: PaxPenningPhase
PAX_PENNING_PHASE_OVER: PaxPenningPhase
PAX_PENNING_PIECE_UNSPECIFIED: PaxPenningPiece
PAX_PENNING_PIECE_KNIGHT: PaxPenningPiece
PAX_PENNING_PIECE_BISHOP: PaxPenningPiece
PAX_PENNING_PIECE_ROOK: PaxPenningPiece
PAX_PENNING_PIECE_PAWN: PaxPenningPiece
PAX_PENNING_PIECE_KING: PaxPenningPiece
PAX_PENNING_VICTORY_UNSPECIFIED: PaxPenningVictory
PAX_PENNING_VICTORY_THEGN: PaxPenningVictory
PAX_PENNING_VICTORY_JARL: PaxPenningVictory
PAX_PENNING_VICTORY_EVERYONE_LOSES: PaxPenningVictory

class PaxPenningOptions(_message.Message):
    __slots__ = ("board", "gathering_limited_by_dice", "pawns_stop_at_pawns")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    GATHERING_LIMITED_BY_DICE_FIELD_NUMBER: _ClassVar[int]
    PAWNS_STOP_AT_PAWNS_FIELD_NUMBER: _ClassVar[int]
    board: str
    gathering_limited_by_dice: bool
    pawns_stop_at_pawns: bool
    def __init__(self, board: _Optional[str] = ..., gathering_limited_by_dice: _Optional[bool] = ..., pawns_stop_at_pawns: _Optional[bool] = ...) -> None: ...

class PaxPenningHouse(_message.Message):
    __slots__ = ("stones", "hidden", "size", "coins")
    STONES_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    stones: _containers.RepeatedScalarFieldContainer[int]
    hidden: bool
    size: int
    coins: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, stones: _Optional[_Iterable[int]] = ..., hidden: _Optional[bool] = ..., size: _Optional[int] = ..., coins: _Optional[_Iterable[bool]] = ...) -> None: ...

class PaxPenningBowl(_message.Message):
    __slots__ = ("pieces",)
    PIECES_FIELD_NUMBER: _ClassVar[int]
    pieces: _containers.RepeatedScalarFieldContainer[PaxPenningPiece]
    def __init__(self, pieces: _Optional[_Iterable[_Union[PaxPenningPiece, str]]] = ...) -> None: ...

class PaxPenningChoice(_message.Message):
    __slots__ = ("bowl", "piece")
    BOWL_FIELD_NUMBER: _ClassVar[int]
    PIECE_FIELD_NUMBER: _ClassVar[int]
    bowl: int
    piece: PaxPenningPiece
    def __init__(self, bowl: _Optional[int] = ..., piece: _Optional[_Union[PaxPenningPiece, str]] = ...) -> None: ...

class PaxPenningState(_message.Message):
    __slots__ = ("options", "players", "phase", "actor", "turn", "step", "sigtuna", "houses", "hierarchy", "hierarchy_penning", "king", "bowls", "pawns", "roads", "runestones", "things", "dice", "to_roll", "moved", "gathered", "asked", "blessing", "pairs", "chosen", "taken", "king_used", "piece", "x", "target", "payers", "pawn", "thing_pending", "best_vote", "victory", "chain", "winners", "ply")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    SIGTUNA_FIELD_NUMBER: _ClassVar[int]
    HOUSES_FIELD_NUMBER: _ClassVar[int]
    HIERARCHY_FIELD_NUMBER: _ClassVar[int]
    HIERARCHY_PENNING_FIELD_NUMBER: _ClassVar[int]
    KING_FIELD_NUMBER: _ClassVar[int]
    BOWLS_FIELD_NUMBER: _ClassVar[int]
    PAWNS_FIELD_NUMBER: _ClassVar[int]
    ROADS_FIELD_NUMBER: _ClassVar[int]
    RUNESTONES_FIELD_NUMBER: _ClassVar[int]
    THINGS_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    TO_ROLL_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    GATHERED_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    BLESSING_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    KING_USED_FIELD_NUMBER: _ClassVar[int]
    PIECE_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    PAYERS_FIELD_NUMBER: _ClassVar[int]
    PAWN_FIELD_NUMBER: _ClassVar[int]
    THING_PENDING_FIELD_NUMBER: _ClassVar[int]
    BEST_VOTE_FIELD_NUMBER: _ClassVar[int]
    VICTORY_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    options: PaxPenningOptions
    players: int
    phase: PaxPenningPhase
    actor: int
    turn: int
    step: int
    sigtuna: _containers.RepeatedScalarFieldContainer[int]
    houses: _containers.RepeatedCompositeFieldContainer[PaxPenningHouse]
    hierarchy: _containers.RepeatedScalarFieldContainer[int]
    hierarchy_penning: bool
    king: int
    bowls: _containers.RepeatedCompositeFieldContainer[PaxPenningBowl]
    pawns: _containers.RepeatedScalarFieldContainer[int]
    roads: _containers.RepeatedScalarFieldContainer[int]
    runestones: _containers.RepeatedScalarFieldContainer[int]
    things: int
    dice: _containers.RepeatedScalarFieldContainer[int]
    to_roll: int
    moved: int
    gathered: int
    asked: int
    blessing: int
    pairs: int
    chosen: _containers.RepeatedCompositeFieldContainer[PaxPenningChoice]
    taken: _containers.RepeatedScalarFieldContainer[PaxPenningPiece]
    king_used: bool
    piece: PaxPenningPiece
    x: int
    target: int
    payers: _containers.RepeatedScalarFieldContainer[int]
    pawn: int
    thing_pending: bool
    best_vote: int
    victory: PaxPenningVictory
    chain: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    ply: int
    def __init__(self, options: _Optional[_Union[PaxPenningOptions, _Mapping]] = ..., players: _Optional[int] = ..., phase: _Optional[_Union[PaxPenningPhase, str]] = ..., actor: _Optional[int] = ..., turn: _Optional[int] = ..., step: _Optional[int] = ..., sigtuna: _Optional[_Iterable[int]] = ..., houses: _Optional[_Iterable[_Union[PaxPenningHouse, _Mapping]]] = ..., hierarchy: _Optional[_Iterable[int]] = ..., hierarchy_penning: _Optional[bool] = ..., king: _Optional[int] = ..., bowls: _Optional[_Iterable[_Union[PaxPenningBowl, _Mapping]]] = ..., pawns: _Optional[_Iterable[int]] = ..., roads: _Optional[_Iterable[int]] = ..., runestones: _Optional[_Iterable[int]] = ..., things: _Optional[int] = ..., dice: _Optional[_Iterable[int]] = ..., to_roll: _Optional[int] = ..., moved: _Optional[int] = ..., gathered: _Optional[int] = ..., asked: _Optional[int] = ..., blessing: _Optional[int] = ..., pairs: _Optional[int] = ..., chosen: _Optional[_Iterable[_Union[PaxPenningChoice, _Mapping]]] = ..., taken: _Optional[_Iterable[_Union[PaxPenningPiece, str]]] = ..., king_used: _Optional[bool] = ..., piece: _Optional[_Union[PaxPenningPiece, str]] = ..., x: _Optional[int] = ..., target: _Optional[int] = ..., payers: _Optional[_Iterable[int]] = ..., pawn: _Optional[int] = ..., thing_pending: _Optional[bool] = ..., best_vote: _Optional[int] = ..., victory: _Optional[_Union[PaxPenningVictory, str]] = ..., chain: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., ply: _Optional[int] = ...) -> None: ...

class PaxPenningDraw(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: int
    def __init__(self, outcome: _Optional[int] = ...) -> None: ...

class PaxPenningGather(_message.Message):
    __slots__ = ("colour", "count")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    colour: int
    count: int
    def __init__(self, colour: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class PaxPenningAskBlessing(_message.Message):
    __slots__ = ("colour",)
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    colour: int
    def __init__(self, colour: _Optional[int] = ...) -> None: ...

class PaxPenningBless(_message.Message):
    __slots__ = ("grant",)
    GRANT_FIELD_NUMBER: _ClassVar[int]
    grant: bool
    def __init__(self, grant: _Optional[bool] = ...) -> None: ...

class PaxPenningRoll(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PaxPenningSendStone(_message.Message):
    __slots__ = ("colour", "house")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    HOUSE_FIELD_NUMBER: _ClassVar[int]
    colour: int
    house: int
    def __init__(self, colour: _Optional[int] = ..., house: _Optional[int] = ...) -> None: ...

class PaxPenningChangeStanding(_message.Message):
    __slots__ = ("position",)
    POSITION_FIELD_NUMBER: _ClassVar[int]
    position: int
    def __init__(self, position: _Optional[int] = ...) -> None: ...

class PaxPenningAnnounceLoyalty(_message.Message):
    __slots__ = ("seat", "coin")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COIN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    coin: int
    def __init__(self, seat: _Optional[int] = ..., coin: _Optional[int] = ...) -> None: ...

class PaxPenningChooseBowl(_message.Message):
    __slots__ = ("bowl", "piece")
    BOWL_FIELD_NUMBER: _ClassVar[int]
    PIECE_FIELD_NUMBER: _ClassVar[int]
    bowl: int
    piece: PaxPenningPiece
    def __init__(self, bowl: _Optional[int] = ..., piece: _Optional[_Union[PaxPenningPiece, str]] = ...) -> None: ...

class PaxPenningResolve(_message.Message):
    __slots__ = ("slot", "die")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    DIE_FIELD_NUMBER: _ClassVar[int]
    slot: int
    die: int
    def __init__(self, slot: _Optional[int] = ..., die: _Optional[int] = ...) -> None: ...

class PaxPenningPlaceRunestone(_message.Message):
    __slots__ = ("crossroads", "colour")
    CROSSROADS_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    crossroads: int
    colour: int
    def __init__(self, crossroads: _Optional[int] = ..., colour: _Optional[int] = ...) -> None: ...

class PaxPenningPlaceDie(_message.Message):
    __slots__ = ("space",)
    SPACE_FIELD_NUMBER: _ClassVar[int]
    space: int
    def __init__(self, space: _Optional[int] = ...) -> None: ...

class PaxPenningRemoveDie(_message.Message):
    __slots__ = ("space",)
    SPACE_FIELD_NUMBER: _ClassVar[int]
    space: int
    def __init__(self, space: _Optional[int] = ...) -> None: ...

class PaxPenningMovePawn(_message.Message):
    __slots__ = ("pawn",)
    PAWN_FIELD_NUMBER: _ClassVar[int]
    pawn: int
    def __init__(self, pawn: _Optional[int] = ...) -> None: ...

class PaxPenningPlaceStone(_message.Message):
    __slots__ = ("colour",)
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    colour: int
    def __init__(self, colour: _Optional[int] = ...) -> None: ...

class PaxPenningReturnPawn(_message.Message):
    __slots__ = ("star",)
    STAR_FIELD_NUMBER: _ClassVar[int]
    star: int
    def __init__(self, star: _Optional[int] = ...) -> None: ...

class PaxPenningVote(_message.Message):
    __slots__ = ("support",)
    SUPPORT_FIELD_NUMBER: _ClassVar[int]
    support: bool
    def __init__(self, support: _Optional[bool] = ...) -> None: ...

class PaxPenningChooseHeir(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class PaxPenningMove(_message.Message):
    __slots__ = ("draw", "gather", "ask_blessing", "bless", "roll", "send_stone", "change_standing", "announce_loyalty", "choose_bowl", "resolve", "place_runestone", "place_die", "remove_die", "move_pawn", "place_stone", "return_pawn", "vote", "choose_heir")
    DRAW_FIELD_NUMBER: _ClassVar[int]
    GATHER_FIELD_NUMBER: _ClassVar[int]
    ASK_BLESSING_FIELD_NUMBER: _ClassVar[int]
    BLESS_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    SEND_STONE_FIELD_NUMBER: _ClassVar[int]
    CHANGE_STANDING_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCE_LOYALTY_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_BOWL_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_FIELD_NUMBER: _ClassVar[int]
    PLACE_RUNESTONE_FIELD_NUMBER: _ClassVar[int]
    PLACE_DIE_FIELD_NUMBER: _ClassVar[int]
    REMOVE_DIE_FIELD_NUMBER: _ClassVar[int]
    MOVE_PAWN_FIELD_NUMBER: _ClassVar[int]
    PLACE_STONE_FIELD_NUMBER: _ClassVar[int]
    RETURN_PAWN_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_HEIR_FIELD_NUMBER: _ClassVar[int]
    draw: PaxPenningDraw
    gather: PaxPenningGather
    ask_blessing: PaxPenningAskBlessing
    bless: PaxPenningBless
    roll: PaxPenningRoll
    send_stone: PaxPenningSendStone
    change_standing: PaxPenningChangeStanding
    announce_loyalty: PaxPenningAnnounceLoyalty
    choose_bowl: PaxPenningChooseBowl
    resolve: PaxPenningResolve
    place_runestone: PaxPenningPlaceRunestone
    place_die: PaxPenningPlaceDie
    remove_die: PaxPenningRemoveDie
    move_pawn: PaxPenningMovePawn
    place_stone: PaxPenningPlaceStone
    return_pawn: PaxPenningReturnPawn
    vote: PaxPenningVote
    choose_heir: PaxPenningChooseHeir
    def __init__(self, draw: _Optional[_Union[PaxPenningDraw, _Mapping]] = ..., gather: _Optional[_Union[PaxPenningGather, _Mapping]] = ..., ask_blessing: _Optional[_Union[PaxPenningAskBlessing, _Mapping]] = ..., bless: _Optional[_Union[PaxPenningBless, _Mapping]] = ..., roll: _Optional[_Union[PaxPenningRoll, _Mapping]] = ..., send_stone: _Optional[_Union[PaxPenningSendStone, _Mapping]] = ..., change_standing: _Optional[_Union[PaxPenningChangeStanding, _Mapping]] = ..., announce_loyalty: _Optional[_Union[PaxPenningAnnounceLoyalty, _Mapping]] = ..., choose_bowl: _Optional[_Union[PaxPenningChooseBowl, _Mapping]] = ..., resolve: _Optional[_Union[PaxPenningResolve, _Mapping]] = ..., place_runestone: _Optional[_Union[PaxPenningPlaceRunestone, _Mapping]] = ..., place_die: _Optional[_Union[PaxPenningPlaceDie, _Mapping]] = ..., remove_die: _Optional[_Union[PaxPenningRemoveDie, _Mapping]] = ..., move_pawn: _Optional[_Union[PaxPenningMovePawn, _Mapping]] = ..., place_stone: _Optional[_Union[PaxPenningPlaceStone, _Mapping]] = ..., return_pawn: _Optional[_Union[PaxPenningReturnPawn, _Mapping]] = ..., vote: _Optional[_Union[PaxPenningVote, _Mapping]] = ..., choose_heir: _Optional[_Union[PaxPenningChooseHeir, _Mapping]] = ...) -> None: ...

class PaxPenningEvent(_message.Message):
    __slots__ = ("value", "colours", "seats", "secret", "viewers")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COLOURS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    VIEWERS_FIELD_NUMBER: _ClassVar[int]
    value: int
    colours: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    secret: bool
    viewers: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, value: _Optional[int] = ..., colours: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[int]] = ..., secret: _Optional[bool] = ..., viewers: _Optional[_Iterable[int]] = ...) -> None: ...
