"""The leak checkers: silent on exactly what the engines send each seat, loud on every planted secret."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from clients.leaks import LeakChecker
from engine.playout import random_playout
from engine.registry import get_game
from engine.rng import seed_from_int
from protocol.messages import Events, PromptInfo, Snapshot

to = msgspec.to_builtins
GAMES = ["mansion", "spook", "ghost-at-home"]


def update(events: list[Any] | None = None, view: Any = None) -> Events:
    return Events(table="t", seq=1, events=events or [], view=view)


def snapshot(view: Any) -> Snapshot:
    return Snapshot(table="t", game="g", seq=1, status="playing", seats=[], view=view)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_what_the_engine_sends_each_seat_is_clean(name: str, seed: int) -> None:
    """Every view and redacted event of a random game, for every seat and a spectator: no leak reported."""
    game = get_game(name)
    audiences: list[int | None] = [0, 1, 2, None]
    checkers = {a: LeakChecker(name, a) for a in audiences}
    private_seen = 0

    def step(state: Any, seat: int, action: Any, events: list[Any]) -> None:
        nonlocal private_seen
        for audience, checker in checkers.items():
            redacted = [r for e in events if (r := game.redact(e, audience)) is not None]
            view = to(game.view(state, audience))
            assert checker.check(update(to(redacted), view)) == [], (audience, redacted)
            private_seen += redacted != events

    random_playout(game, 3, seed_from_int(seed), random.Random(seed), on_step=step)
    assert private_seen > 0  # the game did hide something from someone


DUEL = {"challenger": 1, "defender": 2, "card": "musician", "challenger_set": True, "defender_set": False}


def mansion_plants() -> list[Events]:
    view = {"phase": "turn", "haunt": [[1, 2], [3], None]}
    return [
        update(view=view),
        update([{"type": "haunt_drawn", "seat": 1, "count": 1, "cause": "ghosts", "values": [4]}]),
        update([{"type": "haunt_discarded", "seat": 2, "value": 3, "cause": "action"}]),
        update([{"type": "dial_set", "seat": 1, "bid": 2}]),
        # ``view.my_bid`` is the viewer's own bid: seat 0 is in no duel, so this is seat 1's (or 2's)
        update(view={"phase": "dial", "haunt": [[1], None, None], "duel": DUEL, "my_bid": 2}),
        # seat 0 is the defender but has not set its dial: the bid shown is the challenger's
        update(view={"phase": "dial", "haunt": [[1], None], "duel": {**DUEL, "defender": 0}, "my_bid": 2}),
    ]


def spook_plants() -> list[Events]:
    return [
        update(view={"hands": [["AH"], ["2D"], None]}),
        update([{"type": "card_drawn", "seat": 2, "card": "5H", "destination": "hand", "public": False}]),
        update([{"type": "card_drawn", "seat": 2, "card": "5H", "destination": "hand", "public": True}]),
    ]


def ghost_plants() -> list[Events]:
    players = [{"seat": s, "hand": [s] if s != 2 else None} for s in range(3)]
    return [
        update(view={"players": players, "selected": None, "active": 0}),
        update(view={"players": [{"seat": 0, "hand": [1]}], "selected": [5], "active": 1}),
        update([{"type": "drew", "seat": 1, "count": 1, "cards": [7]}]),
        update([{"type": "discarded", "seat": 2, "count": 1, "cards": [9]}]),
        update([{"type": "card_selected", "seat": 1, "purpose": "light", "card": 4}]),
    ]


PLANTS = {"mansion": mansion_plants, "spook": spook_plants, "ghost-at-home": ghost_plants}


# Another seat's legal actions name what only it holds: its Haunt values, its cards.
OTHERS_LEGAL = {
    "mansion": [{"type": "discard", "value": 3}, {"type": "decline"}],
    "spook": [{"type": "offer", "card": "QH"}, {"type": "done"}],
    "ghost-at-home": [{"type": "discard", "card": 17}],
}


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("audience", [0, None])
def test_legal_actions_reaching_a_seat_that_owes_no_decision_are_caught(name: str, audience: int | None) -> None:
    """``legal`` comes only with a prompt naming the receiving seat (never to a spectator): anything else is
    another seat's options, sent to the wrong connection."""
    legal = OTHERS_LEGAL[name]
    prompts = [PromptInfo(seat=1, kind="turn")]
    for planted in (
        Events(table="t", seq=1, prompts=prompts, legal=legal),
        Snapshot(table="t", game=name, seq=1, status="playing", seats=[], prompts=prompts, legal=legal),
    ):
        assert len(LeakChecker(name, audience).check(planted)) == 1, planted
    mine = Events(table="t", seq=1, prompts=[*prompts, PromptInfo(seat=0, kind="turn")], legal=legal)
    assert LeakChecker(name, 0).check(mine) == []  # seat 0 is prompted: those are its own


@pytest.mark.parametrize("name", GAMES)
def test_every_planted_secret_is_caught(name: str) -> None:
    """Seat 0 receiving another seat's secret is a leak, whether it mislabels it (spook's ``public``) or not."""
    for planted in PLANTS[name]():
        checker = LeakChecker(name, 0)
        assert len(checker.check(planted)) == 1, planted
        if planted.view is not None:  # the same view in a snapshot is the same leak
            assert len(checker.check(snapshot(planted.view))) == 1


def test_secrets_are_allowed_where_the_rules_show_them() -> None:
    """Your own secrets; every hand with spook's open_hands; mansion's end, which reveals all (M19)."""
    assert LeakChecker("mansion", 1).check(update(mansion_plants()[1].events)) == []
    assert LeakChecker("mansion", 0).check(update(view={"phase": "over", "haunt": [[1], [2]]})) == []
    own_bid = {"phase": "dial", "haunt": [None, [1], None], "duel": DUEL, "my_bid": 3}
    assert LeakChecker("mansion", 1).check(update(view=own_bid)) == []  # the challenger's own bid, once set
    open_hands = LeakChecker("spook", 0, {"open_hands": True})
    assert all(open_hands.check(p) == [] for p in spook_plants())
    assert LeakChecker("ghost-at-home", 1).check(ghost_plants()[1]) == [
        "view.players[0].hand"  # seat 1 may see its own picks, not seat 0's hand
    ]
