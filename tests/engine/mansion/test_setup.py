"""Board, decks and setup: rules M1, M4–M6, M8 and M30 (the hallway, M2–M3, in test_hallway.py)."""

import random
from collections import Counter

import pytest

from engine.contract import IllegalAction
from engine.fairness import commitment, verify
from engine.mansion import GAME
from engine.mansion.actions import END_TURN, ChooseDirection, DiscardHaunt, Move
from engine.mansion.cards import (
    CRYPT,
    EVENT_NAMES,
    EVENTS,
    FINAL_ROUND,
    KINDS,
    ROOMS,
    SEANCE,
    haunt_deck,
)
from engine.mansion.rules import draw_haunt
from engine.mansion.state import PH_EVENT_DIRECTION, Options
from engine.playout import random_playout
from engine.rng import seed_from_int
from tests.engine.mansion.helpers import assert_conserved, haunt, new_game, play, turn_table


def test_m1_seven_rooms_clockwise() -> None:
    assert ROOMS == ("crypt", "graveyard", "attic", "ballroom", "dining_room", "library", "music_room")
    # clockwise is +1: a 1-step clockwise move of the ghosts from the crypt ends in the graveyard
    s = turn_table(event="wandering_spirits")
    play(s, 0, Move(0))
    play(s, 0, END_TURN)
    assert s.ghosts == ROOMS.index("graveyard")


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_m4_setup_everyone_in_the_seance_room_ghosts_from_the_crypt(seats: int) -> None:
    s = new_game(seats, seed=seats)
    assert s.pos == [SEANCE] * seats
    card = EVENTS[s.event]
    if s.phase == PH_EVENT_DIRECTION:  # an `either` event: the ghosts wait in the crypt for the first player's choice
        assert s.ghosts == CRYPT
        play(s, s.first, ChooseDirection("ccw"))
        assert s.ghosts == (CRYPT - card.steps) % 7
    elif s.event != FINAL_ROUND:
        assert s.ghosts == (CRYPT + card.direction * card.steps) % 7
    assert all(not hand for hand in s.hands)  # nobody draws: everyone is in the Séance Room


def test_m5_haunt_deck_and_discard_to_bottom_and_empty_deck_skips() -> None:
    assert Counter(haunt_deck()) == {1: 50, 2: 40, 3: 30}
    s = turn_table(seats=2, event="truce")
    haunt(s, 0, 3)
    play(s, 0, DiscardHaunt(3))
    assert s.haunt_deck[0] == 3  # the bottom of the deck (top is the end of the list)
    # an empty deck: a due draw is skipped
    s.hands[1].extend(s.haunt_deck)
    s.hands[1].sort()
    s.haunt_deck.clear()
    out: list[object] = []
    draw_haunt(s, 0, 2, "ghosts", out)
    assert out == [] and s.hands[0] == []
    assert_conserved(s)


def test_m6_ghost_deck_counts() -> None:
    counts = {k.name: k.copies for k in KINDS}
    assert sum(counts.values()) == 99
    assert counts["musician"] == 15 and counts["painting"] == 12 and counts["dancing"] == 12
    assert (counts["tea_party_1"], counts["tea_party_2"], counts["tea_party_3"]) == (4, 4, 2)
    assert counts["grim_grinning"] == counts["ballroom"] == counts["groom"] == 8
    assert all(counts[f"portrait_{p}"] == 4 for p in ("tightrope", "dynamite", "quicksand", "tombstone"))
    assert all(counts[n] == 2 for n in ("bride", "headless_knight", "madame_leota", "organist", "executioner"))
    assert len({k.icon for k in KINDS if k.icon >= 0}) == 11


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_m8_event_deck_final_round_among_the_bottom_four(seats: int) -> None:
    for seed in range(30):
        s = new_game(seats, seed)
        assert len(s.removed_events) == seats
        assert len(s.event_deck) + 1 == 14 - seats  # the first card is already revealed
        assert FINAL_ROUND in s.event_deck[:4]
        assert FINAL_ROUND not in s.removed_events
        assert len(EVENT_NAMES) == 14
        assert_conserved(s)


def test_m8_removed_cards_vary_with_the_seed() -> None:
    assert len({tuple(sorted(new_game(4, seed).removed_events)) for seed in range(20)}) > 5


def test_setup_refuses_bad_seat_counts() -> None:
    for seats in (1, 7):
        with pytest.raises(IllegalAction) as err:
            GAME.setup(seats, seed_from_int(1), Options(), "t")
        assert err.value.code == "bad_option"
    with pytest.raises(IllegalAction):
        GAME.decode_options({"speed": 2})


def test_m30_commitment_published_and_seed_revealed() -> None:
    seed = seed_from_int(42)
    s = GAME.setup(4, seed, Options(), "table-9")
    assert s.commitment == commitment(seed, "table-9")
    for seat in (0, 3, None):
        assert GAME.view(s, seat).commitment == s.commitment
    final, _ = random_playout(GAME, 4, seed, random.Random(0), table_id="table-9")
    result = GAME.result(final)
    assert result is not None
    assert verify(result.seed, "table-9", s.commitment)


def test_m5_a_draw_larger_than_the_deck_takes_what_is_left() -> None:
    s = turn_table(seats=2, event="truce")
    s.hands[1].extend(s.haunt_deck[1:])
    s.hands[1].sort()
    del s.haunt_deck[1:]
    out: list[object] = []
    draw_haunt(s, 0, 2, "ghosts", out)
    assert len(s.hands[0]) == 1 and s.haunt_deck == [] and len(out) == 1
    assert_conserved(s)
