"""``hauntd fuzz``: hostile frames against a live server, checked for what must never happen.

Each worker owns a few started tables (it joined every seat itself, so it holds every token) and sends, one at
a time, random and mutated frames: bad UTF-8, binary frames, huge numbers, deep nesting, wrong types, unknown
types and fields, oversized frames, replayed and forged command ids, other seats' actions and tokens, other
tables' ids.  A ``ping`` after each frame collects its replies.  The worker's tables, as stored in Redis (record,
state, seq), must be byte-for-byte unchanged unless the server accepted an action that was legal for the seat
of its token at that table, or a ``nudge`` accepted (the server's ``welcome.limits.nudge_after``) once the table
had stood still that long, by a seat of the table for another that owed a decision, which set a deadline on every
seat prompted and nothing else.  A finished table never changes, and only a finished one has a ``rematch``: the
same new table, in its lobby, for every ask.  Now and then a worker plays a legal move, so the games move on and
their command ids can be replayed, and now and then plays a table to its end, so rematches are asked for.

At the end the server must be alive, its log must hold no error line or traceback, and its resident memory
(``process_resident_memory_bytes`` from ``/metrics``) must not have grown by more than ``--rss-slack`` MiB in all,
nor, in a run of two minutes or more, by more than ``--rss-late-slack`` MiB over its second half.  A fresh
server's RSS rises by some 15–25 MiB in its first minute of fuzzing (``WARM_UP``) and then stays about flat
(allocator high-water, garbage cycles awaiting the relaxed cyclic collector, hubs and their timers kept 30 s after
use): a second half past the warm-up tells a leak, which goes on growing, from it.  A shorter run has no such half
(``rss_late_growth_mib`` null) and is judged on the growth in all.  One JSON object is printed; the exit status is
0 only when all of that holds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import secrets
import signal
import string
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from clients.progress import Progress
from engine.registry import get_game
from server.cli import add_key_prefix, at_least_one, non_negative, positive, redis_url, ws_url
from server.launch import ServerProcess
from server.store import NO_PREFIX, Keys

GAME = get_game("mansion")
SEATS = 3
PLAYED_OUT = 400  # legal moves played at most to end a table (a game of the fuzzer's takes some 85)
NUDGE_AFTER = 1.0  # the spawned server's --nudge-after: a table of the fuzzer's often stands still so long
MAX_FRAME = 64 * 1024  # the server's default --max-frame-bytes, until its ``welcome.limits`` say
WARM_UP = 60.0  # seconds of fuzzing a fresh server's RSS takes to level off (some 50 here, at 1,100 frames/s)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--url", type=ws_url, help="a running server (give --redis-url to check its tables, --server-log to grep)"
    )
    where.add_argument("--spawn", action="store_true", help="start a server and a Valkey for the run (the default)")
    parser.add_argument(
        "--redis-url", type=redis_url, help="with --url: the server's store, to compare the tables' stored bytes"
    )
    add_key_prefix(parser, "with --url: the server's --key-prefix (default: $HAUNTD_KEY_PREFIX; unset: none)")
    parser.add_argument("--server-log", type=Path, help="with --url: the server's log file, to grep for errors")
    parser.add_argument("--seconds", type=positive, default=30.0, help="how long to send frames (default: 30)")
    parser.add_argument("--workers", type=at_least_one, default=4, help="connections sending at once (default: 4)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random frames (default: random)")
    parser.add_argument("--rss-slack", type=non_negative, default=32.0, help="MiB the server may grow (default: 32)")
    parser.add_argument(
        "--rss-late-slack",
        type=non_negative,
        default=8.0,
        help="MiB it may grow in the second half of a run of 2 minutes or more (default: 8)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress line on stderr (live on a terminal, else every 10 s)"
    )
    parser.add_argument("--json", action="store_true", help="print only the JSON object (the default output)")


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    keys = Keys.named(args.key_prefix) if args.url is not None else NO_PREFIX  # (a spawned server has none)
    plan = Run(args.seconds, args.workers, seed, progress=not args.quiet, keys=keys)
    if args.url is not None:
        report = asyncio.run(_fuzz(args.url, args.redis_url, args.server_log, plan))
    else:
        report = _spawned(plan)
    report.update(memory_verdict(report["rss_before"], report.pop("rss_samples"), args.rss_slack, args.rss_late_slack))
    report["ok"] = (
        report["server_alive"]
        and report["unhandled_exceptions"] == 0
        and not report["violations"]
        and report["memory_flat"]
    )
    print(json.dumps(report))
    return 0 if report["ok"] else 1


def memory_verdict(before: int, samples: list[tuple[float, int]], slack: float, late_slack: float) -> dict[str, Any]:
    """The RSS figures (MiB) from the RSS before the run and the samples taken over it as (seconds into the run,
    RSS), the last one after it: the growth in all, and over the second half, when that half starts past the
    ``WARM_UP`` and only a leak still grows (None for a shorter run: a 60-s run's second half grew 9.5 MiB of
    warm-up, over the default slack, on a server that then stayed flat)."""
    end, last = samples[-1]
    base = [rss for at, rss in samples if at <= end / 2]
    late = round((last - base[-1]) / 2**20, 1) if end / 2 >= WARM_UP and base else None
    growth = round((last - before) / 2**20, 1)
    return {
        "rss_growth_mib": growth,
        "rss_late_growth_mib": late,
        "rss_samples_mib": [round(rss / 2**20, 1) for _, rss in samples],
        "memory_flat": growth <= slack and (late is None or late <= late_slack),
    }


def _spawned(plan: Run) -> dict[str, Any]:
    from server.embedded import EmbeddedValkey

    with tempfile.TemporaryDirectory(prefix="hauntd-fuzz-") as tmp:
        valkey = EmbeddedValkey(Path(tmp) / "valkey")
        valkey.start()
        # no rate limit: the point is that every frame reaches the parser and the dispatcher; nudges taken after a
        # second still, their deadline never reached within a run (a time-out is no change the checker allows)
        server = ServerProcess(
            [
                *("--log-format", "json", "--redis-url", valkey.url, "--rate", "1000000", "--burst", "1000000"),
                *("--nudge-after", str(NUDGE_AFTER), "--nudge-seconds", "86400"),
            ],
            Path(tmp) / "server.log",
            tied=True,  # (gone with us, however we end)
        )
        try:
            server.start()
            report = asyncio.run(_fuzz(server.url, valkey.url, server.log_path, plan))
            process = server.process
            report["server_alive"] = report["server_alive"] and process is not None and process.poll() is None
            return report
        finally:
            server.kill(signal.SIGTERM)
            valkey.stop()


# -- the frames ---------------------------------------------------------------------------------------------
HUGE = "\x00huge\x00"  # placeholders replaced in the JSON text: values json.dumps cannot write
DEEP = "\x00deep\x00"


def _hostile_value(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            True,
            -1,
            0,
            2**63,
            10 ** rng.randint(19, 400),
            -(10 ** rng.randint(19, 400)),
            1.5,
            HUGE,
            DEEP,
            "",
            "x" * rng.randint(1, 200),
            "{t:x}",
            "\u202e\U0001f47b\x00",
            [],
            [1, "a", None],
            {},
            {"type": "move", "to": 1},
        ]
    )


def _render(obj: Any, rng: random.Random) -> str:
    text = json.dumps(obj, ensure_ascii=rng.random() < 0.5)
    text = text.replace(json.dumps(HUGE), rng.choice(["1e400", "-1e400", "1" + "0" * 5000, "1.0e-400"]))
    depth = rng.choice([50, 500, 3000, 10000])
    return text.replace(json.dumps(DEEP), rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth]))


@dataclass
class Table:
    id: str
    tokens: list[str]
    changed: float = 0.0  # (monotonic) before the frame that last changed it: it has stood still since, at most


@dataclass
class Frame:
    payload: str | bytes
    binary: bool = False
    act: dict[str, Any] | None = None  # the act as sent, when the frame is a well-formed one
    msg: dict[str, Any] | None = None  # the message as sent, when the frame is one (a nudge's, a rematch's …)


@dataclass
class Stats:
    frames: int = 0
    legal_moves: int = 0
    replays: int = 0
    tables: int = 0
    replies: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)


class Worker:
    """One attacker connection and the tables it owns."""

    def __init__(
        self, url: str, store: aioredis.Redis | None, rng: random.Random, stats: Stats, keys: Keys = NO_PREFIX
    ) -> None:
        self.url, self.store, self.rng, self.stats, self.keys = url, store, rng, stats, keys
        self.ws: ClientConnection | None = None
        self.tables: list[Table] = []
        self.finished: list[Table] = []  # the last tables played to their end: a rematch is theirs to ask for
        self.rematches: dict[str, str] = {}  # a finished table's rematch, as first answered
        self.nudge_after: float | None = None  # the server's (``welcome.limits``): None, it takes no nudge
        self.max_frame = MAX_FRAME  # the server's (``welcome.limits``): oversized frames go past it
        self.accepted: list[dict[str, Any]] = []  # acts the server accepted: replayed later
        self.used: set[tuple[str, str, str]] = set()  # (table, token, cmd) of every act accepted: applied once
        self._refs = 0

    # -- the connection ------------------------------------------------------------------------------------
    async def _connect(self, hello: bool = True) -> ClientConnection:
        ws = await connect(self.url, max_size=None, compression=None, open_timeout=10)
        if hello:
            await ws.send(json.dumps({"type": "hello", "version": 1, "client": "hauntd-fuzz"}))
            limits = json.loads(await ws.recv()).get("limits", {})
            self.nudge_after, self.max_frame = limits.get("nudge_after"), limits.get("max_frame_bytes", MAX_FRAME)
        self.ws = ws
        return ws

    async def exchange(self, frame: Frame) -> list[dict[str, Any]]:
        """Send one frame, then a ping; the frames that came back before the pong (empty when the server closed
        the connection, which is then reopened, sometimes without a hello so the pre-hello path is hit too)."""
        ws = self.ws or await self._connect(hello=self.rng.random() < 0.9)
        self._refs += 1
        barrier = f"b{self._refs}"
        replies: list[dict[str, Any]] = []
        try:
            if frame.binary:
                await ws.send(frame.payload, text=False)
            else:
                await ws.send(frame.payload, text=True)  # bytes sent as text: invalid UTF-8 on purpose
            await ws.send(json.dumps({"type": "ping", "ref": barrier}))
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 15))
                if reply.get("ref") == barrier:
                    return replies
                replies.append(reply)
        except ConnectionClosed as exc:
            self.stats.closes[str(exc.rcvd.code) if exc.rcvd is not None else "none"] += 1
            self.ws = None
            return replies
        except TimeoutError:
            self.stats.violations.append(f"no reply within 15 s to {str(frame.payload)[:120]!r}")
            self.ws = None
            return replies

    async def request(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        return await self.exchange(Frame(json.dumps(msg)))

    # -- tables --------------------------------------------------------------------------------------------
    async def new_table(self) -> None:
        created = await self.request({"type": "create", "game": "mansion", "seats": SEATS, "ref": "c"})
        table = next((r["table"] for r in created if r["type"] == "created"), None)
        if table is None:  # e.g. the per-connection table limit: start afresh on a new connection
            if self.ws is not None:
                await self.ws.close()
            self.ws = None
            return
        tokens = []
        for seat in range(SEATS):
            joined = await self.request({"type": "join", "table": table, "name": f"fz{seat}", "seat": seat})
            tokens += [r["token"] for r in joined if r["type"] == "joined"]
        if len(tokens) == SEATS:
            starting = time.monotonic()
            await self.request({"type": "start", "table": table, "token": tokens[0]})
            self.tables.append(Table(table, tokens, starting))
            self.stats.tables += 1

    async def stored(self) -> dict[str, tuple[Any, ...]]:
        """Each table's (those in play and those finished) seq, record and state as stored."""
        if self.store is None:
            return {}
        tables = [*self.tables, *self.finished]
        async with self.store.pipeline(transaction=False) as pipe:
            for table in tables:
                pipe.hmget(self.keys.record(table.id), "seq", "meta", "state")
            rows = await pipe.execute()
        return {t.id: tuple(row) for t, row in zip(tables, rows, strict=True)}

    def _state(self, stored: tuple[Any, ...]) -> Any:
        return GAME.decode_state(stored[2]) if stored[2] else None

    # -- one step --------------------------------------------------------------------------------------------
    async def step(self) -> None:
        """One frame of the worker's own choosing, checked; now and then a table played to its end instead."""
        await self.ready()
        if self.rng.random() < 0.003:
            await self.play_out(self.rng.choice(self.tables))
            return
        stored = await self.stored()
        await self.checked(self.legal_move(stored) if self.rng.random() < 0.05 else self.hostile(stored))

    async def play_out(self, table: Table) -> None:
        """Legal moves at ``table`` until its game is over (it then joins ``finished``), each checked; a few hundred
        at most (a table whose start was lost in the noise never ends)."""
        for _ in range(PLAYED_OUT):
            if table not in self.tables:
                return
            await self.checked(self.legal_move(await self.stored(), table))

    async def ready(self) -> None:
        """Two started tables to aim at (a finished one is replaced)."""
        while len(self.tables) < 2:
            await self.new_table()

    async def checked(self, frame: Frame) -> list[dict[str, Any]]:
        """Send ``frame``; count its replies; report a table changed by anything but a legal accepted action."""
        before = await self.stored()
        sent = time.monotonic()
        replies = await self.exchange(frame)
        self.stats.frames += 1
        accepted = False
        for reply in replies:
            if reply["type"] in ("error", "rejected"):
                self.stats.replies[reply["code"]] += 1
            elif reply["type"] == "accepted":
                self.stats.replies["accepted"] += 1
                accepted = accepted or (frame.act is not None and reply.get("cmd") == frame.act["cmd"])
            elif reply["type"] in ("nudged", "rematched"):
                self.stats.replies[reply["type"]] += 1
                if reply["type"] == "rematched":
                    await self._check_rematch(reply)
        after = await self.stored()
        for table in [*self.tables, *self.finished]:
            if before.get(table.id) != after.get(table.id):
                if table in self.finished:
                    self.stats.violations.append(
                        f"finished table {table.id} changed after {str(frame.payload)[:200]!r}"
                    )
                    continue
                self._check_change(table, before[table.id], frame, replies, after.get(table.id))
                table.changed = sent
            status = after.get(table.id, (None, None, None))[1]
            if table in self.tables and status is not None and msgspec.msgpack.decode(status).get("status") == "over":
                self.tables.remove(table)
                self.finished = [*self.finished[-3:], table]
        if accepted and frame.act is not None:  # only now: a change it made was its first use of the id
            self.accepted.append(frame.act)
            del self.accepted[:-50]
            if (used := _command(frame.act)) is not None:
                self.used.add(used)
        return replies

    def _check_change(
        self,
        table: Table,
        before: tuple[Any, ...],
        frame: Frame,
        replies: list[dict[str, Any]],
        after: tuple[Any, ...] | None = None,
    ) -> None:
        """A stored table changed (from ``before`` to ``after``): only an accepted action, legal for its token's
        seat, may do that, and only the first time its command id is used (a replay is answered, never applied
        again); or a nudge (``_nudged``)."""
        if frame.msg is not None and frame.msg.get("type") == "nudge":
            if after is None or not self._nudged(table, before, after, frame.msg, replies):
                self.stats.violations.append(f"table {table.id} changed by {str(frame.payload)[:200]!r}")
            return
        act = frame.act
        legal: bool | None = None  # (None: not an act of one of the table's seats, or none the game reads)
        if act is not None and act.get("table") == table.id and act.get("token") in table.tokens:
            if _command(act) in self.used:
                self.stats.violations.append(f"table {table.id} changed by a replayed command {act['cmd']!r}")
                return
            seat = table.tokens.index(act["token"])
            with contextlib.suppress(Exception):
                legal = GAME.action_from_builtins(act["action"]) in GAME.legal_actions(self._state(before), seat)
        if legal and act is not None and any(r["type"] == "accepted" and r.get("cmd") == act["cmd"] for r in replies):
            self.stats.legal_moves += 1
        else:
            answers = [r.get("code") or r["type"] for r in replies]
            self.stats.violations.append(
                f"table {table.id} changed after {str(frame.payload)[:200]!r} (answered {answers}, legal: {legal})"
            )

    def _nudged(
        self,
        table: Table,
        before: tuple[Any, ...],
        after: tuple[Any, ...],
        msg: dict[str, Any],
        replies: list[dict[str, Any]],
    ) -> bool:
        """Whether the change a nudge made was its right: answered ``nudged`` as the next update, by a seat of the
        table for another seat it waited on, once the table had stood still ``nudge_after`` seconds (the worker
        saw it change no later than ``changed``; the answer came after the commit), and it set one deadline on
        every seat prompted, the state and the rest of the record as they were."""
        seat, token = msg.get("seat"), msg.get("token")
        state = self._state(before)
        if state is None or self.nudge_after is None or token not in table.tokens:
            return False
        prompts = GAME.prompts(state)
        if not isinstance(seat, int) or seat == table.tokens.index(token) or seat not in prompts:
            return False
        if time.monotonic() - table.changed < self.nudge_after:  # (stood still less than that, at most)
            return False
        old, new = msgspec.msgpack.decode(before[1]), msgspec.msgpack.decode(after[1])
        deadlines = new.pop("deadlines", {})
        old.pop("deadlines", None)
        return (
            any(r["type"] == "nudged" and r.get("seq") == int(before[0]) + 1 for r in replies)
            and int(after[0]) == int(before[0]) + 1
            and after[2] == before[2]
            and new == old
            and sorted(deadlines) == sorted(prompts)
            and len(set(deadlines.values())) == 1
        )

    async def _check_rematch(self, reply: dict[str, Any]) -> None:
        """A ``rematched`` answer: only for a finished table, the same new table every time, stored in its lobby."""
        finished = {t.id for t in self.finished}
        old, new = str(reply.get("table")), str(reply.get("rematch"))
        if old not in finished:
            self.stats.violations.append(f"a rematch of table {old}, not one played to its end: {reply}")
            return
        if self.rematches.setdefault(old, new) != new:
            self.stats.violations.append(f"table {old} had rematch {self.rematches[old]}, now {new}")
        if self.store is not None:
            seq, meta = await self.store.hmget(self.keys.record(new), "seq", "meta")
            made = msgspec.msgpack.decode(meta) if isinstance(meta, bytes) else {}
            if seq != b"0" or made.get("status", "lobby") != "lobby" or made.get("game") != GAME.name:
                self.stats.violations.append(f"rematch {new} of {old} is not a new {GAME.name} table: {seq!r}")

    def legal_move(self, stored: dict[str, tuple[Any, ...]], table: Table | None = None) -> Frame:
        """A legal move at ``table``, or at one of the worker's tables, seldom its first: that one mostly stands
        still, long enough to be nudged."""
        quiet = self.tables[1:] if len(self.tables) > 1 and self.rng.random() < 0.98 else self.tables
        table = table or self.rng.choice(quiet)
        state = self._state(stored[table.id]) if table.id in stored else None
        if state is None:
            return self.hostile(stored)
        seat = self.rng.choice(sorted(GAME.prompts(state)))
        action = msgspec.to_builtins(self.rng.choice(GAME.legal_actions(state, seat)))
        act = {"type": "act", "table": table.id, "token": table.tokens[seat], "cmd": secrets.token_hex(6)}
        act["action"] = action
        return Frame(json.dumps(act), act=act)

    # -- hostile frames ------------------------------------------------------------------------------------
    def hostile(self, stored: dict[str, tuple[Any, ...]]) -> Frame:
        rng = self.rng
        kind = rng.random()
        if kind < 0.03:
            return Frame(rng.randbytes(rng.randint(0, 300)) + b"\xff\xfe", binary=False)  # invalid UTF-8 text
        if kind < 0.08:
            return Frame(rng.randbytes(rng.randint(0, 300)), binary=True)
        if kind < 0.12:
            return Frame("".join(rng.choice(string.printable) for _ in range(rng.randint(0, 200))))
        if kind < 0.15:  # oversized: past the frame limit, sometimes past what the transport takes at all
            size = rng.choice([self.max_frame + 1, 2 * self.max_frame, 5 * self.max_frame])
            return Frame(json.dumps({"type": "ping", "ref": "x" * size}))
        if kind < 0.22 and self.accepted:  # a replayed command id: same or other action
            replay = dict(rng.choice(self.accepted))
            if rng.random() < 0.5:
                replay["action"] = msgspec.to_builtins(rng.choice(self._any_legal(stored)))
            self.stats.replays += 1
            return Frame(json.dumps(replay), act=replay)
        msg = self.message(stored)
        if rng.random() < 0.5:
            self.mutate(msg)
        text = _render(msg, rng)
        if rng.random() < 0.05:
            return Frame(text[: rng.randint(0, len(text) - 1)])  # truncated (never whole: it would be sent as no act)
        act = msg if msg.get("type") == "act" and isinstance(msg.get("action"), dict) else None
        return Frame(text, act=act, msg=msg)

    def _any_legal(self, stored: dict[str, tuple[Any, ...]]) -> list[Any]:
        out: list[Any] = []
        for value in stored.values():
            state = self._state(value)
            if state is not None:
                for seat in GAME.prompts(state):
                    out += GAME.legal_actions(state, seat)
        return out or [{"type": "end_turn"}]

    def message(self, stored: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
        """A well-formed message aimed wrong: another seat's token, another table, an action for someone else."""
        rng = self.rng
        table = rng.choice(self.tables)
        other = rng.choice(self.tables)
        table_id = rng.choice([table.id] * 4 + [other.id, secrets.token_urlsafe(6), table.id[:-1]])
        token = rng.choice([*table.tokens, *other.tokens, secrets.token_urlsafe(16), "x"])
        ended = rng.choice(self.finished) if self.finished and rng.random() < 0.7 else table  # (a rematch's)
        actions = [msgspec.to_builtins(a) for a in self._any_legal(stored)]
        action = rng.choice([*actions, {"type": "move", "to": rng.randint(-3, 9)}, {"type": "dial", "bid": 7}])
        templates: list[dict[str, Any]] = [
            {
                "type": "act",
                "table": table_id,
                "token": token,
                "cmd": rng.choice(["c", secrets.token_hex(4)]),
                "action": action,
                "seq": rng.choice([None, 0, 1, 10**6]),
            },
            {"type": "hello", "version": rng.choice([1, 2, 0]), "table": table_id, "token": token},
            {
                "type": "create",
                "game": rng.choice(["mansion", "spook", "ghost-at-home", "chess"]),
                "seats": rng.randint(0, 7),
                "bots": rng.randint(0, 7),
                "bot_strategy": rng.choice(["random", "x"]),
                "options": rng.choice([{}, {"max_rounds": 0}, {"nope": 1}]),
                "private": rng.random() < 0.5,
            },
            {"type": "list", "game": rng.choice([None, "mansion", "x"])},
            {"type": "join", "table": table_id, "name": "Eve", "seat": rng.randint(0, 4)},
            {"type": "leave", "table": table_id, "token": token},
            {"type": "watch", "table": table_id, "last_seq": rng.choice([None, 0, 3, 10**9])},
            {"type": "start", "table": table_id, "token": token},
            {"type": "resume", "table": table_id, "token": token, "last_seq": rng.choice([0, 2, 10**9])},
            {"type": "ping"},
            {"type": "say", "table": table_id, "text": rng.choice(["gg", "", " ", "a\x00b", "\u202e", "x" * 201])},
            {"type": "nudge", "table": table_id, "token": token, "seat": rng.randint(0, SEATS)},
            {"type": "rematch", "table": ended.id, "token": rng.choice([*ended.tokens, token])},
        ]
        msg = rng.choices(templates, weights=[10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2])[0]
        if msg.get("seq", 0) is None:
            del msg["seq"]
        if rng.random() < 0.5:
            msg["ref"] = secrets.token_hex(4)
        return msg

    def mutate(self, msg: dict[str, Any]) -> None:
        rng = self.rng
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.5 and msg:
                msg[rng.choice(list(msg))] = _hostile_value(rng)  # a wrong type or range, even for "type"
            elif roll < 0.65:
                msg[rng.choice(["extra", "seat", "__proto__", "type "])] = _hostile_value(rng)
            elif roll < 0.8 and msg:
                del msg[rng.choice(list(msg))]
            elif roll < 0.9:
                msg["type"] = rng.choice(["teleport", "ACT", "", "act\x00", "events", "welcome"])
            elif isinstance(msg.get("action"), dict):
                msg["action"][rng.choice(["to", "r", "bid", "type", "x"])] = _hostile_value(rng)


def _command(act: dict[str, Any]) -> tuple[str, str, str] | None:
    """An act's command key (command ids are unique per seat of a table), when its fields are strings."""
    table, token, cmd = act.get("table"), act.get("token"), act.get("cmd")
    if isinstance(table, str) and isinstance(token, str) and isinstance(cmd, str):
        return table, token, cmd
    return None


# -- the run ------------------------------------------------------------------------------------------------
def _rss(http_base: str) -> int:
    with urllib.request.urlopen(f"{http_base}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    found = re.search(r"^process_resident_memory_bytes (\S+)$", text, flags=re.M)
    return int(float(found.group(1))) if found else 0


def _alive(http_base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{http_base}/healthz", timeout=10) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def unhandled(log_path: Path | None, offset: int = 0) -> list[str]:
    """Error lines and tracebacks in a server log (JSON lines, and any plain ones: the interpreter's own)."""
    if log_path is None or not log_path.exists():
        return []
    found = []
    with log_path.open("rb") as log:
        log.seek(offset)
        for raw in log.read().decode(errors="replace").splitlines():
            try:
                entry = json.loads(raw)
            except ValueError:
                if re.search(r"Traceback|\bERROR\b|\bCRITICAL\b|Exception", raw):
                    found.append(raw[:300])
                continue
            if isinstance(entry, dict) and (entry.get("level") in ("error", "critical") or "exception" in entry):
                found.append(raw[:300])
    return found


@dataclass(frozen=True)
class Run:
    """What ``hauntd fuzz`` was asked for: how long, how many attacker connections, the seed of their frames."""

    seconds: float
    workers: int
    seed: int
    progress: bool = True
    keys: Keys = NO_PREFIX  # the server's, to read its tables


async def _fuzz(url: str, redis_url: str | None, log_path: Path | None, plan: Run) -> dict[str, Any]:
    seconds, workers, seed = plan.seconds, plan.workers, plan.seed
    http_base = "http" + url.removeprefix("ws")
    store = aioredis.Redis.from_url(redis_url) if redis_url else None
    stats = Stats()
    log_offset = log_path.stat().st_size if log_path is not None and log_path.exists() else 0
    team = [Worker(url, store, random.Random(seed * 1000 + i), stats, plan.keys) for i in range(workers)]
    try:
        for worker in team:
            for _ in range(2):
                await worker.new_table()
        rss_before = await asyncio.to_thread(_rss, http_base)
        started = time.monotonic()
        until = started + seconds

        async def drive(worker: Worker) -> None:
            while time.monotonic() < until:
                try:
                    await worker.step()
                except (OSError, InvalidHandshake) as exc:  # the server refused or dropped a connection
                    stats.closes[type(exc).__name__] += 1
                    worker.ws = None
                    await asyncio.sleep(0.05)

        samples: list[tuple[float, int]] = []

        async def sample() -> None:  # the RSS ten times over the run: growth that levels off is not a leak
            while (left := until - time.monotonic()) > 0:
                await asyncio.sleep(min(left, seconds / 10))
                samples.append((time.monotonic() - started, await asyncio.to_thread(_rss, http_base)))

        def describe(_every: float) -> str:
            elapsed = time.monotonic() - started
            rss = f"  rss {samples[-1][1] / 2**20:.1f} MiB" if samples else ""
            return (
                f"{elapsed:5.0f}/{seconds:.0f}s  frames {stats.frames} ({stats.frames / elapsed:.0f}/s)"
                f"  tables {stats.tables}  replays {stats.replays}  violations {len(stats.violations)}{rss}"
            )

        shown = Progress()
        helpers = [asyncio.create_task(shown.run(describe))] if plan.progress else []
        await asyncio.gather(sample(), *(drive(w) for w in team))
        for task in helpers:
            task.cancel()
        if helpers:
            shown.end()
        duration = time.monotonic() - started
        for worker in team:
            if worker.ws is not None:
                await worker.ws.close()
        await asyncio.sleep(0.5)  # let the server finish logging the closes
        rss_after = await asyncio.to_thread(_rss, http_base)
        after = time.monotonic() - started
        alive = await asyncio.to_thread(_alive, http_base)
    finally:  # (interrupted: the workers stop, even one whose cancel ``wait_for`` lost, as it can in Python 3.11;
        until = 0.0  # and a server stopping waits 10 s for the close of a connection left open)
        for worker in team:
            if worker.ws is not None:
                worker.ws.transport.abort()
        if store is not None:
            await store.aclose()
    errors = unhandled(log_path, log_offset)
    return {
        "url": url,
        "seed": seed,
        "workers": workers,
        "frames": stats.frames,
        "seconds": round(duration, 2),
        "frames_per_second": round(stats.frames / duration, 1) if duration else 0.0,
        "tables": stats.tables,
        "table_checks": store is not None,
        "legal_moves": stats.legal_moves,
        "replays": stats.replays,
        "replies_by_code": dict(stats.replies.most_common()),
        "closes_by_code": dict(stats.closes.most_common()),
        "violations": stats.violations[:20],
        "unhandled_exceptions": len(errors),
        "unhandled_examples": errors[:5],
        "log_checked": log_path is not None,
        "server_alive": alive,
        "rss_before": rss_before,
        "rss_after": rss_after,
        "rss_samples": [*samples, (after, rss_after)],
    }
