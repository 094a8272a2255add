"""``hauntd verify``: prove a finished table was played fair, from its log alone (rule M30 and its kin).

A table's log (``server/store.py``) holds every committed update with the full events and the action applied.
Once the game is over its result reveals the shuffle seed; verifying a table then checks that

* the seed matches the commitment published at the start (SHA-256 of seed and table id);
* the table's secret matches the commitment published at its creation, and the seed is the one derived from
  that secret and every seat's nonce (``engine.fairness.derive_seed``), one per seat and none for a server-run
  bot's (the seats the logged seating shows as bots'), so nobody chose it alone (a table made before seeds were
  derived has no secret: its seed was drawn at the start);
* dealing the game again from that seed, with the table's seats and options, and applying every logged action
  in ``seq`` order, by the logged seat, produces exactly the logged events (byte for byte), update after update;
* the state so reached is exactly the stored final state, and the log has no hole.

So no card was dealt, drawn or revealed other than the committed seed dictates, and no action was lost, doubled
or altered between the table's players and its log.  ``hauntd chaos`` runs it on every table it played.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import msgspec
import redis.asyncio as aioredis

from engine.contract import Game, IllegalAction
from engine.fairness import derive_seed
from engine.fairness import verify as matches_commitment
from engine.registry import get_game
from server import cli
from server.app import redacted
from server.preflight import reach
from server.store import NO_ACTION, NO_EVENTS, Batch, Keys, Missing, Record, Store, TableMeta, TooNew, encode


@dataclass
class Verdict:
    """What verifying one table found; ``ok`` when finished and every check held."""

    table: str
    status: str = "missing"
    updates: int = 0
    actions: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "over" and not self.problems


def replay(table: str, record: Record, batches: list[Batch]) -> Verdict:
    """Check a finished table's log (``batches``: updates 1 … ``record.seq``) against its stored record."""
    verdict = Verdict(table, record.meta.status, len(batches))
    problems = verdict.problems
    if record.meta.status != "over":
        problems.append(f"the game is {record.meta.status}: its seed is revealed only at the end")
        return verdict
    if [b.seq for b in batches] != list(range(1, record.seq + 1)):
        problems.append(f"the log does not hold every update 1…{record.seq}")
        return verdict
    try:
        game = get_game(record.meta.game)
        stored = game.decode_state(record.state)
        result = game.result(stored)
    except KeyError:
        problems.append(f"no game {record.meta.game!r}")
        return verdict
    except msgspec.DecodeError as exc:
        problems.append(f"the stored final state does not decode ({exc})")
        return verdict
    if result is None or record.meta.commitment is None:
        problems.append("the stored state has no result, or the table no commitment")
        return verdict
    if not matches_commitment(result.seed, table, record.meta.commitment):
        problems.append("the revealed seed does not match the commitment published at the start")
        return verdict
    problem = _bots_problem(record.meta, batches) or _seed_inputs_problem(table, record.meta, result.seed)
    if problem is not None:
        problems.append(problem)
        return verdict
    state = game.setup(record.meta.seats, bytes.fromhex(result.seed), game.decode_options(record.meta.options), table)
    started = False
    for batch in batches:
        started = started or batch.status == "playing"
        if batch.action == NO_ACTION:
            if started and batch.events != NO_EVENTS:
                problems.append(f"update {batch.seq} logs events without an action")
            continue
        if not started or batch.seat is None:
            problems.append(f"update {batch.seq} logs an action outside play, or by no seat")
            break
        problem = _replay_one(game, state, batch, batch.seat)
        verdict.actions += 1
        if problem is not None:
            problems.append(problem)
            break
    else:
        # compared as this version encodes both: a state stored by an older hauntd, before its struct gained a field
        # with a default (Spook's ``let_go``), holds no such field and is the same state all the same
        if game.encode_state(state) != game.encode_state(stored):
            problems.append("replaying the log does not reach the stored final state")
    return verdict


def _bots_problem(meta: TableMeta, batches: list[Batch]) -> str | None:
    """The seats the logged seating (what every player was shown) gives to server-run bots, against the record's:
    a bot left out of the record would escape the check that it brought no nonce (M30)."""
    logged = sorted({info.seat for batch in batches for info in batch.seats or () if info.bot})
    if logged != sorted(meta.bots):
        return f"the seating logged shows server-run bots at seats {logged}, the record at {sorted(meta.bots)}"
    return None


def _seed_inputs_problem(table: str, meta: TableMeta, seed_hex: str) -> str | None:
    """What is wrong with the seed's inputs (M30), if anything: besides the hashes, one nonce per seat and none
    for a server-run bot's seat, since a share of the server's own, picked after every player's, could steer the
    seed.  Nothing to check at a table made before seeds were derived (no secret, no nonces)."""
    if meta.secret is None:
        if meta.secret_commitment is not None or meta.nonces:
            return "the table published a secret commitment or took nonces, but reveals no secret"
        return None
    if meta.secret_commitment is None or not matches_commitment(meta.secret, table, meta.secret_commitment):
        return "the revealed secret does not match the commitment published at the table's creation"
    if len(meta.nonces) != meta.seats:
        return f"the table holds {len(meta.nonces)} nonces for its {meta.seats} seats"
    for seat in sorted(meta.bots):
        if seat < meta.seats and meta.nonces[seat]:
            return f"seat {seat}, a server-run bot's, brought a nonce to the seed"
    if derive_seed(bytes.fromhex(meta.secret), meta.nonces).hex() != seed_hex:
        return "the seed is not the one derived from the table's secret and the seats' nonces"
    return None


def _replay_one(game: Game[Any, Any, Any], state: Any, batch: Batch, seat: int) -> str | None:
    """Apply ``batch``'s logged action, by ``seat``, to ``state``; what differs from the log, if anything."""
    try:
        action = msgspec.msgpack.decode(batch.action, type=game.action_type)
        events = game.apply(state, seat, action)
    except (msgspec.ValidationError, IllegalAction) as exc:
        return f"update {batch.seq}: the logged action does not replay ({exc})"
    if encode(events) != bytes(batch.events):
        return f"update {batch.seq}: replaying its action gives other events than logged"
    return None


async def logged(store: Store, table: str) -> tuple[Record, list[Batch]] | None:
    """The table's record and its whole log; None when it is not stored."""
    try:
        record = await store.load(table)
    except Missing:
        return None
    return record, await store.batches(table, 0, record.seq)


def judge(table: str, stored: tuple[Record, list[Batch]] | None) -> Verdict:
    """``replay`` of what ``logged`` read."""
    return replay(table, *stored) if stored is not None else Verdict(table, problems=["no such table"])


async def verify_table(store: Store, table: str) -> Verdict:
    try:
        stored = await logged(store, table)
    except msgspec.DecodeError as exc:
        return Verdict(table, problems=[f"the table's record or log does not decode ({exc})"])
    except TooNew as exc:
        return Verdict(table, problems=[f"{exc}: verify it with that version"])
    return judge(table, stored)


# -- the command -------------------------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "tables",
        nargs="+",
        metavar="TABLE",
        help="ids of finished tables (the table of a server's table_over log line)",
    )
    cli.add_store_url(parser)


async def _verify_all(url: str, prefix: str, tables: list[str]) -> list[Verdict]:
    client = aioredis.Redis.from_url(url)
    try:
        await reach(client, redacted(url), 0)  # a store that refuses us (a database it has not) says so in a line
        store = Store(client, Keys.named(prefix))
        return [await verify_table(store, table) for table in tables]
    finally:
        await client.aclose()


def run(args: argparse.Namespace) -> int:
    if not args.redis_url:
        print("hauntd verify: give --redis-url (or set REDIS_URL)", file=sys.stderr)
        return 2
    verdicts = asyncio.run(_verify_all(args.redis_url, args.key_prefix, args.tables))
    for verdict in verdicts:
        print(json.dumps({**asdict(verdict), "ok": verdict.ok}))
    return 0 if all(v.ok for v in verdicts) else 1
