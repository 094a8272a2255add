"""What a player trips over, found by playing the page as a person would: a mistyped table id, a dropped
connection, the end of a game, the keyboard, a phone, and SVG labels that outgrow their boxes."""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import signal
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from clients.sdk import Client, ServerError
from engine.contract import Prompt
from engine.fairness import commitment, derive_seed
from engine.mansion import GAME as MANSION
from engine.mansion.cards import KINDS as MANSION_KINDS
from server.launch import ServerProcess
from tests.web.conftest import _unexpected, screenshot, touch_tab
from tests.web.play import (
    ACTS_CHANGED,
    CHOICES,
    GAME_OVER,
    click_a_choice,
    create_table,
    exported,
    play_to_the_end,
    seat_sdk_players,
    seating,
)

FOCUSED = "() => { const e = document.activeElement; return e === document.body ? null : e.outerHTML.slice(0, 120); }"
BOARD_CHOICES = f"svg.mansion-board {CHOICES}"
# Ghost at Home: a piece on the board (first in the page) or a card in the hand to pick before a target on the board
PICKS = "svg.gah-board .piece:is(.pickable, .picked), #hand .gcard-chip:is(.pickable, .picked)"  # in a fixed order
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"  # the page's sideways scroll
# Each game's board on a phone: its places to tap (as large as the drawing makes them) and the words a player reads
# on it (names, numbers, counts; not the cards' corner marks)
PHONE_BOARDS = {
    "mansion": (
        "svg.mansion-board :is(.room, .section, .seance)[data-action]",
        ".room-name, .room-empty, .seance-name, .section-letter, .rotate-title, .rotate-button text, .decks, "
        ".pawn text",
    ),
    "spook": (
        "svg.spook-board .place[data-action]",
        ".room-number, .room-caption, .place-name, .wing-label, .info-line, .queen-value, .pile-title, .pile-count",
    ),
    "ghost-at-home": (
        "svg.gah-board :is(.space, .floor)[data-action]",
        ".house-name, .floor-number, .house-facts, .picked-count, .strip-title, .strip-count",
    ),
}
# The smallest of ``words`` on ``board`` as seen: [its font size and its box's height in CSS px on the screen, its text]
SMALLEST_WORDS = """([board, words]) => {
    const svg = document.querySelector(board);
    return [...svg.querySelectorAll(words)].filter((t) => t.getComputedTextLength() > 0).map((t) => {
        const m = t.getScreenCTM();
        const scale = Math.hypot(m.a, m.b); // CSS px a unit, turned or not
        return [parseFloat(getComputedStyle(t).fontSize) * scale, t.getBBox().height * scale, t.textContent];
    }).sort((a, b) => a[0] - b[0])[0];
}"""
# Spook's room captions ("Ace room", "Chapel") running into the place of the room's ghost card (its top right corner,
# 54 units wide, 12 from the edge): [caption, its right end, where the card begins], in the board's units
CAPTIONS_UNDER_A_CARD = """() => [...document.querySelectorAll('svg.spook-board .room-caption')].map((t) => {
    const room = t.parentNode.querySelector('.place-bg').getBBox(), b = t.getBBox();
    return [t.textContent, b.x + b.width, room.x + room.width - 54 - 12];
}).filter(([, end, card]) => end > card)"""
# Every choice on a board: [its box on the screen as [left, top, right, bottom] in CSS px, its action]
BOARD_TARGETS = """(board) => [...document.querySelectorAll(`${board} [data-action]`)].map((e) => {
    const b = e.getBoundingClientRect();
    return [[b.left, b.top, b.right, b.bottom], e.dataset.action];
})"""
NEXT_FRAME = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# Elements, but the drawing inside a board's own box, that stick out of the screen at the left or the right
STICKING_OUT = """() => [...document.querySelectorAll('body *')].filter((e) => !e.closest('.board svg')).filter((e) => {
    const b = e.getBoundingClientRect();
    return b.width && (b.left < -0.5 || b.right > document.documentElement.clientWidth + 0.5);
}).map((e) => e.outerHTML.slice(0, 80))"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Whether two boxes ([left, top, right, bottom]) share more than an edge."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


class GameOver(AssertionError):
    """The game ended before the choice looked for was offered."""


async def until_a_choice_on_the_board(page: Any, targets: str = BOARD_CHOICES, tries: int = 40) -> None:
    """Click the page's choices (a round's first decision may be the Hitchhiking Ghosts' direction, a button; a
    Ghost at Home card is picked in the hand before its place on the board) until ``targets``, choices on the board
    (by default the Call of the Spirits board's), are offered, in at most ``tries`` clicks."""
    tried = 0  # cards and pieces picked at this decision, in the page's order: each shows its own places
    for _ in range(tries):
        await page.wait_for_selector(f"{CHOICES}, {GAME_OVER}")
        if await page.locator(GAME_OVER).count():
            raise GameOver
        if await page.locator(targets).count():
            return
        picks = page.locator(PICKS)
        if tried < await picks.count():  # (a hand of specials aims at houses and pieces: try the next card)
            await picks.nth(tried).click()
            tried += 1
            await page.evaluate(NEXT_FRAME)  # a local pick: nothing sent, the page drawn again
            continue
        tried = 0
        acts = await page.get_attribute("body", "data-acts")
        await page.locator(CHOICES).first.click()
        await page.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
    raise AssertionError("no choice on the board")


@pytest.fixture
async def phone(page: Any) -> AsyncIterator[Any]:
    """A 375×667 tab (a small phone) next to ``page``, on the same server; its errors fail the test too."""
    async with touch_tab(page, {"width": 375, "height": 667}) as tab:
        yield tab


async def test_an_unknown_table_id_leads_back_to_the_lobby_with_words(page: Any) -> None:
    """Watching or joining a table that does not exist (a typo, a finished game) says so in the page's language,
    in the lobby, instead of waiting forever on "Connecting…" or showing the server's English."""
    await page.select_option("#lang", "fr")
    for button in ("Regarder", "Rejoindre"):
        await page.fill(".by-id input", "nosuchtable")
        await page.click(f".by-id button:text('{button}')")
        await page.wait_for_selector("#lobby-error", timeout=5000)
        assert await page.is_visible("#create-form")
        assert await page.evaluate("location.hash") in ("", "#/")
        error = await page.inner_text("#lobby-error")
        assert "nosuchtable" in error and "introuvable" in error, error
        assert "no table" not in error and "not_found" not in error, error
        await page.reload()
        await page.wait_for_selector("#create-form button#create")
    (tables,) = await exported(page, "i18n.js", "TABLES")
    assert set(tables["en"]) == set(tables["fr"])


async def test_an_id_typed_in_survives_the_lobbys_redraws(page: Any) -> None:
    """The lobby redraws whole (a list refreshed every 5 s, a language switched): each redraw replaced the by-id box
    empty, so an id typed just before one was lost and Watch did nothing (a CI run timed out on it)."""
    await page.fill(".by-id input", "nosuchtable")
    await page.click("button:text('Refresh')")
    await page.select_option("#lang", "fr")
    assert await page.input_value(".by-id input") == "nosuchtable"
    await page.click(".by-id button:text('Regarder')")
    await page.wait_for_selector("#lobby-error:has-text('introuvable')", timeout=5000)
    assert await page.input_value(".by-id input") == "nosuchtable"  # (as a browser's own form keeps it)


async def test_a_mangled_table_link_is_said_so(page: Any) -> None:
    """A table's link whose id cannot be one (cut short, a space or a stray character on its way) opened the lobby
    without a word, the bad link left in the address bar: it says that table was not found, like a mistyped id."""
    home = page.url.split("#")[0]
    for link, shown in (("bad%20id!", "bad id!"), ("50%", "50%")):
        await page.goto("about:blank")
        await page.goto(f"{home}#/table/{link}")  # the page opened on it
        await page.wait_for_selector("#lobby-error", timeout=5000)
        assert f"No table “{shown}” was found" in await page.inner_text("#lobby-error")
        assert await page.evaluate("location.hash") == "#/"


async def test_no_choice_is_offered_while_the_connection_is_down(page: Any, server: ServerProcess) -> None:
    """While the server is gone nothing can be sent: the choices wait (clicking one only led to an English
    ``connection_lost`` that stayed after the page reconnected), and come back with the connection."""
    await page.set_checked("#create-form input[name=bots]", True)
    await create_table(page, seats=2)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector(CHOICES)
    await asyncio.to_thread(server.kill, signal.SIGKILL)
    await page.wait_for_selector("#conn-status[data-state=lost]")
    await page.wait_for_function("() => document.querySelectorAll('[data-action]').length === 0", timeout=2000)
    assert "Connection lost" in await page.inner_text("#prompt")
    await asyncio.to_thread(server.start)
    await page.wait_for_selector("#conn-status[data-state=online]", timeout=20000)
    await page.wait_for_selector(CHOICES)
    assert not await page.locator("#prompt .error").count()


async def test_the_lobby_forgets_a_lost_connection_once_it_is_back(page: Any, server: ServerProcess) -> None:
    """ "Create" while the server is gone says the connection was lost; once the page has reconnected that banner
    went on saying so, over a lobby that works again.  It goes with the connection's return."""
    await asyncio.to_thread(server.kill, signal.SIGKILL)
    await page.wait_for_selector("#conn-status[data-state=lost]")
    await page.click("#create")
    await page.wait_for_selector("#lobby-error", timeout=5000)
    assert "connection" in await page.inner_text("#lobby-error")
    await asyncio.to_thread(server.start)
    await page.wait_for_selector("#conn-status[data-state=online]", timeout=20000)
    await page.wait_for_selector("#lobby-error", state="detached", timeout=5000)


async def test_the_end_of_a_game_leaves_nobody_to_wait_for(page: Any) -> None:
    """Once the game is over nobody owes a decision: no countdown ("0 s left") nor "waiting for" from the last
    prompts while the final snapshot is on its way."""
    script = """async () => {
        const { TableState } = await import('/static/table_state.js');
        const table = new TableState('t', { seat: 0, token: 'k' });
        table.update({ type: 'snapshot', table: 't', game: 'mansion', seq: 5, status: 'playing', seats: [],
                       seat: 0, view: {}, prompts: [{ seat: 1, kind: 'turn', deadline: 1 }], legal: [] });
        table.update({ type: 'events', table: 't', seq: 6, events: [], status: 'over' });
        table.update({ type: 'game_over', table: 't', seq: 6, result: { scores: [1, 2], winners: [1], seed: 's' } });
        return [table.status, table.prompts, table.legal];
    }"""
    assert await page.evaluate(script) == ["over", [], []]


async def test_the_keyboard_keeps_its_place(page: Any) -> None:
    """The page draws itself anew on every change: a keyboard player's focus stays on the control they used, or
    in the part of the page it was in, instead of being thrown back to the top of the page."""
    await page.focus("#create-form input[name=bots]")
    await page.keyboard.press("Space")
    await page.wait_for_selector("#create-form select[name=bot_strategy]")
    assert await page.evaluate("document.activeElement.name") == "bots"
    await page.keyboard.press("Tab")  # on to the field that just appeared
    assert await page.evaluate("document.activeElement.name") == "bot_strategy"

    await create_table(page, seats=2)
    await page.click("#start:not([disabled])")
    await until_a_choice_on_the_board(page)
    await page.focus(BOARD_CHOICES)
    acts = await page.get_attribute("body", "data-acts")
    await page.keyboard.press("Enter")  # the choice is gone once sent: the board keeps the focus
    await page.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
    await page.wait_for_selector(f"{CHOICES}, {GAME_OVER}")
    on_board = await page.evaluate("document.querySelector('.board').contains(document.activeElement)")
    assert on_board, await page.evaluate(FOCUSED)

    # Ghost at Home: a card picked in the hand is no choice any more (it cannot have the focus): the hand keeps it
    await page.click(".board-head button.link")
    await create_table(page, "ghost-at-home", 2)
    await page.click("#start:not([disabled])")
    await page.focus("#hand .gcard-chip.pickable")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#hand .gcard-chip.picked")
    in_hand = await page.evaluate("document.querySelector('#hand').contains(document.activeElement)")
    assert in_hand, await page.evaluate(FOCUSED)


async def test_the_keyboard_goes_on_into_a_new_screen(page: Any) -> None:
    """Enter on "Create and sit down", then on "Start the game": the control pressed is gone with its screen, and
    the focus fell back to the top of the page (the next Tab went to the brand, the language, …).  It goes to the
    new screen's heading, from where Tab reaches the start, and then the board's choices, in a few presses."""
    await page.set_checked("#create-form input[name=bots]", True)
    await page.focus("#create")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#start:not([disabled])")
    assert await page.evaluate("document.activeElement.closest('.table-screen') !== null"), await page.evaluate(FOCUSED)
    for _ in range(2):  # the name field for a visitor is not there: past the heading, the start
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.id") == "start":
            break
    assert await page.evaluate("document.activeElement.id") == "start", await page.evaluate(FOCUSED)
    await page.keyboard.press("Enter")
    await page.wait_for_selector(f"{BOARD_CHOICES}, #prompt .buttons [data-action]")
    assert await page.evaluate("document.activeElement.closest('.board-area') !== null"), await page.evaluate(FOCUSED)
    for _ in range(3):  # past "Back to the lobby": the first choice (on the board, or the direction's button)
        await page.keyboard.press("Tab")
        if await page.evaluate("'action' in document.activeElement.dataset"):
            break
    assert await page.evaluate("'action' in document.activeElement.dataset"), await page.evaluate(FOCUSED)


async def test_every_choice_can_be_reached_and_seen_from_the_keyboard(page: Any) -> None:
    """Choices that are cards or chips (a Haunt card to discard, a collection's card to duel for) are reached
    with Tab like buttons, and a board target reached with Tab shows that it has the focus."""
    span = """async () => {
        const { h, choice } = await import('/static/dom.js');
        const el = choice(h('span', {}, '3'), { type: 'discard_haunt', value: 3 }, 'Discard 3');
        return [el.tabIndex, el.getAttribute('role')];
    }"""
    assert await page.evaluate(span) == [0, "button"]

    await page.set_checked("#create-form input[name=bots]", True)
    await create_table(page, seats=2)
    await page.click("#start:not([disabled])")
    await until_a_choice_on_the_board(page)
    for _ in range(60):
        await page.keyboard.press("Tab")
        if await page.evaluate(
            "document.activeElement instanceof SVGElement && 'action' in document.activeElement.dataset"
        ):
            break
    else:
        raise AssertionError("Tab never reached a choice on the board")
    assert await page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    await screenshot(page, "keyboard-focus")


async def test_a_screen_reader_hears_cards_and_pawns_by_name(page: Any) -> None:
    """Call of the Spirits' cards and pawns are glyphs and numbers drawn (♫, ☕ 1, a pawn's "2"): a screen reader
    read the board and the players' collections as "♫ ☕ 1 ☠ ☂", and each pawn as a bare number.  Each card, pawn,
    the Hitchhiking Ghosts and a player's count of Haunt cards is read as one picture named in words."""
    await page.set_checked("#create-form input[name=bots]", True)
    await page.fill("#player-name", "Ada")
    await create_table(page, seats=3)
    await page.click("#start:not([disabled])")
    rng = random.Random(7)
    for _ in range(12):  # a few turns: cards collected, pawns out of the Séance Room
        await page.wait_for_selector(f"{CHOICES}, {GAME_OVER}")
        if await page.locator(GAME_OVER).count():
            break
        await click_a_choice(page, rng, on_board=True)
    heard = await page.locator(".table-screen").aria_snapshot()
    glyphs = set("♫▣❦☕☠♛⚭☂✸≋✝❀♞◉♬⚔")  # the cards' (mansion.js, CARD_LOOK)
    bare = [line for line in heard.splitlines() if line.strip().startswith("- text:") and glyphs & set(line)]
    assert not bare, bare
    assert await page.get_by_role("img", name="Ada").count()  # her pawn
    assert await page.get_by_role("img", name=re.compile(r"^\d+ Haunt cards?$")).count() == 3


async def test_a_phone_sized_screen(page: Any, phone: Any) -> None:
    """At 375×667 nothing is wider than the screen: the top bar, the lobby's list of open tables, the table's
    head, the final scores."""
    overflow = OVERFLOW
    await create_table(page, "ghost-at-home", 4)  # an open table for the phone's list
    await phone.reload()
    await phone.wait_for_selector("#open-tables tr[data-table]")
    for lang in ("fr", "en"):  # French: the longer words
        await phone.select_option("#lang", lang)
        assert await phone.evaluate(overflow) <= 0, lang
    await phone.set_checked("#create-form input[name=bots]", True)
    await create_table(phone, "ghost-at-home", 2, {"max_rounds": 1})
    await phone.click("#start:not([disabled])")
    await phone.wait_for_selector(CHOICES)
    assert await phone.evaluate(overflow) <= 0
    await play_to_the_end(phone, 3)
    box = await phone.locator(f"{GAME_OVER} .scores").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    await screenshot(phone, "phone-game-over")
    assert await phone.evaluate(overflow) <= 0


@pytest.mark.parametrize("game", PHONE_BOARDS)
async def test_a_phone_plays_on_the_board(phone: Any, game: str) -> None:
    """At 375×667 the board is no thumbnail: it takes the screen's width (a wide map keeps a larger size and
    scrolls in its own box, the player's own house or pawn in view first), its words are at least 10 px on the
    screen in English and in French, the place a finger taps is at least 40 px across and the tap plays it;
    nothing sticks out of the screen."""
    targets, words = PHONE_BOARDS[game]
    board = targets.split(" ")[0]
    await phone.set_checked("#create-form input[name=bots]", True)
    await create_table(phone, game, 1 if game == "spook" else 2)
    await phone.click("#start:not([disabled])")
    await until_a_choice_on_the_board(phone, targets)
    # the player's house or pawn in view first; but a card picked whose places are all in another house (a ghost
    # dealt first in the hand) brings that house into view instead (app.js, showTargets)
    seen = phone.locator(f"{board} .mine")
    if game == "ghost-at-home" and not await phone.locator(f"{board} .mine [data-action]").count():
        seen = phone.locator(targets)
    mine = await seen.first.bounding_box()
    assert mine["x"] >= 0 and mine["x"] + mine["width"] <= 375, mine
    for lang in ("fr", "en"):
        await phone.select_option("#lang", lang)
        await phone.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
        await phone.evaluate(NEXT_FRAME)  # the page drawn again in that language
        svg = await phone.locator(board).bounding_box()
        box = await phone.locator(".board").bounding_box()
        assert svg["width"] >= 340 and box["x"] >= 0 and box["x"] + box["width"] <= 375, (svg, box)
        size, height, text = await phone.evaluate(SMALLEST_WORDS, [board, words])
        assert size >= 10 and height >= 11, (lang, size, height, text)
        assert await phone.evaluate(OVERFLOW) <= 0, lang
        assert not await phone.evaluate(STICKING_OUT), lang
        assert not await phone.evaluate(CAPTIONS_UNDER_A_CARD), lang
        await phone.locator(".board").scroll_into_view_if_needed()
        await screenshot(phone, f"phone-{game}-{lang}")
    target = phone.locator(targets).first
    await target.scroll_into_view_if_needed()
    tap = await target.bounding_box()
    assert min(tap["width"], tap["height"]) >= 40, tap
    acts = await phone.get_attribute("body", "data-acts")
    await target.tap()
    await phone.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)


async def test_a_phone_collects_the_cards_of_its_own_room(phone: Any) -> None:
    """Call of the Spirits at 375×667: every place the board offers to tap is at least 24 × 24 px (WCAG 2.2's
    target size), the Ghost cards of one's own room above all (they were 12 × 17 px), the rotate buttons too
    (22 × 18 px); two cards' places do not overlap, and tapping a card's place beside its drawing collects it."""
    collect = "svg.mansion-board .card[data-action]"
    room_with_cards = "svg.mansion-board .room[data-action]:has(.card)"  # a move to a room where cards lie
    await phone.fill("#player-name", "Ada")
    await phone.set_checked("#create-form input[name=bots]", True)
    await create_table(phone, "mansion", 2)
    await phone.click("#start:not([disabled])")
    await until_a_choice_on_the_board(phone, f"{collect}, {room_with_cards}")
    if not await phone.locator(collect).count():
        acts = await phone.get_attribute("body", "data-acts")
        await phone.locator(room_with_cards).first.tap()
        await phone.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
        await phone.wait_for_selector(collect, timeout=5000)  # a move leaves two actions of the turn's three
    await phone.locator(".board").scroll_into_view_if_needed()
    await screenshot(phone, "phone-mansion-collect")
    targets = await phone.evaluate(BOARD_TARGETS, "svg.mansion-board")
    small = [(box, action) for box, action in targets if min(box[2] - box[0], box[3] - box[1]) < 24]
    assert not small, small
    cards = [box for box, action in targets if '"collect"' in action]
    assert not [(a, b) for i, a in enumerate(cards) for b in cards[:i] if overlap(a, b)], cards
    card = phone.locator(collect).first
    label = await card.get_attribute("aria-label")  # "Collect <card>"
    await card.tap(position={"x": 3, "y": 3})  # the corner of its place, off the card's drawing
    await phone.locator("#log li", has_text=f"Ada collects {label.removeprefix('Collect ')}").wait_for(timeout=5000)


@pytest.mark.parametrize("kinds", [1, 3, 5, 8])
async def test_a_phone_taps_each_card_of_a_full_room(phone: Any, kinds: int) -> None:
    """Call of the Spirits on a phone 360 px wide (a common Android width), the board drawn for one's own room
    holding ``kinds`` kinds of Ghost cards to collect (and the ghosts, but with 8 kinds: that fills its 4 × 2
    cells): each card's place is at least 24 × 24 px (they were 23.4 × 23.8 px at 360), none overlaps another, and
    the drawing of each card lies in its own place."""
    script = """async (kinds) => {
        const { rendererFor } = await import('/static/games/index.js');
        const { t } = await import('/static/i18n.js');
        const { fitTexts } = await import('/static/dom.js');
        const mansion = await rendererFor('mansion');
        const cards = mansion.catalog.ghosts.map((g) => g.name).slice(0, kinds);
        const rooms = [[], [], [], cards.flatMap((c, i) => (i % 2 ? [c] : [c, c])), [], [], []];
        const view = { rooms, ghosts: kinds < 8 ? 3 : 0, seat_rooms: [3, -1], positions: [3, -1], rotation: 0,
                       phase: 'turn', turn: 0, events_left: 9, ghost_deck: 50, haunt_deck: 90 };
        const ctx = { table: { log: [], prompts: [] }, catalog: mansion.catalog, drawing: {}, view, me: 0,
                      choices: cards.map((card) => ({ type: 'collect', card })), t, name: (s) => `P${s}`,
                      colour: () => '#888', ink: () => '#fff' };
        const box = document.createElement('div');
        box.className = 'board';
        box.style.cssText = 'position: fixed; inset: 0 auto auto 0; width: 360px; margin: 0; z-index: 9';
        box.append(mansion.board(ctx));
        document.body.append(box);
        fitTexts(box);
        const edges = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
        const drawn = [...box.querySelectorAll('.card[data-action]')];
        return drawn.map((card) => [edges(card), edges(card.querySelector('rect:not(.hit)'))]);
    }"""
    places = await phone.evaluate(script, kinds)
    await screenshot(phone, f"phone-mansion-room-of-{kinds}")
    assert len(places) == kinds
    for i, (place, face) in enumerate(places):
        assert place[2] - place[0] >= 24 and place[3] - place[1] >= 24, place
        inside = place[0] <= face[0] and place[1] <= face[1] and face[2] <= place[2] and face[3] <= place[3]
        assert inside, (place, face)  # the card drawn inside its place
        assert not [other for other, _ in places[:i] if overlap(place, other)], place


def crowded_room_turn(kinds: int) -> dict[str, Any]:
    """A snapshot of Call of the Spirits at seat 0's turn, standing in a room of ``kinds`` kinds of Ghost cards (one
    or two of each), made by the engine itself: its view, prompts and legal actions as the wire carries them."""
    state = MANSION.setup(2, bytes(32), MANSION.default_options(), "t4ble")
    while (prompts := MANSION.prompts(state)) and prompts.get(0, Prompt("")).kind != "turn":
        seat = next(iter(prompts))  # the first round's event direction, and the like
        MANSION.apply(state, seat, MANSION.legal_actions(state, seat)[0])
    state.pos[0] = 0  # hallway section A: the room it faces
    state.rooms[state.rotation % 7] = [kind for kind in range(kinds) for _ in range(1 + kind % 2)]
    wire = msgspec.json.decode(msgspec.json.encode([MANSION.view(state, 0), MANSION.legal_actions(state, 0)]))
    seats = [{"seat": 0, "name": "Ada"}, {"seat": 1, "name": "Bob"}]
    return {
        "type": "snapshot",
        "table": "t4ble",
        "game": "mansion",
        "seq": 5,
        "status": "playing",
        "seats": seats,
        "seat": 0,
        "view": wire[0],
        "prompts": [{"seat": 0, "kind": "turn"}],
        "legal": wire[1],
    }


# The table screen drawn by the page's own code from ``snapshot``, in a box of its own on top of the page (the page's
# lobby goes on underneath): the sizes of [the board's targets, the crowded room's card buttons] in CSS px
DRAW_TABLE = """async (snapshot) => {
    const { rendererFor } = await import('/static/games/index.js');
    const { renderTable } = await import('/static/table.js');
    const { TableState } = await import('/static/table_state.js');
    const { fitTexts } = await import('/static/dom.js');
    const table = new TableState(snapshot.table, { seat: 0, token: 'k' });
    table.update(snapshot);
    const box = document.createElement('main');
    box.style.cssText = 'position: absolute; inset: 0 0 auto 0; z-index: 9; background: #100d18';
    box.append(renderTable(await rendererFor(snapshot.game), table, {}));
    document.body.append(box);
    fitTexts(box);
    const size = (e) => { const b = e.getBoundingClientRect(); return [b.width, b.height, e.dataset.action]; };
    return [[...box.querySelectorAll('.board [data-action]')].map(size),
            [...box.querySelectorAll('#room-cards [data-action]')].map(size)];
}"""


@pytest.mark.parametrize("kinds", [9, 12])
async def test_a_phone_collects_in_a_crowded_room(phone: Any, kinds: int) -> None:
    """Call of the Spirits at 375×667 in one's own room of more than 8 kinds of Ghost cards (a room fills up when
    nobody collects there): the board had no cell for each, drew them 12 × 15 px and offered them to tap side by
    side.  Now the cards are collected from a list beside the board, one button per kind at least 44 px tall
    with its name, and the board offers nothing smaller than a finger."""
    board, listed = await phone.evaluate(DRAW_TABLE, crowded_room_turn(kinds))
    await screenshot(phone, f"phone-mansion-crowded-room-{kinds}")
    assert not [target for target in board if min(target[:2]) < 24], board
    assert not [target for target in board if '"collect"' in target[2]], board
    cards = sorted(json.loads(action)["card"] for _, _, action in listed)
    assert cards == sorted(kind.name for kind in MANSION_KINDS[:kinds])
    assert all(width >= 120 and height >= 44 for width, height, _ in listed), listed
    assert await phone.evaluate(OVERFLOW) <= 0
    await phone.locator("#room-cards").scroll_into_view_if_needed()
    await screenshot(phone, f"phone-mansion-crowded-room-{kinds}-list")


async def test_a_phone_rolls_the_die_it_sees(phone: Any) -> None:
    """Spook at 375×667: the wide map opens on the player's pawn, the die and the Queen out of view at its right;
    when the roll is asked the map brings them into view (the player does not hunt for them), and a tap on the die
    rolls it."""
    await create_table(phone, "spook", 1)
    await phone.click("#start:not([disabled])")
    await phone.click("""button[data-action='{"type":"draw"}']""")
    await phone.wait_for_selector("""button[data-action='{"type":"roll"}']""")
    await phone.locator(".board").scroll_into_view_if_needed()
    await screenshot(phone, "phone-spook-roll")
    for part in ("svg.spook-board .info .die", "svg.spook-board .info .pcard"):  # the die, the Queen
        box = await phone.locator(part).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, (part, box)
    await phone.locator("svg.spook-board .die").tap()
    await phone.wait_for_selector("svg.spook-board .die:not(.unrolled)", timeout=5000)
    await phone.wait_for_selector("svg.spook-board .place[data-action]")  # where the pawn may go: in view again
    box = await phone.locator("svg.spook-board .place[data-action]").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box


async def test_a_phone_sees_where_a_card_goes_in_another_house(phone: Any) -> None:
    """Ghost at Home at 375×667: the map opens on the player's own house; a card picked that goes to another
    player's house (a ghost, a lightning) brings that house into view instead of leaving its place off the screen."""
    elsewhere = "svg.gah-board .house:not(.mine) [data-action]"
    # 3–7% of games end before such a card (simulated, by the page's choices): another game, up to six
    for _ in range(6):
        await phone.set_checked("#create-form input[name=bots]", True)
        await create_table(phone, "ghost-at-home", 2)
        await phone.click("#start:not([disabled])")
        try:
            await until_a_choice_on_the_board(phone, elsewhere, 300)
            break
        except GameOver:
            await phone.click(f"{GAME_OVER} button.primary")  # back to the lobby
    else:
        raise AssertionError("six games ended before a card went to another house")
    await phone.locator(".board").scroll_into_view_if_needed()
    await screenshot(phone, "phone-ghost-at-home-elsewhere")
    box = await phone.locator(elsewhere).first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box


async def test_svg_labels_stay_in_their_boxes(page: Any) -> None:
    """Words longer in French than in English still fit: Spook's "Dé pas encore lancé" beside the Queen, "dans la
    pioche" inside its box, the Séance Room's name inside its circle."""
    await page.select_option("#lang", "fr")
    await create_table(page, "spook", 1)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("svg.spook-board .info .pcard")
    boxes = """() => {
        const box = (el) => { const b = el.getBoundingClientRect(); return [b.left, b.right]; };
        const info = document.querySelector('svg.spook-board .info');
        return { line: box(info.querySelector('.info-line.strong')), queen: box(info.querySelector('.pcard')),
                 value: box(info.querySelector('.queen-value')), frame: box(info.querySelector('.info-bg')) };
    }"""
    got = await page.evaluate(boxes)
    assert got["line"][1] <= got["queen"][0], got
    assert got["frame"][0] <= got["value"][0] and got["value"][1] <= got["frame"][1], got

    await page.click(".board-head button.link")  # back to the lobby
    await page.set_checked("#create-form input[name=bots]", True)
    await create_table(page, "mansion", 2)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("svg.mansion-board .seance-name")
    width, radius, top = await page.evaluate(
        """() => { const t = document.querySelector('.seance-name').getBBox();
                   return [t.width, Number(document.querySelector('.seance-bg').getAttribute('r')), 500 - t.y]; }"""
    )
    assert width <= 2 * math.sqrt(radius**2 - top**2), (width, radius, top)


# Every seat's number as drawn, on its swatch (HTML) and its pawn (SVG): [its text, the contrast of its ink with the
# seat's colour (WCAG 2)]
SEAT_NUMBERS = """() => {
    const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
        .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const contrast = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
    const swatches = [...document.querySelectorAll('.swatch')].map((e) => {
        const style = getComputedStyle(e);
        return [e.textContent, contrast(style.color, style.backgroundColor)];
    });
    const pawns = [...document.querySelectorAll('.pawn')].map((e) => {
        const fill = getComputedStyle(e.querySelector('circle')).fill;
        return [e.querySelector('text').textContent, contrast(getComputedStyle(e.querySelector('text')).fill, fill)];
    });
    return [...swatches, ...pawns];
}"""


async def test_every_seat_number_can_be_read(page: Any) -> None:
    """A seat's number on its colour, beside its name and on its pawn, is the way to tell the players apart on the
    board: white on the yellow, green and grey seats it was at a contrast of 1.9 to 3.  Each is now at least 4.5
    (WCAG AA), the ink dark where the colour is light."""
    await page.set_checked("#create-form input[name=bots]", True)
    await create_table(page, seats=6)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector(f"{CHOICES}, #seats .seat-row:nth-child(6)")
    numbers = await page.evaluate(SEAT_NUMBERS)
    assert {number for number, _ in numbers} == {str(n) for n in range(1, 7)}, numbers
    assert not [(number, ratio) for number, ratio in numbers if ratio < 4.5], numbers


async def test_a_bot_is_named_after_the_number_it_wears(page: Any) -> None:
    """The server names its bots after their seat counted from 0 ("bot-2"), the page numbers seats from 1: the
    winner "bot-2" wore the number 3.  A bot is shown as "Bot 3" ("Robot 3" in French) at its seat's number, in the
    seating, the players and the log (the final scores name seats as the players' list does)."""
    await page.set_checked("#create-form input[name=bots]", True)
    await create_table(page, seats=3)
    assert await seating(page) == [["1", "Bot 1", "bot"], ["2", "Bot 2", "bot"], ["3", "Guest", "you"]]
    await page.select_option("#lang", "fr")
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("#seats .seat-row[data-seat='1'] .who:text('Robot 2')")
    rng = random.Random(3)
    while not await page.locator("#log li:has-text('Robot')").count():  # a bot's move, after the player's own
        await page.wait_for_selector(f"{CHOICES}, #log li:has-text('Robot')", timeout=10000)
        if await page.locator(CHOICES).count():
            await click_a_choice(page, rng, on_board=True)
    assert "bot-" not in await page.inner_text("main")


async def test_nobody_passes_for_another_player_or_a_bot(page: Any, server: ServerProcess) -> None:
    """A person could sit down as "bot-1" beside the server's bot shown as "Bot 1", or as "ＡＤＡ" or "Аda" (a Cyrillic
    "А") beside "Ada": the seating, the players and the log showed seats alike, so whose move a line told was a
    guess.  A person's name that reads as another seat's or as a bot's shows the seat's number too; a bot's and any
    other name as they are."""
    clients = [Client(server.url) for _ in range(6)]
    for client in clients:
        await client.connect()
    try:
        table = await clients[0].create("mansion", 6, bots=1)
        for client, name in zip(clients[1:], ("bot-1", "Ada", "ＡＤＡ", "\u0410da", "Bo"), strict=True):
            await client.join(table, name)
        await page.goto(f"{page.url.split('#')[0]}#/table/{table}")
        await page.wait_for_selector("#watching-note", timeout=5000)
        shown = ["Bot 1", "bot-1 (2)", "Ada (3)", "ＡＤＡ (4)", "\u0410da (5)", "Bo"]
        seated = [[str(seat), name] for seat, name in enumerate(shown, 1)]
        assert await seating(page) == [[*seated[0], "bot"], *seated[1:]]
        await clients[1].start(table)
        await page.wait_for_selector("#seats .seat-row[data-seat='5'] .who", timeout=5000)
        assert await page.locator("#seats .seat-row .who").all_inner_texts() == shown
        log = await page.inner_text("#log")
        sat = [line for line in log.splitlines() if " sits down at seat " in line]
        # each seat once, as shown when it sat: a look-alike sitting later changed how Ada is shown, not who sits
        as_sat = [*shown[:2], "Ada", *shown[3:]]
        assert sat == [f"{name} sits down at seat {n}." for n, name in enumerate(as_sat, 1)], sat
    finally:
        for client in clients:
            await client.close()


@pytest.mark.parametrize("server_args", [["--rate", "1e6", "--burst", "1000000"]])  # 200 seat changes at once
async def test_a_seat_kept_for_the_start_says_so(page: Any, server: ServerProcess) -> None:
    """Past a lobby's 200 seat changes (someone joining and leaving in a loop) a leave is refused, the seats kept
    until the start: "Leave the table" said the page follows too many tables, and to reload it."""
    table = await create_table(page, seats=3)
    churner = Client(server.url)
    await churner.connect()
    try:
        while True:
            await churner.join(table, "Eve")
            try:
                await churner.leave(table)
            except ServerError:
                break
        await page.click("button:text('Leave the table')")
        await page.wait_for_selector(".error:has-text('yours is kept until the game starts')", timeout=5000)
        assert await page.get_attribute(".table-screen", "data-table") == table
    finally:
        await churner.close()


async def test_the_seed_commitment_is_shown_at_the_start(page: Any, server: ServerProcess) -> None:
    """The final scores say the seed "matches the commitment shown at the start" and was derived from the
    table's secret (M30): the seating shows the secret's commitment before the start, the log shows it and the
    seed's commitment when the game begins, as the server published them."""
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page, seats=2)
    async with Client(server.url, client="web-test-watcher") as watcher:
        lobby = await watcher.watch(table)
    assert lobby.status == "lobby" and lobby.secret_commitment
    await page.wait_for_selector(f".seating .commitment:has-text('{lobby.secret_commitment}')", timeout=5000)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector(CHOICES)
    async with Client(server.url, client="web-test-watcher") as watcher:
        snapshot = await watcher.watch(table)
    assert snapshot.commitment
    await page.wait_for_selector(f"#log li:has-text('{snapshot.commitment}')", timeout=5000)
    await page.wait_for_selector(f"#log li:has-text('{lobby.secret_commitment}')", timeout=5000)


async def test_the_page_finds_a_seed_not_dealt_as_promised(page: Any) -> None:
    """The end's checks the page makes itself (M30, ``clients/web/fairness.js``) fail on any input doctored: the
    seed, the secret, a nonce, or a commitment; they hold on the genuine ones."""
    secret, nonces, table = bytes([0x11] * 32), ["9f" * 16, ""], "t4ble"
    seed = derive_seed(secret, nonces)  # the engine's derivation: the page must agree with it
    genuine = {
        "id": table,
        "result": {"seed": seed.hex()},
        "commitment": commitment(seed, table),
        "secret": secret.hex(),
        "secretCommitment": commitment(secret, table),
        "nonces": nonces,
        "seats": [{"seat": 0}, {"seat": 1}],
    }
    doctored = {
        "seed": {"result": {"seed": "22" * 32}},
        "secret": {"secret": "33" * 32},
        "nonce": {"nonces": ["9f" * 16, "late"]},
        "commitment": {"secretCommitment": "44" * 32},
    }
    # a bot's seat with a nonce, the server's pick: every hash matches, and yet the server could steer the seed
    steered = derive_seed(secret, [nonces[0], "55"])
    doctored["bot nonce"] = {
        "seats": [{"seat": 0}, {"seat": 1, "bot": True}],
        "nonces": [nonces[0], "55"],
        "result": {"seed": steered.hex()},
        "commitment": commitment(steered, table),
    }
    # a nonce past the seats, the server's too: added last, it could steer the seed as well
    steered = derive_seed(secret, [*nonces, "55"])
    doctored["nonce past the seats"] = {
        "nonces": [*nonces, "55"],
        "result": {"seed": steered.hex()},
        "commitment": commitment(steered, table),
    }
    check = "async (t) => (await import('/static/fairness.js')).fairnessChecks(t)"
    assert await page.evaluate(check, genuine) == {"seed": True, "secret": True, "derived": True}
    for name, change in doctored.items():
        checks = await page.evaluate(check, {**genuine, **change})
        assert not all(checks.values()), (name, checks)


async def test_the_page_checks_the_end_against_the_commitments_it_was_shown_first(page: Any) -> None:
    """The page kept the commitments of the latest snapshot, the one that comes with the ``game_over``: a server
    that dealt from a seed of its choosing could send commitments to match at the end, and the page's checks
    (M30) passed.  It keeps the ones it was shown first, in the lobby and at the start."""
    keep = """async () => {
        const { TableState } = await import('/static/table_state.js');
        const table = new TableState('t4ble');
        const snapshot = { type: 'snapshot', seq: 0, status: 'lobby', seats: [], secret_commitment: 'aa' };
        table.update(snapshot);
        table.update({ ...snapshot, seq: 3, status: 'playing', commitment: 'bb' });
        table.update({ ...snapshot, seq: 9, status: 'over', secret_commitment: 'cc', commitment: 'dd' });
        return [table.secretCommitment, table.commitment];
    }"""
    assert await page.evaluate(keep) == ["aa", "bb"]


async def test_a_seat_that_let_its_time_run_out_is_told_so(page: Any, server: ServerProcess) -> None:
    """A deadline passed: the server played for the seat, which is now "away".  The page says so (the seat's
    badge, a note, the log) instead of leaving the player to wonder why their turn ended; the only person at
    the table away, the game waits for them, and "I'm back" (or a move) takes the seat up again."""
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("mansion", 2, bots=1, turn_seconds=2)
    await page.fill("#player-name", "Ada")
    await page.fill(".by-id input", table)
    await page.click(".by-id button.primary")
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("#seats .seat-row.me .badge.away", timeout=10000)
    await page.wait_for_selector("#prompt .away-note", timeout=10000)
    assert "Ada ran out of time" in await page.inner_text("#log")
    assert "the game waits" in await page.inner_text("#prompt .away-note")
    await screenshot(page, "away")
    await page.click("#prompt .away-note #back")
    await page.wait_for_selector("#log li:text('Ada is back.')", timeout=5000)
    await page.wait_for_selector("#seats .seat-row.me .badge.away", state="detached", timeout=5000)
    await page.wait_for_selector("#prompt .away-note", state="detached", timeout=5000)


@pytest.mark.parametrize("server_args", [["--nudge-after", "2", "--nudge-seconds", "3"]])
async def test_a_player_who_walked_away_can_be_nudged(page: Any, server: ServerProcess) -> None:
    """An untimed table waits on Bob, who walked away: once it has stood still for the server's ``nudge_after``, a
    "Nudge" button comes beside his seat (not before, nor beside one's own); clicked, his seat shows the countdown the
    page shows for any deadline, and when it runs out the server plays for him and he is away."""
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("spook", 2)
    (bob,) = await seat_sdk_players(server, table, 1)  # seat 0: his draw comes first, and he never makes it
    try:
        await page.fill("#player-name", "Ada")
        await page.fill(".by-id input", table)
        await page.click(".by-id button.primary")
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("#seats .seat-row[data-seat='0'].owes")
        assert await page.query_selector("#seats button.nudge") is None  # too early
        nudge = await page.wait_for_selector("#seats .seat-row[data-seat='0'] button.nudge", timeout=5000)
        assert await page.query_selector("#seats .seat-row.me button.nudge") is None
        await screenshot(page, "nudge")
        await nudge.click()
        countdown = await page.wait_for_selector("#seats .seat-row[data-seat='0'] .badge.deadline", timeout=5000)
        assert re.fullmatch(r"[1-3] s left", await countdown.inner_text()), await countdown.inner_text()
        assert await page.query_selector("#seats button.nudge") is None  # his decision is timed now
        await page.wait_for_selector("#seats .seat-row[data-seat='0'] .badge.away", timeout=10000)
        assert "Spirit 1 ran out of time" in await page.inner_text("#log")
    finally:
        await bob.client.close()


async def test_each_default_played_for_an_away_seat_is_logged(page: Any, server: ServerProcess) -> None:
    """Once a seat is away no seating change marks the server's next defaults for it: the log still names each one
    (the update's ``timeout``), so the player coming back reads why their pieces moved."""
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("spook", 2, turn_seconds=1)
    await page.fill("#player-name", "Ada")
    await page.fill(".by-id input", table)
    await page.click(".by-id button.primary")
    (bob,) = await seat_sdk_players(server, table, 1)
    await page.click("#start:not([disabled])")
    playing = asyncio.create_task(bob.run())  # Bob plays his turns, Ada none of hers
    try:
        await page.wait_for_selector("#log li:text('Ada ran out of time')", timeout=10000)
        await page.wait_for_selector("#log li:text('Ada is still away: the server decided for them.')", timeout=15000)
    finally:
        playing.cancel()
        await bob.client.close()


async def test_the_countdown_is_the_servers_on_a_clock_minutes_off(page: Any, server: ServerProcess) -> None:
    """A computer whose clock is five minutes fast shows the time a decision has left, counted from the server's
    ``time`` beside its deadline: not "0 s left" (a clock five minutes slow: not 340), and again so after a reload in
    the middle of the turn, which keeps the decision's deadline."""
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("mansion", 2, bots=1, turn_seconds=40)
    await page.add_init_script("{ const real = Date.now; Date.now = () => real() + 300000; }")
    await page.reload()
    await page.fill("#player-name", "Ada")
    await page.fill(".by-id input", table)
    await page.click(".by-id button.primary")
    await page.click("#start:not([disabled])")
    first = await _seconds_left(page)
    assert 30 <= first <= 40, first
    await page.reload()
    again = await _seconds_left(page)
    assert 30 <= again <= first, (first, again)


async def test_another_seats_decision_shows_its_time_left(page: Any, server: ServerProcess) -> None:
    """Prompts are public: the seat that must decide shows its countdown in the seating, to everyone (the page showed
    only one, in the prompt panel)."""
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("spook", 2, turn_seconds=40)
    (bob,) = await seat_sdk_players(server, table, 1)  # seat 0, which draws first (S): he lets it wait
    try:
        await page.fill("#player-name", "Ada")
        await page.fill(".by-id input", table)
        await page.click(".by-id button.primary")
        await page.click("#start:not([disabled])")
        left = await _seconds_left(page, "#seats .seat-row[data-seat='0'] .deadline")
        assert 30 <= left <= 40, left
        assert not await page.is_visible("#seats .seat-row[data-seat='1'] .deadline")  # Ada owes nothing yet
        await screenshot(page, "countdown")
    finally:
        await bob.client.close()


async def _seconds_left(page: Any, where: str = "#prompt.mine .deadline") -> int:
    """A countdown shown (by default the page's own decision's), in seconds."""
    await page.wait_for_selector(where, timeout=10000)
    text = await page.inner_text(where)
    found = re.search(r"\d+", text)
    assert found, text
    return int(found.group())


async def test_the_way_back_to_a_game_under_way(page: Any) -> None:
    """ "Back to the lobby" in the middle of a game: the game is no longer among the open tables, so the lobby
    lists the tables this tab holds a seat at, each with the way back to its seat; back there, the game's log is
    whole (it began at the way back: the server replays nothing to a connection that follows the table)."""
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page, seats=2)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector(CHOICES)
    assert "The game begins." in await page.inner_text("#log")
    await page.click(".board-head button.link")
    await page.click(f"#my-tables tr[data-table='{table}'] button", timeout=5000)
    await page.wait_for_selector(f".table-screen[data-table='{table}'] svg.mansion-board")
    assert await page.is_visible("#seats .seat-row.me .badge.you")
    await page.wait_for_selector(f"{CHOICES}, {GAME_OVER}")
    assert "The game begins." in await page.inner_text("#log")
    await page.go_back()  # the lobby, and forward to the table again: the same
    await page.wait_for_selector("#my-tables")
    await page.go_forward()
    await page.wait_for_selector(f"{CHOICES}, {GAME_OVER}")
    assert "The game begins." in await page.inner_text("#log")


async def test_a_friend_joins_from_the_tables_link(page: Any) -> None:
    """A friend who opens the table's link (``#/table/<id>``) while a seat is free is offered that seat there, with
    a field for their name: they had only the seating to look at, and the way to a seat was back in the lobby,
    typing the id.  Once the table is full a visitor is told they are watching (a "Join" whose seat was just taken
    left them watching without a word), and the friend who joined plays their seat."""
    table = await create_table(page, seats=2)
    link = f"{page.url.split('#')[0]}#/table/{table}"
    errors: list[str] = []
    friend, visitor = await page.context.browser.new_page(), await page.context.browser.new_page()
    for tab in (friend, visitor):
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.on("console", lambda msg: errors.append(msg.text) if _unexpected(msg) else None)
    try:
        await friend.goto(link)
        await friend.fill("#seat-name", "Bob")
        await friend.click("#join-here")
        await friend.wait_for_selector(".seat-list li:has(.badge.you):has-text('Bob')", timeout=5000)
        await visitor.goto(link)
        await visitor.wait_for_selector("#watching-note", timeout=5000)
        assert not await visitor.locator("#join-here").count()
        await page.click("#start:not([disabled])")
        played = [0, 0]
        for _ in range(100):  # each seat plays the first choice it is offered, until the friend has played
            for i, tab in enumerate((page, friend)):
                if await tab.locator(CHOICES).count():
                    acts = await tab.get_attribute("body", "data-acts")
                    await tab.locator(CHOICES).first.click()
                    await tab.wait_for_function(ACTS_CHANGED, arg=acts, timeout=5000)
                    played[i] += 1
            if played[1]:
                break
            await page.wait_for_timeout(50)
        assert played[1], played
    finally:
        await friend.close()
        await visitor.close()
    assert not errors, errors


async def test_a_tab_closed_by_mistake_leaves_the_way_back_to_its_seat(page: Any) -> None:
    """A player's seat was held by their tab alone: with the tab closed by mistake (a phone discards tabs too) the
    table's link opened a spectator, the lobby had no way back, and the game waited on a seat nobody could play.
    Another tab of the same browser now offers "Play your seat here" on the table, and "Your tables" in the
    lobby; either resumes the seat."""
    errors: list[str] = []
    context = await page.context.browser.new_context()  # one browser's tabs: each its own session, one local storage

    async def new_tab(url: str) -> Any:
        tab = await context.new_page()
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.on("console", lambda msg: errors.append(msg.text) if _unexpected(msg) else None)
        await tab.goto(url)
        return tab

    try:
        home = page.url.split("#")[0]
        first = await new_tab(home)
        await first.fill("#player-name", "Ada")
        await first.set_checked("#create-form input[name=bots]", True)
        table = await create_table(first, seats=2)
        await first.click("#start:not([disabled])")
        await first.wait_for_selector(".table-screen svg.mansion-board")
        await first.close()  # by mistake
        for way in ("table", "lobby"):
            tab = await new_tab(f"{home}#/table/{table}" if way == "table" else home)
            await tab.click("#take-seat" if way == "table" else f"#my-tables tr[data-table='{table}'] button")
            await tab.wait_for_selector("#seats .seat-row.me:has-text('Ada') .badge.you", timeout=5000)
            await tab.wait_for_selector(f"{CHOICES}, {GAME_OVER}", timeout=10000)  # the seat's decisions, here
            assert not await tab.locator("#take-seat").count()
            await tab.close()
    finally:
        await context.close()
    assert not errors, errors


async def test_the_seating_card_tells_why_the_game_did_not_start(page: Any) -> None:
    """Before the start, a refused request (here "start" with a seat still free, as when another player leaves
    just before the click) is said on the seating card, where it was not shown at all."""
    await create_table(page, seats=2)
    await page.evaluate("document.querySelector('#start').disabled = false")  # the other player just left
    await page.click("#start")
    await page.wait_for_selector(".seating .error", timeout=5000)
    assert "every seat must be taken" in await page.inner_text(".seating .error")


async def test_french_elides_de_before_a_name(page: Any) -> None:
    """« Au tour d'Ada », « le pion de Bob »: the French strings elide ``de`` before a name with a vowel."""
    script = """async () => {
        const { setLanguage, t } = await import('/static/i18n.js');
        setLanguage('fr');
        const lines = [t('mansion.log.turn_started', { name: 'Ada', count: 3 }), t('spook.pawn_of', { name: 'Bob' }),
                       t('spook.pawn_of', { name: 'Éloïse' }), t('table.waiting_for', { names: 'Igor, Bob' })];
        setLanguage('en');
        lines.push(t('mansion.log.turn_started', { name: 'Ada', count: 3 }));
        return lines;
    }"""
    assert await page.evaluate(script) == [
        "Au tour d'Ada (3 actions).",
        "le pion de Bob",
        "le pion d'Éloïse",
        "En attente d'Igor, Bob…",
        "Ada's turn (3 actions).",
    ]


async def test_a_join_whose_answer_was_lost_with_the_connection_gets_its_seat(page: Any, server: ServerProcess) -> None:
    """The connection dropped between a join and its answer: the server had seated the player under a token the
    page never learnt, and the page went back to the lobby saying the connection was lost, the seat held by
    nobody for good (a second try took another).  The page's join carries a token of its own, and is sent again
    once the connection is back: it gets the seat the first one took."""
    joins: list[dict[str, Any]] = []
    closing: list[asyncio.Future[None]] = []

    def lose_the_first_answer(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg["type"] == "join":
                joins.append(msg)
            server_side.send(message)

        def to_page(message: str | bytes) -> None:
            if json.loads(message)["type"] == "joined" and len(joins) == 1:
                closing.append(asyncio.ensure_future(ws.close()))  # the seat taken, its answer lost with the connection
                closing.append(asyncio.ensure_future(server_side.close()))
            else:
                ws.send(message)

        ws.on_message(to_server)
        server_side.on_message(to_page)

    await page.route_web_socket(re.compile(".*"), lose_the_first_answer)
    await page.reload()
    await page.fill("#player-name", "Ada")
    async with Client(server.url, client="web-test-creator") as creator:
        table = await creator.create("mansion", 3, bots=1, private=True)
        await page.fill(".by-id input[name=table]", table)
        await page.click(".by-id button.primary")
        await page.wait_for_selector(".seating .seat-list li:has-text('Ada') .badge.you", timeout=15000)
        seats = (await creator.watch(table)).seats
    assert len(joins) == 2 and joins[0]["token"] == joins[1]["token"]
    assert [(s.name, s.bot) for s in seats] == [("bot-0", True), ("Ada", False), (None, False)]
    assert not await page.locator(".seating .error").count()


async def test_two_tabs_of_one_browser_sit_as_two_players(page: Any) -> None:
    """One person trying a game against themselves opens the table's link in a second tab and joins: a second
    seat, not the first tab's (tabs share the browser's storage, but each join's token is its tab's own)."""
    context = await page.context.browser.new_context()  # one browser's tabs: each its own session, one local storage
    try:
        home = page.url.split("#")[0]
        first, second = await context.new_page(), await context.new_page()
        await first.goto(home)
        table = await create_table(first, seats=3)
        await second.goto(f"{home}#/table/{table}")
        await second.click("#join-here")
        await second.wait_for_selector(".seat-list li:has(.badge.you)", timeout=10000)
        taken = "() => document.querySelectorAll('.seat-list li:not(.free)').length === 2"
        await first.wait_for_function(taken, timeout=5000)
        mine = [await tab.locator(".seat-list li:has(.badge.you)").inner_text() for tab in (first, second)]
    finally:
        await context.close()
    assert mine[0] != mine[1], mine
