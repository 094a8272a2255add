"""The effects of Ghost at Home: setup, each action once validated, the end of a turn (G10), escapes (G11).

Every function here mutates the state in place and appends the events it causes; validation happens before,
in ``engine.ghost_at_home.legal`` (an action is legal exactly when ``legal_actions`` lists it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from engine.ghost_at_home import actions as a
from engine.ghost_at_home import events as e
from engine.ghost_at_home.cards import DECK_SIZE, HAND_SIZE, SPECIAL_ID
from engine.ghost_at_home.house import SIDES, floor_of, fully_explored, new_house, room_count, top_floor
from engine.ghost_at_home.state import Attack, Escape, State
from engine.rng import Rng

Events = list[e.Event]


def setup(seats: int, seed: bytes, max_rounds: int) -> State:
    """Seed text: shuffle all 53 cards, deal 3 to each seat one at a time; seat 0 starts."""
    rng = Rng(seed)
    pile = list(range(DECK_SIZE))
    rng.shuffle(pile)
    hands: list[list[int]] = [[] for _ in range(seats)]
    for _ in range(HAND_SIZE):
        for hand in hands:
            hand.append(pile.pop())
    for hand in hands:
        hand.sort()
    return State(seats, rng, max_rounds, pile, hands, [new_house() for _ in range(seats)])


# -- piles -------------------------------------------------------------------------------------------------
def draw(state: State, seat: int, n: int, events: Events) -> None:
    """Draw ``n`` cards; an empty pile is first rebuilt from the discard pile (G10); with both empty, draw
    what there is."""
    got: list[int] = []
    for _ in range(n):
        if not state.pile:
            if not (state.discard or state.hidden_discard):
                break
            reshuffle(state, events)
        got.append(state.pile.pop())
    if got:
        hand = state.hands[seat]
        hand.extend(got)
        hand.sort()
        events.append(e.Drew(seat, len(got), got))


def reshuffle(state: State, events: Events) -> None:
    """G10: both parts of the discard pile (face up, then face down) become the new draw pile, shuffled."""
    pile = state.discard + state.hidden_discard
    state.rng.shuffle(pile)
    state.pile = pile
    state.discard = []
    state.hidden_discard = []
    events.append(e.Reshuffled(len(pile)))


def refill(state: State, seat: int, events: Events) -> None:
    """G10: draw up to a hand of 3."""
    draw(state, seat, HAND_SIZE - len(state.hands[seat]), events)


def play_from_hand(state: State, seat: int, card: int) -> None:
    """A played card leaves the hand face up onto the discard pile."""
    state.hands[seat].remove(card)
    state.discard.append(card)


# -- ghosts and cats on a floor ----------------------------------------------------------------------------
def land_ghost(state: State, seat: int, number: int, ghost: int, events: Events) -> bool:
    """G5 landing on ``seat``'s floor ``number`` (no cat from hand any more); True when the floor is haunted.

    A cat there: both discarded.  A dark floor: the ghost and the room cards are discarded.  A lit floor: the
    ghost stays unless that makes two, when ghosts and room cards are discarded and the light goes off.
    """
    floor = floor_of(state.houses[seat], number)
    if floor.cat is not None:
        events.append(e.GhostMetCat(seat, number, ghost, floor.cat))
        state.discard += [ghost, floor.cat]
        floor.cat = None
        return False
    floor.ghosts.append(ghost)
    if floor.lit and len(floor.ghosts) < 2:
        events.append(e.GhostStays(seat, number, ghost))
        return False
    haunt(state, seat, number, events)
    return True


def haunt(state: State, seat: int, number: int, events: Events) -> None:
    """G5: a ghost on a dark floor, or two on a lit one: ghosts and room cards discarded, light off.

    Ruled (README): lightning that darkens a floor holding a ghost haunts it the same way."""
    floor = floor_of(state.houses[seat], number)
    cards = floor.ghosts + [r for r in floor.rooms if r is not None]
    state.discard += cards
    floor.ghosts = []
    floor.rooms = [None, None]
    floor.lit = False
    events.append(e.FloorHaunted(seat, number, cards))


def settle_cat(state: State, seat: int, number: int, cat: int, events: Events) -> None:
    """G6: a cat arriving on a floor with a ghost leaves with it (both discarded); otherwise it stays."""
    floor = floor_of(state.houses[seat], number)
    if floor.ghosts:
        ghost = floor.ghosts.pop()
        events.append(e.GhostMetCat(seat, number, ghost, cat))
        state.discard += [ghost, cat]
    else:
        floor.cat = cat


# -- the actions -------------------------------------------------------------------------------------------
def play_room(state: State, seat: int, act: a.PlayRoom, events: Events) -> None:
    """G4: place the card; the seat may go on placing unless its hand or its house leaves nothing to place."""
    state.hands[seat].remove(act.card)
    house = state.houses[seat]
    floor_of(house, act.floor).rooms[SIDES.index(act.side)] = act.card
    events.append(e.RoomPlayed(seat, act.card, act.floor, act.side))
    if state.hands[seat] and not fully_explored(house):
        state.phase = "build"
    else:
        end_turn(state, events)


def stop_building(state: State, seat: int, act: a.StopBuilding, events: Events) -> None:
    """G4: done placing room cards."""
    end_turn(state, events)


def play_ghost(state: State, seat: int, act: a.PlayGhost, events: Events) -> None:
    """G5: a cat on the target floor takes the ghost at once; otherwise the target is asked for a cat."""
    state.hands[seat].remove(act.card)
    number = top_floor(state.houses[act.target])
    events.append(e.GhostPlayed(seat, act.card, act.target, number, False))
    attack(state, Attack(seat, act.card, act.target, number), events)


def attack(state: State, att: Attack, events: Events) -> None:
    """G5/G11: resolve a played ghost against a cat on the floor, or hand the target its cat decision."""
    floor = floor_of(state.houses[att.target], att.floor)
    if floor.cat is not None:
        land_ghost(state, att.target, att.floor, att.ghost, events)
        after_attack(state, False, events)
    else:
        state.attack = att
        state.phase = "defence"


def defend(state: State, seat: int, act: a.Defend, events: Events) -> None:
    """G5: the target discards a cat from its hand; it and the ghost are discarded."""
    att = _take_attack(state)
    state.hands[seat].remove(act.card)
    state.discard += [att.ghost, act.card]
    events.append(e.CatDefended(seat, act.card, att.ghost))
    after_attack(state, False, events)


def decline(state: State, seat: int, act: a.Decline, events: Events) -> None:
    """Declining a cat defence lets the ghost land (G5); declining an escape ghost ends that seat's chances
    (G11)."""
    if state.phase == "defence":
        events.append(e.Declined(seat, "cat_defence"))
        att = _take_attack(state)
        after_attack(state, land_ghost(state, att.target, att.floor, att.ghost, events), events)
    else:
        events.append(e.Declined(seat, "stop_escape"))
        escape = _escape(state)
        escape.askers = [s for s in escape.askers if s != seat]
        continue_escape(state, events)


def _take_attack(state: State) -> Attack:
    att = state.attack
    assert att is not None
    state.attack = None
    return att


def _escape(state: State) -> Escape:
    escape = state.escape
    assert escape is not None
    return escape


def after_attack(state: State, haunted: bool, events: Events) -> None:
    """After a ghost is resolved: an escape goes on or stops (G11); a G5 turn ends."""
    if state.escape is None:
        end_turn(state, events)
    elif haunted:
        stop_escape_attempt(state, events)
    else:
        continue_escape(state, events)


def play_cat(state: State, seat: int, act: a.PlayCat, events: Events) -> None:
    """G6: the cat goes on an explored floor of the seat's house."""
    state.hands[seat].remove(act.card)
    events.append(e.CatPlaced(seat, act.card, act.floor))
    settle_cat(state, seat, act.floor, act.card, events)
    end_turn(state, events)


def light_card(state: State, seat: int, act: a.LightCard, events: Events) -> None:
    """G7, one step: the card is set aside (still in hand) for the light."""
    state.selected.append(act.card)
    state.phase = "light"
    events.append(e.CardSelected(seat, "light", act.card))


def light_floor(state: State, seat: int, act: a.LightFloor, events: Events) -> None:
    """G7: the chosen cards are discarded face up and the floor is lit."""
    cards = state.selected
    state.selected = []
    for card in cards:
        play_from_hand(state, seat, card)
    floor_of(state.houses[seat], act.floor).lit = True
    events.append(e.LightOn(seat, act.floor, cards))
    end_turn(state, events)


def space_time_hole(state: State, seat: int, act: a.SpaceTimeHole, events: Events) -> None:
    """G8: move a ghost to an opponent's highest floor holding a room card; G5 landing, no cat from hand."""
    card = SPECIAL_ID["space_time_hole"]
    play_from_hand(state, seat, card)
    ghost = floor_of(state.houses[act.source], act.source_floor).ghosts.pop()
    number = top_floor(state.houses[act.target])
    events.append(e.GhostMoved(seat, card, ghost, act.source, act.source_floor, act.target, number))
    land_ghost(state, act.target, number, ghost, events)
    end_turn(state, events)


def light_bulb(state: State, seat: int, act: a.LightBulb, events: Events) -> None:
    """G8: light a floor as in G7 without discarding."""
    card = SPECIAL_ID["light_bulb"]
    play_from_hand(state, seat, card)
    floor_of(state.houses[seat], act.floor).lit = True
    events.append(e.LightOn(seat, act.floor, [card]))
    end_turn(state, events)


def cat_food(state: State, seat: int, act: a.CatFood, events: Events) -> None:
    """G8: take an opponent's cat onto one of your floors (G6 applies)."""
    _move_cat(state, seat, SPECIAL_ID["cat_food"], act.source, act.source_floor, act.floor, events)


def elevator(state: State, seat: int, act: a.Elevator, events: Events) -> None:
    """G8: move one of your cats to another explored floor of yours (G6 applies)."""
    _move_cat(state, seat, SPECIAL_ID["elevator"], seat, act.source_floor, act.floor, events)


def _move_cat(state: State, seat: int, card: int, source: int, source_floor: int, number: int, events: Events) -> None:
    play_from_hand(state, seat, card)
    floor = floor_of(state.houses[source], source_floor)
    cat = floor.cat
    assert cat is not None
    floor.cat = None
    events.append(e.CatMoved(seat, card, cat, source, source_floor, number))
    settle_cat(state, seat, number, cat, events)
    end_turn(state, events)


def lightning(state: State, seat: int, act: a.Lightning, events: Events) -> None:
    """G8: darken an opponent's highest floor holding a room card; a ghost there then haunts it (README)."""
    card = SPECIAL_ID["lightning"]
    play_from_hand(state, seat, card)
    number = top_floor(state.houses[act.target])
    floor = floor_of(state.houses[act.target], number)
    floor.lit = False
    events.append(e.LightOff(seat, card, act.target, number))
    if floor.ghosts:
        haunt(state, act.target, number, events)
    end_turn(state, events)


def discard(state: State, seat: int, act: a.Discard, events: Events) -> None:
    """G9: pick cards one at a time; the last pick discards them all face down and draws as many."""
    if not act.last:
        state.selected.append(act.card)
        state.phase = "discard"
        events.append(e.CardSelected(seat, "discard", act.card))
        return
    cards = [*state.selected, act.card]
    state.selected = []
    hand = state.hands[seat]
    for card in cards:
        hand.remove(card)
    state.hidden_discard += cards
    events.append(e.Discarded(seat, len(cards), cards))
    draw(state, seat, len(cards), events)
    end_turn(state, events)


def pass_turn(state: State, seat: int, act: a.Pass, events: Events) -> None:
    """An empty hand: nothing to play, straight to the end of the turn."""
    events.append(e.Passed(seat))
    end_turn(state, events)


def stop_escape(state: State, seat: int, act: a.StopEscape, events: Events) -> None:
    """G11: a ghost on the escaping seat's floor 3 (even if a ghost is there already)."""
    escape = _escape(state)
    escape.askers.pop(0)
    state.hands[seat].remove(act.card)
    events.append(e.GhostPlayed(seat, act.card, escape.seat, 3, True))
    attack(state, Attack(seat, act.card, escape.seat, 3), events)


# -- end of turn, escape, end of game ----------------------------------------------------------------------
def end_turn(state: State, events: Events) -> None:
    """G10: a house not fully explored refills its hand; G11: a fully explored one tries to escape."""
    seat = state.active
    if fully_explored(state.houses[seat]):
        others = [(seat + i) % state.seats for i in range(1, state.seats)]
        state.escape = Escape(seat, others * 2 if state.seats == 2 else others)
        events.append(e.EscapeAttempt(seat))
        continue_escape(state, events)
    else:
        refill(state, seat, events)
        advance(state, events)


def continue_escape(state: State, events: Events) -> None:
    """G11: ask the next seat for a ghost, or, when none is left to ask, the escape succeeds."""
    escape = _escape(state)
    if escape.askers:
        state.phase = "escape"
    else:
        finish(state, [escape.seat], "escaped", events)


def stop_escape_attempt(state: State, events: Events) -> None:
    """G11: floor 3 was haunted: every seat refills, from the escaping one on; the next seat plays."""
    seat = _escape(state).seat
    state.escape = None
    events.append(e.EscapeStopped(seat))
    for i in range(state.seats):
        refill(state, (seat + i) % state.seats, events)
    advance(state, events)


def advance(state: State, events: Events) -> None:
    """The next seat's turn, or the end of the game after ``max_rounds`` full rounds (README)."""
    if state.turn + 1 >= state.max_rounds * state.seats:
        counts = [room_count(h) for h in state.houses]
        best = max(counts)
        finish(state, [s for s, c in enumerate(counts) if c == best] if best else [], "round_limit", events)
        return
    state.turn += 1
    state.active = (state.active + 1) % state.seats
    state.phase = "turn"
    events.append(e.TurnStarted(state.active, state.turn // state.seats + 1))


def finish(state: State, winners: list[int], reason: Literal["escaped", "round_limit"], events: Events) -> None:
    """The game is over."""
    state.winners = winners
    state.end = reason
    state.phase = "over"
    state.escape = None
    events.append(e.GameOver(winners, reason))


EFFECTS: dict[type[a.Action], Callable[[State, int, Any, Events], None]] = {
    a.PlayRoom: play_room,
    a.StopBuilding: stop_building,
    a.PlayGhost: play_ghost,
    a.PlayCat: play_cat,
    a.LightCard: light_card,
    a.LightFloor: light_floor,
    a.SpaceTimeHole: space_time_hole,
    a.LightBulb: light_bulb,
    a.CatFood: cat_food,
    a.Elevator: elevator,
    a.Lightning: lightning,
    a.Discard: discard,
    a.Pass: pass_turn,
    a.Defend: defend,
    a.StopEscape: stop_escape,
    a.Decline: decline,
}
"""The effect of each action type, called once the action is known legal."""
