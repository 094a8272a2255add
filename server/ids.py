"""Table ids: a public one names a table in the lobby; a private one is its only key, its invitation."""

from __future__ import annotations

import secrets

PUBLIC_ID_BYTES = 6
PRIVATE_ID_BYTES = 16  # as unguessable as a seat token (128 bits)
PUBLIC_ID_CHARS = len(secrets.token_urlsafe(PUBLIC_ID_BYTES))  # 8; a private id has 22


def new_table_id(private: bool) -> str:
    """A new table's id.  It never starts with "-", which a command line reads as an option (`hauntd verify ID`,
    `hauntd bot --table ID`)."""
    while (table := secrets.token_urlsafe(PRIVATE_ID_BYTES if private else PUBLIC_ID_BYTES)).startswith("-"):
        pass
    return table
