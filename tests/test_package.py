"""The project as installed (``pip install .``, what the Docker image runs) rather than this checkout: the wheel
holds every file the server serves or reads (the web page, the protocol's schema), and ``hauntd serve`` run
from it alone serves the page, its modules and the games' catalogs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from server.launch import ROOT, ServerProcess

SERVED = ("clients/web/", "protocol/schema.json", "protocol/PROTOCOL.md")


def _tracked(*paths: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", *paths], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in listed.stdout.split() if (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout's files (copied first: a stale ``build/`` here would hide a file the
    package data leaves out), unpacked as site-packages would hold it."""
    work = tmp_path_factory.mktemp("package")
    source = work / "source"
    for file in _tracked():
        (source / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / file, source / file)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(work), str(source)],
        check=True,
    )
    [wheel] = work.glob("hauntd-*.whl")
    site = work / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_the_wheel_holds_every_file_served(installed: Path) -> None:
    files = _tracked(*SERVED)
    assert any(f.endswith("index.html") for f in files)
    missing = [f for f in files if not (installed / f).is_file()]
    assert missing == []
    changed = [f for f in files if (installed / f).read_bytes() != (ROOT / f).read_bytes()]
    assert changed == []


def test_serve_from_the_installed_package(installed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}  # ahead of this checkout's editable install
    probe = subprocess.run(
        [sys.executable, "-c", "import server, clients.web; print(server.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).is_relative_to(installed)
    args = ["--log-format", "json", "--data-dir", str(tmp_path / "data")]
    server = ServerProcess(args, tmp_path / "server.log", cwd=tmp_path, env=env)
    server.start()
    try:
        page = {"/": "clients/web/index.html", "/static/games/mansion.js": "clients/web/games/mansion.js"}
        for path, file in page.items():
            assert _get(server.http + path) == (ROOT / file).read_bytes(), path
        assert json.loads(_get(server.http + "/games/mansion.json"))["rooms"][0] == "crypt"
        assert _get(server.http + "/healthz").strip() == b"ok"
    finally:
        server.kill()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as reply:
        body: bytes = reply.read()
        return body
