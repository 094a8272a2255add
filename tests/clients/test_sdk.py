"""The SDK under chaos: several server URLs, actions refused for a passing reason, updates of a forgotten table."""

from __future__ import annotations

from typing import Any

from clients.sdk import Client, Seat
from protocol.messages import Accepted, Act, ClientMessage, Events, Rejected
from server.launch import ServerProcess


async def test_a_client_connects_to_the_first_url_that_answers(server: ServerProcess) -> None:
    client = Client(["ws://127.0.0.1:9", server.url])  # nothing listens on the discard port
    try:
        await client.connect()
        assert client.url == server.url and client.welcome is not None
    finally:
        await client.close()


async def test_an_action_refused_as_internal_is_sent_again_with_its_command_id() -> None:
    client = Client("ws://unused", backoff=(0.001, 0.01))
    client.seats["T"] = Seat("T", 0, "tok")
    sent: list[Act] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        assert isinstance(msg, Act)
        sent.append(msg)
        if len(sent) < 3:  # the store restarts: twice refused for a passing reason
            return Rejected(table="T", cmd=msg.cmd, code="internal", message="store down", ref=msg.ref)
        return Accepted(table="T", cmd=msg.cmd, seq=7, ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    outcome = await client.act("T", {"type": "end_turn"}, cmd="c1", seq=6)
    assert isinstance(outcome, Accepted) and outcome.seq == 7
    assert [m.cmd for m in sent] == ["c1"] * 3 and all(m.seq == 6 for m in sent)


async def test_a_refusal_for_good_is_not_sent_again() -> None:
    client = Client("ws://unused", backoff=(0.001, 0.01))
    client.seats["T"] = Seat("T", 0, "tok")
    sent: list[ClientMessage] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        sent.append(msg)
        return Rejected(table="T", cmd="c1", code="stale", message="moved on", ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    outcome = await client.act("T", {"type": "end_turn"}, cmd="c1", seq=6)
    assert isinstance(outcome, Rejected) and outcome.code == "stale" and len(sent) == 1


def test_updates_of_a_forgotten_table_are_neither_delivered_nor_taken_for_a_gap() -> None:
    client = Client("ws://unused")
    client.last_seq["T"] = 4
    client._dispatch(Events(table="T", seq=5))
    client.forget("T")
    client._dispatch(Events(table="T", seq=7))  # the server still sends: the connection follows it until closed
    assert client._inbox.qsize() == 1 and client.gaps == 0 and client.repeats == 0 and "T" not in client.watching
