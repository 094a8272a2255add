// The page: one connection, the lobby or one table (``#/table/<id>``), the language switch.

import { fitTexts, h, keepFocus } from "./dom.js";
import { errorText, setLanguage, preferred, t } from "./i18n.js";
import { rendererFor } from "./games/index.js";
import { chosenOptions, renderLobby } from "./lobby.js";
import { fairnessChecks, newNonce } from "./fairness.js";
import { Connection, REFOLLOWED, newSecret, serverUrl } from "./net.js";
import { renderTable } from "./table.js";
import { TableState } from "./table_state.js";
import "./tip.js";

const app = document.getElementById("app");
const status = document.getElementById("conn-status");
const langSelect = document.getElementById("lang");

const state = {
  name: localStorage.getItem("hauntd.name") || "",
  welcome: null,
  tables: [],
  playing: [], // the public games in play (``tables.playing``), to watch
  held: [], // the tables this tab holds a seat at
  error: null, // () => the lobby's error in words, in the page's language
  errorCode: null, // and its code ("connection_lost": said no more once the connection is back)
  form: { game: "mansion", seats: 4, private: false, bots: false, bot_strategy: "greedy", turn_seconds: null, options: {} },
  table: null, // TableState of the table shown
  renderer: null,
  acts: 0, // actions sent (the browser test waits on it)
  chatDraft: "", // the chat line being written
  typedId: "", // the id typed in the lobby's by-id box (kept across the lobby's redraws, each replacing the input)
};

// -- seat tokens: this tab's survive a reload (sessionStorage); the browser keeps them too (localStorage), so that
// a tab closed by mistake leaves its player the way back to the seat from another tab ------------------------------
const SEAT_KEY = "hauntd.seat.";
const FAIR_KEY = "hauntd.fair."; // the nonce and commitments noted for a table (``noteFairness``), kept beside its seat
const KEPT_SEATS = 10; // the seats the browser keeps, the latest

function readSeat(storage, table) {
  try {
    return JSON.parse(storage.getItem(SEAT_KEY + table));
  } catch {
    return null; // not one of ours
  }
}

/** The seat this tab holds at ``table`` ({seat, token, at}), or null. */
function savedSeat(table) {
  return readSeat(sessionStorage, table);
}

/** The seat this browser last held at ``table``, in this tab or another, or null. */
function keptSeat(table) {
  return readSeat(localStorage, table);
}

/** The seats held in ``storage``, the latest first: [{table, seat, at}]. */
function seatsIn(storage) {
  const held = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    const record = key.startsWith(SEAT_KEY) ? readSeat(storage, key.slice(SEAT_KEY.length)) : null;
    if (record) held.push({ table: key.slice(SEAT_KEY.length), seat: record.seat, at: record.at ?? 0 });
  }
  return held.sort((a, b) => b.at - a.at);
}

function saveSeat(table, seat, token) {
  const record = JSON.stringify({ seat, token, at: Date.now() });
  sessionStorage.setItem(SEAT_KEY + table, record);
  localStorage.setItem(SEAT_KEY + table, record);
  for (const old of seatsIn(localStorage).slice(KEPT_SEATS)) {
    localStorage.removeItem(SEAT_KEY + old.table);
    localStorage.removeItem(FAIR_KEY + old.table);
  }
}

/** The tables this browser holds a seat at, this tab's first, then the latest (the lobby offers the way back to
 * them: a game under way is not among the open tables). */
function heldSeats(limit = 5) {
  const mine = seatsIn(sessionStorage);
  const others = seatsIn(localStorage).filter((kept) => !mine.some((held) => held.table === kept.table));
  return [...mine, ...others].slice(0, limit);
}

function forgetSeat(table) {
  sessionStorage.removeItem(SEAT_KEY + table);
  localStorage.removeItem(SEAT_KEY + table);
}

/** This browser's part in a table's seed (M30), kept like its seat (this tab's, else another's it may take
 * back): the nonce it sends, and the secret's commitment and bot seats the table showed before that nonce first
 * left (``noteFairness``). */
function fairness(table) {
  return JSON.parse(sessionStorage.getItem(FAIR_KEY + table) || localStorage.getItem(FAIR_KEY + table) || "{}");
}

/** A server that saw a nonce before showing its commitment could pick its secret after it, and one that refused a
 * join to get a fresh nonce on the next try could pick among them: so both are noted once per table, and every
 * join and the end's checks use them. */
function noteFairness(table, lobby) {
  const saved = fairness(table);
  if (saved.nonce) return saved;
  const bots = lobby.seats.map((s) => Boolean(s.bot));
  const noted = { nonce: newNonce(), secretCommitment: lobby.secret_commitment ?? null, bots };
  sessionStorage.setItem(FAIR_KEY + table, JSON.stringify(noted));
  localStorage.setItem(FAIR_KEY + table, JSON.stringify(noted));
  return noted;
}

// -- rendering ---------------------------------------------------------------------------------------------
let frame = 0;

function render() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    draw();
  });
}

function draw() {
  keepFocus(app, drawPage);
  const screen = app.firstElementChild?.className ?? "";
  if (screen !== shownScreen && shownScreen !== null) headingFocus();
  shownScreen = screen;
}

let shownScreen = null; // the class of the screen drawn last: the lobby, a table's seating, a table in play

/** A new screen (the seating after "Create", the table after "Start") took away the control that had the focus:
 * the focus goes to the new screen's heading (``h2.screen-heading``, focusable from script only), where Tab goes on
 * into it, instead of back to the top of the page. */
function headingFocus() {
  const now = document.activeElement;
  if (now && now !== document.body && now !== document.documentElement) return;
  app.querySelector("h2.screen-heading")?.focus({ preventScroll: true });
}

function drawPage() {
  document.getElementById("lang-label").textContent = t("lang.label");
  document.body.dataset.acts = String(state.acts);
  if (!state.table) {
    state.held = heldSeats();
    app.replaceChildren(renderLobby(state, lobbyHandlers));
    document.body.dataset.screen = "lobby";
    return;
  }
  const table = state.table;
  const log = app.querySelector(".log-lines");
  const follow = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  const scrollTop = log ? log.scrollTop : 0;
  const boardLeft = app.querySelector(".board")?.scrollLeft ?? null; // a phone's wide board, scrolled sideways
  if (!state.renderer) {
    // (a game's drawing that failed to load says why, and is tried again at the next update)
    app.replaceChildren(h("p", { class: "loading" }, table.error ? table.error() : t("conn.connecting")));
    return;
  }
  app.replaceChildren(renderTable(state.renderer, table, tableHandlers));
  table.drawnSeq = table.seq; // the update whose choices are on the screen
  fitTexts(app);
  document.body.dataset.screen = "table";
  const newLog = app.querySelector(".log-lines");
  if (newLog) newLog.scrollTop = follow ? newLog.scrollHeight : scrollTop;
  const chat = app.querySelector(".chat-lines");
  if (chat) chat.scrollTop = chat.scrollHeight; // the latest line in view
  const board = app.querySelector(".board");
  if (board) {
    board.scrollLeft = boardLeft ?? centred(board, board.querySelector("svg .mine"));
    showTargets(board);
  }
  tickDeadlines();
  redrawForNudges(table);
}

let nudgeTimer = null;

/** Draw the table again when a seat it waits on becomes one to nudge (its button comes beside it). */
function redrawForNudges(table) {
  clearTimeout(nudgeTimer);
  const after = state.welcome?.limits?.nudge_after;
  const ats = table.seats.map((s) => table.nudgeAt(s.seat, after)).filter((at) => at !== null && at > performance.now());
  if (ats.length) nudgeTimer = setTimeout(render, Math.min(...ats) - performance.now() + 50);
}

/** How far to scroll a phone's wide board to centre ``el`` in its box (first the player's own house or pawn). */
function centred(board, el) {
  if (!el) return board.scrollLeft;
  const place = el.getBoundingClientRect();
  const box = board.getBoundingClientRect();
  return board.scrollLeft + place.left - box.left - (box.width - place.width) / 2;
}

let shownTargets = ""; // the board's targets when they were last looked at, as ``showTargets`` keys them

/** When the board's targets change (a decision comes, a card is picked), scroll a phone's wide board to its first
 * target's part of the board (a room, a house, Spook's die and Queen) if that is not in view: the player is not left
 * to hunt for it.  Redrawn with the same targets, the board stays where the player scrolled it. */
function showTargets(board) {
  const targets = board.querySelectorAll("svg [data-action]");
  const key = [...targets].map((el) => el.dataset.action).join("\n");
  if (key === shownTargets) return;
  shownTargets = key;
  const part = targets[0]?.closest("svg > *");
  if (!part) return;
  const [place, box] = [part.getBoundingClientRect(), board.getBoundingClientRect()];
  if (place.left < box.left - 1 || place.right > box.right + 1) board.scrollLeft = centred(board, part);
}

function tickDeadlines() {
  for (const el of app.querySelectorAll(".deadline")) {
    const seconds = Math.max(0, Math.round((Number(el.dataset.due) - performance.now()) / 1000));
    el.textContent = t("table.seconds_left", { seconds });
  }
}
setInterval(tickDeadlines, 1000);

/** The connection's state in words (``conn.<state>``), and the server's name as its title once welcomed. */
function showStatus() {
  status.textContent = t(`conn.${status.dataset.state || "connecting"}`);
  if (state.welcome) status.title = t("conn.server", { server: state.welcome.server });
}

/** Show ``err`` on the table shown, else in the lobby; ``id``: the table it is about, when not the one shown. */
function showError(err, id = state.table?.id) {
  // words, not text: said again in the language chosen after it
  const message = err.code ? () => errorText(err.code, err.detail, { id: id ?? "" }) : () => String(err);
  if (state.table) state.table.error = message;
  else [state.error, state.errorCode] = [message, err.code ?? null];
  render();
}

// -- the connection ----------------------------------------------------------------------------------------
const conn = new Connection(serverUrl(), {
  onUpdate(msg) {
    const table = state.table?.id === msg.table ? state.table : left.get(msg.table);
    if (!table) return;
    if (table.update(msg)) table.refresh((m) => conn.request(m), render);
    if (table !== state.table) return; // (one left for the lobby, kept up to date for the way back)
    if (msg.type === "game_over") fairnessChecks(table).then((checks) => ((table.checks = checks), render()));
    if (!state.renderer && table.game) loadRenderer(table.game);
    render();
  },
  onStatus(kind, welcome) {
    if (welcome) state.welcome = welcome;
    status.dataset.state = kind;
    showStatus();
    if (state.table) {
      state.table.offline = kind !== "online";
      render();
    }
  },
  onReconnect() {
    const table = state.table;
    if (table?.joining) join(table.id, table.joining.seat); // (its first join may have taken the seat: the token tells)
    else if (table) follow(table, table.seq);
    else refreshTables();
    conn.refollow(table?.id);
    if (!table && state.errorCode === "connection_lost") {
      [state.error, state.errorCode] = [null, null]; // what failed while it was down can be done again now
      render();
    }
  },
  onError(err) {
    if (err.seq !== null && err.table) setBack(err.table, err.seq);
    else if (!err.table || !state.table || err.table === state.table.id) showError(err, err.table ?? undefined);
    // (else a table this tab followed in the background, a lobby it waited at, say: not the one it shows)
  },
});

/** The store set table ``id`` back to its update ``seq`` (PROTOCOL.md): the updates after it are void; the table
 * shown is followed again from there (its snapshot next), a seat this tab holds elsewhere is resumed so. */
function setBack(id, seq) {
  const table = state.table;
  if (table && table.id === id) {
    table.setBack(seq);
    follow(table, seq);
    render();
    return;
  }
  left.get(id)?.dispose(); // (one left for the lobby is drawn anew on the way back)
  left.delete(id);
  if (conn.seats.has(id)) conn.resume(id, conn.seats.get(id));
}

async function loadRenderer(game) {
  let renderer;
  try {
    renderer = await rendererFor(game);
  } catch (err) {
    showError(err); // the next update tries again
    return;
  }
  if (state.table && state.table.game === game) {
    state.renderer = renderer;
    render();
  }
}

/** Follow ``table`` from ``lastSeq``: as its seat when this tab holds its token, else as a spectator.  ``back``:
 * the player opened the table themselves (not a reconnect), so a seat of theirs marked away is theirs again. */
function follow(table, lastSeq, back = false) {
  const request = table.seated
    ? { type: "resume", table: table.id, token: table.token, last_seq: lastSeq, ...(back ? { back } : {}) }
    : { type: "watch", table: table.id, last_seq: lastSeq };
  // (a table its store set back while this tab was away, a reload say, is followed again from there)
  return conn.follow(request, (seq) => table.setBack(seq)).then(
    () => {
      if (table.error && state.table === table) {
        table.error = null; // an error from before (a lost connection, say) is old news once the table is followed again
        render();
      }
    },
    (err) => {
      if (table.seated && err.code === "auth") {
        forgetSeat(table.id);
        table.seat = table.token = null;
        return follow(table, lastSeq);
      }
      if (state.table === table && !table.game && err.code !== "connection_lost") {
        // nothing of this table was ever shown (no such table, say): back to the lobby, which says why
        showLobby();
      }
      showError(err, table.id);
    },
  );
}

// -- screens -----------------------------------------------------------------------------------------------
function showTable(id) {
  if (state.table && state.table.id === id) return;
  leaveScreen();
  const held = savedSeat(id);
  const again = left.get(id);
  left.delete(id);
  if (again && again.token === (held?.token ?? null)) state.table = again; // its log whole: nothing is replayed
  else {
    again?.dispose();
    state.table = new TableState(id, held ? { ...fairness(id), ...held } : {});
  }
  if (!held) state.table.kept = keptSeat(id); // offered to take back
  state.table.offline = !conn.ws;
  [state.error, state.errorCode] = [null, null];
  if (location.hash !== `#/table/${id}`) history.pushState(null, "", `#/table/${id}`);
  render();
}

/** The tables left for the lobby that this tab's connection still follows, by id, the last left last: kept up to
 * date, so the way back shows each as it is with its whole log (the server replays nothing to a connection that
 * follows a table already, so a table drawn anew began its log at the way back). */
const left = new Map();

function leaveScreen() {
  const table = state.table;
  if (table && table.status !== "lobby") {
    left.set(table.id, table);
    for (const id of [...left.keys()].slice(0, -REFOLLOWED)) {
      left.get(id).dispose();
      left.delete(id);
    }
  } else if (table) table.dispose();
  state.table = null;
  state.renderer = null;
}

function showLobby() {
  leaveScreen();
  if (location.hash && location.hash !== "#/") history.pushState(null, "", "#/"); // (not on Back to it: Forward stays)
  render();
  refreshTables();
}

async function refreshTables() {
  if (!conn.welcome) return;
  try {
    const reply = await conn.request({ type: "list" });
    state.tables = reply.tables;
    state.playing = reply.playing || [];
  } catch (err) {
    showError(err);
    return;
  }
  if (state.table) return;
  followWaiting(state.tables);
  const panels = ["#open-tables", "#playing-tables"].map((id) => app.querySelector(id));
  state.held = heldSeats();
  const lobby = renderLobby(state, lobbyHandlers);
  const fresh = ["#open-tables", "#playing-tables"].map((id) => lobby.querySelector(id));
  if (panels.every(Boolean) && fresh.every(Boolean)) keepFocus(app, () => panels.forEach((panel, i) => panel.replaceWith(fresh[i])));
  else render();
}

/** Follow this tab's seats at the open tables ``listed`` that its connection does not follow: a tab reloaded in
 * the lobby follows none, and a lobby table whose seated players no connection follows is abandoned
 * (``limits.abandoned_after``), so the table its player waited for from the lobby left the list.  From seq 0: a
 * table not started has few updates. */
function followWaiting(listed) {
  const open = new Set(listed.map((info) => info.table));
  for (const { table } of seatsIn(sessionStorage).slice(0, REFOLLOWED)) {
    const held = savedSeat(table);
    if (!open.has(table) || !held || conn.seats.has(table)) continue;
    conn.request({ type: "resume", table, token: held.token, last_seq: 0 }).catch((err) => err.code === "auth" && forgetSeat(table));
  }
}

function playerName() {
  return state.name.trim().slice(0, 32) || t("lobby.default_name");
}

/** Play from this tab the seat this browser kept at the table shown (its tab closed, say): resume it with its token. */
function takeSeat() {
  const table = state.table;
  const { seat, token } = table.kept;
  const { nonce = null, secretCommitment = table.secretCommitment, bots = table.bots } = fairness(table.id);
  Object.assign(table, { seat, token, nonce, secretCommitment, bots, kept: null, error: null });
  saveSeat(table.id, seat, token);
  follow(table, table.seq, true);
  render();
}

/** "Return to the table" from the lobby's list of one's tables: the seat this tab or another one held there. */
function rejoin(id) {
  showTable(id);
  if (state.table.kept) takeSeat();
  else join(id);
}

/** Sit down at table ``id`` (in ``seat`` while it is free: a rematch keeps the seats, else the first free one). */
async function join(id, seat = null) {
  showTable(id);
  const table = state.table;
  // the seat's token, the page's own: a join sent again with it gets the seat the first one took (PROTOCOL.md)
  const token = table.joining?.token ?? newSecret();
  table.joining = null;
  if (table.seated) {
    follow(table, 0, true); // this tab already holds a seat there
    return;
  }
  try {
    // the table's commitment to its secret is seen (watching it) before this seat's share of the seed leaves
    const lobby = await conn.request({ type: "watch", table: id });
    const { nonce, secretCommitment, bots } = noteFairness(id, lobby);
    const joined = await conn.request({ type: "join", table: id, name: playerName(), nonce, token, ...(seat === null ? {} : { seat }) });
    Object.assign(table, { nonce, secretCommitment, bots });
    table.seat = joined.seat;
    table.token = joined.token;
    table.error = null; // (a lost connection's, said while the join waited for it)
    saveSeat(id, joined.seat, joined.token);
  } catch (err) {
    if (err.code === "connection_lost" && state.table === table) {
      table.joining = { seat, token }; // sent again once the connection is back (``onReconnect``)
      showError(err, id);
      return;
    }
    if (err.code === "table_full" && seat !== null) return join(id);
    if (err.code === "already_started" || err.code === "table_full") {
      table.error = null;
      follow(table, 0);
      return;
    }
    showLobby();
    showError(err, id);
  }
  render();
}

const lobbyHandlers = {
  name(value) {
    state.name = value;
    localStorage.setItem("hauntd.name", value);
  },
  typedId(value) {
    state.typedId = value;
  },
  form(changes) {
    Object.assign(state.form, changes);
    if (changes.game) {
      const game = state.welcome.games.find((g) => g.name === changes.game);
      state.form.seats = Math.min(Math.max(state.form.seats, game.min_seats), game.max_seats);
    }
    render();
  },
  async create() {
    const f = state.form;
    const msg = { type: "create", game: f.game, seats: f.seats, private: f.private };
    if (f.bots) Object.assign(msg, { bots: f.seats - 1, bot_strategy: f.bot_strategy });
    if (f.turn_seconds) msg.turn_seconds = f.turn_seconds;
    const options = chosenOptions(f, f.game);
    if (Object.keys(options).length) msg.options = options;
    try {
      const created = await conn.request(msg);
      await join(created.table);
    } catch (err) {
      showError(err);
    }
  },
  join,
  rejoin,
  watch(id) {
    showTable(id);
    follow(state.table, 0);
  },
  refresh: refreshTables,
};

const tableHandlers = {
  redraw: render,
  name: lobbyHandlers.name,
  get playerName() {
    return state.name;
  },
  join() {
    join(state.table.id);
  },
  takeSeat,
  async start() {
    const table = state.table;
    table.error = null;
    try {
      await conn.request({ type: "start", table: table.id, token: table.token });
    } catch (err) {
      showError(err);
    }
  },
  async leave() {
    const table = state.table;
    table.error = null;
    try {
      await conn.request({ type: "leave", table: table.id, token: table.token });
      forgetSeat(table.id);
      showLobby();
    } catch (err) {
      if (err.code !== "limit") return showError(err);
      table.error = () => t("table.seat_kept"); // its lobby's 200 seat changes are spent: seats are kept until the start
      render();
    }
  },
  /** The server's nudges (``limits``): after how long a seat may be nudged, and the time that gives it. */
  get nudging() {
    const limits = state.welcome?.limits;
    return limits?.nudge_after == null ? null : { after: limits.nudge_after, seconds: limits.nudge_seconds };
  },
  /** Start a clock on ``seat``'s decision: the update that sets it shows its countdown. */
  async nudge(seat) {
    const table = state.table;
    table.error = null;
    try {
      await conn.request({ type: "nudge", table: table.id, token: table.token, seat });
    } catch (err) {
      showError(err);
    }
  },
  /** The player says they are here again: their seat is no longer away (and a table waiting for everyone goes on). */
  back() {
    state.table.error = null;
    follow(state.table, state.table.seq, true);
  },
  lobby: showLobby,
  /** The rematch of the finished table (asked for, unless another seat did), then its seat there. */
  async playAgain() {
    const table = state.table;
    table.error = null;
    try {
      const rematch = table.rematch?.table ?? (await conn.request({ type: "rematch", table: table.id, token: table.token })).rematch;
      await join(rematch, table.seat);
    } catch (err) {
      showError(err);
    }
  },
  watchRematch() {
    lobbyHandlers.watch(state.table.rematch.table);
  },
  get chatDraft() {
    return state.chatDraft;
  },
  draft(value) {
    state.chatDraft = value;
  },
  /** Say the line written at the table's chat (PROTOCOL ``say``); it shows when the server sends it back. */
  async say() {
    const table = state.table;
    const text = state.chatDraft.trim();
    if (!text) return;
    table.error = null;
    try {
      await conn.request({ type: "say", table: table.id, text });
      state.chatDraft = "";
    } catch (err) {
      showError(err);
    }
    render();
  },
  closeScores() {
    state.table.scoresClosed = true;
    render();
  },
  openScores() {
    state.table.scoresClosed = false;
    render();
  },
};

/** Send one of the offered choices. */
async function act(action) {
  const table = state.table;
  // (not a button drawn for an update before the last, whose redraw is still to come: sent with the last one's seq)
  if (!table || !table.choices.length || table.drawnSeq !== table.seq) return;
  table.pending = { seq: null };
  table.error = null;
  state.acts += 1;
  draw(); // at once: the choices disappear before the next click can land
  const cmd = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    const reply = await conn.request({ type: "act", table: table.id, token: table.token, cmd, action, seq: table.seq });
    if (reply.type === "accepted") {
      table.pending.seq = reply.seq;
      table.settle();
    } else {
      table.pending = null;
      table.error = reply.code === "stale" ? () => t("table.stale") : () => t("table.rejected", { message: errorText(reply.code, reply.message) });
    }
  } catch (err) {
    table.pending = null;
    showError(err);
  }
  render();
}

app.addEventListener("click", (event) => {
  const target = event.target.closest("[data-action]");
  if (target) act(JSON.parse(target.dataset.action));
});
app.addEventListener("keydown", (event) => {
  const target = event.target.closest?.("[data-action]");
  if (target && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    act(JSON.parse(target.dataset.action));
  }
});

// -- language and routing ----------------------------------------------------------------------------------
langSelect.value = setLanguage(localStorage.getItem("hauntd.lang") || preferred());
langSelect.addEventListener("change", () => {
  localStorage.setItem("hauntd.lang", setLanguage(langSelect.value));
  showStatus();
  draw();
});

function route() {
  const match = location.hash.match(/^#\/table\/([A-Za-z0-9_-]+)$/);
  if (!match) {
    const mistyped = location.hash.match(/^#\/table\/(.+)$/); // a link cut or mangled on its way: no id can have it
    if (state.table || mistyped) showLobby();
    if (mistyped) showError({ code: "not_found" }, safeDecode(mistyped[1]));
    return;
  }
  if (state.table && state.table.id === match[1]) return;
  showTable(match[1]);
  follow(state.table, 0, true);
}
window.addEventListener("popstate", route);

// a phone woken from sleep, a tab brought back, a page restored from the back-forward cache, the network back: is the
// connection still there?  (``Connection.check``)
document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && conn.check());
window.addEventListener("pageshow", (event) => event.persisted && conn.check());
window.addEventListener("online", () => conn.check());

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray "%"
  }
}

async function main() {
  render();
  for (let delay = 250; !conn.welcome; delay = Math.min(delay * 2, 5000)) {
    try {
      await conn.open();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  if (!state.welcome.games.some((g) => g.name === state.form.game)) state.form.game = state.welcome.games[0]?.name;
  route();
  if (!state.table) refreshTables();
  setInterval(() => state.table || refreshTables(), 5000);
  render();
}

main();
