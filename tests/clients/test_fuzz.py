"""``hauntd fuzz``'s checker (the command itself runs against a live server in ``tests/server/test_fuzz.py``)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import msgspec

from clients import fuzz
from engine.rng import seed_from_int
from protocol import codec
from protocol.messages import Act

GAME = fuzz.GAME


async def test_a_replayed_command_id_that_changes_a_table_again_is_a_violation() -> None:
    """A command id is applied at most once per seat: a replay answered ``accepted`` must leave the table as it
    was, even when its action (a new one, under the old id) would be legal now.  The checker took any legal,
    accepted action for a rightful change, so a server applying a replayed command again went unnoticed."""
    state = GAME.setup(3, seed_from_int(4), GAME.default_options(), "t1")
    seat = sorted(GAME.prompts(state))[0]
    states = [GAME.encode_state(state)]
    for first in GAME.legal_actions(state, seat):  # an action after which the same seat still decides
        after = GAME.decode_state(states[0])
        GAME.apply(after, seat, first)
        if seat in GAME.prompts(after) and len(GAME.legal_actions(after, seat)) > 1:
            break
    states.append(GAME.encode_state(after))
    second = GAME.legal_actions(after, seat)[-1]
    GAME.apply(after, seat, second)
    states.append(GAME.encode_state(after))

    tokens = [f"tok{s}" for s in range(3)]
    worker = fuzz.Worker("ws://unused", None, random.Random(0), fuzz.Stats())
    worker.tables = [fuzz.Table("t1", tokens)]
    meta = msgspec.msgpack.encode({"status": "playing"})
    stored = iter([states[0], states[1], states[1], states[2]])  # before/after each of the two frames

    async def read() -> dict[str, tuple[Any, ...]]:
        return {"t1": (b"1", meta, next(stored))}

    async def answer(frame: fuzz.Frame) -> list[dict[str, Any]]:
        assert frame.act is not None
        return [{"type": "accepted", "table": "t1", "cmd": frame.act["cmd"], "seq": 5}]

    worker.stored = read  # type: ignore[method-assign]
    worker.exchange = answer  # type: ignore[method-assign]
    act = {"type": "act", "table": "t1", "token": tokens[seat], "cmd": "c1", "action": msgspec.to_builtins(first)}
    replay = {**act, "action": msgspec.to_builtins(second)}
    await worker.checked(fuzz.Frame(json.dumps(act), act=act))
    assert worker.stats.violations == [] and worker.stats.legal_moves == 1  # the first use: rightful
    await worker.checked(fuzz.Frame(json.dumps(replay), act=replay))
    assert len(worker.stats.violations) == 1, worker.stats.violations


def test_memory_that_keeps_growing_after_the_warm_up_is_not_flat() -> None:
    """A fresh server's RSS rises for its first minute of fuzzing, then levels off; a leak goes on growing.  The
    check judged only the growth in all, so a warm-up took most of its slack and a steady leak under the rest went
    unnoticed: the growth since mid-run must stay small too."""
    mib = 2**20
    warm_up = [55 * mib, 59 * mib, 61 * mib, *[62 * mib] * 8]  # a 480 s run: +17 MiB, flat from a third on
    leak = [47 * mib + i * 2 * mib for i in range(1, 12)]  # +2 MiB a sample: +22 MiB, 12 of them since mid-run
    assert fuzz.memory_verdict(45 * mib, _over(480, warm_up), 32, 8)["memory_flat"]
    verdict = fuzz.memory_verdict(47 * mib, _over(480, leak), 32, 8)
    assert verdict["rss_growth_mib"] == 22 and verdict["rss_late_growth_mib"] == 12 and not verdict["memory_flat"]


def test_a_run_within_the_warm_up_is_judged_on_its_growth_in_all() -> None:
    """The RSS of a 60-s run (``hauntd fuzz --spawn --seconds 60``, as README has it) on a healthy server: it grew
    9.5 MiB in the run's second half, all of it the first minute's warm-up (a 180-s run levelled off at 50 s), and
    was called a leak.  The second half of a run under two minutes is not judged; the growth in all still is."""
    mib = 2**20
    warm = [round(r * mib) for r in (49.4, 52.1, 55.0, 57.6, 60.1, 62.5, 65.0, 67.4, 69.6, 69.6, 69.6)]
    verdict = fuzz.memory_verdict(round(47.7 * mib), _over(60, warm), 32, 8)
    assert verdict["rss_late_growth_mib"] is None and verdict["memory_flat"]
    assert not fuzz.memory_verdict(round(37.0 * mib), _over(60, warm), 32, 8)["memory_flat"]  # +32.6 in all
    assert fuzz.memory_verdict(round(47.7 * mib), _over(120, warm), 32, 8)["rss_late_growth_mib"] == 9.5


def _over(seconds: float, samples: list[int]) -> list[tuple[float, int]]:
    """``samples`` as the fuzzer takes them: evenly over a run of ``seconds``, the last one just after it."""
    return [(seconds * (i + 1) / (len(samples) - 1), rss) for i, rss in enumerate(samples[:-1])] + [
        (seconds + 0.6, samples[-1])
    ]


def _nudge_case(still: float, state_changed: bool = False) -> fuzz.Stats:
    """A worker's check of a table changed by a nudge, the table having stood still ``still`` seconds."""
    state = GAME.setup(3, seed_from_int(4), GAME.default_options(), "t1")
    prompted = sorted(GAME.prompts(state))
    nudged = prompted[0]
    tokens = [f"tok{s}" for s in range(3)]
    worker = fuzz.Worker("ws://unused", None, random.Random(0), fuzz.Stats())
    worker.nudge_after = 1.0
    table = fuzz.Table("t1", tokens, changed=time.monotonic() - still)
    meta = {"status": "playing", "seats": 3}
    before = (b"7", msgspec.msgpack.encode(meta), GAME.encode_state(state))
    if state_changed:
        GAME.apply(state, nudged, GAME.legal_actions(state, nudged)[0])
    deadlines = dict.fromkeys(prompted, 1e9)
    after = (b"8", msgspec.msgpack.encode({**meta, "deadlines": deadlines}), GAME.encode_state(state))
    nudge = {"type": "nudge", "table": "t1", "token": tokens[(nudged + 1) % 3], "seat": nudged}
    replies = [{"type": "nudged", "table": "t1", "seq": 8}]
    worker._check_change(table, before, fuzz.Frame(json.dumps(nudge), msg=nudge), replies, after=after)
    return worker.stats


def test_a_nudge_once_the_table_stood_still_is_a_rightful_change_before_it_or_with_a_move_is_not() -> None:
    """The checker took every change but a legal act for a violation: a nudge, a legal change since the server
    took them, is rightful when the table stood still ``nudge_after`` and it set the deadlines only."""
    assert _nudge_case(still=5.0).violations == []
    assert len(_nudge_case(still=0.2).violations) == 1  # (too early: the server must have refused it)
    assert len(_nudge_case(still=5.0, state_changed=True).violations) == 1  # (a nudge moves nothing)


async def test_a_rematch_of_a_table_in_play_or_a_second_one_is_a_violation() -> None:
    worker = fuzz.Worker("ws://unused", None, random.Random(0), fuzz.Stats())
    worker.tables, worker.finished = [fuzz.Table("live", [])], [fuzz.Table("done", [])]
    await worker._check_rematch({"type": "rematched", "table": "done", "rematch": "new1", "seat": 0})
    await worker._check_rematch({"type": "rematched", "table": "done", "rematch": "new1", "seat": 0})
    assert worker.stats.violations == []
    await worker._check_rematch({"type": "rematched", "table": "live", "rematch": "new2", "seat": 0})
    await worker._check_rematch({"type": "rematched", "table": "done", "rematch": "new3", "seat": 1})
    assert len(worker.stats.violations) == 2, worker.stats.violations


def test_every_frame_the_server_may_take_as_an_action_is_checked_as_one() -> None:
    """A frame sent as anything but an act (``Frame.act`` None) that the server takes as a well-formed action, and
    applies when legal, is a change the checker blames on the server.  A "truncated" frame could keep its whole
    text (1 time in its length): a legal act then, reported as a violation now and then in CI.  Here every random
    length is the longest allowed, so each truncation would be whole."""

    class Longest(random.Random):
        def randint(self, a: int, b: int) -> int:
            return b

    tokens = [f"tok{s}" for s in range(fuzz.SEATS)]
    worker = fuzz.Worker("ws://unused", None, Longest(1), fuzz.Stats())
    worker.tables = [fuzz.Table("t1", tokens)]
    stored = {
        "t1": (b"1", b"", GAME.encode_state(GAME.setup(fuzz.SEATS, seed_from_int(4), GAME.default_options(), "t1")))
    }
    unknown = []
    for _ in range(1000):
        frame = worker.hostile(stored)
        if frame.binary or frame.act is not None:
            continue
        try:
            msg = codec.decode_client(frame.payload)
            GAME.action_from_builtins(json.loads(frame.payload)["action"])
        except Exception:
            continue
        if isinstance(msg, Act):
            unknown.append(frame.payload)
    assert unknown == []
