"""The one seeded generator every game keeps in its state (rule M30).

A counter-mode generator over SHA-256: draw number ``n`` is derived from ``SHA-256(seed || n)``.  Its whole
state is the seed and a counter, so it encodes in a few bytes, replays exactly on any platform and lets anyone
holding the revealed seed recompute every shuffle with nothing but a SHA-256 implementation:

* ``below(k)``: take the first 8 bytes of ``SHA-256(seed || counter as 8 big-endian bytes)`` as an unsigned
  big-endian integer ``x``, increment the counter; reject and redraw while ``x >= 2**64 - 2**64 % k``;
  return ``x % k`` (exactly uniform).
* ``shuffle(items)``: Fisher–Yates from the last index down: for ``i`` from ``len-1`` to 1, swap ``items[i]``
  with ``items[below(i + 1)]``.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

import msgspec

T = TypeVar("T")

_SPAN = 1 << 64


class Rng(msgspec.Struct):
    """Generator state: 32-byte seed and the number of draws taken so far."""

    seed: bytes
    counter: int = 0

    def below(self, k: int) -> int:
        """A uniform integer in ``range(k)``; ``k`` must be positive."""
        if k <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPAN - _SPAN % k
        seed = self.seed
        while True:
            digest = hashlib.sha256(seed + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
            x = int.from_bytes(digest[:8], "big")
            if x < limit:
                return x % k

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher–Yates, see the module docstring)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[T]) -> T:
        """One element of a non-empty list."""
        return items[self.below(len(items))]


def seed_from_int(n: int) -> bytes:
    """A 32-byte seed from a small integer: handy for tests, benchmarks and replays typed by hand."""
    return hashlib.sha256(b"hauntd-seed:" + str(n).encode()).digest()
