"""Who plays a session's seats, as data (no I/O, no protobuf): display names, the seat events the
lobby and the host write in the move log, and the lobby's index entries.

A display name is the player's own words. It is normalised (NFC; control, format, surrogate,
private-use and unassigned characters removed, bidirectional overrides and isolates among them;
every run of whitespace made one space; trimmed) and must then be 1 to ``MAX_NAME`` characters: a
longer one is refused, not cut, so the player sees the name they will be shown. It is never
interpreted: the service stores and returns it as text, and the web app shows it as text.
"""

from __future__ import annotations

import re
import unicodedata

from lawspeaker.wire.codec import malformed

MAX_NAME = 32  # characters (code points) of a normalised display name
MAX_RAW_NAME = 1024  # longer input is refused before it is normalised: nothing to gain from reading it

# Seat events of the move log (LogExtra.event), beside clocks.RESIGNED, LEFT_TO_BOT and
# FORFEITED_ON_TIME (1-3): the numbers are SeatEventKind's.
CLAIMED = 4
TOKEN_REISSUED = 5
HANDED_TO_BOT = 6
OPENED = 7
CLOSED = 8

_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_SPACES = re.compile(r"\s+")


def display_name(raw: str, field: str, required: bool) -> str:
    """``raw`` normalised (see the module's docstring), or INVALID_ARGUMENT naming ``field``."""
    if len(raw) > MAX_RAW_NAME:
        raise malformed(field, f"is {len(raw)} characters long: at most {MAX_NAME}", "DISPLAY_NAME_TOO_LONG")
    text = unicodedata.normalize("NFC", raw)
    text = "".join(
        " " if unicodedata.category(c) in ("Zl", "Zp") or c in "\t\n\r\v\f" else c
        for c in text
        if c in "\t\n\r\v\f" or unicodedata.category(c) not in _DROPPED
    )
    text = _SPACES.sub(" ", text).strip()
    if len(text) > MAX_NAME:
        raise malformed(
            field,
            f"is {len(text)} characters long once normalised: at most {MAX_NAME}",
            "DISPLAY_NAME_TOO_LONG",
        )
    if required and not text:
        raise malformed(
            field,
            "is required: the name the other players see (letters, not only spaces or controls)",
            "DISPLAY_NAME_REQUIRED",
        )
    return text


def display_names(raw: list[str], players: int) -> list[str]:
    """CreateSession's display names, one per seat (missing ones empty)."""
    if len(raw) > players:
        raise malformed(
            "display_names",
            f"has {len(raw)} names for {players} seats: at most one per seat",
            "DISPLAY_NAMES_TOO_MANY",
        )
    names = [display_name(n, f"display_names[{i}]", False) for i, n in enumerate(raw)]
    return names + [""] * (players - len(names))


def lobby_entry(game: str, players: int, listed_us: int, session: str) -> str:
    """A session's lobby index entry: sorted by game, then players, then when it was listed (in
    microseconds)."""
    return f"{game}:{players:02d}:{listed_us:016d}:{session}"


def lobby_bounds(game: str, players: int) -> tuple[str, str]:
    """The lexicographic range of the lobby entries of ``game`` (every game: "") and ``players`` (0:
    any number; a number needs a game: the entries of one game are a range, those of a number of
    players across games are one range per game)."""
    if not game:
        return "", "\U0010ffff"
    prefix = f"{game}:" + (f"{players:02d}:" if players else "")
    return prefix, prefix + "\U0010ffff"


def entry_session(entry: str) -> str:
    """The session id of a lobby index entry."""
    return entry.split(":", 3)[3]


def seat_in(field: str, seat: int, players: int) -> int:
    if not 0 <= seat < players:
        raise malformed(field, f"must be a seat of this session: 0 to {players - 1}", "SEAT_OUT_OF_RANGE")
    return seat
