"""The wire is visible in review: the committed schema, and PROTOCOL.md's coverage and examples."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import msgspec
import pytest

from protocol import codec
from protocol.errors import Code
from protocol.messages import ClientMsg, ServerMsg
from protocol.schema import game_schema, protocol_schema, render

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
DOC = (PROTOCOL / "PROTOCOL.md").read_text()


def tags(union: object) -> list[str]:
    return [msgspec.inspect.type_info(t).tag for t in typing.get_args(union)]  # type: ignore[attr-defined]


def test_committed_schema_is_current() -> None:
    """Regenerate with ``hauntd schema > protocol/schema.json`` after a deliberate wire change."""
    assert (PROTOCOL / "schema.json").read_text() == render(protocol_schema())


def test_every_message_and_code_is_documented() -> None:
    for tag in tags(ClientMsg) + tags(ServerMsg):
        assert f"`{tag}`" in DOC, tag
        assert f'"type": "{tag}"' in DOC, f"no example of {tag}"
    for code in Code:
        assert f"| `{code.value}` |" in DOC, code


def examples() -> list[str]:
    blocks = re.findall(r"```json\n(.*?)```", DOC, flags=re.S)
    frames: list[str] = []
    for block in blocks:
        frames.extend(block.strip().split("\n{") if block.count('{"type"') > 1 else [block])
    return [f if f.startswith("{") else "{" + f for f in frames]


@pytest.mark.parametrize("frame", examples())
def test_documented_examples_decode(frame: str) -> None:
    """Every example a third party might type by hand is a valid message of its direction."""
    if "…" in frame or '"..."' in frame:
        pytest.skip("abridged example")
    tag = json.loads(frame)["type"]
    if tag in tags(ClientMsg):
        codec.decode_client(frame)
    else:
        codec.decode_server(frame)


def test_game_schema_names_actions_and_events() -> None:
    from engine.registry import games

    for name in games():
        schema = game_schema(name)
        assert schema["action"] and schema["event"] and schema["options"]


def test_game_options_schema_holds_the_ranges_the_game_checks() -> None:
    """A client reading ``hauntd schema --game ghost-at-home`` learns max_rounds' range, not only from a refusal."""
    schema = game_schema("ghost-at-home")
    name = schema["options"]["$ref"].rsplit("/", 1)[-1]
    rounds = schema["$defs"][name]["properties"]["max_rounds"]
    assert (rounds["minimum"], rounds["maximum"]) == (1, 1000), rounds
