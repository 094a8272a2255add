"""Random players over the SDK: seat them at a real table and let them play, recording what they receive."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from clients.sdk import Client
from protocol.messages import Events, GameOver, Rejected, ServerMsg, Snapshot

# Rejections a random player may meet without any fault: another seat's simultaneous decision came first.
HARMLESS = {"stale"}


@dataclass
class Player:
    client: Client
    table: str
    seat: int
    rng: random.Random
    received: list[ServerMsg] = field(default_factory=list)
    acted: int = 0
    result: GameOver | None = None

    @property
    def seqs(self) -> list[int]:
        return [m.seq for m in self.received if isinstance(m, Events)]

    @property
    def first_snapshot_seq(self) -> int:
        return next(m.seq for m in self.received if isinstance(m, Snapshot))

    async def run(self, stop_at: int | None = None) -> None:
        """Play until the game is over (or the table reaches ``stop_at``); what the client hears of its other
        tables is not this player's (a mansion prompt acted on at a spook table, its end taken for this one's)."""
        while self.result is None:
            if stop_at is not None and self.client.last_seq.get(self.table, 0) >= stop_at:
                return
            msg = await self.client.recv(timeout=30)
            if getattr(msg, "table", self.table) != self.table:
                continue
            self.received.append(msg)
            if isinstance(msg, GameOver):
                self.result = msg
            elif isinstance(msg, Events | Snapshot) and msg.legal and msg.seq == self.client.last_seq[self.table]:
                outcome = await self.client.act(self.table, self.rng.choice(msg.legal), seq=msg.seq)
                if isinstance(outcome, Rejected):
                    assert outcome.code in HARMLESS, outcome
                else:
                    self.acted += 1


async def seat_players(
    urls: list[str], seats: int = 4, seed: int = 1, game: str = "mansion", **create: Any
) -> tuple[str, list[Player]]:
    """A started table of ``game`` with one connected player per seat; player ``i`` connects to
    ``urls[i % len(urls)]``."""
    clients = [Client(urls[i % len(urls)], client=f"player{i}") for i in range(seats)]
    for client in clients:
        await client.connect()
    table = await clients[0].create(game, seats, **create)
    players = []
    for i, client in enumerate(clients):
        held = await client.join(table, f"P{i}")
        players.append(Player(client, table, held.seat, random.Random(seed * 100 + i)))
    await clients[0].start(table)
    return table, players


async def play(players: list[Player], stop_at: int | None = None) -> None:
    await asyncio.wait_for(asyncio.gather(*(p.run(stop_at) for p in players)), 120)


async def close(players: list[Player]) -> None:
    for p in players:
        await p.client.close()


def assert_gapless(player: Player, final_seq: int) -> None:
    """Every update from the seat's first snapshot on, each exactly once, in order, up to the last one."""
    seqs = player.seqs
    assert seqs == list(range(seqs[0], final_seq + 1)), seqs
    assert seqs[0] <= player.first_snapshot_seq + 1
    assert player.client.gaps == 0
