"""The seed comes from the server's committed secret and every player's nonce (rule M30), over real sockets."""

from __future__ import annotations

import hashlib
import json
import random

from websockets.asyncio.client import connect

from clients.sdk import Client
from engine.fairness import derive_seed
from protocol.messages import GameOver, Snapshot
from tests.server.conftest import ServerProcess
from tests.server.players import Player, close, play


async def join_without_nonce(url: str, table: str, seat: int) -> str:
    """A join as a client that knows nothing of nonces sends it; returns the seat's token."""
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "version": 1}))
        await ws.send(json.dumps({"type": "join", "table": table, "name": "Old", "seat": seat, "ref": "j"}))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("ref") == "j":
                assert reply["type"] == "joined", reply
                return str(reply["token"])


async def test_the_seed_is_derived_from_the_committed_secret_and_the_players_nonces(server: ServerProcess) -> None:
    clients = [Client(server.url, client=f"player{i}") for i in range(3)]
    for client in clients:
        await client.connect()
    # seat 0 a server-run bot, seat 1 the SDK's own nonce, seat 2 one given, seat 3 a join without any
    table = await clients[0].create("mansion", 4, bots=1)
    await clients[0].join(table, "Ada", 1)
    lobby = await clients[0].recv(timeout=5)
    assert isinstance(lobby, Snapshot) and lobby.status == "lobby" and lobby.secret_commitment is not None
    await clients[1].join(table, "Gone", 2, nonce="given back")  # a seat given back drops its nonce
    await clients[1].leave(table)
    await clients[1].join(table, "Bo", 2, nonce="Bo's nonce: été")
    await clients[2].resume(table, await join_without_nonce(server.url, table, 3))
    await clients[0].start(table)
    players = [Player(c, table, seat, random.Random(seat)) for seat, c in zip((1, 2, 3), clients, strict=True)]
    try:
        await play(players)
    finally:
        await close(players)
    over = players[0].result
    assert isinstance(over, GameOver) and all(p.result == over for p in players)
    assert over.secret is not None and over.nonces is not None
    # the secret is the one committed to in the lobby, before any nonce was sent
    assert hashlib.sha256(bytes.fromhex(over.secret) + table.encode()).hexdigest() == lobby.secret_commitment
    # each player's nonce is in the list, by seat; the bot's seat adds nothing (a nonce the server drew would be
    # a share of the seed it could pick late, unseen)
    mine = clients[0].seats[table].nonce
    assert len(mine) == 32 and over.nonces == ["", mine, "Bo's nonce: été", ""]
    # and the seed that dealt the game (it matches the start's commitment) is derived from them alone
    assert over.result["seed"] == derive_seed(bytes.fromhex(over.secret), over.nonces).hex()
    assert hashlib.sha256(bytes.fromhex(over.result["seed"]) + table.encode()).hexdigest() == over.commitment
