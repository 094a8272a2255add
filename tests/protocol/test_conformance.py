"""hauntd against a client written from PROTOCOL.md alone (``rawclient``), one test per part of the document.

The client imports nothing of the project; it checks every frame it receives against the document as it
arrives.  Each test follows the document literally: where the server and the document part, one of them is
wrong, and this file pins the side that was fixed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.launch import ServerProcess
from tests.protocol.rawclient import (
    CHAT_LINE,
    GAME_INFO,
    LIMITS,
    PROMPT,
    SEAT_INFO,
    SERVER_MESSAGES,
    TABLE_INFO,
    Player,
    ProtocolViolation,
    RawClient,
    Shape,
    TableTrack,
    check_frame,
    http_get,
    new_secret,
)

# Few seats and the games' own pace: three whole games take well under a second.
GAMES = {"mansion": 2, "spook": 2, "ghost-at-home": 2}
SEAT_RANGES = {"mansion": (2, 6), "spook": (1, 4), "ghost-at-home": (2, 5)}


class Net:
    """Opens the test's connections, and closes every one of them at the end."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opened: list[RawClient] = []

    async def client(self, name: str = "raw", hello: bool = True, **hello_fields: Any) -> RawClient:
        client = await RawClient.open(self.url, name)
        self.opened.append(client)
        if hello:
            await client.hello(**hello_fields)
        return client

    async def seat_table(self, game: str, seats: int, start: bool = True, **create: Any) -> tuple[str, list[Player]]:
        """A table of ``game``, every seat joined on its own connection, started."""
        lobby = await self.client("lobby")
        table = await lobby.create(game, seats, **create)
        players = []
        for seat in range(create.get("bots", 0), seats):
            client = await self.client(f"seat{seat}")
            joined = await client.join(table, f"p{seat}")
            assert joined["seat"] == seat and joined["table"] == table
            players.append(Player(client, table, seat, joined["token"], random.Random(seat)))
        if start:
            started = await players[0].client.request({"type": "start", "table": table, "token": players[0].token})
            assert started["type"] == "started", started
            for p in players:
                await p.client.wait_for("snapshot", table=table, status="playing")
        return table, players

    async def close(self) -> None:
        for client in self.opened:
            if client.ws.state.name == "OPEN":
                client.abort()


@pytest.fixture
async def net(hauntd: ServerProcess) -> AsyncIterator[Net]:
    net = Net(hauntd.url)
    yield net
    await net.close()


async def play_all(players: list[Player], timeout: float = 10.0) -> None:
    await asyncio.wait_for(asyncio.gather(*(p.play() for p in players)), timeout)


def check_contiguous(seqs: list[int]) -> None:
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs


# -- hello, welcome, ping ----------------------------------------------------------------------------------------


async def test_welcome_and_ping(net: Net) -> None:
    client = await net.client(hello=False)
    welcome = await client.request({"type": "hello", "version": 1, "client": "conformance/1", "ref": "h1"})
    assert welcome["type"] == "welcome" and welcome["ref"] == "h1" and welcome["version"] == 1
    games = {g["name"]: (g["min_seats"], g["max_seats"]) for g in welcome["games"]}
    assert games == SEAT_RANGES
    limits = welcome["limits"]
    assert limits == {
        "max_frame_bytes": 65536,
        "messages_per_second": 50.0,
        "burst": 100,
        "max_tables_per_connection": 32,
        "idle_seconds": 300.0,
        "tables_per_minute": 30.0,
        "open_tables": 20,
        "watch_places": 20,
        "nudge_after": 120.0,
        "nudge_seconds": 60.0,
        "abandoned_after": 900,
    }
    again = await client.request({"type": "hello", "version": 1, "ref": "h2"})  # a second hello: welcomed again
    assert again == {**welcome, "ref": "h2"}
    before = time.time()
    pong = await client.request({"type": "ping", "ref": "p1"})
    assert pong == {"type": "pong", "time": pong["time"], "ref": "p1"}
    assert before - 1 <= pong["time"] <= time.time() + 1


async def test_the_documents_examples_are_valid(net: Net) -> None:
    """Every server → client example of the document passes the client's own check (``...`` elided)."""
    text = (Path(__file__).parents[2] / "protocol" / "PROTOCOL.md").read_text()
    server_part = text.split("## Server → client")[1].split("## Error codes")[0]
    blocks = [b.split("```")[0] for b in server_part.split("```json\n")[1:]]
    seen = set()
    for block in blocks:
        for line in block.replace("\n ", " ").splitlines():
            msg = json.loads(line)
            seen.add(msg["type"])
            if msg["type"] == "game_over":
                continue  # elided seed and commitment: checked live in test_whole_game
            if isinstance(msg.get("view"), dict):
                msg["view"].pop("...", None)
            check_frame(msg)
    assert seen == {
        "welcome", "tables", "created", "joined", "left", "started", "nudged", "accepted", "rejected", "events",
        "snapshot", "game_over", "rematched", "pong", "said", "chat", "error",
    }  # fmt: skip


async def test_the_documents_requests_work(net: Net) -> None:
    """Every client → server example of the document, sent as it is (its table id and token swapped for real
    ones), is a valid message: none is refused as malformed, of an unknown type or of a bad field."""
    text = (Path(__file__).parents[2] / "protocol" / "PROTOCOL.md").read_text()
    client_part = text.split("## Client → server")[1].split("## Server → client")[0]
    blocks = [b.split("```")[0] for b in client_part.split("```json\n")[1:]]
    examples = [json.loads(line) for block in blocks for line in block.replace("\n ", " ").splitlines()]
    assert examples[0]["type"] == "hello"
    client = await net.client(hello=False)
    table = token = None
    for example in examples:
        msg = dict(example)
        if table is not None and msg.get("table") == "sFES2VRX":
            msg["table"] = table
        if token is not None and msg.get("token") == "aYPNHt8nv-v3qS-CKJNWog":
            msg["token"] = token
        await client.send(msg)
        reply = await client.wait_for_ref(msg["ref"]) if "ref" in msg else await client.recv()
        while reply["type"] in ("events", "snapshot") and reply.get("ref") is None:
            reply = await client.recv()
        assert reply.get("code") not in ("malformed", "unknown_type", "bad_field", "version"), (msg, reply)
        if reply["type"] == "created" and table is None:
            table = reply["table"]
        if reply["type"] == "joined" and token is None:
            token = reply["token"]
    assert {m["type"] for m in examples} == {
        "hello", "create", "list", "join", "leave", "watch", "start", "act", "resume", "rematch", "ping", "nudge",
        "say",
    }  # fmt: skip


# -- time limits and away seats ----------------------------------------------------------------------------------


async def test_time_limit_marks_a_seat_away(net: Net) -> None:
    before = time.time()
    _, (player,) = await net.seat_table("spook", 1, turn_seconds=0.3)
    snapshot = player.track.snapshots[-1]
    assert snapshot["turn_seconds"] == 0.3
    (prompt,) = snapshot["prompts"]
    assert before <= prompt["deadline"] - 0.3 <= time.time()  # the decision's time limit runs from the start
    # The seat lets its deadline pass: the server decides for it and marks it away, in that very update.
    timed_out = await player.client.wait_for("events", timeout=3, seq=snapshot["seq"] + 1)
    assert timed_out["seats"] == [{"seat": 0, "name": "p0", "away": True}], timed_out
    # Its own act clears the mark.
    while True:
        msg = await player.step(3)
        if msg["type"] == "events" and "seats" in msg:
            break
    assert msg["seats"] == [{"seat": 0, "name": "p0"}], msg
    while player.in_flight is not None:
        await player.step(3)
    assert player.accepted == [msg["seq"]]


async def test_a_time_out_is_named_to_every_seat_and_a_deadline_needs_no_client_clock(net: Net) -> None:
    """Each update that carries a deadline carries the server's ``time`` beside it, so a client whose clock is off
    counts down ``deadline - time`` all the same; each default the server applies names its seat in ``timeout``,
    to every seat, also once the seat is away already (when no seating change says anything)."""
    _, (absent, present) = await net.seat_table("spook", 2, turn_seconds=1.0)
    snapshot = absent.track.snapshots[-1]
    (prompt,) = snapshot["prompts"]
    assert prompt["seat"] == 0 and 0.5 < prompt["deadline"] - snapshot["time"] <= 1.0, snapshot
    seen: list[dict[str, Any]] = []  # the present seat's updates that defaulted a decision
    while len(seen) < 2:
        msg = await present.step(5)  # seat 1 plays its turns; seat 0 never acts
        if msg["type"] == "events" and "timeout" in msg:
            seen.append(msg)
        for p in msg.get("prompts", []) if msg["type"] in ("events", "snapshot") else []:
            if "deadline" in p:
                assert p["deadline"] - msg["time"] <= 1.0, msg
    assert [m["timeout"] for m in seen] == [0, 0] and "seats" in seen[0] and "seats" not in seen[1], seen
    told = [m async for m in _frames(absent.client, "events") if "timeout" in m]
    assert [m["seq"] for m in told][:2] == [m["seq"] for m in seen] and all(m["timeout"] == 0 for m in told), told


async def _frames(client: RawClient, kind: str, quiet: float = 0.5) -> AsyncIterator[dict[str, Any]]:
    """The frames of ``kind`` queued or arriving at ``client`` until it has been quiet ``quiet`` seconds."""
    with contextlib.suppress(TimeoutError):
        while True:
            msg = await client.recv(quiet)
            if msg["type"] == kind:
                yield msg


async def test_resume_back_on_the_following_connection_sends_each_update_once(net: Net) -> None:
    """A seat marked away says it is back on the connection it plays on (as the web page does): the update that
    clears the mark reaches it once ("each connection receives each update exactly once")."""
    table, (player,) = await net.seat_table("spook", 1, turn_seconds=0.3)
    timed_out = await player.client.wait_for("events", timeout=3, seq=player.track.snapshots[-1]["seq"] + 1)
    assert timed_out["seats"][0].get("away") is True, timed_out
    last = player.track.last
    reply = await player.client.request(
        {"type": "resume", "table": table, "token": player.token, "last_seq": last, "back": True}
    )  # (the rawclient refuses an events seq it already handled)
    assert reply["type"] == "snapshot" and reply["seq"] == last + 1 and reply["seats"] == [{"seat": 0, "name": "p0"}]
    assert player.track.applied.count(last + 1) == 1


async def test_resume_on_the_following_connection_sends_no_update_again(net: Net) -> None:
    """A connection that follows the table has had every update: a resume there (from a last_seq behind what
    reached it, as when updates were in flight) answers with the snapshot and sends none of them again."""
    table, players = await net.seat_table("mansion", 2)
    first = players[0]
    until = first.track.last + 5
    await asyncio.wait_for(asyncio.gather(*(p.play(until=until) for p in players)), 10)
    delivered = first.track.last
    reply = await first.client.request({"type": "resume", "table": table, "token": first.token, "last_seq": 1})
    assert reply["type"] == "snapshot" and reply["seq"] >= delivered, reply
    assert first.track.applied == list(range(first.track.applied[0], first.track.last + 1))


# -- whole games -------------------------------------------------------------------------------------------------


def hidden_values_ok(game: str, track: TableTrack) -> None:
    """Mansion: another seat's Haunt values are ``null`` (a spectator sees none)."""
    if game != "mansion":
        return
    for frame in track.frames:
        for event in frame.get("events", []):
            if event["type"] == "haunt_drawn" and event["seat"] != track.seat:
                assert event["values"] is None, (track.seat, event)
            if event["type"] == "haunt_discarded" and event["seat"] != track.seat:
                assert event["value"] is None, (track.seat, event)


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_whole_game(net: Net, game: str) -> None:
    seats = GAMES[game]
    lobby = await net.client("lobby")
    table = await lobby.create(game, seats)
    spectator = await net.client("spectator")
    watched = await spectator.watch(table)
    assert watched["status"] == "lobby" and watched["seq"] == 0 and "seat" not in watched

    players = []
    for seat in range(seats):
        client = await net.client(f"seat{seat}")
        joined = await client.join(table, f"p{seat}")
        assert joined["seat"] == seat and joined["seq"] == seat + 1
        players.append(Player(client, table, seat, joined["token"], random.Random(seat)))
    # Every seated connection saw every later join as one events with the new seating.
    for p in players:
        last = p.track.frames[-1] if p.track.frames else p.track.snapshots[-1]
        assert [s["seat"] for s in last["seats"]] == list(range(seats)), last

    started = await players[-1].client.request({"type": "start", "table": table, "token": players[-1].token})
    assert started["type"] == "started" and started["seq"] == seats + 1
    for p in players:
        snapshot = await p.client.wait_for("snapshot", table=table, status="playing")
        assert snapshot["seat"] == p.seat and snapshot["game"] == game and "view" in snapshot

    async def spectate() -> None:
        while spectator.tables[table].game_over is None:
            await spectator.recv(10)

    await asyncio.wait_for(asyncio.gather(spectate(), *(p.play() for p in players)), 10)

    final = players[0].track.game_over
    assert final is not None
    for track in [p.track for p in players] + [spectator.tables[table]]:
        over = track.game_over
        assert over is not None and over["seq"] == final["seq"] == track.last
        assert over["result"] == final["result"]  # every hidden value revealed, the same for everyone
        assert len(over["result"]["scores"]) == seats
        check_contiguous(track.applied)
        assert track.applied[-1] == final["seq"]
        # The start's update and the last one hold no prompts (the start's snapshot has them; at the end nobody
        # decides); every update between them does.
        playing = [f for f in track.frames if f["seq"] > started["seq"]]
        start = next(f for f in track.frames if f["seq"] == started["seq"])
        assert start["status"] == "playing" and "prompts" not in start
        assert playing[-1]["status"] == "over" and "prompts" not in playing[-1]
        assert all(f["prompts"] for f in playing[:-1])
        assert track.commitment == final["commitment"]
        hidden_values_ok(game, track)
    # The spectator saw every update from the first join on, exactly once.
    assert spectator.tables[table].applied == list(range(1, final["seq"] + 1))
    assert sum(len(p.accepted) for p in players) > 0

    # A finished table, watched or resumed: its snapshot, then its game_over.
    for msg in [
        {"type": "watch", "table": table},
        {"type": "resume", "table": table, "token": players[0].token, "last_seq": final["seq"]},
    ]:
        late = await net.client("late")
        if msg["type"] == "resume":
            late.track(table).seat = 0
        snapshot = await late.request(msg)
        assert snapshot["type"] == "snapshot" and snapshot["status"] == "over" and snapshot["seq"] == final["seq"]
        over = await late.expect("game_over")
        assert over == final

    # After the end: an act (one that was legal once) is refused as game_over; on a fresh connection, as the
    # players may have used up their rate limit's burst.
    late = await net.client("late")
    action = next(f["legal"][0] for f in reversed(players[0].track.frames) if "legal" in f)
    act = {"type": "act", "table": table, "token": players[0].token, "cmd": "late", "action": action}
    reply = await late.request(act)
    assert reply["type"] == "rejected" and reply["code"] == "game_over", reply

    # Play again: a seat's ask (here on a fresh connection) makes the rematch; the connections that followed the
    # table to its end, the players' and this public table's spectator's, are told unasked, with the same ids
    asked = await late.request({"type": "rematch", "table": table, "token": players[1].token})
    assert asked["type"] == "rematched" and asked["table"] == table and asked["seat"] == 1, asked
    for client in [p.client for p in players] + [spectator]:
        told = await client.wait_for("rematched")
        assert told == {"type": "rematched", "table": table, "rematch": asked["rematch"], "seat": 1}, told
    again = await late.request({"type": "rematch", "table": table, "token": players[0].token})
    assert again["rematch"] == asked["rematch"] and again["seat"] == 1  # (the one rematch, and who asked first)
    lobby_of_it = await late.request({"type": "watch", "table": asked["rematch"]})
    assert lobby_of_it["status"] == "lobby" and lobby_of_it["game"] == game and len(lobby_of_it["seats"]) == seats


async def test_bots_fill_the_first_seats(net: Net) -> None:
    _, players = await net.seat_table("ghost-at-home", 2, bots=1, bot_strategy="random")
    (person,) = players
    assert person.seat == 1
    snapshot = person.track.snapshots[-1]
    assert snapshot["seats"][0]["bot"] is True and "token" not in snapshot["seats"][0]
    await play_all(players)
    bot_prompts = [
        prompt
        for frame in person.track.frames
        for prompt in frame.get("prompts", [])
        if prompt["seat"] == 0
    ]  # fmt: skip
    assert bot_prompts and all("deadline" in prompt for prompt in bot_prompts)


# -- the lobby ---------------------------------------------------------------------------------------------------


async def test_a_game_in_play_is_listed_to_watch(net: Net) -> None:
    """``tables.playing`` as the document gives it (``check_frame``): a public game in play, its seats' names,
    ``seq`` and start, its time limit; a private one never; none once over."""
    table, players = await net.seat_table("spook", 2, bots=1, turn_seconds=30)
    hidden, others = await net.seat_table("spook", 2, private=True)
    lobby = await net.client("lobby")
    listed = await lobby.request({"type": "list", "game": "spook"})
    info = next(t for t in listed["playing"] if t["table"] == table)
    assert info == {
        "table": table, "game": "spook", "seats": 2, "taken": 2, "status": "playing", "turn_seconds": 30,
        "names": ["bot-0", "p1"], "bots": [0], "seq": info["seq"], "started": info["started"],
    }  # fmt: skip
    assert hidden not in {t["table"] for t in listed["playing"]} and table not in {t["table"] for t in listed["tables"]}
    await play_all(players + others)
    listed = await lobby.request({"type": "list", "game": "spook"})
    assert table not in {t["table"] for t in listed.get("playing", [])}


async def test_list_join_leave(net: Net) -> None:
    lobby = await net.client("lobby")
    public = await lobby.create("mansion", 3)
    private = await lobby.create("mansion", 3, private=True)
    other = await lobby.create("spook", 2, turn_seconds=30)
    assert (len(public), len(private)) == (8, 22)  # a private table's id is as hard to guess as a token

    def ids(reply: dict[str, Any]) -> set[str]:
        assert reply["type"] == "tables"
        return {t["table"] for t in reply["tables"]}

    listed = await lobby.request({"type": "list"})
    assert {public, other} <= ids(listed) and private not in ids(listed)
    none = await lobby.request({"type": "list", "game": "chess"})  # no such game: no table of it
    assert none["tables"] == []  # a required field, sent even when empty
    only = await lobby.request({"type": "list", "game": "mansion"})
    assert public in ids(only) and other not in ids(only)
    assert all(t["game"] == "mansion" for t in only["tables"])
    info = next(t for t in only["tables"] if t["table"] == public)
    assert info == {"table": public, "game": "mansion", "seats": 3, "taken": 0, "status": "lobby"}
    info = next(t for t in listed["tables"] if t["table"] == other)
    assert info["turn_seconds"] == 30
    assert all(t["status"] == "lobby" for t in listed["tables"])  # only open tables are listed
    watcher = await net.client("watcher")
    assert (await watcher.watch(private))["private"] is True
    snapshot = await watcher.watch(other)
    assert snapshot["turn_seconds"] == 30 and "private" not in snapshot
    assert snapshot["seats"] == [{"seat": 0}, {"seat": 1}]  # every seat, a free one without a name

    ada = await net.client("ada")
    joined = await ada.join(public, "Ada")
    bo = await net.client("bo")
    joined_bo = await bo.join(public, "Bo", seat=2)
    assert (joined["seat"], joined_bo["seat"]) == (0, 2)
    info = next(t for t in (await lobby.request({"type": "list"}))["tables"] if t["table"] == public)
    assert info["taken"] == 2
    # Ada saw Bo sit down.
    update = await ada.wait_for("events", table=public, seq=joined_bo["seq"])
    assert update["seats"] == [{"seat": 0, "name": "Ada"}, {"seat": 1}, {"seat": 2, "name": "Bo"}], update

    left = await bo.request({"type": "leave", "table": public, "token": joined_bo["token"]})
    assert left["type"] == "left" and left["seq"] == joined_bo["seq"] + 1
    update = await ada.wait_for("events", table=public, seq=left["seq"])
    assert update["seats"] == [{"seat": 0, "name": "Ada"}, {"seat": 1}, {"seat": 2}], update
    # The leaver had the update of its leave, then follows the table no more.
    assert bo.tables[public].applied[-1] == left["seq"]
    # The free seat can be taken again; a full table is refused.
    cy = await net.client("cy")
    await cy.join(public, "Cy", seat=2)
    assert [m for m in await bo.quiet(0.1) if m["seq"] > left["seq"]] == []
    await bo.join(public, "Bo")
    full = await cy.request({"type": "join", "table": public, "name": "Dee"})
    assert full["type"] == "error" and full["code"] == "table_full"
    listed = await lobby.request({"type": "list"})
    assert public not in ids(listed)


async def test_one_audience_per_connection_and_table(net: Net) -> None:
    """A connection follows a table as one audience: the seat it last joined, or spectators once it watches."""
    lobby = await net.client("lobby")
    table = await lobby.create("spook", 2)
    both = await net.client("both")
    await both.join(table, "Ada")
    second = await both.join(table, "Bo")
    assert second["seat"] == 1 and both.tables[table].snapshots[-1]["seat"] == 1
    started = await both.request({"type": "start", "table": table, "token": second["token"]})
    assert started["type"] == "started"
    snapshot = await both.wait_for("snapshot", table=table, status="playing")
    assert snapshot["seat"] == 1  # seat 0's legal actions and view come to this connection no more
    watched = await both.watch(table)
    assert "seat" not in watched and "legal" not in watched


async def test_lobby_commands_sent_again(net: Net) -> None:
    lobby = await net.client("lobby")
    cmd = new_secret()
    table = await lobby.create("spook", 1, cmd=cmd)
    assert await lobby.create("spook", 1, cmd=cmd) == table
    token = new_secret()
    ada = await net.client("ada")
    first = await ada.join(table, "Ada", token=token)
    again = await ada.request({"type": "join", "table": table, "name": "Ada", "token": token})
    assert again["type"] == "joined" and (again["seat"], again["token"], again["seq"]) == (0, token, first["seq"])
    # After a change, a join sent again answers with the seat as of the table's current seq.
    pair = await lobby.create("mansion", 2)
    first = await ada.join(pair, "Ada", token=token)
    bo = await net.client("bo")
    bo_joined = await bo.join(pair, "Bo")
    again = await ada.request({"type": "join", "table": pair, "name": "Ada", "token": token})
    assert again["type"] == "joined" and (again["seat"], again["seq"]) == (0, bo_joined["seq"]), again
    assert (await ada.wait_for("snapshot", table=pair))["seq"] == bo_joined["seq"]
    start = {"type": "start", "table": table, "token": token, "cmd": "s-1"}
    started = await ada.request(start)
    assert started["type"] == "started"
    assert (await ada.request(start))["seq"] == started["seq"]
    refused = await ada.request({"type": "start", "table": table, "token": token})
    assert refused["type"] == "error" and refused["code"] == "already_started"


# -- resume ------------------------------------------------------------------------------------------------------


async def drive_until_blocked(players: list[Player], quiet: float = 0.3) -> None:
    """Let ``players`` play until the table waits for someone else (no frame for ``quiet`` seconds)."""
    while True:
        try:
            await asyncio.wait_for(asyncio.gather(*(p.step(quiet) for p in players)), quiet * 2)
        except TimeoutError:
            if all(p.in_flight is None and p.decision() is None for p in players):
                return
        if any(p.track.game_over for p in players):
            return


async def test_resume_gets_every_update_once(net: Net) -> None:
    table, (p0, p1) = await net.seat_table("mansion", 2)
    start_seq = p1.track.last
    await asyncio.wait_for(asyncio.gather(p0.play(until=start_seq + 6), p1.play(until=start_seq + 6)), 10)
    while p1.in_flight is not None:
        await p1.step()
    old = p1.client
    old.abort()
    handled = old.tables[table].last
    await drive_until_blocked([p0])  # the table goes on without seat 1 until it needs it

    new = await net.client("seat1-again")
    resume_ref = "back"
    track = new.track(table)
    track.seat, track.last, track.synced, track.catching_up = 1, handled, True, True
    await new.send({"type": "resume", "table": table, "token": p1.token, "last_seq": handled, "ref": resume_ref})
    caught_up = []
    while (msg := await new.recv())["type"] == "events":
        caught_up.append(msg)
    assert msg["type"] == "snapshot" and msg["ref"] == resume_ref, msg
    assert [m["seq"] for m in caught_up] == list(range(handled + 1, msg["seq"] + 1))
    assert msg["seq"] == p0.track.last

    p1.client = new
    await play_all([p0, p1])
    applied = old.tables[table].applied + new.tables[table].applied
    assert applied == list(range(applied[0], p1.track.game_over["seq"] + 1))
    # A resume without last_seq is one from 0: every update.
    fresh = await net.client("seat1-from-scratch")
    fresh.track(table).seat, fresh.track(table).synced, fresh.track(table).catching_up = 1, True, True
    snapshot = await fresh.request({"type": "resume", "table": table, "token": p1.token})
    assert snapshot["type"] == "snapshot" and fresh.tables[table].applied == list(range(1, snapshot["seq"] + 1))


async def test_resume_in_hello_and_retry_in_flight_act(net: Net) -> None:
    table, players = await net.seat_table("spook", 1)
    (p,) = players
    await p.play(until=p.track.last + 3)
    while p.decision() is None:
        await p.step()
    act = p.in_flight
    assert act is not None
    handled = p.track.last
    await p.client.send(act)
    await asyncio.sleep(0.2)  # it commits, but its reply is never read:
    p.client.abort()  # as far as the client knows, the act was in flight

    new = await net.client("again", hello=False)
    track = new.track(table)
    track.seat, track.last, track.synced, track.catching_up = 0, handled, True, True
    welcome = await new.request(
        {"type": "hello", "version": 1, "table": table, "token": p.token, "last_seq": handled, "ref": "h"}
    )
    assert welcome["type"] == "welcome"
    snapshot = await new.wait_for("snapshot", table=table)
    assert snapshot["seq"] == handled + 1 and snapshot["ref"] == "h"
    assert new.tables[table].applied == [handled + 1]
    p.client = new
    # Sent again with the same cmd: answered accepted with the seq it committed as, not applied twice.
    again = await new.request(act)
    assert again["type"] == "accepted" and again["cmd"] == act["cmd"], again
    assert again["seq"] == handled + 1
    assert (await new.request(act))["seq"] == again["seq"]
    # Its action is not looked at, as long as it is one of the game's actions at all.
    other = await new.request({**act, "action": {"type": "draw"}, "seq": 0})
    assert other["type"] == "accepted" and other["seq"] == again["seq"], other
    fly = await new.request({**act, "action": {"type": "fly"}})
    assert fly["type"] == "rejected" and fly["code"] == "bad_field", fly
    assert [m for m in await new.quiet(0.2) if m["type"] == "events" and m["seq"] > handled + 1] == []
    p.in_flight = None
    await play_all([p])


# -- spectators --------------------------------------------------------------------------------------------------


async def test_spectators(net: Net) -> None:
    table, players = await net.seat_table("mansion", 2)
    await asyncio.wait_for(asyncio.gather(*(p.play(until=players[0].track.last + 5) for p in players)), 10)
    late = await net.client("late")
    snapshot = await late.watch(table)
    assert "seat" not in snapshot and "legal" not in snapshot and snapshot["status"] == "playing"
    assert snapshot["prompts"], snapshot  # prompts are public
    replay = await net.client("replay")
    snapshot0 = await replay.watch(table, last_seq=0)
    assert replay.tables[table].applied == list(range(1, snapshot0["seq"] + 1))
    assert all("legal" not in f and "view" not in f for f in replay.tables[table].frames)

    async def follow(client: RawClient) -> None:
        while client.tables[table].game_over is None:
            await client.recv(10)

    await asyncio.wait_for(asyncio.gather(follow(late), follow(replay), *(p.play() for p in players)), 10)
    for client in (late, replay):
        hidden_values_ok("mansion", client.tables[table])
        check_contiguous(client.tables[table].applied)


async def test_table_chat(net: Net) -> None:
    """ "Table chat": a seat's line reaches every follower as ``said`` (its own with its ``ref``), a spectator is
    refused ``auth``, and who watches later gets the last lines in a ``chat`` right after the snapshot; no
    ``events`` comes of it."""
    table, players = await net.seat_table("mansion", 2, start=False)
    watcher = await net.client("watcher")
    await watcher.watch(table)
    ada, bob = (p.client for p in players)
    for client in (ada, bob, watcher):
        await client.quiet(0.1)  # the seating's updates, read
    said = await ada.request({"type": "say", "table": table, "text": "good luck"})
    assert (said["type"], said["n"], said["seat"], said["name"], said["text"]) == ("said", 1, 0, "p0", "good luck")
    for client in (bob, watcher):
        heard = await client.wait_for("said", table=table)
        assert heard == {k: v for k, v in said.items() if k != "ref"}
    refused = await watcher.request({"type": "say", "table": table, "text": "me too"})
    assert (refused["type"], refused["code"]) == ("error", "auth")
    late = await net.client("late")
    await late.watch(table)
    chat = await late.expect("chat", table=table)
    assert chat["lines"] == [{k: v for k, v in said.items() if k not in ("type", "table", "ref")}]
    assert not [f for c in (ada, bob, watcher, late) for f in await c.quiet(0.2) if f["type"] == "events"]


async def test_views_with_every_update(net: Net) -> None:
    """A ``hello`` with ``views`` gets its own view with every update that holds ``prompts`` and with the last,
    decided or not (the client checks that, as frames come); the other seats get theirs only when they decide, the
    other spectators share the spectators' frames.  A seat's view goes to that seat alone: its Haunt values to
    nobody else."""
    lobby = await net.client("lobby")
    table = await lobby.create("mansion", 3)
    wanting = await net.client("viewer", views=True)
    watching = [await net.client("spectator", views=True), await net.client("plain-spectator")]
    for spectator in watching:
        await spectator.watch(table)
    players = []
    for seat in range(3):
        client = wanting if seat == 0 else await net.client(f"seat{seat}")
        joined = await client.join(table, f"p{seat}")
        players.append(Player(client, table, seat, joined["token"], random.Random(seat)))
    await players[2].client.hello(views=True)  # a second hello: for the table followed already too
    started = await players[0].client.request({"type": "start", "table": table, "token": players[0].token})
    assert started["type"] == "started", started

    async def follow(client: RawClient) -> None:
        while client.tables[table].game_over is None:
            await client.recv(10)

    await asyncio.wait_for(asyncio.gather(*(p.play() for p in players), *map(follow, watching)), 20)
    viewed = {p.seat: [f for f in p.track.frames if "view" in f] for p in players}
    assert len(viewed[0]) > len([f for f in players[0].track.frames if "legal" in f]) > 0
    assert len(viewed[1]) == len([f for f in players[1].track.frames if "legal" in f]) > 0
    assert len(viewed[2]) == len(viewed[0]) and viewed[2][-1]["status"] == "over"
    spectators = [[f for f in s.tables[table].frames if "view" in f] for s in watching]
    assert spectators[0] == spectators[1] and spectators[0][-1]["status"] == "over"  # (one frame per audience)
    for seat, frames in [*viewed.items(), (None, spectators[0])]:
        for frame in frames[:-1] if seat != 1 else frames:  # (the last reveals everything, to everyone alike)
            assert frame["view"]["seat"] == seat, frame
            assert all(h is None for s, h in enumerate(frame["view"]["haunt"]) if s != seat), frame


# -- HTTP --------------------------------------------------------------------------------------------------------

CATALOG_KEYS = {
    "mansion": {"rooms", "sections", "ghosts", "haunt", "events", "dial_max"},
    "spook": {"cards", "values", "queen", "locations", "wings", "doors"},
    "ghost-at-home": {"cards", "specials", "bulbs_to_light"},
}


async def test_http(hauntd: ServerProcess) -> None:
    for game, keys in CATALOG_KEYS.items():
        reply = http_get(f"{hauntd.http}/games/{game}.json")
        assert reply.status == 200, reply
        assert reply.headers["content-type"].startswith("application/json")
        assert reply.headers["cache-control"] == "no-cache"
        catalog = reply.json()
        assert set(catalog) == keys, (game, set(catalog))
        again = http_get(f"{hauntd.http}/games/{game}.json", {"If-None-Match": reply.headers["etag"]})
        assert again.status == 304
    mansion = http_get(f"{hauntd.http}/games/mansion.json").json()
    assert len(mansion["rooms"]) == 7 and mansion["sections"] == 6 and mansion["dial_max"] == 3
    assert len(mansion["ghosts"]) == 18 and len(mansion["events"]) == 14
    assert all(set(g) == {"name", "icon", "copies", "steps"} for g in mansion["ghosts"])
    assert all(e["direction"] in ("cw", "ccw", "either") for e in mansion["events"] if e["steps"])
    assert [e["name"] for e in mansion["events"] if e["direction"] is None] == ["final_round"]  # M12: no move
    spook = http_get(f"{hauntd.http}/games/spook.json").json()
    assert len(spook["cards"]) == 47 and spook["queen"] == "QS"
    gah = http_get(f"{hauntd.http}/games/ghost-at-home.json").json()
    assert len(gah["cards"]) == 53 and gah["bulbs_to_light"] == 5
    assert all({"id", "kind", "floor", "bulbs"} <= set(c) for c in gah["cards"])

    missing = http_get(f"{hauntd.http}/games/nosuchgame.json")
    assert missing.status == 404
    assert missing.json() == {"type": "error", "code": "not_found", "message": "no such game"}

    health = http_get(f"{hauntd.http}/healthz")
    assert health.status == 200 and health.body.strip() == b"ok", health


# -- bad input ---------------------------------------------------------------------------------------------------


async def error_for(client: RawClient, frame: str | bytes, code: str) -> dict[str, Any]:
    await client.send_raw(frame)
    reply = await client.wait_for("error")
    assert reply["code"] == code, (frame, reply)
    return reply


async def test_before_hello_and_other_versions(net: Net) -> None:
    client = await net.client(hello=False)
    reply = await client.request({"type": "ping", "ref": "early"})
    assert reply["type"] == "error" and reply["code"] == "version" and reply["ref"] == "early"
    # A frame that is no valid message gets its own code, before hello as after it.
    await error_for(client, "not json", "malformed")
    await error_for(client, json.dumps({"type": "ping", "colour": "red"}), "bad_field")
    await client.hello()  # the connection is still usable

    old = await net.client(hello=False)
    reply = await old.request({"type": "hello", "version": 2, "ref": "v2"})
    assert reply["type"] == "error" and reply["code"] == "version" and reply["ref"] == "v2"
    closed = await old.closed()
    assert closed.code == 1002
    # A version that is not the integer 1 is another version, whatever else the hello holds.
    odd = await net.client(hello=False)
    reply = await odd.request({"type": "hello", "version": "1", "colour": "red", "ref": "v"})
    assert reply["type"] == "error" and reply["code"] == "version" and reply["ref"] == "v"
    assert (await odd.closed()).code == 1002
    for spelled in ("1.0", "true"):  # equal to 1 in Python, yet not the integer 1
        odd = await net.client(hello=False)
        await odd.send_raw('{"type": "hello", "version": ' + spelled + ', "ref": "v"}')
        reply = await odd.wait_for("error")
        assert reply["code"] == "version" and reply["ref"] == "v", (spelled, reply)
        assert (await odd.closed()).code == 1002
    # A hello of version 1 with a bad field is a bad_field, and the connection stays open.
    bad = await net.client(hello=False)
    reply = await bad.request({"type": "hello", "version": 1, "colour": "red", "ref": "b"})
    assert reply["type"] == "error" and reply["code"] == "bad_field" and reply["ref"] == "b"
    # So is a table without a token (or a token without a table): alone, either would resume nothing.
    for half in ({"table": "sFES2VRX"}, {"token": "aYPNHt8nv-v3qS-CKJNWog"}):
        reply = await bad.request({"type": "hello", "version": 1, **half, "ref": "half"})
        assert reply["type"] == "error" and reply["code"] == "bad_field" and reply["ref"] == "half", reply
    await bad.hello()


async def test_malformed_unknown_and_bad_fields(net: Net) -> None:
    client = await net.client()
    for frame in ["not json", "[1, 2]", '"hello"', "", b'{"type": "ping"}']:
        await error_for(client, frame, "malformed")
    await error_for(client, json.dumps({"type": "dance", "ref": "u1"}), "unknown_type")
    await error_for(client, json.dumps({"ref": "u2"}), "unknown_type")
    bad = [
        {"type": "create", "game": "mansion", "seats": "2"},  # wrong type
        {"type": "create", "game": "mansion", "seats": 2, "colour": "red"},  # unknown field
        {"type": "join", "table": "abc"},  # missing field
        {"type": "join", "table": "abc", "name": "x" * 33},  # out of range
        {"type": "join", "table": "a b", "name": "x"},  # not a table id
        {"type": "create", "game": "mansion", "seats": 2, "cmd": "short"},  # not a secret
        {"type": "ping", "ref": 7},
        {"type": "ping", "ref": "r" * 65},  # no ref: longer than 64 characters, it is not echoed
    ]
    for i, msg in enumerate(bad):
        ref = f"b{i}"
        await client.send({**msg, "ref": ref} if "ref" not in msg else msg)
        reply = await client.wait_for("error")
        assert reply["code"] == "bad_field", (msg, reply)
        if isinstance(msg.get("ref", ref), str) and len(msg.get("ref", ref)) <= 64:
            assert reply.get("ref") == ref, (msg, reply)
        else:
            assert "ref" not in reply, (msg, reply)
    pong = await client.request({"type": "ping"})
    assert pong["type"] == "pong"  # none of it closed the connection


async def test_lobby_refusals(net: Net) -> None:
    client = await net.client()
    for create in [
        {"game": "chess", "seats": 2},
        {"game": "mansion", "seats": 7},
        {"game": "mansion", "seats": 1},
        {"game": "spook", "seats": 1, "options": {"nope": 1}},
        {"game": "mansion", "seats": 2, "bot_strategy": "nope", "bots": 1},
        {"game": "mansion", "seats": 2, "bots": 2},
    ]:
        reply = await client.request({"type": "create", **create})
        assert reply["type"] == "error" and reply["code"] == "bad_option", (create, reply)
    for msg in [
        {"type": "join", "table": "nosuchtable", "name": "x"},
        {"type": "watch", "table": "nosuchtable"},
        {"type": "resume", "table": "nosuchtable", "token": "t"},
    ]:
        reply = await client.request(msg)
        assert reply["type"] == "error" and reply["code"] == "not_found", (msg, reply)

    table = await client.create("mansion", 2)
    joined = await client.join(table, "Ada")
    token = joined["token"]
    elsewhere = await client.create("mansion", 2)
    reply = await client.request({"type": "start", "table": elsewhere, "token": token})
    assert reply["type"] == "error" and reply["code"] == "auth", reply  # a token holds a seat at its table only
    for msg, code in [
        ({"type": "join", "table": table, "name": "Bo", "seat": 0}, "table_full"),
        ({"type": "join", "table": table, "name": "Bo", "seat": 2}, "bad_field"),
        ({"type": "join", "table": table, "name": "\U0001f47b" * 33}, "bad_field"),  # 33 characters (code points)
        ({"type": "start", "table": table, "token": token}, "not_started"),
        ({"type": "start", "table": table, "token": "not-a-token"}, "auth"),
        ({"type": "leave", "table": table, "token": "not-a-token"}, "auth"),
        ({"type": "resume", "table": table, "token": "not-a-token"}, "auth"),
    ]:
        reply = await client.request(msg)
        assert reply["type"] == "error" and reply["code"] == code, (msg, reply)
    act = {"type": "act", "table": table, "token": token, "cmd": "c1", "action": {"type": "end_turn"}}
    reply = await client.request(act)
    assert reply["type"] == "rejected" and reply["code"] == "not_started", reply
    assert await client.quiet(0.1) == []  # the table did not change
    ghosts = await net.client("ghosts")  # 32 characters, though 64 UTF-16 units and 128 UTF-8 bytes
    assert (await ghosts.join(table, "\U0001f47b" * 32))["seat"] == 1


def illegal_action(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A mansion action of a valid shape that is not among ``legal``."""
    candidates = [{"type": "dial", "bid": 0}, {"type": "end_turn"}, {"type": "decline"}]
    candidates += [{"type": "direction", "direction": d} for d in ("cw", "ccw")]
    return next(c for c in candidates if c not in legal)


async def test_play_refusals_leave_the_table_unchanged(net: Net) -> None:
    table, players = await net.seat_table("mansion", 2)
    spectator = await net.client("spectator")
    before = await spectator.watch(table)
    prompted = {p["seat"] for p in before["prompts"]}
    mover = next(p for p in players if p.seat in prompted)
    waiting = [p for p in players if p.seat not in prompted]
    seq = before["seq"]

    def act(p: Player, cmd: str, action: dict[str, Any], **extra: Any) -> dict[str, Any]:
        msg = {"type": "act", "table": table, "token": p.token, "cmd": cmd, "action": action, **extra}
        return msg

    legal = mover.track.legal
    checks = [
        (act(mover, "x1", legal[0], seq=seq - 1), "stale"),
        (act(mover, "x2", illegal_action(legal), seq=seq), "illegal_move"),
        (act(mover, "x3", {"type": "fly"}), "bad_field"),
        (act(mover, "x4", {"type": "move", "to": "far"}), "bad_field"),
        (act(mover, "x7", {**legal[0], "why": "it looked good"}), "bad_field"),  # a field no action has
        ({**act(mover, "x5", legal[0]), "token": "not-a-token"}, "auth"),
    ]
    if waiting:
        checks.append((act(waiting[0], "x6", {"type": "end_turn"}), "not_your_turn"))
    for msg, code in checks:
        client = next((p.client for p in players if p.token == msg["token"]), mover.client)
        reply = await client.request(msg)
        assert reply["type"] == "rejected" and reply["code"] == code, (msg, reply)
        assert reply["cmd"] == msg["cmd"] and reply["table"] == table
    # Not an act at all: the frame is refused as an error.
    reply = await mover.client.request({"type": "act", "table": table, "token": mover.token, "action": legal[0]})
    assert reply["type"] == "error" and reply["code"] == "bad_field", reply
    for msg, code in [
        ({"type": "join", "table": table, "name": "late"}, "already_started"),
        ({"type": "leave", "table": table, "token": mover.token}, "already_started"),
        ({"type": "start", "table": table, "token": mover.token}, "already_started"),
        ({"type": "nudge", "table": table, "token": mover.token, "seat": mover.seat}, "illegal_move"),  # one's own
        ({"type": "nudge", "table": table, "token": mover.token, "seat": 2}, "bad_field"),  # no such seat
        *[({"type": "nudge", "table": table, "token": p.token, "seat": mover.seat}, "too_early") for p in waiting],
    ]:
        reply = await mover.client.request(msg)
        assert reply["type"] == "error" and reply["code"] == code, (msg, reply)

    # Nobody heard of any of it, and the table is as it was.
    for client in [spectator] + [p.client for p in players]:
        assert [m for m in await client.quiet(0.1) if m["type"] == "events" and m["seq"] > seq] == []
    after = await (await net.client("check")).watch(table)
    assert {k: v for k, v in after.items() if k != "ref"} == {k: v for k, v in before.items() if k != "ref"}
    # ... and the refused commands are judged afresh: a legal one with a refused cmd goes through.
    reply = await mover.client.request(act(mover, "x1", legal[0], seq=seq))
    assert reply["type"] == "accepted" and reply["seq"] == seq + 1, reply


async def test_frame_limits(net: Net) -> None:
    client = await net.client()
    limit = client.welcome["limits"]["max_frame_bytes"]
    await client.send({"type": "ping", "ref": "x" * limit})
    closed = await client.closed()
    errors = [m for m in client.received if m["type"] == "error"]
    assert [e["code"] for e in errors] == ["too_large"] and closed.code == 1009
    huge = await net.client()
    await huge.send_raw("x" * (4 * limit + 1))
    closed = await huge.closed()
    assert closed.code == 1009 and [m["type"] for m in huge.received] == ["welcome"]
    # A text frame that is not UTF-8: closed by the WebSocket layer (a client library never sends one).
    garbled = await net.client()
    garbled.ws.protocol.send_text(b'{"type": "ping", "ref": "\xff"}')
    garbled.ws.transport.writelines(garbled.ws.protocol.data_to_send())
    closed = await garbled.closed()
    assert closed.code == 1007 and [m["type"] for m in garbled.received] == ["welcome"]


async def test_rate_limit(net: Net) -> None:
    client = await net.client()
    burst = client.welcome["limits"]["burst"]
    for i in range(burst + 20):
        await client.send({"type": "ping", "ref": f"p{i}"})
    replies = []
    while len(replies) < burst + 20:
        replies.append(await client.recv())
    codes = [r.get("code") for r in replies if r["type"] == "error"]
    assert codes and set(codes) == {"rate_limited"}
    assert sum(r["type"] == "pong" for r in replies) >= burst - 1  # the hello took one


async def test_table_limit(net: Net) -> None:
    client = await net.client()
    most = client.welcome["limits"]["max_tables_per_connection"]
    for _ in range(most):
        await client.create("spook", 1)
    reply = await client.request({"type": "create", "game": "spook", "seats": 1})
    assert reply["type"] == "error" and reply["code"] == "limit", reply


# -- closing and refusals, on a server of small limits ------------------------------------------------------------


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("strict")
    args = ["--log-format", "json", "--data-dir", str(tmp / "data"), "--idle-timeout", "0.5"]
    args += ["--allowed-origin", "https://play.example.org", "--max-connections-per-ip", "2", "--limit-loopback"]
    server = ServerProcess(args, tmp / "server.log")
    server.start()
    yield server
    server.kill(signal.SIGTERM)


async def test_closing_and_refusals(strict: ServerProcess) -> None:
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as refused:
        await RawClient.open(strict.url, origin="https://evil.example.org")
    assert refused.value.response.status_code == 403
    first = await RawClient.open(strict.url, origin="https://play.example.org")
    second = await RawClient.open(strict.url)
    try:
        with pytest.raises(InvalidStatus) as refused:
            await RawClient.open(strict.url)
        assert refused.value.response.status_code == 429
        welcome = await first.hello()
        assert welcome["limits"]["idle_seconds"] == 0.5
        closed = await first.closed(3)
        assert closed.code == 4408
        assert (await second.closed(3)).code == 4408  # no hello is no message either
        # The server shutting down closes every connection with 1001.
        last = await RawClient.open(strict.url)
        await last.hello()
        assert strict.process is not None
        strict.process.send_signal(signal.SIGTERM)
        assert (await last.closed(5)).code == 1001
    finally:
        for client in (first, second):
            client.abort()


def test_the_client_agrees_with_schema_json() -> None:
    """The client's catalogue (from the document) names exactly the fields of ``protocol/schema.json``: a field
    added to the wire fails here until the document, and so this client, know it."""
    schema = json.loads((Path(__file__).parents[2] / "protocol" / "schema.json").read_text())
    defs = schema["$defs"]
    by_tag = {d["properties"]["type"]["enum"][0]: d for d in defs.values() if "type" in d.get("properties", {})}
    server_tags = {ref["$ref"].split("/")[-1] for ref in schema["server_to_client"]["anyOf"]}
    assert {defs[name]["properties"]["type"]["enum"][0] for name in server_tags} == set(SERVER_MESSAGES)

    def same(shape: Shape, definition: dict[str, Any], tagged: bool) -> None:
        required, optional = shape
        extra = {"type"} if tagged else set()
        assert set(definition["required"]) == set(required) | extra, definition["title"]
        assert set(definition["properties"]) == set(required) | set(optional) | extra, definition["title"]

    for tag, shape in SERVER_MESSAGES.items():
        same(shape, by_tag[tag], tagged=True)
    for name, shape in [
        ("GameInfo", GAME_INFO), ("Limits", LIMITS), ("TableInfo", TABLE_INFO), ("SeatInfo", SEAT_INFO),
        ("PromptInfo", PROMPT), ("ChatLine", CHAT_LINE),
    ]:  # fmt: skip
        same(shape, defs[name], tagged=False)


OPEN = {"table": "t", "game": "spook", "seats": 1, "taken": 0, "status": "lobby"}


def test_the_client_is_strict() -> None:
    """The checks themselves: they do refuse what the document does not allow."""
    for bad in [
        {"type": "welcom"},
        {"type": "pong"},
        {"type": "pong", "time": "now"},
        {"type": "pong", "time": 1.0, "ref": None},
        {"type": "pong", "time": 1.0, "extra": 1},
        {"type": "error", "code": "oops", "message": ""},
        {"type": "events", "table": "t", "seq": 1, "events": []},
        {"type": "tables", "tables": [{**OPEN, "names": ["Ada"]}]},  # an open table's seats are not named
        {"type": "tables", "tables": [], "playing": [OPEN]},  # a game in play, not started
        {"type": "tables", "tables": [], "playing": [{**OPEN, "status": "playing", "names": ["Ada"], "seq": 3}]},
    ]:
        with pytest.raises(ProtocolViolation):
            check_frame(bad)
    track = TableTrack("t", seat=0, synced=True)
    track.on_events({"type": "events", "table": "t", "seq": 1})
    with pytest.raises(ProtocolViolation):
        track.on_events({"type": "events", "table": "t", "seq": 3})
    with pytest.raises(ProtocolViolation):
        track.on_events({"type": "events", "table": "t", "seq": 1})
