"""The actions of a turn (M14–M18) and the effects of collected Ghost cards (M6)."""

import pytest

from engine.contract import IllegalAction
from engine.mansion import GAME
from engine.mansion.actions import (
    DECLINE,
    END_TURN,
    ChooseDirection,
    Collect,
    Dial,
    DiscardHaunt,
    Duel,
    Move,
    Rotate,
)
from engine.mansion.cards import KIND_INDEX, SEANCE
from engine.mansion.events import DialSet, DuelRevealed, HauntDrawn
from engine.mansion.state import PH_DIALS, PH_GRIM_GRINNING, PH_TEA_PARTY, PH_TURN
from tests.engine.mansion.helpers import (
    assert_conserved,
    give,
    haunt,
    haunt_on_top,
    on_top,
    play,
    put_room,
    turn_table,
    types,
)


def _of(actions: list[object], kind: type) -> list[object]:
    return [a for a in actions if isinstance(a, kind)]


def test_m14_moves_from_the_seance_room_and_along_the_hallway_without_wrapping() -> None:
    s = turn_table(seats=2, event="truce")
    assert _of(GAME.legal_actions(s, 0), Move) == [Move(to) for to in range(6)]
    play(s, 0, Move(0))
    assert _of(GAME.legal_actions(s, 0), Move) == [Move(SEANCE), Move(1)]  # no wrap to section 5
    play(s, 0, Move(1))
    assert _of(GAME.legal_actions(s, 0), Move) == [Move(SEANCE), Move(0), Move(2)]
    with pytest.raises(IllegalAction) as err:
        play(s, 0, Move(3))
    assert err.value.code == "illegal_move"
    s.pos[0] = 5
    assert _of(GAME.legal_actions(s, 0), Move) == [Move(SEANCE), Move(4)]


def test_m15_rotate_to_any_other_value_moves_the_seats_on_sections() -> None:
    s = turn_table(seats=2, event="truce")
    s.pos = [3, SEANCE]
    assert _of(GAME.legal_actions(s, 0), Rotate) == [Rotate(r) for r in range(1, 7)]
    out = play(s, 0, Rotate(5))
    assert s.rotation == 5 and s.actions == 2 and types(out) == ["rotated"]
    assert GAME.view(s, 0).seat_rooms == [(3 + 5) % 7, SEANCE]
    with pytest.raises(IllegalAction):
        play(s, 0, Rotate(5))  # it must change


def test_m16_collect_one_card_per_action_and_draw_in_the_ghosts_room() -> None:
    s = turn_table(seats=2, event="truce")
    s.pos[0] = 2  # room 2 at rotation 0
    put_room(s, 2, "musician", "musician", "painting")
    put_room(s, 3, "dancing")
    assert _of(GAME.legal_actions(s, 0), Collect) == [Collect("musician"), Collect("painting")]  # kinds once
    out = play(s, 0, Collect("musician"))
    assert types(out) == ["collected"] and s.hands[0] == []
    assert [KIND_INDEX["musician"]] == s.collections[0] and s.actions == 2
    s.ghosts = 2
    haunt_on_top(s, 3)
    out = play(s, 0, Collect("painting"))
    assert types(out) == ["collected", "haunt_drawn"] and s.hands[0] == [3]
    with pytest.raises(IllegalAction):
        play(s, 0, Collect("dancing"))  # not in this room
    assert_conserved(s)


def test_m17_duel_dials_both_prompted_higher_bid_takes_the_card_both_draw_their_bids() -> None:
    s = turn_table(seats=3, event="open_doors")
    give(s, 1, "tea_party_2", "musician")
    give(s, 2, "painting")
    s.pos = [4, 4, 3]
    duels = _of(GAME.legal_actions(s, 0), Duel)
    assert duels == [Duel(1, "musician"), Duel(1, "tea_party_2")]  # only seats in the same location
    out = play(s, 0, Duel(1, "tea_party_2"))
    assert types(out) == ["duel_started"] and s.phase == PH_DIALS and s.actions == 2
    prompts = GAME.prompts(s)
    assert set(prompts) == {0, 1} and {p.kind for p in prompts.values()} == {"dial"}
    out = play(s, 1, Dial(1))  # either may set first
    assert out == [DialSet(1, 1)] and set(GAME.prompts(s)) == {0}
    with pytest.raises(IllegalAction) as err:
        play(s, 1, Dial(2))  # a set dial is final
    assert err.value.code == "not_your_turn"
    haunt_on_top(s, 1, 2, 3, 1)
    out = play(s, 0, Dial(3))
    assert types(out) == ["dial_set", "duel_revealed", "haunt_drawn", "haunt_drawn"]
    assert out[1] == DuelRevealed(0, 1, "tea_party_2", 3, 1, 0)
    assert s.collections[0] == [KIND_INDEX["tea_party_2"]] and s.phase == PH_TURN  # no effect: no prompt
    assert s.hands[0] == [1, 2, 3] and s.hands[1] == [1]
    assert _of(GAME.legal_actions(s, 0), Duel) == []  # once per turn
    assert_conserved(s)


def test_m17_tie_keeps_the_card_zero_bids_draw_nothing() -> None:
    s = turn_table(seats=2, event="cold_spot")
    give(s, 1, "bride")
    play(s, 0, Duel(1, "bride"))
    play(s, 0, Dial(0))
    out = play(s, 1, Dial(0))
    assert [e for e in out if isinstance(e, HauntDrawn)] == []
    assert out[1] == DuelRevealed(0, 1, "bride", 0, 0, 1) and s.collections[1] == [KIND_INDEX["bride"]]


def test_m17_no_duel_against_an_empty_collection_or_elsewhere() -> None:
    s = turn_table(seats=3, event="cold_spot")
    give(s, 2, "musician")
    s.pos = [SEANCE, SEANCE, 0]
    assert _of(GAME.legal_actions(s, 0), Duel) == []
    with pytest.raises(IllegalAction):
        play(s, 0, Duel(1, "musician"))
    with pytest.raises(IllegalAction):
        play(s, 0, Duel(2, "musician"))
    with pytest.raises(IllegalAction):
        play(s, 0, Duel(0, "musician"))


def test_m18_discard_in_the_seance_room_once_per_turn_to_the_deck_bottom() -> None:
    s = turn_table(seats=2, event="cold_spot")
    haunt(s, 0, 1, 1, 3)
    assert _of(GAME.legal_actions(s, 0), DiscardHaunt) == [DiscardHaunt(1), DiscardHaunt(3)]
    with pytest.raises(IllegalAction):
        play(s, 0, DiscardHaunt(2))
    play(s, 0, DiscardHaunt(3))
    assert s.hands[0] == [1, 1] and s.haunt_deck[0] == 3 and s.actions == 2
    assert _of(GAME.legal_actions(s, 0), DiscardHaunt) == []
    s.discarded = False
    play(s, 0, Move(1))
    assert _of(GAME.legal_actions(s, 0), DiscardHaunt) == []  # only in the Séance Room


def test_m6_tea_party_collector_chooses_the_direction_and_seats_draw() -> None:
    s = turn_table(seats=2, event="cold_spot")
    s.pos = [1, 3]
    put_room(s, 1, "tea_party_2")
    out = play(s, 0, Collect("tea_party_2"))
    assert s.phase == PH_TEA_PARTY and GAME.prompts(s)[0].kind == "tea_party" and s.tea_steps == 2
    assert GAME.legal_actions(s, 0) == [ChooseDirection("cw"), ChooseDirection("ccw")]
    haunt_on_top(s, 2, 2)
    out = play(s, 0, ChooseDirection("cw"))  # crypt → graveyard (seat 0, passed: 1) → attic
    assert types(out) == ["ghosts_moved", "haunt_drawn"] and s.ghosts == 2 and len(s.hands[0]) == 1
    assert s.phase == PH_TURN and s.actions == 2


def test_m6_grim_grinning_may_discard_now_or_never() -> None:
    s = turn_table(seats=2, event="cold_spot")
    s.pos[0] = 1
    put_room(s, 1, "grim_grinning", "grim_grinning")
    play(s, 0, Collect("grim_grinning"))
    assert s.phase == PH_TURN  # nothing to discard: no prompt
    haunt(s, 0, 2, 3)
    play(s, 0, Collect("grim_grinning"))
    assert s.phase == PH_GRIM_GRINNING and GAME.prompts(s)[0].kind == "grim_grinning"
    assert GAME.legal_actions(s, 0) == [DiscardHaunt(2), DiscardHaunt(3), DECLINE]
    out = play(s, 0, DiscardHaunt(3))
    assert types(out) == ["haunt_discarded"] and s.hands[0] == [2] and s.haunt_deck[0] == 3
    assert s.phase == PH_TURN


def test_m6_ballroom_draws_and_groom_chains_through_the_deck() -> None:
    s = turn_table(seats=2, event="cold_spot")
    s.pos[0] = 1
    put_room(s, 1, "ballroom", "groom")
    play(s, 0, Collect("ballroom"))
    assert len(s.hands[0]) == 1
    on_top(s, "groom", "ballroom")
    out = play(s, 0, Collect("groom"))
    assert types(out) == ["collected", "collected", "collected", "haunt_drawn"]
    assert [e.room for e in out[:3]] == [1, -1, -1]  # type: ignore[attr-defined]
    assert sorted(s.collections[0]) == sorted(KIND_INDEX[k] for k in ("ballroom", "groom", "groom", "ballroom"))
    assert len(s.hands[0]) == 2
    s.rooms[1].append(KIND_INDEX["groom"])
    s.collections[0].remove(KIND_INDEX["groom"])
    s.rooms[0].extend(s.ghost_deck)
    s.ghost_deck.clear()
    s.actions = 1
    play(s, 0, Collect("groom"))  # an empty Ghost deck: the Groom takes nothing
    assert s.collections[0].count(KIND_INDEX["groom"]) == 2
    assert_conserved(s)


def test_m6_groom_drawing_a_tea_party_prompts_for_its_direction() -> None:
    s = turn_table(seats=2, event="cold_spot")
    s.pos[0] = 1
    put_room(s, 1, "groom")
    on_top(s, "tea_party_3")
    play(s, 0, Collect("groom"))
    assert s.phase == PH_TEA_PARTY and s.tea_steps == 3
    play(s, 0, ChooseDirection("ccw"))
    assert s.ghosts == 4 and s.phase == PH_TURN


def test_end_turn_and_timeouts() -> None:
    s = turn_table(seats=2, event="cold_spot")
    assert GAME.timeout_action(s, 0) == END_TURN
    with pytest.raises(IllegalAction):
        GAME.timeout_action(s, 1)
    give(s, 1, "musician")
    play(s, 0, Duel(1, "musician"))
    assert GAME.timeout_action(s, 0) == Dial(0) == GAME.timeout_action(s, 1)


def test_an_equal_but_odd_value_never_reaches_the_state() -> None:
    s = turn_table(seats=2, event="cold_spot")
    haunt(s, 0, 1)
    play(s, 0, DiscardHaunt(True))  # True == 1 in Python; the state keeps the int
    play(s, 0, Move(True))
    assert type(s.haunt_deck[0]) is int and type(s.pos[0]) is int


def test_m17_defender_outbids_in_the_seance_room_keeps_the_card_and_both_draw() -> None:
    s = turn_table(seats=3, event="cold_spot")
    give(s, 1, "ballroom")
    s.pos = [SEANCE, SEANCE, 2]  # the Séance Room is a location too; seat 2 is elsewhere
    assert _of(GAME.legal_actions(s, 0), Duel) == [Duel(1, "ballroom")]
    play(s, 0, Duel(1, "ballroom"))
    haunt_on_top(s, 1, 2, 3)
    play(s, 0, Dial(1))
    out = play(s, 1, Dial(2))
    assert out[1] == DuelRevealed(0, 1, "ballroom", 1, 2, 1)
    assert s.collections == [[], [KIND_INDEX["ballroom"]], []]
    assert [(e.seat, e.count) for e in out if isinstance(e, HauntDrawn)] == [(0, 1), (1, 2)]
    assert s.hands[0] == [1] and s.hands[1] == [2, 3]


def test_m16_the_ghosts_room_draw_comes_before_the_effect() -> None:
    s = turn_table(seats=2, event="cold_spot")
    s.pos[0] = 0  # room 0, where the ghosts are
    put_room(s, 0, "grim_grinning")
    haunt_on_top(s, 3, 1)
    out = play(s, 0, Collect("grim_grinning"))  # cold_spot: 2 Haunt cards, then the optional discard
    assert types(out) == ["collected", "haunt_drawn"] and s.hands[0] == [1, 3]
    assert s.phase == PH_GRIM_GRINNING
    play(s, 0, DiscardHaunt(3))
    assert s.hands[0] == [1] and s.haunt_deck[0] == 3


def test_m14_m15_rotating_a_seat_into_the_ghosts_room_draws_nothing() -> None:
    s = turn_table(seats=2, event="cold_spot")
    s.ghosts = 4
    s.pos = [1, SEANCE]
    out = play(s, 0, Rotate(3))  # section 1 now faces room 4
    assert GAME.view(s, 0).seat_rooms[0] == 4 and types(out) == ["rotated"] and s.hands[0] == []


def test_m6_groom_drawing_a_grim_grinning_offers_its_discard() -> None:
    """M6 (groom chains; README ruling): a Grim Grinning drawn by a Groom prompts its optional discard."""
    s = turn_table(seats=2, event="cold_spot")
    s.pos[0] = 1
    put_room(s, 1, "groom")
    on_top(s, "grim_grinning")
    haunt(s, 0, 2)
    out = play(s, 0, Collect("groom"))
    assert types(out) == ["collected", "collected"] and s.phase == PH_GRIM_GRINNING
    assert GAME.legal_actions(s, 0) == [DiscardHaunt(2), DECLINE]
    play(s, 0, DECLINE)
    assert s.phase == PH_TURN and s.hands[0] == [2] and s.actions == 2


@pytest.mark.parametrize("card", ["ballroom", "groom", "grim_grinning"])
def test_m17_m6_a_card_won_in_a_duel_has_no_effect(card: str) -> None:
    """M17: the challenger who takes a Ballroom draws only its bid, a Groom brings no Ghost card, a Grim
    Grinning offers no discard."""
    s = turn_table(seats=2, event="cold_spot")
    give(s, 1, card)
    haunt(s, 0, 2)
    deck = len(s.ghost_deck)
    play(s, 0, Duel(1, card))
    play(s, 1, Dial(0))
    out = play(s, 0, Dial(1))
    assert out[1] == DuelRevealed(0, 1, card, 1, 0, 0)  # type: ignore[arg-type]
    assert types(out) == ["dial_set", "duel_revealed", "haunt_drawn"] and out[2].count == 1  # type: ignore[attr-defined]
    assert s.collections == [[KIND_INDEX[card]], []] and len(s.ghost_deck) == deck
    assert len(s.hands[0]) == 2 and s.phase == PH_TURN and s.actions == 2
    assert_conserved(s)
