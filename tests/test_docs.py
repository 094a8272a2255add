"""The documents point at files that exist: ``PROTOCOL.md`` sent bot authors to ``engine/NAME/view.py``, which two
of the three games do not have."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("doc", ["README.md", "protocol/PROTOCOL.md"])
def test_every_source_file_a_document_names_exists(doc: str) -> None:
    named = set(re.findall(r"`((?:engine|protocol|server|clients|tests)/[\w/]+\.\w+)`", (ROOT / doc).read_text()))
    assert named and sorted(p for p in named if not (ROOT / p).exists()) == []


def test_the_readme_names_every_metric_served_and_no_other() -> None:
    """An operator reading the README found ``/metrics`` (Prometheus) and not one metric's name, so nothing to
    alert on without scraping first; the names it now lists must stay those the server serves."""
    from server.metrics import Metrics

    served = {
        metric.name + ("_total" if metric.type == "counter" else "")
        for metric in Metrics().registry.collect()
        if metric.name.startswith("hauntd_")
    }
    named = set(re.findall(r"`(hauntd_\w+)(?:\{[\w,]+\})?`", (ROOT / "README.md").read_text()))
    assert served and named == served
