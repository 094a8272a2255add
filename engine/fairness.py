"""Commit-and-reveal of the shuffle seed (rule M30): published at setup, revealed in the result.

The seed itself is derived from a table secret, committed to at creation, and every seat's nonce, sent by its
player at join: no party alone, the server included, can pick the seed (``derive_seed``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence

_HEX32 = re.compile("[0-9a-f]{64}")
SEED_TAG = b"hauntd/seed/v1\x00"  # domain separation: a seed is never a hash of anything else's inputs


def commitment(seed: bytes, table_id: str) -> str:
    """Hex SHA-256 over the seed followed by the UTF-8 table id."""
    return hashlib.sha256(seed + table_id.encode()).hexdigest()


def verify(seed_hex: str, table_id: str, published: str) -> bool:
    """True when a revealed seed (or secret) matches the commitment published for it: 32 bytes as 64 lowercase
    hex digits, as published, and nothing else (``bytes.fromhex`` would also take spaces and capitals, which
    the web page's check does not)."""
    if not _HEX32.fullmatch(seed_hex):
        return False
    return hmac.compare_digest(commitment(bytes.fromhex(seed_hex), table_id).encode(), published.encode())


def derive_seed(secret: bytes, nonces: Sequence[str]) -> bytes:
    """The game's seed (M30): SHA-256 of ``SEED_TAG``, the table's secret, then each seat's nonce in seat order
    as its UTF-8 length (4 bytes, big-endian) and its UTF-8 bytes, so no two nonce lists hash alike."""
    digest = hashlib.sha256(SEED_TAG + secret)
    for nonce in nonces:
        data = nonce.encode()
        digest.update(len(data).to_bytes(4, "big") + data)
    return digest.digest()
