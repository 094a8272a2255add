"""Log lines as an operator reads them: JSON lines, whole even when processes share one stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from server.launch import ROOT

LOG_A_LOT = """
import structlog
from server import logs
logs.configure("json")
log = structlog.get_logger("test")
for i in range(3000):
    log.info("line", i=i, padding="x" * 200)
"""


def test_processes_sharing_stderr_write_whole_lines(tmp_path: Path) -> None:
    """``serve --workers N``'s workers share one stderr; a line was written in two parts, the newline apart, so
    two lines written at once ran into each other and neither parsed."""
    path = tmp_path / "shared.log"
    with path.open("ab") as shared:
        writers = [subprocess.Popen([sys.executable, "-c", LOG_A_LOT], cwd=ROOT, stderr=shared) for _ in range(2)]
        for writer in writers:
            assert writer.wait(60) == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 6000
    assert sorted(json.loads(line)["i"] for line in lines) == sorted(list(range(3000)) * 2)
