from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ValhallaStart(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALHALLA_START_UNSPECIFIED: _ClassVar[ValhallaStart]
    VALHALLA_START_LAYOUT: _ClassVar[ValhallaStart]
    VALHALLA_START_ENTER: _ClassVar[ValhallaStart]

class ValhallaScoring(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALHALLA_SCORING_UNSPECIFIED: _ClassVar[ValhallaScoring]
    VALHALLA_SCORING_RUNES: _ClassVar[ValhallaScoring]
    VALHALLA_SCORING_TRADITIONAL: _ClassVar[ValhallaScoring]

class ValhallaHagalaz(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALHALLA_HAGALAZ_UNSPECIFIED: _ClassVar[ValhallaHagalaz]
    VALHALLA_HAGALAZ_CANCELS_ANOTHER: _ClassVar[ValhallaHagalaz]
    VALHALLA_HAGALAZ_CANCELS_OWN: _ClassVar[ValhallaHagalaz]

class ValhallaEntryBlocked(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALHALLA_ENTRY_BLOCKED_UNSPECIFIED: _ClassVar[ValhallaEntryBlocked]
    VALHALLA_ENTRY_BLOCKED_FORFEIT: _ClassVar[ValhallaEntryBlocked]
    VALHALLA_ENTRY_BLOCKED_MOVE_ANOTHER: _ClassVar[ValhallaEntryBlocked]

class ValhallaColour(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALHALLA_COLOUR_UNSPECIFIED: _ClassVar[ValhallaColour]
    VALHALLA_COLOUR_LIGHT: _ClassVar[ValhallaColour]
    VALHALLA_COLOUR_DARK: _ClassVar[ValhallaColour]

class ValhallaPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALHALLA_PHASE_UNSPECIFIED: _ClassVar[ValhallaPhase]
    VALHALLA_PHASE_CHOOSING_COLOURS: _ClassVar[ValhallaPhase]
    VALHALLA_PHASE_CAST: _ClassVar[ValhallaPhase]
    VALHALLA_PHASE_MOVE: _ClassVar[ValhallaPhase]
    VALHALLA_PHASE_EXTRA_POINTS: _ClassVar[ValhallaPhase]
    VALHALLA_PHASE_OVER: _ClassVar[ValhallaPhase]
VALHALLA_START_UNSPECIFIED: ValhallaStart
VALHALLA_START_LAYOUT: ValhallaStart
VALHALLA_START_ENTER: ValhallaStart
VALHALLA_SCORING_UNSPECIFIED: ValhallaScoring
VALHALLA_SCORING_RUNES: ValhallaScoring
VALHALLA_SCORING_TRADITIONAL: ValhallaScoring
VALHALLA_HAGALAZ_UNSPECIFIED: ValhallaHagalaz
VALHALLA_HAGALAZ_CANCELS_ANOTHER: ValhallaHagalaz
VALHALLA_HAGALAZ_CANCELS_OWN: ValhallaHagalaz
VALHALLA_ENTRY_BLOCKED_UNSPECIFIED: ValhallaEntryBlocked
VALHALLA_ENTRY_BLOCKED_FORFEIT: ValhallaEntryBlocked
VALHALLA_ENTRY_BLOCKED_MOVE_ANOTHER: ValhallaEntryBlocked
VALHALLA_COLOUR_UNSPECIFIED: ValhallaColour
VALHALLA_COLOUR_LIGHT: ValhallaColour
VALHALLA_COLOUR_DARK: ValhallaColour
VALHALLA_PHASE_UNSPECIFIED: ValhallaPhase
VALHALLA_PHASE_CHOOSING_COLOURS: ValhallaPhase
VALHALLA_PHASE_CAST: ValhallaPhase
VALHALLA_PHASE_MOVE: ValhallaPhase
VALHALLA_PHASE_EXTRA_POINTS: ValhallaPhase
VALHALLA_PHASE_OVER: ValhallaPhase

class ValhallaOptions(_message.Message):
    __slots__ = ("start", "scoring", "hagalaz", "doubles", "entry_blocked")
    START_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    HAGALAZ_FIELD_NUMBER: _ClassVar[int]
    DOUBLES_FIELD_NUMBER: _ClassVar[int]
    ENTRY_BLOCKED_FIELD_NUMBER: _ClassVar[int]
    start: ValhallaStart
    scoring: ValhallaScoring
    hagalaz: ValhallaHagalaz
    doubles: bool
    entry_blocked: ValhallaEntryBlocked
    def __init__(self, start: _Optional[_Union[ValhallaStart, str]] = ..., scoring: _Optional[_Union[ValhallaScoring, str]] = ..., hagalaz: _Optional[_Union[ValhallaHagalaz, str]] = ..., doubles: _Optional[bool] = ..., entry_blocked: _Optional[_Union[ValhallaEntryBlocked, str]] = ...) -> None: ...

class ValhallaSticks(_message.Message):
    __slots__ = ("sowulo", "tiewaz", "gebo", "hagalaz")
    SOWULO_FIELD_NUMBER: _ClassVar[int]
    TIEWAZ_FIELD_NUMBER: _ClassVar[int]
    GEBO_FIELD_NUMBER: _ClassVar[int]
    HAGALAZ_FIELD_NUMBER: _ClassVar[int]
    sowulo: bool
    tiewaz: bool
    gebo: bool
    hagalaz: bool
    def __init__(self, sowulo: _Optional[bool] = ..., tiewaz: _Optional[bool] = ..., gebo: _Optional[bool] = ..., hagalaz: _Optional[bool] = ...) -> None: ...

class ValhallaShip(_message.Message):
    __slots__ = ("colour", "number", "position", "under_repair")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    UNDER_REPAIR_FIELD_NUMBER: _ClassVar[int]
    colour: ValhallaColour
    number: int
    position: int
    under_repair: bool
    def __init__(self, colour: _Optional[_Union[ValhallaColour, str]] = ..., number: _Optional[int] = ..., position: _Optional[int] = ..., under_repair: _Optional[bool] = ...) -> None: ...

class ValhallaState(_message.Message):
    __slots__ = ("options", "phase", "turn", "dark_seat", "ships", "cast", "points", "winner", "ply")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    DARK_SEAT_FIELD_NUMBER: _ClassVar[int]
    SHIPS_FIELD_NUMBER: _ClassVar[int]
    CAST_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    options: ValhallaOptions
    phase: ValhallaPhase
    turn: int
    dark_seat: int
    ships: _containers.RepeatedCompositeFieldContainer[ValhallaShip]
    cast: ValhallaSticks
    points: int
    winner: int
    ply: int
    def __init__(self, options: _Optional[_Union[ValhallaOptions, _Mapping]] = ..., phase: _Optional[_Union[ValhallaPhase, str]] = ..., turn: _Optional[int] = ..., dark_seat: _Optional[int] = ..., ships: _Optional[_Iterable[_Union[ValhallaShip, _Mapping]]] = ..., cast: _Optional[_Union[ValhallaSticks, _Mapping]] = ..., points: _Optional[int] = ..., winner: _Optional[int] = ..., ply: _Optional[int] = ...) -> None: ...

class ValhallaCast(_message.Message):
    __slots__ = ("sticks",)
    STICKS_FIELD_NUMBER: _ClassVar[int]
    sticks: ValhallaSticks
    def __init__(self, sticks: _Optional[_Union[ValhallaSticks, _Mapping]] = ...) -> None: ...

class ValhallaShipMove(_message.Message):
    __slots__ = ("ship", "to")
    SHIP_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    ship: int
    to: int
    def __init__(self, ship: _Optional[int] = ..., to: _Optional[int] = ...) -> None: ...

class ValhallaMove(_message.Message):
    __slots__ = ("cast", "move_ship")
    CAST_FIELD_NUMBER: _ClassVar[int]
    MOVE_SHIP_FIELD_NUMBER: _ClassVar[int]
    cast: ValhallaCast
    move_ship: ValhallaShipMove
    def __init__(self, cast: _Optional[_Union[ValhallaCast, _Mapping]] = ..., move_ship: _Optional[_Union[ValhallaShipMove, _Mapping]] = ...) -> None: ...

class ValhallaEvent(_message.Message):
    __slots__ = ("sticks", "score", "natural", "colour", "ship", "to")
    STICKS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    NATURAL_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    SHIP_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    sticks: ValhallaSticks
    score: int
    natural: bool
    colour: ValhallaColour
    ship: int
    to: int
    def __init__(self, sticks: _Optional[_Union[ValhallaSticks, _Mapping]] = ..., score: _Optional[int] = ..., natural: _Optional[bool] = ..., colour: _Optional[_Union[ValhallaColour, str]] = ..., ship: _Optional[int] = ..., to: _Optional[int] = ..., **kwargs) -> None: ...
