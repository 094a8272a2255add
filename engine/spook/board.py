"""The mansion (S2–S4), reconstructed to fit every fact of the source text, and where ghosts stand in it (S9,
S11), shared by the engine and the bots.

Locations are strings: ``"foyer"``, ``"staircase"`` and the rooms ``"1"`` … ``"10"`` (``"1"`` is the Ace room,
``"10"`` the chapel).  Doors are undirected.  A board's ``rooms[i]`` is the ghost in room ``i + 1`` (or ``None``).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.spook.cards import QUEEN, VALUE

FOYER = "foyer"
STAIRCASE = "staircase"
ROOMS = tuple(str(n) for n in range(1, 11))
"""The ten rooms in number order (S2); index ``i`` holds room ``i + 1``."""
LOCATIONS = (FOYER, STAIRCASE, *ROOMS)

ROOM_INDEX: dict[str, int] = {room: i for i, room in enumerate(ROOMS)}

WINGS: dict[str, tuple[str, str, str]] = {
    "west": ("1", "2", "3"),
    "east": ("4", "5", "6"),
    "upper": ("7", "8", "9"),
}
"""S3: three wings of three rooms; room 10 (the chapel) belongs to none, nor do the foyer and the staircase."""

WING_OF: dict[str, str] = {room: wing for wing, rooms in WINGS.items() for room in rooms}

DOORS: tuple[tuple[str, str], ...] = (
    (FOYER, STAIRCASE),
    (FOYER, "1"),
    (FOYER, "4"),
    (FOYER, "10"),
    (STAIRCASE, "7"),
    ("1", "2"),
    ("2", "3"),
    ("3", "9"),
    ("4", "5"),
    ("5", "6"),
    ("6", "10"),
    ("7", "8"),
    ("8", "9"),
)
"""S4: the doors between locations."""

NEIGHBOURS: dict[str, tuple[str, ...]] = {
    place: tuple(sorted((b if a == place else a for a, b in DOORS if place in (a, b)), key=LOCATIONS.index))
    for place in LOCATIONS
}
"""Every location's neighbours through one door, in ``LOCATIONS`` order."""


def first_free(rooms: Sequence[str | None], omen: str) -> int | None:
    """S9: the index of the room where a ghost appears, the omen's or the first free one above it (10 wraps to
    1); ``None``: every room is haunted (the staircase)."""
    start = ROOM_INDEX[omen]
    n = len(rooms)
    return next(((start + k) % n for k in range(n) if rooms[(start + k) % n] is None), None)


def ghosts_at(rooms: Sequence[str | None], staircase: list[str], place: str) -> list[str]:
    """The ghosts at ``place``, those a hunt there may name (S11): the staircase's (that very list, S6, S9), a
    room's one, or none (the foyer)."""
    if place == STAIRCASE:
        return staircase
    index = ROOM_INDEX.get(place)
    ghost = None if index is None else rooms[index]
    return [] if ghost is None else [ghost]


def wing_ghosts(rooms: Sequence[str | None], place: str) -> list[tuple[str, str]]:
    """S11: the rooms and ghosts a wing clear from ``place`` (a room of a wing, S3) removes: all its wing's but
    the Queen, in room order."""
    found = ((room, rooms[ROOM_INDEX[room]]) for room in WINGS[WING_OF[place]])
    return [(room, ghost) for room, ghost in found if ghost is not None and ghost != QUEEN]


def remove_ghost(rooms: list[str | None], staircase: list[str], place: str, ghost: str) -> None:
    """S11: a ghost hunted at ``place`` leaves the board (a room is free again)."""
    if place == STAIRCASE:
        staircase.remove(ghost)
    else:
        rooms[ROOM_INDEX[place]] = None


def queen_value(rooms: Sequence[str | None], staircase: Sequence[str]) -> int:
    """S11: the Queen is worth the sum of every other ghost on the board, the staircase included."""
    return sum(VALUE[g] for g in (*rooms, *staircase) if g is not None and g != QUEEN)
