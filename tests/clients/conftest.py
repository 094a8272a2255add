"""The server tests' fixtures (a real store, real ``hauntd serve`` processes), for the clients' tests."""

from tests.server.conftest import server, start_server, store_url, sync_redis, valkey_url

__all__ = ["server", "start_server", "store_url", "sync_redis", "valkey_url"]
