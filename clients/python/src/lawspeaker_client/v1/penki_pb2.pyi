from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PenkiSetup(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_SETUP_UNSPECIFIED: _ClassVar[PenkiSetup]
    PENKI_SETUP_PAIR_BY_PAIR: _ClassVar[PenkiSetup]
    PENKI_SETUP_RANDOM_PAIRS: _ClassVar[PenkiSetup]

class PenkiTiles(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_TILES_UNSPECIFIED: _ClassVar[PenkiTiles]
    PENKI_TILES_HORIZONTAL_ONLY: _ClassVar[PenkiTiles]
    PENKI_TILES_UPRIGHT_ALLOWED: _ClassVar[PenkiTiles]

class PenkiAlignment(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_ALIGNMENT_UNSPECIFIED: _ClassVar[PenkiAlignment]
    PENKI_ALIGNMENT_CAVITIES: _ClassVar[PenkiAlignment]
    PENKI_ALIGNMENT_TILES: _ClassVar[PenkiAlignment]

class PenkiStuck(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_STUCK_UNSPECIFIED: _ClassVar[PenkiStuck]
    PENKI_STUCK_SKIP_TURN: _ClassVar[PenkiStuck]
    PENKI_STUCK_DRAW: _ClassVar[PenkiStuck]

class PenkiPiece(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_PIECE_UNSPECIFIED: _ClassVar[PenkiPiece]
    PENKI_PIECE_LIGHT: _ClassVar[PenkiPiece]
    PENKI_PIECE_DARK: _ClassVar[PenkiPiece]
    PENKI_PIECE_JOKER: _ClassVar[PenkiPiece]

class PenkiOrientation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_ORIENTATION_UNSPECIFIED: _ClassVar[PenkiOrientation]
    PENKI_ORIENTATION_HORIZONTAL: _ClassVar[PenkiOrientation]
    PENKI_ORIENTATION_UPRIGHT: _ClassVar[PenkiOrientation]

class PenkiPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PENKI_PHASE_UNSPECIFIED: _ClassVar[PenkiPhase]
    PENKI_PHASE_DRAW: _ClassVar[PenkiPhase]
    PENKI_PHASE_PLAY: _ClassVar[PenkiPhase]
    PENKI_PHASE_CONNECT: _ClassVar[PenkiPhase]
    PENKI_PHASE_OVER: _ClassVar[PenkiPhase]
PENKI_SETUP_UNSPECIFIED: PenkiSetup
PENKI_SETUP_PAIR_BY_PAIR: PenkiSetup
PENKI_SETUP_RANDOM_PAIRS: PenkiSetup
PENKI_TILES_UNSPECIFIED: PenkiTiles
PENKI_TILES_HORIZONTAL_ONLY: PenkiTiles
PENKI_TILES_UPRIGHT_ALLOWED: PenkiTiles
PENKI_ALIGNMENT_UNSPECIFIED: PenkiAlignment
PENKI_ALIGNMENT_CAVITIES: PenkiAlignment
PENKI_ALIGNMENT_TILES: PenkiAlignment
PENKI_STUCK_UNSPECIFIED: PenkiStuck
PENKI_STUCK_SKIP_TURN: PenkiStuck
PENKI_STUCK_DRAW: PenkiStuck
PENKI_PIECE_UNSPECIFIED: PenkiPiece
PENKI_PIECE_LIGHT: PenkiPiece
PENKI_PIECE_DARK: PenkiPiece
PENKI_PIECE_JOKER: PenkiPiece
PENKI_ORIENTATION_UNSPECIFIED: PenkiOrientation
PENKI_ORIENTATION_HORIZONTAL: PenkiOrientation
PENKI_ORIENTATION_UPRIGHT: PenkiOrientation
PENKI_PHASE_UNSPECIFIED: PenkiPhase
PENKI_PHASE_DRAW: PenkiPhase
PENKI_PHASE_PLAY: PenkiPhase
PENKI_PHASE_CONNECT: PenkiPhase
PENKI_PHASE_OVER: PenkiPhase

class PenkiOptions(_message.Message):
    __slots__ = ("setup", "tiles", "alignment", "stuck")
    SETUP_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    ALIGNMENT_FIELD_NUMBER: _ClassVar[int]
    STUCK_FIELD_NUMBER: _ClassVar[int]
    setup: PenkiSetup
    tiles: PenkiTiles
    alignment: PenkiAlignment
    stuck: PenkiStuck
    def __init__(self, setup: _Optional[_Union[PenkiSetup, str]] = ..., tiles: _Optional[_Union[PenkiTiles, str]] = ..., alignment: _Optional[_Union[PenkiAlignment, str]] = ..., stuck: _Optional[_Union[PenkiStuck, str]] = ...) -> None: ...

class PenkiPair(_message.Message):
    __slots__ = ("first", "second")
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    first: PenkiPiece
    second: PenkiPiece
    def __init__(self, first: _Optional[_Union[PenkiPiece, str]] = ..., second: _Optional[_Union[PenkiPiece, str]] = ...) -> None: ...

class PenkiBag(_message.Message):
    __slots__ = ("light", "dark", "joker")
    LIGHT_FIELD_NUMBER: _ClassVar[int]
    DARK_FIELD_NUMBER: _ClassVar[int]
    JOKER_FIELD_NUMBER: _ClassVar[int]
    light: int
    dark: int
    joker: int
    def __init__(self, light: _Optional[int] = ..., dark: _Optional[int] = ..., joker: _Optional[int] = ...) -> None: ...

class PenkiHand(_message.Message):
    __slots__ = ("pairs",)
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    pairs: _containers.RepeatedCompositeFieldContainer[PenkiPair]
    def __init__(self, pairs: _Optional[_Iterable[_Union[PenkiPair, _Mapping]]] = ...) -> None: ...

class PenkiTile(_message.Message):
    __slots__ = ("x", "y", "orientation", "first", "second")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    orientation: PenkiOrientation
    first: PenkiPiece
    second: PenkiPiece
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., orientation: _Optional[_Union[PenkiOrientation, str]] = ..., first: _Optional[_Union[PenkiPiece, str]] = ..., second: _Optional[_Union[PenkiPiece, str]] = ...) -> None: ...

class PenkiState(_message.Message):
    __slots__ = ("options", "phase", "turn", "bag", "hands", "tiles", "winner", "ply")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    BAG_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    options: PenkiOptions
    phase: PenkiPhase
    turn: int
    bag: PenkiBag
    hands: _containers.RepeatedCompositeFieldContainer[PenkiHand]
    tiles: _containers.RepeatedCompositeFieldContainer[PenkiTile]
    winner: int
    ply: int
    def __init__(self, options: _Optional[_Union[PenkiOptions, _Mapping]] = ..., phase: _Optional[_Union[PenkiPhase, str]] = ..., turn: _Optional[int] = ..., bag: _Optional[_Union[PenkiBag, _Mapping]] = ..., hands: _Optional[_Iterable[_Union[PenkiHand, _Mapping]]] = ..., tiles: _Optional[_Iterable[_Union[PenkiTile, _Mapping]]] = ..., winner: _Optional[int] = ..., ply: _Optional[int] = ...) -> None: ...

class PenkiDraw(_message.Message):
    __slots__ = ("pair",)
    PAIR_FIELD_NUMBER: _ClassVar[int]
    pair: PenkiPair
    def __init__(self, pair: _Optional[_Union[PenkiPair, _Mapping]] = ...) -> None: ...

class PenkiConnectTile(_message.Message):
    __slots__ = ("x", "y", "orientation")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    orientation: PenkiOrientation
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., orientation: _Optional[_Union[PenkiOrientation, str]] = ...) -> None: ...

class PenkiPlacePair(_message.Message):
    __slots__ = ("x", "y", "first", "second")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    first: PenkiPiece
    second: PenkiPiece
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., first: _Optional[_Union[PenkiPiece, str]] = ..., second: _Optional[_Union[PenkiPiece, str]] = ...) -> None: ...

class PenkiPass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PenkiMove(_message.Message):
    __slots__ = ("draw", "connect_tile", "place_pair")
    DRAW_FIELD_NUMBER: _ClassVar[int]
    CONNECT_TILE_FIELD_NUMBER: _ClassVar[int]
    PLACE_PAIR_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    draw: PenkiDraw
    connect_tile: PenkiConnectTile
    place_pair: PenkiPlacePair
    def __init__(self, draw: _Optional[_Union[PenkiDraw, _Mapping]] = ..., connect_tile: _Optional[_Union[PenkiConnectTile, _Mapping]] = ..., place_pair: _Optional[_Union[PenkiPlacePair, _Mapping]] = ..., **kwargs) -> None: ...

class PenkiCavity(_message.Message):
    __slots__ = ("x", "y")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ...) -> None: ...

class PenkiEvent(_message.Message):
    __slots__ = ("pair", "tile", "row", "hands")
    PAIR_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    pair: PenkiPair
    tile: PenkiTile
    row: _containers.RepeatedCompositeFieldContainer[PenkiCavity]
    hands: _containers.RepeatedCompositeFieldContainer[PenkiHand]
    def __init__(self, pair: _Optional[_Union[PenkiPair, _Mapping]] = ..., tile: _Optional[_Union[PenkiTile, _Mapping]] = ..., row: _Optional[_Iterable[_Union[PenkiCavity, _Mapping]]] = ..., hands: _Optional[_Iterable[_Union[PenkiHand, _Mapping]]] = ...) -> None: ...
