"""A Ghost at Home bot written from the docs alone: the starting point for a bot of your own (README, Writing a bot).

Build whenever it can, haunt the most explored house whose top floor is dark, guard and light its own, and always
cancel a ghost with a cat and stop an escape.  Against random bots it wins nearly every game.

    hauntd bench bots --game ghost-at-home --strategy clients.bots.examples.homebody:Homebody
    hauntd bot --url ws://127.0.0.1:8765 --table ID --strategy clients.bots.examples.homebody:Homebody
"""

from __future__ import annotations

import random
from typing import Any

from clients.bots.base import Decision, catalog

# Answers that are always right: cancel a ghost with a cat (G5), stop an escape (G11).
ALWAYS = ("defend", "stop_escape")


def explored(player: dict[str, Any]) -> int:
    """The room cards in ``player``'s house (a view's ``players`` entry)."""
    return sum(room is not None for floor in player["house"]["floors"] for room in floor["rooms"])


def exposed(player: dict[str, Any]) -> bool:
    """Whether a ghost would wipe ``player``'s top floor: it holds room cards, no light and no cat (G5)."""
    built = [f for f in player["house"]["floors"] if any(room is not None for room in f["rooms"])]
    return bool(built) and not built[-1]["lit"] and built[-1]["cat"] is None


class Homebody:
    """Builds first; see the module's docstring."""

    def __init__(self) -> None:
        cards = catalog("ghost-at-home")["cards"]
        self.kind = {card["id"]: card["kind"] for card in cards}
        self.bulbs = {card["id"]: card["bulbs"] for card in cards}

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        legal: dict[str, list[dict[str, Any]]] = {}
        for action in decision.legal:
            legal.setdefault(action["type"], []).append(action)
        players = decision.view["players"]
        for kind in ALWAYS:
            if kind in legal:
                return legal[kind][0]
        if "play_room" in legal:  # exploring wins: real rooms before jokers
            return min(legal["play_room"], key=lambda a: self.kind[a["card"]] != "room")
        for kind in ("light_card", "light_floor"):  # a light once begun is finished
            if kind in legal:
                return legal[kind][0]
        ghosts = [a for a in legal.get("play_ghost", []) if exposed(players[a["target"]])]
        if ghosts:
            return max(ghosts, key=lambda a: explored(players[a["target"]]))
        if "lightning" in legal:
            return max(legal["lightning"], key=lambda a: explored(players[a["target"]]))
        for kind in ("play_cat", "light_bulb"):  # guard or light the highest floor
            if kind in legal:
                return max(legal[kind], key=lambda a: a["floor"])
        holes = [a for a in legal.get("space_time_hole", []) if a["source"] == decision.seat]
        if holes:  # send a ghost out of its own house
            return max(holes, key=lambda a: explored(players[a["target"]]))
        if "stop_building" in legal:
            return legal["stop_building"][0]
        swaps = [a for a in legal.get("discard", []) if a["last"]]
        if swaps:  # swap the card least worth keeping: no ghost or cat, the fewest bulbs
            return min(swaps, key=lambda a: (self.kind[a["card"]] in ("ghost", "cat"), self.bulbs[a["card"]]))
        for kind in ("decline", "pass"):
            if kind in legal:
                return legal[kind][0]
        return decision.legal[rng.randrange(len(decision.legal))]
