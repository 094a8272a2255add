"""The guard's budget of new tables per client address, on a clock of the test's own."""

from __future__ import annotations

import pytest

from server import guard as guard_module
from server.guard import _BUCKETS, Guard
from server.metrics import Metrics


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    tick = Clock()
    monkeypatch.setattr(guard_module.time, "monotonic", tick)
    return tick


def test_each_address_has_its_budget_and_loopback_is_exempt_unless_told(clock: Clock) -> None:
    guard = Guard(Metrics(), max_per_ip=0, tables_per_minute=3)
    assert [guard.may_create("203.0.113.7") for _ in range(4)] == [True, True, True, False]
    assert guard.may_create("203.0.113.8")  # another address
    clock.now += 20  # 60 / 3 seconds: one table's worth back
    assert [guard.may_create("203.0.113.7") for _ in range(2)] == [True, False]
    assert all(guard.may_create(host) for host in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] * 5)
    strict = Guard(Metrics(), max_per_ip=0, tables_per_minute=3, limit_loopback=True)
    assert [strict.may_create("127.0.0.1") for _ in range(4)] == [True, True, True, False]
    assert all(Guard(Metrics(), max_per_ip=0).may_create("203.0.113.7") for _ in range(100))  # 0: no cap


def test_only_budgets_in_use_are_kept(clock: Clock) -> None:
    """Many addresses, each creating once: their budgets are forgotten once full again (a minute), so the guard
    holds no more of them than were used within the last minute; a spent budget is never forgotten early."""
    guard = Guard(Metrics(), max_per_ip=0, tables_per_minute=2)
    assert guard.may_create("spent") and guard.may_create("spent")
    for i in range(_BUCKETS):
        assert guard.may_create(f"198.51.100.{i}")
    clock.now += 31  # every other address is full again (one of two spent, one per 30 s); "spent" is not
    assert guard.may_create("192.0.2.1")
    assert set(guard.creates) == {"spent", "192.0.2.1"}  # "spent" has one table's worth back of two
