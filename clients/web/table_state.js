// What the page knows of the table it shows, kept in step with the server's sequenced updates.
//
// ``events`` messages carry what happened (kept for the log) and, since the page's hello asks for ``views``, the
// picture of the table (``view``) with every update that holds ``prompts`` and with the last one; ``snapshot``
// messages carry it too (after a join, a resume, the start).  Only a view left behind the updates (a server that
// sends none) makes the page ask for a fresh snapshot (``resume`` for a seat, ``watch`` for a spectator, from the
// current seq, so nothing is replayed twice).  Choices are offered only when the view, the prompts and the legal
// actions all describe the same seq.

const CHAT_SHOWN = 50; // the chat lines kept, the latest (the server keeps as many)
const REFRESH_GAP_MS = 80; // at most ~12 snapshot requests a second, well under the server's rate limit

/** ``prompts`` with ``due``: each deadline on this page's monotonic clock (``performance.now()`` ms), counted from
 * the server's ``time`` beside it as the message arrives, so a computer clock minutes off shows the right countdown. */
function withDue(prompts, serverTime) {
  const arrived = performance.now();
  const now = serverTime ?? Date.now() / 1000; // (a server that sends no time: the computer's clock)
  return prompts.map((p) => (p.deadline == null ? p : { ...p, due: arrived + (p.deadline - now) * 1000 }));
}

export class TableState {
  constructor(id, { seat = null, token = null, nonce = null, secretCommitment = null, bots = null } = {}) {
    this.id = id;
    this.seat = seat;
    this.token = token;
    this.kept = null; // {seat, token}: a seat this browser held here from another tab, offered to take back
    this.game = null;
    this.status = "lobby";
    this.private = false;
    this.commitment = null;
    this.secretCommitment = secretCommitment; // the table's secret, committed to from its creation on (M30)
    this.nonce = nonce; // the one this tab sent when it sat down
    this.bots = bots; // per seat, whether it is a server-run bot's, as first shown: a bot's nonce must be empty
    this.secret = null; // revealed at the end, with every seat's nonce
    this.nonces = null;
    this.checks = null; // what the page could check of them itself (``fairnessChecks``), once the game is over
    this.seq = 0; // the last update received
    this.seats = [];
    this.view = null;
    this.viewSeq = -1;
    this.prompts = [];
    this.legal = [];
    this.promptSeq = -1;
    this.log = []; // {seq, events, seats, status, timeout}
    this.chat = []; // the chat lines {n, seat, name, text, time}, in order
    this.logStartSeq = null; // the seq the log starts after (0: the whole game)
    this.firstView = null; // the view at the start of the log, when the log misses the beginning
    this.result = null;
    this.rematch = null; // {table, seat}: the finished table's rematch and the seat that asked for it
    this.drawing = {};
    this.pending = null; // {seq}: an action sent, waiting for its outcome
    this.joining = null; // {seat, token}: a join whose connection was lost before its answer, to send again
    this.drawnSeq = null; // the update the choices on the screen were drawn for (``drawPage``)
    this.error = null; // () => the error shown, in the page's language
    this.offline = false; // the connection is down: nothing can be sent
    this.refreshing = false;
    this.lastRefresh = 0;
    this.refreshTimer = null;
    this.timed = false; // the table has a time limit (``turn_seconds``): nobody is nudged
    this.stillSince = performance.now(); // when its last update came (as far as this page knows, on its own clock)
  }

  get seated() {
    return this.seat !== null && this.seat !== undefined;
  }

  /** The legal actions the page may offer now (none while waiting or out of step). */
  get choices() {
    if (!this.seated || this.pending || this.offline || this.status !== "playing") return [];
    if (this.viewSeq !== this.seq || this.promptSeq !== this.seq) return [];
    return this.legal;
  }

  get stale() {
    return this.status !== "lobby" && this.viewSeq < this.seq;
  }

  /** Apply one update; returns true when a fresh snapshot should be requested. */
  update(msg) {
    switch (msg.type) {
      case "snapshot":
        return this.onSnapshot(msg);
      case "events":
        return this.onEvents(msg);
      case "rematched":
        this.rematch = { table: msg.rematch, seat: msg.seat };
        return false;
      case "said":
        return this.onChat([msg]);
      case "chat":
        return this.onChat(msg.lines);
      case "game_over":
        this.result = msg.result;
        this.secret = msg.secret || null;
        this.nonces = msg.nonces || []; // none with a secret: the seed's derivation fails its check (M30)
        this.over();
        return this.stale;
      default:
        return false;
    }
  }

  onSnapshot(msg) {
    if (msg.seq < this.viewSeq) return this.stale;
    this.game = msg.game;
    this.private = msg.private || false;
    // the commitments as first shown (M30): the end is checked against them, not against what a later snapshot says
    this.commitment ??= msg.commitment || null;
    this.secretCommitment ??= msg.secret_commitment || null;
    this.bots ??= msg.seats.map((s) => Boolean(s.bot));
    this.seats = msg.seats;
    this.timed = msg.turn_seconds != null;
    if (msg.rematch) this.rematch = { table: msg.rematch, seat: msg.rematch_seat };
    if (msg.seat !== undefined && msg.seat !== null) this.seat = msg.seat;
    if (msg.seq > this.seq) this.stillSince = performance.now();
    if (msg.seq >= this.seq) {
      this.seq = msg.seq;
      this.status = msg.status;
    }
    if (this.logStartSeq === null) {
      this.logStartSeq = msg.seq;
      this.firstView = msg.view ?? null;
    }
    this.view = msg.view ?? null;
    this.viewSeq = msg.seq;
    if (msg.seq >= this.promptSeq) {
      this.prompts = withDue(msg.prompts || [], msg.time);
      this.legal = msg.legal || [];
      this.promptSeq = msg.seq;
    }
    this.settle();
    return this.stale;
  }

  onEvents(msg) {
    if (msg.seq <= this.seq && this.logStartSeq !== null) return false; // already seen
    if (this.logStartSeq === null) this.logStartSeq = msg.seq - 1;
    this.seq = msg.seq;
    this.stillSince = performance.now();
    if (msg.seats) this.seats = msg.seats;
    if (msg.status === "over") this.over();
    else if (msg.status) this.status = msg.status;
    this.log.push({ seq: msg.seq, events: msg.events || [], seats: msg.seats || null, status: msg.status || null, timeout: msg.timeout });
    if (msg.view != null) {
      this.view = msg.view;
      this.viewSeq = msg.seq;
      this.settle();
    }
    if (!msg.prompts) return false; // no news of who decides (a lobby change, a catch-up, the start's snapshot follows)
    return this.onPrompts(msg);
  }

  /** Chat lines: ``said`` one at a time, ``chat`` the last ones after a snapshot; each shown once (by its ``n``: a
   * line said on another server may come in both), in order.  They are no update: no snapshot is asked for. */
  onChat(lines) {
    const known = new Set(this.chat.map((line) => line.n));
    const fresh = lines.filter((line) => !known.has(line.n));
    this.chat = [...this.chat, ...fresh].sort((a, b) => a.n - b.n).slice(-CHAT_SHOWN);
    return false;
  }

  /** The game ended: nobody owes a decision any more (the last prompts' countdowns and "waiting for" go). */
  over() {
    this.status = "over";
    this.prompts = [];
    this.legal = [];
    this.promptSeq = Math.max(this.promptSeq, this.seq); // a snapshot from before the end brings none back
  }

  /** Who must decide as of the update just applied (and my legal actions, when it is me). */
  onPrompts(msg) {
    this.prompts = withDue(msg.prompts, msg.time);
    this.legal = msg.legal || [];
    this.promptSeq = msg.seq;
    return this.stale;
  }

  /** When (``performance.now()`` ms) this page's player may nudge ``seat``, the table having stood still ``after``
   * seconds (the server's ``limits.nudge_after``; none: a server that takes no nudge), or null: never, as things
   * are (a timed table, one's own seat, a bot's, a seat owing nothing or timed already, every player away). */
  nudgeAt(seat, after) {
    if (after == null || this.timed || !this.seated || seat === this.seat || this.status !== "playing") return null;
    const prompt = this.prompts.find((p) => p.seat === seat);
    if (!prompt || prompt.due !== undefined || this.seats[seat]?.bot || this.seats.every((s) => s.bot || s.away)) return null;
    return this.stillSince + after * 1000;
  }

  /** Its store set the table back to its update ``seq`` (PROTOCOL.md): what came after is void; the snapshot there,
   * asked for next, is the table. */
  setBack(seq) {
    this.log = this.log.filter((entry) => entry.seq <= seq);
    this.seq = seq;
    this.viewSeq = this.promptSeq = -1; // (the snapshot at ``seq`` is taken, not ignored as older than the view)
    this.prompts = [];
    this.legal = [];
    this.pending = null;
    this.result = this.secret = this.nonces = this.checks = null;
  }

  /** An action waiting for its outcome is done once the view has caught up with it. */
  settle() {
    if (this.pending && this.pending.seq !== null && this.viewSeq >= this.pending.seq) this.pending = null;
  }

  /** Ask for a snapshot through ``send`` (a function returning a promise), paced and one at a time. */
  refresh(send, onDone) {
    if (!this.stale || this.refreshing || this.refreshTimer) return;
    const wait = this.lastRefresh + REFRESH_GAP_MS - performance.now();
    if (wait > 0) {
      this.refreshTimer = setTimeout(() => {
        this.refreshTimer = null;
        this.refresh(send, onDone);
      }, wait);
      return;
    }
    this.refreshing = true;
    this.lastRefresh = performance.now();
    const request = this.seated
      ? { type: "resume", table: this.id, token: this.token, last_seq: this.seq }
      : { type: "watch", table: this.id, last_seq: this.seq };
    send(request)
      .catch(() => {}) // a lost connection resumes by itself; a refused one is retried on the next update
      .finally(() => {
        this.refreshing = false;
        onDone();
        this.refresh(send, onDone);
      });
  }

  dispose() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
  }
}
