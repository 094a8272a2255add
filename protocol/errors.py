"""The error-code catalogue, used by every error and rejection on the wire (see PROTOCOL.md)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Why a frame or command was refused.  Values are the strings sent on the wire."""

    MALFORMED = "malformed"  # not a JSON object, bad UTF-8, binary frame
    UNKNOWN_TYPE = "unknown_type"  # "type" missing or naming no message
    BAD_FIELD = "bad_field"  # a field missing, of the wrong type or range, or unknown; not one of the game's actions
    VERSION = "version"  # protocol version not spoken here, or no hello yet
    AUTH = "auth"  # bad seat token, or acting for a seat that is not yours
    NOT_YOUR_TURN = "not_your_turn"  # the seat owes no decision now
    ILLEGAL_MOVE = "illegal_move"  # the rules forbid that action now
    STALE = "stale"  # the command named a table seq that is no longer current, or came past its deadline
    TABLE_FULL = "table_full"  # no free seat, or the chosen seat is taken
    NOT_FOUND = "not_found"  # no such table (over HTTP: no such game catalog)
    ALREADY_STARTED = "already_started"  # join, leave or start after the game started
    NOT_STARTED = "not_started"  # act before the game started, or start with a seat still free
    GAME_OVER = "game_over"  # act after the game ended
    TOO_EARLY = "too_early"  # a nudge before the table has stood still for the server's nudge_after seconds
    NOT_OVER = "not_over"  # rematch of a table whose game is not over
    BAD_OPTION = "bad_option"  # unknown game, bad seat count or bad table option
    RATE_LIMITED = "rate_limited"  # too many messages per second
    TOO_LARGE = "too_large"  # frame over the size limit (the connection is then closed)
    LIMIT = "limit"  # a per-connection limit (tables followed by one connection), or a lobby's seat changes
    OPEN_LIMIT = "open_limit"  # a create past the open public tables one client address may have at once
    BUSY = "busy"  # the table kept changing under the command; nothing was applied, try again
    INTERNAL = "internal"  # a server fault (e.g. the store restarting): send again; an act with the same cmd


class ProtocolError(Exception):
    """A refusal carrying its wire code; raised anywhere below the connection and turned into a reply."""

    def __init__(self, code: Code, message: str = "", ref: str | None = None, seq: int | None = None) -> None:
        super().__init__(f"{code.value}: {message}" if message else code.value)
        self.code = code
        self.message = message or code.value
        self.ref = ref  # the refused frame's ``ref``, when it could not be decoded as a message but had one
        self.seq = seq  # the table's last stored update, for a ``last_seq`` past it (``Error.seq``)
