"""Ghost at Home strategies.

``greedy`` races to a fully explored house and guards it: it builds whenever it can, lights and cats the floor
ghosts would hit, always answers a ghost that would haunt it and always tries to stop an escape, aims its own
ghosts and lightning at the most explored opponent, and cycles cards it cannot use soon.  It reads only the
decision's JSON (view, prompt, legal actions) plus the rulebook's static card data, and asks the engine's own
questions about a house (G3–G5) of the view's houses.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import msgspec

from clients.bots.base import Decision
from engine.ghost_at_home.cards import (
    BULBS,
    CAT,
    CAT_FOOD,
    ELEVATOR,
    FLOOR,
    FLOORS,
    GHOST,
    JOKER,
    KIND,
    LIGHT_BULB,
    LIGHT_BULBS_NEEDED,
    LIGHTNING,
    ROOM,
    SPACE_TIME_HOLE,
)
from engine.ghost_at_home.house import floor_of, open_floor, room_count, top_floor
from engine.ghost_at_home.state import Floor, House

Json = dict[str, Any]


def _exposed(floor: Floor) -> bool:
    """A ghost landing here would haunt it: no cat, and dark or already holding a ghost (G5)."""
    return floor.cat is None and (not floor.lit or bool(floor.ghosts))


class _Table:
    """What one decision's view says, read once."""

    def __init__(self, decision: Decision) -> None:
        view = decision.view
        self.me = decision.seat
        self.view = view
        self.houses = [msgspec.convert(p["house"], House) for p in view["players"]]
        self.hand: list[int] = view["players"][self.me]["hand"] or []
        self.mine = self.houses[self.me]
        self.seats = view["seats"]

    def threat(self, seat: int) -> float:
        """How close ``seat`` is to escaping: its rooms, more for higher floors and lit or guarded tops."""
        house = self.houses[seat]
        score = float(room_count(house))
        top = top_floor(house)
        if top:
            floor = floor_of(house, top)
            score += 0.5 * top + 0.3 * floor.lit + 0.3 * (floor.cat is not None)
        return score

    def damage(self, seat: int, number: int, extra_ghost: bool = False) -> float:
        """What a ghost landing on ``seat``'s floor ``number`` costs them (G5); ``extra_ghost``: it lands even on
        a lit floor (a space-time hole cannot be answered, and a ghost may be there already)."""
        floor = floor_of(self.houses[seat], number)
        if floor.cat is not None:
            return 0.3
        rooms = sum(r is not None for r in floor.rooms)
        if floor.lit and not floor.ghosts and not extra_ghost:
            return 0.4 * rooms
        return rooms * (1 + 0.5 * number)


# -- card usefulness, for what to discard -------------------------------------------------------------------
KEEP: dict[str, float] = {
    JOKER: 10.0,
    CAT: 5.0,
    LIGHT_BULB: 5.0,
    GHOST: 4.5,
    LIGHTNING: 3.0,
    SPACE_TIME_HOLE: 3.0,
    CAT_FOOD: 2.0,
    ELEVATOR: 1.0,
}
"""How much a card other than a room is worth holding on to."""

JUNK = 3.0
"""A G9 discard throws away every card worth less than this (at least one card)."""

ROOM_KEEP = (6.0, 4.0, 1.5)
"""A room card's worth by how far above the open floor it goes (0, 1, 2 floors); one below it is worthless."""


def _keep_value(table: _Table, card: int) -> float:
    """How much ``card`` is worth holding on to (higher: keep)."""
    kind = KIND[card]
    if kind != ROOM:
        return KEEP[kind]
    gap = FLOOR[card] - open_floor(table.mine)
    return ROOM_KEEP[gap] if 0 <= gap < len(ROOM_KEEP) else 0.0


def _want_lit(table: _Table) -> int:
    """The floor of mine most worth lighting now, 0 if none: my top floor, else the open floor above it."""
    mine = table.mine
    for number in (top_floor(mine), open_floor(mine)):
        if number and not floor_of(mine, number).lit:
            return number
    return 0


class GreedyGhostAtHome:
    """Build first, guard the exposed floor, hit the leader (see the module docstring)."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        legal = decision.legal
        if len(legal) == 1:
            return legal[0]
        table = _Table(decision)
        kind = decision.prompt["kind"]
        if kind == "cat_defence":
            return self._defend(table, legal)
        if kind == "stop_escape":
            return next((act for act in legal if act["type"] == "stop_escape"), legal[0])
        if kind == "build":
            return self._build(legal)
        if kind == "light":
            return self._light_step(table, legal)
        if kind == "discard":
            return self._discard_step(table, legal)
        return self._turn(table, legal)

    # -- out of turn ---------------------------------------------------------------------------------------
    def _defend(self, table: _Table, legal: list[Json]) -> Json:
        """G5/G11: spend a cat on every ghost, except a lone one on a lit floor 3 during an escape: it stays
        harmlessly and the cat waits for a second ghost, which would haunt."""
        attack = table.view["attack"]
        floor = floor_of(table.mine, attack["floor"])
        if _exposed(floor) or table.view["escape"] is None:
            return next((act for act in legal if act["type"] == "defend"), legal[-1])
        return next(act for act in legal if act["type"] == "decline")

    # -- building --------------------------------------------------------------------------------------------
    def _room(self, legal: list[Json]) -> Json | None:
        """The room card to place: plain rooms before jokers, fewest bulbs first (bulbs light floors)."""
        rooms = [act for act in legal if act["type"] == "play_room"]
        if not rooms:
            return None
        return min(rooms, key=lambda act: (KIND[act["card"]] == JOKER, BULBS[act["card"]]))

    def _build(self, legal: list[Json]) -> Json:
        room = self._room(legal)
        return room if room is not None else next(act for act in legal if act["type"] == "stop_building")

    # -- a turn ----------------------------------------------------------------------------------------------
    def _turn(self, table: _Table, legal: list[Json]) -> Json:
        by_type: dict[str, list[Json]] = {}
        for act in legal:
            by_type.setdefault(act["type"], []).append(act)
        if "pass" in by_type:
            return by_type["pass"][0]
        mine = table.mine
        top = top_floor(mine)
        # A ghost sitting on my exposed top floor: get rid of it before a second one or lightning haunts it.
        if top and floor_of(mine, top).ghosts:
            fix = self._unhaunt(table, by_type, top)
            if fix is not None:
                return fix
        room = self._room(legal)
        if room is not None:
            return room
        best: tuple[float, Json] | None = None
        for score, act in self._options(table, by_type):
            if best is None or score > best[0]:
                best = (score, act)
        if best is not None and best[0] > 0:
            return best[1]
        return self._discard_step(table, legal)

    def _unhaunt(self, table: _Table, by_type: dict[str, list[Json]], top: int) -> Json | None:
        for act in by_type.get("play_cat", []):
            if act["floor"] == top:
                return act
        for act in by_type.get("elevator", []):
            if act["floor"] == top:
                return act
        for act in by_type.get("cat_food", []):
            if act["floor"] == top:
                return act
        moves = [a for a in by_type.get("space_time_hole", []) if (a["source"], a["source_floor"]) == (table.me, top)]
        if moves:
            return max(moves, key=lambda a: table.damage(a["target"], top_floor(table.houses[a["target"]]), True))
        return None

    def _options(self, table: _Table, by_type: dict[str, list[Json]]) -> list[tuple[float, Json]]:
        """Every non-building move worth a turn, scored."""
        found: list[tuple[float, Json]] = []
        for act in by_type.get("play_ghost", []):
            target = act["target"]
            found.append((table.damage(target, top_floor(table.houses[target])) * table.threat(target) / 6, act))
        for act in by_type.get("lightning", []):
            target = act["target"]
            house = table.houses[target]
            value = 3.0 if floor_of(house, top_floor(house)).ghosts else 0.5
            found.append((value * table.threat(target) / 6, act))
        for act in by_type.get("space_time_hole", []):
            target = act["target"]
            value = table.damage(target, top_floor(table.houses[target]), True) * table.threat(target) / 6
            source = act["source"]
            if source != table.me:
                value -= 0.5 * table.threat(source) / 6
            found.append((value, act))
        want = _want_lit(table)
        if want:
            for act in by_type.get("light_bulb", []):
                if act["floor"] == want:
                    found.append((1.0, act))
            if "light_card" in by_type:
                found.append((0.8, self._light_step(table, by_type["light_card"])))
        top = top_floor(table.mine)
        if top and floor_of(table.mine, top).cat is None:
            # A cat guarding the floor ghosts hit: from hand only once the top floor is floor 3 (a cat in hand
            # guards any floor); a cat idle on a lower floor, or an opponent's, whenever it can get there.
            for act in by_type.get("play_cat", []):
                if act["floor"] == top == FLOORS:
                    found.append((0.6, act))
            for act in by_type.get("elevator", []):
                if act["floor"] == top:
                    found.append((0.7, act))
            for act in by_type.get("cat_food", []):
                if act["floor"] == top:
                    found.append((0.5 + 0.3 * table.threat(act["source"]) / 6, act))
        return found

    # -- multi-step choices ----------------------------------------------------------------------------------
    def _light_step(self, table: _Table, legal: list[Json]) -> Json:
        """G7: finish the cheapest 2–3 card set showing 5 bulbs, then light the wanted floor."""
        floors = [act for act in legal if act["type"] == "light_floor"]
        if floors:
            want = _want_lit(table)
            return next((act for act in floors if act["floor"] == want), floors[-1])
        picks = {act["card"]: act for act in legal if act["type"] == "light_card"}
        selected = table.view["selected"] or []
        rest = [c for c in table.hand if c not in selected and c in picks]
        shown = sum(BULBS[c] for c in selected)
        best: tuple[float, tuple[int, ...]] | None = None
        for size in (2, 3):
            for extra in combinations(rest, max(0, size - len(selected))):
                if extra and shown + sum(BULBS[c] for c in extra) >= LIGHT_BULBS_NEEDED:
                    cost = sum(_keep_value(table, c) for c in extra)
                    if best is None or cost < best[0]:
                        best = (cost, extra)
        if best is None:
            return legal[0]
        return picks[best[1][0]]

    def _discard_step(self, table: _Table, legal: list[Json]) -> Json:
        """G9: discard every card not worth keeping (at least one), one pick at a time."""
        picks = [act for act in legal if act["type"] == "discard"]
        rest = sorted({act["card"] for act in picks}, key=lambda c: _keep_value(table, c))
        junk = [c for c in rest if _keep_value(table, c) < JUNK] or rest[:1]
        card = junk[0]
        last = len(junk) == 1
        return next(act for act in picks if act["card"] == card and act.get("last", True) == last)


STRATEGIES = {"greedy": GreedyGhostAtHome}
