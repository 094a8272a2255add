// The table screen, for any game: seating before the start, then the game's drawing (its renderer), the
// decision owed now with every legal choice as a button, the players, the log and the final scores.

import { h, choice } from "./dom.js";
import generic from "./games/generic.js";
import { TABLES, gameTitle, t } from "./i18n.js";

const SEAT_COLOURS = ["#e0524d", "#3b82d6", "#e9b52c", "#8f5bd9", "#3ea86f", "#9aa3ad"];
const INKS = ["#ffffff", "#1b1326"];

/** The relative luminance of a ``#rrggbb`` colour (WCAG 2). */
function luminance(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The ink that reads best on ``colour``, white or dark: a seat's number on its yellow, green or grey swatch was
 * white at a contrast of 1.9 to 3. */
function inkOn(colour) {
  const contrast = (ink) => (Math.max(luminance(ink), luminance(colour)) + 0.05) / (Math.min(luminance(ink), luminance(colour)) + 0.05);
  return INKS.reduce((best, ink) => (contrast(ink) > contrast(best) ? ink : best));
}

/** A seat's colour and the ink of its number on it. */
function seatColours(seat) {
  const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
  return { colour, ink: inkOn(colour) };
}

/** A seat's round swatch with its number (``small``: the lesser size). */
export function swatch(seat, small = false) {
  const { colour, ink } = seatColours(seat);
  return h("span", { class: `swatch${small ? " small" : ""}`, style: { background: colour, color: ink } }, String(seat + 1));
}

/** The Cyrillic and Greek letters that look like Latin ones (in either case), as the Latin letter. */
const LOOKALIKES = {
  а: "a", в: "b", е: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", і: "i", ј: "j", ѕ: "s", һ: "h", ӏ: "l", ԁ: "d", ԛ: "q", ԝ: "w", // Cyrillic
  α: "a", β: "b", ε: "e", ζ: "z", η: "h", ι: "i", κ: "k", μ: "m", ν: "n", ο: "o", ρ: "p", τ: "t", υ: "y", χ: "x", // Greek
};

/** A name as it reads: compatibility forms folded ("Ａda" is "Ada"), look-alike letters as Latin ones ("Аda" with a
 * Cyrillic "А"), case, spaces, "-" and "_" left out. */
const reading = (name) =>
  name
    .normalize("NFKC")
    .toLocaleLowerCase()
    .replace(/[\s_-]/gu, "")
    .replace(/./gu, (c) => LOOKALIKES[c] ?? c);

/** Whether a name reads as a bot's in any of the page's languages ("Bot 2", "bot-1", "ROBOT3"). */
function botLike(name) {
  const read = reading(name);
  return Object.values(TABLES).some((words) => {
    const [before, after] = words["table.bot_name"].split("{n}").map(reading);
    return read.startsWith(before) && read.endsWith(after) && /^\d+$/.test(read.slice(before.length, read.length - after.length));
  });
}

/** The name shown for each seat of a ``seats`` list, null for a free one: a server-run bot is "Bot <n>" after the
 * seat's number as the page shows it, where the server's name counts seats from 0 ("bot-2" wore the number 3).  A
 * person's name that reads as another seat's ("ADA" beside "Ada") or as a bot's also shows the seat's number,
 * "Ada (3)": nobody passes for another player, nor a person for a bot. */
function shownNames(seats) {
  const plain = seats.map((info) => (!info || !info.name ? null : info.bot ? t("table.bot_name", { n: info.seat + 1 }) : info.name));
  const read = plain.map((name) => (name === null ? null : reading(name)));
  return plain.map((name, i) =>
    name === null || seats[i].bot || (read.indexOf(read[i]) === read.lastIndexOf(read[i]) && !botLike(name))
      ? name
      : t("table.name_seat", { name, n: seats[i].seat + 1 }),
  );
}

function makeContext(table, catalog, handlers = {}) {
  const names = shownNames(table.seats);
  const name = (seat) => names[seat] ?? t("table.seat_n", { n: seat + 1 });
  return {
    table,
    catalog, // the game's public cards and board (GET /games/<game>.json)
    drawing: table.drawing, // the renderer's own notes about what it drew last (kept per table)
    view: table.view,
    me: table.seated ? table.seat : null,
    choices: table.choices,
    t,
    name,
    colour: (seat) => seatColours(seat).colour,
    ink: (seat) => seatColours(seat).ink, // a seat's number on its colour
    swatch,
    redraw: handlers.redraw || (() => {}), // after a local choice (a selected card, say) changed ctx.drawing
  };
}

function labelOf(renderer, ctx, action) {
  return renderer.label(ctx, action) ?? generic.label(ctx, action);
}

/** A visitor's way to a free seat from the seating itself (a friend who opened the table's link): their name, and
 * "Join" (the lobby's join, with the name the lobby keeps). */
function joinHere(table, handlers) {
  return h(
    "form",
    { class: "inline join-here", onsubmit: (event) => (event.preventDefault(), handlers.join()) },
    h("input", { type: "text", id: "seat-name", maxlength: "32", placeholder: t("lobby.name"), "aria-label": t("lobby.name"), value: handlers.playerName, oninput: (e) => handlers.name(e.target.value) }),
    h("button", { class: "primary", type: "submit", id: "join-here", disabled: table.offline }, t("table.join_here")),
  );
}

/** The way back to the seat this browser held at the table from another tab (closed by mistake, say). */
function takeSeatButton(table, handlers) {
  if (table.seated || !table.kept) return null;
  return h("button", { class: "primary", id: "take-seat", disabled: table.offline, onclick: handlers.takeSeat }, t("table.take_seat", { n: table.kept.seat + 1 }));
}

function seatingCard(table, handlers) {
  const names = shownNames(table.seats);
  const taken = table.seats.filter((seat) => seat.name).length;
  const full = taken === table.seats.length && table.seats.length > 0;
  const visitor = !table.seated && table.status === "lobby" && table.seats.length > 0;
  return h(
    "section",
    { class: "panel seating" },
    h("div", { class: "panel-kicker" }, gameTitle(table.game)),
    h("h2", { class: "screen-heading", tabindex: "-1" }, t("table.title", { id: table.id })),
    h("p", {}, t("table.game_lobby", { taken, seats: table.seats.length })),
    h(
      "ol",
      { class: "seat-list" },
      table.seats.map((seat, i) =>
        h(
          "li",
          { class: seat.name ? "" : "free" },
          swatch(seat.seat),
          names[i] ?? t("table.free_seat"),
          seat.bot ? h("span", { class: "badge" }, t("table.bot")) : null,
          table.seat === seat.seat ? h("span", { class: "badge you" }, t("table.you")) : null,
        ),
      ),
    ),
    visitor && !full ? joinHere(table, handlers) : null,
    visitor && full ? h("p", { class: "muted", id: "watching-note" }, t("table.full_watching")) : null,
    h("p", { class: "muted" }, t("table.share", { id: table.id })),
    table.secretCommitment ? h("p", { class: "muted commitment" }, t("log.secret_commitment", { commitment: table.secretCommitment })) : null,
    table.offline ? h("p", { class: "error" }, t("conn.lost")) : null,
    table.error ? h("p", { class: "error" }, table.error()) : null,
    h(
      "div",
      { class: "buttons" },
      takeSeatButton(table, handlers),
      table.seated ? h("button", { class: "primary", id: "start", disabled: !full || table.offline, onclick: handlers.start }, t("table.start")) : null,
      table.seated ? h("button", { onclick: handlers.leave }, t("table.leave")) : null,
      h("button", { onclick: handlers.lobby }, t("table.back")),
    ),
  );
}

function promptPanel(renderer, ctx, table, handlers) {
  const choices = ctx.choices;
  const headline = renderer.prompt(ctx);
  const mine = table.prompts.find((p) => p.seat === ctx.me);
  const due = (mine || table.prompts[0])?.due;
  const primary = choices.filter((a) => renderer.primary(a));
  const back = table.status === "playing" ? takeSeatButton(table, handlers) : null;
  return h(
    "section",
    { class: `panel prompt${mine ? " mine" : ""}`, id: "prompt" },
    h("div", { class: "panel-kicker" }, mine ? t("table.your_decision") : table.seated ? "" : t("table.watching")),
    table.status === "over" ? h("h3", {}, t("log.over")) : headline ? h("h3", {}, headline) : null,
    back ? h("div", { class: "buttons" }, back) : null,
    table.result && table.scoresClosed
      ? h("div", { class: "buttons" }, h("button", { class: "primary", onclick: handlers.openScores }, t("over.title")))
      : null,
    due !== undefined ? h("p", { class: "deadline", dataset: { due: String(due) } }) : null,
    table.seated && table.seats[ctx.me]?.away && table.status === "playing"
      ? h(
          "div",
          { class: "away-note" },
          h("p", {}, t(table.seats.every((s) => s.bot || s.away) ? "table.all_away" : "table.you_are_away")),
          h("button", { class: "primary", id: "back", onclick: handlers.back }, t("table.im_back")),
        )
      : null,
    table.offline ? h("p", { class: "error" }, t("conn.lost")) : null,
    table.pending ? h("p", { class: "muted" }, t("table.sending")) : null,
    table.error ? h("p", { class: "error" }, table.error()) : null,
    choices.length && renderer.help(ctx) ? h("p", { class: "help" }, renderer.help(ctx)) : null,
    primary.length
      ? h(
          "div",
          { class: "buttons" },
          primary.map((a) => choice(h("button", { class: "primary" }, labelOf(renderer, ctx, a)), a)),
        )
      : null,
  );
}

function choicesPanel(renderer, ctx) {
  if (!ctx.choices.length) return null;
  return h(
    "details",
    { class: "panel choices", id: "choices", open: true },
    h("summary", {}, t("table.choices", { count: ctx.choices.length })),
    h(
      "div",
      { class: "choice-list" },
      ctx.choices.map((a) => choice(h("button", { class: "choice" }, labelOf(renderer, ctx, a)), a)),
    ),
  );
}

/** The way to start a clock on a seat that has kept an untimed table waiting (``TableState.nudgeAt``). */
function nudgeButton(table, seat, handlers) {
  const at = table.nudgeAt(seat, handlers.nudging?.after);
  if (at === null || performance.now() < at) return null;
  const title = t("table.nudge_help", { seconds: handlers.nudging.seconds });
  return h("button", { class: "nudge", disabled: table.offline, title, onclick: () => handlers.nudge(seat) }, t("table.nudge"));
}

function seatsPanel(renderer, ctx, table, handlers) {
  const owed = new Set(table.prompts.map((p) => p.seat));
  // each person's pending decision with its time left (prompts are public); a bot's falls due at once
  const due = new Map(table.prompts.filter((p) => p.due !== undefined).map((p) => [p.seat, p.due]));
  return h(
    "section",
    { class: "panel seats", id: "seats" },
    h("div", { class: "panel-kicker" }, t("table.seats")),
    table.seats.map((seat) =>
      h(
        "div",
        { class: `seat-row${owed.has(seat.seat) ? " owes" : ""}${seat.seat === ctx.me ? " me" : ""}`, dataset: { seat: String(seat.seat) } },
        h(
          "div",
          { class: "seat-head" },
          swatch(seat.seat),
          h("span", { class: "who" }, ctx.name(seat.seat)),
          seat.bot ? h("span", { class: "badge" }, t("table.bot")) : null,
          seat.seat === ctx.me ? h("span", { class: "badge you" }, t("table.you")) : null,
          seat.away ? h("span", { class: "badge away", title: t("table.away_help") }, t("table.away")) : null,
          due.has(seat.seat) && !seat.bot ? h("span", { class: "badge deadline", dataset: { due: String(due.get(seat.seat)) } }) : null,
          nudgeButton(table, seat.seat, handlers),
        ),
        ctx.view ? renderer.seat(ctx, seat.seat) : null,
      ),
    ),
  );
}

/** The log, rebuilt from the sequenced updates in the current language. */
function logPanel(renderer, ctx, table) {
  const memo = {};
  const lines = table.seated && table.secretCommitment ? [t("log.secret_commitment", { commitment: table.secretCommitment })] : [];
  let seated = []; // each seat's name as the server holds it: a look-alike sitting down changes how another's is shown, not who sits
  let shown = [];
  let away = [];
  for (const entry of table.log) {
    const againAway = entry.timeout !== undefined && away[entry.timeout]; // (the first time out shows as "away")
    if (entry.seats) {
      const names = shownNames(entry.seats);
      for (const [i, seat] of entry.seats.entries()) {
        const [now, before] = [seat.name || null, seated[seat.seat]];
        if (now && now !== before) lines.push(t("log.sat", { name: names[i], n: seat.seat + 1 }));
        else if (!now && before) lines.push(t("log.stood", { name: shown[seat.seat], n: seat.seat + 1 }));
        if (now && Boolean(seat.away) !== Boolean(away[seat.seat])) lines.push(t(seat.away ? "log.away" : "log.back", { name: names[i] }));
      }
      seated = entry.seats.map((seat) => seat.name || null);
      shown = names;
      away = entry.seats.map((seat) => seat.away);
    }
    if (againAway) lines.push(t("log.timeout", { name: shown[entry.timeout] }));
    if (entry.status === "playing") {
      lines.push(t("log.started"));
      if (table.commitment) lines.push(t("log.commitment", { commitment: table.commitment }));
    }
    lines.push(...renderer.logLines(ctx, entry, memo));
    if (entry.status === "over") lines.push(t("log.over"));
  }
  return h(
    "section",
    { class: "panel log", id: "log" },
    h("div", { class: "panel-kicker" }, t("log.title")),
    h("ol", { class: "log-lines" }, lines.length ? lines.map((line) => h("li", {}, line)) : h("li", { class: "muted" }, t("log.empty"))),
  );
}

/** The table's chat: each line with its seat's swatch (a name alone could pass for another's) and its words, as
 * text, never markup; a seat says a line, after the final scores too ("good game"), a spectator reads. */
function chatPanel(table, handlers) {
  return h(
    "section",
    { class: "panel chat", id: "chat" },
    h("div", { class: "panel-kicker" }, t("chat.title")),
    h(
      "ol",
      { class: "chat-lines", "aria-live": "polite" },
      table.chat.length
        ? table.chat.map((line) =>
            h("li", { dataset: { n: String(line.n) } }, swatch(line.seat, true), h("span", { class: "player-name" }, line.name), " ", h("span", { class: "said" }, line.text)),
          )
        : h("li", { class: "muted" }, t("chat.empty")),
    ),
    table.seated
      ? h(
          "form",
          { class: "inline", id: "chat-form", onsubmit: (event) => (event.preventDefault(), handlers.say()) },
          h("input", { type: "text", id: "chat-text", maxlength: "200", placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder"), value: handlers.chatDraft, oninput: (e) => handlers.draft(e.target.value) }),
          h("button", { type: "submit", id: "chat-send", disabled: table.offline }, t("chat.send")),
        )
      : h("p", { class: "muted" }, t("chat.read_only")),
  );
}

/** The seats in the order of the final scores, each with its place: the winners first, then by score, then by the
 * game's tie-break (``tiebreak(seat)``, lower first: M22's lower Haunt total); seats equal on all three share a
 * place ("1, 2, 2, 4").  By score alone, a winner tied on score (M22) or one who escaped (G11) could be shown
 * below a seat it beat, and seats tied on score got places of their own. */
export function places(result, tiebreak) {
  const key = result.scores.map((score, seat) => [result.winners.includes(seat) ? 0 : 1, -score, tiebreak(seat)]);
  const before = (a, b) => key[a].map((v, i) => v - key[b][i]).find((d) => d !== 0) ?? 0;
  const order = result.scores.map((score, seat) => seat).sort((a, b) => before(a, b) || a - b);
  const placed = [];
  order.forEach((seat, i) => placed.push({ seat, place: i && !before(order[i - 1], seat) ? placed[i - 1].place : i + 1 }));
  return placed;
}

function finalScores(renderer, ctx, table, handlers) {
  const result = table.result;
  const order = places(result, renderer.tiebreak(result));
  const extra = renderer.scoreColumns(ctx, result);
  const winners = new Set(result.winners);
  return h(
    "div",
    { class: "overlay", id: "final-scores" },
    h(
      "section",
      { class: "panel scores" },
      h("h2", {}, t("over.title")),
      h(
        "p",
        { class: "winners" },
        result.winners.length ? t("over.winners", { names: result.winners.map(ctx.name).join(t("table.and")) }) : t("over.no_winner"),
      ),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, t("over.rank")), h("th", {}, t("over.player")), h("th", {}, t("over.score")), extra.map((c) => h("th", {}, c.title)))),
        h(
          "tbody",
          {},
          order.map(({ seat, place }) =>
            h(
              "tr",
              { class: winners.has(seat) ? "winner" : "", dataset: { seat: String(seat), score: String(result.scores[seat]) } },
              h("td", {}, String(place)),
              h(
                "td",
                {},
                h(
                  "span",
                  { class: "player" },
                  swatch(seat),
                  ctx.name(seat),
                  winners.has(seat) ? h("span", { class: "badge win" }, t("over.winner")) : null,
                ),
              ),
              h("td", { class: "score" }, String(result.scores[seat])),
              extra.map((c) => h("td", {}, c.cell(seat))),
            ),
          ),
        ),
      ),
      checked("over.seed", table.checks?.seed, { seed: result.seed }),
      table.secret ? checked("over.derived", table.checks && table.checks.secret && table.checks.derived, { secret: table.secret, nonces: table.nonces.map((n) => n || "—").join(", ") }) : null,
      table.secret && table.nonce ? h("p", { class: "seed" }, t(table.nonces[table.seat] === table.nonce ? "over.your_nonce" : "over.not_your_nonce", { nonce: table.nonce })) : null,
      h("div", { class: "buttons" }, h("button", { onclick: handlers.closeScores }, t("over.close")), h("button", { class: "primary", onclick: handlers.lobby }, t("table.back"))),
      playAgain(ctx, table, handlers),
    ),
  );
}

/** "Play again" for a seat; once someone asked (``rematched``, or the snapshot), who did and a button to sit down
 * there (a seat) or to watch it (a public table's spectator). */
function playAgain(ctx, table, handlers) {
  const asked = table.rematch;
  if (!asked) return table.seated ? h("div", { class: "buttons", id: "rematch" }, h("button", { class: "primary", onclick: handlers.playAgain }, t("over.play_again"))) : null;
  const join = table.seated ? h("button", { class: "primary", onclick: handlers.playAgain }, t("over.rematch_join")) : h("button", { onclick: handlers.watchRematch }, t("over.rematch_watch"));
  return h("div", { class: "buttons", id: "rematch" }, h("p", {}, t("over.rematch_asked", { name: ctx.name(asked.seat) })), join);
}

/** A line of the end's fairness checks (M30): ``ok`` true or false as the page computed it (``fairnessChecks``),
 * undefined or null where it could not (the player checks by hand). */
function checked(key, ok, values) {
  const check = ok === true ? "ok" : ok === false ? "failed" : "unchecked";
  return h("p", { class: `seed ${check}`, dataset: { check } }, t(`${key}_${check}`, values));
}

/** The whole table screen. */
export function renderTable(renderer, table, handlers) {
  const ctx = makeContext(table, renderer.catalog, handlers);
  if (table.status === "lobby" || !table.view) {
    return h("div", { class: "table-screen waiting", dataset: { table: table.id } }, seatingCard(table, handlers), chatPanel(table, handlers));
  }
  return h(
    "div",
    { class: "table-screen", dataset: { table: table.id, game: table.game, seq: String(table.seq), status: table.status } },
    h(
      "section",
      { class: "board-area" },
      h("div", { class: "board-head" }, h("h2", { class: "screen-heading", tabindex: "-1" }, gameTitle(table.game)), h("span", { class: "muted" }, t("table.title", { id: table.id })), h("button", { class: "link", onclick: handlers.lobby }, t("table.back"))),
      h("div", { class: "board" }, renderer.board(ctx)),
      table.result && !table.scoresClosed ? finalScores(renderer, ctx, table, handlers) : null,
    ),
    h(
      "aside",
      { class: "side" },
      promptPanel(renderer, ctx, table, handlers),
      ...renderer.panels(ctx),
      seatsPanel(renderer, ctx, table, handlers),
      choicesPanel(renderer, ctx),
      logPanel(renderer, ctx, table),
      chatPanel(table, handlers),
    ),
  );
}
