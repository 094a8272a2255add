"""Questions about one house (G3), shared by the legal-action generator and the effects."""

from __future__ import annotations

from engine.ghost_at_home.actions import Side
from engine.ghost_at_home.cards import FLOORS
from engine.ghost_at_home.state import Floor, House

SIDES: tuple[Side, Side] = ("left", "right")


def new_house() -> House:
    """G3: three dark, empty floors."""
    return House([Floor([None, None]) for _ in range(FLOORS)])


def floor_of(house: House, number: int) -> Floor:
    """Floor ``number`` (1–3)."""
    return house.floors[number - 1]


def is_full(floor: Floor) -> bool:
    """Both spaces of the floor hold a room card."""
    return None not in floor.rooms


def is_explored(floor: Floor) -> bool:
    """G6: the floor holds at least one room card."""
    return floor.rooms[0] is not None or floor.rooms[1] is not None


def fully_explored(house: House) -> bool:
    """G3: all six spaces filled."""
    return all(is_full(f) for f in house.floors)


def room_count(house: House) -> int:
    """Explored spaces (0–6): the score, and the round-limit ranking."""
    return sum(r is not None for f in house.floors for r in f.rooms)


def open_floor(house: House) -> int:
    """G4: the only floor a room card may go on now (every lower floor full), or 0 when the house is full."""
    for number, floor in enumerate(house.floors, 1):
        if not is_full(floor):
            return number
    return 0


def top_floor(house: House) -> int:
    """G5/G8: the highest floor holding a room card, or 0 when there is none."""
    for number in range(FLOORS, 0, -1):
        if is_explored(house.floors[number - 1]):
            return number
    return 0


def lightable_floors(house: House) -> list[int]:
    """G7: the dark floors whose lower floors are all fully explored (floor 1 always qualifies)."""
    found: list[int] = []
    for number, floor in enumerate(house.floors, 1):
        if not floor.lit:
            found.append(number)
        if not is_full(floor):
            break
    return found


def explored_floors(house: House) -> list[int]:
    """G6: the floors a cat may go on: explored and without a cat."""
    return [n for n, f in enumerate(house.floors, 1) if f.cat is None and is_explored(f)]
