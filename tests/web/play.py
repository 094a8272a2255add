"""Driving the page like a player: create a table from the lobby, seat SDK players, click offered choices."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from clients.sdk import Client
from server.launch import ServerProcess
from tests.server.players import Player

# What the page offers as a choice: board targets (SVG) and buttons, each carrying its legal action.
CHOICES = "[data-action]"
GAME_OVER = "#final-scores"
# The page's actions changed since ``acts`` (``wait_for_function(ACTS_CHANGED, arg=acts)``).  Every predicate
# waited for is a function, never an expression: Playwright evaluates an expression anew at each poll, an eval
# the page's Content-Security-Policy refuses (an error, or a test that fails only when the page is slow).
ACTS_CHANGED = "(acts) => document.body.dataset.acts !== acts"


async def seating(page: Any) -> list[list[str]]:
    """The lobby's seating, each seat as the texts it shows (number, name, badges): read from the DOM, not laid out
    (``innerText`` of a list in the middle of being drawn again runs its pieces together)."""
    items: list[list[str]] = await page.locator(".seat-list li").evaluate_all(
        "(items) => items.map((li) => [...li.childNodes].map((node) => node.textContent))"
    )
    return items


async def create_table(
    page: Any, game: str = "mansion", seats: int = 4, options: dict[str, bool | int] | None = None
) -> str:
    """Create a table from the lobby's form (``options``: the game's option fields, ticked or filled in) and
    sit down at it; returns its id."""
    await page.select_option("select[name=game]", game)
    await page.select_option("select[name=seats]", str(seats))
    for name, value in (options or {}).items():
        if isinstance(value, bool):
            await page.set_checked(f"#create-form input[name={name}]", value)
        else:
            await page.fill(f"#create-form input[name={name}]", str(value))
            await page.dispatch_event(f"#create-form input[name={name}]", "change")
    await page.click("#create")
    await page.wait_for_selector(".table-screen[data-table]")
    await page.wait_for_selector(".seat-list li:has(.badge.you)")  # the screen shows before the join's answer
    table: str = await page.get_attribute(".table-screen", "data-table")
    return table


async def seat_sdk_players(server: ServerProcess, table: str, count: int) -> list[Player]:
    """Random players over the SDK in the seats the browser does not hold, for tests that need to see every
    seat's messages or to outlive a server kill (the play-alone path with server-run bots has its own test)."""
    players = []
    for i in range(count):
        client = Client(server.url, client=f"web-test-{i}")
        await client.connect()
        held = await client.join(table, f"Spirit {i + 1}")
        players.append(Player(client, table, held.seat, random.Random(i)))
    return players


async def click_a_choice(page: Any, rng: random.Random, on_board: bool) -> str:
    """Click one offered choice at random, on the board (SVG) or a button as asked when both exist; returns
    ``"board"`` or ``"button"``."""
    kinds = await page.eval_on_selector_all(CHOICES, "els => els.map(e => e instanceof SVGElement)")
    board = [i for i, svg in enumerate(kinds) if svg]
    buttons = [i for i, svg in enumerate(kinds) if not svg]
    pool = (board if on_board else buttons) or board or buttons
    index = rng.choice(pool)
    acts = await page.get_attribute("body", "data-acts")
    await page.locator(CHOICES).nth(index).click(timeout=5000)
    await page.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
    return "board" if index in board else "button"


async def play_to_the_end(
    page: Any, seed: int, before_click: Callable[[int], Awaitable[None]] | None = None
) -> Counter[str]:
    """Click random offered choices, alternately on the board and on buttons, until the final scores show;
    returns how many clicks of each kind."""
    rng = random.Random(seed)
    clicked: Counter[str] = Counter()
    while True:
        await page.wait_for_selector(f"{GAME_OVER}, {CHOICES}", timeout=30000)
        if await page.is_visible(GAME_OVER):
            return clicked
        if before_click is not None:
            await before_click(clicked.total())
        clicked[await click_a_choice(page, rng, on_board=clicked.total() % 2 == 0)] += 1


async def play_with(
    page: Any, players: list[Player], seed: int, before_click: Callable[[int], Awaitable[None]] | None = None
) -> tuple[dict[str, Any], Counter[str]]:
    """The SDK ``players`` play while the page clicks to the end (``play_to_the_end``); returns the result the
    players received and the page's clicks."""
    tasks = [asyncio.create_task(player.run()) for player in players]
    try:
        clicked = await play_to_the_end(page, seed, before_click)
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
    finally:
        for task in tasks:
            task.cancel()  # when the page failed first: no player left waiting
    received = players[0].result
    assert received is not None
    result: dict[str, Any] = received.result
    return result, clicked


async def assert_final_scores(page: Any, result: dict[str, Any]) -> None:
    """The final scores shown are the result's: every seat's score, the winners marked, the seed, and the seats in
    the order and places ``places`` gives."""
    assert await shown_scores(page) == dict(enumerate(result["scores"]))
    assert await shown_winners(page) == sorted(result["winners"])
    assert result["seed"] in await page.inner_text(GAME_OVER)
    rows = page.locator(f"{GAME_OVER} tbody tr")
    shown = [
        (int(await rows.nth(i).get_attribute("data-seat")), int(await rows.nth(i).locator("td").first.inner_text()))
        for i in range(await rows.count())
    ]
    assert shown == places(result)


def places(result: dict[str, Any]) -> list[tuple[int, int]]:
    """(seat, place) in the order of the final scores: the winners first, then by score, then (M22) the lower
    Haunt total, which only Call of the Spirits' reveal has; seats equal on all three share a place."""
    scores, winners = result["scores"], result["winners"]
    totals = (result.get("reveal") or {}).get("haunt_totals") or [0] * len(scores)

    def key(seat: int) -> tuple[bool, int, int]:
        return seat not in winners, -scores[seat], totals[seat]

    order = sorted(range(len(scores)), key=lambda seat: (key(seat), seat))
    placed: list[tuple[int, int]] = []
    for i, seat in enumerate(order):
        placed.append((seat, placed[-1][1] if i and key(order[i - 1]) == key(seat) else i + 1))
    return placed


async def shown_scores(page: Any) -> dict[int, int]:
    rows = page.locator(f"{GAME_OVER} tbody tr")
    return {
        int(await rows.nth(i).get_attribute("data-seat")): int(await rows.nth(i).get_attribute("data-score"))
        for i in range(await rows.count())
    }


async def shown_winners(page: Any) -> list[int]:
    rows = page.locator(f"{GAME_OVER} tbody tr.winner")
    return sorted([int(await rows.nth(i).get_attribute("data-seat")) for i in range(await rows.count())])


async def exported(page: Any, module: str, *names: str) -> list[Any]:
    """Named exports of one of the page's ES modules (``module``: its path under ``/static/``)."""
    script = "async ([path, names]) => { const m = await import(path); return names.map((name) => m[name]); }"
    values: list[Any] = await page.evaluate(script, [f"/static/{module}", list(names)])
    return values


# A keyboard player's turn: the seat's "playing" badge, the control with the focus, whether it shows that it has it
MY_TURN = ".seat-row.me .seat-facts .badge"
FOCUS = """() => {
    const e = document.activeElement;
    const style = getComputedStyle(e);
    return {
        action: 'action' in e.dataset && !e.closest('#choices'),
        pick: e.getAttribute('role') === 'button' && !('action' in e.dataset) && e.closest('.board, #hand') !== null,
        label: e.getAttribute('aria-label') || e.textContent.trim(),
        outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
    };
}"""


async def keyboard_turn(page: Any, ended: str, presses: int = 400) -> list[str]:
    """Play the seat's next whole turn with Tab and Enter or Space only (alternately), taking the first choice or pick
    on the board or in the hand that Tab reaches (not the list of every choice, which any page has), each showing
    the focus; returns the labels of what was pressed.  A pick (a pawn, a card to aim) is taken once a turn.  The
    turn is over when the log gains a line matching ``ended`` (a Playwright text selector): a bot's whole turn may
    pass between two looks at the seat's turn badge, which the page draws once a frame."""
    pressed: list[str] = []
    picked: set[str] = set()
    ends = page.locator(f"#log li >> text={ended}")
    before = await ends.count()
    started = False  # the other seats' turns first: what they ask of this seat (a cat to cancel a ghost) as well
    for _ in range(presses):
        await page.wait_for_selector(f"{MY_TURN}, {CHOICES}, {GAME_OVER}", state="attached", timeout=15000)
        mine = await page.locator(MY_TURN).count() > 0
        if (started and not mine) or await ends.count() > before or await page.locator(GAME_OVER).count():
            return pressed
        started = started or mine
        await page.keyboard.press("Tab")
        focus = await page.evaluate(FOCUS)
        if not (focus["action"] or (focus["pick"] and focus["label"] not in picked)):
            continue
        assert focus["outline"], f"no visible focus on {focus['label']!r}"
        if focus["pick"]:
            picked.add(focus["label"])
        acts = await page.get_attribute("body", "data-acts")
        await page.keyboard.press("Enter" if len(pressed) % 2 == 0 else "Space")
        pressed.append(focus["label"])
        if focus["action"]:
            await page.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
        else:
            await page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    raise AssertionError(f"the turn did not end with the keyboard: {pressed}")
