"""The page as a French owner of the game plays it: every word shown in French, from the lobby to the final
scores, in each game; the names printed on the French cards; French typography; the language kept and redrawn."""

from __future__ import annotations

import asyncio
import re
import signal
from typing import Any

import pytest

from protocol.errors import Code
from server.launch import ROOT, ServerProcess
from tests.web.play import CHOICES, GAME_OVER, create_table, exported, play_to_the_end

# Every word the page shows or says (a screen reader's labels and titles too), one text per element; the language
# menu names each language in its own, a <noscript> is never shown where the page runs, a name another player gave
# (a game in progress listed in the lobby: "Guest", say) is theirs, in any language, and a table's id listed in the
# lobby is no word in any (``U-k-crBC`` once read as the English "K" of a King)
SHOWN_TEXT = """() => {
    const out = [];
    const hidden = (node) => node.parentElement.closest('#lang, noscript, .player-name, .table-id');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!hidden(node)) out.push(node.data);
    for (const attr of ['aria-label', 'title', 'placeholder', 'alt']) {
        for (const el of document.querySelectorAll(`[${attr}]:not(#lang *)`)) out.push(el.getAttribute(attr));
    }
    return out;
}"""
# A choice the server refuses, clicked as the page clicks its own (the page's click handler sends it)
BOGUS_CHOICE = """() => {
    const bogus = document.createElement('button');
    bogus.dataset.action = JSON.stringify({ type: 'no_such_move' });
    document.querySelector('#prompt').append(bogus);
    bogus.click();
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


async def test_the_ids_of_listed_tables_are_no_words(page: Any) -> None:
    """A table's id listed in the lobby (open, in play, held) is no word to translate, even one with no digit whose
    pieces read as English: ``U-k-crBC``'s "k" is the English catalogue's King (a random id did this once)."""
    script = """async (ids) => {
        const { renderLobby } = await import('/static/lobby.js');
        const { setLanguage } = await import('/static/i18n.js');
        setLanguage('fr');
        const [open, playing, held] = ids;
        const form = { game: 'mansion', seats: 2, private: false, bots: false, bot_strategy: 'greedy', options: {} };
        const state = {
            name: '', welcome: null, error: null, typedId: '', form,
            tables: [{ table: open, game: 'mansion', taken: 1, seats: 2, status: 'lobby', bots: [] }],
            playing: [{ table: playing, game: 'mansion', names: ['Adèle', 'Guest'], bots: [] }],
            held: [{ table: held, seat: 0 }],
        };
        document.body.replaceChildren(renderLobby(state, {}));
    }"""
    open_, playing, held = "U-k-crBC", "K_rank-k", "kK-Of-To"
    await page.evaluate(script, [open_, playing, held])
    shown = await page.locator("[data-table] td:first-child").all_text_contents()
    assert shown == [held, open_, playing]  # the lobby lists your tables first
    (tables,) = await exported(page, "i18n.js", "TABLES")
    check = LeakCheck(tables, "")
    await check.sample(page)
    assert check.leaks == {}


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


async def test_switching_language_redraws_errors_and_the_log(page: Any) -> None:
    """A player who switches language sees everything said again in the new one: the lobby's error and the table's,
    which kept the language they were first said in, and mid-game the log already shown, from its first line."""
    await page.fill(".by-id input", "nosuchtable")
    await page.click(".by-id button:text('Watch')")
    await page.wait_for_selector("#lobby-error:has-text('No table')")
    await page.select_option("#lang", "fr")
    await page.wait_for_selector("#lobby-error:has-text('introuvable')", timeout=5000)
    await page.select_option("#lang", "en")

    await page.fill("#player-name", "Adèle")  # (a name is the player's, in any language: "Guest" stays)
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page, "mansion", 2)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("svg.mansion-board")
    await page.wait_for_selector(CHOICES)  # the player's turn: nothing changes the page but the player
    await page.evaluate(BOGUS_CHOICE)  # a choice the rules do not know: refused
    await page.wait_for_selector("#prompt .error", timeout=5000)
    refused = await page.inner_text("#prompt .error")
    assert "refused" in refused, refused
    await page.select_option("#lang", "fr")
    await page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert "refusé" in await page.inner_text("#prompt .error")
    assert (await page.get_attribute("#conn-status", "title") or "").startswith("serveur ")  # the server's name
    log = await page.inner_text("#log")
    assert "La partie commence." in log and "The game begins." not in log, log
    (tables,) = await exported(page, "i18n.js", "TABLES")
    check = LeakCheck(tables, table)
    await check.sample(page)
    assert not check.leaks, check.leaks


# Every string of a language with its placeholders filled ("{count}" with ``count``, any other with a name "Ada")
EVERY_STRING = """async ([lang, count]) => {
    const { TABLES, setLanguage, t } = await import('/static/i18n.js');
    setLanguage(lang);
    const keys = Object.keys(TABLES.en).filter((key) => !key.endsWith('_one'));
    const said = keys.map((key) => {
        const params = { count };
        for (const [, name] of TABLES[lang][key].matchAll(/\\{(\\w+)\\}/g)) if (name !== 'count') params[name] = 'Ada';
        return [key, t(key, params)];
    });
    setLanguage('en');
    return Object.fromEntries(said);
}"""


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_one_is_singular(page: Any, lang: str) -> None:
    """« 1 carte », « 2 cartes »: a count of one never comes with a plural word after it (« 1 actions », « 1
    choisies »), in French (where 0 is singular too) as in English."""
    plural = re.compile(r"(?<![\d/])1\s+(?:\w+\s+)?\w+[sx]\b" if lang == "fr" else r"(?<![\d/])1\s+\w+s\b")
    for count in (0, 1) if lang == "fr" else (1,):
        said = await page.evaluate(EVERY_STRING, [lang, count])
        wrong = {key: text for key, text in said.items() if plural.search(text.replace(str(count), "1", 1))}
        assert not wrong, "\n".join(f"{count}: {key}: {text}" for key, text in wrong.items())


async def test_french_typography(page: Any) -> None:
    """Every French string has a space that never breaks the line before « : » and inside « » (U+00A0), a narrow
    one before « ; ! ? » (U+202F); a number is written the language's way (« 86 400 », "86,400")."""
    said = await page.evaluate(EVERY_STRING, ["fr", 2])
    loose = {key: text for key, text in said.items() if re.search(r" [:;!?»]|« ", text)}
    assert not loose, loose
    assert said["error.not_found"] == "Table «\u00a0Ada\u00a0» introuvable\u00a0: vérifiez son identifiant."
    assert said["gah.escaping"] == "Évasion\u202f!"
    script = """async () => {
        const { setLanguage, t } = await import('/static/i18n.js');
        const said = ['fr', 'en'].map((lang) => (setLanguage(lang), t('table.seconds_left', { seconds: 86400 })));
        setLanguage('en');
        return said;
    }"""
    assert await page.evaluate(script) == ["encore 86\u202f400 s", "86,400 s left"]


def seed_words(text: str) -> str:
    """Text lowercased, word by word, each word's plural ``s`` dropped and ``é`` for ``e`` (the seed has « Eclair »)."""
    return " ".join(w.rstrip("s") for w in re.findall(r"\w+", text.lower().replace("é", "e")))


SEEDS = ROOT.parent / "shared" / "seeds"
PORTRAITS = ("tightrope", "dynamite", "quicksand", "tombstone")
# The names a French owner reads in the French rule texts the games were made from (/work/shared/seeds, README.md
# there), and the page's key for each: its words before a count or a kind (« Fantôme du goûter (2 pièces) »)
SEED_NAMES = {
    "000_49b95c09a0e0771a.txt": {
        "mansion.card.musician": "Fantôme musicien",
        "mansion.card.painting": "Peintures et objets d'art",
        "mansion.card.dancing": "Fantôme dansant",
        **{f"mansion.card.tea_party_{n}": "Fantôme du goûter" for n in (1, 2, 3)},
        "mansion.card.grim_grinning": "Fantôme grimaçant",
        "mansion.card.ballroom": "Fantôme de la salle de bal",
        "mansion.card.groom": "Fantôme marié",
        **{f"mansion.card.portrait_{p}": "Portrait étiré" for p in PORTRAITS},
        "mansion.card.bride": "La mariée",
        "mansion.card.headless_knight": "Le chevalier sans tête",
        "mansion.card.madame_leota": "Madame Leota",
        "mansion.card.organist": "L'organiste",
        "mansion.card.executioner": "Le bourreau",
        "mansion.seance": "Salle de spiritisme",
        "mansion.hallway": "Couloir sans fin",
        "mansion.ghosts": "Fantômes auto-stoppeurs",
        "mansion.event.final_round": "Tour final",
    },
    "001_1860497b4786ca2a.txt": {
        "spook.queen": "la reine des fantômes",
        "spook.title.foyer": "Foyer",
        "spook.title.staircase": "Escalier",
        **{f"spook.suit.{s}": name for s, name in zip("SHDC", ("pique", "cœur", "carreau", "trèfle"), strict=True)},
    },
    "003_b8f403206d81faef.txt": {
        "gah.card.room": "Pièce",
        "gah.card.ghost": "Fantôme",
        "gah.card.cat": "Chat",
        "gah.card.space_time_hole": "Trou de l'espace-temps",
        "gah.card.light_bulb": "Ampoule",
        "gah.card.cat_food": "Nourriture pour chat",
        "gah.card.elevator": "Ascenseur",
        "gah.card.lightning": "Éclair",
        "gah.card.joker": "Joker pour les pièces",
    },
}


async def test_the_names_are_those_of_the_french_rules(page: Any) -> None:
    """A French owner finds on the page the names of the French rules: « Fantôme musicien », « Fantôme marié »,
    « Fantôme du goûter », « Portrait étiré », « salle de spiritisme » (never « Séance »), « fantômes
    auto-stoppeurs », « Joker pour les pièces »…"""
    (tables,) = await exported(page, "i18n.js", "TABLES")
    fr = tables["fr"]
    for seed_file, names in SEED_NAMES.items():
        seed = f" {seed_words((SEEDS / seed_file).read_text(encoding='utf-8'))} "
        assert [name for name in names.values() if f" {seed_words(name)} " not in seed] == []
        shown = {key: re.split(r" \(|\s:", fr[key])[0] for key in names}
        assert {key: name for key, name in shown.items() if name.lower() != names[key].lower()} == {}
    assert [key for key, text in fr.items() if "séance" in text.lower()] == []
    # a round of Call of the Spirits is a « manche » (« Le jeu se déroule en plusieurs manches »), a player's turn a
    # « tour »: the page said « Tour 3 » beside « Au tour d'Ada », and « ce tour-ci » of the whole round
    en = tables["en"]
    rounds = [k for k in en if k.startswith("mansion.") and "round" in en[k].lower()]
    rounds.remove("mansion.event.final_round")  # the card's name: « Tour final »
    assert "plusieurs manches, chaque manche" in (SEEDS / "000_49b95c09a0e0771a.txt").read_text(encoding="utf-8")
    assert [key for key in rounds if "manche" not in fr[key].lower()] == []


async def test_the_language_is_kept_across_reloads_tables_and_tabs(page: Any) -> None:
    """A French browser's first visit is in French; the language chosen stays across a reload, from one table to
    the next, and on a table's link opened in another tab of the browser."""
    home = page.url.split("#")[0]
    browser = page.context.browser

    async def first_visit(context: Any, heading: str) -> Any:
        tab = await context.new_page()
        await tab.goto(home)
        await tab.wait_for_selector(f"#create-form h2:text('{heading}')")
        return tab

    french = await browser.new_context(locale="fr-FR")
    try:
        await first_visit(french, "Nouvelle table")
    finally:
        await french.close()
    context = await browser.new_context(locale="en-US")
    try:
        first = await first_visit(context, "New table")
        await first.select_option("#lang", "fr")  # an English browser's player chooses French
        await first.reload()
        await first.wait_for_selector("#create-form h2:text('Nouvelle table')")
        assert await first.input_value("#lang") == "fr"
        assert await first.evaluate("() => document.documentElement.lang") == "fr"
        table = await create_table(first, "spook", 2)
        assert await first.inner_text("#start") == "Lancer la partie"
        await first.click(".seating button:text('Retour à')")
        await create_table(first, "mansion", 2)
        assert await first.inner_text("#start") == "Lancer la partie"
        other = await context.new_page()
        await other.goto(f"{home}#/table/{table}")
        await other.wait_for_selector(".seating .panel-kicker:text('Spook')")
        assert "Places prises" in await other.inner_text(".seating")
    finally:
        await context.close()


async def test_without_javascript_the_page_says_so_in_french_too(page: Any) -> None:
    """Before any script can choose the language, the one line a browser without JavaScript shows is in French as
    well, marked as such for a screen reader."""
    context = await page.context.browser.new_context(java_script_enabled=False, locale="fr-FR")
    try:
        tab = await context.new_page()
        await tab.goto(page.url.split("#")[0])
        assert await tab.inner_text("noscript p[lang=fr]") == "hauntd a besoin de JavaScript (modules ES)."
    finally:
        await context.close()


async def test_a_switch_while_the_connection_is_down_says_so(page: Any, server: ServerProcess) -> None:
    """The connection's state is said again in the language chosen: a switch while the server was gone wrote
    « Connecté » (the page had been welcomed once), over a page that could send nothing."""
    await asyncio.to_thread(server.kill, signal.SIGKILL)
    await page.wait_for_selector("#conn-status[data-state=lost]")
    await page.select_option("#lang", "fr")
    assert await page.inner_text("#conn-status") == "Connexion perdue, reconnexion…"
    await asyncio.to_thread(server.start)
    await page.wait_for_selector("#conn-status[data-state=online]", timeout=20000)
    assert await page.inner_text("#conn-status") == "Connecté"
