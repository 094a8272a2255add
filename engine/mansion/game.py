"""Call of the Spirits behind the engine contract: setup, prompts, legal actions, validation and dispatch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

import msgspec

from engine.contract import Game, IllegalAction, Prompt, Result
from engine.fairness import commitment
from engine.mansion import legal, rules
from engine.mansion.actions import (
    DECLINE,
    DIALS,
    DIRECTIONS,
    END_TURN,
    Action,
    ChooseDirection,
    Collect,
    Decline,
    Dial,
    DiscardHaunt,
    Duel,
    EndTurn,
    Move,
    Rotate,
)
from engine.mansion.cards import (
    CRYPT,
    DIRECTION_SIGN,
    EVENT_CARDS,
    FINAL_ROUND,
    KIND_INDEX,
    MAX_SEATS,
    MIN_SEATS,
    ROOM_COUNT,
    SEANCE,
    ghost_deck,
    haunt_deck,
)
from engine.mansion.catalog import CATALOG
from engine.mansion.events import Event
from engine.mansion.state import (
    NO_BID,
    PH_CANDLELIGHT,
    PH_DIALS,
    PH_EVENT_DIRECTION,
    PH_GRIM_GRINNING,
    PH_OVER,
    PH_TEA_PARTY,
    PH_TURN,
    Options,
    State,
)
from engine.mansion.view import PHASE_NAMES, View, redact, reveal, view
from engine.rng import Rng

PROMPTS: Final = {phase: Prompt(name) for phase, name in enumerate(PHASE_NAMES)}
"""Prompt kinds: ``event_direction``, ``turn``, ``dial``, ``tea_party``, ``grim_grinning``, ``candlelight``."""

Handler = Callable[[State, int, Any, list[Any]], None]


def _end_turn_only(s: State, seat: int) -> list[Any]:
    return [END_TURN]


def _optional_discard(s: State, seat: int) -> list[Any]:
    return [*legal.hand_discards(s, seat), DECLINE]


# per phase: action type -> (the legal actions of that type, what applying one does)
_DISPATCH: Final[dict[int, dict[type, tuple[Callable[[State, int], list[Any]], Handler]]]] = {
    PH_TURN: {
        Move: (legal.moves, lambda s, seat, a, out: rules.move(s, seat, a.to, out)),
        Rotate: (lambda s, seat: legal.rotations(s), lambda s, seat, a, out: rules.rotate(s, seat, a.r, out)),
        Collect: (legal.collects, lambda s, seat, a, out: rules.collect(s, seat, KIND_INDEX[a.card], out)),
        Duel: (
            legal.duels,
            lambda s, seat, a, out: rules.start_duel(s, seat, a.target, KIND_INDEX[a.card], out),
        ),
        DiscardHaunt: (legal.discards, lambda s, seat, a, out: rules.discard_action(s, seat, a.value, out)),
        EndTurn: (_end_turn_only, lambda s, seat, a, out: rules.end_turn(s, out)),
    },
    PH_DIALS: {Dial: (lambda s, seat: DIALS, lambda s, seat, a, out: rules.set_dial(s, seat, a.bid, out))},
    PH_EVENT_DIRECTION: {
        ChooseDirection: (
            lambda s, seat: DIRECTIONS,
            lambda s, seat, a, out: rules.finish_event_phase(s, DIRECTION_SIGN[a.direction], out),
        )
    },
    PH_TEA_PARTY: {
        ChooseDirection: (
            lambda s, seat: DIRECTIONS,
            lambda s, seat, a, out: rules.tea_party(s, DIRECTION_SIGN[a.direction], out),
        )
    },
    PH_GRIM_GRINNING: {
        DiscardHaunt: (_optional_discard, lambda s, seat, a, out: rules.grim_grinning(s, seat, a.value, out)),
        Decline: (_optional_discard, lambda s, seat, a, out: rules.grim_grinning(s, seat, None, out)),
    },
    PH_CANDLELIGHT: {
        DiscardHaunt: (_optional_discard, lambda s, seat, a, out: rules.candlelight(s, seat, a.value, out)),
        Decline: (_optional_discard, lambda s, seat, a, out: rules.candlelight(s, seat, None, out)),
    },
}


class MansionGame(Game[State, Action, Event]):
    """*Disney: The Haunted Mansion – Call of the Spirits*, 2–6 seats (rules M1–M30)."""

    name: ClassVar[str] = "mansion"
    title: ClassVar[str] = "Disney: The Haunted Mansion – Call of the Spirits"
    min_seats: ClassVar[int] = MIN_SEATS
    max_seats: ClassVar[int] = MAX_SEATS
    state_type: ClassVar[type[msgspec.Struct]] = State
    action_type: ClassVar[Any] = Action
    event_type: ClassVar[Any] = Event
    options_type: ClassVar[type[msgspec.Struct]] = Options
    catalog: ClassVar[msgspec.Struct] = CATALOG

    def setup(self, seats: int, seed: bytes, options: msgspec.Struct, table_id: str) -> State:
        """M4, M8, M30; the first player is drawn by the seeded generator.  The first round's Event Phase runs
        here (everyone is in the Séance Room, so nobody draws): its outcome is in the view."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise IllegalAction("bad_option", f"Call of the Spirits seats {MIN_SEATS}–{MAX_SEATS} players")
        if not isinstance(options, Options):
            raise IllegalAction("bad_option", "unexpected options")
        rng = Rng(seed)
        first = rng.below(seats)
        ghosts, haunts = ghost_deck(), haunt_deck()
        rng.shuffle(ghosts)
        rng.shuffle(haunts)
        events = list(range(FINAL_ROUND))  # M8, the top of a deck being the end of its list
        rng.shuffle(events)
        removed, events = events[-seats:], events[:-seats]
        rng.shuffle(events)
        bottom = [*events[:3], FINAL_ROUND]
        rng.shuffle(bottom)
        state = State(
            seats=seats,
            rng=rng,
            commitment=commitment(seed, table_id),
            first=first,
            round=0,
            phase=PH_TURN,
            turn=-1,
            turns_done=0,
            actions=0,
            duels=0,
            discarded=False,
            free_rotate_used=False,
            long_move_used=False,
            tea_steps=0,
            duel=[],
            event=-1,
            events_done=[],
            event_deck=bottom + events[3:],
            removed_events=removed,
            rotation=0,
            ghosts=CRYPT,
            pos=[SEANCE] * seats,
            rooms=[[] for _ in range(ROOM_COUNT)],
            ghost_deck=ghosts,
            haunt_deck=haunts,
            hands=[[] for _ in range(seats)],
            collections=[[] for _ in range(seats)],
            discards=[[] for _ in range(seats)],
            scores=[],
            winners=[],
        )
        assert len(state.event_deck) + len(removed) == EVENT_CARDS
        rules.start_round(state, [])
        return state

    def prompts(self, state: State) -> dict[int, Prompt]:
        phase = state.phase
        if phase in (PH_TURN, PH_TEA_PARTY, PH_GRIM_GRINNING, PH_CANDLELIGHT):
            return {state.turn: PROMPTS[phase]}
        if phase == PH_DIALS:
            duel = state.duel
            prompt = PROMPTS[PH_DIALS]
            owed = {}
            if duel[3] == NO_BID:
                owed[duel[0]] = prompt
            if duel[4] == NO_BID:
                owed[duel[1]] = prompt
            return owed
        if phase == PH_EVENT_DIRECTION:
            return {state.first: PROMPTS[phase]}
        return {}

    def _prompted(self, state: State, seat: int) -> bool:
        phase = state.phase
        if phase == PH_DIALS:
            duel = state.duel
            return (seat == duel[0] and duel[3] == NO_BID) or (seat == duel[1] and duel[4] == NO_BID)
        if phase == PH_EVENT_DIRECTION:
            return seat == state.first
        return phase != PH_OVER and seat == state.turn

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if not self._prompted(state, seat):
            return []
        phase = state.phase
        if phase == PH_TURN:
            return [
                *legal.moves(state, seat),
                *legal.rotations(state),
                *legal.collects(state, seat),
                *legal.duels(state, seat),
                *legal.discards(state, seat),
                END_TURN,
            ]
        if phase == PH_DIALS:
            return list(DIALS)
        if phase in (PH_GRIM_GRINNING, PH_CANDLELIGHT):
            return _optional_discard(state, seat)
        return list(DIRECTIONS)

    def apply(self, state: State, seat: int, action: Action) -> list[Event]:
        if state.phase == PH_OVER:
            raise IllegalAction("game_over", "the game is over")
        if not self._prompted(state, seat):
            raise IllegalAction("not_your_turn", f"seat {seat} owes no decision now")
        entry = _DISPATCH[state.phase].get(type(action))
        if entry is None:
            raise IllegalAction("illegal_move", f"{type(action).__name__} does not answer a {PHASE_NAMES[state.phase]}")
        options, handler = entry
        legal_now = options(state, seat)
        if action not in legal_now:
            raise IllegalAction("illegal_move", f"{action!r} is not legal now")
        out: list[Any] = []
        # the engine's own copy of the action: an equal but odd value (True for 1) never reaches the state
        handler(state, seat, legal_now[legal_now.index(action)], out)
        rules.after_action(state, out)
        return out

    def view(self, state: State, seat: int | None) -> View:
        return view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        redacted: Event = redact(event, seat)
        return redacted

    def result(self, state: State) -> Result | None:
        if state.phase != PH_OVER:
            return None
        return Result(list(state.scores), list(state.winners), state.rng.seed.hex(), reveal(state))

    def timeout_action(self, state: State, seat: int) -> Action:
        """Turn → end it; dial → 0; direction → clockwise; Grim Grinning / candlelight → decline."""
        if not self._prompted(state, seat):
            raise IllegalAction("not_your_turn", f"seat {seat} owes no decision now")
        phase = state.phase
        if phase == PH_TURN:
            return END_TURN
        if phase == PH_DIALS:
            return DIALS[0]
        if phase in (PH_GRIM_GRINNING, PH_CANDLELIGHT):
            return DECLINE
        return DIRECTIONS[0]
