"""G1–G2: the deck and its light-bulb icons; the seed text's setup."""

from collections import Counter

import pytest

from engine.contract import IllegalAction
from engine.ghost_at_home import GAME
from engine.ghost_at_home.cards import BULBS, CARDS, DECK_SIZE, FLOOR, KIND, SPECIAL_ID
from engine.ghost_at_home.house import fully_explored, room_count
from engine.rng import seed_from_int
from tests.engine.ghost_at_home.tables import table


def test_g1_deck_composition() -> None:
    assert DECK_SIZE == len(CARDS) == 53
    assert [c.id for c in CARDS] == list(range(53))
    kinds = Counter(KIND)
    assert kinds == {
        "room": 32,
        "ghost": 8,
        "cat": 6,
        "space_time_hole": 1,
        "light_bulb": 1,
        "cat_food": 1,
        "elevator": 1,
        "lightning": 1,
        "joker": 2,
    }
    assert Counter(FLOOR[c] for c in range(53) if KIND[c] == "room") == {1: 12, 2: 10, 3: 10}
    assert sorted(SPECIAL_ID.values()) == [46, 47, 48, 49, 50]


def test_g2_reconstructed_bulbs() -> None:
    def bulbs(kind: str, floor: int = 0) -> list[int]:
        return [BULBS[c] for c in range(53) if KIND[c] == kind and FLOOR[c] == floor]

    assert bulbs("room", 1) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3]
    assert bulbs("room", 2) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    assert bulbs("room", 3) == [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    assert bulbs("cat") == [1] * 6
    assert bulbs("joker") == [1, 1]
    assert bulbs("ghost") == [0] * 8
    assert all(BULBS[c] == 0 for c in SPECIAL_ID.values())


def test_setup_deals_three_each_and_seat_zero_starts() -> None:
    for seats in range(2, 6):
        state = table(seats)
        assert [len(h) for h in state.hands] == [3] * seats
        assert len(state.pile) == 53 - 3 * seats
        assert sorted(state.pile + [c for h in state.hands for c in h]) == list(range(53))
        assert GAME.prompts(state) == {0: GAME.prompts(state)[0]} and GAME.prompts(state)[0].kind == "turn"


def test_setup_is_a_seeded_shuffle() -> None:
    assert table(4, seed=1).pile == table(4, seed=1).pile
    assert table(4, seed=1).pile != table(4, seed=2).pile


def test_g3_houses_start_dark_and_empty() -> None:
    state = table(3)
    for house in state.houses:
        assert len(house.floors) == 3
        for floor in house.floors:
            assert floor.rooms == [None, None] and not floor.lit and floor.cat is None and floor.ghosts == []
        assert not fully_explored(house) and room_count(house) == 0


def test_registered_with_its_seat_range_and_options() -> None:
    from engine.registry import get_game

    game = get_game("ghost-at-home")
    assert game is GAME and (game.min_seats, game.max_seats) == (2, 5)
    assert game.decode_options({"max_rounds": 20}).max_rounds == 20  # type: ignore[attr-defined]
    for seats, raw in ((1, {}), (6, {}), (3, {"max_rounds": 0}), (3, {"max_rounds": 1001})):
        with pytest.raises(IllegalAction) as exc:
            game.setup(seats, seed_from_int(0), game.decode_options(raw), "t")
        assert exc.value.code == "bad_option"
    with pytest.raises(IllegalAction):
        game.decode_options({"rounds": 3})
