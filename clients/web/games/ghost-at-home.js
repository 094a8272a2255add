// Ghost at Home (engine/ghost_at_home): every seat's three-floor house in SVG, the hand, the piles, the attack
// and the escape, and the game's words.  What a card is (its kind, floor and bulbs) and which card each special
// is come from the game's catalog, ctx.catalog (engine/ghost_at_home/catalog.py).
//
// A choice that needs a card and a place is two clicks: the card in the hand (a local pick kept in
// ctx.drawing), then its target on the board (a room space, a floor, a house); a special that moves a ghost or a
// cat first picks the piece to move on the board.  A card with a single untargeted use is a choice by itself.

import { h, s, choice, pickable, pictured } from "../dom.js";

const W_BOARD = 1000;
const FLOOR_H = 124;
const ROOF_H = 76;
const TOP = 18;
const HOUSE_H = ROOF_H + 3 * FLOOR_H;
const STRIP_Y = TOP + HOUSE_H + 74;
const H_BOARD = STRIP_Y + 150;

/** Actions that need a place on the board. */
const TARGETED = new Set(["play_room", "play_ghost", "play_cat", "space_time_hole", "light_bulb", "cat_food", "elevator", "lightning"]);
/** Specials that first pick a piece on the board, and the piece they move: by action type, which is also the
 * special's kind. */
const SOURCED = { space_time_hole: "ghost", cat_food: "cat", elevator: "cat" };

// -- cards ----------------------------------------------------------------------------------------------
/** A card by id: {kind, floor, bulbs} (G1, G2). */
function cardOf(ctx, card) {
  return ctx.catalog.cards[card];
}

function cardName(ctx, card) {
  const { kind, floor } = cardOf(ctx, card);
  return kind === "room" ? ctx.t("gah.card.room_floor", { floor }) : ctx.t(`gah.card.${kind}`);
}

function cardTitle(ctx, card) {
  return `${cardName(ctx, card)} · ${ctx.t("gah.bulbs", { count: cardOf(ctx, card).bulbs })}`;
}

/** A small icon of ``kind`` centred on (0, 0), about 24 units wide. */
function icon(kind) {
  switch (kind) {
    case "ghost":
      return s(
        "g",
        { class: "icon ghost-icon" },
        s("path", { d: "M-10 11V-1A10 10 0 0 1 10 -1V11l-3.4-3-3.3 3-3.3-3-3.3 3-3.4-3Z" }),
        s("circle", { cx: -3.6, cy: -1, r: 1.9, class: "eye" }),
        s("circle", { cx: 3.6, cy: -1, r: 1.9, class: "eye" }),
      );
    case "cat":
      return s(
        "g",
        { class: "icon cat-icon" },
        s("path", { d: "M-10 10Q-12 -1 -8 -5L-10 -13L-3 -8Q0 -9 3 -8L10 -13L8 -5Q12 -1 10 10Z" }),
        s("circle", { cx: -3.8, cy: 0, r: 1.7, class: "eye" }),
        s("circle", { cx: 3.8, cy: 0, r: 1.7, class: "eye" }),
      );
    case "light_bulb":
    case "bulb":
      return s("g", { class: "icon bulb-icon" }, s("circle", { cy: -3, r: 8 }), s("rect", { x: -4, y: 4, width: 8, height: 7, rx: 1.5, class: "base" }));
    case "space_time_hole":
      return s("g", { class: "icon hole-icon" }, s("circle", { r: 11 }), s("circle", { r: 7 }), s("circle", { r: 3 }));
    case "cat_food":
      return s("g", { class: "icon food-icon" }, s("path", { d: "M-12 0H12A12 10 0 0 1 -12 0Z" }), s("circle", { cx: -4, cy: -3, r: 2.4 }), s("circle", { cx: 2, cy: -4, r: 2.4 }), s("circle", { cx: 6, cy: -2, r: 2.2 }));
    case "elevator":
      return s("g", { class: "icon lift-icon" }, s("rect", { x: -10, y: -12, width: 20, height: 24, rx: 3 }), s("path", { d: "M-5 -2l5-6 5 6ZM-5 2l5 6 5-6Z", class: "arrows" }));
    case "lightning":
      return s("g", { class: "icon bolt-icon" }, s("path", { d: "M3 -13L-8 2H-1L-4 13L8 -3H1Z" }));
    case "joker":
      return s("g", { class: "icon joker-icon" }, s("text", { "text-anchor": "middle", dy: "0.35em" }, "★"));
    default:
      return s("g", { class: "icon room-icon" }, s("path", { d: "M-11 11V-3L0 -12L11 -3V11Z" }), s("rect", { x: -3.5, y: 2, width: 7, height: 9, class: "door" }));
  }
}

/** A card face in SVG at (x, y): ``w`` wide, ``hgt`` high (a portrait card by default; a room in a house fills
 * its space). */
function svgCard(ctx, card, x, y, w, hgt = w * 1.4) {
  const { kind, floor, bulbs } = cardOf(ctx, card);
  const scale = Math.min(w, hgt / 1.4) / 40;
  const drawn = s(
    "g",
    { class: `gcard ${kind}${kind === "room" ? ` f${floor}` : ""}`, transform: `translate(${x} ${y})`, dataset: { card: String(card) } },
    s("title", {}, cardTitle(ctx, card)),
    s("rect", { width: w, height: hgt, rx: 4 * scale }),
    s("g", { transform: `translate(${w / 2} ${hgt / 2 + 2 * scale}) scale(${scale * (hgt < w ? 1.3 : 1)})` }, icon(kind)),
    bulbDots(bulbs, w - 6 * scale, 7 * scale, scale),
    kind === "room" ? s("text", { class: "floor-badge", x: 5 * scale, y: hgt - 6 * scale, "font-size": 13 * scale }, String(floor)) : null,
  );
  return pictured(drawn, cardTitle(ctx, card));
}

function bulbDots(count, right, top, scale) {
  const dots = [];
  for (let i = 0; i < count; i++) dots.push(s("circle", { class: "bulb-dot", cx: right - i * 7 * scale, cy: top, r: 2.6 * scale }));
  return s("g", {}, dots);
}

/** A card face in HTML (the hand). */
function htmlCard(ctx, card, extraClass = "") {
  const { kind, floor, bulbs } = cardOf(ctx, card);
  const art = s("svg", { viewBox: "-16 -16 32 32", class: "gcard-art", "aria-hidden": "true" }, icon(kind));
  const chip = h(
    "span",
    { class: `gcard-chip ${kind}${kind === "room" ? ` f${floor}` : ""} ${extraClass}`, title: cardTitle(ctx, card), dataset: { card: String(card) } },
    h("span", { class: "bulbs" }, "●".repeat(bulbs)),
    art,
    h("span", { class: "name" }, kind === "room" ? ctx.t("gah.floor_n", { floor }) : ctx.t(`gah.card.${kind}`)),
  );
  return pictured(chip, cardTitle(ctx, card));
}

// -- what the seat may do, card by card -----------------------------------------------------------------
/** The card an action plays: its own ``card``, or the special its type names (G8). */
function actionCard(ctx, a) {
  return a.card ?? ctx.catalog.specials[a.type];
}

function actionsOf(ctx, card) {
  return ctx.choices.filter((a) => actionCard(ctx, a) === card && a.type !== "light_floor");
}

/** The hand card whose board targets are shown: the one picked, else the first with a target, else the first
 * with several uses. */
function pickedCard(ctx) {
  const hand = handOf(ctx);
  const usable = hand.filter((card) => actionsOf(ctx, card).length);
  if (usable.includes(ctx.drawing.card)) return ctx.drawing.card;
  return usable.find((card) => actionsOf(ctx, card).some((a) => TARGETED.has(a.type))) ?? usable.find((card) => actionsOf(ctx, card).length > 1) ?? null;
}

/** The piece a sourced special moves, as "seat:floor" (the elevator moves one of the seat's own cats). */
function sourceKey(ctx, a) {
  return `${a.source ?? ctx.me}:${a.source_floor}`;
}

/** The piece (ghost or cat) a sourced special moves: the one picked, else the first offered. */
function pickedSource(ctx, card) {
  const sourced = actionsOf(ctx, card).filter((a) => a.type in SOURCED);
  if (!sourced.length) return null;
  const keys = [...new Set(sourced.map((a) => sourceKey(ctx, a)))];
  return keys.includes(ctx.drawing.source) ? ctx.drawing.source : keys[0];
}

function pick(ctx, notes) {
  Object.assign(ctx.drawing, notes);
  ctx.redraw();
}

function handOf(ctx) {
  if (ctx.me === null) return [];
  return ctx.view.players[ctx.me].hand || [];
}

/** The highest floor of a house holding a room card (G5, G8), 0 if none. */
function topFloor(house) {
  for (let n = 3; n >= 1; n--) if (house.floors[n - 1].rooms.some((r) => r !== null)) return n;
  return 0;
}

/** Board targets now: ``floors["seat:floor"]`` and ``spaces["seat:floor:side"]`` → action, and the pickable
 * pieces ``sources["seat:floor"]`` (exported for the browser test, which checks every targeted choice has one). */
export function targets(ctx) {
  const v = ctx.view;
  const floors = {};
  const spaces = {};
  const sources = {};
  for (const a of ctx.choices) if (a.type === "light_floor") floors[`${ctx.me}:${a.floor}`] = a;
  const card = pickedCard(ctx);
  if (card === null) return { floors, spaces, sources, card };
  const source = pickedSource(ctx, card);
  for (const a of actionsOf(ctx, card)) {
    switch (a.type) {
      case "play_room":
        spaces[`${ctx.me}:${a.floor}:${a.side}`] = a;
        break;
      case "play_ghost":
      case "lightning":
        floors[`${a.target}:${topFloor(v.players[a.target].house)}`] = a;
        break;
      case "play_cat":
      case "light_bulb":
        floors[`${ctx.me}:${a.floor}`] = a;
        break;
      case "space_time_hole":
        sources[sourceKey(ctx, a)] = true;
        if (sourceKey(ctx, a) === source) floors[`${a.target}:${topFloor(v.players[a.target].house)}`] = a;
        break;
      case "cat_food":
      case "elevator":
        sources[sourceKey(ctx, a)] = true;
        if (sourceKey(ctx, a) === source) floors[`${ctx.me}:${a.floor}`] = a;
        break;
      default:
        break;
    }
  }
  return { floors, spaces, sources, card, source };
}

// -- the houses -----------------------------------------------------------------------------------------
function houseWidth(seats) {
  return Math.min(300, (W_BOARD - 40) / seats - 34);
}

function houseX(seats, seat) {
  const slot = (W_BOARD - 40) / seats;
  return 20 + slot * seat + (slot - houseWidth(seats)) / 2;
}

function floorY(number) {
  return TOP + ROOF_H + (3 - number) * FLOOR_H;
}

function pieceAt(ctx, kind, seat, number, x, y, marks) {
  const key = `${seat}:${number}`;
  const el = s("g", { class: `piece ${kind}`, transform: `translate(${x} ${y}) scale(1.6)`, dataset: { piece: kind, seat: String(seat), floor: String(number) } }, s("title", {}, ctx.t(`gah.card.${kind}`)), icon(kind));
  pictured(el, ctx.t(`gah.card.${kind}`));
  const movable = marks.card !== null && SOURCED[cardOf(ctx, marks.card).kind] === kind;
  if (movable && marks.sources[key]) {
    el.classList.add(marks.source === key ? "picked" : "pickable");
    if (marks.source !== key) {
      el.setAttribute("aria-label", ctx.t(`gah.act.pick_${kind}`, { name: ctx.name(seat), floor: number }));
      pickable(el, () => pick(ctx, { source: key }));
    }
  }
  return el;
}

function floorGroup(ctx, seat, number, x, w, marks) {
  const v = ctx.view;
  const floor = v.players[seat].house.floors[number - 1];
  const y = floorY(number);
  const attack = v.attack && v.attack.target === seat && v.attack.floor === number;
  const group = s("g", { class: `floor${floor.lit ? " lit" : ""}${attack ? " attacked" : ""}`, dataset: { seat: String(seat), floor: String(number) }, role: "group", "aria-label": ctx.t("gah.floor_n", { floor: number }) });
  group.append(s("rect", { class: "floor-bg", x, y, width: w, height: FLOOR_H }));
  const centre = Math.min(74, w * 0.32);
  const spaceW = (w - 16 - centre) / 2;
  ["left", "right"].forEach((side, i) => {
    const sx = i === 0 ? x + 8 : x + w - 8 - spaceW;
    const room = floor.rooms[i];
    const space = s("g", { class: `space${room === null ? " empty" : ""}`, dataset: { side } });
    space.append(s("rect", { class: "space-bg", x: sx, y: y + 8, width: spaceW, height: FLOOR_H - 16, rx: 6 }));
    if (room !== null) space.append(svgCard(ctx, room, sx, y + 8, spaceW, FLOOR_H - 16));
    const play = marks.spaces[`${seat}:${number}:${side}`];
    if (play) choice(space, play, label(ctx, play));
    group.append(space);
  });
  const cx = x + w / 2;
  const lit = ctx.t(floor.lit ? "gah.light_on" : "gah.light_off");
  group.append(pictured(s("g", { class: `lamp${floor.lit ? " on" : ""}`, transform: `translate(${cx} ${y + 28})` }, s("title", {}, lit), icon("bulb")), lit));
  const pieces = [...floor.ghosts.map(() => "ghost"), ...(floor.cat !== null ? ["cat"] : []), ...(attack ? ["incoming"] : [])];
  pieces.forEach((kind, i) => {
    const px = cx + (i - (pieces.length - 1) / 2) * 30;
    if (kind === "incoming") {
      group.append(pictured(s("g", { class: "piece incoming", transform: `translate(${px} ${y + 82}) scale(1.6)` }, s("title", {}, ctx.t("gah.incoming")), icon("ghost")), ctx.t("gah.incoming")));
    } else {
      group.append(pieceAt(ctx, kind, seat, number, px, y + 82, marks));
    }
  });
  group.append(s("text", { class: "floor-number", x: x - 8, y: y + FLOOR_H / 2, "text-anchor": "end", dy: "0.35em", "aria-hidden": "true" }, String(number))); // the floor's name says it
  const act = marks.floors[`${seat}:${number}`];
  if (act) choice(group, act, label(ctx, act));
  return group;
}

/** ``text`` cut to ``max`` characters (a long name under a narrow roof). */
function clip(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function house(ctx, seat, marks) {
  const v = ctx.view;
  const x = houseX(v.seats, seat);
  const w = houseWidth(v.seats);
  const escaping = v.escape && v.escape.seat === seat;
  const player = v.players[seat];
  const group = s("g", {
    class: `house${seat === ctx.me ? " mine" : ""}${v.active === seat && v.phase !== "over" ? " active" : ""}${escaping ? " escaping" : ""}${v.winners.includes(seat) ? " winner" : ""}`,
    dataset: { seat: String(seat) },
    role: "group",
    "aria-label": seat === ctx.me ? ctx.t("gah.your_house") : ctx.t("gah.house_of", { name: ctx.name(seat) }),
  });
  const roofBase = TOP + ROOF_H;
  group.append(
    s("path", { class: "roof", d: `M${x - 8} ${roofBase}L${x + w / 2} ${TOP}L${x + w + 8} ${roofBase}Z`, style: { stroke: ctx.colour(seat) } }),
    s("text", { class: "house-name", x: x + w / 2, y: roofBase - 14, "text-anchor": "middle", "aria-hidden": "true" }, clip(seat === ctx.me ? ctx.t("gah.your_house") : ctx.name(seat), Math.floor(w / 10))),
  );
  if (escaping) group.append(s("text", { class: "escape-flag", x: x + w / 2, y: TOP - 2, "text-anchor": "middle" }, ctx.t("gah.escaping")));
  for (let n = 3; n >= 1; n--) group.append(floorGroup(ctx, seat, n, x, w, marks));
  const groundY = TOP + HOUSE_H;
  group.append(s("line", { class: "ground", x1: x - 10, x2: x + w + 10, y1: groundY, y2: groundY }));
  const explored = player.house.floors.reduce((n, f) => n + f.rooms.filter((r) => r !== null).length, 0);
  group.append(
    s("text", { class: "house-facts", x: x + w / 2, y: groundY + 24, "text-anchor": "middle" }, ctx.t("gah.house_facts", { explored, count: player.hand_size })),
  );
  const backs = pictured(s("g", { class: "hand-backs" }), ctx.t("gah.hand_count", { count: player.hand_size }));
  for (let i = 0; i < player.hand_size; i++) backs.append(s("rect", { class: "card-back", x: x + w / 2 - (player.hand_size * 18) / 2 + i * 18, y: groundY + 34, width: 15, height: 21, rx: 2 }));
  group.append(backs);
  if (v.active === seat && v.selected_count && v.phase !== "over") {
    group.append(s("text", { class: "picked-count", x: x + w / 2, y: groundY + 70, "text-anchor": "middle" }, ctx.t(`gah.picked_${v.phase === "light" ? "light" : "discard"}`, { count: v.selected_count })));
  }
  return group;
}

function strip(ctx) {
  const v = ctx.view;
  const group = s("g", { class: "strip" }, s("rect", { class: "strip-bg", x: 20, y: STRIP_Y, width: W_BOARD - 40, height: 134, rx: 14 }));
  const y = STRIP_Y + 28;
  group.append(s("text", { class: "strip-title", x: 44, y }, ctx.t("gah.pile")));
  for (let i = Math.min(3, v.pile_size) - 1; i >= 0; i--) group.append(s("rect", { class: "card-back", x: 48 + i * 3, y: y + 14 - i * 3, width: 54, height: 76, rx: 5 }));
  group.append(s("text", { class: "strip-count", x: 130, y: y + 58 }, ctx.t("gah.cards", { count: v.pile_size })));
  group.append(s("text", { class: "strip-title", x: 260, y }, ctx.t("gah.discard_up", { count: v.discard.length })));
  const shown = v.discard.slice(-12);
  shown.forEach((card, i) => group.append(svgCard(ctx, card, 260 + i * 40, y + 12, 54)));
  if (!shown.length) group.append(s("rect", { class: "empty-pile", x: 260, y: y + 12, width: 54, height: 76, rx: 5 }));
  group.append(s("text", { class: "strip-title", x: 830, y }, ctx.t("gah.face_down")));
  for (let i = Math.min(3, v.face_down) - 1; i >= 0; i--) group.append(s("rect", { class: "card-back", x: 834 + i * 3, y: y + 14 - i * 3, width: 54, height: 76, rx: 5 }));
  if (!v.face_down) group.append(s("rect", { class: "empty-pile", x: 834, y: y + 14, width: 54, height: 76, rx: 5 }));
  group.append(pictured(s("text", { class: "strip-count", x: 904, y: y + 58 }, String(v.face_down)), ctx.t("gah.face_down_count", { count: v.face_down })));
  return group;
}

// -- the renderer ---------------------------------------------------------------------------------------
function board(ctx) {
  const v = ctx.view;
  const marks = targets(ctx);
  const svg = s("svg", { viewBox: `0 0 ${W_BOARD} ${H_BOARD}`, class: "gah-board", style: { "--houses": v.seats }, role: "group", "aria-label": ctx.t("game.ghost-at-home") });
  svg.append(s("rect", { class: "night", width: W_BOARD, height: H_BOARD, rx: 24 }));
  for (let seat = 0; seat < v.seats; seat++) svg.append(house(ctx, seat, marks));
  svg.append(strip(ctx));
  return svg;
}

function handPanel(ctx) {
  if (ctx.me === null) return null;
  const v = ctx.view;
  const hand = handOf(ctx);
  const picked = pickedCard(ctx);
  const selected = new Set(v.selected || []);
  const cards = hand.map((card) => {
    const acts = actionsOf(ctx, card);
    const el = htmlCard(ctx, card, `${selected.has(card) ? "chosen" : ""}${card === picked ? " picked" : ""}`);
    if (acts.length === 1 && !TARGETED.has(acts[0].type)) return choice(el, acts[0], label(ctx, acts[0]));
    if (acts.length && card !== picked) {
      el.classList.add("pickable");
      el.setAttribute("aria-label", ctx.t("gah.act.pick_card", { card: cardTitle(ctx, card) }));
      pickable(el, () => pick(ctx, { card, source: null }));
    }
    return el;
  });
  const uses = picked === null ? [] : actionsOf(ctx, picked).filter((a) => !TARGETED.has(a.type));
  const aimed = picked !== null && actionsOf(ctx, picked).some((a) => TARGETED.has(a.type));
  return h(
    "section",
    { class: "panel hand-panel", id: "hand" },
    h("div", { class: "panel-kicker" }, ctx.t("gah.your_hand")),
    hand.length ? h("div", { class: "gah-hand" }, cards) : h("p", { class: "muted" }, ctx.t("gah.empty_hand")),
    picked !== null ? h("p", { class: "help" }, ctx.t(aimed ? (cardOf(ctx, picked).kind in SOURCED ? "gah.help.aim_source" : "gah.help.aim") : "gah.help.use", { card: cardName(ctx, picked) })) : null,
    uses.length ? h("div", { class: "buttons" }, uses.map((a) => choice(h("button", {}, label(ctx, a)), a))) : null,
  );
}

function attackPanel(ctx) {
  const v = ctx.view;
  if (v.attack && v.phase !== "over") {
    const a = v.attack;
    return h(
      "section",
      { class: "panel attack-panel", id: "attack" },
      h("div", { class: "panel-kicker" }, ctx.t("gah.attack")),
      h("p", {}, ctx.t("gah.attack_line", { attacker: ctx.name(a.attacker), target: ctx.name(a.target), floor: a.floor })),
      h("p", { class: "muted" }, ctx.t("gah.attack_wait", { target: ctx.name(a.target) })),
    );
  }
  if (v.escape && v.phase !== "over") {
    const asked = new Map();
    for (const seat of v.escape.askers) asked.set(seat, (asked.get(seat) || 0) + 1);
    const names = [...asked].map(([seat, n]) => (n > 1 ? `${ctx.name(seat)} ×${n}` : ctx.name(seat)));
    return h(
      "section",
      { class: "panel escape-panel", id: "escape" },
      h("div", { class: "panel-kicker" }, ctx.t("gah.escape")),
      h("p", {}, ctx.t("gah.escape_line", { name: ctx.name(v.escape.seat) })),
      names.length ? h("p", { class: "muted" }, ctx.t("gah.escape_askers", { names: names.join(ctx.t("table.and")) })) : null,
    );
  }
  return null;
}

function outcomePanel(ctx) {
  const v = ctx.view;
  if (v.phase !== "over") return null;
  const names = v.winners.map(ctx.name).join(ctx.t("table.and"));
  return h(
    "section",
    { class: "panel outcome won", id: "outcome" },
    h("h3", {}, v.end === "escaped" ? ctx.t("gah.outcome.escaped", { name: names }) : ctx.t(v.winners.length ? "gah.outcome.round_limit" : "gah.outcome.nobody", { names, count: v.winners.length })),
  );
}

function panels(ctx) {
  return [outcomePanel(ctx), attackPanel(ctx), handPanel(ctx)].filter(Boolean);
}

function seat(ctx, seatIndex) {
  const v = ctx.view;
  const player = v.players[seatIndex];
  const explored = player.house.floors.reduce((n, f) => n + f.rooms.filter((r) => r !== null).length, 0);
  return h(
    "div",
    { class: "seat-facts" },
    h("span", {}, ctx.t("gah.house_facts", { explored, count: player.hand_size })),
    v.active === seatIndex && v.phase !== "over" ? h("span", { class: "badge" }, ctx.t("gah.playing")) : null,
  );
}

function prompt(ctx) {
  const v = ctx.view;
  const mine = ctx.table.prompts.find((p) => p.seat === ctx.me);
  if (mine) {
    if (mine.kind === "cat_defence") return ctx.t("gah.prompt.cat_defence", { name: ctx.name(v.attack.attacker), floor: v.attack.floor });
    if (mine.kind === "stop_escape") return ctx.t("gah.prompt.stop_escape", { name: ctx.name(v.escape.seat) });
    if (mine.kind === "light") {
      const shown = (v.selected || []).reduce((n, card) => n + cardOf(ctx, card).bulbs, 0);
      return ctx.t("gah.prompt.light", { count: shown, needed: ctx.catalog.bulbs_to_light });
    }
    return ctx.t(`gah.prompt.${mine.kind}`);
  }
  const owed = ctx.table.prompts;
  if (!owed.length) return null;
  return ctx.t(`gah.prompt.other.${owed[0].kind}`, { name: ctx.name(owed[0].seat) });
}

function help(ctx) {
  const mine = ctx.table.prompts.find((p) => p.seat === ctx.me);
  if (!mine) return null;
  return ["turn", "light", "cat_defence", "stop_escape"].includes(mine.kind) ? ctx.t(`gah.help.${mine.kind}`) : null;
}

function label(ctx, a) {
  const t = ctx.t;
  const card = a.card === undefined ? null : cardName(ctx, a.card);
  switch (a.type) {
    case "play_room":
      return t(`gah.act.play_room_${a.side}`, { card, floor: a.floor });
    case "play_ghost":
      return t("gah.act.play_ghost", { name: ctx.name(a.target), floor: topFloor(ctx.view.players[a.target].house) });
    case "play_cat":
      return t("gah.act.play_cat", { floor: a.floor });
    case "light_card":
      return t("gah.act.light_card", { card, count: cardOf(ctx, a.card).bulbs });
    case "light_floor":
      return t("gah.act.light_floor", { floor: a.floor });
    case "space_time_hole":
      return t("gah.act.space_time_hole", { from: ctx.name(a.source), source_floor: a.source_floor, to: ctx.name(a.target), floor: topFloor(ctx.view.players[a.target].house) });
    case "light_bulb":
      return t("gah.act.light_bulb", { floor: a.floor });
    case "cat_food":
      return t("gah.act.cat_food", { from: ctx.name(a.source), source_floor: a.source_floor, floor: a.floor });
    case "elevator":
      return t("gah.act.elevator", { source_floor: a.source_floor, floor: a.floor });
    case "lightning":
      return t("gah.act.lightning", { name: ctx.name(a.target), floor: topFloor(ctx.view.players[a.target].house) });
    case "discard":
      return t(a.last ? "gah.act.discard_last" : "gah.act.discard_more", { card });
    case "defend":
      return t("gah.act.defend", { card });
    case "stop_escape":
      return t("gah.act.stop_escape", { name: ctx.name(ctx.view.escape?.seat ?? 0) });
    case "decline":
      return t(ctx.view.escape && !ctx.view.attack ? "gah.act.decline_escape" : "gah.act.decline_defence");
    case "stop_building":
    case "pass":
      return t(`gah.act.${a.type}`);
    default:
      return null;
  }
}

function primary(action) {
  return ["stop_building", "pass", "decline"].includes(action.type);
}

function eventLine(ctx, e) {
  const t = ctx.t;
  const name = (seat) => ctx.name(seat);
  const cards = (list) => list.map((card) => cardName(ctx, card)).join(", ");
  switch (e.type) {
    case "turn_started":
      return t("gah.log.turn_started", { name: name(e.seat), round: e.round });
    case "room_played":
      return t("gah.log.room_played", { name: name(e.seat), card: cardName(ctx, e.card), floor: e.floor });
    case "ghost_played":
      return t(e.escape ? "gah.log.ghost_played_escape" : "gah.log.ghost_played", { name: name(e.seat), target: name(e.target), floor: e.floor });
    case "cat_defended":
      return t("gah.log.cat_defended", { name: name(e.seat) });
    case "declined":
      return t(`gah.log.declined_${e.prompt}`, { name: name(e.seat) });
    case "ghost_met_cat":
      return t("gah.log.ghost_met_cat", { name: name(e.seat), floor: e.floor });
    case "ghost_stays":
      return t("gah.log.ghost_stays", { name: name(e.seat), floor: e.floor });
    case "floor_haunted":
      return t("gah.log.floor_haunted", { name: name(e.seat), floor: e.floor, count: e.cards.length });
    case "cat_placed":
      return t("gah.log.cat_placed", { name: name(e.seat), floor: e.floor });
    case "card_selected":
      return e.card === null || e.card === undefined
        ? t(`gah.log.card_selected_${e.purpose}`, { name: name(e.seat) })
        : t(`gah.log.card_selected_${e.purpose}_card`, { name: name(e.seat), card: cardName(ctx, e.card) });
    case "light_on":
      return t("gah.log.light_on", { name: name(e.seat), floor: e.floor, cards: cards(e.cards) });
    case "ghost_moved":
      return t("gah.log.ghost_moved", { name: name(e.seat), source: name(e.source), source_floor: e.source_floor, target: name(e.target), floor: e.floor });
    case "cat_moved":
      return t(e.source === e.seat ? "gah.log.cat_moved_elevator" : "gah.log.cat_moved", { name: name(e.seat), source: name(e.source), source_floor: e.source_floor, floor: e.floor });
    case "light_off":
      return t("gah.log.light_off", { name: name(e.seat), target: name(e.target), floor: e.floor });
    case "discarded":
      return e.cards ? t("gah.log.discarded_cards", { name: name(e.seat), count: e.count, cards: cards(e.cards) }) : t("gah.log.discarded", { name: name(e.seat), count: e.count });
    case "drew":
      return e.cards ? t("gah.log.drew_cards", { name: name(e.seat), count: e.count, cards: cards(e.cards) }) : t("gah.log.drew", { name: name(e.seat), count: e.count });
    case "reshuffled":
      return t("gah.log.reshuffled", { count: e.count });
    case "passed":
      return t("gah.log.passed", { name: name(e.seat) });
    case "escape_attempt":
      return t("gah.log.escape_attempt", { name: name(e.seat) });
    case "escape_stopped":
      return t("gah.log.escape_stopped", { name: name(e.seat) });
    case "game_over":
      return t(`gah.log.game_over_${e.reason}`, { names: e.winners.map(name).join(t("table.and")) || t("gah.nobody"), count: e.winners.length });
    default:
      return null;
  }
}

function logLines(ctx, entry) {
  return entry.events.map((e) => eventLine(ctx, e)).filter(Boolean);
}

export default { board, panels, seat, prompt, help, label, primary, logLines };
