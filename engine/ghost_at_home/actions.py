"""Every action of Ghost at Home: a tagged union (tag field ``type``), one struct per step of a decision.

Floors are numbered 1–3 as in the rules; seats 0..n-1.  Step design (so ``legal_actions`` stays complete and
small): a G4 build is one ``play_room`` per card, then ``play_room`` again or ``stop_building``; a G7 light is one
``light_card`` per discarded card, then ``light_floor``; a G9 discard is one ``discard`` per card, ``last=false``
on every pick but the final one.
"""

from __future__ import annotations

from typing import Literal

from engine.contract import ActionStruct

Side = Literal["left", "right"]


class PlayRoom(ActionStruct, frozen=True, tag="play_room"):
    """G4 (and a G8 room joker): put ``card`` on the empty ``side`` space of ``floor``."""

    card: int
    floor: int
    side: Side


class StopBuilding(ActionStruct, frozen=True, tag="stop_building"):
    """G4: place no more room cards this turn."""


class PlayGhost(ActionStruct, frozen=True, tag="play_ghost"):
    """G5: play ghost ``card`` on ``target``'s highest floor holding a room card."""

    card: int
    target: int


class PlayCat(ActionStruct, frozen=True, tag="play_cat"):
    """G6: put cat ``card`` on your explored ``floor``."""

    card: int
    floor: int


class LightCard(ActionStruct, frozen=True, tag="light_card"):
    """G7, one step: choose ``card`` (from your hand) among the 2–3 cards to discard."""

    card: int


class LightFloor(ActionStruct, frozen=True, tag="light_floor"):
    """G7, last step: discard the chosen cards and light ``floor``."""

    floor: int


class SpaceTimeHole(ActionStruct, frozen=True, tag="space_time_hole"):
    """G8: move the ghost on ``source``'s ``source_floor`` to ``target``'s highest floor holding a room card."""

    source: int
    source_floor: int
    target: int


class LightBulb(ActionStruct, frozen=True, tag="light_bulb"):
    """G8: light your ``floor`` as in G7, discarding only the light-bulb card."""

    floor: int


class CatFood(ActionStruct, frozen=True, tag="cat_food"):
    """G8: move the cat on ``source``'s ``source_floor`` to your ``floor`` (G6 applies)."""

    source: int
    source_floor: int
    floor: int


class Elevator(ActionStruct, frozen=True, tag="elevator"):
    """G8: move your cat from ``source_floor`` to your ``floor`` (G6 applies)."""

    source_floor: int
    floor: int


class Lightning(ActionStruct, frozen=True, tag="lightning"):
    """G8: turn off the light of ``target``'s highest floor holding a room card."""

    target: int


class Discard(ActionStruct, frozen=True, tag="discard"):
    """G9, one step: discard ``card`` face down; ``last`` ends the choice and draws as many as discarded."""

    card: int
    last: bool = True


class Pass(ActionStruct, frozen=True, tag="pass"):
    """An empty hand plays nothing: the turn goes straight to G10."""


class Defend(ActionStruct, frozen=True, tag="defend"):
    """G5/G11, out of turn: discard cat ``card`` from your hand to cancel the ghost played on you."""

    card: int


class StopEscape(ActionStruct, frozen=True, tag="stop_escape"):
    """G11, out of turn: play ghost ``card`` on the escaping seat's floor 3."""

    card: int


class Decline(ActionStruct, frozen=True, tag="decline"):
    """Decline a ``cat_defence`` or ``stop_escape`` prompt."""


Action = (
    PlayRoom
    | StopBuilding
    | PlayGhost
    | PlayCat
    | LightCard
    | LightFloor
    | SpaceTimeHole
    | LightBulb
    | CatFood
    | Elevator
    | Lightning
    | Discard
    | Pass
    | Defend
    | StopEscape
    | Decline
)
