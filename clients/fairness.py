"""A player's end of rule M30 for SDK users: what a table showed before this client's nonce left, and the end's
checks against it (protocol/PROTOCOL.md, *Checking a game*; the web page's ``fairnessChecks``), hashing with
``engine.fairness``."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import msgspec

from engine.fairness import derive_seed, verify
from protocol.messages import GameOver, Snapshot


@dataclass
class Noted:
    """A table as it first showed itself to this client: the secret's commitment and which seats are server-run
    bots (noted before the nonce left: a server that saw the nonce first could pick its secret to suit it), the
    seed's commitment from the first snapshot showing it (the start's), and the nonce every join sends.  Kept
    with the seat's token (``to_dict``), it goes with the seat to another process (``Client.resume``'s
    ``noted``), as the web page keeps it in ``localStorage``."""

    secret_commitment: str | None
    bots: list[bool]
    commitment: str | None = None
    nonce: str | None = None  # None: no join from this client (a spectator's, or a seat resumed without it)

    @classmethod
    def of(cls, snapshot: Snapshot) -> Noted:
        return cls(snapshot.secret_commitment, [s.bot for s in snapshot.seats], snapshot.commitment)

    def to_dict(self) -> dict[str, Any]:
        """As JSON-able data, to be saved beside the seat's token."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Noted:
        """What ``to_dict`` gave; data of another shape raises ``msgspec.ValidationError``."""
        return msgspec.convert(data, cls)


@dataclass(frozen=True)
class Checks:
    """The end's checks (M30), each True when it holds."""

    seed: bool  # the revealed seed matches the commitment noted at the start
    secret: bool  # the revealed secret matches the commitment noted before our nonce left
    nonces: bool  # one nonce a seat, a server-run bot's empty, ours among them
    derived: bool  # the seed is the one derived from that secret and those nonces

    @property
    def ok(self) -> bool:
        return all(getattr(self, f.name) for f in fields(self))


def check(noted: Noted, over: GameOver) -> Checks:
    """``over`` (a table's ``game_over``) against what was ``noted`` of the table."""
    seed = over.result.get("seed") if isinstance(over.result, dict) else None
    if not isinstance(seed, str):  # a reveal of another shape fails the checks, as a wrong seed does
        seed = ""
    nonces = over.nonces or []
    secret = (
        over.secret is not None
        and noted.secret_commitment is not None
        and verify(over.secret, over.table, noted.secret_commitment)
    )
    return Checks(
        seed=noted.commitment is not None and verify(seed, over.table, noted.commitment),
        secret=secret,
        nonces=len(nonces) == len(noted.bots)
        and all(nonce == "" for nonce, bot in zip(nonces, noted.bots, strict=True) if bot)
        and noted.nonce in nonces,
        derived=secret and derive_seed(bytes.fromhex(over.secret or ""), nonces).hex() == seed,
    )
