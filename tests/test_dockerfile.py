"""The Dockerfile runs the same entry point, on the same port, as the README and the server's defaults say.

No Docker engine runs on the build machines, so this reads the Dockerfile rather than building it."""

import json
import re
import shlex
import tomllib
from pathlib import Path

from server.app import Settings

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def instruction(name: str) -> str:
    """The argument of the last ``name`` instruction, continuation lines joined."""
    joined = DOCKERFILE.replace("\\\n", " ")
    found = re.findall(rf"^{name}\s+(.*)$", joined, flags=re.MULTILINE)
    assert found, f"Dockerfile has no {name}"
    return str(found[-1])


def test_entrypoint_is_the_console_script() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert json.loads(instruction("ENTRYPOINT")) == ["hauntd"]
    assert scripts["hauntd"] == "server.cli:main"


def test_serves_on_all_interfaces_on_the_default_port() -> None:
    command = json.loads(instruction("CMD"))
    assert command[0] == "serve"
    assert command[command.index("--host") + 1] == "0.0.0.0"
    port = int(command[command.index("--port") + 1])
    assert port == Settings.port
    assert instruction("EXPOSE").split() == [str(port)]
    readme = (ROOT / "README.md").read_text()
    assert f"--port {port}" in readme


def test_health_check_asks_healthz_on_that_port() -> None:
    check = instruction("HEALTHCHECK")
    assert f"http://127.0.0.1:{Settings.port}/healthz" in check


def test_runs_as_a_non_root_user_from_a_slim_multi_stage_build() -> None:
    stages = re.findall(r"^FROM\s+(\S+)", DOCKERFILE, flags=re.MULTILINE)
    assert len(stages) >= 2 and all("slim" in stage for stage in stages)
    user = shlex.split(instruction("USER"))[0]
    assert user not in {"root", "0"}


def test_the_readme_tells_a_bind_mount_the_image_users_uid_and_to_keep_the_port() -> None:
    """The README showed a named volume only: a host directory mounted on /data (owned by root) left the embedded
    Valkey unable to write; and a command of one's own with another ``--port`` made the health check fail."""
    uid = re.search(r"useradd .*--uid (\d+)", DOCKERFILE)
    assert uid is not None
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"must be owned by the image's user, uid {uid.group(1)}" in readme
    assert (
        f"the health check asks port {Settings.port}, so a command of your own keeps `--port {Settings.port}`" in readme
    )
