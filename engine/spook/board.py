"""The mansion (S2–S4), reconstructed to fit every fact of the source text.

Locations are strings: ``"foyer"``, ``"staircase"`` and the rooms ``"1"`` … ``"10"`` (``"1"`` is the Ace room,
``"10"`` the chapel).  Doors are undirected.
"""

from __future__ import annotations

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
