"""Encoders and typed decoders for both directions, created once (msgspec reuses their buffers)."""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.errors import Code, ProtocolError
from protocol.messages import PROTOCOL_VERSION, ClientMsg, Hello, ServerMsg

_client_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ClientMsg)
_server_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(ServerMsg)
_encoder = msgspec.json.Encoder()


class _Peek(msgspec.Struct):
    """Just enough of a frame to tell a hello of another protocol version from a malformed one."""

    type: str | None = None
    version: Any = None


_peek_decoder: msgspec.json.Decoder[_Peek] = msgspec.json.Decoder(_Peek)


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
        _raise_if_other_version(frame)
        raise ProtocolError(_classify(exc), str(exc)) from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(Code.MALFORMED, str(exc)) from None
    except RecursionError:  # msgspec's own depth limit for JSON nested too deeply
        raise ProtocolError(Code.MALFORMED, "JSON nested too deeply") from None
    if isinstance(msg, Hello) and msg.version != PROTOCOL_VERSION:
        _raise_if_other_version(frame)
    return msg


def _raise_if_other_version(frame: bytes | str) -> None:
    try:
        peek = _peek_decoder.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return
    if peek.type == "hello" and peek.version != PROTOCOL_VERSION:
        raise ProtocolError(
            Code.VERSION, f"this server speaks protocol version {PROTOCOL_VERSION}, not {peek.version!r}"
        )


def decode_server(frame: bytes | bytearray | memoryview | str) -> ServerMsg:
    """One server frame (used by clients); raises ``msgspec`` errors when the server sent something invalid."""
    msg: ServerMsg = _server_decoder.decode(frame)
    return msg
