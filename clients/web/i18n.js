// The language switch: one string table per language (i18n/en.js, i18n/fr.js), looked up by key.

import en from "./i18n/en.js";
import fr from "./i18n/fr.js";

export const TABLES = { en, fr };
const LANGUAGES = Object.keys(TABLES);

let current = "en";

export function setLanguage(lang) {
  current = TABLES[lang] ? lang : "en";
  document.documentElement.lang = current;
  return current;
}

export function language() {
  return current;
}

function lookup(key) {
  return TABLES[current][key] ?? TABLES.en[key];
}

/** The string ``key`` in the current language, ``{name}`` placeholders filled from ``params``.  When
 * ``params.count`` is singular in this language (1 in English; 0 and 1 in French) ``<key>_one`` is used if
 * the table has it. */
export function t(key, params = {}) {
  const one = typeof params.count === "number" && new Intl.PluralRules(current).select(params.count) === "one";
  let text = (one && lookup(`${key}_one`)) || lookup(key) || key;
  if (current === "fr") text = spaced(elide(text, params));
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? shown(params[name]) : whole));
}

const NUMBERS = Object.fromEntries(LANGUAGES.map((lang) => [lang, new Intl.NumberFormat(lang)]));

/** A value filled in: a number as the language writes it (« 86 400 », "86,400"). */
function shown(value) {
  return typeof value === "number" ? NUMBERS[current].format(value) : String(value);
}

/** French spacing that never breaks a line: a no-break space before « : » and inside « », a narrow one before
 * « ; ! ? » (the strings' own words only, not the names filled in). */
function spaced(text) {
  return text.replace(/ ([:»])/g, "\u00a0$1").replace(/« /g, "«\u00a0").replace(/ ([;!?])/g, "\u202f$1");
}

/** French elision before a name filled in: « Au tour d'Ada », not « de Ada ». */
function elide(text, params) {
  return text.replace(/\b([Dd])e \{(\w+)\}/g, (whole, d, name) =>
    name in params && /^[aeiouyàâéèêëîïôœ]/i.test(String(params[name])) ? `${d}'{${name}}` : whole,
  );
}

/** A server error in words: ``error.<code>`` when the page has words for that code (``params``: {id} the table it
 * is about), else the code and the server's own message. */
export function errorText(code, message, params = {}) {
  const key = `error.${code}`;
  return key in TABLES.en ? t(key, { id: "", ...params, code, message }) : t("error.generic", { code, message });
}

/** A game's name in the current language, else the server's ``fallback`` title (or the game's id). */
export function gameTitle(game, fallback) {
  const key = `game.${game}`;
  return key in TABLES[current] || key in TABLES.en ? t(key) : fallback || game;
}

/** The browser's preferred language among ours. */
export function preferred() {
  for (const lang of navigator.languages || [navigator.language || "en"]) {
    const short = lang.slice(0, 2).toLowerCase();
    if (TABLES[short]) return short;
  }
  return "en";
}
