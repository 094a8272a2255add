"""Encoders and typed decoders for both directions, created once (msgspec reuses their buffers)."""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from protocol.errors import Code, ProtocolError
from protocol.messages import (
    NAME,
    PROTOCOL_VERSION,
    REF_CHARS,
    URL_SAFE,
    VISIBLE,
    ClientMsg,
    Hello,
    Join,
    Say,
    ServerMsg,
    unseen,
)

_client_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ClientMsg)
_server_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ServerMsg)
_encoder = msgspec.json.Encoder()


class _Peek(msgspec.Struct):
    """Just enough of a refused frame to tell a hello of another protocol version from a malformed frame, and
    to echo its ``ref``."""

    type: Any = None
    version: Any = msgspec.UNSET
    ref: Any = None

    def echoed_ref(self) -> str | None:
        """The ``ref`` to echo in the refusal: a string within ``REF_CHARS`` (else none, PROTOCOL.md)."""
        return self.ref if isinstance(self.ref, str) and len(self.ref) <= REF_CHARS else None


_peek_decoder: msgspec.json.Decoder[_Peek] = msgspec.json.Decoder(_Peek)

# A pattern refused, in words (as PROTOCOL.md words them) instead of a Python regular expression, escaped twice.
_WORDED = {
    f"matching regex {NAME!r}": VISIBLE,
    f"matching regex {URL_SAFE!r}": "of URL-safe characters (A-Z a-z 0-9 _ -)",
}


def encode(msg: msgspec.Struct) -> bytes:
    """A message as a JSON text frame's UTF-8 bytes (either direction)."""
    return _encoder.encode(msg)


def _classify(exc: msgspec.ValidationError) -> Code:
    text = str(exc)
    if "at `$.type`" in text or "missing required field `type`" in text:
        return Code.UNKNOWN_TYPE
    if " - at `$" not in text and "missing required field" not in text and "unknown field" not in text:
        return Code.MALFORMED  # the frame is not a JSON object at all
    return Code.BAD_FIELD


def decode_client(frame: bytes | str) -> ClientMsg:
    """One client frame; raises ``ProtocolError`` with ``malformed`` / ``unknown_type`` / ``bad_field`` /
    ``version`` (a hello of another protocol version, whatever else it holds)."""
    try:
        msg: ClientMsg = _client_decoder.decode(frame)
    except msgspec.ValidationError as exc:  # (a subclass of DecodeError: first)
        peek = _peek(frame)
        if peek is not None and peek.type == "hello" and not _is_ours(peek.version):
            raise _other_version(peek) from None
        raise ProtocolError(_classify(exc), _worded(str(exc)), peek.echoed_ref() if peek else None) from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(Code.MALFORMED, str(exc)) from None
    except RecursionError:  # msgspec's own depth limit for JSON nested too deeply
        raise ProtocolError(Code.MALFORMED, "JSON nested too deeply") from None
    if isinstance(msg, Hello) and msg.version != PROTOCOL_VERSION:
        peek = _peek(frame)
        if peek is not None:
            raise _other_version(peek)
    if isinstance(msg, Join | Say):
        field, text = ("name", msg.name) if isinstance(msg, Join) else ("text", msg.text)
        if (problem := unseen(text)) is not None:
            raise ProtocolError(Code.BAD_FIELD, f"Expected `str` {VISIBLE}{problem} - at `$.{field}`", msg.ref)
    return msg


def _worded(text: str) -> str:
    """``text`` with every pattern of ``_WORDED`` said in words."""
    for pattern, words in _WORDED.items():
        text = text.replace(pattern, words)
    return text


def _is_ours(version: Any) -> bool:
    """Only the JSON integer 1 is this protocol's version: ``1.0`` and ``true``, which Python holds equal to it,
    are others."""
    return type(version) is int and version == PROTOCOL_VERSION


def _peek(frame: bytes | bytearray | memoryview | str) -> _Peek | None:
    """A frame that is a JSON object, as a ``_Peek``; None otherwise."""
    try:
        return _peek_decoder.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def _other_version(peek: _Peek) -> ProtocolError:
    said = "no version" if peek.version is msgspec.UNSET else "version " + _encoder.encode(peek.version).decode()
    message = f"this server speaks protocol version {PROTOCOL_VERSION}; the hello said {said}"
    return ProtocolError(Code.VERSION, message, peek.echoed_ref())


class UnknownServerType(Exception):
    """A server frame of a message ``type`` this code does not know: a newer server's, which a client skips
    (PROTOCOL.md, "Compatibility within a version")."""

    def __init__(self, type: str) -> None:
        super().__init__(f"unknown server message type {type!r}")
        self.type = type


_SERVER_TYPES = frozenset(cls.__struct_config__.tag for cls in get_args(ServerMsg))


def decode_server(frame: bytes | bytearray | memoryview | str) -> ServerMsg:
    """One server frame (used by clients); fields it does not know are ignored.  Raises ``UnknownServerType``
    for a message type it does not know, ``msgspec`` errors when the server sent something invalid."""
    try:
        msg: ServerMsg = _server_decoder.decode(frame)
    except msgspec.ValidationError:  # the rare path only: a frame read without error costs nothing more
        peek = _peek(frame)
        if peek is not None and isinstance(peek.type, str) and peek.type not in _SERVER_TYPES:
            raise UnknownServerType(peek.type) from None
        raise
    return msg
