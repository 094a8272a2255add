"""The server's own framing of outgoing text frames is byte for byte what websockets would write."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.connection import text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_text_frame_matches_websockets(size: int) -> None:
    payload = bytes(i % 251 for i in range(size))
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
