"""The SDK takes text frames straight from websockets' parser: whatever way TCP cuts them up, every text frame
arrives whole and in order, and the frames it leaves to websockets (a ping here) are still answered."""

from __future__ import annotations

import asyncio

from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode

from clients.sdk import Client
from protocol import codec
from protocol.messages import PROTOCOL_VERSION, Events, Limits, Welcome

WELCOME = Welcome(
    version=PROTOCOL_VERSION,
    server="test",
    games=[],
    limits=Limits(max_frame_bytes=1, messages_per_second=1.0, burst=1, max_tables_per_connection=1),
    ref="hello",
)
SIZES = [0, 1, 60, 125, 126, 300, 65535, 70_000]


def update(seq: int, size: int) -> bytes:
    """An ``events`` frame's JSON of about ``size`` bytes (a long table id pads it)."""
    return codec.encode(Events(table="t", seq=seq, seats=None, status="x" * size))


async def test_frames_cut_anywhere_arrive_whole_and_in_order() -> None:
    pong = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        await ws.recv()  # hello
        await ws.send(codec.encode(WELCOME), text=True)  # and at once, unasked, the updates:
        pieces = b""
        for seq, size in enumerate(SIZES, 1):
            frame = Frame(Opcode.TEXT, update(seq, size)).serialize(mask=False, extensions=[])
            for start in range(0, len(frame), max(1, len(frame) // 3)):  # each frame cut in about three
                ws.transport.write(pieces + frame[start : start + max(1, len(frame) // 3)])
                pieces = b""
                await asyncio.sleep(0.002)
            if seq == 3:  # a ping between two text frames: websockets parses and answers it
                (await ws.ping()).add_done_callback(lambda _: pong.set())
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with Client(f"ws://127.0.0.1:{port}", reconnect=False) as client:
            received = [await client.recv(5) for _ in SIZES]
            await asyncio.wait_for(pong.wait(), 5)
    assert [m.seq for m in received] == list(range(1, len(SIZES) + 1))
    assert [len(m.status or "") for m in received] == SIZES
