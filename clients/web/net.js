// The WebSocket to the server that served this page: hello, requests matched to replies by ``ref``, table
// updates handed to ``onUpdate``, and a reconnect with backoff (``onReconnect`` then resumes what was open).
// Also the one plain HTTP request the page makes: a game's catalog.

const PROTOCOL_VERSION = 1;

/** Message types that are table updates (or news of a table: its rematch, its chat), whatever their ``ref``. */
const UPDATES = new Set(["events", "snapshot", "game_over", "rematched", "said", "chat"]);
/** How long a ``check`` waits for its pong before it takes the connection for dead. */
const PROBE_MS = 4000;
/** The most seats ``refollow`` (and a lobby reloaded) takes up again, the latest followed (a burst of resumes counts
 * against the rate). */
export const REFOLLOWED = 5;

class ServerError extends Error {
  /** ``table`` and ``seq``: an error's own (a table gone, or its store set back to ``seq``, PROTOCOL.md). */
  constructor(code, message, { table = null, seq = null } = {}) {
    super(`${code}: ${message}`);
    this.code = code;
    this.detail = message;
    this.table = table;
    this.seq = seq;
  }
}

export class Connection {
  constructor(url, { onUpdate, onStatus, onReconnect, onError }) {
    this.url = url;
    this.onUpdate = onUpdate;
    this.onStatus = onStatus;
    this.onReconnect = onReconnect;
    this.onError = onError;
    this.ws = null;
    this.welcome = null;
    this.pending = new Map(); // ref -> {resolve, reject}
    this.nextRef = 1;
    this.delay = 250;
    this.retrying = false;
    this.retryTimer = null;
    this.keepalive = null;
    this.seats = new Map(); // table -> {token, seq}: the seats this connection followed, to ``refollow``
  }

  /** Open the socket and say hello; resolves with the welcome. */
  open() {
    if (!this.retrying) this.onStatus("connecting");
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      let greeted = false;
      // views: the table's picture comes with every update, decided by this seat or not (no snapshot asked for)
      const hello = { type: "hello", version: PROTOCOL_VERSION, client: "hauntd-web", views: true };
      ws.onopen = () => ws.send(JSON.stringify(hello));
      ws.onmessage = (event) => {
        const msg = JSON.parse(event.data);
        if (!greeted && msg.type === "error" && msg.code === "bad_field" && hello.views) {
          // a server from before views (mixed versions while upgrading, a rollback) refuses the field but keeps
          // the connection: greeted without it, the page asks for a snapshot when its view falls behind
          delete hello.views;
          ws.send(JSON.stringify(hello));
          return;
        }
        if (!greeted) {
          greeted = true;
          if (msg.type !== "welcome") {
            reject(new ServerError(msg.code || "internal", msg.message || "no welcome"));
            ws.close();
            return;
          }
          this.ws = ws;
          this.welcome = msg;
          this.delay = 250;
          this.onStatus("online", msg);
          this.keepAlive(ws, msg.limits && msg.limits.idle_seconds);
          resolve(msg);
          return;
        }
        this.dispatch(msg);
      };
      ws.onclose = () => {
        if (!greeted) reject(new ServerError("unavailable", "the server did not answer"));
        if (this.ws === ws) this.lost();
      };
    });
  }

  /** The server closes a connection silent for ``idle_seconds``: ping at a third of that while this one is open. */
  keepAlive(ws, idleSeconds) {
    clearInterval(this.keepalive);
    if (!idleSeconds) return;
    this.keepalive = setInterval(() => {
      if (this.ws === ws) ws.send(JSON.stringify({ type: "ping" }));
    }, (idleSeconds * 1000) / 3);
  }

  lost() {
    clearInterval(this.keepalive);
    this.ws = null;
    for (const { reject } of this.pending.values()) reject(new ServerError("connection_lost", "connection lost"));
    this.pending.clear();
    this.onStatus("lost");
    this.retryTimer = setTimeout(() => this.retry(), this.delay);
  }

  async retry() {
    this.retryTimer = null;
    this.delay = Math.min(this.delay * 2, 5000);
    this.retrying = true;
    try {
      await this.open();
    } catch {
      this.retryTimer = setTimeout(() => this.retry(), this.delay);
      return;
    }
    this.retrying = false;
    this.onReconnect();
  }

  /** A phone woken from sleep (the tab shown again, the page back from the back-forward cache, the network back) may
   * hold a socket its network dropped without a word, whose close would come minutes later: a ping unanswered within
   * ``PROBE_MS`` drops it and reconnects.  A connection already lost retries now, not at the end of its backoff. */
  check() {
    const ws = this.ws;
    if (!ws) {
      if (this.retryTimer === null) return; // connecting now (or not yet once: the page's first connection)
      clearTimeout(this.retryTimer);
      this.retry();
      return;
    }
    const dead = setTimeout(() => {
      if (this.ws !== ws) return;
      this.lost(); // (its close, when it comes, is no longer this connection's)
      ws.close();
    }, PROBE_MS);
    this.request({ type: "ping" }).then(
      () => clearTimeout(dead),
      () => clearTimeout(dead),
    );
  }

  dispatch(msg) {
    const waiter = msg.ref ? this.pending.get(msg.ref) : undefined;
    if (waiter) {
      this.pending.delete(msg.ref);
      if (msg.type === "error") waiter.reject(new ServerError(msg.code, msg.message, msg));
      else waiter.resolve(msg);
    }
    const held = msg.seq && this.seats.get(msg.table);
    if (held && (msg.seq > held.seq || msg.type === "error")) held.seq = msg.seq; // (an error's: set back to it)
    if (msg.type === "game_over") this.seats.delete(msg.table); // (nothing left to wait for there)
    if (UPDATES.has(msg.type)) this.onUpdate(msg);
    else if (msg.type === "error" && !waiter) this.onError(new ServerError(msg.code, msg.message, msg));
  }

  /** Send ``msg`` and resolve with its reply (an ``error`` reply rejects with a ServerError). */
  request(msg) {
    if (!this.ws) return Promise.reject(new ServerError("connection_lost", "not connected"));
    const ref = `r${this.nextRef++}`;
    return new Promise((resolve, reject) => {
      this.pending.set(ref, { resolve: (reply) => (this.noteSeat(msg, reply), resolve(reply)), reject });
      this.ws.send(JSON.stringify({ ...msg, ref }));
    });
  }

  /** A seat this connection now follows (a join or a resume answered), or gave back (a leave); one whose game is
   * over goes with its ``game_over``, which follows the reply. */
  noteSeat(msg, reply) {
    if (msg.type === "join" || msg.type === "resume" || msg.type === "leave") this.seats.delete(msg.table);
    if (msg.type === "join" || msg.type === "resume") {
      this.seats.set(msg.table, { token: reply.token ?? msg.token, seq: reply.seq ?? 0 }); // (the latest last)
    }
  }

  /** After a reconnect, follow again the seats the lost connection followed but ``shown`` (the page resumes that one
   * itself): a lobby table whose seated players no connection follows is abandoned (``limits.abandoned_after``), so
   * a tab gone back to the lobby, still there for its table, would let it be unlisted by a reconnect. */
  refollow(shown) {
    for (const [table, held] of [...this.seats].slice(-REFOLLOWED)) {
      if (table !== shown) this.resume(table, held);
    }
  }

  /** Follow a seat ``held`` here again, from the last update it had (``follow``). */
  resume(table, held) {
    const request = { type: "resume", table, token: held.token, last_seq: held.seq };
    this.follow(request, (seq) => (held.seq = seq)).catch((err) => {
      if (err.code === "auth" || err.code === "not_found") this.seats.delete(table); // the seat is gone
    });
  }

  /** Send ``request``, a ``resume`` or ``watch`` from its ``last_seq``, and resolve with its answer; where the
   * table's store set it back (PROTOCOL.md: a ``last_seq`` past the table's refused with its ``seq``), tell
   * ``setBack(seq)`` and ask again from there. */
  follow(request, setBack) {
    return this.request(request).catch((err) => {
      if (err.code !== "bad_field" || err.seq === null || err.seq >= request.last_seq) throw err;
      setBack(err.seq);
      return this.follow({ ...request, last_seq: err.seq }, setBack);
    });
  }
}

/** A secret of the page's own for a request that may be sent again (a join's token): 16 random bytes in URL-safe
 * base64, as PROTOCOL.md asks. */
export function newSecret() {
  const data = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...data)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The WebSocket address of the server that served this page: the page's own folder, so a reverse proxy may
 * serve it under a path ("https://example.org/hauntd/" → "wss://example.org/hauntd/"). */
export function serverUrl() {
  const url = new URL(".", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

/** A game's catalog, its public cards and board (``GET /games/<game>.json``); a ServerError when the server
 * refuses it. */
export async function fetchCatalog(game) {
  const reply = await fetch(`games/${encodeURIComponent(game)}.json`); // (relative: the page may sit under a path)
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ServerError(body.code || "unavailable", body.message || `HTTP ${reply.status}`);
  return body;
}
