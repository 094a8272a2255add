"""Every game's catalog (``Game.catalog``): JSON that decodes back to itself, read from the game's data module."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from engine.ghost_at_home import GAME as GHOST_AT_HOME
from engine.ghost_at_home.cards import BULBS, KIND
from engine.mansion import GAME as MANSION
from engine.registry import games, get_game
from engine.spook import GAME as SPOOK
from engine.spook.board import DOORS


def served(catalog: msgspec.Struct) -> Any:
    """The catalog as a client reads it: JSON."""
    return json.loads(msgspec.json.encode(catalog))


@pytest.mark.parametrize("name", sorted(games()))
def test_the_catalog_survives_json(name: str) -> None:
    catalog = get_game(name).catalog
    assert msgspec.json.decode(msgspec.json.encode(catalog), type=type(catalog)) == catalog


def test_ghost_at_home_cards_g1_g2() -> None:
    catalog = served(GHOST_AT_HOME.catalog)
    assert [(c["id"], c["kind"], c["bulbs"]) for c in catalog["cards"]] == list(
        zip(range(53), KIND, BULBS, strict=True)
    )
    assert catalog["specials"] == {
        "space_time_hole": 46,
        "light_bulb": 47,
        "cat_food": 48,
        "elevator": 49,
        "lightning": 50,
    }
    assert catalog["bulbs_to_light"] == 5  # G7


def test_spook_map_s3_s4_and_values_s1() -> None:
    catalog = served(SPOOK.catalog)
    assert catalog["wings"] == {"west": ["1", "2", "3"], "east": ["4", "5", "6"], "upper": ["7", "8", "9"]}
    assert catalog["doors"] == [list(door) for door in DOORS]
    assert catalog["values"]["10C"] == 10 and catalog["values"]["KH"] == 10 and "JH" not in catalog["values"]
    assert catalog["queen"] == "QS" and len(catalog["cards"]) == 47


def test_mansion_ghosts_m6_events_m7_and_haunt_m5() -> None:
    catalog = served(MANSION.catalog)
    assert {g["name"] for g in catalog["ghosts"] if g["icon"] is None} == {
        "bride",
        "headless_knight",
        "madame_leota",
        "organist",
        "executioner",
    }
    assert {g["name"]: g["steps"] for g in catalog["ghosts"] if g["steps"]} == {
        "tea_party_1": 1,
        "tea_party_2": 2,
        "tea_party_3": 3,
    }
    assert sum(g["copies"] for g in catalog["ghosts"]) == 99
    assert catalog["haunt"] == {"1": 50, "2": 40, "3": 30}  # JSON keys are strings
    assert catalog["events"][6] == {"name": "locked_hallway", "steps": 2, "direction": "either"}
    assert catalog["events"][-1] == {"name": "final_round", "steps": 0, "direction": None}  # M12: no move
    assert len(catalog["events"]) == 14
