// Spook (engine/spook): the mansion map in SVG from a seat's view, the hunt, the hands, and the game's words.
//
// The wings, the doors, the cards' values and the Queen come from the game's catalog, ctx.catalog
// (engine/spook/catalog.py).  The map is the reconstructed board of rules S2–S4 on a 5 × 4 grid: the upper wing (9, 8, 7) along the top,
// the west wing (3, 2, 1) down the left, the east wing (6, 5, 4) down the right, the staircase from the foyer
// up to room 7, the chapel (10) between the foyer and room 6.  Every door of S4 joins two cells that touch.

import { h, s, choice, fit, pickable, pictured } from "../dom.js";

const COL_W = 172;
const ROW_H = 146;
const GAP = 12;
const X0 = 46;
const Y0 = 50;

/** Each location's cell span on the grid: [column, row, columns, rows]. */
const CELLS = {
  9: [0, 0, 1, 1],
  8: [1, 0, 1, 1],
  7: [2, 0, 1, 1],
  3: [0, 1, 1, 1],
  2: [0, 2, 1, 1],
  1: [0, 3, 1, 1],
  staircase: [2, 1, 1, 2],
  10: [3, 1, 1, 2],
  6: [4, 1, 1, 1],
  5: [4, 2, 1, 1],
  4: [4, 3, 1, 1],
  foyer: [1, 3, 3, 1],
};
const INFO_CELL = [3, 0, 2, 1]; // the die, the Queen, the turn
const PILES_CELL = [1, 1, 1, 2]; // the draw pile and the discard pile

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// -- cards ----------------------------------------------------------------------------------------------
function rankOf(card) {
  return card.slice(0, -1);
}

function suitOf(card) {
  return card.slice(-1);
}

function isRed(card) {
  return "HD".includes(suitOf(card));
}

/** A card in short words: "7♠", "K♥" ("R♥" in French). */
function cardName(ctx, card) {
  const rank = rankOf(card);
  return `${"AJQK".includes(rank) ? ctx.t(`spook.rank.${rank}`) : rank}${SUITS[suitOf(card)]}`;
}

/** A card as the log names it: the Queen of ghosts by her title. */
function cardWords(ctx, card) {
  return card === ctx.catalog.queen ? ctx.t("spook.queen") : cardName(ctx, card);
}

/** A card in whole words, as a screen reader and the choices' labels say it: "7 of spades", "King of hearts", the
 * Queen of ghosts by her title. */
function cardSpoken(ctx, card) {
  if (card === ctx.catalog.queen) return ctx.t("spook.queen");
  const rank = rankOf(card);
  return ctx.t("spook.card_spoken", { rank: "AJQK".includes(rank) ? ctx.t(`spook.rank_name.${rank}`) : rank, suit: ctx.t(`spook.suit.${suitOf(card)}`) });
}

function placeName(ctx, place) {
  return ctx.t(`spook.place.${place}`);
}

/** A playing card in SVG at (x, y), ``w`` wide. */
function svgCard(ctx, card, x, y, w, extraClass = "") {
  const hgt = w * 1.4;
  const queen = card === ctx.catalog.queen;
  const kind = queen ? "queen" : isRed(card) ? "red" : "black";
  const drawn = s(
    "g",
    { class: `pcard ${kind} ${extraClass}`, transform: `translate(${x} ${y})`, dataset: { card } },
    s("title", {}, cardWords(ctx, card)),
    s("rect", { width: w, height: hgt, rx: w * 0.1 }),
    queen ? null : s("text", { class: "rank", x: w * 0.1, y: w * 0.36, "font-size": w * 0.32 }, cardName(ctx, card).slice(0, -1)),
    s("text", { class: "suit", x: w / 2, y: hgt * 0.62, "font-size": w * (queen ? 0.5 : 0.62), "text-anchor": "middle" }, queen ? "♛" : SUITS[suitOf(card)]),
    queen ? s("text", { class: "suit small", x: w / 2, y: hgt * 0.9, "font-size": w * 0.26, "text-anchor": "middle" }, cardName(ctx, card)) : null,
  );
  return pictured(drawn, cardSpoken(ctx, card));
}

/** A playing card as an HTML chip (hands, the hunt, the discard pile). */
function htmlCard(ctx, card, extraClass = "") {
  const kind = card === ctx.catalog.queen ? "queen" : isRed(card) ? "red" : "black";
  const chip = h("span", { class: `pcard-chip ${kind} ${extraClass}`, title: cardWords(ctx, card), dataset: { card } }, cardName(ctx, card));
  return pictured(chip, cardSpoken(ctx, card));
}

/** A hand seen from behind: how many cards it holds. */
function cardBacks(ctx, count) {
  return pictured(h("span", { class: "pcard-backs" }, h("span", { class: "pcard-back" }), `×${count}`), ctx.t("spook.hand_count", { count }));
}

// -- geometry -------------------------------------------------------------------------------------------
function rectOf([col, row, cols, rows]) {
  return { x: X0 + col * (COL_W + GAP), y: Y0 + row * (ROW_H + GAP), w: cols * COL_W + (cols - 1) * GAP, h: rows * ROW_H + (rows - 1) * GAP };
}

/** The door between two touching cells: a short bar across the gap, centred on their shared wall. */
function doorRect(a, b) {
  const [p, q] = [rectOf(CELLS[a]), rectOf(CELLS[b])];
  const overlapX = [Math.max(p.x, q.x), Math.min(p.x + p.w, q.x + q.w)];
  if (overlapX[1] > overlapX[0]) {
    const top = p.y < q.y ? p : q;
    return { x: (overlapX[0] + overlapX[1]) / 2 - 22, y: top.y + top.h - 4, w: 44, h: GAP + 8 };
  }
  const overlapY = [Math.max(p.y, q.y), Math.min(p.y + p.h, q.y + q.h)];
  const left = p.x < q.x ? p : q;
  return { x: left.x + left.w - 4, y: (overlapY[0] + overlapY[1]) / 2 - 22, w: GAP + 8, h: 44 };
}

function find(ctx, type, match = () => true) {
  return ctx.choices.find((a) => a.type === type && match(a));
}

// -- the pawn to move (a choice made here before the target room) ----------------------------------------
/** The pawn whose moves the board offers: the one moving this turn, else the one picked, else the seat's own. */
function movingPawn(ctx) {
  const moves = ctx.choices.filter((a) => a.type === "move");
  if (!moves.length) return null;
  const pawns = [...new Set(moves.map((a) => a.pawn))];
  if (pawns.includes(ctx.drawing.pawn)) return ctx.drawing.pawn;
  return pawns.includes(ctx.me) ? ctx.me : pawns[0];
}

function pickPawn(ctx, pawn) {
  ctx.drawing.pawn = pawn;
  ctx.redraw();
}

// -- pieces ---------------------------------------------------------------------------------------------
function pawnPiece(ctx, seat, x, y, selectable, selected) {
  const v = ctx.view;
  const piece = s(
    "g",
    {
      class: `pawn${v.active === seat ? " active" : ""}${seat === ctx.me ? " mine" : ""}${selectable ? " selectable" : ""}${selected ? " selected" : ""}`,
      transform: `translate(${x} ${y})`,
      dataset: { pawn: String(seat) },
    },
    s("title", {}, ctx.t("spook.pawn_of", { name: ctx.name(seat) })),
    s("circle", { r: 14, fill: ctx.colour(seat) }),
    s("text", { "text-anchor": "middle", dy: "0.36em", style: { fill: ctx.ink(seat) } }, String(seat + 1)),
  );
  if (!selectable || selected) return pictured(piece, ctx.t("spook.pawn_of", { name: ctx.name(seat) }));
  piece.setAttribute("aria-label", ctx.t("spook.act.pick_pawn", { pawn: pawnWords(ctx, seat) }));
  return pickable(piece, () => pickPawn(ctx, seat));
}

function omenPiece(ctx, x, y) {
  const omen = s(
    "g",
    { class: "omen", transform: `translate(${x} ${y})` },
    s("title", {}, ctx.t("spook.omen")),
    s("circle", { r: 15 }),
    s("path", { d: "M-10 0Q0 -9 10 0Q0 9 -10 0Z", class: "omen-eye" }),
    s("circle", { r: 3.6, class: "omen-pupil" }),
  );
  return pictured(omen, ctx.t("spook.omen"));
}

function trapPiece(ctx, trap, x, y) {
  const drawn = s(
    "g",
    { class: "trap", transform: `translate(${x} ${y})` },
    s("title", {}, ctx.t("spook.trap_card", { card: cardName(ctx, trap) })),
    s("rect", { width: 46, height: 46, rx: 8 }),
    s("path", { d: "M6 36l5.7-10 5.7 10 5.6-10 5.6 10 5.7-10 5.7 10", class: "jaws" }),
    s("text", { x: 23, y: 19, "text-anchor": "middle" }, cardName(ctx, trap)),
  );
  return pictured(drawn, ctx.t("spook.trap_card", { card: cardSpoken(ctx, trap) }));
}

/** The die, read as what it shows (``words``); a roll to choose makes it a button. */
function diePiece(value, x, y, size, words) {
  const pips = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [2, 0], [0, 2], [2, 2]], 5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], 6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]] };
  const step = size / 4;
  const die = s(
    "g",
    { class: `die${value ? "" : " unrolled"}`, transform: `translate(${x} ${y})` },
    s("rect", { width: size, height: size, rx: size * 0.18 }),
    value ? pips[value].map(([c, r]) => s("circle", { cx: step * (c + 1), cy: step * (r + 1), r: size * 0.085 })) : s("text", { x: size / 2, y: size / 2, "text-anchor": "middle", dy: "0.35em" }, "?"),
  );
  return pictured(die, words);
}

/** The hunts on ``ghost`` offered now (normal, king) as board targets on its card. */
function huntTargets(ctx, card, ghost, x, y, w) {
  const normal = find(ctx, "hunt", (a) => a.ghost === ghost && a.kind === "normal");
  const king = find(ctx, "hunt", (a) => a.ghost === ghost && a.kind === "king");
  if (normal) choice(card, normal, label(ctx, normal));
  if (!king) return [card];
  const badge = s(
    "g",
    { class: "king-badge", transform: `translate(${x + w - 4} ${y - 4})` },
    s("circle", { r: 13 }),
    s("text", { "text-anchor": "middle", dy: "0.35em" }, ctx.t("spook.rank.K")),
  );
  return [card, choice(badge, king, label(ctx, king))];
}

// -- locations ------------------------------------------------------------------------------------------
function seatsAt(v, place) {
  return v.pawns.flatMap((p, seat) => (p === place ? [seat] : []));
}

function pawnsRow(ctx, place, x, y, mover) {
  const moves = ctx.choices.filter((a) => a.type === "move");
  const movable = new Set(ctx.view.moving_pawn === null ? moves.map((a) => a.pawn) : []);
  return seatsAt(ctx.view, place).map((seat, i) => pawnPiece(ctx, seat, x + i * 32, y, movable.size > 1 && movable.has(seat), seat === mover && movable.size > 1));
}

function locationCell(ctx, place, mover) {
  const v = ctx.view;
  const r = rectOf(CELLS[place]);
  const index = Number(place) - 1;
  const isRoom = index >= 0;
  const ghost = isRoom ? v.rooms[index] : null;
  const hunting = v.hunt && v.hunt.location === place;
  const group = s("g", { class: `place${isRoom ? " room" : ` ${place}`}${ghost ? " haunted" : ""}${hunting ? " hunting" : ""}`, dataset: { place }, role: "group", "aria-label": placeName(ctx, place) });
  group.append(s("rect", { class: "place-bg", x: r.x, y: r.y, width: r.w, height: r.h, rx: 10 }));
  if (place === "staircase") {
    for (let i = 1; i < 9; i++) group.append(s("line", { class: "step", x1: r.x + 10, x2: r.x + r.w - 10, y1: r.y + (r.h * i) / 9, y2: r.y + (r.h * i) / 9 }));
  }
  const w = place === "staircase" ? 46 : 54; // a ghost card's width (a room's sits in its top right corner)
  if (isRoom) {
    group.append(s("text", { class: "room-number", x: r.x + 12, y: r.y + 34, "aria-hidden": "true" }, place === "1" ? ctx.t("spook.rank.A") : place)); // the place's name says it
    if (place === "1" || place === "10") {
      // kept left of the ghost card's place: a phone's larger words (and French) would run under the card
      group.append(fit(s("text", { class: "room-caption", x: r.x + 13, y: r.y + 52, "aria-hidden": "true" }, ctx.t(place === "1" ? "spook.ace_room" : "spook.chapel")), r.w - w - 12 - 13 - 6));
    }
  } else {
    group.append(s("text", { class: "place-name", x: r.x + 12, y: r.y + 28, "aria-hidden": "true" }, ctx.t(`spook.title.${place}`)));
  }
  if (v.omen === place) group.append(omenPiece(ctx, r.x + 30, r.y + (place === "10" ? 80 : 68)));
  const ghosts = isRoom ? (ghost ? [ghost] : []) : place === "staircase" ? v.staircase : [];
  ghosts.forEach((card, i) => {
    const x = place === "staircase" ? r.x + 16 + (i % 3) * 50 : r.x + r.w - w - 12;
    const y = place === "staircase" ? r.y + 40 + Math.floor(i / 3) * 76 : r.y + 12;
    group.append(...huntTargets(ctx, svgCard(ctx, card, x, y, w, "ghost"), card, x, y, w));
  });
  if (isRoom && v.traps[index]) group.append(trapPiece(ctx, v.traps[index], r.x + r.w - 58, r.y + r.h - 56));
  group.append(...pawnsRow(ctx, place, r.x + 22, r.y + r.h - 24, mover));
  const move = mover !== null && find(ctx, "move", (a) => a.pawn === mover && a.to === place);
  if (move) choice(group, move, label(ctx, move));
  return group;
}

function wingBand(ctx, wing, rooms) {
  const v = ctx.view;
  const cells = rooms.map((room) => rectOf(CELLS[room]));
  const x = Math.min(...cells.map((c) => c.x)) - 6;
  const y = Math.min(...cells.map((c) => c.y)) - 6;
  const w = Math.max(...cells.map((c) => c.x + c.w)) + 6 - x;
  const hgt = Math.max(...cells.map((c) => c.y + c.h)) + 6 - y;
  const haunted = rooms.filter((room) => v.rooms[Number(room) - 1]).length;
  const state = haunted === rooms.length ? " lost" : haunted === rooms.length - 1 ? " danger" : ""; // S15
  const text = ctx.t("spook.wing_state", { wing: ctx.t(`spook.wing.${wing}`), count: haunted, rooms: rooms.length });
  const caption =
    wing === "upper"
      ? s("text", { class: "wing-label", x: x + 8, y: y - 8 }, text)
      : s("text", { class: "wing-label", x: 0, y: 0, transform: `translate(${wing === "west" ? x - 10 : x + w + 10} ${y + hgt / 2}) rotate(${wing === "west" ? -90 : 90})`, "text-anchor": "middle" }, text);
  return s("g", { class: `wing ${wing}${state}`, dataset: { wing, haunted: String(haunted) } }, s("rect", { class: "wing-band", x, y, width: w, height: hgt, rx: 14 }), caption);
}

function infoBox(ctx) {
  const v = ctx.view;
  const r = rectOf(INFO_CELL);
  const group = s("g", { class: "info" }, s("rect", { class: "info-bg", x: r.x, y: r.y, width: r.w, height: r.h, rx: 10 }));
  const rolled = v.roll ? ctx.t("spook.rolled", { value: v.roll }) : ctx.t("spook.not_rolled");
  const die = diePiece(v.roll, r.x + 16, r.y + 16, 64, rolled);
  const roll = find(ctx, "roll");
  group.append(roll ? choice(die, roll, label(ctx, roll)) : die); // the die rolls itself, as the button does
  const beside = r.w - 78 - 96 - 8; // between the die and the Queen
  group.append(
    fit(s("text", { class: "info-line strong", x: r.x + 96, y: r.y + 36 }, rolled), beside),
    // (DOM's append writes a null out as the text "null", which a screen reader read between the lines)
    ...(v.phase === "move" || (v.roll && v.steps_left) ? [fit(s("text", { class: "info-line", x: r.x + 96, y: r.y + 60 }, ctx.t("spook.steps_left", { count: v.steps_left })), beside)] : []),
    fit(s("text", { class: "info-line muted", x: r.x + 16, y: r.y + 106 }, ctx.t("spook.turn_of", { turn: v.turn, name: ctx.name(v.active) })), r.w - 32),
  );
  const queen = ctx.catalog.queen;
  const queenHere = v.rooms.includes(queen) || v.staircase.includes(queen);
  group.append(
    svgCard(ctx, queen, r.x + r.w - 78, r.y + 14, 56, queenHere ? "" : "faded"),
    // under the Queen, flush with her right edge: room for a phone's larger words
    fit(s("text", { class: "queen-value", x: r.x + r.w - 22, y: r.y + r.h - 14, "text-anchor": "end" }, queenHere ? ctx.t("spook.queen_worth", { value: v.queen_value }) : ctx.t("spook.queen_hidden")), 200),
  );
  return group;
}

function pilesBox(ctx) {
  const v = ctx.view;
  const r = rectOf(PILES_CELL);
  const group = s("g", { class: "piles" }, s("rect", { class: "info-bg", x: r.x, y: r.y, width: r.w, height: r.h, rx: 10 }));
  const cx = r.x + r.w / 2;
  group.append(s("text", { class: "pile-title", x: cx, y: r.y + 26, "text-anchor": "middle" }, ctx.t("spook.pile")));
  for (let i = Math.min(3, v.pile_size) - 1; i >= 0; i--) {
    group.append(s("rect", { class: "card-back", x: cx - 30 + i * 3, y: r.y + 38 - i * 3, width: 56, height: 78, rx: 6 }));
  }
  group.append(s("text", { class: "pile-count", x: cx, y: r.y + 136, "text-anchor": "middle" }, ctx.t("spook.cards", { count: v.pile_size })));
  group.append(s("text", { class: "pile-title", x: cx, y: r.y + 176, "text-anchor": "middle" }, ctx.t("spook.discard")));
  const shown = v.discard.slice(-4);
  shown.forEach((card, i) => group.append(svgCard(ctx, card, r.x + 16 + i * 30, r.y + 190, 50)));
  if (!shown.length) group.append(s("rect", { class: "empty-pile", x: cx - 28, y: r.y + 190, width: 56, height: 78, rx: 6 }));
  group.append(s("text", { class: "pile-count", x: cx, y: r.y + r.h - 10, "text-anchor": "middle" }, ctx.t("spook.cards", { count: v.discard.length })));
  return group;
}

// -- the renderer ---------------------------------------------------------------------------------------
function board(ctx) {
  const mover = movingPawn(ctx);
  const svg = s("svg", { viewBox: "0 0 1000 700", class: "spook-board", role: "group", "aria-label": ctx.t("game.spook") });
  svg.append(s("rect", { width: 1000, height: 700, rx: 24, class: "floor" }));
  for (const [wing, rooms] of Object.entries(ctx.catalog.wings)) svg.append(wingBand(ctx, wing, rooms));
  const origin = mover === null ? null : ctx.view.pawns[mover];
  for (const [a, b] of ctx.catalog.doors) {
    const d = doorRect(a, b);
    const open = origin !== null && (a === origin || b === origin) && find(ctx, "move", (m) => m.pawn === mover && m.to === (a === origin ? b : a));
    svg.append(s("rect", { class: `door${open ? " open" : ""}`, x: d.x, y: d.y, width: d.w, height: d.h, rx: 4 }));
  }
  // the die first: the page brings a phone's wide board to its first target, and when rolling that is the die
  svg.append(infoBox(ctx));
  for (const place of Object.keys(CELLS)) svg.append(locationCell(ctx, place, mover));
  svg.append(pilesBox(ctx));
  return svg;
}

function huntPanel(ctx) {
  const hunt = ctx.view.hunt;
  if (!hunt) return null;
  const total = hunt.offered.reduce((sum, o) => sum + ctx.catalog.values[o.card], 0);
  const target =
    hunt.kind === "wing"
      ? ctx.t("spook.hunt.wing_target", { wing: ctx.t(`spook.wing.${wingOf(ctx, hunt.location)}`) })
      : hunt.kind === "normal"
        ? ctx.t("spook.hunt.value", { value: hunt.value })
        : null;
  const need =
    hunt.kind === "normal"
      ? ctx.t("spook.hunt.need", { value: hunt.value, suits: [...hunt.suits].map((x) => ctx.t(`spook.suit.${x}`)).join(" / ") })
      : ctx.t(`spook.hunt.need_${hunt.kind}`);
  return h(
    "section",
    { class: "panel hunt-panel", id: "hunt" },
    h("div", { class: "panel-kicker" }, ctx.t("spook.hunt.title", { place: placeName(ctx, hunt.location) })),
    h("p", { class: "hunt-target" }, hunt.ghost ? htmlCard(ctx, hunt.ghost) : null, " ", target),
    h("p", {}, need),
    hunt.kind === "normal" ? h("div", { class: "meter" }, h("span", { style: { width: `${Math.min(100, (100 * total) / Math.max(1, hunt.value))}%` } }), h("em", {}, `${total} / ${hunt.value}`)) : null,
    h(
      "div",
      { class: "offered" },
      hunt.offered.length
        ? hunt.offered.map((o) => h("span", { class: "offer" }, ctx.swatch(o.seat, true), htmlCard(ctx, o.card)))
        : h("span", { class: "muted" }, ctx.t("spook.hunt.nothing_yet")),
    ),
    hunt.waiting.length ? h("p", { class: "muted" }, ctx.t("spook.hunt.waiting", { names: hunt.waiting.map(ctx.name).join(ctx.t("table.and")) })) : null,
  );
}

function wingOf(ctx, place) {
  const wings = ctx.catalog.wings;
  return Object.keys(wings).find((wing) => wings[wing].includes(place));
}

function handPanel(ctx) {
  const v = ctx.view;
  if (ctx.me === null) return null;
  const hand = v.hands[ctx.me] || [];
  const cards = hand.map((card) => {
    const el = htmlCard(ctx, card, "big");
    const act = find(ctx, "offer", (a) => a.card === card) || find(ctx, "lay_trap", (a) => a.card === card);
    return act ? choice(el, act, label(ctx, act)) : el;
  });
  return h(
    "section",
    { class: "panel hand-panel", id: "hand" },
    h("div", { class: "panel-kicker" }, ctx.t("spook.your_hand")),
    hand.length ? h("div", { class: "spook-hand" }, cards) : h("p", { class: "muted" }, ctx.t("spook.empty_hand")),
  );
}

function outcomePanel(ctx) {
  const v = ctx.view;
  if (!v.outcome) return null;
  const wings = ctx.catalog.wings;
  const wing = v.reason === "wing_haunted" ? Object.keys(wings).find((w) => wings[w].every((room) => v.rooms[Number(room) - 1])) : null;
  return h(
    "section",
    { class: `panel outcome ${v.outcome}`, id: "outcome" },
    h("h3", {}, ctx.t(`spook.outcome.${v.outcome}`)),
    h("p", {}, ctx.t(`spook.reason.${v.reason}`, { wing: wing ? ctx.t(`spook.wing.${wing}`) : "" })),
  );
}

function panels(ctx) {
  return [outcomePanel(ctx), huntPanel(ctx), handPanel(ctx)].filter(Boolean);
}

function seat(ctx, seatIndex) {
  const v = ctx.view;
  const hand = v.hands[seatIndex];
  return h(
    "div",
    { class: "seat-facts" },
    h("span", {}, ctx.t("spook.at_place", { place: placeName(ctx, v.pawns[seatIndex]) })),
    seatIndex !== ctx.me ? (hand ? h("span", { class: "spook-hand small" }, hand.map((card) => htmlCard(ctx, card))) : cardBacks(ctx, v.hand_sizes[seatIndex])) : null,
    v.active === seatIndex && !v.outcome ? h("span", { class: "badge" }, ctx.t("spook.playing")) : null,
  );
}

function prompt(ctx) {
  const v = ctx.view;
  const mine = ctx.table.prompts.find((p) => p.seat === ctx.me);
  if (mine) {
    if (mine.kind === "contribute") return ctx.t("spook.prompt.contribute", { ghost: v.hunt?.ghost ? cardWords(ctx, v.hunt.ghost) : ctx.t("spook.hunt.the_wing") });
    return ctx.t(`spook.prompt.${mine.kind}`, { count: v.steps_left });
  }
  const owed = ctx.table.prompts;
  if (!owed.length) return null;
  const names = owed.map((p) => ctx.name(p.seat)).join(ctx.t("table.and"));
  return ctx.t(`spook.prompt.other.${owed[0].kind}`, { name: names, names });
}

function help(ctx) {
  const mine = ctx.table.prompts.find((p) => p.seat === ctx.me);
  if (!mine) return null;
  if (mine.kind === "move") return ctx.t(ctx.view.moving_pawn === null && ctx.view.seats > 1 ? "spook.help.move_pick" : "spook.help.move");
  if (mine.kind === "contribute") return ctx.t("spook.help.contribute");
  if (ctx.choices.some((a) => a.type === "hunt" || a.type === "lay_trap")) return ctx.t("spook.help.hunt");
  return null;
}

function pawnWords(ctx, pawn) {
  return pawn === ctx.me ? ctx.t("spook.your_pawn") : ctx.t("spook.pawn_of", { name: ctx.name(pawn) });
}

function label(ctx, a) {
  const t = ctx.t;
  switch (a.type) {
    case "move":
      return t("spook.act.move", { pawn: pawnWords(ctx, a.pawn), place: placeName(ctx, a.to) });
    case "hunt":
      if (a.kind === "wing") return t("spook.act.hunt_wing", { wing: t(`spook.wing.${wingOf(ctx, ctx.view.pawns[ctx.view.active])}`) });
      return t(`spook.act.hunt_${a.kind}`, { ghost: cardSpoken(ctx, a.ghost) });
    case "lay_trap":
      return t("spook.act.lay_trap", { card: cardSpoken(ctx, a.card) });
    case "offer":
      return t("spook.act.offer", { card: cardSpoken(ctx, a.card) });
    case "draw":
    case "roll":
    case "stop_moving":
    case "end_turn":
    case "done":
      return t(`spook.act.${a.type}`);
    default:
      return null;
  }
}

function primary(action) {
  return ["draw", "roll", "stop_moving", "end_turn", "done"].includes(action.type) || (action.type === "hunt" && action.kind === "wing");
}

function eventLine(ctx, e) {
  const t = ctx.t;
  const name = (seat) => ctx.name(seat);
  switch (e.type) {
    case "card_drawn":
      if (e.card === null || e.card === undefined) return t("spook.log.card_drawn_hidden", { name: name(e.seat) });
      return t(`spook.log.card_drawn_${e.destination}`, { name: name(e.seat), card: cardWords(ctx, e.card) });
    case "ghost_appeared":
      return t("spook.log.ghost_appeared", { ghost: cardWords(ctx, e.ghost), place: placeName(ctx, e.location) });
    case "trap_sprung":
      return t(e.ghost_destroyed ? "spook.log.trap_sprung" : "spook.log.trap_sprung_queen", { place: placeName(ctx, e.room), ghost: cardWords(ctx, e.ghost), trap: cardName(ctx, e.trap) });
    case "omen_moved":
      return t("spook.log.omen_moved", { place: placeName(ctx, e.room) });
    case "die_rolled":
      return t("spook.log.die_rolled", { name: name(e.seat), value: e.value });
    case "pawn_moved":
      return t("spook.log.pawn_moved", { name: name(e.pawn), from: placeName(ctx, e.origin), to: placeName(ctx, e.to), count: e.steps_left });
    case "move_stopped":
      return t("spook.log.move_stopped", { name: name(e.seat) });
    case "trap_laid":
      return t("spook.log.trap_laid", { name: name(e.seat), card: cardName(ctx, e.trap), place: placeName(ctx, e.room) });
    case "hunt_started":
      return e.kind === "wing"
        ? t("spook.log.hunt_started_wing", { name: name(e.seat), place: placeName(ctx, e.location) })
        : t(`spook.log.hunt_started_${e.kind}`, { name: name(e.seat), ghost: cardWords(ctx, e.ghost), place: placeName(ctx, e.location), value: e.value });
    case "card_offered":
      return t("spook.log.card_offered", { name: name(e.seat), card: cardName(ctx, e.card), total: e.total });
    case "hunter_done":
      return t("spook.log.hunter_done", { name: name(e.seat) });
    case "hunt_succeeded":
      return t("spook.log.hunt_succeeded", { ghosts: e.ghosts.map((g) => cardWords(ctx, g)).join(", "), cards: e.cards.map((c) => cardName(ctx, c)).join(", ") });
    case "hunt_abandoned":
      return t("spook.log.hunt_abandoned");
    case "turn_ended":
      return t("spook.log.turn_ended", { name: name(e.seat), next: name(e.next_seat) });
    case "game_over":
      return t(e.won ? "spook.log.game_over_won" : "spook.log.game_over_lost", { reason: t(`spook.reason.${e.reason}`, { wing: e.wing ? t(`spook.wing.${e.wing}`) : "" }) });
    default:
      return null;
  }
}

function logLines(ctx, entry) {
  return entry.events.map((e) => eventLine(ctx, e)).filter(Boolean);
}

export default { board, panels, seat, prompt, help, label, primary, logLines };
