"""Commit-and-reveal of the shuffle seed (rule M30): published at setup, revealed in the result."""

from __future__ import annotations

import hashlib
import hmac


def commitment(seed: bytes, table_id: str) -> str:
    """Hex SHA-256 over the seed followed by the UTF-8 table id."""
    return hashlib.sha256(seed + table_id.encode()).hexdigest()


def verify(seed_hex: str, table_id: str, published: str) -> bool:
    """True when a revealed seed matches the commitment published at setup."""
    return hmac.compare_digest(commitment(bytes.fromhex(seed_hex), table_id), published)
