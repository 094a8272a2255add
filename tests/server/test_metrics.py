"""What ``/metrics`` serves, whatever the process mode."""

from __future__ import annotations

from server.metrics import Metrics


def test_no_created_series_are_served() -> None:
    """prometheus-client adds a ``_created`` gauge to each counter and histogram in one process but not in the
    workers' multiprocess mode: one process served ``hauntd_tables_created_created``, a time that read as a count."""
    metrics = Metrics()
    metrics.tables_created.inc()
    samples = [line for line in metrics.render().decode().splitlines() if not line.startswith("#")]
    assert "hauntd_tables_created_total 1.0" in samples
    assert not [line for line in samples if "_created " in line or "_created{" in line]
