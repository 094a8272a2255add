"""``SpookGame``: the contract (``engine.contract.Game``) over the Spook rules.

Prompt kinds: ``draw``, ``roll``, ``move``, ``turn`` for the active seat (its phase), ``contribute`` for every
hunter still to answer while a hunt is in progress (S11).  Hidden information is decided here only: ``view``
shows a seat its own hand (every hand with ``open_hands``) and never the pile's order; ``redact`` hides the card
of another seat's S8 draw.
"""

from __future__ import annotations

import msgspec

from engine.contract import Game, IllegalAction, Prompt, Result
from engine.spook import hunt as hunts
from engine.spook import rules
from engine.spook.actions import Done, Draw, EndTurn, LayTrap, Move, Offer, Roll, SpookAction, StartHunt, StopMoving
from engine.spook.board import queen_value
from engine.spook.cards import QUEEN
from engine.spook.catalog import CATALOG
from engine.spook.events import CardDrawn, SpookEvent
from engine.spook.state import SpookOptions, SpookReveal, SpookState, SpookView

TIMEOUT_ACTIONS: dict[str, SpookAction] = {
    "draw": Draw(),
    "roll": Roll(),
    "move": StopMoving(),
    "turn": EndTurn(),
    "contribute": Done(),
}
"""What a silent seat does when its time runs out, by prompt kind: the turn goes on without extra moves or hunts."""

FREE_PHASES = frozenset({"roll", "move", "turn"})
"""S10: hunts and traps are allowed before, during and after the move (after the draw)."""


class SpookGame(Game[SpookState, SpookAction, SpookEvent]):
    name = "spook"
    title = "Spook"
    min_seats = 1
    max_seats = 4
    cooperative = True
    state_type = SpookState
    action_type = SpookAction
    event_type = SpookEvent
    options_type = SpookOptions
    catalog = CATALOG

    def setup(self, seats: int, seed: bytes, options: msgspec.Struct, table_id: str) -> SpookState:
        if not self.min_seats <= seats <= self.max_seats:
            raise IllegalAction("bad_option", f"Spook seats 1 to 4, not {seats}")
        if not isinstance(options, SpookOptions):
            raise IllegalAction("bad_option", "options must be SpookOptions")
        return rules.setup(seats, seed, options)

    def prompts(self, state: SpookState) -> dict[int, Prompt]:
        if state.phase == "over":
            return {}
        hunt = state.hunt
        if hunt is not None:
            note = f"{hunt.kind} hunt for {hunt.ghost or 'the wing'} in {hunt.location}"
            return {s: Prompt("contribute", note) for s in hunt.waiting}
        return {state.active: Prompt(state.phase)}

    def legal_actions(self, state: SpookState, seat: int) -> list[SpookAction]:
        if state.phase == "over":
            return []
        hunt = state.hunt
        if hunt is not None:
            if seat not in hunt.waiting:
                return []
            return [*(Offer(card=c) for c in state.hands[seat] if hunts.counts(hunt, c)), Done()]
        if seat != state.active:
            return []
        actions: list[SpookAction]
        if state.phase == "draw":
            return [Draw()]
        if state.phase == "roll":
            actions = [Roll()]
        elif state.phase == "move":
            actions = [*rules.move_options(state), StopMoving()]
        else:
            actions = [EndTurn()]
        actions += hunts.hunt_options(state)
        actions += rules.trap_options(state)
        return actions

    def apply(self, state: SpookState, seat: int, action: SpookAction) -> list[SpookEvent]:
        if state.phase == "over":
            raise IllegalAction("game_over")
        events: list[SpookEvent] = []
        hunt = state.hunt
        if hunt is not None:
            if seat not in hunt.waiting:
                raise IllegalAction("not_your_turn", "a hunt is in progress without you")
            if isinstance(action, Offer):
                hunts.check_offer(state, hunt, seat, action)
                hunts.offer(state, hunt, seat, action, events)
            elif isinstance(action, Done):
                hunts.done(state, hunt, seat, events)
            else:
                raise IllegalAction("illegal_move", "a hunt is in progress: offer a card or say done (S11)")
            return events
        if seat != state.active:
            raise IllegalAction("not_your_turn")
        phase = state.phase
        if isinstance(action, Draw) and phase == "draw":
            rules.do_draw(state, events)
        elif isinstance(action, Roll) and phase == "roll":
            rules.do_roll(state, events)
        elif isinstance(action, Move) and phase == "move":
            rules.check_move(state, action)
            rules.do_move(state, action, events)
        elif isinstance(action, StopMoving) and phase == "move":
            rules.do_stop_moving(state, events)
        elif isinstance(action, EndTurn) and phase == "turn":
            rules.do_end_turn(state, events)
        elif isinstance(action, StartHunt) and phase in FREE_PHASES:
            hunts.start_hunt(state, action, events)
        elif isinstance(action, LayTrap) and phase in FREE_PHASES:
            rules.check_lay_trap(state, action)
            rules.do_lay_trap(state, action, events)
        else:
            raise IllegalAction("illegal_move", f"{type(action).__name__} is not allowed in the {phase} phase")
        return events

    def view(self, state: SpookState, seat: int | None) -> SpookView:
        hunt = state.hunt
        if hunt is not None:  # a copy: the view shares no list with the state
            hunt = msgspec.structs.replace(
                hunt, hunters=list(hunt.hunters), waiting=list(hunt.waiting), offered=list(hunt.offered)
            )
        shown = state.options.open_hands
        return SpookView(
            viewer=seat,
            seats=state.seats,
            open_hands=shown,
            turn=state.turn,
            active=state.active,
            phase=state.phase,
            roll=state.roll,
            steps_left=state.steps_left,
            moving_pawn=state.moving_pawn,
            pawns=list(state.pawns),
            omen=state.omen,
            rooms=list(state.rooms),
            staircase=list(state.staircase),
            traps=list(state.traps),
            pile_size=len(state.pile),
            discard=list(state.discard),
            hands=[list(h) if shown or s == seat else None for s, h in enumerate(state.hands)],
            hand_sizes=[len(h) for h in state.hands],
            queen_value=queen_value(state.rooms, state.staircase)
            if QUEEN in state.rooms or QUEEN in state.staircase
            else 0,
            hunt=hunt,
            outcome=state.outcome,
            reason=state.reason,
        )

    def redact(self, event: SpookEvent, seat: int | None) -> SpookEvent | None:
        if isinstance(event, CardDrawn) and not event.public and seat != event.seat:
            return msgspec.structs.replace(event, card=None)
        return event

    def result(self, state: SpookState) -> Result | None:
        if state.outcome is None:
            return None
        won = state.outcome == "won"
        return Result(
            scores=[int(won)] * state.seats,
            winners=list(range(state.seats)) if won else [],
            seed=state.rng.seed.hex(),
            reveal=SpookReveal(hands=[list(h) for h in state.hands], pile=list(state.pile)),
        )

    def timeout_action(self, state: SpookState, seat: int) -> SpookAction:
        prompt = self.prompts(state).get(seat)
        if prompt is None:
            raise IllegalAction("not_your_turn", "no decision pending")
        return TIMEOUT_ACTIONS[prompt.kind]
