"""Commit-and-reveal of the shuffle seed (rule M30): published at setup, revealed in the result.

The seed itself is derived from a table secret, committed to at creation, and every seat's nonce, sent by its
player at join: no party alone, the server included, can pick the seed (``derive_seed``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

SEED_TAG = b"hauntd/seed/v1\x00"  # domain separation: a seed is never a hash of anything else's inputs


def commitment(seed: bytes, table_id: str) -> str:
    """Hex SHA-256 over the seed followed by the UTF-8 table id."""
    return hashlib.sha256(seed + table_id.encode()).hexdigest()


def verify(seed_hex: str, table_id: str, published: str) -> bool:
    """True when a revealed seed (hex) matches the commitment published at setup; False for anything not hex."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(seed, table_id).encode(), published.encode())


def derive_seed(secret: bytes, nonces: Sequence[str]) -> bytes:
    """The game's seed (M30): SHA-256 of ``SEED_TAG``, the table's secret, then each seat's nonce in seat order
    as its UTF-8 length (4 bytes, big-endian) and its UTF-8 bytes, so no two nonce lists hash alike."""
    digest = hashlib.sha256(SEED_TAG + secret)
    for nonce in nonces:
        data = nonce.encode()
        digest.update(len(data).to_bytes(4, "big") + data)
    return digest.digest()
