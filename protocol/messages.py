"""Every message on the wire: one tagged union per direction, JSON text frames, tag field ``type``.

Client → server messages may carry ``ref`` (any short string); the server echoes it on the direct reply or
error so a client can match them.  ``act`` carries ``cmd``, the client's command id: a command retried with the
same id (after a reconnect, say) is applied at most once and answered with the original ``seq``.

Server → client table updates are sequenced: every committed change of a table (a seat taken or given back, the
start, one applied action with all its events) is one ``events`` message with the table's next ``seq``
(1, 2, 3 … gapless), redacted for its audience; during play it also says who must decide now (and, to a seat
that must, its legal actions and view), so one update is one frame.  ``snapshot`` and ``game_over`` describe
the table *as of* a ``seq`` and are not themselves sequenced.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any

import msgspec

PROTOCOL_VERSION = 1

# URL-safe characters only.  A Python pattern's "$" also matches before a final newline (msgspec searches with
# ``re``), so "(?!\n)" refuses one there; in a JSON Schema (ECMA-262) pattern it changes nothing.
URL_SAFE = r"^[A-Za-z0-9_-]+$(?!\n)"
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=URL_SAFE)]
REF_CHARS = 64  # a ref's longest (code points); a refused frame's ref is echoed only within it
Ref = Annotated[str, msgspec.Meta(max_length=REF_CHARS)]
# A display name is visible text: no control characters or line breaks, no bidi controls (a name shown reversed),
# no invisible formatting (zero-width space, word joiner …; the joiners U+200C/D that shape emoji and scripts are
# fine), none of the blank letters that pass for a name (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the
# grapheme joiner, Khmer's silent vowels, the Mongolian vowel separator), and at least one visible character: not
# a space, a joiner, a variation selector (U+180B–D, U+FE00–F: they change the character before them) nor the
# blank Braille pattern U+2800.  (Code points past U+FFFF, such as the tag characters, are not named: a JSON Schema
# pattern spells them differently in each regex dialect.)
NAME = (
    r"^(?=.*[^\s\u180b-\u180d\u200b-\u200d\u2800\ufe00-\ufe0f])"
    r"[^\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f\u2028-\u202e"
    r"\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb]+$(?!\n)"
)
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=NAME)]
CmdId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
# A client's own secret (a seat token, a create's id): at least 128 bits, e.g. 16 random bytes in URL-safe base64.
Secret = Annotated[str, msgspec.Meta(min_length=22, max_length=64, pattern=URL_SAFE)]
Seq = Annotated[int, msgspec.Meta(ge=0)]
# A player's own randomness for the table's seed (M30), e.g. 16 random bytes in hex; revealed at the end.
Nonce = Annotated[str, msgspec.Meta(max_length=64)]
CHAT_CHARS = 200  # a chat line's length, in characters
# A chat line is visible text, as a name is (no control characters, line breaks, bidi controls …; not blank).
ChatText = Annotated[str, msgspec.Meta(min_length=1, max_length=CHAT_CHARS, pattern=NAME)]
# Past U+FFFF, which ``NAME`` leaves alone: the tag characters, invisible (a blank name, or a text hidden after a
# visible one) but in an emoji's tag sequence (the flags of Scotland, Wales …), and the invisible format controls
# (shorthand format controls, musical formatting).  And combining marks as a script stacks them, a few on a letter
# (Vietnamese 2, Tibetan 3, a keycap 2), not "Zalgo" text piling dozens on one, drawn over the lines around it.
MARKS = 6
_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_INVISIBLE = re.compile("[\U000e0000-\U000e007f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a]")


VISIBLE = "of visible text (no control characters, line breaks, bidi controls, invisible formatting or blank letters)"


def unseen(text: str) -> str | None:
    """What ``NAME`` let through in a name or a chat line that is refused all the same (``codec.decode_client``:
    ``bad_field``), in words: an invisible character past U+FFFF, or more than ``MARKS`` combining marks on one
    character; None when there is none."""
    run = 0
    for char in text:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if run > MARKS:
            return f", at most {MARKS} combining marks on a character"
    return "" if _INVISIBLE.search(_FLAG.sub("", text)) else None


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """The base of every client → server message; ``ClientMsg`` is their union, the type a frame decodes to.
    Encoded (by the SDK) with only the fields set: a server from before an optional field refuses it, even at its
    default (PROTOCOL.md, "Compatibility within a version")."""

    ref: Ref | None = None


# -- client → server --------------------------------------------------------------------------------------
class Hello(ClientMessage, tag="hello"):
    """First message of every connection.  ``table`` + ``token`` (+ ``last_seq``) also resume that seat.
    ``views``: the connection's view comes with every update that holds ``prompts`` and with the last one, for a
    client that draws the table (one that only decides has its view whenever it must)."""

    version: int
    client: Annotated[str, msgspec.Meta(max_length=64)] = ""
    table: TableId | None = None
    token: Token | None = None
    last_seq: Seq = 0
    views: bool = False


class Create(ClientMessage, tag="create"):
    """Create a table (the creator does not sit down: ``join`` next).  ``options`` are the game's own;
    ``turn_seconds`` is the per-decision time limit (none by default); ``bots`` fills the first that many seats
    with server-run bots playing ``bot_strategy`` (at least one seat is left for a person).  With ``cmd`` (a
    secret of the client's) a create sent again, say after a reconnect, answers with the table it made."""

    game: str
    seats: int
    options: dict[str, Any] = {}
    private: bool = False
    turn_seconds: Annotated[float, msgspec.Meta(gt=0, le=86400)] | None = None
    bots: Annotated[int, msgspec.Meta(ge=0)] = 0
    bot_strategy: Annotated[str, msgspec.Meta(max_length=32)] = "greedy"
    cmd: Secret | None = None


class ListTables(ClientMessage, tag="list"):
    """Open public tables (not started, a seat free) and public games in play, optionally of one game."""

    game: str | None = None


class Join(ClientMessage, tag="join"):
    """Take a seat (``seat`` or the first free one) before the game starts.  With ``token`` (a secret of the
    client's) the seat is held by that token instead of one the server draws, and a join sent again answers
    with the seat the token already holds.  ``nonce``: the player's share of the seed (M30; none: ``""``)."""

    table: TableId
    name: Name
    seat: Annotated[int, msgspec.Meta(ge=0)] | None = None
    token: Secret | None = None
    nonce: Nonce = ""


class Leave(ClientMessage, tag="leave"):
    """Give a seat back before the game starts."""

    table: TableId
    token: Token


class Watch(ClientMessage, tag="watch"):
    """Follow a table as a spectator (public information only).  With ``last_seq`` the server first sends
    every ``events`` after it; without, only the snapshot."""

    table: TableId
    last_seq: Seq | None = None


class Start(ClientMessage, tag="start"):
    """Start the game once every seat is taken; any seated player may.  With ``cmd`` (as for ``act``) a start
    sent again is answered with the original ``seq``."""

    table: TableId
    token: Token
    cmd: CmdId | None = None


class Act(ClientMessage, tag="act"):
    """One engine action (the game's own JSON, see PROTOCOL.md) for the seat this token holds.

    ``seq``, if given, must equal the table's current ``seq`` or the command is rejected as ``stale``."""

    table: TableId
    token: Token
    cmd: CmdId
    action: dict[str, Any]
    seq: Seq | None = None


class Resume(ClientMessage, tag="resume"):
    """Resume a seat after a reconnect: every ``events`` after ``last_seq``, a snapshot, then live updates.
    ``back``: the seat's player is there again, so an away mark is cleared (a table whose every person is away
    waits for one to come back)."""

    table: TableId
    token: Token
    last_seq: Seq = 0
    back: bool = False


class Rematch(ClientMessage, tag="rematch"):
    """Play again: the seat ``token`` holds at finished table ``table`` asks for its rematch, a new table of the
    same game, options, time limit and privacy, with server-run bots in the seats bots held.  The first ask makes
    it, every later one (any seat, any process) gets the same one: answered ``rematched``.  The asker then takes a
    seat there with ``join`` (its old seat, say), as everyone does: its nonce leaves once it has seen the new
    table's secret commitment (M30)."""

    table: TableId
    token: Token


class Ping(ClientMessage, tag="ping"):
    pass


class Nudge(ClientMessage, tag="nudge"):
    """Start a clock on ``seat``'s decision at a table without a time limit that has stood still for
    ``limits.nudge_after`` seconds: every seat it waits on then has ``limits.nudge_seconds`` to decide."""

    table: TableId
    token: Token
    seat: Annotated[int, msgspec.Meta(ge=0)]


class Say(ClientMessage, tag="say"):
    """A line of table chat, from a connection that follows the table as a seat, or saw its end as one (a spectator
    reads, but does not write); every follower of the table, and every connection kept after its end, gets it as
    ``said``.  It touches no game: no ``seq``, no state."""

    table: TableId
    text: ChatText


ClientMsg = Hello | Create | ListTables | Join | Leave | Watch | Start | Act | Resume | Rematch | Ping | Nudge | Say


# -- server → client --------------------------------------------------------------------------------------
class ServerMessage(msgspec.Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """The base of every server → client message; ``ServerMsg`` is their union, the type a frame decodes to."""


class Limits(msgspec.Struct, kw_only=True, omit_defaults=True):
    """``idle_seconds``: a connection that sends no message for that long is closed (code 4408).
    ``tables_per_minute``: new tables one client address may create a minute (a burst of as many, then one
    every 60 / N seconds); None: no cap.  ``open_tables``: open public tables (not started, a seat free) one
    client address may have created at once; None: no cap.  ``watch_places``: places as a spectator one client
    address may hold at once on this server process (each connection watching a table holds one); None: no cap.
    ``nudge_after``: seconds a table without a time limit must stand still before a seated player may ``nudge`` a
    seat it waits on, which then has ``nudge_seconds`` to decide (None: a server that takes no nudges).
    ``abandoned_after``: seconds after which a public table not started that no person is at (nobody sits, or no
    seated player's connection follows it) leaves the lobby's list and the ``open_tables`` count (see ``list``)."""

    max_frame_bytes: int
    messages_per_second: float
    burst: int
    max_tables_per_connection: int
    idle_seconds: float | None = None
    tables_per_minute: float | None = None
    open_tables: int | None = None
    watch_places: int | None = None
    nudge_after: float | None = None
    nudge_seconds: float | None = None
    abandoned_after: int | None = None


class GameInfo(msgspec.Struct, kw_only=True):
    name: str
    title: str
    min_seats: int
    max_seats: int


class Welcome(ServerMessage, tag="welcome"):
    version: int
    server: str
    games: list[GameInfo]
    limits: Limits
    ref: str | None = None


class TableInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A table as ``list`` shows it, with the seats of its server-run ``bots`` (``taken`` counts them: a table where
    ``taken`` is their number has no person at it yet); one in play (``Tables.playing``) also has its seats'
    ``names``, its last ``seq`` and when it ``started``: what any spectator sees, nothing hidden."""

    table: str
    game: str
    seats: int
    taken: int
    status: str  # lobby | playing | over
    turn_seconds: float | None = None
    names: list[str] = []
    bots: list[int] = []
    seq: int | None = None
    started: float | None = None


class Tables(ServerMessage, tag="tables"):
    """The open public tables (``tables``) and the public games in play (``playing``: the latest started first)."""

    tables: list[TableInfo]
    playing: list[TableInfo] = []
    ref: str | None = None


class Created(ServerMessage, tag="created"):
    table: str
    ref: str | None = None


class Joined(ServerMessage, tag="joined"):
    """Your seat and its secret token (keep it: it is the only way to act or resume for this seat)."""

    table: str
    seat: int
    token: str
    seq: int
    ref: str | None = None


class Left(ServerMessage, tag="left"):
    table: str
    seq: int
    ref: str | None = None


class Started(ServerMessage, tag="started"):
    table: str
    seq: int
    ref: str | None = None


class Nudged(ServerMessage, tag="nudged"):
    """The answer to ``nudge``: ``seq`` is the update that gave the decision its deadline (the table's current one
    when it had one already)."""

    table: str
    seq: int
    ref: str | None = None


class Accepted(ServerMessage, tag="accepted"):
    """The command was committed as table update ``seq``."""

    table: str
    cmd: str
    seq: int
    ref: str | None = None


class Rejected(ServerMessage, tag="rejected"):
    """The command was not applied; the table is exactly as it was."""

    table: str
    cmd: str
    code: str
    message: str
    ref: str | None = None


class SeatInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """``bot``: played by the server.  ``away``: the seat let a deadline pass; the server applies the rules'
    default for it (after a short grace) until it acts again."""

    seat: int
    name: str | None = None  # None: free
    bot: bool = False
    away: bool = False


class PromptInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A decision ``seat`` owes; ``deadline`` (Unix time, seconds) is when the server decides for the seat if it
    has not: the table's time limit, a nudge's, an away seat's grace, or at once for a server-run bot."""

    seat: int
    kind: str
    note: str = ""
    deadline: float | None = None


class Events(ServerMessage, tag="events"):
    """Table update ``seq``: the game events of one committed change as this connection's audience may see
    them; ``seats`` is the new seating when it changed, ``status`` the new status when it changed.

    During play the newest update sent also holds ``prompts``, who must decide as of ``seq`` (public), and when
    you owe a decision ``legal`` (your legal actions) and ``view`` (the table as you see it now), so a client
    can decide without replaying events; a spectator gets ``view`` with every ``prompts``, to show the table, and so
    does a seat whose connection's ``hello`` asked for ``views`` (which also gets it with the last update, ``status``
    over).  ``prompts`` left out means "no news", not "nobody".  ``timeout``: the seat whose deadline passed, this
    update being the rules' default the server applied for it.  ``time``: the server's clock (Unix time) when it
    wrote the update, sent with any prompt's ``deadline``, so a client counts down ``deadline - time`` from the
    update's arrival whatever its own clock says."""

    table: str
    seq: int
    events: list[Any] = []
    seats: list[SeatInfo] | None = None
    status: str | None = None
    timeout: int | None = None
    prompts: list[PromptInfo] | None = None
    legal: list[Any] = []
    view: Any = None
    time: float | None = None


class Snapshot(ServerMessage, tag="snapshot"):
    """The whole table as your audience may see it, as of ``seq``; ``seat`` is absent for a spectator,
    ``view`` until the game starts.  ``secret_commitment`` (from the creation on) commits to the table's secret,
    ``commitment`` (from the start on) to the seed derived from it and the seats' nonces (M30).  ``time`` as in
    ``Events``.  ``rematch``, ``rematch_seat``: a finished table's rematch and the seat that asked for it (as in
    ``rematched``; a private table's only to its seats)."""

    table: str
    game: str
    seq: int
    status: str
    seats: list[SeatInfo]
    private: bool = False
    seat: int | None = None
    commitment: str | None = None
    secret_commitment: str | None = None
    turn_seconds: float | None = None
    view: Any = None
    prompts: list[PromptInfo] = []
    legal: list[Any] = []
    time: float | None = None
    rematch: str | None = None
    rematch_seat: int | None = None
    ref: str | None = None


class GameOver(ServerMessage, tag="game_over"):
    """Final scores, winners, every hidden value revealed, and the seed matching ``commitment`` (M30); the
    table's ``secret`` (hex, matching the snapshots' ``secret_commitment``) and every seat's ``nonces``, from
    which the seed was derived (absent for a table made before seeds were derived)."""

    table: str
    seq: int
    commitment: str
    result: Any
    secret: str | None = None
    nonces: list[str] | None = None


class Rematched(ServerMessage, tag="rematched"):
    """Finished table ``table`` has a rematch, table ``rematch``, which seat ``seat`` asked for first: the answer
    to a ``rematch`` (with its ``ref``), and sent once, unasked, to every connection that followed ``table`` to
    its end (a private table's seats only).  ``join`` it to play again."""

    table: str
    rematch: str
    seat: int
    ref: str | None = None


class Pong(ServerMessage, tag="pong"):
    time: float
    ref: str | None = None


class ChatLine(msgspec.Struct, kw_only=True):
    """A line of table chat: ``n`` numbers the table's lines from 1 (show each once), ``seat`` and its ``name`` said
    it, at ``time`` (the server's Unix time)."""

    n: int
    seat: int
    name: str
    text: str
    time: float


class Said(ServerMessage, ChatLine, tag="said"):
    """A line of table chat, to every follower of the table and every connection kept after its end; to the seat
    that said it, with its ``ref``."""

    table: str
    ref: str | None = None


class Chat(ServerMessage, tag="chat"):
    """The table's last chat ``lines`` (oldest first), after the snapshot of a ``join``, ``watch`` or ``resume``
    (left out when there are none)."""

    table: str
    lines: list[ChatLine]


class Error(ServerMessage, tag="error"):
    """A frame that was not a valid command, or a refused request other than ``act``; or, unsolicited and naming
    its ``table``, the end of a table followed (``not_found``: it is gone, e.g. expired): no more updates of it.
    ``seq``: the table's last stored update, where its store set it back (that notice) or a ``last_seq`` past it
    was refused (``bad_field``): follow it again from there."""

    code: str
    message: str
    ref: str | None = None
    table: str | None = None
    seq: int | None = None


ServerMsg = (
    Welcome
    | Tables
    | Created
    | Joined
    | Left
    | Started
    | Nudged
    | Accepted
    | Rejected
    | Events
    | Snapshot
    | GameOver
    | Rematched
    | Pong
    | Said
    | Chat
    | Error
)
