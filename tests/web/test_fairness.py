"""The page's part in rule M30 against a server that cheats: the frames between the page and a real server pass
through the browser's own WebSocket routing, which refuses or rewrites some of them as a dishonest server would."""

from __future__ import annotations

import json
import re
from typing import Any

from clients.sdk import Client
from server.launch import ServerProcess
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
