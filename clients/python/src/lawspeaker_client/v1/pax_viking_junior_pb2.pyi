from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PaxVikingJuniorPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_VIKING_JUNIOR_PHASE_UNSPECIFIED: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_SETUP_DEAL: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_SETUP_START: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_SETUP_BOARD: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_SETUP_TILE: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_SETUP_CAT: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_JOURNEY: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_DRAW_OFFER: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_DRAWING: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_CHOOSE_TILE: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_PLACE_CATS: _ClassVar[PaxVikingJuniorPhase]
    PAX_VIKING_JUNIOR_PHASE_OVER: _ClassVar[PaxVikingJuniorPhase]

class PaxVikingJuniorVictoryCards(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_VIKING_JUNIOR_VICTORY_CARDS_UNSPECIFIED: _ClassVar[PaxVikingJuniorVictoryCards]
    PAX_VIKING_JUNIOR_VICTORY_CARDS_STANDARD: _ClassVar[PaxVikingJuniorVictoryCards]
    PAX_VIKING_JUNIOR_VICTORY_CARDS_LONGER: _ClassVar[PaxVikingJuniorVictoryCards]

class PaxVikingJuniorKittenTie(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_VIKING_JUNIOR_KITTEN_TIE_UNSPECIFIED: _ClassVar[PaxVikingJuniorKittenTie]
    PAX_VIKING_JUNIOR_KITTEN_TIE_FRIEND_KEEPS: _ClassVar[PaxVikingJuniorKittenTie]
    PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY: _ClassVar[PaxVikingJuniorKittenTie]

class PaxVikingJuniorBuff(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAX_VIKING_JUNIOR_BUFF_UNSPECIFIED: _ClassVar[PaxVikingJuniorBuff]
    PAX_VIKING_JUNIOR_BUFF_SILFR: _ClassVar[PaxVikingJuniorBuff]
    PAX_VIKING_JUNIOR_BUFF_SCROLLS: _ClassVar[PaxVikingJuniorBuff]
PAX_VIKING_JUNIOR_PHASE_UNSPECIFIED: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_SETUP_DEAL: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_SETUP_START: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_SETUP_BOARD: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_SETUP_TILE: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_SETUP_CAT: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_JOURNEY: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_DRAW_OFFER: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_DRAWING: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_CHOOSE_TILE: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_PLACE_CATS: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_PHASE_OVER: PaxVikingJuniorPhase
PAX_VIKING_JUNIOR_VICTORY_CARDS_UNSPECIFIED: PaxVikingJuniorVictoryCards
PAX_VIKING_JUNIOR_VICTORY_CARDS_STANDARD: PaxVikingJuniorVictoryCards
PAX_VIKING_JUNIOR_VICTORY_CARDS_LONGER: PaxVikingJuniorVictoryCards
PAX_VIKING_JUNIOR_KITTEN_TIE_UNSPECIFIED: PaxVikingJuniorKittenTie
PAX_VIKING_JUNIOR_KITTEN_TIE_FRIEND_KEEPS: PaxVikingJuniorKittenTie
PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY: PaxVikingJuniorKittenTie
PAX_VIKING_JUNIOR_BUFF_UNSPECIFIED: PaxVikingJuniorBuff
PAX_VIKING_JUNIOR_BUFF_SILFR: PaxVikingJuniorBuff
PAX_VIKING_JUNIOR_BUFF_SCROLLS: PaxVikingJuniorBuff

class PaxVikingJuniorOptions(_message.Message):
    __slots__ = ("victory_cards", "buff", "starting_seat", "seat_boards", "kitten_tie", "components", "return_journeys")
    VICTORY_CARDS_FIELD_NUMBER: _ClassVar[int]
    BUFF_FIELD_NUMBER: _ClassVar[int]
    STARTING_SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_BOARDS_FIELD_NUMBER: _ClassVar[int]
    KITTEN_TIE_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    RETURN_JOURNEYS_FIELD_NUMBER: _ClassVar[int]
    victory_cards: PaxVikingJuniorVictoryCards
    buff: bool
    starting_seat: int
    seat_boards: _containers.RepeatedScalarFieldContainer[str]
    kitten_tie: PaxVikingJuniorKittenTie
    components: str
    return_journeys: bool
    def __init__(self, victory_cards: _Optional[_Union[PaxVikingJuniorVictoryCards, str]] = ..., buff: _Optional[bool] = ..., starting_seat: _Optional[int] = ..., seat_boards: _Optional[_Iterable[str]] = ..., kitten_tie: _Optional[_Union[PaxVikingJuniorKittenTie, str]] = ..., components: _Optional[str] = ..., return_journeys: _Optional[bool] = ...) -> None: ...

class PaxVikingJuniorPlayer(_message.Message):
    __slots__ = ("board", "ship", "silfr", "scrolls", "kittens_left", "big_cats_left")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    SHIP_FIELD_NUMBER: _ClassVar[int]
    SILFR_FIELD_NUMBER: _ClassVar[int]
    SCROLLS_FIELD_NUMBER: _ClassVar[int]
    KITTENS_LEFT_FIELD_NUMBER: _ClassVar[int]
    BIG_CATS_LEFT_FIELD_NUMBER: _ClassVar[int]
    board: int
    ship: int
    silfr: int
    scrolls: int
    kittens_left: int
    big_cats_left: int
    def __init__(self, board: _Optional[int] = ..., ship: _Optional[int] = ..., silfr: _Optional[int] = ..., scrolls: _Optional[int] = ..., kittens_left: _Optional[int] = ..., big_cats_left: _Optional[int] = ...) -> None: ...

class PaxVikingJuniorRegion(_message.Message):
    __slots__ = ("tiles", "kittens", "big_cat", "friend_seat")
    TILES_FIELD_NUMBER: _ClassVar[int]
    KITTENS_FIELD_NUMBER: _ClassVar[int]
    BIG_CAT_FIELD_NUMBER: _ClassVar[int]
    FRIEND_SEAT_FIELD_NUMBER: _ClassVar[int]
    tiles: _containers.RepeatedScalarFieldContainer[int]
    kittens: _containers.RepeatedScalarFieldContainer[int]
    big_cat: int
    friend_seat: int
    def __init__(self, tiles: _Optional[_Iterable[int]] = ..., kittens: _Optional[_Iterable[int]] = ..., big_cat: _Optional[int] = ..., friend_seat: _Optional[int] = ...) -> None: ...

class PaxVikingJuniorState(_message.Message):
    __slots__ = ("options", "players", "phase", "actor", "turn", "start", "step", "seats", "cards", "lid", "drawn", "to_draw", "regions", "buffed", "placed", "winner", "won_card", "ply")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    LID_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    TO_DRAW_FIELD_NUMBER: _ClassVar[int]
    REGIONS_FIELD_NUMBER: _ClassVar[int]
    BUFFED_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    WON_CARD_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    options: PaxVikingJuniorOptions
    players: int
    phase: PaxVikingJuniorPhase
    actor: int
    turn: int
    start: int
    step: int
    seats: _containers.RepeatedCompositeFieldContainer[PaxVikingJuniorPlayer]
    cards: _containers.RepeatedScalarFieldContainer[int]
    lid: _containers.RepeatedScalarFieldContainer[int]
    drawn: _containers.RepeatedScalarFieldContainer[int]
    to_draw: int
    regions: _containers.RepeatedCompositeFieldContainer[PaxVikingJuniorRegion]
    buffed: bool
    placed: int
    winner: int
    won_card: int
    ply: int
    def __init__(self, options: _Optional[_Union[PaxVikingJuniorOptions, _Mapping]] = ..., players: _Optional[int] = ..., phase: _Optional[_Union[PaxVikingJuniorPhase, str]] = ..., actor: _Optional[int] = ..., turn: _Optional[int] = ..., start: _Optional[int] = ..., step: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[PaxVikingJuniorPlayer, _Mapping]]] = ..., cards: _Optional[_Iterable[int]] = ..., lid: _Optional[_Iterable[int]] = ..., drawn: _Optional[_Iterable[int]] = ..., to_draw: _Optional[int] = ..., regions: _Optional[_Iterable[_Union[PaxVikingJuniorRegion, _Mapping]]] = ..., buffed: _Optional[bool] = ..., placed: _Optional[int] = ..., winner: _Optional[int] = ..., won_card: _Optional[int] = ..., ply: _Optional[int] = ...) -> None: ...

class PaxVikingJuniorDraw(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: int
    def __init__(self, outcome: _Optional[int] = ...) -> None: ...

class PaxVikingJuniorChooseBoard(_message.Message):
    __slots__ = ("board",)
    BOARD_FIELD_NUMBER: _ClassVar[int]
    board: int
    def __init__(self, board: _Optional[int] = ...) -> None: ...

class PaxVikingJuniorJourney(_message.Message):
    __slots__ = ("region", "buff")
    REGION_FIELD_NUMBER: _ClassVar[int]
    BUFF_FIELD_NUMBER: _ClassVar[int]
    region: int
    buff: PaxVikingJuniorBuff
    def __init__(self, region: _Optional[int] = ..., buff: _Optional[_Union[PaxVikingJuniorBuff, str]] = ...) -> None: ...

class PaxVikingJuniorDrawTiles(_message.Message):
    __slots__ = ("count", "buff")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    BUFF_FIELD_NUMBER: _ClassVar[int]
    count: int
    buff: PaxVikingJuniorBuff
    def __init__(self, count: _Optional[int] = ..., buff: _Optional[_Union[PaxVikingJuniorBuff, str]] = ...) -> None: ...

class PaxVikingJuniorSkipDraw(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PaxVikingJuniorPlaceTile(_message.Message):
    __slots__ = ("tile",)
    TILE_FIELD_NUMBER: _ClassVar[int]
    tile: int
    def __init__(self, tile: _Optional[int] = ...) -> None: ...

class PaxVikingJuniorReturnTiles(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PaxVikingJuniorPlaceKittens(_message.Message):
    __slots__ = ("count", "buff")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    BUFF_FIELD_NUMBER: _ClassVar[int]
    count: int
    buff: PaxVikingJuniorBuff
    def __init__(self, count: _Optional[int] = ..., buff: _Optional[_Union[PaxVikingJuniorBuff, str]] = ...) -> None: ...

class PaxVikingJuniorPlaceBigCat(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PaxVikingJuniorPickUpCats(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PaxVikingJuniorMove(_message.Message):
    __slots__ = ("draw", "choose_board", "journey", "draw_tiles", "skip_draw", "place_tile", "return_tiles", "place_kittens", "place_big_cat", "pick_up_cats")
    DRAW_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_BOARD_FIELD_NUMBER: _ClassVar[int]
    JOURNEY_FIELD_NUMBER: _ClassVar[int]
    DRAW_TILES_FIELD_NUMBER: _ClassVar[int]
    SKIP_DRAW_FIELD_NUMBER: _ClassVar[int]
    PLACE_TILE_FIELD_NUMBER: _ClassVar[int]
    RETURN_TILES_FIELD_NUMBER: _ClassVar[int]
    PLACE_KITTENS_FIELD_NUMBER: _ClassVar[int]
    PLACE_BIG_CAT_FIELD_NUMBER: _ClassVar[int]
    PICK_UP_CATS_FIELD_NUMBER: _ClassVar[int]
    draw: PaxVikingJuniorDraw
    choose_board: PaxVikingJuniorChooseBoard
    journey: PaxVikingJuniorJourney
    draw_tiles: PaxVikingJuniorDrawTiles
    skip_draw: PaxVikingJuniorSkipDraw
    place_tile: PaxVikingJuniorPlaceTile
    return_tiles: PaxVikingJuniorReturnTiles
    place_kittens: PaxVikingJuniorPlaceKittens
    place_big_cat: PaxVikingJuniorPlaceBigCat
    pick_up_cats: PaxVikingJuniorPickUpCats
    def __init__(self, draw: _Optional[_Union[PaxVikingJuniorDraw, _Mapping]] = ..., choose_board: _Optional[_Union[PaxVikingJuniorChooseBoard, _Mapping]] = ..., journey: _Optional[_Union[PaxVikingJuniorJourney, _Mapping]] = ..., draw_tiles: _Optional[_Union[PaxVikingJuniorDrawTiles, _Mapping]] = ..., skip_draw: _Optional[_Union[PaxVikingJuniorSkipDraw, _Mapping]] = ..., place_tile: _Optional[_Union[PaxVikingJuniorPlaceTile, _Mapping]] = ..., return_tiles: _Optional[_Union[PaxVikingJuniorReturnTiles, _Mapping]] = ..., place_kittens: _Optional[_Union[PaxVikingJuniorPlaceKittens, _Mapping]] = ..., place_big_cat: _Optional[_Union[PaxVikingJuniorPlaceBigCat, _Mapping]] = ..., pick_up_cats: _Optional[_Union[PaxVikingJuniorPickUpCats, _Mapping]] = ...) -> None: ...

class PaxVikingJuniorEvent(_message.Message):
    __slots__ = ("region", "tiles", "card", "silfr", "scrolls", "count", "seats")
    REGION_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SILFR_FIELD_NUMBER: _ClassVar[int]
    SCROLLS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    region: int
    tiles: _containers.RepeatedScalarFieldContainer[int]
    card: int
    silfr: int
    scrolls: int
    count: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, region: _Optional[int] = ..., tiles: _Optional[_Iterable[int]] = ..., card: _Optional[int] = ..., silfr: _Optional[int] = ..., scrolls: _Optional[int] = ..., count: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ...) -> None: ...
