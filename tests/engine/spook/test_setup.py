"""Setup (S5–S7)."""

from collections import Counter

import pytest

from engine.contract import IllegalAction
from engine.rng import seed_from_int
from engine.spook import GAME
from engine.spook.cards import BLACK, DECK, QUEEN, RED
from engine.spook.state import SpookOptions
from tests.engine.spook.helpers import census


@pytest.mark.parametrize(("seats", "size"), [(1, 3), (2, 3), (3, 2), (4, 2)])
def test_s5_red_hands_and_pawns_on_the_foyer(seats: int, size: int) -> None:
    state = GAME.setup(seats, seed_from_int(seats), SpookOptions(), "t")
    assert [len(h) for h in state.hands] == [size] * seats
    assert all(c in RED for h in state.hands for c in h)
    assert state.pawns == ["foyer"] * seats
    assert census(state) == Counter(DECK)
    assert state.active == 0 and state.phase == "draw" and state.discard == []


def test_s6_a_black_ghost_on_the_staircase_and_the_omen_on_its_room() -> None:
    for n in range(30):
        state = GAME.setup(2, seed_from_int(n), SpookOptions(), "t")
        assert len(state.staircase) == 1 and state.staircase[0] in BLACK
        assert state.omen == str(BLACK.index(state.staircase[0]) % 10 + 1)
        assert state.rooms == [None] * 10 and state.traps == [None] * 10


def test_s7_the_queen_is_among_the_eleven_bottom_cards() -> None:
    positions = set()
    for n in range(60):
        state = GAME.setup(4, seed_from_int(n), SpookOptions(), "t")
        assert len(state.pile) == 47 - 8 - 1
        positions.add(state.pile.index(QUEEN))  # pile[-1] is the top, pile[0] the bottom
    assert positions <= set(range(11)) and len(positions) > 5


def test_s5_setup_is_a_function_of_the_seed() -> None:
    a = GAME.setup(3, seed_from_int(5), SpookOptions(), "t")
    b = GAME.setup(3, seed_from_int(5), SpookOptions(), "other")
    c = GAME.setup(3, seed_from_int(6), SpookOptions(), "t")
    assert GAME.encode_state(a) == GAME.encode_state(b) != GAME.encode_state(c)


@pytest.mark.parametrize("seats", [0, 5])
def test_seat_count_outside_one_to_four_is_refused(seats: int) -> None:
    with pytest.raises(IllegalAction) as err:
        GAME.setup(seats, seed_from_int(1), SpookOptions(), "t")
    assert err.value.code == "bad_option"


def test_options_decode_strictly() -> None:
    assert GAME.decode_options({"open_hands": True}) == SpookOptions(open_hands=True)
    assert GAME.default_options() == SpookOptions(open_hands=False)
    for bad in ({"open_hands": "yes"}, {"colour": 1}):
        with pytest.raises(IllegalAction) as err:
            GAME.decode_options(bad)
        assert err.value.code == "bad_option"
