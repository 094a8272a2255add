"""Who must decide now and every action they may take: the single source of legality (``apply`` accepts an
action exactly when it is listed here).

Prompts never depend on a hidden card: a targeted seat is always asked for its cat (G5) and every other seat
is always asked for a ghost at an escape (G11), even with none in hand, so a prompt never tells the table what
a hand holds; likewise a G4 build stops by itself only when the hand is empty or the house full.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from engine.contract import Prompt
from engine.ghost_at_home import actions as a
from engine.ghost_at_home.cards import (
    BULBS,
    CAT,
    CAT_FOOD,
    ELEVATOR,
    FLOOR,
    GHOST,
    JOKER,
    KIND,
    LIGHT_BULB,
    LIGHT_BULBS_NEEDED,
    LIGHTNING,
    ROOM,
    SPACE_TIME_HOLE,
    SPECIAL_ID,
)
from engine.ghost_at_home.house import SIDES, explored_floors, floor_of, lightable_floors, open_floor, top_floor
from engine.ghost_at_home.state import State

PROMPT_KIND = {
    "turn": "turn",
    "build": "build",
    "light": "light",
    "discard": "discard",
    "defence": "cat_defence",
    "escape": "stop_escape",
}
"""Phase → prompt kind."""


def deciding_seat(state: State) -> int | None:
    """The one seat that owes a decision, or ``None`` once the game is over."""
    if state.phase == "over":
        return None
    if state.attack is not None:
        return state.attack.target
    if state.escape is not None:
        return state.escape.askers[0]
    return state.active


def prompts(state: State) -> dict[int, Prompt]:
    seat = deciding_seat(state)
    if seat is None:
        return {}
    note = ""
    if state.attack is not None:
        note = f"seat {state.attack.attacker} plays a ghost on your floor {state.attack.floor}"
    elif state.escape is not None:
        note = f"seat {state.escape.seat} is escaping"
    return {seat: Prompt(PROMPT_KIND[state.phase], note)}


def legal_actions(state: State, seat: int) -> list[a.Action]:
    if seat != deciding_seat(state):
        return []
    return [act for generate in GENERATORS[state.phase].values() for act in generate(state, seat)]


def is_legal(state: State, seat: int, action: a.Action) -> bool:
    """``action`` is among ``legal_actions(state, seat)`` (only its own type's actions are generated)."""
    if seat != deciding_seat(state):
        return False
    generate = GENERATORS[state.phase].get(type(action))
    return generate is not None and action in generate(state, seat)


def _opponent_tops(state: State, seat: int) -> list[tuple[int, int]]:
    """(opponent, its highest floor holding a room card) for every opponent having one (G5, G8)."""
    found = []
    for t in range(state.seats):
        if t != seat:
            number = top_floor(state.houses[t])
            if number:
                found.append((t, number))
    return found


def _cards(state: State, seat: int, kind: str) -> list[int]:
    return [c for c in state.hands[seat] if KIND[c] == kind]


def room_actions(state: State, seat: int) -> list[a.Action]:
    """G4 (and a G8 joker): each room card of the open floor, or joker, on each empty space of that floor."""
    house = state.houses[seat]
    number = open_floor(house)
    if not number:
        return []
    rooms = floor_of(house, number).rooms
    sides = [side for side, room in zip(SIDES, rooms, strict=True) if room is None]
    return [
        a.PlayRoom(c, number, side)
        for c in state.hands[seat]
        if KIND[c] == JOKER or (KIND[c] == ROOM and FLOOR[c] == number)
        for side in sides
    ]


def stop_building_actions(state: State, seat: int) -> list[a.Action]:
    """G4: after the first room card the seat may stop."""
    return [a.StopBuilding()]


def ghost_actions(state: State, seat: int) -> list[a.Action]:
    """G5: a ghost on an opponent whose highest floor holding a room card holds no ghost."""
    ghosts = _cards(state, seat, GHOST)
    if not ghosts:
        return []
    targets = [t for t, n in _opponent_tops(state, seat) if not floor_of(state.houses[t], n).ghosts]
    return [a.PlayGhost(c, t) for c in ghosts for t in targets]


def cat_actions(state: State, seat: int) -> list[a.Action]:
    """G6: a cat on an explored floor of one's own without a cat."""
    cats = _cards(state, seat, CAT)
    if not cats:
        return []
    floors = explored_floors(state.houses[seat])
    return [a.PlayCat(c, f) for c in cats for f in floors]


def light_card_actions(state: State, seat: int) -> list[a.Action]:
    """G7: the next card of a light, when some floor may be lit and 5 bulbs are still within reach."""
    if not lightable_floors(state.houses[seat]):
        return []
    return [a.LightCard(c) for c in light_candidates(state.hands[seat], state.selected)]


def light_floor_actions(state: State, seat: int) -> list[a.Action]:
    """G7: with 2–3 cards chosen showing 5 bulbs, the floor to light."""
    selected = state.selected
    if len(selected) < 2 or sum(BULBS[c] for c in selected) < LIGHT_BULBS_NEEDED:
        return []
    return [a.LightFloor(f) for f in lightable_floors(state.houses[seat])]


def light_candidates(hand: list[int], selected: list[int]) -> list[int]:
    """G7: the cards that, added to ``selected``, still leave a way to 2–3 cards showing 5 bulbs or more."""
    if sum(BULBS[c] for c in hand) < LIGHT_BULBS_NEEDED:
        return []
    rest = [c for c in hand if c not in selected]
    shown = sum(BULBS[c] for c in selected)
    found: set[int] = set()
    for size in (2, 3):
        if size > len(selected):
            for extra in combinations(rest, size - len(selected)):
                if shown + sum(BULBS[c] for c in extra) >= LIGHT_BULBS_NEEDED:
                    found.update(extra)
    return sorted(found)


def space_time_hole_actions(state: State, seat: int) -> list[a.Action]:
    """G8: any ghost of any house to an opponent's highest floor holding a room card (not where it is)."""
    if SPECIAL_ID[SPACE_TIME_HOLE] not in state.hands[seat]:
        return []
    tops = _opponent_tops(state, seat)
    return [
        a.SpaceTimeHole(s, n, t)
        for s in range(state.seats)
        for n, f in enumerate(state.houses[s].floors, 1)
        if f.ghosts
        for t, top in tops
        if (t, top) != (s, n)
    ]


def light_bulb_actions(state: State, seat: int) -> list[a.Action]:
    """G8: light a floor as G7 allows."""
    if SPECIAL_ID[LIGHT_BULB] not in state.hands[seat]:
        return []
    return [a.LightBulb(f) for f in lightable_floors(state.houses[seat])]


def cat_food_actions(state: State, seat: int) -> list[a.Action]:
    """G8: an opponent's cat onto an explored floor of one's own without a cat."""
    if SPECIAL_ID[CAT_FOOD] not in state.hands[seat]:
        return []
    mine = explored_floors(state.houses[seat])
    return [
        a.CatFood(t, n, m)
        for t in range(state.seats)
        if t != seat
        for n, f in enumerate(state.houses[t].floors, 1)
        if f.cat is not None
        for m in mine
    ]


def elevator_actions(state: State, seat: int) -> list[a.Action]:
    """G8: one's own cat onto another explored floor of one's own without a cat."""
    if SPECIAL_ID[ELEVATOR] not in state.hands[seat]:
        return []
    house = state.houses[seat]
    mine = explored_floors(house)
    return [a.Elevator(n, m) for n, f in enumerate(house.floors, 1) if f.cat is not None for m in mine if m != n]


def lightning_actions(state: State, seat: int) -> list[a.Action]:
    """G8: an opponent whose highest floor holding a room card is lit."""
    if SPECIAL_ID[LIGHTNING] not in state.hands[seat]:
        return []
    return [a.Lightning(t) for t, n in _opponent_tops(state, seat) if floor_of(state.houses[t], n).lit]


def discard_actions(state: State, seat: int) -> list[a.Action]:
    """G9: each card not yet picked, as the last pick or (while another would remain) not."""
    rest = [c for c in state.hands[seat] if c not in state.selected]
    return [a.Discard(c, last) for c in rest for last in ((True, False) if len(rest) > 1 else (True,))]


def pass_actions(state: State, seat: int) -> list[a.Action]:
    """With an empty hand there is nothing to play but a pass."""
    return [] if state.hands[seat] else [a.Pass()]


def defend_actions(state: State, seat: int) -> list[a.Action]:
    """G5/G11: each cat in hand may cancel the ghost."""
    return [a.Defend(c) for c in _cards(state, seat, CAT)]


def stop_escape_actions(state: State, seat: int) -> list[a.Action]:
    """G11: each ghost in hand may be played on the escaping house."""
    return [a.StopEscape(c) for c in _cards(state, seat, GHOST)]


def decline_actions(state: State, seat: int) -> list[a.Action]:
    """A cat defence or an escape ghost may always be declined."""
    return [a.Decline()]


Generator = Callable[[State, int], list[a.Action]]

GENERATORS: dict[str, dict[type[a.Action], Generator]] = {
    "turn": {
        a.PlayRoom: room_actions,
        a.PlayGhost: ghost_actions,
        a.PlayCat: cat_actions,
        a.LightCard: light_card_actions,
        a.SpaceTimeHole: space_time_hole_actions,
        a.LightBulb: light_bulb_actions,
        a.CatFood: cat_food_actions,
        a.Elevator: elevator_actions,
        a.Lightning: lightning_actions,
        a.Discard: discard_actions,
        a.Pass: pass_actions,
    },
    "build": {a.PlayRoom: room_actions, a.StopBuilding: stop_building_actions},
    "light": {a.LightCard: light_card_actions, a.LightFloor: light_floor_actions},
    "discard": {a.Discard: discard_actions},
    "defence": {a.Defend: defend_actions, a.Decline: decline_actions},
    "escape": {a.StopEscape: stop_escape_actions, a.Decline: decline_actions},
    "over": {},
}
"""Per phase, the generator of each action type allowed in it: a turn is exactly one of G4–G9 (or a pass)."""
