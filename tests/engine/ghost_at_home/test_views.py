"""Hidden information (rules, "Hidden"): views, redacted events and the end-of-game reveal."""

import random

import msgspec

from engine.ghost_at_home import GAME
from engine.ghost_at_home import events as e
from engine.ghost_at_home.actions import Discard, LightCard, PlayRoom, StopBuilding
from tests.engine.ghost_at_home.tables import play, scramble_hidden, table


def test_a_view_shows_only_the_viewers_hand() -> None:
    state = table(3)
    view = GAME.view(state, 1)
    assert view.you == 1 and view.players[1].hand == state.hands[1]
    assert [p.hand for p in view.players if p.seat != 1] == [None, None]
    assert [p.hand_size for p in view.players] == [3, 3, 3]
    assert view.pile_size == len(state.pile) and not hasattr(view, "pile")
    spectator = GAME.view(state, None)
    assert all(p.hand is None for p in spectator.players)


def test_views_do_not_depend_on_hidden_values() -> None:
    state = table(4, seed=5)
    play(state, 0, Discard(state.hands[0][0], last=False), Discard(state.hands[0][1]))
    rng = random.Random(1)
    for viewer in (None, 0, 1, 2, 3):
        for _ in range(5):
            scrambled = scramble_hidden(state, viewer, rng)
            assert scrambled.pile != state.pile
            assert msgspec.msgpack.encode(GAME.view(scrambled, viewer)) == msgspec.msgpack.encode(
                GAME.view(state, viewer)
            )


def test_g9_discards_are_face_down_for_everyone_else() -> None:
    state = table(2, seat0=[0, 12, 22])
    events = play(state, 0, Discard(12, last=False), Discard(22))
    view = GAME.view(state, 1)
    assert view.face_down == 2 and view.discard == []
    selected, discarded, drew = events[0], events[1], events[2]
    assert GAME.redact(selected, 1) == e.CardSelected(0, "discard", None)
    assert GAME.redact(discarded, 1) == e.Discarded(0, 2, None)
    assert GAME.redact(drew, None) == e.Drew(0, 2, None)
    assert GAME.redact(discarded, 0) == e.Discarded(0, 2, [12, 22])
    assert GAME.redact(drew, 0) == drew and drew.cards is not None  # type: ignore[union-attr]


def test_g7_picks_are_the_pickers_until_the_light() -> None:
    state = table(2, seat0=[0, 8, 11])
    (event,) = play(state, 0, LightCard(11))
    assert GAME.redact(event, 1) == e.CardSelected(0, "light", None) and GAME.redact(event, 0) == event
    assert GAME.view(state, 0).selected == [11]
    assert GAME.view(state, 1).selected is None and GAME.view(state, 1).selected_count == 1


def test_reveal_shows_every_hidden_value_at_the_end() -> None:
    state = table(2, max_rounds=1)
    play(state, 0, Discard(state.hands[0][0]))
    play(state, 1, Discard(state.hands[1][0]))
    result = GAME.result(state)
    assert result is not None and result.seed == state.rng.seed.hex()
    assert result.reveal.hands == state.hands and result.reveal.pile == state.pile
    assert sorted(result.reveal.face_down) == sorted(state.hidden_discard) and len(result.reveal.face_down) == 2


def test_a_view_is_a_snapshot() -> None:
    state = table(2, seat0=[0, 1, 12])
    before = GAME.view(state, 0)
    encoded = msgspec.msgpack.encode(before)
    play(state, 0, PlayRoom(0, 1, "left"), StopBuilding())
    assert msgspec.msgpack.encode(before) == encoded
