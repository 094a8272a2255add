"""Call of the Spirits strategies (rules in ``shared/rules/mansion.md``, M1–M30).

``greedy`` plays one ply ahead of every legal action, from the decision's JSON only.  It values a collection by
its M21 score plus what its unfinished sets are likely to become (``appraise``), and Haunt cards by what
they put at risk (``_Table.haunt_utility``): the M20 penalty if it ends with the highest Haunt total, Madame
Leota's bonus if it ends with the lowest, and the tie-break (M22).  In its turn it rates each action by the best
plan it opens within the turn's remaining actions: reach a room (moves and rotations), collect the cards worth
most there, and finish in the Séance Room when the ghosts' path threatens the room it would end in.

Only static rulebook knowledge comes from the engine: the card tables in ``cards.py``, the portrait splits of
``scoring.py`` (M21) and the pure helpers of ``rules.py`` (M10 ghost paths, M14 distances, M16 collect draws);
everything about the table comes from the view.
"""

from __future__ import annotations

import math
import random
from functools import cached_property, lru_cache
from typing import Any, Final

from clients.bots.base import Decision
from engine.mansion.cards import (
    BOLD_CHALLENGE,
    BRIDE,
    CANDLELIGHT,
    DANCING,
    DANCING_PAIR,
    DIAL_MAX,
    DRAW_GHOST,
    DRAW_HAUNT,
    EVENT_NAMES,
    EVENTS,
    EXECUTIONER,
    FINAL_ROUND,
    FLAT_SCORES,
    GROOM_GHOST,
    HAUNT_COUNTS,
    HEADLESS_KNIGHT,
    HEAVY_FOOTSTEPS,
    ICONS,
    KIND_EFFECT,
    KIND_ICON,
    KIND_INDEX,
    KIND_STEPS,
    KINDS,
    LEOTA_DEFAULT,
    LEOTA_LOWEST,
    LOCKED_HALLWAY,
    MADAME_LEOTA,
    MAY_DISCARD_HAUNT,
    MOVE_GHOSTS,
    MUSICIAN,
    MUSICIAN_SET,
    NO_ICON,
    OPEN_DOORS,
    ORGANIST,
    PAINTING,
    PAINTING_SET,
    PAINTING_SET_SCORES,
    PORTRAIT_MIXED_SET,
    PORTRAIT_SAME_SET,
    PORTRAIT_SAME_SIZE,
    PORTRAITS,
    ROOM_COUNT,
    SEANCE,
    SEANCE_SEALED,
    SECTIONS,
    WANDERING_SPIRITS,
)
from engine.mansion.rules import collect_draws, distance, ghost_path
from engine.mansion.scoring import portrait_splits

_KIND_COUNT: Final = len(KINDS)
_ICON_COUNT: Final = len(ICONS)
_MEAN_HAUNT: Final = sum(v * n for v, n in HAUNT_COUNTS.items()) / sum(HAUNT_COUNTS.values())
"""Expected value of an unseen Haunt card (M5)."""
_HAUNT_SQUARE: Final = sum(v * v * n for v, n in HAUNT_COUNTS.items()) / sum(HAUNT_COUNTS.values())
_HAUNT_VARIANCE: Final = _HAUNT_SQUARE - _MEAN_HAUNT**2
_EVENT_INDEX: Final = {name: i for i, name in enumerate(EVENT_NAMES)}
_MUSICIAN_FULL: Final = MUSICIAN_SET**2
_PAINTING_FULL: Final = PAINTING_SET_SCORES[PAINTING_SET]
_ENDGAME_EVENTS: Final = 4
"""M8: the Final Round card is shuffled with the bottom 3 event cards."""
_DIALS: Final = range(DIAL_MAX + 1)
"""M17: the values a duel dial may be set to."""


# -- tuning -------------------------------------------------------------------------------------------------
PROMISE_CAP: Final = 0.5
PROMISE_ROUNDS: Final = 2.0
"""An unfinished set gets its next card before the end with chance ``PROMISE_CAP * (1 - exp(-R / PROMISE_ROUNDS))``
with R rounds left."""
BASE_HAUNT_COST: Final = 0.35
"""Points a Haunt point costs whatever the standings (the M22 tie-break, margin against the unknown)."""
PENALTY_SLOPE: Final = 0.03
"""Share of the M20 penalty each Haunt point costs on top of the chance of ending highest: however sure that
looks, every point shed brings a recovery closer (and every point taken pushes it away)."""
SPREAD_SCALE: Final = 0.6
"""Logistic scale per standard deviation of the highest opponent's final Haunt total."""
MIN_HAUNT_PACE: Final = 1.0
"""Haunt points an opponent is expected to gain per round at the least."""
RIVAL_WEIGHT: Final = 0.5
"""How much a point taken from (or given to) the leading opponent counts against a point of our own."""
OTHER_WEIGHT: Final = 0.1
OTHERS_HAUNT_WEIGHT: Final = 0.15
"""Points per Haunt card a ghost move sends to another seat (it may push them above us, M20)."""
GROOM_DRAW_VALUE: Final = 3.0
"""What the Groom's free Ghost card (M6) is worth on average."""
TRAVEL_COST: Final = 0.05
"""A tie-break against moving or rotating for nothing: of two equal plans, the one that gets there sooner."""


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


# -- valuing a collection (M21 with the promise of unfinished sets) ----------------------------------------
@lru_cache(maxsize=4096)
def _portrait_value(kinds: tuple[int, ...], p: float) -> float:
    """The best of M21's ``portrait_splits``, each with one unfinished set's promise: the set it would complete
    times ``p`` per card still missing (``p == 0``: exactly ``portrait_score``)."""
    best = 0.0
    for points, left in portrait_splits(kinds):
        value: float = points
        if p and any(left):
            distinct = sum(1 for n in left if n)
            mixed = PORTRAIT_MIXED_SET * p ** (len(PORTRAITS) - distinct)
            value += max(mixed, PORTRAIT_SAME_SET * p ** (PORTRAIT_SAME_SIZE - max(left)))
        best = max(best, value)
    return best


_PORTRAIT_ICONS: Final = tuple(KIND_ICON[k] for k in PORTRAITS)
_ICON_OF_KIND: Final = tuple((kind, icon) for kind, icon in enumerate(KIND_ICON) if icon != NO_ICON)


@lru_cache(maxsize=1 << 14)
def appraise(c: tuple[int, ...], p: float) -> tuple[float, float]:
    """The worth of the kind counts ``c`` and what the M20 penalty would take from it.

    The worth is the M21 score (Madame Leota at her default 3) plus ``p`` times what an unfinished painting set
    or dancing pair, and the best unfinished portrait set, would add when completed; with ``p == 0`` it is
    exactly the printed score.  The penalty is the loss of the icon held most, the costliest of tied icons.
    """
    knights, organists, brides, executioners = c[HEADLESS_KNIGHT], c[ORGANIST], c[BRIDE], c[EXECUTIONER]
    held = [0] * _ICON_COUNT
    for kind, icon in _ICON_OF_KIND:
        held[icon] += c[kind]
    # what each icon's cards bring, their special ghosts' bonuses included (M21)
    worth = [0.0] * _ICON_COUNT
    n = c[MUSICIAN]
    worth[KIND_ICON[MUSICIAN]] = n // MUSICIAN_SET * _MUSICIAN_FULL + (n % MUSICIAN_SET) ** 2
    n = c[PAINTING]
    rest = n % PAINTING_SET
    worth[KIND_ICON[PAINTING]] = (
        n // PAINTING_SET * _PAINTING_FULL
        + PAINTING_SET_SCORES[rest]
        + (p * _PAINTING_FULL if rest == PAINTING_SET - 1 else 0.0)
        + 2 * knights * n
    )
    n = c[DANCING]
    worth[KIND_ICON[DANCING]] = n // 2 * DANCING_PAIR + n % 2 * p * DANCING_PAIR + 2 * organists * n
    for kind, points in FLAT_SCORES.items():
        worth[KIND_ICON[kind]] += c[kind] * points
    worth[KIND_ICON[GROOM_GHOST]] += 2 * brides * c[GROOM_GHOST]
    portraits = tuple(c[k] for k in PORTRAITS)
    portrait = _portrait_value(portraits, p) if any(portraits) else 0.0
    icons = sum(1 for h in held if h)
    value = (
        sum(worth)
        + portrait
        + 2 * brides
        + knights
        + organists
        + LEOTA_DEFAULT * c[MADAME_LEOTA]
        + executioners * (1 + icons)
    )
    most = max(held)
    if not most:
        return value, 0.0
    loss = 0.0
    for icon, h in enumerate(held):
        if h == most:
            if icon in _PORTRAIT_ICONS:
                without = list(portraits)
                without[_PORTRAIT_ICONS.index(icon)] = 0
                lost = portrait - _portrait_value(tuple(without), p)
            else:
                lost = worth[icon]
            loss = max(loss, lost + executioners)
    return value, loss


def _counts(names: list[str]) -> tuple[int, ...]:
    c = [0] * _KIND_COUNT
    for name in names:
        c[KIND_INDEX[name]] += 1
    return tuple(c)


def _plus(c: tuple[int, ...], kind: int, n: int = 1) -> tuple[int, ...]:
    out = list(c)
    out[kind] += n
    return tuple(out)


# -- the ghosts' path (M10) ------------------------------------------------------------------------------
def _offset_danger() -> list[float]:
    """Mean Haunt cards an Event Phase deals to a room ``o`` rooms clockwise of the ghosts (M7, M10); an
    ``either`` card goes either way."""
    table = [0.0] * ROOM_COUNT
    cards = [e for e in EVENTS if e.steps]
    for e in cards:
        signs = (e.direction,) if e.direction else (1, -1)
        for sign in signs:
            draws = ghost_path(0, e.steps, sign)[1]
            for o in range(ROOM_COUNT):
                table[o] += draws.get(o, 0) / len(signs) / len(cards)
    return table


_DANGER_BY_OFFSET: Final = _offset_danger()
_DANGER_ANYWHERE: Final = sum(_DANGER_BY_OFFSET) / ROOM_COUNT


# -- one decision's reading of the table -----------------------------------------------------------------
class _Table:
    """What the view says, digested once per decision."""

    def __init__(self, decision: Decision) -> None:
        v = decision.view
        self.view = v
        self.seat = seat = decision.seat
        self.seats: int = v["seats"]
        event = v["event"]
        self.event = _EVENT_INDEX[event] if event is not None else -1
        self.final = self.event == FINAL_ROUND
        left = v["events_left"]
        if self.final:
            self.rounds_left = 0.0
            self.final_next = 0.0
        elif left > _ENDGAME_EVENTS:
            self.rounds_left = left - _ENDGAME_EVENTS + 2.5
            self.final_next = 0.0
        else:
            self.rounds_left = (left + 1) / 2
            self.final_next = 1 / max(left, 1)
        # chance an unfinished set gets its next card before the end
        self.p = PROMISE_CAP * (1 - math.exp(-self.rounds_left / PROMISE_ROUNDS))
        self.collections = [_counts(names) for names in v["collections"]]
        self.mine = self.collections[seat]
        hand: list[int] = v["haunt"][seat] or []
        self.hand = hand
        self.total = sum(hand)
        # opponents' Haunt totals at the end: their cards at the mean value, and more at their own pace so far
        # (at least a typical pace)
        played = max(1.0, v["round"] - 0.5)
        finals = [
            n * _MEAN_HAUNT * (1 + self.rounds_left / played) + self.rounds_left * MIN_HAUNT_PACE
            for other, n in enumerate(v["haunt_counts"])
            if other != seat
        ] or [0.0]
        top = max(range(len(finals)), key=finals.__getitem__)
        self.highest_other = finals[top]
        self.lowest_other = min(finals)
        # how far that guess may be off: the unseen values, and the draws to come (a sum of random cards)
        known = [n for other, n in enumerate(v["haunt_counts"]) if other != seat] or [0]
        future = self.highest_other - known[top] * _MEAN_HAUNT
        self.spread = SPREAD_SCALE * math.sqrt(_HAUNT_VARIANCE * known[top] + _HAUNT_SQUARE / _MEAN_HAUNT * future + 1)
        self.leotas = self.mine[MADAME_LEOTA]
        self.pen = appraise(self.mine, self.p)[1]
        self.base_haunt = self.haunt_utility(self.total)
        self.risk = self.p_highest(self.total)

    @cached_property
    def weights(self) -> list[float]:
        """Per seat, how much its points count against ours: most for the leader among the others."""
        scores = [appraise(c, 0.0)[0] for c in self.collections]
        mine = scores[self.seat]
        rival = max((s for other, s in enumerate(scores) if other != self.seat), default=0.0)
        return [
            0.0 if other == self.seat else RIVAL_WEIGHT if s >= rival and s >= mine - 8 else OTHER_WEIGHT
            for other, s in enumerate(scores)
        ]

    # Haunt: what our total is worth, given the estimated totals of the others (M20, M21 Madame Leota, M22)
    def p_highest(self, total: float) -> float:
        return _sigmoid((total - self.highest_other + 0.5) / self.spread)

    def haunt_utility(self, total: float) -> float:
        value = -(self.p_highest(total) + PENALTY_SLOPE * total) * self.pen - BASE_HAUNT_COST * total
        if self.leotas:
            lowest = _sigmoid((self.lowest_other - total - 0.5) / self.spread)
            value += self.leotas * (LEOTA_LOWEST - LEOTA_DEFAULT) * lowest
        return value

    def draw_cost(self, cards: float) -> float:
        """Points lost by drawing ``cards`` more Haunt cards (at their mean value)."""
        if cards <= 0:
            return 0.0
        return self.base_haunt - self.haunt_utility(self.total + cards * _MEAN_HAUNT)

    def discard_gain(self, value: int) -> float:
        return self.haunt_utility(self.total - value) - self.base_haunt

    def card_gain(self, c: tuple[int, ...], kind: int, n: int = 1) -> float:
        """What the ``n``-th more card of ``kind`` adds to collection ``c`` (already holding the first n-1 of
        them), the M20 risk included."""
        before = _plus(c, kind, n - 1) if n > 1 else c
        after = _plus(c, kind, n)
        value, pen = appraise(after, self.p)
        value0, pen0 = appraise(before, self.p)
        return value - value0 - self.risk * (pen - pen0)

    def ghost_move_value(self, steps: int, sign: int, my_room: int) -> float:
        """A ghost move (M10) judged by our own draws (we are in ``my_room``) and, a little, by the others'."""
        draws = ghost_path(self.view["ghosts"], steps, sign)[1]
        value = 0.0 if my_room == SEANCE else -self.draw_cost(draws.get(my_room, 0))
        for other, room in enumerate(self.view["seat_rooms"]):
            if other != self.seat and room != SEANCE:
                value += OTHERS_HAUNT_WEIGHT * _MEAN_HAUNT * draws.get(room, 0)
        return value

    def best_direction(self, steps: int, my_room: int) -> tuple[float, str]:
        return max(
            (self.ghost_move_value(steps, 1, my_room), "cw"),
            (self.ghost_move_value(steps, -1, my_room), "ccw"),
            key=lambda pair: pair[0],
        )

    def danger(self, room: int) -> float:
        """Expected Haunt cards for ending the turn in ``room`` (a hallway room; the Séance Room is safe): the
        next Event Phase's move (M9, M10), which the others' rotations blur, and wandering_spirits' steps."""
        if self.final:
            return 0.0
        ghosts: int = self.view["ghosts"]
        expected = 0.0
        if self.event == WANDERING_SPIRITS:
            later = self.seats - 1 - (self.seat - self.view["first"]) % self.seats
            expected += 2.0 * (room == (ghosts + 1) % ROOM_COUNT) + later * 2 / ROOM_COUNT
            ghosts = (ghosts + 1 + later) % ROOM_COUNT
        here = _DANGER_BY_OFFSET[(room - ghosts) % ROOM_COUNT]
        return expected + (1 - self.final_next) * (0.5 * here + 0.5 * _DANGER_ANYWHERE)


# -- a turn (M13–M18): each legal action rated by the best plan it leaves ------------------------------------
_NEVER: Final = -1e9


class _Turn:
    """The acting seat's options within the turn's remaining actions."""

    def __init__(self, t: _Table) -> None:
        v = t.view
        self.t = t
        self.actions: int = v["actions"]
        self.pos: int = v["positions"][t.seat]
        self.rotation: int = v["rotation"]
        self.ghosts: int = v["ghosts"]
        self.locked = t.event == LOCKED_HALLWAY
        self.free_rotate = t.event == OPEN_DOORS and not v["free_rotate_used"]
        self.long_move = t.event == HEAVY_FOOTSTEPS and not v["long_move_used"]
        self.may_discard = t.event != SEANCE_SEALED and not v["discarded"] and bool(t.hand)
        top = max(t.hand, default=0)
        self.discard_value = t.discard_gain(top) if top else 0.0
        self.candle = self.discard_value if t.event == CANDLELIGHT else 0.0
        self.rooms: list[dict[int, int]] = []
        for names in v["rooms"]:
            room: dict[int, int] = {}
            for name in names:
                kind = KIND_INDEX[name]
                room[kind] = room.get(kind, 0) + 1
            self.rooms.append(room)
        # marginal gain of the j-th more card of a kind (j from 1), for as many as one room offers
        most: dict[int, int] = {}
        for room in self.rooms:
            for kind, n in room.items():
                most[kind] = max(most.get(kind, 0), min(n, self.actions))
        self.gains = {kind: [t.card_gain(t.mine, kind, j) for j in range(1, n + 1)] for kind, n in most.items()}
        # the Haunt cost of the cards collected in the ghosts' room (M16), cumulative
        draws = collect_draws(t.event)
        self.haunted = [t.draw_cost(draws * k) for k in range(self.actions + 1)]
        self.end_cost = [t.draw_cost(t.danger(room)) for room in range(ROOM_COUNT)]
        self._sequences: dict[tuple[int, int], list[float]] = {}
        self._best: dict[tuple[int, int, bool], float] = {}
        self._rows: dict[tuple[int, bool], list[float]] = {}
        self._offers: dict[int, dict[int, list[float]]] = {}

    def effect(self, kind: int, room: int) -> float:
        """What a card's effect (M6) adds to collecting it in ``room``."""
        effect = KIND_EFFECT[kind]
        t = self.t
        if effect == MOVE_GHOSTS:
            return t.best_direction(KIND_STEPS[kind], room)[0]
        if effect == MAY_DISCARD_HAUNT:
            return self.discard_value
        if effect == DRAW_HAUNT:
            return -t.draw_cost(1)
        if effect == DRAW_GHOST:
            return GROOM_DRAW_VALUE
        return 0.0

    def offers(self, room: int) -> dict[int, list[float]]:
        """Per kind of card in ``room``: what its next cards would add, effects included."""
        found = self._offers.get(room)
        if found is None:
            found = self._offers[room] = {
                kind: [g + self.effect(kind, room) for g in self.gains[kind][: min(n, self.actions)]]
                for kind, n in self.rooms[room].items()
            }
        return found

    def sequence(self, room: int, first: int = -1) -> list[float]:
        """Cumulative gains of collecting greedily in ``room`` (``first`` taken first), up to the actions left."""
        key = (room, first)
        found = self._sequences.get(key)
        if found is not None:
            return found
        offers = self.offers(room)
        taken = dict.fromkeys(offers, 0)
        total = 0.0
        out = [0.0]
        for step in range(min(self.actions, sum(len(o) for o in offers.values()))):
            if step or first < 0:
                first = max(
                    (k for k, o in offers.items() if taken[k] < len(o)),
                    key=lambda k: offers[k][taken[k]],
                )
            total += offers[first][taken[first]]
            taken[first] += 1
            out.append(total - (self.haunted[step + 1] if room == self.ghosts else 0.0))
        self._sequences[key] = out
        return out

    def seance_end(self, left: int, may_discard: bool) -> float:
        """Finishing the turn in the Séance Room with ``left`` actions: safe (M10), a discard (M18), candlelight."""
        return (self.discard_value if left and may_discard else 0.0) + self.candle

    def finish(self, room: int, left: int, may_discard: bool) -> float:
        """Ending the turn in ``room`` or, with an action left, in the Séance Room."""
        stay = -self.end_cost[room]
        return max(stay, self.seance_end(left - 1, may_discard)) if left else stay

    def room_best(self, room: int, budget: int, may_discard: bool, first: int = -1) -> float:
        """The best of collecting 0..budget cards in ``room`` (at least ``first``) and finishing the turn."""
        key = (room, budget, may_discard)
        if first < 0 and key in self._best:
            return self._best[key]
        seq = self.sequence(room, first)
        start = 1 if first >= 0 else 0
        best = max(
            (seq[k] + self.finish(room, budget - k, may_discard) for k in range(start, min(budget, len(seq) - 1) + 1)),
            default=_NEVER,
        )
        if first < 0:
            self._best[key] = best
        return best

    def row(self, budget: int, may_discard: bool) -> list[float]:
        """``room_best`` of every room for this budget."""
        key = (budget, may_discard)
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = [self.room_best(room, budget, may_discard) for room in range(ROOM_COUNT)]
        return found

    def plan(
        self,
        pos: int,
        rotation: int,
        budget: int,
        free_rotate: bool,
        long_move: bool,
        may_discard: bool = True,
        skip: int = -1,
    ) -> float:
        """The best value reachable from this position with ``budget`` actions, duels aside: reach a room (M14,
        M15; open_doors, locked_hallway, heavy_footsteps: M7), collect there (not in ``skip``), finish the turn."""
        may_discard = may_discard and self.may_discard
        rotate = 0 if free_rotate else 1
        if pos == SEANCE:
            best = self.seance_end(budget, may_discard)
            if budget:
                row = self.row(budget - 1, may_discard)
                gap = (SECTIONS + rotation) % ROOM_COUNT
                best = max(best, *(row[room] for room in range(ROOM_COUNT) if room not in (gap, skip)))
                if not self.locked and budget > rotate and gap != skip:
                    best = max(best, self.row(budget - 1 - rotate, may_discard)[gap])
            return best
        here = (pos + rotation) % ROOM_COUNT
        best = self.row(budget, may_discard)[here] if here != skip else _NEVER
        if not self.locked:  # a rotation reaches every room, as cheaply as any walk
            if budget >= rotate:
                row = self.row(budget - rotate, may_discard)
                best = max(best, *(row[room] for room in range(ROOM_COUNT) if room not in (here, skip)))
            return best
        for section in range(SECTIONS):  # locked: walk, two steps through the Séance Room or with a long move
            steps = 1 if long_move else distance(pos, section)
            room = (section + rotation) % ROOM_COUNT
            if section != pos and steps <= budget and room != skip:
                best = max(best, self.row(budget - steps, may_discard)[room])
        return best

    def rate(self, action: dict[str, Any]) -> float:
        kind = action["type"]
        pos, rotation, budget = self.pos, self.rotation, self.actions
        if kind == "end_turn":
            return self.seance_end(0, False) if pos == SEANCE else -self.end_cost[(pos + rotation) % ROOM_COUNT]
        if kind == "move":
            long_move = self.long_move and distance(pos, action["to"]) == 1
            return self.plan(action["to"], rotation, budget - 1, self.free_rotate, long_move) - TRAVEL_COST
        if kind == "rotate":
            cost = 0 if self.free_rotate else 1
            return self.plan(pos, action["r"], budget - cost, False, self.long_move) - TRAVEL_COST
        if kind == "collect":
            card = KIND_INDEX[action["card"]]
            room = (pos + rotation) % ROOM_COUNT
            here = self.room_best(room, budget, self.may_discard, first=card)
            first = self.sequence(room, card)[1]
            away = first + self.plan(pos, rotation, budget - 1, self.free_rotate, self.long_move, skip=room)
            return max(here, away)
        if kind == "duel":
            cost = 0 if self.t.event == BOLD_CHALLENGE else 1
            gain = max(duel_values(self.t, action["target"], KIND_INDEX[action["card"]], challenger=True)[1])
            return gain + self.plan(pos, rotation, budget - cost, self.free_rotate, self.long_move)
        if kind == "discard_haunt":
            gain = self.t.discard_gain(action["value"])
            return gain + self.plan(pos, rotation, budget - 1, self.free_rotate, self.long_move, may_discard=False)
        return _NEVER


def duel_values(t: _Table, other: int, card: int, challenger: bool) -> tuple[float, list[float]]:
    """M17: the stake, and each dial's expected value against a dial uniform over 0–3.  The value is the chance of
    holding the card after the reveal (a tie leaves it with its owner) times its stake, less the Haunt cards the
    dial draws; the stake is what the card adds to (or keeps in) our collection plus, weighted, what it takes from
    (or keeps from) the other seat.  A card taken in a duel has no effect."""
    if challenger:
        mine = t.card_gain(t.mine, card)
        theirs = _plus(t.collections[other], card, -1)
    else:
        mine = t.card_gain(_plus(t.mine, card, -1), card)
        theirs = t.collections[other]
    stake = mine + t.weights[other] * (appraise(_plus(theirs, card), t.p)[0] - appraise(theirs, t.p)[0])
    return stake, [(bid if challenger else bid + 1) / len(_DIALS) * stake - t.draw_cost(bid) for bid in _DIALS]


def duel_payoff(t: _Table, stake: float, challenger: bool) -> list[list[float]]:
    """M17 as a zero-sum game: our gain for each pair of dials (ours, theirs) when the card is worth ``stake`` (to
    hold, a tie leaving it with its owner) and each side pays for the Haunt cards its dial draws (the other's at
    our own price: its values are hidden)."""
    cost = [t.draw_cost(bid) for bid in _DIALS]
    return [
        [stake * (mine > theirs if challenger else mine >= theirs) - cost[mine] + cost[theirs] for theirs in _DIALS]
        for mine in _DIALS
    ]


def duel_dial(t: _Table, stake: float, challenger: bool, rng: random.Random) -> int:
    """A dial drawn from the duel's equilibrium (``duel_payoff``).  The best dial against a uniform one was a
    function of the view (the Haunt count is public, the values mostly guessable): an opponent running this
    published strategy read it before setting its own (M17: hidden until both are set) and answered it.  An
    equilibrium gives nothing away: knowing the mix, no answer does better against it."""
    return rng.choices(_DIALS, equilibrium(duel_payoff(t, stake, challenger)))[0]


def equilibrium(payoff: list[list[float]], rounds: int = 300) -> list[float]:
    """The row player's strategy in the zero-sum game ``payoff`` (the row's gain), approximately: both players'
    average play over ``rounds`` of multiplicative weights, which comes within ``O(sqrt(log n / rounds))`` of the
    game's value."""
    n, m = len(payoff), len(payoff[0])
    span = max(max(row) for row in payoff) - min(min(row) for row in payoff) or 1.0
    rate = math.sqrt(8 * math.log(max(n, m)) / rounds) / span
    rows, cols = [0.0] * n, [0.0] * m  # (log-weights)
    average = [0.0] * n
    for _ in range(rounds):
        top_r, top_c = max(rows), max(cols)
        p = [math.exp(w - top_r) for w in rows]
        q = [math.exp(w - top_c) for w in cols]
        sp, sq = sum(p), sum(q)
        p, q = [x / sp for x in p], [x / sq for x in q]
        average = [a + x for a, x in zip(average, p, strict=True)]
        rows = [w + rate * sum(g * y for g, y in zip(payoff[i], q, strict=True)) for i, w in enumerate(rows)]
        cols = [w - rate * sum(payoff[i][j] * p[i] for i in range(n)) for j, w in enumerate(cols)]
    return [a / rounds for a in average]


class GreedyMansion:
    """One-ply greedy play: the best-rated legal action, rated from the seat's own view only."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        legal = decision.legal
        if len(legal) == 1:
            return legal[0]
        t = _Table(decision)
        prompt = decision.prompt["kind"]
        if prompt == "turn":
            turn = _Turn(t)
            return max(legal, key=turn.rate)
        if prompt == "dial":
            duel = t.view["duel"]
            challenger = duel["challenger"] == t.seat
            other = duel["defender"] if challenger else duel["challenger"]
            stake = duel_values(t, other, KIND_INDEX[duel["card"]], challenger)[0]
            return _pick(legal, "bid", duel_dial(t, stake, challenger, rng))
        if prompt in ("event_direction", "tea_party"):
            steps = t.view["tea_steps"] if prompt == "tea_party" else EVENTS[t.event].steps
            direction = t.best_direction(steps, t.view["seat_rooms"][t.seat])[1]
            return _pick(legal, "direction", direction)
        # grim_grinning / candlelight: an optional discard is always worth taking, the highest value first
        return max(legal, key=lambda a: a.get("value", 0))


def _pick(legal: list[dict[str, Any]], field: str, value: object) -> dict[str, Any]:
    return next((a for a in legal if a.get(field) == value), legal[0])


STRATEGIES = {"greedy": GreedyMansion}
