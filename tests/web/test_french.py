"""The page as a French owner of the game plays it: every word shown in French, from the lobby to the final
scores, in each game; the names printed on the French cards; French typography; the language kept and redrawn."""

from __future__ import annotations

import re
from typing import Any

import pytest

from protocol.errors import Code
from tests.web.play import GAME_OVER, create_table, exported, play_to_the_end

# Every word the page shows or says (a screen reader's labels and titles too), one text per element; the language
# menu names each language in its own, and a <noscript> is never shown where the page runs
SHOWN_TEXT = """() => {
    const out = [];
    const hidden = (node) => node.parentElement.closest('#lang, noscript');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!hidden(node)) out.push(node.data);
    for (const attr of ['aria-label', 'title', 'placeholder', 'alt']) {
        for (const el of document.querySelectorAll(`[${attr}]:not(#lang *)`)) out.push(el.getAttribute(attr));
    }
    return out;
}"""
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
PLACEHOLDER = re.compile(r"\{\w+\}")


def words(text: str) -> set[str]:
    """The words of ``text``, lowercased; a token with a digit (a seed, a nonce, a table's id) is no word."""
    return {w.lower() for token in text.split() if not re.search(r"\d", token) for w in WORD.findall(token)}


def vocabulary(table: dict[str, str]) -> set[str]:
    return set().union(*(words(PLACEHOLDER.sub(" ", value)) for value in table.values()))


class LeakCheck:
    """What the page showed, sampled along a game: the English catalogue's words that no French string has, a
    catalogue key shown as is, a placeholder left unfilled."""

    def __init__(self, tables: dict[str, dict[str, str]], table: str) -> None:
        self.english = vocabulary(tables["en"]) - vocabulary(tables["fr"])
        self.keys = set(tables["en"])
        self.table = table
        self.leaks: dict[str, str] = {}

    async def sample(self, page: Any) -> None:
        for text in await page.evaluate(SHOWN_TEXT):
            text = text.replace(self.table, " ") if self.table else text
            found = (words(text) & self.english) | {k for k in self.keys if k in text} | set(PLACEHOLDER.findall(text))
            for leak in found:
                self.leaks.setdefault(leak, text.strip()[:120])


GAMES = [
    ("mansion", 2, {}),
    ("spook", 2, {}),
    ("ghost-at-home", 2, {"max_rounds": 12}),
]


@pytest.mark.parametrize(("game", "seats", "options"), GAMES, ids=[g for g, _, _ in GAMES])
async def test_a_whole_game_in_french_shows_no_english(
    page: Any, game: str, seats: int, options: dict[str, int]
) -> None:
    """A French player plays a whole game against a bot, every word shown in French: the lobby, the seating, the
    board, the prompts and choices, the panels, the log, the final scores and fairness lines, the labels and titles
    a screen reader says; no catalogue key nor ``{placeholder}`` shows either."""
    await page.select_option("#lang", "fr")
    await page.fill("#player-name", "Adèle")
    await page.set_checked("#create-form input[name=bots]", True)
    (tables,) = await exported(page, "i18n.js", "TABLES")
    lobby = LeakCheck(tables, "")
    await page.select_option("select[name=game]", game)
    await lobby.sample(page)
    table = await create_table(page, game, seats, options)
    check = LeakCheck(tables, table)
    check.leaks = lobby.leaks  # the lobby's, then the table's
    await page.wait_for_selector("#start:not([disabled])")
    await check.sample(page)
    await page.click("#start")

    async def sample(clicks: int) -> None:
        await check.sample(page)

    await play_to_the_end(page, 3, sample)
    await page.wait_for_selector(f"{GAME_OVER} [data-check]")
    await check.sample(page)
    await page.click(f"{GAME_OVER} button >> nth=0")  # the board under the scores, and the log to its end
    await check.sample(page)
    assert not check.leaks, "\n".join(f"{leak!r} in {text!r}" for leak, text in sorted(check.leaks.items()))


async def test_every_error_the_page_can_meet_is_said_in_french(page: Any) -> None:
    """Each error code of the protocol (and the page's own: the connection lost, no server) has words of its own,
    which in French never carry the server's English message."""
    script = """async (codes) => {
        const { errorText, setLanguage } = await import('/static/i18n.js');
        setLanguage('fr');
        const said = codes.map((code) => [code, errorText(code, 'the server said this in English', { id: 'x' })]);
        setLanguage('en');
        return Object.fromEntries(said);
    }"""
    codes = [code.value for code in Code] + ["connection_lost", "unavailable"]
    (tables,) = await exported(page, "i18n.js", "TABLES")
    assert [code for code in codes if f"error.{code}" not in tables["fr"]] == []
    said = await page.evaluate(script, codes)
    english = {code: text for code, text in said.items() if "English" in text}
    assert not english, english
