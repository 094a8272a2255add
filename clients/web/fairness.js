// The page's part in rule M30: the nonce it sends when it sits down, and the checks a player can make at the end
// (protocol/PROTOCOL.md, "Checking a game"), computed here wherever the browser offers SHA-256 (a secure context:
// https, or the server on localhost).

const text = new TextEncoder();
const SEED_TAG = "hauntd/seed/v1\0";

/** A fresh nonce for a join: 16 random bytes in hex, this player's share of the game's seed. */
export function newNonce() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The end's checks for ``table`` (its result, secret and nonces revealed): ``seed`` against the start's
 * commitment, ``secret`` against the lobby's commitment, ``derived`` the seed from the secret and every nonce
 * (one per seat, a server-run bot's seat's being empty).
 * null where the browser cannot hash (a plain-http page away from localhost): the player checks by hand. */
export async function fairnessChecks(table) {
  if (!globalThis.crypto?.subtle || !table.result || !table.commitment) return null;
  const id = text.encode(table.id);
  const seed = table.result.seed;
  const checks = { seed: isBytes32(seed) && (await sha256(bytes(seed), id)) === table.commitment };
  if (table.secret && table.secretCommitment) {
    const secret = isBytes32(table.secret) ? bytes(table.secret) : null;
    checks.secret = Boolean(secret) && (await sha256(secret, id)) === table.secretCommitment;
    const nonces = table.nonces.map((n) => text.encode(n)).flatMap((n) => [length(n), n]);
    // one nonce a seat, a server-run bot's the empty string (the seats as first shown): a nonce the server picked
    // could steer the seed
    const bots = table.bots ?? (table.seats || []).map((s) => Boolean(s.bot));
    const onePerSeat = table.nonces.length === bots.length && bots.every((bot, seat) => !bot || table.nonces[seat] === "");
    checks.derived = checks.secret && onePerSeat && (await sha256(text.encode(SEED_TAG), secret, ...nonces)) === seed;
  }
  return checks;
}

async function sha256(...parts) {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (all.set(p, at), at + p.length), 0);
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", all)));
}

/** A nonce's UTF-8 length as 4 big-endian bytes. */
function length(data) {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, data.length);
  return out;
}

/** Whether ``hexText`` is 32 bytes as the server writes them (64 lowercase hex digits), as a seed and a secret are:
 * anything else would be read here as some other bytes than ``hauntd verify`` reads (or refuses). */
function isBytes32(hexText) {
  return typeof hexText === "string" && /^[0-9a-f]{64}$/.test(hexText);
}

function bytes(hexText) {
  return Uint8Array.from(hexText.match(/../g) || [], (b) => parseInt(b, 16));
}

function hex(data) {
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}
