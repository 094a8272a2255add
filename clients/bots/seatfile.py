"""``hauntd bot --state PATH``: the seat a bot holds, kept in a file so that the bot, started again after its
process died (a crash, a ``kill -9``, a restart by systemd), resumes the seat instead of leaving it to a game that
waits for it.  The token is written before the ``join`` goes out (a join sent again with it answers with the seat it
holds), readable by its owner only (mode 0600, as a secret), and the file goes once the game is over."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import msgspec


class SavedSeat(msgspec.Struct, frozen=True):
    """A seat's table and its token (the proof it is ours: never shown, never logged)."""

    table: str
    token: str


class BadSeatFile(ValueError):
    """A ``--state`` file that holds no seat (its message names the file and the fault, never the token)."""


def load(path: Path) -> SavedSeat | None:
    """The seat ``path`` keeps; None when there is no such file (the bot has not sat yet)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BadSeatFile(f"cannot read {path}: {exc.strerror}") from None
    try:
        return msgspec.json.decode(data, type=SavedSeat)
    except msgspec.DecodeError as exc:  # (msgspec's messages say where, not what: no token in them)
        raise BadSeatFile(f"{path} holds no seat ({exc}): remove it to take a new one") from None


def save(path: Path, seat: SavedSeat) -> None:
    """Keep ``seat`` in ``path``, mode 0600 from its creation on: written beside it, then renamed over it, so a
    bot killed meanwhile leaves the old file or the new one, whole."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)  # (a dead process's, of the same pid: created anew, so with mode 0600)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(msgspec.json.encode(seat))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def remove(path: Path) -> None:
    """The seat is done with (its game over, the join refused, the table gone): a bot started again with the same
    ``--state`` takes a new one."""
    path.unlink(missing_ok=True)
