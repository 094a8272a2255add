"""Leak checkers: does a message received by one seat hold a value that seat must not see?

Each game has its own notion of hidden values (the rule files say which); a checker looks at every view and every
event exactly as they came over the wire (JSON builtins) and names each hidden value that is there for another
seat.  It also checks that ``legal`` (a seat's actions, which name its cards and values) reaches only a seat that
``prompts`` names.  The checks come from the rules, not from the server's own markers (a ``public`` flag, a
``phase``), so a server that mislabels a secret is still caught.  ``seat=None`` is a spectator, who may see no
seat's secrets.

* mansion (M5, M17, M18): another seat's Haunt values (``view.haunt``; ``haunt_drawn.values``;
  ``haunt_discarded.value``) and another seat's duel bid before the reveal (``dial_set.bid``; ``view.my_bid``
  for a seat that is no duellist or has not set its own dial).  The game's end
  reveals everything (M19), so views of a finished game are not checked.
* spook (S8): unless ``open_hands``, another seat's hand (``view.hands``) and a red card another seat drew into
  its hand (``card_drawn.card`` with destination ``hand``).
* ghost-at-home (G7, G9, G10): another seat's hand (``view.players[s].hand``), another seat's picks
  (``view.selected``), another seat's drawn and face-down discarded cards (``drew.cards``, ``discarded.cards``)
  and picks (``card_selected.card``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol.messages import Events, ServerMsg, Snapshot

Json = dict[str, Any]
Check = Callable[[Json, int | None, Json], list[str]]


def _others(values: list[Any], seat: int | None) -> list[int]:
    """The seats other than ``seat`` whose entry in ``values`` is not null."""
    return [owner for owner, value in enumerate(values) if value is not None and owner != seat]


# -- mansion -------------------------------------------------------------------------------------------------
def _mansion_view(view: Json, seat: int | None, options: Json) -> list[str]:
    if view["phase"] == "over":
        return []
    found = [f"view.haunt[{owner}]" for owner in _others(view["haunt"], seat)]
    # ``my_bid`` is the viewer's own bid: only a duellist's, once its own dial is set
    duel = view.get("duel") or {}
    if view.get("my_bid") is not None:
        side = "challenger" if duel.get("challenger") == seat else "defender"
        if seat is None or duel.get(side) != seat or not duel.get(f"{side}_set"):
            found.append("view.my_bid (not this seat's: another duellist's bid)")
    return found


def _private_fields(private: dict[str, str]) -> Check:
    """An event check for events whose one field (``private``: event type → field) only their seat may see."""

    def check(event: Json, seat: int | None, options: Json) -> list[str]:
        field = private.get(event["type"])
        if field is not None and event["seat"] != seat and event.get(field) is not None:
            return [f"{event['type']}.{field} of seat {event['seat']}"]
        return []

    return check


_mansion_event = _private_fields({"haunt_drawn": "values", "haunt_discarded": "value", "dial_set": "bid"})


# -- spook ---------------------------------------------------------------------------------------------------
def _spook_view(view: Json, seat: int | None, options: Json) -> list[str]:
    if options.get("open_hands", False):
        return []
    return [f"view.hands[{owner}]" for owner in _others(view["hands"], seat)]


def _spook_event(event: Json, seat: int | None, options: Json) -> list[str]:
    if (
        event["type"] == "card_drawn"
        and event["destination"] == "hand"
        and event["seat"] != seat
        and event.get("card") is not None
        and not options.get("open_hands", False)
    ):
        return [f"card_drawn.card of seat {event['seat']}"]
    return []


# -- ghost at home -------------------------------------------------------------------------------------------
def _ghost_view(view: Json, seat: int | None, options: Json) -> list[str]:
    found = [f"view.players[{p['seat']}].hand" for p in view["players"] if p["seat"] != seat and p["hand"] is not None]
    if view["selected"] is not None and view["active"] != seat:
        found.append(f"view.selected of seat {view['active']}")
    return found


_ghost_event = _private_fields({"drew": "cards", "discarded": "cards", "card_selected": "card"})


CHECKS: dict[str, tuple[Check, Check]] = {
    "mansion": (_mansion_view, _mansion_event),
    "spook": (_spook_view, _spook_event),
    "ghost-at-home": (_ghost_view, _ghost_event),
}


class LeakChecker:
    """Checks every message one connection receives for ``seat`` at a table of ``game`` with ``options``."""

    def __init__(self, game: str, seat: int | None, options: Json | None = None) -> None:
        self.seat = seat
        self.options = options or {}
        self._view, self._event = CHECKS[game]

    def check(self, msg: ServerMsg) -> list[str]:
        """The leaks in ``msg``; views and events of other messages hold none."""
        leaks: list[str] = []
        if isinstance(msg, Events):
            for event in msg.events:
                leaks += self._event(event, self.seat, self.options)
        if isinstance(msg, (Events, Snapshot)):
            if msg.view is not None:
                leaks += self._view(msg.view, self.seat, self.options)
            if msg.legal and (self.seat is None or all(p.seat != self.seat for p in msg.prompts or [])):
                leaks.append("legal actions for a seat that owes no decision (another seat's options)")
        return leaks
