"""The SDK's end of rule M30: ``join`` notes the table's secret commitment and bots before its nonce leaves, and
``Client.fairness`` checks the ``game_over`` against them, against a real server."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import random
import secrets
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from clients.fairness import Checks, Noted, check
from clients.sdk import Client, ServerError
from protocol.messages import ClientMessage, Events, GameOver, Join, Snapshot, Watch
from server.launch import ServerProcess

HONEST = Checks(seed=True, secret=True, nonces=True, derived=True)


async def play_to_the_end(client: Client, game: str, rng: random.Random) -> tuple[str, GameOver]:
    """A table of ``game`` with a server-run bot, joined by ``client`` (without a watch of its own) and
    played at random to its ``game_over``."""
    table = await client.create(game, 2, bots=1, bot_strategy="random")
    await client.join(table, "Ada")
    return table, await finish(client, table, rng)


async def finish(client: Client, table: str, rng: random.Random) -> GameOver:
    """Start ``table`` with the seat ``client`` holds there and play it at random to its ``game_over``."""
    await client.start(table)
    async with asyncio.timeout(90):
        while True:
            msg = await client.recv()
            if isinstance(msg, GameOver) and msg.table == table:
                return msg
            if (
                isinstance(msg, Events | Snapshot)
                and msg.table == table
                and msg.legal
                and msg.seq == client.last_seq[table]
            ):
                await client.act(table, rng.choice(msg.legal), seq=msg.seq)


@pytest.fixture
def fast(start_server: Callable[..., ServerProcess]) -> ServerProcess:
    return start_server("--rate", "1e6", "--burst", "1000000")


async def test_an_honest_game_of_each_game_checks_out_and_a_doctored_end_fails_the_right_check(
    fast: ServerProcess,
) -> None:
    rng = random.Random(3)
    async with Client(fast.url) as client:
        for game in ("mansion", "spook", "ghost-at-home"):
            table, over = await play_to_the_end(client, game, rng)
            noted = client.noted[table]
            ours = client.seats[table].seat
            assert noted.bots == [seat != ours for seat in range(2)] and noted.nonce == client.seats[table].nonce
            assert client.fairness(over) == HONEST, game
            assert table not in client.watching  # followed as the seat, not as a spectator too
    nonces, replace = over.nonces or [], msgspec.structs.replace
    doctored = {
        "other secret": (replace(over, secret=secrets.token_hex(32)), {"secret", "derived"}),
        "extra nonce": (replace(over, nonces=[*nonces, ""]), {"nonces", "derived"}),
        "bot's nonce": (replace(over, nonces=[n or "ff" for n in nonces]), {"nonces", "derived"}),
        "ours missing": (
            replace(over, nonces=[n and "00" * 16 for n in nonces]),
            {"nonces", "derived"},
        ),
        "wrong seed": (replace(over, result={**over.result, "seed": "0" * 64}), {"seed", "derived"}),
        "no secret": (replace(over, secret=None, nonces=None), {"secret", "nonces", "derived"}),
    }
    assert sorted(nonces) == ["", noted.nonce] and nonces[ours] == noted.nonce
    for name, (end, failing) in doctored.items():
        checks = check(noted, end)
        assert {k for k, ok in dataclasses.asdict(checks).items() if not ok} == failing, name
        assert not checks.ok


async def test_the_secret_commitment_noted_is_the_one_shown_before_the_nonce_left_even_on_a_retry(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The join watches the table first (once), every join sends the nonce noted with the commitment, and a
    later snapshot showing another commitment does not replace the one noted."""
    async with Client(server.url) as host, Client(server.url) as client:
        table = await host.create("mansion", 2)
        await host.join(table, "Host", 0)
        shown = (await host.recv(5)).secret_commitment  # (the seat's snapshot)
        sent: list[tuple[ClientMessage, Noted | None]] = []
        expect = client._expect

        async def recording(msg: Any, kind: type[Any]) -> Any:
            noted = client.noted.get(msg.table)
            sent.append((msg, copy.copy(noted)))
            return await expect(msg, kind)

        monkeypatch.setattr(client, "_expect", recording)
        with pytest.raises(ServerError, match="table_full"):
            await client.join(table, "Bo", 0)
        assert table in client.watching  # refused: still watched, as the server has it
        held = await client.join(table, "Bo")
        client._dispatch(
            Snapshot(table=table, game="mansion", seq=99, status="lobby", seats=[], secret_commitment="1" * 64)
        )
        assert [type(m) for m, _ in sent] == [Watch, Join, Join]
    assert sent[0][1] is None  # nothing noted before the watch
    for msg, noted in sent[1:]:
        assert isinstance(msg, Join) and noted is not None
        assert noted.secret_commitment == shown and noted.nonce == msg.nonce == held.nonce
    assert client.noted[table].secret_commitment == shown  # not the later snapshot's


async def test_a_seat_taken_up_by_another_client_checks_out_with_the_notes_saved_beside_its_token(
    fast: ServerProcess,
) -> None:
    """What was noted goes with the seat's token, as JSON, to a client that has seen nothing of the table (as
    in another process): resumed with it (``noted=``), it plays to the end and every check holds.  Resumed
    without it there was no nonce of ours to find (``nonces`` failed); a doctored saved nonce fails that check."""
    async with Client(fast.url) as joining:
        table = await joining.create("spook", 2, bots=1, bot_strategy="random")
        seat = await joining.join(table, "Ada")
        saved = json.dumps({"token": seat.token, "noted": joining.noted[table].to_dict()})
    kept = json.loads(saved)
    async with Client(fast.url) as resuming:
        await resuming.resume(table, kept["token"], noted=Noted.from_dict(kept["noted"]))
        over = await finish(resuming, table, random.Random(5))
        assert resuming.fairness(over) == HONEST and resuming.seats[table].nonce == seat.nonce
        noted = resuming.noted[table].to_dict()  # (the seed's commitment too, now)
    doctored = {**noted, "nonce": secrets.token_hex(16)}
    assert check(Noted.from_dict(doctored), over) == dataclasses.replace(HONEST, nonces=False)
    assert not check(Noted.from_dict({**noted, "nonce": None}), over).nonces  # (resumed without it)
    with pytest.raises(msgspec.ValidationError):
        Noted.from_dict({**noted, "bots": "seat 1"})
