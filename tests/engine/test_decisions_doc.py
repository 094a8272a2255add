"""``protocol/PROTOCOL.md`` lists, per game, every decision a bot can be asked: each prompt kind, the action types
that answer it and the one the server plays on time-out.  Seeded random games of each game must show exactly
that: a kind or an action type not listed fails, and so does one listed that these games never show.  The seeds
are fixed, so the games are the same on every run; the first 2 of each game already show every row.

Ghost at Home's ``pass`` (a turn begun with an empty hand, G10) next to never comes in random play, so one game
starts from an empty hand; the engine's own table of the legal action types per phase (``legal.GENERATORS``) is
checked too, as it is the single source of that game's legality.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.ghost_at_home import legal as ghost_legal
from engine.playout import random_playout
from engine.registry import games, get_game
from engine.rng import seed_from_int
from tests.engine.ghost_at_home.tables import table
from tests.engine.playouts import Resumed

DOC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"
GAMES_PLAYED = 16  # per game, seats cycling through its range (well under a second each)

Decisions = dict[str, tuple[set[str], set[str]]]
"""Prompt kind → (the action types that answer it, the action types played on time-out)."""


def tag(action: Any) -> str:
    name: str = type(action).__struct_config__.tag
    return name


def documented(name: str) -> Decisions:
    """The decisions table of ``name``'s section of PROTOCOL.md (``### NAME — …``)."""
    section = re.search(rf"^### {re.escape(name)} — .*?(?=^##|\Z)", DOC.read_text(), re.M | re.S)
    assert section, f"no section for {name}"
    rows = re.findall(r"^\| `(\w+)` \|([^|]*)\|([^|]*)\|([^|]*)\|", section.group(), re.M)
    assert rows, f"no decisions table for {name}"
    found: Decisions = {}
    for kind, _when, answers, timeout in rows:
        assert kind not in found, f"{name}: {kind} listed twice"
        found[kind] = set(re.findall(r"`(\w+)`", answers)), set(re.findall(r"`(\w+)`", timeout))
    return found


def starts(name: str) -> Iterator[Any]:
    game = get_game(name)
    for seed in range(GAMES_PLAYED):
        seats = game.min_seats + seed % (game.max_seats - game.min_seats + 1)
        yield game.setup(seats, seed_from_int(seed), game.default_options(), "docs")
    if name == "ghost-at-home":
        yield table(seat0=[])  # seat 0 begins with no card in hand: G10's pass


def seen(name: str) -> Decisions:
    """Every decision met in the seeded games: every prompted seat's legal and time-out actions at every step."""
    game = get_game(name)
    found: Decisions = defaultdict(lambda: (set(), set()))

    def note(state: Any, *_: Any) -> None:
        for seat, prompt in game.prompts(state).items():
            answers, timeout = found[prompt.kind]
            answers.update(tag(action) for action in game.legal_actions(state, seat))
            timeout.add(tag(game.timeout_action(state, seat)))

    for seed, state in enumerate(starts(name)):
        note(state)
        random_playout(Resumed(game, state), state.seats, b"", random.Random(seed), on_step=note)  # type: ignore[arg-type]
    return dict(found)


@pytest.mark.parametrize("name", list(games()))
def test_the_decisions_table_lists_exactly_what_the_game_asks(name: str) -> None:
    doc, met = documented(name), seen(name)
    assert sorted(met) == sorted(doc), "prompt kinds seen vs listed"
    for kind, (answers, timeout) in doc.items():
        assert met[kind][0] == answers, f"{kind}: action types seen vs listed"
        assert met[kind][1] == timeout, f"{kind}: time-out actions seen vs listed"


def test_ghost_at_home_table_matches_the_engine_legality_table() -> None:
    engine = {
        ghost_legal.PROMPT_KIND[phase]: {action.__struct_config__.tag for action in generators}
        for phase, generators in ghost_legal.GENERATORS.items()
        if generators
    }
    assert engine == {kind: answers for kind, (answers, _) in documented("ghost-at-home").items()}
