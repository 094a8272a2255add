"""The processes a command started, read from ``/proc``: that a test's command leaves none behind."""

from __future__ import annotations

import contextlib
from pathlib import Path

from tests.waiting import until_blocking


def descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid``, with its command line (none under a process gone meanwhile)."""
    found: dict[int, str] = {}
    with contextlib.suppress(FileNotFoundError, ProcessLookupError):
        for child in map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split()):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                found[child] = Path(f"/proc/{child}/cmdline").read_text().replace("\0", " ")
                found.update(descendants(child))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie not yet reaped by a parent that is itself gone does not count)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def assert_all_end(processes: dict[int, str], seconds: float = 15.0) -> None:
    """Every one of ``processes`` (pid: command line) ends within ``seconds``."""
    until_blocking(lambda: not any(map(alive, processes)), seconds)
    assert not [cmdline for pid, cmdline in processes.items() if alive(pid)]
