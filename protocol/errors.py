"""The error-code catalogue, used by every error and rejection on the wire (see PROTOCOL.md)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Why a frame or command was refused.  Values are the strings sent on the wire."""

    MALFORMED = "malformed"  # not a JSON object, bad UTF-8, binary frame
    UNKNOWN_TYPE = "unknown_type"  # "type" names no message
    BAD_FIELD = "bad_field"  # a field missing, of the wrong type, or unknown
    VERSION = "version"  # protocol version not spoken here, or no hello yet
    AUTH = "auth"  # bad seat token, or acting for a seat that is not yours
    NOT_YOUR_TURN = "not_your_turn"  # the seat owes no decision now
    ILLEGAL_MOVE = "illegal_move"  # the rules forbid that action now
    STALE = "stale"  # the command named a table version that is no longer current
    TABLE_FULL = "table_full"  # no free seat, or the chosen seat is taken
    NOT_FOUND = "not_found"  # no such table (or a private one you did not name)
    ALREADY_STARTED = "already_started"  # join, leave or start after the game started
    NOT_STARTED = "not_started"  # act before the game started
    GAME_OVER = "game_over"  # act after the game ended
    BAD_OPTION = "bad_option"  # unknown game, bad seat count or bad table option
    RATE_LIMITED = "rate_limited"  # too many messages per second
    TOO_LARGE = "too_large"  # frame over the size limit
    LIMIT = "limit"  # a per-connection or per-IP limit (tables, connections)
    INTERNAL = "internal"  # a server fault; the command was not applied
