"""Hunts (S11) and the draw after a successful one (S12), as a joint decision in steps.

1. The active seat starts a hunt (``StartHunt``) in its pawn's location, naming the ghost and the kind.  It is
   legal only when the hunters — every seat with a pawn there — hold between them cards that can reach it
   (S11: "a hunt that would not reach the value is not legal").
2. Every hunter holding a card that counts is prompted at once (``contribute``) to offer one card at a time or
   say done.  A hunter whose last counting card is offered is done automatically.
3. The hunt succeeds the moment the offered cards reach the value; it is abandoned (cards back to their owners)
   the moment the offered cards and the waiting hunters' counting cards together can no longer reach it.
4. A hunt abandoned is not legal again this turn with the same hunters (``SpookState.let_go``) until a hunt
   succeeds: the hunters let it go, and nothing since changed what they hold or what it takes.  Started again and
   again, it would keep the game from ever ending (a server-run bot re-starting a hunt that an away seat's
   time-outs let go, at full speed, for ever).  A successful hunt changes the board (the Queen's value, a wing's
   ghosts) and spends cards and a draw, so it frees every hunt let go without allowing a loop.
"""

from __future__ import annotations

from engine.contract import IllegalAction
from engine.spook.actions import Offer, StartHunt
from engine.spook.board import ROOM_INDEX, WING_OF, ghosts_at, queen_value, remove_ghost, wing_ghosts
from engine.spook.cards import HUNTING_CARDS, HUNTS_WITH, KINGS, QUEEN, RED_QUEENS, SUIT, VALUE
from engine.spook.events import CardOffered, HuntAbandoned, HunterDone, HuntStarted, HuntSucceeded, SpookEvent
from engine.spook.rules import draw_card, end_game
from engine.spook.state import Hunt, HuntKind, LetGo, Offered, SpookState


def counts(hunt: Hunt, card: str) -> bool:
    """S11: a King for a banish, a red Queen for a wing clear, else a hunting card of a suit that counts."""
    if hunt.kind == "king":
        return card in KINGS
    if hunt.kind == "wing":
        return card in RED_QUEENS
    return card in HUNTING_CARDS and SUIT[card] in hunt.suits


def _reachable(state: SpookState, hunt: Hunt) -> bool:
    """Whether the offered cards plus the waiting hunters' counting cards can still reach the hunt's value."""
    pool = [o.card for o in hunt.offered]
    pool += [c for s in hunt.waiting for c in state.hands[s] if counts(hunt, c)]
    if hunt.kind == "wing":
        return all(q in pool for q in RED_QUEENS)
    return bool(pool) and (hunt.kind == "king" or sum(VALUE[c] for c in pool) >= hunt.value)


def _let_go(hunt: Hunt) -> LetGo:
    return (hunt.kind, hunt.ghost, hunt.location, tuple(hunt.hunters))


def _reached(hunt: Hunt) -> bool:
    """S11: the offered cards reach the value (at least one card is always played)."""
    if hunt.kind == "wing":
        return len(hunt.offered) == len(RED_QUEENS)
    return bool(hunt.offered) and sum(VALUE[o.card] for o in hunt.offered) >= hunt.value


def plan_hunt(state: SpookState, ghost: str | None, kind: HuntKind) -> Hunt | str:
    """The hunt the active seat would start, or why it may not (S11)."""
    location = state.pawns[state.active]
    if kind == "wing":
        if ghost is not None:
            return "a wing clear names no ghost"
        if location not in WING_OF:
            return f"the {location} belongs to no wing (S3)"
        if not wing_ghosts(state.rooms, location):
            return "no ghost but the Queen to clear in this wing"
        value, suits = 0, ""
    elif ghost is None or ghost not in ghosts_at(state.rooms, state.staircase, location):
        return f"no ghost {ghost!r} where your pawn stands"
    elif kind == "king":
        if ghost == QUEEN:
            return "a King cannot banish the Queen (S11)"
        value, suits = 0, ""
    else:
        value = queen_value(state.rooms, state.staircase) if ghost == QUEEN else VALUE[ghost]
        suits = HUNTS_WITH[ghost]
    hunters = [s for s in range(state.seats) if state.pawns[s] == location]
    hunt = Hunt(
        kind=kind, ghost=ghost, location=location, value=value, suits=suits, hunters=hunters, waiting=[], offered=[]
    )
    if _let_go(hunt) in state.let_go:
        return "the hunters let this hunt go this turn (S11)"
    hunt.waiting = [s for s in hunters if any(counts(hunt, c) for c in state.hands[s])]
    if not _reachable(state, hunt):
        return "the hunters' cards cannot reach this hunt (S11)"
    return hunt


def hunt_options(state: SpookState) -> list[StartHunt]:
    """Every hunt the active seat may start now."""
    location = state.pawns[state.active]
    ghosts = ghosts_at(state.rooms, state.staircase, location)
    candidates = [StartHunt(ghost=g, kind=k) for g in ghosts for k in ("normal", "king")]
    if location in WING_OF:
        candidates.append(StartHunt(ghost=None, kind="wing"))
    return [c for c in candidates if isinstance(plan_hunt(state, c.ghost, c.kind), Hunt)]


def start_hunt(state: SpookState, action: StartHunt, events: list[SpookEvent]) -> None:
    hunt = plan_hunt(state, action.ghost, action.kind)
    if isinstance(hunt, str):
        raise IllegalAction("illegal_move", hunt)
    state.hunt = hunt
    events.append(
        HuntStarted(
            seat=state.active,
            kind=hunt.kind,
            ghost=hunt.ghost,
            location=hunt.location,
            value=hunt.value,
            hunters=list(hunt.hunters),
            waiting=list(hunt.waiting),
        )
    )


def check_offer(state: SpookState, hunt: Hunt, seat: int, action: Offer) -> None:
    if action.card not in state.hands[seat] or not counts(hunt, action.card):
        raise IllegalAction("illegal_move", f"{action.card!r} is not a card of yours that counts in this hunt")


def offer(state: SpookState, hunt: Hunt, seat: int, action: Offer, events: list[SpookEvent]) -> None:
    state.hands[seat].remove(action.card)
    hunt.offered.append(Offered(seat=seat, card=action.card))
    events.append(CardOffered(seat=seat, card=action.card, total=sum(VALUE[o.card] for o in hunt.offered)))
    if _reached(hunt):
        _succeed(state, hunt, events)
    elif not any(counts(hunt, c) for c in state.hands[seat]):
        done(state, hunt, seat, events)


def done(state: SpookState, hunt: Hunt, seat: int, events: list[SpookEvent]) -> None:
    hunt.waiting.remove(seat)
    events.append(HunterDone(seat=seat))
    if not _reachable(state, hunt):
        for o in hunt.offered:
            state.hands[o.seat].append(o.card)
        state.hunt = None
        state.let_go.append(_let_go(hunt))
        events.append(HuntAbandoned(returned=list(hunt.offered)))


def _succeed(state: SpookState, hunt: Hunt, events: list[SpookEvent]) -> None:
    """S11: played cards and removed ghosts are discarded, and the hunts let go are free again (the board has
    changed); the Queen's fall wins (S15), else S12 draws."""
    if hunt.kind == "wing":
        cleared = wing_ghosts(state.rooms, hunt.location)
        for room, _ in cleared:
            state.rooms[ROOM_INDEX[room]] = None
        ghosts = [ghost for _, ghost in cleared]
    else:
        assert hunt.ghost is not None
        ghosts = [hunt.ghost]
        remove_ghost(state.rooms, state.staircase, hunt.location, hunt.ghost)
    cards = [o.card for o in hunt.offered]
    state.discard += cards + ghosts
    state.hunt = None
    state.let_go = []
    events.append(HuntSucceeded(ghosts=ghosts, cards=cards))
    if QUEEN in ghosts:
        end_game(state, True, "queen_hunted", events)
    else:
        draw_card(state, state.active, True, events)
