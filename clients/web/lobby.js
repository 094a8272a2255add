// The lobby: your name, a new table, the open tables, the games in play to watch, and any table by its id.

import { h } from "./dom.js";
import { gameTitle, t } from "./i18n.js";

const STRATEGIES = ["greedy", "random"];

/** Each game's table options offered at creation (sent as ``create.options`` when set): a checkbox for a
 * boolean, a number field for a number (empty: the game's default). */
const GAME_OPTIONS = {
  spook: [{ name: "open_hands", type: "checkbox" }],
  "ghost-at-home": [{ name: "max_rounds", type: "number", min: 1, max: 1000, placeholder: "100" }],
};

/** The chosen options of ``game`` that differ from its defaults. */
export function chosenOptions(form, game) {
  const chosen = form.options[game] || {};
  return Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== null && value !== false));
}

function optionField(state, handlers, game, option) {
  const value = state.form.options[game]?.[option.name];
  const set = (v) => handlers.form({ options: { ...state.form.options, [game]: { ...state.form.options[game], [option.name]: v } } });
  if (option.type === "checkbox") {
    return h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", name: option.name, checked: Boolean(value), onchange: (e) => set(e.target.checked) }),
      h("span", {}, t(`lobby.option.${option.name}`)),
    );
  }
  return h(
    "label",
    {},
    h("span", {}, t(`lobby.option.${option.name}`)),
    h("input", {
      type: "number",
      name: option.name,
      min: String(option.min),
      max: String(option.max),
      placeholder: option.placeholder,
      value: value ?? "",
      onchange: (e) => set(e.target.value ? Number(e.target.value) : null),
    }),
  );
}

function title(welcome, name) {
  return gameTitle(name, welcome?.games.find((g) => g.name === name)?.title);
}

function createForm(state, handlers) {
  const games = state.welcome ? state.welcome.games : [];
  const chosen = games.find((g) => g.name === state.form.game) || games[0];
  const seatOptions = [];
  if (chosen) for (let n = chosen.min_seats; n <= chosen.max_seats; n++) seatOptions.push(n);
  const form = h(
    "form",
    {
      class: "panel create",
      id: "create-form",
      onsubmit: (event) => {
        event.preventDefault();
        handlers.create();
      },
    },
    h("h2", { class: "screen-heading", tabindex: "-1" }, t("lobby.new_table")),
    h(
      "label",
      {},
      h("span", {}, t("lobby.game")),
      h(
        "select",
        { name: "game", onchange: (e) => handlers.form({ game: e.target.value }) },
        games.map((g) => h("option", { value: g.name, selected: chosen && g.name === chosen.name }, gameTitle(g.name, g.title))),
      ),
    ),
    h(
      "label",
      {},
      h("span", {}, t("lobby.seats")),
      h(
        "select",
        { name: "seats", onchange: (e) => handlers.form({ seats: Number(e.target.value) }) },
        seatOptions.map((n) => h("option", { value: String(n), selected: n === state.form.seats }, String(n))),
      ),
    ),
    chosen ? (GAME_OPTIONS[chosen.name] || []).map((option) => optionField(state, handlers, chosen.name, option)) : null,
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", name: "private", checked: state.form.private, onchange: (e) => handlers.form({ private: e.target.checked }) }),
      h("span", {}, t("lobby.private")),
    ),
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", name: "bots", checked: state.form.bots, onchange: (e) => handlers.form({ bots: e.target.checked }) }),
      h("span", {}, t("lobby.bots")),
    ),
    state.form.bots
      ? h(
          "label",
          {},
          h("span", {}, t("lobby.bot_strategy")),
          h(
            "select",
            { name: "bot_strategy", onchange: (e) => handlers.form({ bot_strategy: e.target.value }) },
            STRATEGIES.map((name) => h("option", { value: name, selected: name === state.form.bot_strategy }, t(`lobby.strategy.${name}`))),
          ),
        )
      : null,
    h(
      "label",
      {},
      h("span", {}, t("lobby.turn_seconds")),
      h("input", {
        type: "number",
        name: "turn_seconds",
        min: "5",
        max: "86400",
        placeholder: t("lobby.no_limit"),
        value: state.form.turn_seconds ?? "",
        onchange: (e) => handlers.form({ turn_seconds: e.target.value ? Number(e.target.value) : null }),
      }),
    ),
    h("button", { class: "primary", type: "submit", id: "create" }, t("lobby.create")),
  );
  return form;
}

/** A listed table's status as said: "empty" for one in the lobby where no person sits yet (its seats taken are its
 * bots'), which the server lets go soon if nobody comes (``serve --abandoned-after``). */
function tableStatus(table) {
  return table.status === "lobby" && table.taken <= (table.bots ?? []).length ? "empty" : table.status;
}

function tablesPanel(state, handlers) {
  const rows = state.tables.map((table) =>
    h(
      "tr",
      { dataset: { table: table.table } },
      h("td", { class: "mono table-id" }, table.table),
      h("td", {}, title(state.welcome, table.game)),
      h("td", {}, `${table.taken}/${table.seats}`),
      h("td", {}, t(`lobby.status.${tableStatus(table)}`)),
      h(
        "td",
        { class: "buttons" },
        table.status === "lobby" && table.taken < table.seats ? h("button", { class: "primary", onclick: () => handlers.join(table.table) }, t("lobby.join")) : null,
        h("button", { onclick: () => handlers.watch(table.table) }, t("lobby.watch")),
      ),
    ),
  );
  return h(
    "section",
    { class: "panel tables", id: "open-tables" },
    h("div", { class: "panel-title" }, h("h2", {}, t("lobby.open_tables")), h("button", { onclick: handlers.refresh }, t("lobby.refresh"))),
    rows.length
      ? h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", {}, t("lobby.table")), h("th", {}, t("lobby.game")), h("th", {}, t("lobby.players")), h("th", {}, ""), h("th", {}, ""))),
          h("tbody", {}, rows),
        )
      : h("p", { class: "muted" }, t("lobby.no_tables")),
  );
}

/** The public games in play (``tables.playing``), each to watch. */
function playingPanel(state, handlers) {
  const rows = state.playing.map((table) =>
    h(
      "tr",
      { dataset: { table: table.table } },
      h("td", { class: "mono table-id" }, table.table),
      h("td", {}, title(state.welcome, table.game)),
      h(
        "td",
        {},
        // a name is the player's, as they wrote it, in any language (``.player-name``); a bot's is the page's words
        table.names.map((name, seat) => [seat ? ", " : "", (table.bots || []).includes(seat) ? t("table.bot_name", { n: seat + 1 }) : h("span", { class: "player-name" }, name)]),
      ),
      h("td", { class: "buttons" }, h("button", { onclick: () => handlers.watch(table.table) }, t("lobby.watch"))),
    ),
  );
  return h(
    "section",
    { class: "panel tables", id: "playing-tables" },
    h("h2", {}, t("lobby.playing")),
    rows.length
      ? h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", {}, t("lobby.table")), h("th", {}, t("lobby.game")), h("th", {}, t("lobby.players")), h("th", {}, ""))),
          h("tbody", {}, rows),
        )
      : h("p", { class: "muted" }, t("lobby.no_playing")),
  );
}

function heldPanel(state, handlers) {
  if (!state.held.length) return null;
  return h(
    "section",
    { class: "panel tables", id: "my-tables" },
    h("h2", {}, t("lobby.your_tables")),
    h(
      "table",
      {},
      h(
        "tbody",
        {},
        state.held.map((held) =>
          h(
            "tr",
            { dataset: { table: held.table } },
            h("td", { class: "mono table-id" }, held.table),
            h("td", {}, t("table.seat_n", { n: held.seat + 1 })),
            h("td", { class: "buttons" }, h("button", { class: "primary", onclick: () => handlers.rejoin(held.table) }, t("lobby.return"))),
          ),
        ),
      ),
    ),
  );
}

function byIdPanel(state, handlers) {
  const input = h("input", {
    type: "text",
    name: "table",
    placeholder: t("lobby.table_id"),
    pattern: "[A-Za-z0-9_-]+",
    maxlength: "32",
    value: state.typedId,
    oninput: (e) => handlers.typedId(e.target.value),
  });
  const id = () => input.value.trim();
  return h(
    "section",
    { class: "panel by-id" },
    h("h2", {}, t("lobby.by_id")),
    h(
      "div",
      { class: "inline" },
      input,
      h("button", { class: "primary", onclick: () => id() && handlers.join(id()) }, t("lobby.join")),
      h("button", { onclick: () => id() && handlers.watch(id()) }, t("lobby.watch")),
    ),
  );
}

export function renderLobby(state, handlers) {
  return h(
    "div",
    { class: "lobby" },
    h(
      "section",
      { class: "panel intro" },
      h("p", {}, t("lobby.welcome")),
      h(
        "label",
        {},
        h("span", {}, t("lobby.name")),
        h("input", {
          type: "text",
          id: "player-name",
          maxlength: "32",
          placeholder: t("lobby.name_placeholder"),
          value: state.name,
          oninput: (e) => handlers.name(e.target.value),
        }),
      ),
    ),
    state.error ? h("p", { class: "banner error", id: "lobby-error" }, state.error()) : null,
    h("div", { class: "lobby-grid" }, createForm(state, handlers), h("div", { class: "stack" }, heldPanel(state, handlers), tablesPanel(state, handlers), playingPanel(state, handlers), byIdPanel(state, handlers))),
  );
}
