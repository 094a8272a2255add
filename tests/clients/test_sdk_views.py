"""``Client(views=True)`` against a server from before ``views`` (versions mixed in a rolling upgrade, or rolled
back), honestly simulated: a real server behind a real proxy that answers a ``hello`` holding ``views`` as such a
server does (``bad_field``, the connection left open, not greeted) and passes everything else on."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

from clients.sdk import Client
from protocol.messages import Events, GameOver, Snapshot
from server.launch import ServerProcess
from tests.web.test_proxy import path_proxy
from tests.web.test_views import as_before_views


async def test_a_views_client_says_hello_again_without_views_and_is_sent_its_view_all_the_same(
    start_server: Callable[..., ServerProcess],
) -> None:
    """The SDK's ``Client(views=True)`` failed to connect (``bad_field``) where the page said hello again without
    ``views``; it now does too, each time it connects, and asks for a snapshot (its seat's view) after an update
    that holds ``prompts`` and no view, as the page does (paced, one at a time): a whole game, through a dropped
    connection, and every such update is followed by a snapshot at least as new."""
    server = start_server("--rate", "1e6", "--burst", "1000000")  # (a snapshot asked for at every update)
    hellos: Counter[bool] = Counter()

    def older(message: Any) -> str | None:
        if '"type":"hello"' in message:
            hellos['"views"' in message] += 1
        return as_before_views(message)

    async with (
        path_proxy(server, older) as address,
        Client(address.replace("http://", "ws://", 1), views=True) as viewer,
    ):
        assert viewer.views and not viewer.viewing
        table = await viewer.create("ghost-at-home", 2, bots=1, bot_strategy="random")
        await viewer.join(table, "me")
        await viewer.start(table)
        unviewed = snapshots = owed = 0  # owed: the last update without its view, not yet followed by it
        async for msg in viewer:
            if isinstance(msg, GameOver):
                break
            assert isinstance(msg, Events | Snapshot) and msg.table == table, msg
            if isinstance(msg, Snapshot) and msg.status != "lobby":
                snapshots += 1
                assert msg.view is not None
                owed = 0 if msg.seq >= owed else owed
            if isinstance(msg, Events) and (msg.prompts or msg.status == "over") and msg.view is None:
                unviewed, owed = unviewed + 1, msg.seq
                if unviewed == 3:  # (early: a short game leaves few such updates; at 10, one had fewer)
                    assert viewer.drop()  # reconnected, greeted again the same way, the seat resumed
            if msg.legal and msg.seq == viewer.last_seq[table]:
                await viewer.act(table, msg.legal[0], seq=msg.seq)  # (``stale`` when a snapshot came too)
        while owed:  # the view of the last updates comes after the game_over
            late = await asyncio.wait_for(viewer.recv(), 10)
            assert isinstance(late, Snapshot) and late.view is not None
            snapshots, owed = snapshots + 1, 0 if late.seq >= owed else owed
        assert not viewer.viewing and viewer.reconnects == 1
    # one snapshot at a time, 80 ms apart at least (+ the reconnect's resume): fewer than updates, if many came (the
    # game is random: 8 to 76 such updates in 15 runs)
    assert 1 < snapshots <= unviewed + 1
    assert hellos == {True: 2, False: 2}  # each connection: refused with views, greeted without


async def test_a_client_without_views_leaves_the_field_out_of_its_hello(server: ServerProcess) -> None:
    """The SDK's ``hello`` held ``"views": false`` (and every other field at its default): a server from before the
    field refused every SDK client, not only those asking for views.  A client message holds what it says, so a
    server that knows no newer field is not sent one."""
    hellos: list[str] = []

    def older(message: Any) -> str | None:
        hellos.append(message)
        return as_before_views(message)

    async with path_proxy(server, older) as address, Client(address.replace("http://", "ws://", 1)) as plain:
        assert not plain.views and not plain.viewing
        await plain.list_tables()
    assert len(hellos) == 2 and '"views"' not in hellos[0] and '"last_seq"' not in hellos[0]  # the hello, the list
