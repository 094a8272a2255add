"""Hidden information (the rules' list): Haunt values, deck orders, removed Event cards, duel bids."""

import random

import msgspec

from engine.mansion import GAME
from engine.mansion.actions import END_TURN, Dial, DiscardHaunt, Duel
from engine.mansion.cards import EVENT_NAMES
from engine.mansion.events import DialSet, HauntDiscarded, HauntDrawn
from tests.engine.mansion.helpers import give, haunt, haunt_on_top, new_game, on_top, play, turn_table
from tests.engine.mansion.hidden import assert_view_hides, assert_view_independent_of_hidden


def test_haunt_values_only_for_their_owner_counts_for_everyone() -> None:
    s = turn_table(seats=3, event="truce")
    haunt(s, 0, 3, 1)
    haunt(s, 2, 2)
    assert GAME.view(s, 0).haunt == [[1, 3], None, None]
    assert GAME.view(s, 2).haunt == [None, None, [2]]
    spectator = GAME.view(s, None)
    assert spectator.haunt == [None, None, None] and spectator.haunt_counts == [2, 0, 1]
    for seat in (0, 1, 2, None):
        assert_view_hides(s, seat)


def test_decks_and_removed_events_show_only_their_size() -> None:
    s = new_game(4, seed=3)
    view = msgspec.to_builtins(GAME.view(s, 1))
    assert view["ghost_deck"] == len(s.ghost_deck) and view["haunt_deck"] == 120
    assert view["events_left"] == len(s.event_deck) and view["events_removed"] == 4
    rnd = random.Random(5)
    for seat in (0, 1, 2, 3, None):
        assert_view_independent_of_hidden(s, seat, rnd)


def test_haunt_draws_and_discards_redacted_for_others() -> None:
    drawn = HauntDrawn(1, 2, "ghosts", [3, 1])
    assert GAME.redact(drawn, 1) == drawn
    assert GAME.redact(drawn, 0) == HauntDrawn(1, 2, "ghosts", None)
    assert GAME.redact(drawn, None) == HauntDrawn(1, 2, "ghosts", None)
    s = turn_table(seats=2, event="truce")
    haunt(s, 0, 2)
    (event,) = play(s, 0, DiscardHaunt(2))
    assert GAME.redact(event, 0) == HauntDiscarded(0, "action", 2)
    assert GAME.redact(event, 1) == HauntDiscarded(0, "action", None)


def test_duel_bids_hidden_until_both_are_set_but_setting_is_public() -> None:
    s = turn_table(seats=3, event="cold_spot")
    give(s, 1, "musician")
    play(s, 0, Duel(1, "musician"))
    (event,) = play(s, 1, Dial(2))
    assert GAME.redact(event, 1) == DialSet(1, 2)
    assert GAME.redact(event, 0) == DialSet(1, None) == GAME.redact(event, None)
    for seat in (0, 2, None):
        view = GAME.view(s, seat)
        assert view.duel is not None and view.duel.defender_set and not view.duel.challenger_set
        assert view.my_bid is None
    assert GAME.view(s, 1).my_bid == 2
    rnd = random.Random(1)
    for seat in (0, 1, 2, None):
        assert_view_hides(s, seat)
        assert_view_independent_of_hidden(s, seat, rnd)


def test_everything_revealed_at_the_end() -> None:
    s = turn_table(seats=2, event="final_round")
    haunt(s, 0, 3)
    haunt(s, 1, 1, 2)
    play(s, 0, END_TURN)
    play(s, 1, END_TURN)
    for seat in (0, 1, None):
        assert GAME.view(s, seat).haunt == [[3], [1, 2]]
    result = GAME.result(s)
    assert result is not None and result.reveal.haunt == [[3], [1, 2]]
    assert len(result.reveal.haunt_deck) == 117 and len(result.reveal.removed_events) == 2


def test_m30_the_reveal_lists_every_deck_top_card_first() -> None:
    """README (decks): the state keeps a deck's top card last; ``Result.reveal`` turns each deck over, so a
    replay checker reads the top first."""
    s = turn_table(seats=2, event="final_round")
    on_top(s, "bride", "organist")
    haunt_on_top(s, 3, 1)
    s.event_deck.append(s.event_deck.pop(0))  # the bottom card to the top
    top_event = EVENT_NAMES[s.event_deck[-1]]
    bottom_haunt = s.haunt_deck[0]
    play(s, 0, END_TURN)
    play(s, 1, END_TURN)
    result = GAME.result(s)
    assert result is not None
    assert result.reveal.ghost_deck[:2] == ["bride", "organist"]
    assert result.reveal.haunt_deck[:2] == [3, 1] and result.reveal.haunt_deck[-1] == bottom_haunt
    assert result.reveal.event_deck[0] == top_event
