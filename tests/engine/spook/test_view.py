"""Hidden information (S1): hands hidden unless ``open_hands``; the pile's order never shown."""

import msgspec

from engine.rng import seed_from_int
from engine.spook import GAME
from engine.spook.actions import StartHunt
from engine.spook.state import Hunt, SpookOptions, SpookReveal
from tests.engine.spook.helpers import make_state


def test_s1_a_seat_sees_its_own_hand_and_the_sizes_of_the_others() -> None:
    state = GAME.setup(3, seed_from_int(3), SpookOptions(), "t")
    view = GAME.view(state, 1)
    assert view.viewer == 1 and view.hands == [None, state.hands[1], None]
    assert view.hand_sizes == [2, 2, 2] and view.pile_size == len(state.pile)
    spectator = GAME.view(state, None)
    assert spectator.hands == [None, None, None] and spectator.viewer is None
    encoded = msgspec.json.encode(spectator)
    assert b'pile"' not in encoded.replace(b"pile_size", b"")


def test_s1_open_hands_show_every_hand_to_everyone() -> None:
    state = GAME.setup(2, seed_from_int(3), SpookOptions(open_hands=True), "t")
    for viewer in (0, 1, None):
        view = GAME.view(state, viewer)
        assert view.open_hands and view.hands == state.hands


def test_s1_the_board_and_the_hunt_in_progress_are_public() -> None:
    state = make_state(2, hands=[["5H"], ["4H"]], rooms={"2": "8S", "5": "QS"}, pawns=["2", "2"], traps={"3": "JH"})
    GAME.apply(state, 0, StartHunt(ghost="8S"))
    view = GAME.view(state, None)
    assert view.rooms[1] == "8S" and view.rooms[4] == "QS" and view.traps[2] == "JH"
    assert view.queen_value == 8 and view.pawns == ["2", "2"] and view.omen == "1"
    assert isinstance(view.hunt, Hunt) and view.hunt.ghost == "8S" and view.hunt.waiting == [0, 1]
    view.hunt.waiting.clear()  # a view is a copy: changing it leaves the state alone
    assert state.hunt is not None and state.hunt.waiting == [0, 1]


def test_the_result_reveals_hands_and_pile() -> None:
    state = make_state(2, hands=[["2D"], []], pile=["3D", "4D"])
    state.outcome, state.reason, state.phase = "lost", "wing_haunted", "over"
    result = GAME.result(state)
    assert result is not None and result.reveal == SpookReveal(hands=[["2D"], []], pile=["3D", "4D"])
