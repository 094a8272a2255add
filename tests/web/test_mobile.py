"""A person on a phone: whole games of each game played by tapping only (no mouse, no hover, no keyboard) on a
touch screen held upright (360×740) and sideways (740×360), the layout checked at every step: nothing wider than
the screen, every control a finger's target (WCAG 2.5.8: 24 × 24 CSS px) that scrolling can reach, no words too
small to read."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from clients.sdk import Client
from server.http import response
from server.launch import ServerProcess
from tests.waiting import until
from tests.web.conftest import screenshot, touch_tab
from tests.web.play import ACTS_CHANGED, CHOICES, GAME_OVER, exported
from tests.web.test_proxy import _get

PORTRAIT = {"width": 360, "height": 740}
LANDSCAPE = {"width": 740, "height": 360}
NEXT_FRAME = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# Each offered choice: [its action's type, whether it is in the list of every choice (rather than on the board, in
# the hand, in a panel)]
OFFERED = "els => els.map(e => [JSON.parse(e.dataset.action).type, e.closest('#choices') !== null])"
BOARD_TARGETS = "svg.mansion-board [data-action]"
PICKS = "svg.gah-board .piece:is(.pickable, .picked), #hand .gcard-chip:is(.pickable, .picked)"

# What on the page breaks a phone's rules, as [rule, what, detail] (the page shown, every control a finger can reach)
AUDIT = """() => {
    const out = [];
    const doc = document.documentElement;
    const tag = (e) => e.outerHTML.slice(0, 100);
    if (doc.scrollWidth > doc.clientWidth) out.push(['page scrolls sideways', 'html', doc.scrollWidth]);
    const shown = (e) => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0
        && getComputedStyle(e).visibility !== 'hidden'; };
    const controls = 'button, select, input, textarea, summary, a[href], [data-action], [role=button]';
    for (const e of document.querySelectorAll(controls)) {
        if (!shown(e)) continue;
        let b = e.getBoundingClientRect();
        const label = e.closest('label');
        if (e.matches('input[type=checkbox], input[type=radio]') && label) b = label.getBoundingClientRect();
        if (b.width < 24 || b.height < 24) out.push(['target under 24 px', tag(e), [b.width, b.height]]);
        // nothing lies over it (where it is on the screen now)
        const [x, y] = [b.left + b.width / 2, b.top + b.height / 2];
        const hit = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight ? document.elementFromPoint(x, y) : null;
        if (hit && !e.contains(hit) && !(label && label.contains(hit)) && !hit.closest('.tip'))
            out.push(['covered', tag(e), tag(hit)]);
        // reachable: inside each scrolling box it sits in, the outermost of them inside the page
        let outer = b;
        for (let box = e.parentElement; box && box !== doc; box = box.parentElement) {
            const style = getComputedStyle(box);
            if (!/(auto|scroll)/.test(style.overflowX + style.overflowY)) continue;
            const r = box.getBoundingClientRect();
            const left = b.left - r.left + box.scrollLeft, top = b.top - r.top + box.scrollTop;
            if (left < -1 || top < -1 || left + b.width > box.scrollWidth + 1 || top + b.height > box.scrollHeight + 1)
                out.push(['out of its scrolling box', tag(e), [left, top, box.scrollWidth, box.scrollHeight]]);
            outer = r;
        }
        const left = outer.left + scrollX, top = outer.top + scrollY;
        const [right, bottom] = [left + outer.width, top + outer.height];
        if (left < -1 || top < -1 || right > doc.clientWidth + 1 || bottom > doc.scrollHeight + 1)
            out.push(['off the page', tag(e), [left, top]]);
    }
    // words: HTML text at least 12 px; a board's words at least 10 px as drawn on the screen (the size a phone's
    // board allows: test_usability's), but the marks of a named picture or target (a card's glyph and corner: its
    // name is told)
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const small = new Map();
    const NAMED = 'svg :is([role=img], [role=button])[aria-label]';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const e = node.parentElement;
        if (!node.textContent.trim() || !e || e.closest('title, noscript, option, script, style')) continue;
        if (!shown(e)) continue;
        let [size, least] = [parseFloat(getComputedStyle(e).fontSize), 12];
        if (e instanceof SVGElement) {
            if (e.closest(NAMED) || e.getComputedTextLength() === 0) continue;
            const m = e.getScreenCTM();
            [size, least] = [size * Math.hypot(m.a, m.b), 10];
        }
        const words = [Math.round(size * 10) / 10, node.textContent.trim().slice(0, 30)];
        if (size < least - 0.05) small.set(e.className?.baseVal ?? e.className, words);
    }
    for (const [cls, [size, text]] of small) out.push(['words too small', cls, [size, text]]);
    return out;
}"""


@pytest.fixture(params=[PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
async def mobile(request: Any, page: Any) -> AsyncIterator[Any]:
    """A phone's tab (touch, no mouse, a 3× screen) upright or sideways, next to ``page`` on the same server; its
    errors fail the test too."""
    async with touch_tab(page, request.param, 3) as tab:
        yield tab


async def audit(page: Any) -> list[Any]:
    found: list[Any] = await page.evaluate(AUDIT)
    return found


async def create_by_tapping(page: Any, game: str, seats: int) -> None:
    """A table with bots in the other seats, made from the lobby by tapping (a select is a phone's own picker)."""
    assert not await audit(page)
    await page.select_option("select[name=game]", game)
    await page.select_option("select[name=seats]", str(seats))
    await page.locator("#create-form label.check", has=page.locator("input[name=bots]")).tap()
    assert await page.is_checked("#create-form input[name=bots]")
    await page.tap("#create")
    await page.wait_for_selector("#start:not([disabled])")
    assert not await audit(page)
    await page.tap("#start")


async def tap_to_the_end(page: Any, seed: int) -> tuple[Counter[str], list[Any]]:
    """Tap offered choices until the final scores show: a duel first when one is offered (its dial is then tapped
    too), else one on the board or in a panel (Ghost at Home: a card or piece picked first at times), the list of
    every choice last; the page audited every few taps.  Returns the taps by action type and what the audit found."""
    rng = random.Random(seed)
    tapped: Counter[str] = Counter()
    found: list[Any] = []
    while True:
        await page.wait_for_selector(f"{GAME_OVER}, {CHOICES}", timeout=30000)
        if await page.is_visible(GAME_OVER):
            return tapped, found
        if tapped.total() % 4 == 0:
            found += await audit(page)
        picks = page.locator(PICKS)
        if await picks.count() and rng.random() < 0.5:
            await picks.nth(rng.randrange(await picks.count())).tap(timeout=5000)
            await page.evaluate(NEXT_FRAME)  # a local pick: nothing sent, the page drawn again
        offered = await page.eval_on_selector_all(CHOICES, OFFERED)
        if not offered:
            continue
        duels = [i for i, (kind, _) in enumerate(offered) if kind == "duel"]
        own = [i for i, (_, listed) in enumerate(offered) if not listed]
        index = rng.choice(duels or own or list(range(len(offered))))
        acts = await page.get_attribute("body", "data-acts")
        await page.locator(CHOICES).nth(index).tap(timeout=5000)
        await page.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
        tapped[offered[index][0]] += 1


async def tap_until(page: Any, wanted: Any, taps: int = 20) -> None:
    """Tap the last of the list of every choice (ending a turn soonest) until ``wanted`` (a locator) is there."""
    for _ in range(taps):
        await page.wait_for_selector(CHOICES)
        if await wanted.count():
            return
        acts = await page.get_attribute("body", "data-acts")
        await page.locator(f"#choices {CHOICES}").last.tap()
        await page.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
    raise AssertionError(f"not offered in {taps} taps")


@pytest.mark.parametrize("game", ["mansion", "spook", "ghost-at-home"])
async def test_a_whole_game_by_tapping(mobile: Any, game: str) -> None:
    """A whole game against a bot, every choice tapped: at every few taps and at the end nothing is wider than the
    screen, each control is at least 24 × 24 px and inside the page (or its scrolling box), no words are too small
    (HTML 12 px; a board's 10 px), and a duel tapped has its dial played by touch."""
    await create_by_tapping(mobile, game, 1 if game == "spook" else 2)
    tapped, found = await tap_to_the_end(mobile, 5)
    found += await audit(mobile)
    size = mobile.viewport_size
    await screenshot(mobile, f"mobile-{game}-{size['width']}x{size['height']}")
    assert not {(rule, what): detail for rule, what, detail in reversed(found)}
    if game == "mansion":  # (a duel is offered only when the deal and the bot allow: not in every game)
        assert tapped["dial"] or not tapped["duel"], tapped


class PhoneNetwork:
    """The network between a phone and the server: a relay that passes the page's files and WebSockets on.  After
    ``cut()`` the connections open then carry nothing either way and are never closed, as a mobile network or a NAT
    that forgot a sleeping phone does; new connections pass.  While ``refusing``, no new connection passes (the
    phone out of reach), each one counted in ``refused``."""

    def __init__(self, upstream: ServerProcess) -> None:
        self.upstream = upstream
        self.links: list[list[bool]] = []  # each WebSocket relayed: whether it still carries anything
        self.sockets: list[ServerConnection] = []
        self.refusing = False
        self.refused = 0

    async def drop(self) -> None:
        """Close the page's connections, as a network gone does."""
        for ws in self.sockets:
            await ws.close()

    def cut(self) -> None:
        for alive in self.links:
            alive[0] = False

    async def plain(self, ws: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if not self.refusing:
                return None
            self.refused += 1
            return response(HTTPStatus.SERVICE_UNAVAILABLE, b"out of reach\n")
        status, body, kind = await asyncio.to_thread(_get, self.upstream.http + request.path)
        return response(status, body, kind)

    async def relay(self, ws: ServerConnection) -> None:
        alive = [True]
        self.links.append(alive)
        self.sockets.append(ws)
        async with connect(self.upstream.url) as up:

            async def pump(source: Any, sink: Any) -> None:
                with contextlib.suppress(ConnectionClosed):
                    async for message in source:
                        if alive[0]:
                            await sink.send(message)

            tasks = [asyncio.create_task(pump(ws, up)), asyncio.create_task(pump(up, ws))]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[str]:
        """Relay while in the block; yields the page's address through the relay."""
        async with serve(self.relay, "127.0.0.1", 0, process_request=self.plain) as relayed:
            yield f"http://127.0.0.1:{relayed.sockets[0].getsockname()[1]}/"


# The phone put to sleep and woken, as the page hears it: the tab hidden then shown, or the page frozen in the
# back-forward cache then shown again
SLEEP = """() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
}"""
WAKE = {
    "visibilitychange": """() => {
        Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
    }""",
    "pageshow": "() => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))",
}


async def asleep_at_a_table(mobile: Any, address: str) -> None:
    """The phone opens the page at ``address``, sits at a mansion table against a bot, and goes to sleep."""
    await mobile.goto(address)
    await mobile.wait_for_selector("#create-form button#create")
    await create_by_tapping(mobile, "mansion", 2)
    await mobile.wait_for_selector(CHOICES)
    await mobile.evaluate(SLEEP)


@pytest.mark.parametrize("mobile", [PORTRAIT], indirect=True)
@pytest.mark.parametrize("wake", WAKE)
async def test_a_phone_woken_from_sleep_plays_on(mobile: Any, server: ServerProcess, wake: str) -> None:
    """The phone sleeps mid-game and its network drops the connection without closing it: the page, shown again,
    kept a dead socket that said "Connected" and swallowed the next tap.  Now it asks the server whether it is still
    there, reconnects when no answer comes, resumes its seat, and the next tap plays."""
    network = PhoneNetwork(server)
    async with network.serving() as address:
        await asleep_at_a_table(mobile, address)
        network.cut()
        await mobile.evaluate(WAKE[wake])
        for _ in range(100):  # the page asks (4 s), then connects anew
            if len(network.links) > 1:
                break
            await asyncio.sleep(0.1)
        assert len(network.links) == 2
        await mobile.wait_for_selector("#conn-status[data-state=online]", timeout=5000)
        lines = await mobile.locator("#log li").count()
        await mobile.locator(CHOICES).first.tap(timeout=5000)
        await mobile.wait_for_function(
            "(lines) => document.querySelectorAll('#log li').length > lines", arg=lines, timeout=5000
        )


@pytest.mark.parametrize("mobile", [PORTRAIT], indirect=True)
async def test_a_phone_woken_reconnects_at_once(mobile: Any, server: ServerProcess) -> None:
    """The connection lost while the phone sleeps out of reach, the page's retries back off (a hidden tab's timers
    run late besides): woken within reach, it waited out its backoff (4 s here, up to a minute in a hidden tab);
    now it connects at once."""
    network = PhoneNetwork(server)
    async with network.serving() as address:
        await asleep_at_a_table(mobile, address)
        network.refusing = True
        await network.drop()
        assert await until(lambda: network.refused >= 4, 8)  # the next retry 4 s later
        network.refusing = False
        await mobile.evaluate(WAKE["visibilitychange"])
        assert await until(lambda: len(network.links) == 2, 1.5), network.refused
        await mobile.wait_for_selector("#conn-status[data-state=online]", timeout=5000)
        await mobile.wait_for_selector(CHOICES, timeout=5000)


@pytest.mark.parametrize("mobile", [PORTRAIT], indirect=True)
async def test_a_tap_tells_what_a_hover_would(mobile: Any) -> None:
    """What a mouse learns by hovering (a ``title``) a finger learns by tapping: another player's count of Haunt
    cards (a card's back and "×3" say no more) and a Ghost card's name on the board (a glyph and a colour), in
    words on the screen; a tap on a choice plays it and tells nothing."""
    await create_by_tapping(mobile, "mansion", 2)
    await mobile.wait_for_selector(CHOICES)
    tip = mobile.locator(".tip")
    await mobile.locator(".seat-row:not(.me) .haunt-count").tap()
    await tip.wait_for(timeout=2000)
    assert re.fullmatch(r"\d+ Haunt cards?", await tip.inner_text())
    box = await tip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PORTRAIT["width"], box
    card = mobile.locator("svg.mansion-board .room:not([data-action]) .card:not([data-action])").first
    await tap_until(mobile, card)  # a card in a room that is no choice (a tap on a room to move to moves there)
    name = await card.get_attribute("aria-label")
    await card.tap()
    await mobile.wait_for_function("(name) => document.querySelector('.tip')?.textContent === name", arg=name)
    await screenshot(mobile, "mobile-tip")
    acts = await mobile.get_attribute("body", "data-acts")
    await mobile.locator(f"#choices {CHOICES}").first.tap()
    await mobile.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
    assert not await tip.count()


CHOICES_OFFERED = "() => [...document.querySelectorAll('[data-action]')].map((e) => e.dataset.action).sort()"


@pytest.mark.parametrize("mobile", [PORTRAIT], indirect=True)
@pytest.mark.parametrize("game", ["mansion", "spook", "ghost-at-home"])
async def test_turning_the_phone_keeps_the_game(mobile: Any, game: str) -> None:
    """The phone turned sideways mid-game and back: the same choices are offered (nothing reloaded, nothing lost),
    the layout keeps the phone's rules each way, and a tap still plays; the viewport is the device's and pinch-zoom
    is left to the player (WCAG 1.4.4)."""
    meta = await mobile.get_attribute("meta[name=viewport]", "content")
    assert "width=device-width" in meta and not re.search(r"user-scalable\s*=\s*(no|0)|maximum-scale", meta), meta
    await create_by_tapping(mobile, game, 1 if game == "spook" else 2)
    await mobile.wait_for_selector(CHOICES)
    before = await mobile.evaluate(CHOICES_OFFERED)
    for size in (LANDSCAPE, PORTRAIT, LANDSCAPE):
        await mobile.set_viewport_size(size)
        await mobile.evaluate(NEXT_FRAME)
        assert await mobile.evaluate(CHOICES_OFFERED) == before
        board = await mobile.locator(".board svg").bounding_box()
        square = game == "mansion" and size == LANDSCAPE  # as tall as the screen, beside the decision
        assert board["width"] >= (size["height"] if square else size["width"]) - 20, (size, board)
        assert not await audit(mobile), size
    await screenshot(mobile, f"mobile-{game}-turned")
    acts = await mobile.get_attribute("body", "data-acts")
    await mobile.locator(CHOICES).first.tap()
    await mobile.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)


@pytest.mark.parametrize("mobile", [PORTRAIT], indirect=True)
async def test_a_tab_the_phone_discarded_is_back_at_its_seat(mobile: Any) -> None:
    """A phone short of memory discards a tab asleep in the background and loads it anew when it comes back (as it
    does after the player left for another page and came back): the page is back at its table, in its seat, with the
    same choices, and a tap plays."""
    await create_by_tapping(mobile, "mansion", 2)
    await mobile.wait_for_selector(CHOICES)
    before = await mobile.evaluate(CHOICES_OFFERED)
    await mobile.reload()
    await mobile.wait_for_selector(CHOICES)
    assert await mobile.evaluate(CHOICES_OFFERED) == before
    assert await mobile.locator(".seat-row.me .badge.you").count() == 1
    acts = await mobile.get_attribute("body", "data-acts")
    await mobile.locator(CHOICES).first.tap()
    await mobile.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)


@pytest.mark.parametrize("mobile", [PORTRAIT, LANDSCAPE], indirect=True)
async def test_the_lobby_by_touch(mobile: Any, server: ServerProcess) -> None:
    """The lobby on a phone with tables in its lists (someone's open table, a game of the player's own under way)
    keeps the phone's rules, in English and in French (the longer words), and its buttons take the player back
    to their game and into another's by tapping."""
    async with Client(server.url, client="web-test-host") as host:
        other = await host.create("spook", 2)
        await create_by_tapping(mobile, "mansion", 2)
        await mobile.wait_for_selector(CHOICES)
        await mobile.tap(".board-head button.link")  # back to the lobby
        await mobile.wait_for_selector(f"#open-tables tr[data-table='{other}'], #my-tables tr")
        await mobile.wait_for_selector(f"#open-tables tr[data-table='{other}']")
        for lang in ("fr", "en"):
            await mobile.select_option("#lang", lang)
            await mobile.evaluate(NEXT_FRAME)
            assert not await audit(mobile), lang
        await screenshot(mobile, f"mobile-lobby-{mobile.viewport_size['width']}")
        await mobile.tap("#my-tables button.primary")  # return to the table
        await mobile.wait_for_selector(CHOICES)
        await mobile.tap(".board-head button.link")
        await mobile.tap(f"#open-tables tr[data-table='{other}'] button.primary")  # join
        await mobile.wait_for_selector(f".table-screen[data-table='{other}'] .seat-list")


@pytest.mark.parametrize("mobile", [LANDSCAPE], indirect=True)
async def test_a_phone_held_sideways_sees_the_mansion_and_its_decision(mobile: Any) -> None:
    """Call of the Spirits on a phone held sideways: the board took the screen's whole width, 740 px tall on a
    screen 360 px tall, the decision under it out of sight.  Now the board is as tall as the screen, the decision
    beside it: both in view at once, a tap on the board plays."""
    await create_by_tapping(mobile, "mansion", 2)
    await tap_until(mobile, mobile.locator(BOARD_TARGETS))
    await mobile.locator(".board").scroll_into_view_if_needed()
    board = await mobile.locator(".board svg").bounding_box()
    prompt = await mobile.locator("#prompt").bounding_box()
    assert board["height"] <= LANDSCAPE["height"], board
    assert prompt["y"] >= 0 and prompt["y"] + 60 <= LANDSCAPE["height"], prompt  # its head and first line
    assert prompt["x"] >= board["x"] + board["width"], (board, prompt)
    assert not await audit(mobile)
    await screenshot(mobile, "mobile-mansion-sideways")
    acts = await mobile.get_attribute("body", "data-acts")
    await mobile.locator(BOARD_TARGETS).first.tap()
    await mobile.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)


async def test_the_page_never_asks_for_a_click(page: Any) -> None:
    """A phone has no mouse: the help under a decision said "Click a highlighted room"; every string of the page, in
    each language, asks for a choice in words that fit a finger and a mouse alike."""
    for lang in ("en", "fr"):
        (words,) = await exported(page, f"i18n/{lang}.js", "default")
        clicks = {key: text for key, text in words.items() if re.search(r"\bclick|cliqu", text, re.IGNORECASE)}
        assert not clicks, (lang, clicks)
