// Call of the Spirits (engine/mansion): the board in SVG from a seat's view, and the game's words.
//
// Board (rules M1–M3): seven outer rooms clockwise from the top, the Endless Hallway's ring of seven slots (six
// sections and a gap; at rotation r section s faces room (s + r) mod 7) and the Séance Room at the centre.  The
// rooms' names, which Ghost cards are special ghosts, a Tea Party's steps and the dial's values come from the
// game's catalog, ctx.catalog (engine/mansion/catalog.py).

import { h, s, choice, fit, pictured } from "../dom.js";

const SECTION_LETTERS = ["A", "B", "C", "D", "E", "F"];
const SEANCE = -1;
const SLOT = 360 / 7;
const C = 500;
const R_SEANCE = 98;
const R_HALL_IN = 110;
const R_HALL_OUT = 214;
const R_TILE = 366;
const TILE_W = 270; // 4 of the own room's cells across are 24 px wide on a 360 px phone
const TILE_H = 160;
const OWN_ROOM_CELLS = 8; // the cells of one's own room's tile, each a card's place to tap (cardPlaces)

/** How each kind of Ghost card looks: a glyph and a colour. */
const CARD_LOOK = {
  musician: ["♫", "#6a55c9"],
  painting: ["▣", "#a9692c"],
  dancing: ["❦", "#c04a82"],
  tea_party_1: ["☕", "#22857a"],
  tea_party_2: ["☕", "#22857a"],
  tea_party_3: ["☕", "#22857a"],
  grim_grinning: ["☠", "#4f5d6b"],
  ballroom: ["♛", "#b98b12"],
  groom: ["⚭", "#3f6fb5"],
  portrait_tightrope: ["☂", "#7a4a2c"],
  portrait_dynamite: ["✸", "#7a4a2c"],
  portrait_quicksand: ["≋", "#7a4a2c"],
  portrait_tombstone: ["✝", "#7a4a2c"],
  bride: ["❀", "#8d1d44"],
  headless_knight: ["♞", "#8d1d44"],
  madame_leota: ["◉", "#8d1d44"],
  organist: ["♬", "#8d1d44"],
  executioner: ["⚔", "#8d1d44"],
};

// -- geometry -------------------------------------------------------------------------------------------
/** The point at ``angle`` degrees clockwise from 12 o'clock, ``radius`` from (cx, cy). */
function polar(angle, radius, cx = C, cy = C) {
  const a = (angle * Math.PI) / 180;
  return [cx + radius * Math.sin(a), cy - radius * Math.cos(a)];
}

function sector(a0, a1, r0, r1) {
  const [x0, y0] = polar(a0, r1);
  const [x1, y1] = polar(a1, r1);
  const [x2, y2] = polar(a1, r0);
  const [x3, y3] = polar(a0, r0);
  return `M${x0} ${y0}A${r1} ${r1} 0 0 1 ${x1} ${y1}L${x2} ${y2}A${r0} ${r0} 0 0 0 ${x3} ${y3}Z`;
}

/** Kinds in first-seen order with their counts. */
function grouped(cards) {
  const counts = new Map();
  for (const card of cards) counts.set(card, (counts.get(card) || 0) + 1);
  return [...counts];
}

function find(ctx, type, match = () => true) {
  return ctx.choices.find((a) => a.type === type && match(a));
}

function roomName(ctx, room) {
  return ctx.t(`mansion.room.${ctx.catalog.rooms[room]}`);
}

/** A kind of Ghost card: {name, icon (null for a special ghost), copies, steps (a Tea Party's move)} (M6). */
function ghostOf(ctx, card) {
  return ctx.catalog.ghosts.find((ghost) => ghost.name === card);
}

function cardName(ctx, card) {
  return ctx.t(`mansion.card.${card}`);
}

/** A card's name with how many of it there are, when more than one. */
function cardsName(ctx, card, count) {
  return count > 1 ? `${cardName(ctx, card)} ×${count}` : cardName(ctx, card);
}

function roomOfSection(v, section) {
  return (section + v.rotation) % 7;
}

/** The seats at ``position`` (a hallway section, or SEANCE). */
function seatsAt(v, position) {
  return v.positions.flatMap((p, seat) => (p === position ? [seat] : []));
}

// -- pieces ---------------------------------------------------------------------------------------------
function ghostShape(ctx, x, y, scale) {
  const shape = s(
    "g",
    { class: "hitchhikers", transform: `translate(${x} ${y}) scale(${scale})` },
    s("title", {}, ctx.t("mansion.ghosts")),
    s("path", { d: "M-14 12V-2A14 14 0 0 1 14 -2V12l-4.7-4-4.6 4-4.7-4-4.7 4-4.6-4Z" }),
    s("circle", { cx: -5, cy: -2, r: 2.6, class: "eye" }),
    s("circle", { cx: 5, cy: -2, r: 2.6, class: "eye" }),
  );
  return pictured(shape, ctx.t("mansion.ghosts"));
}

function pawn(ctx, seat, x, y, counterRotation) {
  const v = ctx.view;
  const active = v.phase === "turn" && v.turn === seat;
  const piece = s(
    "g",
    {
      class: `pawn${active ? " active" : ""}${seat === ctx.me ? " mine" : ""}`,
      transform: `translate(${x} ${y}) rotate(${counterRotation})`,
    },
    s("title", {}, ctx.name(seat)),
    s("circle", { r: 15, fill: ctx.colour(seat) }),
    s("text", { "text-anchor": "middle", dy: "0.36em", style: { fill: ctx.ink(seat) } }, String(seat + 1)),
  );
  return pictured(piece, ctx.name(seat));
}

/** A Ghost card (with how many of them) in SVG, at (x, y), ``w`` wide; ``cell``: the larger box around it that a
 * tap or a click on it hits, when it has one. */
function svgCard(ctx, card, count, x, y, w, cell = null) {
  const [glyph, colour] = CARD_LOOK[card];
  const { icon, steps: mark } = ghostOf(ctx, card);
  const hgt = w * 1.38;
  const name = cardsName(ctx, card, count);
  const drawn = s(
    "g",
    { class: `card${icon === null ? " special" : ""}`, transform: `translate(${x} ${y})` },
    s("title", {}, name),
    cell ? s("rect", { class: "hit", x: cell.x - x, y: cell.y - y, width: cell.width, height: cell.height }) : null,
    s("rect", { width: w, height: hgt, rx: 4, fill: colour }),
    s("text", { class: "glyph", x: w / 2, y: hgt / 2, "font-size": w * 0.58, "text-anchor": "middle", dy: "0.35em" }, glyph),
    mark ? s("text", { class: "mark", x: 4, y: 11, "font-size": 10 }, String(mark)) : null,
    count > 1
      ? s(
          "g",
          { class: "count", transform: `translate(${w - 3} ${hgt - 3})` },
          s("circle", { r: 9 }),
          s("text", { "text-anchor": "middle", dy: "0.35em" }, String(count)),
        )
      : null,
  );
  return pictured(drawn, name);
}

/** A Ghost card as an HTML chip (collections). */
function htmlCard(ctx, card, count) {
  const [glyph, colour] = CARD_LOOK[card];
  const { icon, steps: mark } = ghostOf(ctx, card);
  const chip = h(
    "span",
    { class: `chip${icon === null ? " special" : ""}`, style: { background: colour }, title: cardName(ctx, card) },
    h("span", { class: "glyph" }, glyph),
    mark ? h("span", { class: "mark" }, String(mark)) : null,
    count > 1 ? h("span", { class: "count" }, `×${count}`) : null,
  );
  return pictured(chip, cardsName(ctx, card, count));
}

/** Card width and cards per row so that ``slots`` cards fit in a room tile (every kind fits: there are 18). */
function cardGrid(slots) {
  const fit = (w) => ({ w, perRow: Math.floor((TILE_W - 15) / (w + 5)), rows: Math.floor((TILE_H - 45) / (w * 1.38 + 5)) });
  const large = fit(33); // 6 × 2
  return slots <= large.perRow * large.rows ? large : fit(24); // 7 × 3
}

/** The places a room's tile draws: one per kind of Ghost card lying there, and the ghosts' when they are there. */
function slotsOf(v, room) {
  return grouped(v.rooms[room]).length + (v.ghosts === room ? 1 : 0);
}

/** Whether one's own room has a cell on the board for each of its ``slots`` (``slotsOf``): up to 4 × 2.  A room more
 * crowded has its cards drawn as small as the other rooms', too small for a finger: they are collected in the list
 * of ``roomCardsPanel`` instead. */
function roomy(slots) {
  return slots <= OWN_ROOM_CELLS;
}

/** Where a room tile's ``count`` cards go, ``slots`` places in all: each card's {x, y, w} and, in the player's own
 * room, its ``cell``.  One's own room is where cards are collected: its cards share the whole tile in up to 4 × 2
 * cells (the top row's over the room's name), each card's hit area, drawn as large as the cell allows.  On a 360 px
 * phone a cell is 24 × 24 px or more (a finger's target) where a card of the other rooms is 12 × 17 px. */
function cardPlaces(x, y, count, slots, mine) {
  if (!mine || !roomy(slots)) {
    const { w, perRow } = cardGrid(slots);
    return Array.from({ length: count }, (_, i) => ({ x: x + 12 + (i % perRow) * (w + 5), y: y + 42 + Math.floor(i / perRow) * (w * 1.38 + 5), w }));
  }
  const rows = slots > 3 ? [[0, 92], [92, TILE_H]] : [[0, TILE_H]]; // the bottom row 68 units tall: 24 px on a 360 px phone
  const cols = Math.ceil(slots / rows.length);
  const cellW = TILE_W / cols;
  // a card's face: under the name (36 units) and 6 units clear of its row's bottom, where its count badge hangs
  const face = ([top, bottom]) => [Math.max(top, 36) + 2, bottom - 6];
  const w = Math.min(56, cellW - 16, ...rows.map((row) => (face(row)[1] - face(row)[0]) / 1.38));
  return Array.from({ length: count }, (_, i) => {
    const [top, bottom] = rows[Math.floor(i / cols)];
    const [faceTop, faceBottom] = face([top, bottom]);
    const cell = { x: x + (i % cols) * cellW, y: y + top, width: cellW, height: bottom - top };
    return { x: cell.x + (cellW - w) / 2, y: y + (faceTop + faceBottom - w * 1.38) / 2, w, cell };
  });
}

function roomTile(ctx, room) {
  const v = ctx.view;
  const [cx, cy] = polar(room * SLOT, R_TILE);
  const x = cx - TILE_W / 2;
  const y = cy - TILE_H / 2;
  const here = v.ghosts === room;
  const mine = ctx.me !== null && v.seat_rooms[ctx.me] === room;
  const tile = s("g", { class: `room${here ? " haunted" : ""}${mine ? " mine" : ""}`, dataset: { room: ctx.catalog.rooms[room] } });
  tile.append(
    s("rect", { x, y, width: TILE_W, height: TILE_H, rx: 12, class: "room-bg" }),
    fit(s("text", { class: "room-name", x: x + 14, y: y + 27 }, roomName(ctx, room)), TILE_W - 28),
  );
  if (here) tile.append(ghostShape(ctx, x + TILE_W - 30, y + TILE_H - 26, 1.35));
  const kinds = grouped(v.rooms[room]);
  const slots = slotsOf(v, room); // the ghosts: the bottom-right slot
  const places = cardPlaces(x, y, kinds.length, slots, mine);
  kinds.forEach(([card, count], i) => {
    const { x: cardX, y: cardY, w, cell } = places[i];
    const collect = mine && roomy(slots) && find(ctx, "collect", (a) => a.card === card);
    const el = svgCard(ctx, card, count, cardX, cardY, w, collect ? cell : null);
    if (collect) choice(el, collect, label(ctx, collect));
    tile.append(el);
  });
  if (!kinds.length) {
    tile.append(s("text", { class: "room-empty", x: cx, y: cy + 18, "text-anchor": "middle" }, "·  ·  ·"));
  }
  const move = find(ctx, "move", (a) => a.to !== SEANCE && roomOfSection(v, a.to) === room);
  if (move) choice(tile, move, label(ctx, move));
  return tile;
}

function hallway(ctx, angle) {
  const v = ctx.view;
  const group = s("g", { class: "hallway", "aria-label": ctx.t("mansion.hallway"), style: { transform: `rotate(${angle}deg)` } });
  for (let slot = 0; slot < 7; slot++) {
    const a0 = slot * SLOT - SLOT / 2 + 1.2;
    const a1 = slot * SLOT + SLOT / 2 - 1.2;
    if (slot === 6) {
      group.append(s("path", { class: "gap", d: sector(a0, a1, R_HALL_IN, R_HALL_OUT) }));
      continue;
    }
    const section = s("path", { class: "section", d: sector(a0, a1, R_HALL_IN, R_HALL_OUT) });
    const move = find(ctx, "move", (a) => a.to === slot);
    if (move) choice(section, move, label(ctx, move));
    else section.append(s("title", {}, ctx.t("mansion.section", { name: SECTION_LETTERS[slot] })));
    const [lx, ly] = polar(slot * SLOT, R_HALL_OUT - 14);
    group.append(
      section,
      s("text", { class: "section-letter", x: lx, y: ly, "text-anchor": "middle", dy: "0.35em", transform: `rotate(${-angle} ${lx} ${ly})` }, SECTION_LETTERS[slot]),
    );
    const here = seatsAt(v, slot);
    here.forEach((seat, i) => {
      const row = i < 3 ? 0 : 1;
      const col = (i % 3) - (Math.min(3, here.length - row * 3) - 1) / 2;
      const [px, py] = polar(slot * SLOT + col * 14, row ? 134 : 168);
      group.append(pawn(ctx, seat, px, py, -angle));
    });
  }
  return group;
}

function seanceRoom(ctx) {
  const v = ctx.view;
  const room = s(
    "g",
    { class: "seance" },
    s("circle", { cx: C, cy: C, r: R_SEANCE, class: "seance-bg" }),
    // the full name, and a phone's short one (the page's style shows one): the circle's width at the text's top
    ["full", "short"].map((size) => fit(s("text", { class: `seance-name ${size}`, x: C, y: C - 42, "text-anchor": "middle" }, ctx.t(`mansion.seance${size === "short" ? "_short" : ""}`)), 2 * Math.sqrt(R_SEANCE ** 2 - 58 ** 2))),
  );
  const here = seatsAt(v, SEANCE);
  here.forEach((seat, i) => {
    const row = i < 3 ? 0 : 1;
    const inRow = Math.min(3, here.length - row * 3);
    room.append(pawn(ctx, seat, C + ((i % 3) - (inRow - 1) / 2) * 36, C + 2 + row * 36, 0));
  });
  const move = find(ctx, "move", (a) => a.to === SEANCE);
  if (move) choice(room, move, label(ctx, move));
  return room;
}

/** The rotate choices, in the board's top corners: turn the hallway 1–3 slots either way.  The buttons are as
 * large as the corners allow (80 × 70 units: 30 × 26 px, a finger's target, on a 375 px phone); the title runs
 * from the board's edge inwards. */
function rotateControls(ctx, hall, angle) {
  const v = ctx.view;
  const groups = [];
  for (const [sign, x, arrow, edge] of [
    [-1, 16, "↺", "start"],
    [1, 728, "↻", "end"],
  ]) {
    const group = s(
      "g",
      { class: "rotate-controls" },
      fit(s("text", { class: "rotate-title", x: edge === "start" ? x : x + 256, y: 34, "text-anchor": edge }, ctx.t("mansion.rotate")), 340),
      s("text", { class: "rotate-arrow", x: x + 128, y: 76, "text-anchor": "middle" }, arrow),
    );
    let any = false;
    for (let k = 1; k <= 3; k++) {
      const r = (v.rotation + sign * k + 7) % 7;
      const rotate = find(ctx, "rotate", (a) => a.r === r);
      if (!rotate) continue;
      any = true;
      const bx = x + (k - 1) * 88;
      const button = s(
        "g",
        { class: "rotate-button", transform: `translate(${bx} 84)` },
        s("rect", { width: 80, height: 70, rx: 10 }),
        s("text", { x: 40, y: 35, "text-anchor": "middle", dy: "0.35em" }, `${sign > 0 ? "+" : "−"}${k}`),
      );
      button.addEventListener("mouseenter", () => (hall.style.transform = `rotate(${angle + sign * k * SLOT}deg)`));
      button.addEventListener("mouseleave", () => (hall.style.transform = `rotate(${angle}deg)`));
      group.append(choice(button, rotate, label(ctx, rotate)));
    }
    if (any) groups.push(group);
  }
  return groups;
}

/** The hallway's angle for this drawing, turning the short way from the last one drawn so it can animate. */
function hallwayAngle(ctx) {
  const drawn = ctx.drawing;
  const rotation = ctx.view.rotation;
  if (drawn.angle === undefined) drawn.angle = rotation * SLOT;
  let delta = (rotation - drawn.rotation + 7) % 7 || 0;
  if (delta > 3) delta -= 7;
  drawn.from = drawn.angle;
  drawn.angle += delta * SLOT;
  drawn.rotation = rotation;
  return drawn.angle;
}

// -- the renderer ---------------------------------------------------------------------------------------
function board(ctx) {
  const v = ctx.view;
  const svg = s("svg", { viewBox: "0 0 1000 1000", class: "mansion-board", role: "group", "aria-label": ctx.t("game.mansion") });
  svg.append(
    s(
      "defs",
      {},
      s(
        "radialGradient",
        { id: "mansion-floor" },
        s("stop", { offset: "0%", "stop-color": "#2c2341" }),
        s("stop", { offset: "100%", "stop-color": "#141020" }),
      ),
    ),
    s("rect", { width: 1000, height: 1000, rx: 28, fill: "url(#mansion-floor)" }),
  );
  for (let room = 0; room < 7; room++) {
    const [x0, y0] = polar(room * SLOT, R_HALL_OUT);
    const [x1, y1] = polar(room * SLOT, R_TILE - TILE_H / 2 + 6);
    svg.append(s("line", { class: "door", x1: x0, y1: y0, x2: x1, y2: y1 }));
  }
  for (let room = 0; room < 7; room++) svg.append(roomTile(ctx, room));
  const angle = hallwayAngle(ctx);
  const hall = hallway(ctx, angle);
  svg.append(s("circle", { class: "hall-rim", cx: C, cy: C, r: R_HALL_OUT + 4 }), hall, seanceRoom(ctx));
  svg.append(...rotateControls(ctx, hall, angle));
  if (ctx.drawing.from !== angle) {
    hall.style.transform = `rotate(${ctx.drawing.from}deg)`; // then turn to where it stands now
    requestAnimationFrame(() => requestAnimationFrame(() => (hall.style.transform = `rotate(${angle}deg)`)));
  }
  svg.append(
    // one above the other in the bottom-left corner, where a phone's larger words still fit
    fit(s("text", { class: "decks", x: 30, y: 942 }, ctx.t("mansion.events_left", { count: v.events_left })), 940),
    fit(s("text", { class: "decks", x: 30, y: 974 }, ctx.t("mansion.decks", { ghosts: v.ghost_deck, haunts: v.haunt_deck })), 940),
  );
  return svg;
}

/** The steps and direction of the current round's event (``either`` until the first player chose), when the
log holds its ``round_started``: the view names the event only. */
function currentEvent(ctx) {
  const events = ctx.table.log.flatMap((entry) => entry.events);
  const start = events.findLastIndex((e) => e.type === "round_started");
  if (start < 0 || events[start].round !== ctx.view.round) return null;
  const moved = events.slice(start).find((e) => e.type === "ghosts_moved" && e.cause === "event");
  return { steps: events[start].steps, direction: moved ? moved.direction : events[start].direction };
}

function eventPanel(ctx) {
  const v = ctx.view;
  if (!v.event) return null;
  const started = currentEvent(ctx);
  return h(
    "section",
    { class: "panel event-card" },
    h("div", { class: "panel-kicker" }, ctx.t("mansion.round", { round: v.round })),
    h("h3", {}, ctx.t(`mansion.event.${v.event}`)),
    started && started.steps
      ? h(
          "p",
          { class: "event-move" },
          ctx.t(started.direction === "either" ? "mansion.event_moves_either" : "mansion.event_moves", {
            count: started.steps,
            direction: ctx.t(`mansion.${started.direction}`),
          }),
        )
      : null,
    h("p", {}, ctx.t(`mansion.condition.${v.event}`)),
  );
}

/** The duel dial (M17): a wedge per bid from 0 to the catalog's maximum, the ones offered clickable. */
function dialPicker(ctx, dials) {
  const svg = s("svg", { viewBox: "-70 -70 140 140", class: "dial" });
  svg.append(s("circle", { r: 66, class: "dial-rim" }));
  const at = (angle, radius) => polar(angle, radius, 0, 0);
  const slot = 360 / (ctx.catalog.dial_max + 1);
  const half = slot / 2 - 3;
  for (let bid = 0; bid <= ctx.catalog.dial_max; bid++) {
    const [o0, o1, i1, i0] = [at(bid * slot - half, 60), at(bid * slot + half, 60), at(bid * slot + half, 20), at(bid * slot - half, 20)];
    const [tx, ty] = at(bid * slot, 40);
    const wedge = s("g", { class: "dial-wedge" });
    wedge.append(
      s("path", { d: `M${o0}A60 60 0 0 1 ${o1}L${i1}A20 20 0 0 0 ${i0}Z` }),
      s("text", { x: tx, y: ty, "text-anchor": "middle", dy: "0.35em" }, String(bid)),
    );
    const dial = dials.find((a) => a.bid === bid);
    if (dial) choice(wedge, dial, label(ctx, dial));
    svg.append(wedge);
  }
  svg.append(s("circle", { r: 16, class: "dial-hub" }));
  return svg;
}

function duelPanel(ctx) {
  const v = ctx.view;
  const duel = v.duel;
  if (!duel) return null;
  const dials = ctx.choices.filter((a) => a.type === "dial");
  const side = (seat, set) =>
    h(
      "div",
      { class: "duellist" },
      ctx.swatch(seat),
      h("span", { class: "who" }, ctx.name(seat)),
      h(
        "span",
        { class: `dial-state${set ? " set" : ""}` },
        seat === ctx.me && v.my_bid !== null && v.my_bid !== undefined
          ? ctx.t("mansion.your_bid", { bid: v.my_bid })
          : ctx.t(set ? "mansion.dial_set" : "mansion.dial_unset"),
      ),
    );
  return h(
    "section",
    { class: "panel duel-panel" },
    h("div", { class: "panel-kicker" }, ctx.t("mansion.duel")),
    h(
      "p",
      { class: "duel-line" },
      htmlCard(ctx, duel.card, 1),
      " ",
      ctx.t("mansion.duel_for", { challenger: ctx.name(duel.challenger), defender: ctx.name(duel.defender), card: cardName(ctx, duel.card) }),
    ),
    h("div", { class: "duellists" }, side(duel.challenger, duel.challenger_set), h("span", { class: "versus" }, ctx.t("mansion.versus")), side(duel.defender, duel.defender_set)),
    dials.length ? h("div", { class: "dial-row" }, dialPicker(ctx, dials), h("p", { class: "help" }, ctx.t("mansion.dial_help", { max: ctx.catalog.dial_max }))) : null,
  );
}

/** One's own room when it has more kinds of cards (and the ghosts) than cells on the board (``roomy``), else null. */
function crowdedRoom(ctx) {
  const v = ctx.view;
  const room = ctx.me === null ? SEANCE : v.seat_rooms[ctx.me];
  if (room === SEANCE || roomy(slotsOf(v, room))) return null;
  return room;
}

/** The cards to collect in one's own room when the board has no cell for each (``roomy``): a list of buttons as
 * large as a finger, each card's look, name and count (M16). */
function roomCardsPanel(ctx) {
  const room = crowdedRoom(ctx);
  if (room === null) return null;
  const buttons = grouped(ctx.view.rooms[room]).flatMap(([card, count]) => {
    const collect = find(ctx, "collect", (a) => a.card === card);
    if (!collect) return [];
    const text = label(ctx, collect);
    return [choice(h("button", { class: "room-card", "aria-label": text }, htmlCard(ctx, card, 1), h("span", { class: "name" }, cardName(ctx, card), count > 1 ? h("span", { class: "count" }, ` ×${count}`) : null)), collect, text)];
  });
  if (!buttons.length) return null;
  return h(
    "section",
    { class: "panel room-cards", id: "room-cards" },
    h("div", { class: "panel-kicker" }, ctx.t("mansion.room_cards", { room: roomName(ctx, room) })),
    h("div", { class: "room-card-list" }, buttons),
  );
}

function handPanel(ctx) {
  const v = ctx.view;
  if (ctx.me === null) return null;
  const hand = v.haunt[ctx.me];
  if (!hand) return null;
  const total = hand.reduce((a, b) => a + b, 0);
  const cards = hand.map((value) => {
    const el = h("span", { class: "haunt-card" }, String(value));
    const discard = find(ctx, "discard_haunt", (a) => a.value === value);
    return discard ? choice(el, discard, label(ctx, discard)) : el;
  });
  return h(
    "section",
    { class: "panel hand-panel" },
    h("div", { class: "panel-kicker" }, ctx.t("mansion.your_haunt", { total })),
    hand.length ? h("div", { class: "haunt-cards" }, cards) : h("p", { class: "muted" }, ctx.t("mansion.no_haunt")),
  );
}

function panels(ctx) {
  return [duelPanel(ctx), roomCardsPanel(ctx), eventPanel(ctx), handPanel(ctx)].filter(Boolean);
}

function seat(ctx, seatIndex) {
  const v = ctx.view;
  const where = v.seat_rooms[seatIndex];
  const haunts = ctx.t("mansion.haunt_count", { count: v.haunt_counts[seatIndex] });
  const info = h(
    "div",
    { class: "seat-facts" },
    h("span", {}, where === SEANCE ? ctx.t("mansion.in_seance") : ctx.t("mansion.in_room", { room: roomName(ctx, where) })),
    pictured(h("span", { class: "haunt-count", title: haunts }, h("span", { class: "haunt-back" }), `×${v.haunt_counts[seatIndex]}`), haunts),
    v.first === seatIndex ? h("span", { class: "badge" }, ctx.t("mansion.first")) : null,
    v.phase === "over" && v.scores.length ? h("span", { class: "badge score" }, ctx.t("mansion.score", { score: v.scores[seatIndex] })) : null,
  );
  const kinds = grouped(v.collections[seatIndex]);
  const collection = h(
    "div",
    { class: "collection" },
    kinds.length
      ? kinds.map(([card, count]) => {
          const chip = htmlCard(ctx, card, count);
          const duel = find(ctx, "duel", (a) => a.target === seatIndex && a.card === card);
          return duel ? choice(chip, duel, label(ctx, duel)) : chip;
        })
      : h("span", { class: "muted" }, ctx.t("mansion.collection_empty")),
  );
  return h("div", {}, info, collection);
}

function prompt(ctx) {
  const v = ctx.view;
  const mine = ctx.table.prompts.find((p) => p.seat === ctx.me);
  if (mine) {
    if (mine.kind === "turn") return ctx.t(v.actions ? "mansion.prompt.turn" : "mansion.prompt.turn_free", { count: v.actions });
    if (mine.kind === "tea_party") return ctx.t("mansion.prompt.tea_party", { count: v.tea_steps });
    const steps = currentEvent(ctx)?.steps;
    if (mine.kind === "event_direction" && !steps) return ctx.t("mansion.prompt.event_direction_unknown");
    return ctx.t(`mansion.prompt.${mine.kind}`, { count: steps });
  }
  const others = ctx.table.prompts;
  if (!others.length) return null;
  const names = others.map((p) => ctx.name(p.seat)).join(ctx.t("table.and"));
  return ctx.t(`mansion.prompt.other.${others[0].kind}`, { name: names, names });
}

function help(ctx) {
  const mine = ctx.table.prompts.find((p) => p.seat === ctx.me);
  if (!mine) return null;
  if (mine.kind === "turn") return ctx.t(crowdedRoom(ctx) === null ? "mansion.help.turn" : "mansion.help.turn_crowded");
  if (mine.kind === "grim_grinning" || mine.kind === "candlelight") return ctx.t("mansion.help.discard");
  return null;
}

function label(ctx, a) {
  const v = ctx.view;
  const t = ctx.t;
  switch (a.type) {
    case "move":
      return a.to === SEANCE ? t("mansion.act.move_seance") : t("mansion.act.move", { room: roomName(ctx, roomOfSection(v, a.to)) });
    case "rotate": {
      const delta = (a.r - v.rotation + 7) % 7;
      const params = { steps: delta <= 3 ? delta : 7 - delta, arrow: delta <= 3 ? "↻" : "↺" };
      const pos = ctx.me === null ? SEANCE : v.positions[ctx.me];
      return pos === SEANCE ? t("mansion.act.rotate", params) : t("mansion.act.rotate_to", { ...params, room: roomName(ctx, (pos + a.r) % 7) });
    }
    case "collect":
      return t("mansion.act.collect", { card: cardName(ctx, a.card) });
    case "duel":
      return t("mansion.act.duel", { name: ctx.name(a.target), card: cardName(ctx, a.card) });
    case "discard_haunt":
      return t("mansion.act.discard_haunt", { value: a.value });
    case "dial":
      return t("mansion.act.dial", { bid: a.bid });
    case "direction":
      return `${a.direction === "cw" ? "↻" : "↺"} ${t("mansion.act.direction", { direction: t(`mansion.${a.direction}`) })}`;
    case "end_turn":
    case "decline":
      return t(`mansion.act.${a.type}`);
    default:
      return null;
  }
}

const PRIMARY = new Set(["end_turn", "direction", "decline"]);

function primary(action) {
  return PRIMARY.has(action.type);
}

/** The log's words for one event; ``memo`` carries the hallway's rotation through the log. */
function eventLines(ctx, e, memo) {
  const t = ctx.t;
  const name = (seat) => ctx.name(seat);
  switch (e.type) {
    case "round_started":
      return [t("mansion.log.round_started", { round: e.round, event: t(`mansion.event.${e.event}`) })];
    case "ghosts_moved":
      return [t("mansion.log.ghosts_moved", { start: roomName(ctx, e.start), to: roomName(ctx, e.to) })];
    case "ghost_cards_placed":
      return [t("mansion.log.ghost_cards_placed", { count: e.rooms.reduce((n, room) => n + room.length, 0) })];
    case "turn_started":
      return [t("mansion.log.turn_started", { name: name(e.seat), count: e.actions })];
    case "moved": {
      const place = e.to === SEANCE ? t("mansion.seance") : roomName(ctx, (e.to + memo.rotation) % 7);
      return [t("mansion.log.moved", { name: name(e.seat), place })];
    }
    case "rotated": {
      memo.rotation = e.to;
      const delta = (e.to - e.start + 7) % 7;
      const turn = { name: name(e.seat), steps: delta <= 3 ? delta : 7 - delta, arrow: delta <= 3 ? "↻" : "↺" };
      return [t(e.free ? "mansion.log.rotated_free" : "mansion.log.rotated", turn)];
    }
    case "collected":
      return [
        e.room === -1
          ? t("mansion.log.collected_groom", { name: name(e.seat), card: cardName(ctx, e.card) })
          : t("mansion.log.collected", { name: name(e.seat), card: cardName(ctx, e.card), room: roomName(ctx, e.room) }),
      ];
    case "haunt_drawn":
      return [
        e.values
          ? t("mansion.log.haunt_drawn_values", { name: name(e.seat), count: e.count, values: e.values.join(", ") })
          : t("mansion.log.haunt_drawn", { name: name(e.seat), count: e.count }),
      ];
    case "haunt_discarded":
      return [
        e.value !== null && e.value !== undefined
          ? t("mansion.log.haunt_discarded_value", { name: name(e.seat), value: e.value })
          : t("mansion.log.haunt_discarded", { name: name(e.seat) }),
      ];
    case "declined":
      return [t("mansion.log.declined", { name: name(e.seat) })];
    case "duel_started":
      return [t("mansion.log.duel_started", { challenger: name(e.challenger), defender: name(e.defender), card: cardName(ctx, e.card) })];
    case "dial_set":
      return [
        e.bid !== null && e.bid !== undefined
          ? t("mansion.log.dial_set_bid", { name: name(e.seat), bid: e.bid })
          : t("mansion.log.dial_set", { name: name(e.seat) }),
      ];
    case "duel_revealed":
      return [
        t("mansion.log.duel_revealed", {
          challenger: name(e.challenger),
          defender: name(e.defender),
          cbid: e.challenger_bid,
          dbid: e.defender_bid,
          winner: name(e.winner),
          card: cardName(ctx, e.card),
        }),
      ];
    case "turn_ended":
      return [t("mansion.log.turn_ended", { name: name(e.seat) })];
    case "game_over":
      return [t("mansion.log.game_over", { scores: e.scores.map((score, seat) => `${name(seat)} ${score}`).join(", ") })];
    default:
      return [];
  }
}

function logLines(ctx, entry, memo) {
  if (memo.rotation === undefined) {
    const first = ctx.table.firstView;
    memo.rotation = first && ctx.table.logStartSeq > 0 ? first.rotation : 0;
  }
  return entry.events.flatMap((e) => eventLines(ctx, e, memo));
}

/** Extra columns of the final scores: each seat's Haunt total and the cards the penalty took (M19–M20). */
function scoreColumns(ctx, result) {
  const reveal = result.reveal || {};
  return [
    { title: ctx.t("mansion.haunt_total"), cell: (seatIndex) => String(reveal.haunt_totals?.[seatIndex] ?? "") },
    {
      title: ctx.t("mansion.discarded"),
      cell: (seatIndex) => h("span", { class: "collection" }, grouped(reveal.discarded?.[seatIndex] || []).map(([card, count]) => htmlCard(ctx, card, count))),
    },
  ];
}

/** M22: of two seats with one score, the lower Haunt total is placed first. */
function tiebreak(result) {
  return (seatIndex) => result.reveal?.haunt_totals?.[seatIndex] ?? 0;
}

export default { board, panels, seat, prompt, help, label, primary, logLines, scoreColumns, tiebreak };
