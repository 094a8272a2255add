"""The rules of a round: Event Phase (M9–M12), turns and their actions (M13–M18), ghost effects (M6), the end.

Functions here mutate the state and append events to ``out``; they assume the action was validated
(``legal.py``).  Draw-order ruling: when several seats draw at once they draw clockwise from the first player.
The pure ``distance``, ``ghost_path`` and ``collect_draws`` also serve the bots.
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from engine.mansion.cards import (
    ACTIONS_PER_TURN,
    BOLD_CHALLENGE,
    BUSY_NIGHT,
    BUSY_NIGHT_EXTRA,
    CANDLELIGHT,
    COLD_SPOT,
    CW,
    DIRECTION_NAME,
    DRAW_GHOST,
    DRAW_HAUNT,
    EITHER,
    EVENTS,
    FINAL_ROUND,
    FINAL_ROUND_EXTRA,
    KIND_EFFECT,
    KIND_NAMES,
    KIND_STEPS,
    MAY_DISCARD_HAUNT,
    MOVE_GHOSTS,
    OPEN_DOORS,
    PLACED_EXTRA,
    PRINTED_DIRECTION,
    QUIET_NIGHT,
    ROOM_COUNT,
    SEANCE,
    STRETCHING_ACTIONS,
    STRETCHING_ROOM,
    WANDERING_SPIRITS,
)
from engine.mansion.events import (
    Collected,
    Declined,
    DialSet,
    DiscardCause,
    DrawCause,
    DuelRevealed,
    DuelStarted,
    GameOver,
    GhostCardsPlaced,
    GhostsCause,
    GhostsMoved,
    HauntDiscarded,
    HauntDrawn,
    Moved,
    Rotated,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from engine.mansion.legal import duels, rotations
from engine.mansion.scoring import final_scores
from engine.mansion.state import (
    NO_BID,
    PH_CANDLELIGHT,
    PH_DIALS,
    PH_EVENT_DIRECTION,
    PH_GRIM_GRINNING,
    PH_OVER,
    PH_TEA_PARTY,
    PH_TURN,
    State,
)
from engine.mansion.view import reveal

Out = list[Any]


# -- Event Phase (M9–M12) --------------------------------------------------------------------------------
def start_round(s: State, out: Out) -> None:
    """M9: reveal the top Event card; then the ghosts move (after a choice for ``either``) and cards are placed."""
    s.round += 1
    s.turn = -1
    s.turns_done = 0
    if s.event >= 0:
        s.events_done.append(s.event)
    event = s.event_deck.pop()
    s.event = event
    card = EVENTS[event]
    out.append(
        RoundStarted(s.round, s.first, card.name, card.steps, PRINTED_DIRECTION[card.direction], len(s.event_deck))
    )
    if event == FINAL_ROUND:  # M12: the ghosts don't move
        place_ghost_cards(s, out)
        start_turn(s, s.first, out)
    elif card.direction == EITHER:
        s.phase = PH_EVENT_DIRECTION
    else:
        finish_event_phase(s, card.direction, out)


def finish_event_phase(s: State, sign: int, out: Out) -> None:
    """M9: move the ghosts in direction ``sign``, place the Ghost cards, start the Action Phase (M13)."""
    move_ghosts(s, EVENTS[s.event].steps, sign, "event", out)
    place_ghost_cards(s, out)
    start_turn(s, s.first, out)


def move_ghosts(s: State, steps: int, sign: int, cause: GhostsCause, out: Out) -> None:
    """M10: each seat draws the Haunt cards ``ghost_path`` gives its room (none in the Séance Room)."""
    start = s.ghosts
    final, by_room = ghost_path(start, steps, sign)
    rotation = s.rotation
    draws = [0 if p == SEANCE else by_room.get((p + rotation) % ROOM_COUNT, 0) for p in s.pos]
    s.ghosts = final
    out.append(GhostsMoved(cause, start, final, steps, DIRECTION_NAME[sign], draws))
    seats = s.seats
    for i in range(seats):
        seat = (s.first + i) % seats
        if draws[seat]:
            draw_haunt(s, seat, draws[seat], "ghosts", out)


def ghost_path(start: int, steps: int, sign: int) -> tuple[int, dict[int, int]]:
    """M10: the room the ghosts end in, moving ``steps`` rooms in direction ``sign`` from ``start``, and the Haunt
    cards a seat in each room draws: 1 per pass through it, 2 for the final room; a room left out (the start room
    unless the movement comes back to it) draws nothing."""
    draws: dict[int, int] = {}
    room = start
    for _ in range(steps - 1):
        room = (room + sign) % ROOM_COUNT
        draws[room] = draws.get(room, 0) + 1
    final = (start + sign * steps) % ROOM_COUNT
    draws[final] = draws.get(final, 0) + 2
    return final, draws


def place_ghost_cards(s: State, out: Out) -> None:
    """M11: seats + 3 cards (more on busy_night and in the Final Round): two in the ghosts' room, then one per
    room clockwise from the next room; an exhausted deck places what is left (M6)."""
    count = s.seats + PLACED_EXTRA
    if s.event == BUSY_NIGHT:
        count += BUSY_NIGHT_EXTRA
    elif s.event == FINAL_ROUND:
        count += FINAL_ROUND_EXTRA
    deck = s.ghost_deck
    rooms = s.rooms
    placed: list[list[Any]] = [[] for _ in range(ROOM_COUNT)]
    room = s.ghosts
    for i in range(min(count, len(deck))):
        if i >= 2:
            room = (room + 1) % ROOM_COUNT
        card = deck.pop()
        insort(rooms[room], card)
        placed[room].append(KIND_NAMES[card])
    out.append(GhostCardsPlaced(placed))


# -- turns (M13) ---------------------------------------------------------------------------------------
def start_turn(s: State, seat: int, out: Out) -> None:
    """M13: a turn of 3 actions (4 under stretching_room, M7)."""
    s.phase = PH_TURN
    s.turn = seat
    s.actions = STRETCHING_ACTIONS if s.event == STRETCHING_ROOM else ACTIONS_PER_TURN
    s.duels = 0
    s.discarded = False
    s.free_rotate_used = False
    s.long_move_used = False
    out.append(TurnStarted(seat, s.actions))


def after_action(s: State, out: Out) -> None:
    """The turn ends by itself once only End Turn is left: no action left and no free one (M7) usable."""
    if s.phase == PH_TURN and not s.actions and not rotations(s) and not duels(s, s.turn):
        end_turn(s, out)


def end_turn(s: State, out: Out) -> None:
    """M13; candlelight (M7): a seat ending its turn in the Séance Room holding Haunt cards may first discard."""
    seat = s.turn
    if s.event == CANDLELIGHT and s.pos[seat] == SEANCE and s.hands[seat]:
        s.phase = PH_CANDLELIGHT
        return
    finish_turn(s, out)


def finish_turn(s: State, out: Out) -> None:
    """M13: the next seat's turn; after the last, the First Player marker passes and a round starts (or, after
    the Final Round, the game ends: M12).  wandering_spirits moves the ghosts after every turn (M7)."""
    seat = s.turn
    out.append(TurnEnded(seat))
    if s.event == WANDERING_SPIRITS:
        move_ghosts(s, 1, CW, "wandering_spirits", out)
    s.turns_done += 1
    if s.turns_done < s.seats:
        start_turn(s, (seat + 1) % s.seats, out)
    elif s.event == FINAL_ROUND:
        game_over(s, out)
    else:
        s.first = (s.first + 1) % s.seats
        start_round(s, out)


# -- actions (M14–M18) ------------------------------------------------------------------------------------
def move(s: State, seat: int, to: int, out: Out) -> None:
    """M14 (heavy_footsteps, M7: the one 2-step move of the turn)."""
    start = s.pos[seat]
    steps = distance(start, to)
    if steps == 2:
        s.long_move_used = True
    s.actions -= 1
    s.pos[seat] = to
    out.append(Moved(seat, start, to, steps))


def distance(start: int, to: int) -> int:
    """M14: steps between two locations (Séance Room ↔ any section: 1; adjacent sections: 1; else 2)."""
    if start == SEANCE or to == SEANCE or abs(start - to) == 1:
        return 1
    return 2


def rotate(s: State, seat: int, r: int, out: Out) -> None:
    """M15; open_doors (M7): the turn's first Rotate costs no action."""
    free = s.event == OPEN_DOORS and not s.free_rotate_used
    if free:
        s.free_rotate_used = True
    else:
        s.actions -= 1
    out.append(Rotated(seat, s.rotation, r, free))
    s.rotation = r


def collect(s: State, seat: int, kind: int, out: Out) -> None:
    """M16: take the card; in the ghosts' room draw Haunt cards (``collect_draws``); its effect."""
    room = (s.pos[seat] + s.rotation) % ROOM_COUNT
    s.rooms[room].remove(kind)
    s.actions -= 1
    insort(s.collections[seat], kind)
    out.append(Collected(seat, KIND_NAMES[kind], room))
    if room == s.ghosts:
        draw_haunt(s, seat, collect_draws(s.event), "collect", out)
    apply_effect(s, seat, kind, out)


def collect_draws(event: int) -> int:
    """M16: Haunt cards drawn per card collected in the Hitchhiking Ghosts' room under ``event`` (cold_spot 2,
    quiet_night 0: M7; else 1)."""
    return 2 if event == COLD_SPOT else 0 if event == QUIET_NIGHT else 1


def apply_effect(s: State, seat: int, kind: int, out: Out) -> None:
    """M6: Tea Party → a direction to choose; Grim Grinning → an optional discard (only with Haunt cards to
    discard); Ballroom → draw 1 Haunt card; Groom → the top Ghost card joins the collection and its effect
    applies (chains; nothing when the deck is empty)."""
    while True:
        effect = KIND_EFFECT[kind]
        if effect == MOVE_GHOSTS:
            s.phase = PH_TEA_PARTY
            s.tea_steps = KIND_STEPS[kind]
        elif effect == MAY_DISCARD_HAUNT:
            if s.hands[seat]:
                s.phase = PH_GRIM_GRINNING
        elif effect == DRAW_HAUNT:
            draw_haunt(s, seat, 1, "ballroom", out)
        elif effect == DRAW_GHOST and s.ghost_deck:
            kind = s.ghost_deck.pop()
            insort(s.collections[seat], kind)
            out.append(Collected(seat, KIND_NAMES[kind], -1))
            continue
        return


def tea_party(s: State, sign: int, out: Out) -> None:
    """M6: the collector moves the ghosts the printed number of rooms, with the usual Haunt draws (M10)."""
    s.phase = PH_TURN
    steps, s.tea_steps = s.tea_steps, 0
    move_ghosts(s, steps, sign, "tea_party", out)


def start_duel(s: State, seat: int, target: int, kind: int, out: Out) -> None:
    """M17: a duel costs an action (none under bold_challenge, M7); then both seats set their dials."""
    free = s.event == BOLD_CHALLENGE
    if not free:
        s.actions -= 1
    s.duels += 1
    s.duel = [seat, target, kind, NO_BID, NO_BID]
    s.phase = PH_DIALS
    out.append(DuelStarted(seat, target, KIND_NAMES[kind], free))


def set_dial(s: State, seat: int, bid: int, out: Out) -> None:
    """M17: a secret bid; once both are set they are revealed together, the higher bid takes the card (a tie
    leaves it, a taken card has no effect) and each seat draws Haunt cards equal to its own bid."""
    duel = s.duel
    duel[3 if seat == duel[0] else 4] = bid
    out.append(DialSet(seat, bid))
    challenger, defender, kind, challenger_bid, defender_bid = duel
    if challenger_bid == NO_BID or defender_bid == NO_BID:
        return
    winner = defender
    if challenger_bid > defender_bid:
        s.collections[defender].remove(kind)
        insort(s.collections[challenger], kind)
        winner = challenger
    out.append(DuelRevealed(challenger, defender, KIND_NAMES[kind], challenger_bid, defender_bid, winner))
    draw_haunt(s, challenger, challenger_bid, "duel", out)
    draw_haunt(s, defender, defender_bid, "duel", out)
    s.duel = []
    s.phase = PH_TURN


def grim_grinning(s: State, seat: int, value: int | None, out: Out) -> None:
    """M6: the Grim Grinning discard, taken now (``value``) or never (``None``); the turn goes on."""
    if value is None:
        out.append(Declined(seat, "grim_grinning"))
    else:
        discard_haunt(s, seat, value, "grim_grinning", out)
    s.phase = PH_TURN


def candlelight(s: State, seat: int, value: int | None, out: Out) -> None:
    """M7: the candlelight discard at the end of the turn (``None``: declined); then the turn ends."""
    if value is None:
        out.append(Declined(seat, "candlelight"))
    else:
        discard_haunt(s, seat, value, "candlelight", out)
    finish_turn(s, out)


def discard_action(s: State, seat: int, value: int, out: Out) -> None:
    """M18: once per turn, for an action."""
    s.discarded = True
    s.actions -= 1
    discard_haunt(s, seat, value, "action", out)


def discard_haunt(s: State, seat: int, value: int, cause: DiscardCause, out: Out) -> None:
    """M18: the Haunt card goes to the bottom of the Haunt deck (also for Grim Grinning and candlelight)."""
    s.hands[seat].remove(value)
    s.haunt_deck.insert(0, value)
    out.append(HauntDiscarded(seat, cause, value))


def draw_haunt(s: State, seat: int, count: int, cause: DrawCause, out: Out) -> None:
    """M5: draw from the top; a draw due from an empty deck is skipped."""
    deck = s.haunt_deck
    count = min(count, len(deck))
    if not count:
        return
    drawn = deck[-count:]
    del deck[-count:]
    drawn.reverse()
    hand = s.hands[seat]
    for value in drawn:
        insort(hand, value)
    out.append(HauntDrawn(seat, count, cause, drawn))


# -- the end (M19–M22) ---------------------------------------------------------------------------------
def game_over(s: State, out: Out) -> None:
    """M19–M22: reveal the Haunt totals, discard the penalty cards, score, and reveal the seed (M30)."""
    totals = [sum(hand) for hand in s.hands]
    discards, scores, winners = final_scores(s.collections, totals)
    for collection, lost in zip(s.collections, discards, strict=True):
        for kind in lost:
            collection.remove(kind)
    s.discards = discards
    s.scores = scores
    s.winners = winners
    s.phase = PH_OVER
    s.turn = -1
    out.append(GameOver(list(scores), list(winners), s.rng.seed.hex(), reveal(s)))
