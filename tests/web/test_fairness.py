"""The page's part in rule M30 against a server that cheats: the frames between the page and a real server pass
through the browser's own WebSocket routing, which refuses or rewrites some of them as a dishonest server would."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio as aioredis

from clients.sdk import Client
from engine.fairness import commitment, derive_seed
from protocol.messages import GameOver
from server.launch import ServerProcess
from server.store import NO_PREFIX, Store, TableMeta, decode_meta, encode
from server.verify import verify_table
from tests.server.players import close, play, seat_players
from tests.web.play import GAME_OVER, play_to_the_end

FORGED = "f" * 64  # the secret's commitment a server would show for a secret picked after seeing the nonce


async def test_the_page_notes_the_secret_commitment_before_it_sends_its_nonce(page: Any, server: ServerProcess) -> None:
    """A server that sees a nonce before it shows its secret's commitment can pick the secret after it, and so
    the seed.  The page watches the table before it joins: its nonce leaves once the commitment has come, and the
    end is checked against that one, whatever the server shows later, reloads included.  A join refused and tried
    again brings the same nonce, so a server that refuses the joins whose nonce it dislikes gains no choice."""
    frames: list[tuple[str, dict[str, Any]]] = []  # ("out", to the server) or ("in", to the page), in order

    def cheat(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            msg = json.loads(message)
            frames.append(("out", msg))
            if msg["type"] == "join" and sum(m["type"] == "join" for _, m in frames) == 1:
                ws.send(json.dumps({"type": "error", "code": "busy", "message": "try again", "ref": msg["ref"]}))
            else:
                server_side.send(message)

        def to_page(message: str | bytes) -> None:
            msg = json.loads(message)
            frames.append(("in", msg))
            if msg.get("secret_commitment") and any(m["type"] == "join" for _, m in frames):
                msg["secret_commitment"] = FORGED
            ws.send(json.dumps(msg))

        ws.on_message(to_server)
        server_side.on_message(to_page)

    await page.route_web_socket(re.compile(".*"), cheat)
    await page.reload()
    await page.wait_for_selector("#create-form button#create")
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("mansion", 2, bots=1, private=True)
        lobby = await creator.watch(table)
    assert lobby.secret_commitment
    await page.fill(".by-id input[name=table]", table)
    await page.click(".by-id button.primary")  # refused ``busy``: back to the lobby, which says so
    await page.wait_for_selector("#create-form button#create")
    await page.fill(".by-id input[name=table]", table)
    await page.click(".by-id button.primary")
    await page.wait_for_selector(f".seating .commitment:has-text('{lobby.secret_commitment}')", timeout=5000)
    joins = [(i, m) for i, (way, m) in enumerate(frames) if way == "out" and m["type"] == "join"]
    assert len(joins) == 2 and joins[0][1]["nonce"] == joins[1][1]["nonce"]
    shown_before = [m.get("secret_commitment") for way, m in frames[: joins[0][0]] if way == "in"]
    assert lobby.secret_commitment in shown_before
    await page.reload()  # the server now shows the forged commitment only: the page keeps the one it noted
    await page.wait_for_selector(f".seating .commitment:has-text('{lobby.secret_commitment}')", timeout=5000)
    await page.click("#start:not([disabled])")
    await play_to_the_end(page, 5)
    assert await page.locator(f"{GAME_OVER} [data-check]").evaluate_all("ps => ps.map(p => p.dataset.check)") == [
        "ok",
        "ok",
    ]
    nonce = joins[0][1]["nonce"]
    assert f"Your nonce {nonce} is among them" in await page.inner_text(GAME_OVER)


@pytest.mark.parametrize("server_args", [["--rate", "1000", "--burst", "1000"]])  # random players answer at once
@pytest.mark.parametrize("game", ["mansion", "spook", "ghost-at-home"])
async def test_the_page_and_verify_agree(page: Any, server: ServerProcess, store_url: str, game: str) -> None:
    """The page's end checks (``clients/web/fairness.js``, in the browser) and ``hauntd verify`` judge the seed's
    inputs of a game played to its end alike: both pass them as played, both fail each doctored one."""
    table, players = await seat_players([server.url], seats=3, seed=6, game=game)
    try:
        await play(players)
    finally:
        await close(players)
    sync = redis.Redis.from_url(store_url)
    meta = decode_meta(sync.hget(NO_PREFIX.record(table), "meta"))
    assert meta.secret is not None
    other = secrets.token_hex(32)
    doctored = {
        "as played": {},
        "a nonce changed": {"nonces": ["0", *meta.nonces[1:]]},
        "a nonce more": {"nonces": [*meta.nonces, ""]},
        "a bot's seat with a nonce": {"bots": {0: "random"}},
        "another secret": {"secret": other},
        "another secret, its commitment made anew": {
            "secret": other,
            "secret_commitment": commitment(bytes.fromhex(other), table),
        },
        "another seed committed to": {"commitment": "0" * 64},
        "a stray character after the secret": {"secret": meta.secret + "0"},
        "the secret spaced out": {"secret": " ".join(re.findall("..", meta.secret))},
    }
    check = "async (t) => (await import('/static/fairness.js')).fairnessChecks(t)"
    client = aioredis.Redis.from_url(store_url)
    try:
        for name, change in doctored.items():
            shown = msgspec.structs.replace(meta, **change)
            sync.hset(NO_PREFIX.record(table), "meta", encode(shown))
            verdict = await verify_table(Store(client), table)
            checks = await page.evaluate(check, as_the_page_has_it(table, shown, players[0].result))
            assert len(checks) == 3 and all(checks.values()) == verdict.ok == (name == "as played"), (name, checks)
    finally:
        sync.hset(NO_PREFIX.record(table), "meta", encode(meta))
        sync.close()
        await client.aclose()


def as_the_page_has_it(table: str, meta: TableMeta, over: GameOver | None) -> dict[str, Any]:
    """The page's ``TableState`` fields its end checks read, as the table's snapshots and ``game_over`` give them."""
    assert over is not None
    return {
        "id": table,
        "result": {"seed": over.result["seed"]},
        "commitment": meta.commitment,
        "secretCommitment": meta.secret_commitment,
        "secret": meta.secret,
        "nonces": meta.nonces,
        "seats": msgspec.to_builtins(meta.seat_infos()),
    }


async def test_a_secret_revealed_without_the_nonces_fails_the_check(page: Any) -> None:
    """A ``game_over`` that reveals the secret but leaves the nonces out (a server hiding what it derived the seed
    from) made the page's check throw, and no line said the derivation failed; it fails it now."""
    secret, table = bytes([0x11] * 32), "t4ble"
    seed = derive_seed(secret, [""])
    snapshot = {"type": "snapshot", "seq": 3, "status": "playing", "seats": [{"seat": 0}]}
    script = """async ([snapshot, over]) => {
        const { TableState } = await import('/static/table_state.js');
        const { fairnessChecks } = await import('/static/fairness.js');
        const table = new TableState('t4ble');
        table.update(snapshot);
        table.update(over);
        return fairnessChecks(table);
    }"""
    snapshot |= {"commitment": commitment(seed, table), "secret_commitment": commitment(secret, table)}
    over = {"type": "game_over", "seq": 9, "result": {"seed": seed.hex()}, "secret": secret.hex()}
    over |= {"commitment": snapshot["commitment"]}
    assert await page.evaluate(script, [snapshot, over]) == {"seed": True, "secret": True, "derived": False}


async def test_a_bot_seat_unmarked_at_the_end_still_adds_no_nonce(page: Any) -> None:
    """The page judged the bots' nonces by the latest seating: a server that showed its bot as such until the end
    and then not, with a nonce of its own picking for that seat, passed the check.  The seats are judged as first
    shown, like the commitments."""
    secret, table, nonces = bytes([0x11] * 32), "t4ble", ["55", "9f" * 16]
    seed = derive_seed(secret, nonces)
    shown = {"commitment": commitment(seed, table), "secret_commitment": commitment(secret, table)}
    lobby = {"type": "snapshot", "seq": 1, "status": "lobby", "seats": [{"seat": 0, "bot": True}, {"seat": 1}]}
    later = {"type": "snapshot", "seq": 3, "status": "playing", "seats": [{"seat": 0}, {"seat": 1}], **shown}
    over = {"type": "game_over", "seq": 9, "result": {"seed": seed.hex()}, "secret": secret.hex(), "nonces": nonces}
    script = """async (updates) => {
        const { TableState } = await import('/static/table_state.js');
        const { fairnessChecks } = await import('/static/fairness.js');
        const table = new TableState('t4ble');
        for (const update of updates) table.update(update);
        return fairnessChecks(table);
    }"""
    lobby |= {"secret_commitment": shown["secret_commitment"]}
    assert await page.evaluate(script, [lobby, later, over | {"commitment": shown["commitment"]}]) == {
        "seed": True,
        "secret": True,
        "derived": False,
    }
