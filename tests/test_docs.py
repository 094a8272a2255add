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
