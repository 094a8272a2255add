"""Ghost at Home as an ``engine.contract.Game``: glue between the contract and the rule modules."""

from __future__ import annotations

import msgspec

from engine.contract import Game, IllegalAction, Prompt, Result
from engine.ghost_at_home import actions as a
from engine.ghost_at_home import events as e
from engine.ghost_at_home import legal, rules, views
from engine.ghost_at_home.catalog import CATALOG
from engine.ghost_at_home.house import room_count
from engine.ghost_at_home.state import MAX_ROUNDS_LIMIT, Options, State


class GhostAtHome(Game[State, a.Action, e.Event]):
    name = "ghost-at-home"
    title = "Ghost at Home"
    min_seats = 2
    max_seats = 5
    state_type = State
    action_type = a.Action
    event_type = e.Event
    options_type = Options
    catalog = CATALOG

    def setup(self, seats: int, seed: bytes, options: msgspec.Struct, table_id: str) -> State:
        if not self.min_seats <= seats <= self.max_seats:
            raise IllegalAction("bad_option", f"Ghost at Home seats 2 to 5, not {seats}")
        if not isinstance(options, Options) or not 1 <= options.max_rounds <= MAX_ROUNDS_LIMIT:
            raise IllegalAction("bad_option", f"max_rounds must be 1 to {MAX_ROUNDS_LIMIT}")
        return rules.setup(seats, seed, options.max_rounds)

    def prompts(self, state: State) -> dict[int, Prompt]:
        return legal.prompts(state)

    def legal_actions(self, state: State, seat: int) -> list[a.Action]:
        return legal.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: a.Action) -> list[e.Event]:
        if state.phase == "over":
            raise IllegalAction("game_over")
        if seat != legal.deciding_seat(state):
            raise IllegalAction("not_your_turn")
        if not legal.is_legal(state, seat, action):
            raise IllegalAction("illegal_move", f"{type(action).__name__} is not allowed now")
        events: list[e.Event] = []
        rules.EFFECTS[type(action)](state, seat, action, events)
        return events

    def view(self, state: State, seat: int | None) -> views.View:
        return views.view(state, seat)

    def redact(self, event: e.Event, seat: int | None) -> e.Event | None:
        return views.redact(event, seat)

    def result(self, state: State) -> Result | None:
        """Scores are each house's explored spaces (0–6); winners the escaped seat (G11) or, at the round
        limit, the most explored houses."""
        if state.phase != "over":
            return None
        scores = [room_count(h) for h in state.houses]
        return Result(scores, list(state.winners), state.rng.seed.hex(), views.reveal(state))

    def timeout_action(self, state: State, seat: int) -> a.Action:
        """Defaults: a turn discards the lowest card face down and draws one (G9; ``pass`` with an empty hand);
        a build stops; a light lights its lowest floor once the picks allow, else takes its first legal step; a G9
        pick becomes the last; a cat defence or an escape ghost is declined."""
        if seat != legal.deciding_seat(state):
            raise IllegalAction("not_your_turn")
        hand = state.hands[seat]
        match state.phase:
            case "turn":
                return a.Discard(hand[0]) if hand else a.Pass()
            case "build":
                return a.StopBuilding()
            case "light":
                floors = legal.light_floor_actions(state, seat)
                return floors[0] if floors else legal.legal_actions(state, seat)[0]
            case "discard":
                return a.Discard(next(c for c in hand if c not in state.selected))
            case _:
                return a.Decline()
