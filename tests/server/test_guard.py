"""The guard: the budget of new tables per client address, on a clock of the test's own, what the cap of open
tables counts against, and the client's address behind a reverse proxy."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from websockets.datastructures import Headers

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


def test_open_tables_count_against_the_address_an_ipv6_one_by_its_64_network() -> None:
    """The store counts a creator's open tables under what ``open_cap`` names: an IPv6 client by its /64 network
    (which one household is handed whole), loopback not at all unless told, no address nor a cap of 0 neither."""
    guard = Guard(Metrics(), max_per_ip=0, open_tables=5)
    assert guard.open_cap("2001:db8:5:6::1") == guard.open_cap("2001:db8:5:6:a:b:c:d") == ("2001:db8:5:6::/64", 5)
    assert guard.open_cap("203.0.113.7") == ("203.0.113.7", 5)
    assert guard.open_cap("127.0.0.1") is None and guard.open_cap(None) is None
    assert Guard(Metrics(), max_per_ip=0, open_tables=5, limit_loopback=True).open_cap("127.0.0.1") == ("127.0.0.1", 5)
    assert Guard(Metrics(), max_per_ip=0).open_cap("203.0.113.7") is None


def test_places_as_a_spectator_count_per_address_until_given_back() -> None:
    """An address holds ``watchers_per_ip`` places (an IPv6 one by its /64 network), each until given back;
    loopback holds any number unless told, and a cap of 0 is none."""
    guard = Guard(Metrics(), max_per_ip=0, watchers_per_ip=2)
    assert [guard.may_watch("2001:db8::1"), guard.may_watch("2001:db8::2"), guard.may_watch("2001:db8::3")] == [
        True,
        True,
        False,
    ]
    assert guard.may_watch("203.0.113.7")  # another address
    guard.watch_ended("2001:db8::9")
    assert guard.may_watch("2001:db8::4") and not guard.may_watch("2001:db8::4")
    assert all(guard.may_watch("127.0.0.1") for _ in range(10)) and not guard.watching.counts.get("127.0.0.1")
    strict = Guard(Metrics(), max_per_ip=0, watchers_per_ip=1, limit_loopback=True)
    assert [strict.may_watch("127.0.0.1"), strict.may_watch("127.0.0.1")] == [True, False]
    assert all(Guard(Metrics(), max_per_ip=0).may_watch("203.0.113.7") for _ in range(100))


def test_updates_replayed_are_budgeted_per_address(clock: Clock) -> None:
    """A watch or resume from seq 0 of a 5,000-update table cost the server 60 ms for one small frame: one client
    asking it again and again kept the server busy.  Replays now draw on a budget of the client's address."""
    from server.guard import REPLAYS_PER_MINUTE

    guard = Guard(Metrics(), max_per_ip=0)
    assert guard.may_replay("203.0.113.7", 5000) and guard.may_replay("203.0.113.7", 0)
    assert [guard.may_replay("203.0.113.7", 5000) for _ in range(4)] == [True, True, True, False]
    assert guard.may_replay("203.0.113.8", REPLAYS_PER_MINUTE)  # another address
    clock.now += 15.0  # a quarter of a minute: a quarter of the budget back
    assert guard.may_replay("203.0.113.7", 5000) and not guard.may_replay("203.0.113.7", 5000)
    assert all(guard.may_replay("127.0.0.1", 10**6) for _ in range(5))  # loopback is exempt unless told
    assert not Guard(Metrics(), max_per_ip=0, limit_loopback=True).may_replay("127.0.0.1", REPLAYS_PER_MINUTE + 1)


def test_only_budgets_in_use_are_kept(clock: Clock) -> None:
    """Many addresses, each creating once: their budgets are forgotten once full again (a minute), so the guard
    holds no more of them than were used within the last minute; a spent budget is never forgotten early."""
    guard = Guard(Metrics(), max_per_ip=0, tables_per_minute=2)
    assert guard.may_create("spent") and guard.may_create("spent")
    for i in range(_BUCKETS):
        assert guard.may_create(f"198.51.100.{i}")
    clock.now += 31  # every other address is full again (one of two spent, one per 30 s); "spent" is not
    assert guard.may_create("192.0.2.1")
    assert set(guard.creates.buckets) == {"spent", "192.0.2.1"}  # "spent" has one table's worth back of two


def connection(peer: str, *forwarded: str) -> Any:
    """What the guard reads of a WebSocket connection: its address and its handshake's headers."""
    headers = Headers([("X-Forwarded-For", value) for value in forwarded])
    return SimpleNamespace(remote_address=(peer, 41234), request=SimpleNamespace(headers=headers))


def test_behind_a_trusted_proxy_the_client_is_the_address_it_forwards() -> None:
    """Each proxy appends the address it was reached from: the client is the last one not itself a trusted proxy;
    what a client wrote into the header itself, and any header from an untrusted peer, is not believed."""
    guard = Guard(Metrics(), max_per_ip=2, trusted_proxies=("10.0.0.0/8", "192.0.2.1"))
    assert guard.client(connection("10.0.0.2", "198.51.100.1, 203.0.113.9")) == "203.0.113.9"
    assert guard.client(connection("10.0.0.2", "203.0.113.9", "192.0.2.1, 10.1.1.1")) == "203.0.113.9"  # 3 proxies
    assert guard.client(connection("::ffff:10.0.0.2", "2001:db8::7")) == "2001:db8::7"
    assert guard.client(connection("10.0.0.2", "203.0.113.9:4711")) == "203.0.113.9"  # with a port (some proxies)
    assert guard.client(connection("10.0.0.2", " [2001:db8::7]:4711")) == "2001:db8::7"
    assert guard.client(connection("10.0.0.2")) == "10.0.0.2"  # nothing forwarded: the proxy's own
    assert guard.client(connection("10.0.0.2", "203.0.113.9, unknown")) == "10.0.0.2"  # no address: the proxy's
    assert guard.client(connection("198.51.100.20", "203.0.113.9")) == "198.51.100.20"  # not a trusted proxy
    untrusting = Guard(Metrics(), max_per_ip=2)
    assert untrusting.client(connection("10.0.0.2", "203.0.113.9")) == "10.0.0.2"
