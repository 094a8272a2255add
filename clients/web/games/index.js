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
// ctx: {table, drawing, view, me, choices, t, name(seat), colour(seat), redraw()}; ctx.choices is empty unless
// it is this browser's decision and the view is current; ctx.drawing is the renderer's to keep notes in between
// two drawings of the same table (to animate a change, or a card picked before its target); ctx.redraw() draws
// the table again after such a note changed.

import generic from "./generic.js";

const LOADERS = {
  mansion: () => import("./mansion.js"),
  spook: () => import("./spook.js"),
  "ghost-at-home": () => import("./ghost-at-home.js"),
};

const cache = new Map();

/** The renderer for ``game`` (the generic one when the game has none yet). */
export async function rendererFor(game) {
  if (!cache.has(game)) {
    const load = LOADERS[game];
    const own = load ? (await load()).default : {};
    cache.set(game, { ...generic, ...own });
  }
  return cache.get(game);
}
