"""Spook strategies.  ``greedy`` plays as a careful cooperative hunter: it keeps every wing from filling (S15),
lays traps where the next ghost will appear (S9, S13), saves its cards for the Queen (S11), gathers the pawns on
her and hunts her as soon as the table can.  It decides from the wire view alone with a one-turn plan: up to two
stops with a hunt or a trap each for one pawn (S10), judged by what the board, the hand and the pawns look like
for the next seat's draw.  No search beyond that: a decision takes a fraction of a millisecond on average and a
few milliseconds at worst.

What it judges a plan by (``Weights``, in points of card value): the cards it keeps; the ghosts left on the board
(the Queen will cost that much); how full each wing is; where the next ghost appears (S9: the omen's room or the
next free one), and, when that would fill a wing, the chance that the seat to draw next can reach one of its
ghosts with a d6 and pay it, alone or with the hunters already standing there; the draw after a hunt (S12, a red
card lost half the time); and where the pawns stand, near the next ghost's room or, once the Queen is out (or
while she may be the next card), on her, with the chance that the hunters there, the next seat walking in, reach
her value.  Other seats' hands are guessed from their sizes and the red cards not seen (their suits and values),
or read when the table shows them.  In a hunt another seat started, it leaves the paying to that seat when that
seat's shown hand covers it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from clients.bots.base import Decision
from engine.spook.board import (
    FOYER,
    LOCATIONS,
    NEIGHBOURS,
    ROOM_INDEX,
    ROOMS,
    STAIRCASE,
    WING_OF,
    WINGS,
    first_free,
    ghosts_at,
    queen_value,
    remove_ghost,
    wing_ghosts,
)
from engine.spook.cards import BLACK, HUNTS_WITH, KINGS, QUEEN, RED, RED_QUEENS, SUIT, TRAPS, VALUE

Action = dict[str, Any]
Threat = tuple[str, list[tuple[str, str | None]]]
"""A wing the next ghost would fill, with each of its rooms and the ghost there (``None``: the new one)."""
WIN = 1e6
"""Beyond any other consideration: hunting the Queen (S15)."""
SECOND_STOPS = 6
"""A second stop is planned only after the most promising first ones: it keeps every decision to milliseconds."""
LOST = -1e3
"""A plan that loses at the end of the turn (S15); still better than one that also gives up on the Queen."""


def _distances() -> dict[str, dict[str, int]]:
    """Doors between every two locations (S4), by breadth-first search."""
    table: dict[str, dict[str, int]] = {}
    for start in LOCATIONS:
        dist = {start: 0}
        frontier = [start]
        doors = 0
        while frontier:
            doors += 1
            frontier = [n for place in frontier for n in NEIGHBOURS[place] if n not in dist]
            dist.update(dict.fromkeys(frontier, doors))
        table[start] = dist
    return table


DIST = _distances()


def _reach(doors: int) -> float:
    """The chance a d6 (S10) covers ``doors``."""
    return 1.0 if doors == 0 else max(0, 7 - doors) / 6


@dataclass(frozen=True)
class Weights:
    """The greedy player's judgement, in points of card value."""

    ghost: float = 1.0
    """Per point of ghost left on the board: the Queen will cost that much (S11)."""
    wing: tuple[float, float, float] = (0.0, 2.0, 10.0)
    """Danger of a wing holding 0, 1 or 2 ghosts at the end of the turn (3 loses, S15)."""
    loss: float = 150.0
    """A wing filled that the seat to play cannot clear."""
    doubt: float = 0.8
    """The most a guessed hand's chance to clear that wing is trusted: of the threats judged sure to be cleared
    from guessed hands, about one in nine was not (in 150 four-seat games)."""
    s12_fail: float = 0.5
    """How often the active seat cannot clear a wing that its own after-hunt draw (S12) filled."""
    hunt_draw: float = 4.0
    """The draw after a hunt (S12): a red card (worth 6 or so) lost about half the time, and the clock sped up."""
    king: float = 13.0
    queen: float = 12.0
    jack: float = 0.5
    """Little: a trap laid where the next ghost appears is worth more than a Jack kept (S9, S13)."""
    position: float = 1.0
    """Per door between a pawn and the room where the next ghost appears (S9), shared by the pawns."""
    position_others: float = 0.25
    """The share of ``position`` for the pawns of seats other than the next one."""
    gather: float = 8.0
    """Per door between a pawn holding cards and the Queen once she is out: the table gathers on her (S11)."""
    pregather: float = 0.2
    """The share of ``gather`` that already pulls the pawns towards the next ghost's room while the Queen may
    come within a round of draws."""
    second: float = 20.0
    """A wing the ghost after the next one would fill (S9), times the chance: the next seat has a turn to prevent
    it, but must spend that turn on it."""
    queen_next: float = 150.0
    """A hunt for the Queen the next seat likely makes (or for her if she is the next card), times that
    likelihood."""
    queen_try: float = 300.0
    """A hunt for the Queen this turn that the hunters' cards likely reach, times that likelihood."""
    queen_spread: float = 10.0
    """How far (in value) the guessed cards of the other hunters may be from the truth."""


def _worth(card: str, w: Weights) -> float:
    """What keeping a red card is worth: its value, more for Kings and Queens (S11), a Jack as a future trap."""
    if card in KINGS:
        return w.king
    if card in RED_QUEENS:
        return w.queen
    if card in TRAPS:
        return w.jack
    return VALUE[card]


def _cheapest(cards: list[str], value: int, w: Weights) -> tuple[str, ...] | None:
    """The cards among ``cards`` reaching ``value`` (at least one card, S11) that leave the most worth in hand:
    a knapsack over the reachable totals, capped at ``value``."""
    goal = max(1, value)
    best: dict[int, tuple[float, tuple[str, ...]]] = {0: (0.0, ())}
    for card in cards:
        for total, (cost, combo) in list(best.items()):
            reached, spent = min(goal, total + VALUE[card]), cost + _worth(card, w)
            if reached not in best or spent < best[reached][0]:
                best[reached] = (spent, (*combo, card))
    return best[goal][1] if goal in best else None


def _strength(hand: list[str]) -> int:
    """What a hand is worth against the Queen (S11): every red card but the Jacks counts its value."""
    return sum(VALUE[c] for c in hand if c not in TRAPS)


@dataclass
class Board:
    """A hypothetical board: ``rooms[i]`` is room ``i + 1``'s ghost, ``traps[i]`` its trap."""

    rooms: list[str | None]
    staircase: list[str]
    traps: list[str | None]
    omen: str

    def copy(self) -> Board:
        return Board(list(self.rooms), list(self.staircase), list(self.traps), self.omen)

    def ghosts_at(self, place: str) -> list[str]:
        return ghosts_at(self.rooms, self.staircase, place)

    def remove(self, place: str, ghost: str) -> None:
        remove_ghost(self.rooms, self.staircase, place, ghost)

    def landing(self) -> int | None:
        """S9: the room index where the next ghost appears (``None``: the staircase)."""
        return first_free(self.rooms, self.omen)

    def wing_counts(self) -> dict[str, int]:
        return {wing: sum(self.rooms[ROOM_INDEX[r]] is not None for r in rooms) for wing, rooms in WINGS.items()}

    def value(self, room: str) -> int:
        """What hunting the ghost in ``room`` takes (S11): its value, the Queen's being every other ghost's."""
        ghost = self.rooms[ROOM_INDEX[room]]
        assert ghost is not None
        return self.ghost_sum() if ghost == QUEEN else VALUE[ghost]

    def ghost_sum(self) -> int:
        """S11: what the Queen is worth: every other ghost on the board."""
        return queen_value(self.rooms, self.staircase)


@dataclass(frozen=True)
class Task:
    """A hunt (``kind``, ``ghost``) or a trap (``trap``) at a stop."""

    kind: str = ""
    ghost: str | None = None
    trap: str | None = None


@dataclass
class After:
    """What a sequence of tasks leaves: the board, the active seat's hand, the hunts made and other costs."""

    board: Board
    hand: list[str]
    hunts: int = 0
    cost: float = 0.0
    won: bool = False


@dataclass(frozen=True)
class Plan:
    """Tasks at up to two stops of the walking pawn, which then rests at ``rest``; ``value`` judges it."""

    value: float
    pawn: int
    stops: tuple[tuple[str, Task], ...]
    rest: str


class _Turn:
    """The active seat's judgement of plans, from what the view shows."""

    def __init__(self, decision: Decision, weights: Weights) -> None:
        view = decision.view
        self.w = weights
        self.seat = decision.seat
        self.seats: int = view["seats"]
        self.responder = (self.seat + 1) % self.seats
        self.pawns: list[str] = list(view["pawns"])
        self.sizes: list[int] = list(view["hand_sizes"])
        self.board = Board(list(view["rooms"]), list(view["staircase"]), list(view["traps"]), view["omen"])
        self.hands: list[list[str] | None] = view["hands"]
        self.hand: list[str] = list(view["hands"][self.seat] or [])
        seen = {c for c in (*view["rooms"], *view["staircase"], *view["discard"]) if c is not None}
        self.unseen = [g for g in BLACK if g not in seen]
        self.pile = pile = view["pile_size"]
        self.p_black = (len(self.unseen) + (QUEEN not in seen)) / pile if pile else 0.0
        self.numbers = Counter(VALUE[g] for g in self.unseen)
        """How many ghosts not seen bear each number: where the omen may move next (S9)."""
        self.mean_ghost = sum(VALUE[g] for g in self.unseen) / len(self.unseen) if self.unseen else 0.0
        self.queen_room = next((p for p in (*ROOMS, STAIRCASE) if QUEEN in self.board.ghosts_at(p)), None)
        # S7: the Queen is among the last 11 cards; the chance she comes within a round of draws
        self.queen_soon = min(1.0, self.seats / pile) if QUEEN not in seen and 0 < pile <= 11 else 0.0
        land = self.board.landing()
        self.hot = ROOMS[land] if land is not None else FOYER
        """Where the next ghost appears (S9): where the pawns had better be."""
        self.holders = {s for s in range(self.seats) if s == self.seat or self.sizes[s]}
        self.queen_short = self.pawns[self.seat] == self.queen_room  # no legal hunt for her, or we'd have taken it
        offered = [o["card"] for o in view["hunt"]["offered"]] if view["hunt"] else []
        known = {*self.hand, *view["discard"], *offered, *(t for t in view["traps"] if t is not None)}
        self.unseen_red = [c for c in RED if c not in known]
        """The red cards another seat's hidden hand may hold."""
        red = [VALUE.get(c, 0) for c in self.unseen_red]
        self.red_mean = sum(red) / len(red) if red else 0.0
        self._guesses: dict[tuple[int, str], float] = {}
        self._payments: dict[tuple[tuple[str, ...], str, int], tuple[str, ...] | None] = {}

    def payment(self, hand: list[str], suits: str, value: int) -> tuple[str, ...] | None:
        """The cheapest cards of ``hand`` in ``suits`` that reach ``value`` (S11), if any."""
        key = (tuple(hand), suits, value)
        if key not in self._payments:
            cards = [c for c in hand if c not in TRAPS and SUIT[c] in suits]
            self._payments[key] = _cheapest(cards, value, self.w)
        return self._payments[key]

    # -- tasks -----------------------------------------------------------------------------------------------

    def tasks(self, place: str, now: After) -> list[tuple[Task, After]]:
        """Every hunt (S11) or trap (S13) the active seat could do alone at ``place``, with what it leaves."""
        board, hand = now.board, now.hand
        out: list[tuple[Task, After]] = []
        for ghost in board.ghosts_at(place):
            if ghost == QUEEN:
                if _strength(hand) >= board.ghost_sum():
                    out.append((Task("normal", ghost), After(board, hand, now.hunts, now.cost, won=True)))
                continue
            paid = self.payment(hand, HUNTS_WITH[ghost], VALUE[ghost])
            if paid is not None:
                out.append((Task("normal", ghost), self._hunted(now, place, [ghost], paid)))
            king = next((k for k in KINGS if k in hand), None)
            if king is not None:
                out.append((Task("king", ghost), self._hunted(now, place, [ghost], (king,))))
        if place in WING_OF and all(q in hand for q in RED_QUEENS) and wing_ghosts(board.rooms, place):
            out.append((Task("wing"), self._hunted(now, place, [], RED_QUEENS)))
        index = ROOM_INDEX.get(place)
        jack = next((j for j in TRAPS if j in hand), None)
        if index is not None and jack is not None and board.traps[index] is None:
            trapped = board.copy()
            trapped.traps[index] = jack
            out.append((Task(trap=jack), After(trapped, [c for c in hand if c != jack], now.hunts, now.cost)))
        return out

    def pooled(self, place: str, task: Task) -> After:
        """A legal hunt here (S11) that this seat cannot pay alone: the other hunters' cards are spent, about the
        ghost's value, a King, or the red Queen this seat lacks."""
        start = After(self.board, self.hand)
        if task.kind == "wing":
            mine = tuple(q for q in RED_QUEENS if q in self.hand)
            return self._hunted(start, place, [], mine, self.w.queen * (len(RED_QUEENS) - len(mine)))
        assert task.ghost is not None
        cost = self.w.king if task.kind == "king" else VALUE[task.ghost]
        return self._hunted(start, place, [task.ghost], (), cost)

    def _hunted(self, now: After, place: str, ghosts: list[str], paid: tuple[str, ...], cost: float = 0.0) -> After:
        """A successful hunt at ``place`` of ``ghosts`` (none named: a wing clear), ``paid`` from this hand."""
        board = now.board.copy()
        removed = [(place, g) for g in ghosts] if ghosts else wing_ghosts(board.rooms, place)
        for where, ghost in removed:
            board.remove(where, ghost)
        hand = list(now.hand)
        for card in paid:
            hand.remove(card)
        return After(board, hand, now.hunts + 1, now.cost + cost + self.w.hunt_draw)

    # -- judging ---------------------------------------------------------------------------------------------

    def judge(self, now: After) -> tuple[float, Threat | None]:
        """The board-and-hand part of a plan's value, and the wing the next ghost would fill, whose fate depends
        on where the pawns stand."""
        w, board = self.w, now.board
        if now.won:
            return WIN, None
        counts = board.wing_counts()
        if 3 in counts.values() or now.hunts >= self.pile:  # S15: a haunted wing, or no draw for the next seat
            return LOST, None
        value = sum(_worth(c, w) for c in now.hand) - now.cost - w.ghost * board.ghost_sum()
        value -= sum(w.wing[c] for c in counts.values())
        land = board.landing()
        if land is None or board.traps[land] is not None:
            return value, None
        value -= self.p_black * w.ghost * self.mean_ghost
        wing = WING_OF.get(ROOMS[land])
        if wing is None or counts[wing] < 2:
            value -= self.p_black * w.second * self._second(board, land)
        if wing is None:
            return value, None
        c = counts[wing]
        if c < 2:
            return value - self.p_black * (w.wing[c + 1] - w.wing[c]), None
        value -= now.hunts * self.p_black * w.s12_fail * w.loss
        return value, (wing, [(r, None if r == ROOMS[land] else board.ghosts_at(r)[0]) for r in WINGS[wing]])

    def _second(self, board: Board, land: int) -> float:
        """The chance the ghost after the next one fills a wing (S9): the next lands in room ``land + 1`` and the
        omen moves to its number, unknown but one of the ghosts not seen."""
        after = board.copy()
        if after.traps[land] is None:
            after.rooms[land] = BLACK[0]  # which ghost does not matter here, only that the room is taken
        counts = after.wing_counts()
        hits = 0
        for number, n in self.numbers.items():
            after.omen = ROOMS[number - 1]
            nxt = after.landing()
            wing = None if nxt is None or after.traps[nxt] is not None else WING_OF.get(ROOMS[nxt])
            hits += n if wing is not None and counts[wing] == 2 else 0
        return hits / len(self.unseen) if self.unseen else 0.0

    def pawn_value(self, pawns: list[str], now: After, threat: Threat | None) -> float:
        """What the pawns' places are worth: the next seat's chance to clear a wing the next ghost fills,
        closeness to the next ghost's room, or to the Queen once she is out."""
        w = self.w
        value = 0.0
        if threat is not None:
            chance = 0.0
            if self.pile - now.hunts >= 3:  # the next seat can hunt and still leave a draw (S12, S15)
                chance = self._clears(pawns, threat, now)
                if self.responder != self.seat and self.hands[self.responder] is None:
                    chance = min(w.doubt, chance)
            value -= self.p_black * (1 - chance) * w.loss
        holders = self.holders if now.hand else self.holders - {self.seat}
        queen = self.queen_room
        if queen is not None:
            if self.seats > 1 or _strength(now.hand) >= now.board.ghost_sum():
                value -= w.gather * sum(DIST[pawns[s]][queen] for s in holders)
            if pawns[self.seat] == queen and not now.won:
                value += w.queen_try * self._queen_chance(pawns, now)
            value += w.queen_next * self._queen_next(pawns, now, queen)
            return value
        hot = self.hot
        value -= w.position * sum(
            DIST[p][hot] * (1.0 if s == self.responder else w.position_others) for s, p in enumerate(pawns)
        )
        if self.queen_soon:
            value -= w.gather * w.pregather * self.queen_soon * sum(DIST[pawns[s]][hot] for s in holders)
            land = now.board.landing()
            if land is not None:  # S9: the Queen, drawn next, appears where the next ghost would
                value += w.queen_next * self._queen_next(pawns, now, ROOMS[land]) / self.pile
        return value

    def _queen_chance(self, pawns: list[str], now: After) -> float:
        """The chance the hunters in the Queen's room with the active seat reach her value (S11): this seat's
        cards are known, the others' guessed from their hand sizes; a hunt found illegal here bounds the guess."""
        queen, need = self.queen_room, now.board.ghost_sum()
        others = [s for s in range(self.seats) if s != self.seat and pawns[s] == queen]
        if self.queen_short:
            pool = need - 1 + sum(self._strength(s) for s in others if self.pawns[s] != queen)
        else:
            pool = _strength(now.hand) + sum(self._strength(s) for s in others)
        return self._enough(pool, need)

    def _queen_next(self, pawns: list[str], now: After, queen: str) -> float:
        """The chance the next seat hunts the Queen in ``queen`` in its turn (S10, S11): it walks its pawn into her
        room, or, already there, walks in the hunter that adds the most, and the hunters there reach her value."""
        need, nxt = now.board.ghost_sum(), self.responder
        there = [s for s in range(self.seats) if pawns[s] == queen]
        pool = sum(self._held(s, now) for s in there)
        if pawns[nxt] != queen:
            return _reach(DIST[pawns[nxt]][queen]) * self._enough(pool + self._held(nxt, now), need)
        best = self._enough(pool, need)
        for s in range(self.seats):
            if s not in there:
                best = max(best, _reach(DIST[pawns[s]][queen]) * self._enough(pool + self._held(s, now), need))
        return best

    def _held(self, seat: int, now: After) -> float:
        """What a seat's cards are worth against the Queen after the plan (this seat's are known)."""
        return _strength(now.hand) if seat == self.seat else self._strength(seat)

    def _enough(self, pool: float, need: int) -> float:
        """The chance hunters whose cards are guessed to be worth ``pool`` reach ``need`` (S11)."""
        return min(1.0, max(0.0, 0.5 + (pool - need) / self.w.queen_spread))

    def _strength(self, seat: int) -> float:
        """What another seat's cards are worth against the Queen: known with open hands, else guessed."""
        hand = self.hands[seat]
        return self.sizes[seat] * self.red_mean if hand is None else _strength(hand)

    def _clears(self, pawns: list[str], threat: Threat, now: After) -> float:
        """The chance the next seat can clear the threatened wing: its pawn reaches a room with the die (S10) whose
        ghost it, or a hunter already there, can pay (S11; each hunter's chance taken as independent)."""
        pos, nxt = pawns[self.responder], self.responder
        chances = []
        for room, ghost in threat[1]:
            missed = 1.0 - self._pays(nxt, ghost, now)
            for s in range(self.seats):
                if s != nxt and pawns[s] == room:
                    missed *= 1.0 - self._pays(s, ghost, now)
            chances.append((DIST[pos][room], 1.0 - missed))
        return max(_reach(doors) * pays for doors, pays in chances)

    def _pays(self, seat: int, ghost: str | None, now: After) -> float:
        """The chance ``seat`` can pay ``ghost`` alone (``None``: the one about to appear): exact when its hand is
        known (this seat's, or open hands), else guessed from its hand size, each of its cards one of the red cards
        this seat has not seen (S11: a King, or a card of the hunting suit worth the ghost's value)."""
        if ghost == QUEEN:
            return 0.0
        ghosts = self.unseen if ghost is None else [ghost]
        if not ghosts:
            return 0.0
        hand = now.hand if seat == self.seat else self.hands[seat]
        if hand is None:
            return sum(self._guessed_pays(seat, g) for g in ghosts) / len(ghosts)
        if any(k in hand for k in KINGS):
            return 1.0
        return sum(self.payment(hand, HUNTS_WITH[g], VALUE[g]) is not None for g in ghosts) / len(ghosts)

    def _guessed_pays(self, seat: int, ghost: str) -> float:
        """The chance a hidden hand of ``seat``'s size holds a single card paying ``ghost`` (S11)."""
        key = (seat, ghost)
        if key not in self._guesses:
            cards = self.unseen_red
            single = sum(
                c in KINGS or (SUIT[c] in HUNTS_WITH[ghost] and VALUE.get(c, 0) >= VALUE[ghost]) for c in cards
            )
            self._guesses[key] = 1.0 - (1.0 - single / len(cards)) ** self.sizes[seat] if cards else 0.0
        return self._guesses[key]

    # -- planning --------------------------------------------------------------------------------------------

    def plan(self, here: str, steps: int, mover: int | None, pooled: list[tuple[Task, After]]) -> Plan:
        """The best plan: tasks here (any pawn may then walk), or up to two stops of the active seat's pawn."""
        start = After(self.board, self.hand)
        local = [(here, task, after) for task, after in [*self.tasks(here, start), *pooled]]
        best = Plan(-float("inf"), self.seat, (), here)
        for pawn in range(self.seats) if mover is None else (mover,):
            if pawn == self.seat:
                continue
            for stop in [(None, None, start), *local]:
                best = max(best, self._rested(stop, pawn, self.pawns[pawn], steps), key=lambda p: p.value)
        if mover not in (None, self.seat):
            return best
        first = [(here, None, start), *local]
        for place, d in DIST[here].items():
            if 0 < d <= steps:
                first += [(place, task, after) for task, after in self.tasks(place, start)]
        judged = []
        for place, task, after in first:
            left = steps - DIST[here][place]
            plan = self._rested((place, task, after), self.seat, place, left)
            best = max(best, plan, key=lambda p: p.value)
            if task is not None:
                judged.append((plan.value, place, task, after, left))
        judged.sort(key=lambda j: j[0], reverse=True)
        for _, place, task, after, left in judged[:SECOND_STOPS]:
            for place2, d in DIST[place].items():
                if d > left or (place2 == place and task.trap is None):
                    continue
                for task2, after2 in self.tasks(place2, after):
                    plan = self._rested((place2, task2, after2), self.seat, place2, left - d, (place, task))
                    best = max(best, plan, key=lambda p: p.value)
        return best

    def _rested(
        self,
        stop: tuple[str | None, Task | None, After],
        pawn: int,
        start: str,
        steps: int,
        before: tuple[str, Task] | None = None,
    ) -> Plan:
        """``stop``'s tasks done, ``pawn`` rests at its best place within ``steps`` doors of ``start``."""
        place, task, after = stop
        value, threat = self.judge(after)
        stops = (*([before] if before else []), *([(place, task)] if place is not None and task else []))
        pawns = list(self.pawns)
        best = Plan(-float("inf"), pawn, stops, start)
        for rest, d in DIST[start].items():
            if d <= steps:
                pawns[pawn] = rest
                total = value + self.pawn_value(pawns, after, threat) - 0.01 * d
                if total > best.value:
                    best = Plan(total, pawn, stops, rest)
        return best


class GreedySpook:
    """A cooperative one-turn planner; see the module docstring."""

    def __init__(self, weights: Weights | None = None) -> None:
        self.w = weights or Weights()
        self._turn = 0
        self._started: set[tuple[str | None, str]] = set()
        """Hunts (ghost, kind) this seat started this turn: one abandoned is not started again."""

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        kind = decision.prompt["kind"]
        if kind == "contribute":
            return self._contribute(decision)
        legal = decision.legal
        queen_hunt = next((a for a in legal if a["type"] == "hunt" and a["ghost"] == QUEEN), None)
        if queen_hunt is not None:
            return queen_hunt
        if kind in ("move", "turn"):
            action = self._act(decision)
            if action is not None:
                return action
        # draw, roll (the die's steps change the plan, never a task in place), or nothing left to do
        return _pick(legal, "draw", "roll", "stop_moving", "end_turn", "done")

    def _contribute(self, decision: Decision) -> Action:
        """Offer the cheapest cards that reach the hunt's value, or the biggest one when others must help; leave
        a hunt another seat started to that seat when its shown hand covers the rest (S11): how to pay is its call."""
        hunt = decision.view["hunt"]
        offers = [a for a in decision.legal if a["type"] == "offer"]
        if not offers or _starter_pays(decision):
            return _pick(decision.legal, "done")
        if hunt["kind"] != "normal":
            return offers[0]
        needed = hunt["value"] - sum(VALUE[o["card"]] for o in hunt["offered"])
        cards = [a["card"] for a in offers]
        paid = _cheapest(cards, needed, self.w)
        card = max(paid or cards, key=lambda c: (VALUE[c], -_worth(c, self.w)))
        return next(a for a in offers if a["card"] == card)

    def _act(self, decision: Decision) -> Action | None:
        view = decision.view
        if view["turn"] != self._turn:
            self._turn, self._started = view["turn"], set()
        turn = _Turn(decision, self.w)
        seat = decision.seat
        here = view["pawns"][seat]
        steps = view["steps_left"] if view["phase"] == "move" else 0
        plan = turn.plan(here, steps, view["moving_pawn"], self._pooled(decision, turn, here))
        if plan.stops and plan.stops[0][0] == here:
            action = self._do(decision, plan.stops[0][1])
            if action is not None:
                return action
        walker = view["pawns"][plan.pawn]
        target = plan.stops[0][0] if plan.stops and plan.pawn == seat else plan.rest
        if target == walker or not steps:
            return None
        then = plan.stops[1][0] if len(plan.stops) > 1 else plan.rest
        options = [
            a
            for a in decision.legal
            if a["type"] == "move" and a["pawn"] == plan.pawn and DIST[a["to"]][target] < DIST[walker][target]
        ]
        return min(options, key=lambda a: DIST[a["to"]][then]) if options else None

    def _pooled(self, decision: Decision, turn: _Turn, here: str) -> list[tuple[Task, After]]:
        """Legal hunts here that this seat cannot pay alone: the other hunters' cards make them possible (S11)."""
        own = {(task.ghost, task.kind) for task, _ in turn.tasks(here, After(turn.board, turn.hand))}
        out = []
        for a in decision.legal:
            if a["type"] != "hunt" or a["ghost"] == QUEEN:
                continue
            task = Task(a["kind"], a["ghost"])
            if (task.ghost, task.kind) not in own | self._started:
                out.append((task, turn.pooled(here, task)))
        return out

    def _do(self, decision: Decision, task: Task) -> Action | None:
        """The legal action doing ``task``; a hunt is started at most once a turn (an abandoned one stays so)."""
        legal = decision.legal
        if task.trap is not None:
            return next((a for a in legal if a["type"] == "lay_trap" and a["card"] == task.trap), None)
        key = (task.ghost, task.kind)
        action = next((a for a in legal if a["type"] == "hunt" and (a["ghost"], a["kind"]) == key), None)
        if action is None or key in self._started:
            return None
        self._started.add(key)
        return action


def _starter_pays(decision: Decision) -> bool:
    """Whether the seat that started the hunt (the active one, S11), still to answer, shows a hand (open hands)
    that completes it alone: a King for a banish, the red Queens not offered yet for a wing, else the value."""
    view, hunt = decision.view, decision.view["hunt"]
    starter: int = view["active"]
    hand: list[str] | None = view["hands"][starter]
    if starter == decision.seat or starter not in hunt["waiting"] or hand is None:
        return False
    offered = [o["card"] for o in hunt["offered"]]
    if hunt["kind"] == "king":
        return any(k in hand for k in KINGS)
    if hunt["kind"] == "wing":
        return all(q in hand for q in RED_QUEENS if q not in offered)
    value: int = hunt["value"]
    counting = [c for c in hand if c not in TRAPS and SUIT[c] in hunt["suits"]]
    return sum(VALUE[c] for c in counting) >= value - sum(VALUE[c] for c in offered)


def _pick(legal: list[Action], *kinds: str) -> Action:
    """The first legal action of the first kind available (the turn's plain way forward)."""
    for kind in kinds:
        for a in legal:
            if a["type"] == kind:
                return a
    return legal[0]


STRATEGIES = {"greedy": GreedySpook}
