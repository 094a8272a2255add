"""The one check every game's property suite makes of an action the rules refuse."""

from __future__ import annotations

from typing import Any

import pytest

from engine.contract import Game, IllegalAction

ENGINE_CODES = {"not_your_turn", "illegal_move", "game_over"}


def assert_refused(game: Game[Any, Any, Any], state: Any, seat: int, action: Any) -> None:
    """``action`` by ``seat`` raises ``IllegalAction`` with an engine code and leaves the encoded state
    byte-identical."""
    before = game.encode_state(state)
    with pytest.raises(IllegalAction) as err:
        game.apply(state, seat, action)
    assert err.value.code in ENGINE_CODES, (action, seat, err.value.code)
    assert game.encode_state(state) == before
