"""When the server decides for a seat (``service.deadlines``), where the timing itself could tell a hidden value:
a duel's two dials (M17) asked together, one duellist away."""

from __future__ import annotations

from engine.mansion import GAME
from engine.mansion.actions import Dial, Duel
from engine.mansion.state import State
from server.service import deadlines
from server.store import TableMeta
from tests.engine.mansion.helpers import give, play, turn_table

NOW, GRACE = 1000.0, 2.0


def duel() -> State:
    """At three seats, seat 0 has challenged seat 1 for a card (M17): both dials prompted."""
    s = turn_table(seats=3)
    give(s, 1, "musician")
    s.pos = [4, 4, 3]
    play(s, 0, Duel(1, "musician"))
    assert set(GAME.prompts(s)) == {0, 1}
    return s


def table(**fields: object) -> TableMeta:
    return TableMeta(game="mansion", seats=3, status="playing", names=["A", "B", "C"], **fields)  # type: ignore[arg-type]


def test_an_away_duellists_dial_falls_due_no_sooner_than_the_present_ones() -> None:
    """Its default (bid 0) applied after the grace, 58 s before the other's deadline, told the other duellist the
    hidden bid, which it could then beat by one (an `events` frame naming the seat in `timeout`)."""
    s, before = duel(), GAME.prompts(turn_table())
    due = deadlines(GAME, table(turn_seconds=60.0, away=[1]), before, s, NOW, GRACE, actor=0)
    assert due == {0: NOW + 60, 1: NOW + 60}
    # untimed (the away mark left from a nudge): the table waits on the present duellist, and so on the away one
    assert deadlines(GAME, table(away=[1]), before, s, NOW, GRACE, actor=0) == {}


def test_once_the_present_duellist_has_set_its_dial_the_away_one_falls_due_after_the_grace() -> None:
    s = duel()
    for meta in (table(turn_seconds=60.0, away=[1]), table(away=[1])):
        meta.deadlines = deadlines(GAME, meta, GAME.prompts(turn_table()), s, NOW, GRACE, actor=0)
        after = duel()
        before = GAME.prompts(after)
        play(after, 0, Dial(2))
        assert deadlines(GAME, meta, before, after, NOW + 10, GRACE, actor=0) == {1: NOW + 10 + GRACE}


def test_away_or_bot_duellists_alone_keep_their_own_times() -> None:
    """Nobody present is asked the same: nothing to tell."""
    s, before = duel(), GAME.prompts(turn_table())
    both_away = table(turn_seconds=60.0, away=[0, 1])  # (seat 2 present: the table is not paused)
    assert deadlines(GAME, both_away, before, s, NOW, GRACE, actor=0) == {0: NOW + GRACE, 1: NOW + GRACE}
    bot_challenger = table(turn_seconds=60.0, away=[1], bots={0: "greedy"})
    assert deadlines(GAME, bot_challenger, before, s, NOW, GRACE, actor=0) == {0: NOW, 1: NOW + GRACE}
