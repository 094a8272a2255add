"""Every piece of Call of the Spirits data: board, Ghost cards, Haunt cards, Event cards (rules M1–M8, M21).

Values marked *reconstructed* in the rules file live only here, so the printed values can replace them in one edit.
A card is a small int indexing its table: Ghost cards by kind (``KINDS``), Haunt cards by their value (1–3),
Event cards by ``EVENTS`` index.  Physically identical Ghost cards (two musicians, two 2-step Tea Parties) share a
kind; nothing in the rules tells them apart.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

MIN_SEATS: Final = 2
MAX_SEATS: Final = 6

# -- board (M1–M3) ---------------------------------------------------------------------------------------
ROOMS: Final = ("crypt", "graveyard", "attic", "ballroom", "dining_room", "library", "music_room")
"""M1: the seven outer rooms, clockwise, index 0–6."""
ROOM_COUNT: Final = 7
SECTIONS: Final = 6
"""M2: the Endless Hallway's sections 0–5; section ``s`` faces room ``(s + r) % 7`` at rotation ``r``."""
SEANCE: Final = -1
"""M3: the position of a seat in the Séance Room (otherwise its position is its hallway section)."""
CRYPT: Final = 0
"""M4: the Hitchhiking Ghosts start in the crypt."""

CW: Final = 1
CCW: Final = -1
EITHER: Final = 0
Direction = Literal["cw", "ccw"]
DIRECTION_SIGN: Final[dict[str, int]] = {"cw": CW, "ccw": CCW}
DIRECTION_NAME: Final[dict[int, Direction]] = {CW: "cw", CCW: "ccw"}
PRINTED_DIRECTION: Final[dict[int, Literal["cw", "ccw", "either"]]] = {CW: "cw", CCW: "ccw", EITHER: "either"}
"""M7: an Event card's printed arrows."""

# -- Ghost cards (M6, M21) -------------------------------------------------------------------------------
ICONS: Final = (
    "musician",
    "painting",
    "dancing",
    "tea_party",
    "grim_grinning",
    "ballroom",
    "groom",
    "portrait_tightrope",
    "portrait_dynamite",
    "portrait_quicksand",
    "portrait_tombstone",
)
"""M6: the 11 icons in the order M20 uses to break a tie (special ghosts have none)."""
NO_ICON: Final = -1

# effects applied when a card is collected from a room or drawn by a Groom (M6)
NO_EFFECT: Final = 0
MOVE_GHOSTS: Final = 1
MAY_DISCARD_HAUNT: Final = 2
DRAW_HAUNT: Final = 3
DRAW_GHOST: Final = 4


class GhostKind(NamedTuple):
    name: str
    icon: int
    copies: int
    effect: int = NO_EFFECT
    steps: int = 0  # Tea Party: rooms the Hitchhiking Ghosts move


KINDS: Final = (
    GhostKind("musician", 0, 15),
    GhostKind("painting", 1, 12),
    GhostKind("dancing", 2, 12),
    GhostKind("tea_party_1", 3, 4, MOVE_GHOSTS, 1),
    GhostKind("tea_party_2", 3, 4, MOVE_GHOSTS, 2),
    GhostKind("tea_party_3", 3, 2, MOVE_GHOSTS, 3),
    GhostKind("grim_grinning", 4, 8, MAY_DISCARD_HAUNT),
    GhostKind("ballroom", 5, 8, DRAW_HAUNT),
    GhostKind("groom", 6, 8, DRAW_GHOST),
    GhostKind("portrait_tightrope", 7, 4),
    GhostKind("portrait_dynamite", 8, 4),
    GhostKind("portrait_quicksand", 9, 4),
    GhostKind("portrait_tombstone", 10, 4),
    GhostKind("bride", NO_ICON, 2),
    GhostKind("headless_knight", NO_ICON, 2),
    GhostKind("madame_leota", NO_ICON, 2),
    GhostKind("organist", NO_ICON, 2),
    GhostKind("executioner", NO_ICON, 2),
)
"""M6 (reconstructed counts): the 18 distinguishable Ghost cards, 99 in all."""

GhostName = Literal[
    "musician",
    "painting",
    "dancing",
    "tea_party_1",
    "tea_party_2",
    "tea_party_3",
    "grim_grinning",
    "ballroom",
    "groom",
    "portrait_tightrope",
    "portrait_dynamite",
    "portrait_quicksand",
    "portrait_tombstone",
    "bride",
    "headless_knight",
    "madame_leota",
    "organist",
    "executioner",
]
KIND_NAMES: Final[tuple[GhostName, ...]] = tuple(k.name for k in KINDS)  # type: ignore[misc]
KIND_INDEX: Final[dict[str, int]] = {k.name: i for i, k in enumerate(KINDS)}
KIND_ICON: Final = tuple(k.icon for k in KINDS)
KIND_EFFECT: Final = tuple(k.effect for k in KINDS)
KIND_STEPS: Final = tuple(k.steps for k in KINDS)

(MUSICIAN, PAINTING, DANCING, TEA_1, TEA_2, TEA_3, GRIM, BALLROOM_GHOST, GROOM_GHOST) = range(9)
PORTRAITS: Final = (9, 10, 11, 12)
BRIDE, HEADLESS_KNIGHT, MADAME_LEOTA, ORGANIST, EXECUTIONER = range(13, 18)


def ghost_deck() -> list[int]:
    """The 99 Ghost cards, unshuffled."""
    return [kind for kind, card in enumerate(KINDS) for _ in range(card.copies)]


# -- Haunt cards (M5) ------------------------------------------------------------------------------------
HAUNT_COUNTS: Final[dict[int, int]] = {1: 50, 2: 40, 3: 30}
"""M5 (reconstructed counts): 120 Haunt cards valued 1–3."""


def haunt_deck() -> list[int]:
    """The 120 Haunt cards (their values), unshuffled."""
    return [value for value, count in HAUNT_COUNTS.items() for _ in range(count)]


# -- Event cards (M7, M12) -------------------------------------------------------------------------------
EventName = Literal[
    "candlelight",
    "restless_spirits",
    "open_doors",
    "cold_spot",
    "quiet_night",
    "stretching_room",
    "locked_hallway",
    "wandering_spirits",
    "busy_night",
    "seance_sealed",
    "truce",
    "bold_challenge",
    "heavy_footsteps",
    "final_round",
]


class EventCard(NamedTuple):
    name: EventName
    steps: int
    direction: int  # CW, CCW or EITHER (the first player chooses)


EVENTS: Final = (
    EventCard("candlelight", 3, CW),
    EventCard("restless_spirits", 2, CCW),
    EventCard("open_doors", 1, CW),
    EventCard("cold_spot", 2, CW),
    EventCard("quiet_night", 3, CCW),
    EventCard("stretching_room", 1, CCW),
    EventCard("locked_hallway", 2, EITHER),
    EventCard("wandering_spirits", 4, CW),
    EventCard("busy_night", 3, CW),
    EventCard("seance_sealed", 1, EITHER),
    EventCard("truce", 3, EITHER),
    EventCard("bold_challenge", 2, CCW),
    EventCard("heavy_footsteps", 4, CCW),
    EventCard("final_round", 0, CW),
)
"""M7 (reconstructed): the 13 event cards, then the Final Round card (M12): 14 Event cards."""
(
    CANDLELIGHT,
    RESTLESS_SPIRITS,
    OPEN_DOORS,
    COLD_SPOT,
    QUIET_NIGHT,
    STRETCHING_ROOM,
    LOCKED_HALLWAY,
    WANDERING_SPIRITS,
    BUSY_NIGHT,
    SEANCE_SEALED,
    TRUCE,
    BOLD_CHALLENGE,
    HEAVY_FOOTSTEPS,
    FINAL_ROUND,
) = range(14)
EVENT_CARDS: Final = 14
EVENT_NAMES: Final[tuple[EventName, ...]] = tuple(e.name for e in EVENTS)

# -- round numbers (M7, M11, M13) ------------------------------------------------------------------------
ACTIONS_PER_TURN: Final = 3
STRETCHING_ACTIONS: Final = 4
PLACED_EXTRA: Final = 3
"""M11: a round places seats + 3 Ghost cards; busy_night two more, the Final Round three more."""
BUSY_NIGHT_EXTRA: Final = 2
FINAL_ROUND_EXTRA: Final = 3
DIAL_MAX: Final = 3
"""M17: a duel dial is set to 0–3."""

# -- scoring (M21) ---------------------------------------------------------------------------------------
MUSICIAN_SET: Final = 5
PAINTING_SET_SCORES: Final = (0, 3, 0, 12)
"""M21: a set of 1 / 2 / 3 paintings scores 3 / 0 / 12; sets hold at most 3."""
PAINTING_SET: Final = len(PAINTING_SET_SCORES) - 1
DANCING_PAIR: Final = 7
FLAT_SCORES: Final[dict[int, int]] = {TEA_1: 2, TEA_2: 2, TEA_3: 2, GRIM: 2, BALLROOM_GHOST: 4, GROOM_GHOST: 1}
PORTRAIT_SAME_SET: Final = 15
"""M21: a set of 3 portraits of one kind scores 15."""
PORTRAIT_SAME_SIZE: Final = 3
PORTRAIT_MIXED_SET: Final = 18
"""M21: a set of 4 portraits of different kinds (one of each of ``PORTRAITS``) scores 18."""
LEOTA_LOWEST: Final = 13
LEOTA_DEFAULT: Final = 3
