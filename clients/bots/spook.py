"""Spook strategies.  ``greedy`` plays as a careful cooperative hunter: it keeps every wing from filling (S15),
lays traps where the next ghost will appear (S9, S13), saves its cards for the Queen (S11) and hunts her as soon
as the table can.  It decides from the wire view alone, with a one-turn plan and no search beyond it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from clients.bots.base import Decision
from engine.spook.board import FOYER, LOCATIONS, NEIGHBOURS, ROOM_INDEX, ROOMS, STAIRCASE, WING_OF, WINGS
from engine.spook.cards import BLACK, HUNTS_WITH, KINGS, QUEEN, RED_QUEENS, SUIT, TRAPS, VALUE

Action = dict[str, Any]
LOSS = 1e6


def _distances() -> dict[str, dict[str, int]]:
    """Doors between every two locations (S4), by breadth-first search."""
    table: dict[str, dict[str, int]] = {}
    for start in LOCATIONS:
        dist = {start: 0}
        frontier = [start]
        while frontier:
            step = [n for place in frontier for n in NEIGHBOURS[place] if n not in dist]
            for place in step:
                dist.setdefault(place, dist[frontier[0]] + 1)
            frontier = list(dict.fromkeys(step))
        table[start] = dist
    return table


DIST = _distances()


@dataclass(frozen=True)
class Weights:
    """The greedy player's judgement, in points of card value."""

    ghost: float = 1.0
    """Per point of ghost left on the board: the Queen will cost that much (S11)."""
    wing: tuple[float, float, float] = (0.0, 1.0, 8.0)
    """Danger of a wing holding 0, 1 or 2 ghosts at the end of the turn (3 loses, S15)."""
    next_full: float = 40.0
    """A wing the next ghost would fill: the next seat must clear it or lose."""
    hunt_draw: float = 3.0
    """The draw after a hunt (S12): a red card lost about half the time."""
    king: float = 13.0
    queen: float = 12.0
    jack: float = 6.0
    position: float = 1.0
    """Per door between the pawn's resting place and the room where the next ghost appears."""
    gather: float = 8.0
    """Per door between the pawn's resting place and the Queen once she is out: the table gathers on her."""


def _worth(card: str, w: Weights) -> float:
    """What keeping a red card is worth: its value, more for Kings and Queens (S11), a Jack as a future trap."""
    if card in KINGS:
        return w.king
    if card in RED_QUEENS:
        return w.queen
    if card in TRAPS:
        return w.jack
    return VALUE[card]


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
        if place == STAIRCASE:
            return self.staircase
        index = ROOM_INDEX.get(place)
        ghost = None if index is None else self.rooms[index]
        return [] if ghost is None else [ghost]

    def remove(self, place: str, ghost: str) -> None:
        if place == STAIRCASE:
            self.staircase.remove(ghost)
        else:
            self.rooms[ROOM_INDEX[place]] = None

    def landing(self) -> int | None:
        """S9: the room index where the next ghost appears (``None``: the staircase)."""
        start = ROOM_INDEX[self.omen]
        return next(((start + k) % 10 for k in range(10) if self.rooms[(start + k) % 10] is None), None)

    def wing_counts(self) -> dict[str, int]:
        return {wing: sum(self.rooms[ROOM_INDEX[r]] is not None for r in rooms) for wing, rooms in WINGS.items()}

    def ghost_sum(self) -> int:
        """S11: what the Queen is worth: every other ghost on the board."""
        return sum(VALUE[g] for g in (*self.rooms, *self.staircase) if g is not None and g != QUEEN)


@dataclass(frozen=True)
class Task:
    """Something the active seat does at a stop: a hunt (``kind``, ``ghost``), a trap (``trap``), or nothing."""

    kind: str = ""
    ghost: str | None = None
    trap: str | None = None
    paid: tuple[str, ...] = ()
    pooled: bool = False


class _Turn:
    """Everything the active seat's plan needs, read once from the view."""

    def __init__(self, decision: Decision, weights: Weights) -> None:
        view = decision.view
        self.w = weights
        self.seat = decision.seat
        self.view = view
        self.board = Board(list(view["rooms"]), list(view["staircase"]), list(view["traps"]), view["omen"])
        self.hand: list[str] = list(view["hands"][decision.seat] or [])
        seen = {c for c in (*view["rooms"], *view["staircase"], *view["discard"]) if c is not None}
        unseen_black = [g for g in (*BLACK, QUEEN) if g not in seen]
        pile = view["pile_size"]
        self.p_black = len(unseen_black) / pile if pile else 0.0
        ghosts = [VALUE[g] for g in unseen_black if g != QUEEN]
        self.mean_ghost = sum(ghosts) / len(ghosts) if ghosts else 0.0
        self.queen_room = next((p for p in (*ROOMS, STAIRCASE) if QUEEN in self.board.ghosts_at(p)), None)
        self._payments: dict[tuple[tuple[str, ...], str, int], tuple[str, ...] | None] = {}

    def payment(self, hand: list[str], suits: str, value: int) -> tuple[str, ...] | None:
        """The cheapest cards of ``hand`` (by worth kept) in ``suits`` that reach ``value`` (S11), if any."""
        key = (tuple(hand), suits, value)
        if key not in self._payments:
            cards = [c for c in hand if c not in TRAPS and SUIT[c] in suits]
            self._payments[key] = _cheapest(cards, value, self.w)
        return self._payments[key]

    def score(self, board: Board, hand: list[str], penalty: float) -> float:
        """How good the table stands after a plan: ghosts and wing danger against the cards kept."""
        w = self.w
        counts = board.wing_counts()
        if 3 in counts.values():
            return -LOSS
        total = sum(_worth(c, w) for c in hand) - penalty - w.ghost * board.ghost_sum()
        total -= sum(w.wing[c] for c in counts.values())
        land = board.landing()
        if land is not None and board.traps[land] is None:
            extra = w.ghost * self.mean_ghost
            wing = WING_OF.get(ROOMS[land])
            if wing is not None:
                c = counts[wing]
                extra += w.next_full if c == 2 else w.wing[c + 1] - w.wing[c]
            total -= self.p_black * extra
        return total

    def tasks(self, place: str, board: Board, hand: list[str]) -> list[tuple[Task, Board, list[str], float]]:
        """Every task worth considering at ``place`` with what it leaves: board, hand and a score penalty."""
        out: list[tuple[Task, Board, list[str], float]] = []
        for ghost in board.ghosts_at(place):
            if ghost == QUEEN:
                if sum(VALUE[c] for c in hand if c not in TRAPS) >= board.ghost_sum():
                    out.append((Task("normal", ghost), board, hand, -LOSS))
                continue
            paid = self.payment(hand, HUNTS_WITH[ghost], VALUE[ghost])
            if paid is not None:
                out.append((Task("normal", ghost, paid=paid), *self._hunted(board, hand, place, [ghost], paid)))
            king = next((k for k in KINGS if k in hand), None)
            if king is not None:
                out.append((Task("king", ghost, paid=(king,)), *self._hunted(board, hand, place, [ghost], (king,))))
        wing = WING_OF.get(place)
        if wing is not None and all(q in hand for q in RED_QUEENS):
            ghosts = [g for g in (board.rooms[ROOM_INDEX[r]] for r in WINGS[wing]) if g is not None and g != QUEEN]
            if ghosts:
                cleared = board.copy()
                for room in WINGS[wing]:
                    if cleared.rooms[ROOM_INDEX[room]] in ghosts:
                        cleared.rooms[ROOM_INDEX[room]] = None
                rest = [c for c in hand if c not in RED_QUEENS]
                out.append((Task("wing", paid=RED_QUEENS), cleared, rest, self.w.hunt_draw))
        index = ROOM_INDEX.get(place)
        jack = next((j for j in TRAPS if j in hand), None)
        if index is not None and jack is not None and board.traps[index] is None:
            trapped = board.copy()
            trapped.traps[index] = jack
            out.append((Task(trap=jack), trapped, [c for c in hand if c != jack], 0.0))
        return out

    def _hunted(
        self, board: Board, hand: list[str], place: str, ghosts: list[str], paid: tuple[str, ...]
    ) -> tuple[Board, list[str], float]:
        after = board.copy()
        for ghost in ghosts:
            after.remove(place, ghost)
        rest = list(hand)
        for card in paid:
            rest.remove(card)
        return after, rest, self.w.hunt_draw

    def rest_value(self, place: str, steps: int, board: Board) -> tuple[float, str]:
        """The best resting place within ``steps`` doors: near where the next ghost (or the Queen) is."""
        if self.queen_room is not None:
            hot, weight = self.queen_room, self.w.gather
        else:
            land = board.landing()
            hot, weight = (ROOMS[land] if land is not None else FOYER), self.w.position
        rest = min((r for r, d in DIST[place].items() if d <= steps), key=lambda r: (DIST[r][hot], r != place))
        return -weight * DIST[rest][hot], rest


@dataclass(frozen=True)
class Plan:
    value: float
    stops: tuple[tuple[str, Task], ...]
    rest: str


def _plan(turn: _Turn, here: str, steps: int, pooled: list[tuple[Task, float]]) -> Plan:
    """The best plan of up to two stops with a task each, then a resting place, within ``steps`` doors."""
    board, hand = turn.board, turn.hand
    rest_value, rest = turn.rest_value(here, steps, board)
    best = Plan(turn.score(board, hand, 0.0) + rest_value, (), rest)
    first: list[tuple[str, Task, Board, list[str], float]] = []
    for place, d in DIST[here].items():
        if d <= steps:
            first += [(place, *t) for t in turn.tasks(place, board, hand)]
    for task, penalty in pooled:
        after = board.copy()
        assert task.ghost is not None
        after.remove(here, task.ghost)
        first.append((here, task, after, hand, penalty))
    for place, task, board1, hand1, pen1 in first:
        left = steps - DIST[here][place]
        value, rest = turn.rest_value(place, left, board1)
        value += turn.score(board1, hand1, pen1)
        if value > best.value:
            best = Plan(value, ((place, task),), rest)
        for place2, d in DIST[place].items():
            if d > left or (place2 == place and task.trap is None):
                continue
            for task2, board2, hand2, pen2 in turn.tasks(place2, board1, hand1):
                value, rest = turn.rest_value(place2, left - d, board2)
                value += turn.score(board2, hand2, pen1 + pen2)
                if value > best.value:
                    best = Plan(value, ((place, task), (place2, task2)), rest)
    return best


def _cheapest(cards: list[str], value: int, w: Weights) -> tuple[str, ...] | None:
    """The cards among ``cards`` reaching ``value`` that leave the most worth in hand (S11), if any."""
    best: tuple[str, ...] | None = None
    best_cost = float("inf")
    for size in range(1, len(cards) + 1):
        for combo in combinations(cards, size):
            if sum(VALUE[c] for c in combo) >= value:
                cost = sum(_worth(c, w) for c in combo)
                if cost < best_cost:
                    best, best_cost = combo, cost
    return best


class GreedySpook:
    """A cooperative one-turn planner; see the module docstring."""

    def __init__(self, weights: Weights | None = None) -> None:
        self.w = weights or Weights()
        self._started: set[tuple[int, str | None, str]] = set()

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        kind = decision.prompt["kind"]
        if kind == "contribute":
            return self._contribute(decision)
        legal = decision.legal
        queen_hunt = next((a for a in legal if a["type"] == "hunt" and a["ghost"] == QUEEN), None)
        if queen_hunt is not None:
            return queen_hunt
        if kind in ("move", "turn", "roll"):
            action = self._act(decision)
            if action is not None:
                return action
        return _pick(legal, "draw", "roll", "stop_moving", "end_turn", "done")

    def _contribute(self, decision: Decision) -> Action:
        hunt = decision.view["hunt"]
        offers = [a for a in decision.legal if a["type"] == "offer"]
        if not offers:
            return _pick(decision.legal, "done")
        if hunt["kind"] != "normal":
            return offers[0]
        needed = hunt["value"] - sum(VALUE[o["card"]] for o in hunt["offered"])
        cards = [a["card"] for a in offers]
        paid = _cheapest(cards, needed, self.w)
        card = max(paid or cards, key=lambda c: (VALUE[c], -_worth(c, self.w)))
        return next(a for a in offers if a["card"] == card)

    def _act(self, decision: Decision) -> Action | None:
        view, legal = decision.view, decision.legal
        turn = _Turn(decision, self.w)
        seat = decision.seat
        here = view["pawns"][seat]
        moving = view["phase"] == "move" and view["moving_pawn"] in (None, seat)
        steps = view["steps_left"] if moving else 0
        plan = _plan(turn, here, steps, self._pooled(decision, turn))
        if view["phase"] == "roll":  # roll first: the die's steps change the plan, never a task in place
            return _pick(legal, "roll")
        if plan.stops and plan.stops[0][0] == here:
            action = self._do(decision, plan.stops[0][1])
            if action is not None:
                return action
        if turn.queen_room == here and not plan.stops and view["phase"] == "move":
            action = _bring(decision, here)
            if action is not None:
                return action
        target = plan.stops[0][0] if plan.stops else plan.rest
        if target != here and steps:
            then = plan.stops[1][0] if len(plan.stops) > 1 else plan.rest
            options = [
                a
                for a in legal
                if a["type"] == "move" and a["pawn"] == seat and DIST[a["to"]][target] < DIST[here][target]
            ]
            if options:
                return min(options, key=lambda a: DIST[a["to"]][then])
        return None

    def _pooled(self, decision: Decision, turn: _Turn) -> list[tuple[Task, float]]:
        """Legal hunts here that this seat cannot pay alone: the other hunters' cards make them possible (S11);
        they cost the table about the ghost's value."""
        out = []
        for a in decision.legal:
            if a["type"] != "hunt" or a["kind"] != "normal" or a["ghost"] == QUEEN:
                continue
            ghost = a["ghost"]
            if (decision.view["turn"], ghost, "normal") in self._started:
                continue
            if turn.payment(turn.hand, HUNTS_WITH[ghost], VALUE[ghost]) is None:
                out.append((Task("normal", ghost, pooled=True), self.w.hunt_draw + VALUE[ghost]))
        return out

    def _do(self, decision: Decision, task: Task) -> Action | None:
        legal = decision.legal
        if task.trap is not None:
            return next((a for a in legal if a["type"] == "lay_trap" and a["card"] == task.trap), None)
        for a in legal:
            if a["type"] == "hunt" and a["kind"] == task.kind and a["ghost"] == task.ghost:
                key = (decision.view["turn"], task.ghost, task.kind)
                if key in self._started:
                    return None
                self._started.add(key)
                return a
        return None


def _bring(decision: Decision, here: str) -> Action | None:
    """Walk another seat's pawn towards ``here`` (S10) so its cards join the hunt for the Queen (S11)."""
    view = decision.view
    pawns, sizes = view["pawns"], view["hand_sizes"]
    moves = [
        a
        for a in decision.legal
        if a["type"] == "move"
        and a["pawn"] != decision.seat
        and sizes[a["pawn"]]
        and pawns[a["pawn"]] != here
        and DIST[a["to"]][here] < DIST[pawns[a["pawn"]]][here]
    ]
    if not moves:
        return None
    return max(moves, key=lambda a: (sizes[a["pawn"]], -DIST[a["to"]][here]))


def _pick(legal: list[Action], *kinds: str) -> Action:
    """The first legal action of the first kind available (the turn's plain way forward)."""
    for kind in kinds:
        for a in legal:
            if a["type"] == kind:
                return a
    return legal[0]


STRATEGIES = {"greedy": GreedySpook}
