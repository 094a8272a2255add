"""``hauntd schema``: the JSON Schema of both directions (the committed copy is ``protocol/schema.json``), or
with ``--game NAME`` the schema of that game's actions and events (what ``act.action`` and ``events.events``
hold), options and catalog (what ``GET /games/NAME.json`` serves)."""

from __future__ import annotations

import argparse
import json
from typing import Any

import msgspec

from protocol.messages import PROTOCOL_VERSION, ClientMsg, ServerMsg

_REF = "#/$defs/{name}"


def protocol_schema() -> dict[str, Any]:
    (client, server), defs = msgspec.json.schema_components((ClientMsg, ServerMsg), ref_template=_REF)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"hauntd wire protocol, version {PROTOCOL_VERSION}",
        "protocol_version": PROTOCOL_VERSION,
        "client_to_server": client,
        "server_to_client": server,
        "$defs": defs,
    }


def game_schema(name: str) -> dict[str, Any]:
    from engine.registry import get_game

    game = get_game(name)
    (action, event, options, catalog), defs = msgspec.json.schema_components(
        (game.action_type, game.event_type, game.options_type, type(game.catalog)), ref_template=_REF
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{game.title} ({game.name}): actions, events, table options and catalog",
        "action": action,
        "event": event,
        "options": options,
        "catalog": catalog,
        "$defs": defs,
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from engine.registry import games

    parser.add_argument(
        "--game", choices=sorted(games()), help="print this game's action, event, options and catalog schema instead"
    )


def run(args: argparse.Namespace) -> int:
    print(render(game_schema(args.game) if args.game else protocol_schema()), end="")
    return 0
