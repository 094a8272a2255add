"""G3–G11 on hand-arranged tables: one test (or more) per ruling, named with its number."""

import msgspec
import pytest

from engine.contract import IllegalAction
from engine.ghost_at_home import GAME
from engine.ghost_at_home import events as e
from engine.ghost_at_home.actions import (
    CatFood,
    Decline,
    Defend,
    Discard,
    Elevator,
    LightBulb,
    LightCard,
    LightFloor,
    Lightning,
    Pass,
    PlayCat,
    PlayGhost,
    PlayRoom,
    SpaceTimeHole,
    StopBuilding,
    StopEscape,
)
from engine.ghost_at_home.house import floor_of, fully_explored
from engine.ghost_at_home.state import State
from tests.engine.ghost_at_home.tables import build, free, place, play, set_hand, table

GHOST_A, GHOST_B, CAT_A, CAT_B = 32, 33, 40, 41
HOLE, BULB, FOOD, ELEVATOR, LIGHTNING, JOKER = 46, 47, 48, 49, 50, 51


def kinds(events: list[e.Event]) -> list[str]:
    return [type(ev).__name__ for ev in events]


def refused(state: State, seat: int, action: object, code: str = "illegal_move") -> None:
    before = GAME.encode_state(state)
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(state, seat, action)  # type: ignore[arg-type]
    assert exc.value.code == code
    assert GAME.encode_state(state) == before


def prompt_kind(state: State) -> dict[int, str]:
    return {seat: p.kind for seat, p in GAME.prompts(state).items()}


# -- G3 -----------------------------------------------------------------------------------------------------
def test_g3_fully_explored_needs_all_six_spaces() -> None:
    state = table()
    build(state, 0, 2, extra=1)
    assert not fully_explored(state.houses[0])
    build(state, 1, 3)
    assert fully_explored(state.houses[1])


# -- G4 -----------------------------------------------------------------------------------------------------
def test_g4_floors_fill_bottom_up_one_card_at_a_time() -> None:
    state = table(seat0=[0, 1, 12])
    legal = GAME.legal_actions(state, 0)
    assert PlayRoom(0, 1, "left") in legal and PlayRoom(1, 1, "right") in legal
    assert not any(isinstance(x, PlayRoom) and x.card == 12 for x in legal)
    refused(state, 0, PlayRoom(12, 2, "left"))
    play(state, 0, PlayRoom(0, 1, "left"))
    assert prompt_kind(state) == {0: "build"}
    assert GAME.legal_actions(state, 0) == [PlayRoom(1, 1, "right"), StopBuilding()]
    refused(state, 0, PlayRoom(1, 1, "left"))  # occupied space
    events = play(state, 0, PlayRoom(1, 1, "right"), PlayRoom(12, 2, "left"))
    assert floor_of(state.houses[0], 1).rooms == [0, 1] and floor_of(state.houses[0], 2).rooms == [12, None]
    # the hand is empty, so the build ends by itself and G10 refills it
    assert isinstance(events[-2], e.Drew) and events[-2].count == 3 and len(state.hands[0]) == 3
    assert prompt_kind(state) == {1: "turn"}


def test_g4_stop_building_ends_the_turn() -> None:
    state = table(seat0=[0, 2, 22])
    events = play(state, 0, PlayRoom(0, 1, "left"), StopBuilding())
    assert kinds(events) == ["RoomPlayed", "Drew", "TurnStarted"]
    assert len(state.hands[0]) == 3 and state.active == 1


def test_g4_joker_fits_the_open_floor_whatever_it_is() -> None:
    state = table(seat0=[JOKER, 22, 12])
    legal = GAME.legal_actions(state, 0)
    assert PlayRoom(JOKER, 1, "left") in legal and PlayRoom(JOKER, 1, "right") in legal
    assert not any(isinstance(x, PlayRoom) and x.card in (12, 22) for x in legal)
    build(state, 0, 2)
    assert PlayRoom(JOKER, 3, "left") in GAME.legal_actions(state, 0)
    assert PlayRoom(22, 3, "right") in GAME.legal_actions(state, 0)
    refused(state, 0, PlayRoom(JOKER, 2, "left"))


# -- G5 -----------------------------------------------------------------------------------------------------
def test_g5_ghost_targets_the_highest_floor_with_a_room() -> None:
    state = table(3, seat0=[GHOST_A, 0, 1])
    build(state, 1, 1, extra=1)
    legal = GAME.legal_actions(state, 0)
    assert PlayGhost(GHOST_A, 1) in legal and PlayGhost(GHOST_A, 2) not in legal  # seat 2 has no room card
    events = play(state, 0, PlayGhost(GHOST_A, 1))
    assert events == [e.GhostPlayed(0, GHOST_A, 1, 2, False)]
    assert prompt_kind(state) == {1: "cat_defence"}
    assert state.attack is not None and state.attack.floor == 2


def test_g5_no_ghost_on_a_floor_holding_a_ghost() -> None:
    state = table(seat0=[GHOST_A])
    build(state, 1, 1)
    place(state, 1, 1, ghost=True, lit=True)
    assert not any(isinstance(x, PlayGhost) for x in GAME.legal_actions(state, 0))
    refused(state, 0, PlayGhost(GHOST_A, 1))


def test_g5_g8_ghosts_and_lightning_go_on_opponents_only() -> None:
    """G5 (a ghost on an opponent), G8 (space-time hole and lightning onto an opponent): never one's own house,
    even when it is the only house with a room card."""
    state = table(seat0=[GHOST_A, HOLE, LIGHTNING])
    build(state, 0, 1, extra=1)
    place(state, 0, 1, ghost=True, lit=True)
    place(state, 0, 2, lit=True)
    legal = GAME.legal_actions(state, 0)
    assert not any(isinstance(x, PlayGhost | SpaceTimeHole | Lightning) for x in legal)
    for action in (PlayGhost(GHOST_A, 0), SpaceTimeHole(0, 1, 0), Lightning(0)):
        refused(state, 0, action)


def test_g5_a_cat_on_the_floor_takes_the_ghost() -> None:
    state = table(seat0=[GHOST_A])
    build(state, 1, 1)
    place(state, 1, 1, cat=True)
    cat = floor_of(state.houses[1], 1).cat
    events = play(state, 0, PlayGhost(GHOST_A, 1))
    assert events[1] == e.GhostMetCat(1, 1, GHOST_A, cat)  # type: ignore[arg-type]
    floor = floor_of(state.houses[1], 1)
    assert floor.cat is None and None not in floor.rooms and state.discard[-2:] == [GHOST_A, cat]
    assert prompt_kind(state) == {1: "turn"}  # no defence asked


def test_g5_the_target_is_always_asked_even_without_a_cat() -> None:
    state = table(seat0=[GHOST_A], seat1=[0, 12, 22])
    build(state, 1, 1)
    play(state, 0, PlayGhost(GHOST_A, 1))
    assert GAME.legal_actions(state, 1) == [Decline()]
    refused(state, 0, Decline(), "not_your_turn")


def test_g5_only_the_target_answers_and_only_the_attacker_refills() -> None:
    """G5: the cat decision is the target's alone (a third seat holding a cat may not answer); the turn then
    ends as G10 says: the active (attacking) seat draws up to 3, the target does not."""
    state = table(3, seat0=[GHOST_A, 0], seat1=[CAT_A, 1], seat2=[CAT_B, 2, 3])
    build(state, 1, 1)
    play(state, 0, PlayGhost(GHOST_A, 1))
    assert prompt_kind(state) == {1: "cat_defence"}
    assert GAME.legal_actions(state, 2) == [] and GAME.legal_actions(state, 0) == []
    refused(state, 2, Defend(CAT_B), "not_your_turn")
    events = play(state, 1, Defend(CAT_A))
    assert [(ev.seat, ev.count) for ev in events if isinstance(ev, e.Drew)] == [(0, 2)]
    assert [len(h) for h in state.hands] == [3, 1, 3] and prompt_kind(state) == {1: "turn"}


def test_g5_a_cat_from_hand_cancels_the_ghost() -> None:
    state = table(seat0=[GHOST_A], seat1=[CAT_A, CAT_B, 0])
    build(state, 1, 1)
    play(state, 0, PlayGhost(GHOST_A, 1))
    assert GAME.legal_actions(state, 1) == [Defend(CAT_A), Defend(CAT_B), Decline()]
    events = play(state, 1, Defend(CAT_B))
    assert events[0] == e.CatDefended(1, CAT_B, GHOST_A)
    assert None not in floor_of(state.houses[1], 1).rooms and state.hands[1] == [0, CAT_A]
    assert {GHOST_A, CAT_B} <= set(state.discard) and prompt_kind(state) == {1: "turn"}


def test_g5_a_ghost_on_a_dark_floor_discards_it() -> None:
    state = table(seat0=[GHOST_A])
    build(state, 1, 1, extra=1)
    rooms = [r for r in floor_of(state.houses[1], 2).rooms if r is not None]
    play(state, 0, PlayGhost(GHOST_A, 1))
    events = play(state, 1, Decline())
    assert events[:2] == [e.Declined(1, "cat_defence"), e.FloorHaunted(1, 2, [GHOST_A, *rooms])]
    assert floor_of(state.houses[1], 2).rooms == [None, None] and None not in floor_of(state.houses[1], 1).rooms


def test_g5_a_lit_floor_keeps_one_ghost() -> None:
    state = table(seat0=[GHOST_A])
    build(state, 1, 1)
    place(state, 1, 1, lit=True)
    play(state, 0, PlayGhost(GHOST_A, 1))
    events = play(state, 1, Decline())
    assert e.GhostStays(1, 1, GHOST_A) in events
    floor = floor_of(state.houses[1], 1)
    assert floor.ghosts == [GHOST_A] and floor.lit and None not in floor.rooms


# -- G6 -----------------------------------------------------------------------------------------------------
def test_g6_a_cat_guards_an_explored_floor() -> None:
    state = table(seat0=[CAT_A, CAT_B, 0])
    assert not any(isinstance(x, PlayCat) for x in GAME.legal_actions(state, 0))  # nothing explored yet
    build(state, 0, 1, extra=1)
    legal = [x for x in GAME.legal_actions(state, 0) if isinstance(x, PlayCat)]
    assert legal == [PlayCat(CAT_A, 1), PlayCat(CAT_A, 2), PlayCat(CAT_B, 1), PlayCat(CAT_B, 2)]
    play(state, 0, PlayCat(CAT_A, 2))
    assert floor_of(state.houses[0], 2).cat == CAT_A
    play(state, 1, Discard(state.hands[1][0]))
    assert PlayCat(CAT_B, 2) not in GAME.legal_actions(state, 0)  # never on another cat


def test_g6_a_cat_on_a_ghost_leaves_with_it() -> None:
    state = table(seat0=[CAT_A])
    build(state, 0, 1)
    place(state, 0, 1, ghost=True, lit=True)
    ghost = floor_of(state.houses[0], 1).ghosts[0]
    events = play(state, 0, PlayCat(CAT_A, 1))
    assert events[:2] == [e.CatPlaced(0, CAT_A, 1), e.GhostMetCat(0, 1, ghost, CAT_A)]
    floor = floor_of(state.houses[0], 1)
    assert floor.cat is None and floor.ghosts == [] and None not in floor.rooms


# -- G7 -----------------------------------------------------------------------------------------------------
def test_g7_light_with_five_bulbs_over_steps() -> None:
    state = table(seat0=[0, 8, 11])  # bulbs 0, 2, 3
    assert [x for x in GAME.legal_actions(state, 0) if isinstance(x, LightCard)] == [
        LightCard(0),
        LightCard(8),
        LightCard(11),
    ]
    play(state, 0, LightCard(0), LightCard(11))
    assert prompt_kind(state) == {0: "light"}
    assert GAME.legal_actions(state, 0) == [LightCard(8)]  # 0 + 3 bulbs: not enough yet
    events = play(state, 0, LightCard(8))
    assert GAME.legal_actions(state, 0) == [LightFloor(1)]  # floor 1 always; floor 2 waits for floor 1
    events = play(state, 0, LightFloor(1))
    assert events[0] == e.LightOn(0, 1, [0, 11, 8])
    assert floor_of(state.houses[0], 1).lit and state.discard[-3:] == [0, 11, 8]
    assert len(state.hands[0]) == 3


def test_g7_two_cards_suffice_and_too_few_bulbs_cannot_light() -> None:
    state = table(seat0=[8, 11, 1])
    play(state, 0, LightCard(8), LightCard(11))
    assert LightFloor(1) in GAME.legal_actions(state, 0)
    dim = table(seat0=[11, 1, 4])  # 3 + 0 + 1
    assert not any(isinstance(x, LightCard) for x in GAME.legal_actions(dim, 0))


def test_g7_lower_floors_must_be_fully_explored() -> None:
    state = table(seat0=[8, 11, 1])
    build(state, 0, 1, extra=1)
    play(state, 0, LightCard(8), LightCard(11))
    assert GAME.legal_actions(state, 0) == [LightCard(1), LightFloor(1), LightFloor(2)]
    floor_of(state.houses[0], 1).lit = True
    assert GAME.legal_actions(state, 0) == [LightCard(1), LightFloor(2)]  # a lit floor is not lit again


# -- G8 -----------------------------------------------------------------------------------------------------
def test_g8_space_time_hole_second_ghost_on_a_lit_floor() -> None:
    state = table(seat0=[HOLE])
    build(state, 0, 1)
    place(state, 0, 1, ghost=True, lit=True)
    build(state, 1, 1)
    place(state, 1, 1, ghost=True, lit=True)
    mine = floor_of(state.houses[0], 1).ghosts[0]
    theirs = floor_of(state.houses[1], 1).ghosts[0]
    assert [x for x in GAME.legal_actions(state, 0) if isinstance(x, SpaceTimeHole)] == [SpaceTimeHole(0, 1, 1)]
    events = play(state, 0, SpaceTimeHole(0, 1, 1))
    assert events[:2] == [
        e.GhostMoved(0, HOLE, mine, 0, 1, 1, 1),
        e.FloorHaunted(1, 1, [theirs, mine, *[r for r in state.discard[-2:]]]),
    ]
    floor = floor_of(state.houses[1], 1)
    assert floor.rooms == [None, None] and not floor.lit and floor.ghosts == []
    assert floor_of(state.houses[0], 1).ghosts == [] and prompt_kind(state) == {1: "turn"}  # no cat asked


def test_g8_space_time_hole_onto_a_cat_or_a_dark_floor() -> None:
    state = table(3, seat0=[HOLE])
    build(state, 2, 1)
    place(state, 2, 1, ghost=True, lit=True)
    build(state, 1, 1)
    place(state, 1, 1, cat=True)
    assert SpaceTimeHole(2, 1, 2) not in GAME.legal_actions(state, 0)  # not onto its own floor
    events = play(state, 0, SpaceTimeHole(2, 1, 1))
    assert isinstance(events[1], e.GhostMetCat) and floor_of(state.houses[1], 1).cat is None
    dark = table(seat0=[HOLE])
    build(dark, 0, 1)
    place(dark, 0, 1, ghost=True, lit=True)
    build(dark, 1, 1)
    events = play(dark, 0, SpaceTimeHole(0, 1, 1))
    assert isinstance(events[1], e.FloorHaunted) and floor_of(dark.houses[1], 1).rooms == [None, None]


def test_g8_light_bulb_lights_without_discarding() -> None:
    state = table(seat0=[BULB, 0, 1])
    assert [x for x in GAME.legal_actions(state, 0) if isinstance(x, LightBulb)] == [LightBulb(1)]
    events = play(state, 0, LightBulb(1))
    assert events[0] == e.LightOn(0, 1, [BULB]) and floor_of(state.houses[0], 1).lit
    assert 0 in state.hands[0] and 1 in state.hands[0]


def test_g8_cat_food_takes_an_opponents_cat() -> None:
    state = table(seat0=[FOOD])
    build(state, 1, 1)
    place(state, 1, 1, cat=True)
    cat = floor_of(state.houses[1], 1).cat
    assert not any(isinstance(x, CatFood) for x in GAME.legal_actions(state, 0))  # no explored floor of mine
    build(state, 0, 1, extra=1)
    assert [x for x in GAME.legal_actions(state, 0) if isinstance(x, CatFood)] == [CatFood(1, 1, 1), CatFood(1, 1, 2)]
    events = play(state, 0, CatFood(1, 1, 2))
    assert events[0] == e.CatMoved(0, FOOD, cat, 1, 1, 2)  # type: ignore[arg-type]
    assert floor_of(state.houses[0], 2).cat == cat and floor_of(state.houses[1], 1).cat is None


def test_g8_cat_food_onto_a_ghost() -> None:
    state = table(seat0=[FOOD])
    build(state, 1, 1)
    place(state, 1, 1, cat=True)
    build(state, 0, 1)
    place(state, 0, 1, ghost=True, lit=True)
    events = play(state, 0, CatFood(1, 1, 1))
    assert isinstance(events[1], e.GhostMetCat)
    assert floor_of(state.houses[0], 1).cat is None and floor_of(state.houses[0], 1).ghosts == []


def test_g8_elevator_moves_ones_own_cat() -> None:
    state = table(seat0=[ELEVATOR])
    build(state, 0, 2)
    place(state, 0, 1, cat=True)
    cat = floor_of(state.houses[0], 1).cat
    assert [x for x in GAME.legal_actions(state, 0) if isinstance(x, Elevator)] == [Elevator(1, 2)]
    play(state, 0, Elevator(1, 2))
    assert floor_of(state.houses[0], 2).cat == cat and floor_of(state.houses[0], 1).cat is None


def test_g8_elevator_onto_a_ghost_takes_it() -> None:
    """G8 (elevator: G6 applies): the cat lifted onto a floor holding a ghost leaves with it; room cards stay."""
    state = table(seat0=[ELEVATOR])
    build(state, 0, 2)
    place(state, 0, 1, cat=True)
    place(state, 0, 2, ghost=True, lit=True)
    cat, ghost = floor_of(state.houses[0], 1).cat, floor_of(state.houses[0], 2).ghosts[0]
    events = play(state, 0, Elevator(1, 2))
    assert events[1] == e.GhostMetCat(0, 2, ghost, cat)  # type: ignore[arg-type]
    floor = floor_of(state.houses[0], 2)
    assert floor.cat is None and floor.ghosts == [] and floor.lit and None not in floor.rooms


def test_g8_lightning_darkens_the_top_floor() -> None:
    state = table(seat0=[LIGHTNING])
    build(state, 1, 1, extra=1)
    place(state, 1, 1, lit=True)
    assert not any(isinstance(x, Lightning) for x in GAME.legal_actions(state, 0))  # floor 2 is already dark
    place(state, 1, 2, lit=True)
    events = play(state, 0, Lightning(1))
    assert events[0] == e.LightOff(0, LIGHTNING, 1, 2)
    assert not floor_of(state.houses[1], 2).lit and floor_of(state.houses[1], 1).lit


def test_g8_lightning_on_a_ghost_haunts_the_floor() -> None:
    """Ruling (README): a ghost left on a darkened floor haunts it as a ghost landing there would."""
    state = table(seat0=[LIGHTNING])
    build(state, 1, 1)
    place(state, 1, 1, ghost=True, lit=True)
    events = play(state, 0, Lightning(1))
    assert isinstance(events[1], e.FloorHaunted) and floor_of(state.houses[1], 1).rooms == [None, None]


# -- G9 -----------------------------------------------------------------------------------------------------
def test_g9_discard_face_down_and_draw_as_many() -> None:
    state = table(seat0=[0, 12, 22])
    top = state.pile[-2:]
    play(state, 0, Discard(12, last=False))
    assert prompt_kind(state) == {0: "discard"}
    assert GAME.legal_actions(state, 0) == [Discard(0), Discard(0, False), Discard(22), Discard(22, False)]
    events = play(state, 0, Discard(22))
    assert events[:3] == [
        e.Discarded(0, 2, [12, 22]),
        e.Drew(0, 2, list(reversed(top))),  # the pile's top is its end
        e.TurnStarted(1, 1),
    ]
    assert state.hidden_discard == [12, 22] and state.discard == []
    assert sorted(state.hands[0]) == sorted([0, *top])


# -- G10 ----------------------------------------------------------------------------------------------------
def test_g10_reshuffle_the_discard_pile_when_the_pile_runs_out() -> None:
    state = table(seat0=[CAT_A, 0, 1])
    build(state, 0, 1)
    state.discard, state.hidden_discard, state.pile = state.pile[:5], state.pile[5:], []
    events = play(state, 0, PlayCat(CAT_A, 1))
    reshuffled = next(ev for ev in events if isinstance(ev, e.Reshuffled))
    assert reshuffled.count == 53 - 3 - 2 - 2 - 1  # hands of 3 and 2, two rooms, the cat
    assert state.discard == [] and state.hidden_discard == [] and len(state.hands[0]) == 3
    assert len(state.pile) == reshuffled.count - 1


def test_g10_a_g9_draw_reshuffles_when_the_pile_runs_out_midway() -> None:
    """G9 draws as many as discarded; when the pile empties partway, G10's reshuffle supplies the rest."""
    state = table(seat0=[0, 12, 22])
    last = state.pile[0]
    state.discard, state.pile = state.pile[1:], [last]
    events = play(state, 0, Discard(12, last=False), Discard(22))
    drew = next(ev for ev in events if isinstance(ev, e.Drew))
    assert kinds(events)[:4] == ["CardSelected", "Discarded", "Reshuffled", "Drew"]
    assert drew.count == 2 and drew.cards is not None and last in drew.cards
    assert len(state.hands[0]) == 3 and state.discard == [] and state.hidden_discard == []


def test_g10_with_both_piles_empty_draw_what_there_is() -> None:
    state = table(seat0=[CAT_A, 0, 1])
    build(state, 0, 1)
    state.hands[1] += state.pile
    state.pile = []
    events = play(state, 0, PlayCat(CAT_A, 1))
    assert not any(isinstance(ev, e.Drew | e.Reshuffled) for ev in events)
    assert state.hands[0] == [0, 1] and state.active == 1


def test_g10_an_empty_hand_passes_then_draws() -> None:
    state = table(seat0=[0])
    state.hands[0] = []
    state.pile.insert(0, 0)
    assert GAME.legal_actions(state, 0) == [Pass()]
    events = play(state, 0, Pass())
    assert events[0] == e.Passed(0) and isinstance(events[1], e.Drew) and len(state.hands[0]) == 3


# -- G11 ----------------------------------------------------------------------------------------------------
def escaping(seats: int, *, lit: bool = False, **hands: list[int]) -> State:
    """Seat 0 holds floor-3 room 22 with floors 1–2 and half of floor 3 explored."""
    hands.setdefault("seat0", [22, 0, 1])
    state = table(seats, **hands)
    build(state, 0, 2, extra=1)
    place(state, 0, 3, lit=lit)
    play(state, 0, PlayRoom(22, 3, "right"))
    return state


def test_g11_escape_succeeds_when_nobody_stops_it() -> None:
    state = escaping(3, seat1=[GHOST_A])
    assert fully_explored(state.houses[0]) and state.hands[0] == [0, 1]  # no draw
    assert prompt_kind(state) == {1: "stop_escape"}
    assert GAME.legal_actions(state, 1) == [StopEscape(GHOST_A), Decline()]
    play(state, 1, Decline())
    assert prompt_kind(state) == {2: "stop_escape"} and GAME.legal_actions(state, 2)[-1] == Decline()
    events = play(state, 2, Decline())
    assert events[-1] == e.GameOver([0], "escaped") and GAME.prompts(state) == {}
    result = GAME.result(state)
    assert result is not None and result.winners == [0] and result.scores[0] == 6
    refused(state, 1, Decline(), "game_over")


def test_g11_ask_order_starts_after_the_escaping_seat() -> None:
    state = table(4)
    (room,) = free(state, "room", 3)
    set_hand(state, 2, [room])
    build(state, 2, 2, extra=1)
    state.active = 2
    asked = []
    play(state, 2, PlayRoom(room, 3, "right"))
    while GAME.prompts(state):
        (seat,) = GAME.prompts(state)
        asked.append(seat)
        play(state, seat, Decline())
    assert asked == [3, 0, 1] and state.winners == [2]


def test_g11_two_seats_two_ghosts_stop_a_lit_escape() -> None:
    state = escaping(2, lit=True, seat1=[GHOST_A, GHOST_B, 2])
    play(state, 1, StopEscape(GHOST_A))
    assert prompt_kind(state) == {0: "cat_defence"}
    events = play(state, 0, Decline())
    assert e.GhostStays(0, 3, GHOST_A) in events and prompt_kind(state) == {1: "stop_escape"}
    assert GAME.legal_actions(state, 1) == [StopEscape(GHOST_B), Decline()]
    play(state, 1, StopEscape(GHOST_B))
    events = play(state, 0, Decline())
    assert isinstance(events[1], e.FloorHaunted) and events[1].floor == 3
    assert events[2] == e.EscapeStopped(0)
    assert [ev.seat for ev in events if isinstance(ev, e.Drew)] == [0, 1]  # everyone refills, escaper first
    assert [len(h) for h in state.hands] == [3, 3]
    assert events[-1] == e.TurnStarted(1, 1) and not fully_explored(state.houses[0])
    assert floor_of(state.houses[0], 3).rooms == [None, None] and not floor_of(state.houses[0], 3).lit


def test_g11_a_dark_floor_three_falls_to_one_ghost() -> None:
    state = escaping(3, seat1=[GHOST_A])
    play(state, 1, StopEscape(GHOST_A))
    events = play(state, 0, Decline())
    assert e.EscapeStopped(0) in events and prompt_kind(state) == {1: "turn"}  # seat 2 is not asked


def test_g11_cats_cancel_escape_ghosts() -> None:
    state = escaping(2, seat0=[22, CAT_A, 1], seat1=[GHOST_A, GHOST_B])
    play(state, 1, StopEscape(GHOST_A))
    assert GAME.legal_actions(state, 0) == [Defend(CAT_A), Decline()]
    play(state, 0, Defend(CAT_A))
    assert prompt_kind(state) == {1: "stop_escape"}  # with 2 seats, a second ghost
    play(state, 1, Decline())
    assert state.winners == [0]


def test_g11_a_cat_on_floor_three_takes_an_escape_ghost() -> None:
    """G11 with G5's landing: a cat on floor 3 takes the ghost (no cat decision asked) and the escape goes on;
    with 2 seats the opponent's second ghost then lands on the dark floor and stops it."""
    state = table(2, seat0=[22, 0, 1], seat1=[GHOST_A, GHOST_B, 2])
    build(state, 0, 2, extra=1)
    place(state, 0, 3, cat=True)
    cat = floor_of(state.houses[0], 3).cat
    play(state, 0, PlayRoom(22, 3, "right"))
    events = play(state, 1, StopEscape(GHOST_A))
    assert events[1] == e.GhostMetCat(0, 3, GHOST_A, cat)  # type: ignore[arg-type]
    assert floor_of(state.houses[0], 3).cat is None and None not in floor_of(state.houses[0], 3).rooms
    assert prompt_kind(state) == {1: "stop_escape"}
    play(state, 1, StopEscape(GHOST_B))
    events = play(state, 0, Decline())
    assert isinstance(events[1], e.FloorHaunted) and e.EscapeStopped(0) in events and state.winners == []


def test_g11_a_stopped_escape_refills_round_the_table_from_the_escaper() -> None:
    """G11: every seat draws up to 3 starting with the seat that tried (seat 1 here, then 2, then 0; a full
    hand draws nothing) and the seat after the escaper plays next."""
    state = table(3)
    (room,) = free(state, "room", 3)
    set_hand(state, 1, [room])
    set_hand(state, 2, [GHOST_A, 0, 1])
    set_hand(state, 0, [2])
    build(state, 1, 2, extra=1)
    state.active = 1
    play(state, 1, PlayRoom(room, 3, "right"))
    assert prompt_kind(state) == {2: "stop_escape"} and state.hands[1] == []  # no G10 draw
    play(state, 2, StopEscape(GHOST_A))
    events = play(state, 1, Decline())
    assert [(ev.seat, ev.count) for ev in events if isinstance(ev, e.Drew)] == [(1, 3), (2, 1), (0, 2)]
    assert [len(h) for h in state.hands] == [3, 3, 3]
    assert events[-1] == e.TurnStarted(2, 1) and prompt_kind(state) == {2: "turn"}


def test_g11_declining_ends_a_seats_chances() -> None:
    state = escaping(2, seat1=[GHOST_A, GHOST_B])
    events = play(state, 1, Decline())
    assert events[-1] == e.GameOver([0], "escaped")


def test_g11_ghosts_hit_floor_three_even_holding_a_ghost() -> None:
    state = escaping(3, lit=True, seat1=[GHOST_A])
    place(state, 0, 3, ghost=True)
    play(state, 1, StopEscape(GHOST_A))
    events = play(state, 0, Decline())
    assert isinstance(events[1], e.FloorHaunted) and len([c for c in events[1].cards if 32 <= c < 40]) == 2
    assert e.EscapeStopped(0) in events


def test_g11_each_other_seat_plays_at_most_one_ghost_in_turn() -> None:
    """G11 with 3 seats: seat 1's ghost stays on the lit floor 3; seat 2 is asked next and declines, and seat 1,
    still holding a ghost, is not asked again: the escape succeeds with a ghost on floor 3."""
    state = escaping(3, lit=True, seat1=[GHOST_A, GHOST_B])
    play(state, 1, StopEscape(GHOST_A))
    events = play(state, 0, Decline())
    assert e.GhostStays(0, 3, GHOST_A) in events and prompt_kind(state) == {2: "stop_escape"}
    events = play(state, 2, Decline())
    assert events[-1] == e.GameOver([0], "escaped") and GHOST_B in state.hands[1]


def test_g11_two_seats_no_more_than_two_ghosts() -> None:
    """G11 with 2 seats: up to 2 ghosts; both cancelled by cats from hand, the escape succeeds although the
    opponent still holds a third."""
    state = escaping(2, seat0=[22, CAT_A, CAT_B], seat1=[GHOST_A, GHOST_B, 34])
    play(state, 1, StopEscape(GHOST_A))
    play(state, 0, Defend(CAT_A))
    play(state, 1, StopEscape(GHOST_B))
    events = play(state, 0, Defend(CAT_B))
    assert events[-1] == e.GameOver([0], "escaped") and state.hands[1] == [34]


def test_g11_only_the_seat_asked_answers_and_each_window_closes_for_good() -> None:
    """G5, G11 with 4 seats: the seats are asked one at a time (README); a later seat holding a ghost may not
    play it early, the escaper may not play one on itself, and only the target answers a ghost (a third seat's
    cat cannot save it).  Once a seat has answered, its window is shut: a cat after the ghost landed, or a ghost
    after the seat declined, is refused.  Meanwhile nobody's view or legal actions show another seat's hand."""
    state = escaping(4, lit=True, seat0=[22, CAT_A, 1], seat1=[GHOST_A, 2], seat2=[GHOST_B, CAT_B], seat3=[3])
    assert prompt_kind(state) == {1: "stop_escape"}
    for seat, action in ((2, StopEscape(GHOST_B)), (0, StopEscape(GHOST_A)), (3, Decline())):
        refused(state, seat, action, "not_your_turn")
        assert GAME.legal_actions(state, seat) == []
    play(state, 1, StopEscape(GHOST_A))
    assert prompt_kind(state) == {0: "cat_defence"}
    refused(state, 2, Defend(CAT_B), "not_your_turn")
    for viewer in (1, 2, 3):
        view = GAME.view(state, viewer)
        assert [p.hand for p in view.players if p.seat != viewer] == [None, None, None]
        assert [p.hand_size for p in view.players] == [2, 1, 2, 1]
    events = play(state, 0, Decline())
    assert e.GhostStays(0, 3, GHOST_A) in events and prompt_kind(state) == {2: "stop_escape"}
    refused(state, 0, Defend(CAT_A), "not_your_turn")  # the ghost has landed
    refused(state, 1, StopEscape(2), "not_your_turn")  # seat 1 had its one ghost
    play(state, 2, Decline())
    refused(state, 2, StopEscape(GHOST_B), "not_your_turn")  # declined for good
    events = play(state, 3, Decline())
    assert events[-1] == e.GameOver([0], "escaped") and floor_of(state.houses[0], 3).ghosts == [GHOST_A]


def test_g11_an_escape_on_the_last_turn_beats_the_round_limit() -> None:
    """G11 and the round limit (README): an escape on the last turn of the last round wins alone; stopped, the
    game ends there by the round limit, counting the escaper's house without its floor 3."""
    state = table(2, max_rounds=1, seat0=[0, 1, 2], seat1=[22, 3, 4])
    build(state, 1, 2, extra=1)
    play(state, 0, Discard(0))
    play(state, 1, PlayRoom(22, 3, "right"))
    events = play(state, 0, Decline())
    assert events[-1] == e.GameOver([1], "escaped") and state.end == "escaped"
    state = table(2, max_rounds=1, seat0=[0, GHOST_A, 2], seat1=[22, 3, 4])
    build(state, 0, 2)
    build(state, 1, 2, extra=1)
    play(state, 0, Discard(0))
    play(state, 1, PlayRoom(22, 3, "right"))
    play(state, 0, StopEscape(GHOST_A))
    events = play(state, 1, Decline())
    assert e.EscapeStopped(1) in events and events[-1] == e.GameOver([0, 1], "round_limit")
    result = GAME.result(state)
    assert result is not None and result.scores == [4, 4] and result.winners == [0, 1]


def test_g5_g11_out_of_turn_only_a_ghost_or_a_cat_from_hand_answers() -> None:
    """Ruling (README, "Out of turn"): against an escape a seat may play a ghost from hand, not lightning on the
    lit floor 3 (so that one ghost would haunt it) nor a space-time hole; the escaper answers that ghost with a
    cat from hand only, not by bringing its floor-1 cat up with the elevator."""
    state = escaping(3, lit=True, seat0=[22, CAT_A, ELEVATOR], seat1=[GHOST_A, LIGHTNING, HOLE])
    place(state, 0, 1, cat=True)
    build(state, 2, 1)
    place(state, 2, 1, ghost=True, lit=True)
    assert GAME.legal_actions(state, 1) == [StopEscape(GHOST_A), Decline()]
    for action in (Lightning(0), SpaceTimeHole(2, 1, 0)):
        refused(state, 1, action)
    play(state, 1, StopEscape(GHOST_A))
    assert GAME.legal_actions(state, 0) == [Defend(CAT_A), Decline()]
    refused(state, 0, Elevator(1, 3))
    events = play(state, 0, Decline())
    assert e.GhostStays(0, 3, GHOST_A) in events and prompt_kind(state) == {2: "stop_escape"}


# -- round limit (README ruling) ----------------------------------------------------------------------------
def test_round_limit_the_most_explored_house_wins() -> None:
    state = table(2, max_rounds=1, seat0=[0, 1, 12], seat1=[2, 13, 23])
    play(state, 0, PlayRoom(0, 1, "left"), StopBuilding())
    events = play(state, 1, PlayRoom(2, 1, "left"), StopBuilding())
    assert events[-1] == e.GameOver([0, 1], "round_limit")
    result = GAME.result(state)
    assert result is not None and result.scores == [1, 1] and result.winners == [0, 1]


def test_round_limit_without_any_room_nobody_wins() -> None:
    state = table(2, max_rounds=1)
    play(state, 0, Discard(state.hands[0][0]))
    events = play(state, 1, Discard(state.hands[1][0]))
    assert events[-1] == e.GameOver([], "round_limit")


# -- contract details ---------------------------------------------------------------------------------------
def test_only_the_prompted_seat_may_act() -> None:
    state = table(3)
    refused(state, 1, Discard(state.hands[1][0]), "not_your_turn")
    assert GAME.legal_actions(state, 1) == []


def test_actions_decode_from_json() -> None:
    assert GAME.decode_action(b'{"type":"play_room","card":3,"floor":1,"side":"left"}') == PlayRoom(3, 1, "left")
    assert GAME.decode_action(b'{"type":"discard","card":7}') == Discard(7, True)
    with pytest.raises(msgspec.ValidationError):
        GAME.decode_action(b'{"type":"play_room","card":3,"floor":1,"side":"up"}')


def test_timeout_defaults_are_harmless_and_legal() -> None:
    state = table(2, seat0=[0, 8, 11], seat1=[GHOST_A, CAT_A, 1])
    assert GAME.timeout_action(state, 0) == Discard(0)  # turn: discard the lowest card, draw one
    play(state, 0, LightCard(11))
    assert GAME.timeout_action(state, 0) == LightCard(0)  # light: the first legal step
    state = table(2, seat0=[0, 1, 12], seat1=[GHOST_A, CAT_A, 1])
    play(state, 0, PlayRoom(0, 1, "left"))
    assert GAME.timeout_action(state, 0) == StopBuilding()
    play(state, 0, StopBuilding())
    play(state, 1, Discard(1, last=False))
    assert GAME.timeout_action(state, 1) == Discard(GHOST_A)  # discard: the next card, as the last pick
    escape = escaping(3, seat1=[GHOST_A], seat2=[CAT_A])
    assert GAME.timeout_action(escape, 1) == Decline()  # stop_escape: decline
    play(escape, 1, StopEscape(GHOST_A))
    assert GAME.timeout_action(escape, 0) == Decline()  # cat_defence: decline
    with pytest.raises(IllegalAction):
        GAME.timeout_action(escape, 2)


def test_timeout_lights_as_soon_as_the_picks_allow() -> None:
    """G7: two cards showing 5 bulbs light a floor; a silent seat's light stops there instead of throwing a third
    card (here a floor-1 room it could have built) onto the discard pile."""
    state = table(2, seat0=[0, 8, 11])  # bulbs 0, 2, 3
    play(state, 0, LightCard(8), LightCard(11))
    assert LightCard(0) in GAME.legal_actions(state, 0)
    assert GAME.timeout_action(state, 0) == LightFloor(1)
    play(state, 0, LightFloor(1))
    assert 0 in state.hands[0] and state.discard == [8, 11]
