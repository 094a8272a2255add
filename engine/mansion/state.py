"""The whole game state in compact fields (ints and lists of ints), encoded as a MessagePack array.

Cards are ints: Ghost cards their kind (``cards.KINDS``), Haunt cards their value, Event cards their index in
``cards.EVENTS``.  Every deck keeps its top card at the end of its list.  Hands and collections stay sorted.
"""

from __future__ import annotations

from typing import Final

import msgspec

from engine.rng import Rng

# phases: who owes which decision (see ``MansionGame.prompts``)
PH_EVENT_DIRECTION: Final = 0  # the first player chooses the direction of an ``either`` event (M9)
PH_TURN: Final = 1  # the active seat takes actions (M13)
PH_DIALS: Final = 2  # both duellists set their dials (M17)
PH_TEA_PARTY: Final = 3  # the collector of a Tea Party chooses its direction (M6)
PH_GRIM_GRINNING: Final = 4  # the collector of a Grim Grinning may discard a Haunt card (M6)
PH_CANDLELIGHT: Final = 5  # a seat ending its turn in the Séance Room may discard a Haunt card (M7)
PH_OVER: Final = 6

NO_BID: Final = -1


class Options(msgspec.Struct, forbid_unknown_fields=True):
    """Call of the Spirits has no table options."""


class State(msgspec.Struct, array_like=True):
    seats: int
    rng: Rng
    commitment: str  # M30: SHA-256 of seed and table id, published at setup
    first: int  # the First Player marker (M13)
    round: int
    phase: int
    turn: int  # the seat taking its turn, -1 during the Event Phase
    turns_done: int  # turns finished this round
    actions: int  # actions left in the turn
    duels: int  # duels fought this turn (M17)
    discarded: bool  # the Discard-a-Haunt action was used this turn (M18)
    free_rotate_used: bool  # open_doors (M7)
    long_move_used: bool  # heavy_footsteps (M7)
    tea_steps: int  # the Tea Party move awaiting its direction (M6)
    duel: list[int]  # challenger, defender, card kind, challenger's bid, defender's bid; empty when no duel
    event: int  # the current Event card, -1 before the first round
    events_done: list[int]  # the Event cards of the rounds before, face up
    event_deck: list[int]
    removed_events: list[int]  # M8: removed unseen at setup
    rotation: int  # M2
    ghosts: int  # the Hitchhiking Ghosts' room
    pos: list[int]  # per seat: hallway section or SEANCE
    rooms: list[list[int]]  # Ghost cards lying in each room
    ghost_deck: list[int]
    haunt_deck: list[int]
    hands: list[list[int]]  # Haunt values per seat (hidden but for the owner)
    collections: list[list[int]]
    discards: list[list[int]]  # Ghost cards each seat discarded at the end (M20)
    scores: list[int]  # filled at the end (M21)
    winners: list[int]  # filled at the end (M22)
