"""What each seat may see (the only place hidden information is decided): views, redacted events, the reveal.

Hidden: the draw pile's order (a view shows its size), every hand but the viewer's own (sizes are public), the
cards chosen so far for a G7 light or a G9 discard (their number is public), and the identity of cards
discarded face down with G9 (the view shows only how many lie face down in the discard pile).
"""

from __future__ import annotations

import msgspec

from engine.ghost_at_home import events as e
from engine.ghost_at_home.state import Attack, Escape, Floor, House, Phase, State


class SeatView(msgspec.Struct):
    """One seat as the viewer sees it: its house (public), its hand size and, for the viewer only, its hand."""

    seat: int
    house: House
    hand_size: int
    hand: list[int] | None


class View(msgspec.Struct):
    """The table as ``you`` (``None``: a spectator) sees it.  ``discard`` lists the face-up discard pile,
    bottom first; ``face_down`` counts its face-down G9 cards; ``selected`` is the viewer's own G7/G9 choice so
    far (``None`` for everyone else, who see ``selected_count``)."""

    you: int | None
    seats: int
    active: int
    phase: Phase
    round: int
    max_rounds: int
    players: list[SeatView]
    pile_size: int
    discard: list[int]
    face_down: int
    selected: list[int] | None
    selected_count: int
    attack: Attack | None
    escape: Escape | None
    winners: list[int]
    end: str


class Reveal(msgspec.Struct):
    """Result.reveal: every hidden value at the end: the hands, the draw pile (top last), the face-down
    discards."""

    hands: list[list[int]]
    pile: list[int]
    face_down: list[int]


def _copy(house: House) -> House:
    return House([Floor(list(f.rooms), f.lit, f.cat, list(f.ghosts)) for f in house.floors])


def view(state: State, seat: int | None) -> View:
    """A snapshot: it shares nothing mutable with the state, so it stays true after later actions."""
    players = [
        SeatView(s, _copy(state.houses[s]), len(hand), list(hand) if s == seat else None)
        for s, hand in enumerate(state.hands)
    ]
    escape = state.escape
    return View(
        you=seat,
        seats=state.seats,
        active=state.active,
        phase=state.phase,
        round=state.turn // state.seats + 1,
        max_rounds=state.max_rounds,
        players=players,
        pile_size=len(state.pile),
        discard=list(state.discard),
        face_down=len(state.hidden_discard),
        selected=list(state.selected) if seat == state.active else None,
        selected_count=len(state.selected),
        attack=state.attack,
        escape=None if escape is None else Escape(escape.seat, list(escape.askers)),
        winners=list(state.winners),
        end=state.end,
    )


def redact(event: e.Event, seat: int | None) -> e.Event:
    """Drawn cards, G9 discards and G7/G9 picks are shown to their seat only."""
    if isinstance(event, e.Drew | e.Discarded) and event.seat != seat:
        return msgspec.structs.replace(event, cards=None)
    if isinstance(event, e.CardSelected) and event.seat != seat:
        return msgspec.structs.replace(event, card=None)
    return event


def reveal(state: State) -> Reveal:
    return Reveal([list(h) for h in state.hands], list(state.pile), list(state.hidden_discard))
