// Each game's renderer is a module of its own, loaded when a table of that game is shown.
//
// A renderer's default export may provide (every member is optional; ``generic.js`` fills the gaps):
//   board(ctx) -> Element|null    the table drawn from ctx.view; choices marked with dom.choice(el, action)
//   panels(ctx) -> Element[]      the game's side panels (current event, duel, your hand …)
//   seat(ctx, seat) -> Element    what a seat's row shows beyond its name
//   prompt(ctx) -> string|null    the headline of the decision(s) owed now
//   help(ctx) -> string|null      a hint under the headline
//   label(ctx, action) -> string  a legal action in words (used by the list of all choices)
//   primary(action) -> bool       shown as a large button under the headline
//   logLines(ctx, entry, memo)    one sequenced update's events in words; ``memo`` persists across the log
//   scoreColumns(ctx, result)     extra columns of the final scores: [{title, cell(seat) -> string|Element}]
//   tiebreak(result) -> (seat) -> number   between seats of one score, lower is placed first (the game's tie-break)
// ctx: {table, catalog, drawing, view, me, choices, t, name(seat), colour(seat), ink(seat), swatch(seat, small),
// redraw()}; ink(seat) is the colour of a seat's number on its colour, swatch(seat) its round chip with that number;
// ctx.catalog is the game's public cards and board as the server serves them (engine/<game>/catalog.py), the
// renderer's only source of game data; ctx.choices is empty unless it is this browser's decision and the view is
// current; ctx.drawing is the renderer's to keep notes in between two drawings of the same table (to animate a
// change, or a card picked before its target); ctx.redraw() draws the table again after such a note changed.

import { fetchCatalog } from "../net.js";
import generic from "./generic.js";

const LOADERS = {
  mansion: () => import("./mansion.js"),
  spook: () => import("./spook.js"),
  "ghost-at-home": () => import("./ghost-at-home.js"),
};

const cache = new Map(); // game -> Promise of its renderer

/** The renderer for ``game`` (the generic one when the game has none yet), with the game's catalog as its
 * ``catalog``: both loaded once per game (again only after a failure). */
export function rendererFor(game) {
  if (!cache.has(game)) {
    const load = LOADERS[game] || (async () => ({ default: {} }));
    const loading = Promise.all([load(), fetchCatalog(game)]).then(([own, catalog]) => ({ ...generic, ...own.default, catalog }));
    loading.catch(() => cache.delete(game));
    cache.set(game, loading);
  }
  return cache.get(game);
}
