"""The long runs' progress line: a line of its own each time in a log, one line rewritten in place on a terminal."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from clients.progress import QUIET_EVERY, Progress


async def test_in_a_log_each_line_is_its_own_and_comes_every_so_often(capsys: pytest.CaptureFixture[str]) -> None:
    assert Progress().every == QUIET_EVERY  # (stderr is captured here: not a terminal)
    shown, asked = Progress(every=0.01), []

    def describe(seconds: float) -> str:
        asked.append(seconds)
        return f"line {len(asked)}"

    task = asyncio.create_task(shown.run(describe))
    async with asyncio.timeout(5):
        while len(asked) < 3:
            await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    shown.end()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 3 and lines == [f"line {i}" for i in range(1, len(lines) + 1)]
    assert set(asked) == {0.01}


def test_on_a_terminal_the_line_is_rewritten_in_place_and_ended_once(capsys: pytest.CaptureFixture[str]) -> None:
    shown = Progress()
    shown.live = True
    shown.show("first")
    shown.show("second")
    shown.end()
    assert capsys.readouterr().err == "\r\x1b[Kfirst\r\x1b[Ksecond\n"


def test_on_a_terminal_a_line_is_ended_only_if_one_was_shown(capsys: pytest.CaptureFixture[str]) -> None:
    """A load process that died mid-run had its error glued to the progress line ("… leaks 0hauntd loadtest: load
    process 2 of 2 …"): the line is now ended on every way out, and ending it when none is open prints nothing."""
    shown = Progress()
    shown.live = True
    shown.end()
    shown.show("line")
    shown.end()
    shown.end()
    assert capsys.readouterr().err == "\r\x1b[Kline\n"
