"""The deck (S1) and the reconstructed mansion (S2–S4)."""

from collections import Counter

from engine.spook.board import DOORS, FOYER, LOCATIONS, NEIGHBOURS, ROOMS, STAIRCASE, WING_OF, WINGS
from engine.spook.cards import BLACK, DECK, HUNTS_WITH, KINGS, QUEEN, RED, RED_QUEENS, TRAPS, VALUE, is_ghost, room_of


def test_s1_deck_is_52_cards_minus_five() -> None:
    full = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    assert len(DECK) == 47 and len(set(DECK)) == 47
    assert sorted(set(full) - set(DECK)) == sorted(["QC", "JS", "JC", "KS", "KC"])
    assert set(DECK) <= set(full)


def test_s1_card_roles_and_values() -> None:
    assert QUEEN == "QS" and QUEEN not in BLACK and is_ghost(QUEEN)
    assert len(BLACK) == 20 and all(is_ghost(c) for c in BLACK)
    assert len(RED) == 26 and not any(is_ghost(c) for c in RED)
    assert TRAPS == ("JH", "JD") and RED_QUEENS == ("QH", "QD") and KINGS == ("KH", "KD")
    assert VALUE["AS"] == 1 and VALUE["10C"] == 10 and VALUE["7H"] == 7 and VALUE["AD"] == 1
    assert VALUE["QH"] == VALUE["KD"] == 10
    assert "JH" not in VALUE and QUEEN not in VALUE
    assert HUNTS_WITH["5S"] == "H" and HUNTS_WITH["5C"] == "D" and HUNTS_WITH[QUEEN] == "HD"
    assert room_of("AC") == "1" and room_of("10S") == "10"


def test_s2_locations() -> None:
    assert (FOYER, STAIRCASE, *(str(n) for n in range(1, 11))) == LOCATIONS


def test_s3_wings_of_three_rooms_and_the_chapel_outside() -> None:
    assert WINGS == {"west": ("1", "2", "3"), "east": ("4", "5", "6"), "upper": ("7", "8", "9")}
    assert "10" not in WING_OF and FOYER not in WING_OF and STAIRCASE not in WING_OF
    assert Counter(WING_OF.values()) == {"west": 3, "east": 3, "upper": 3}


def test_s4_doors_are_undirected_and_connect_everything() -> None:
    assert len(DOORS) == 13
    for a, b in DOORS:
        assert b in NEIGHBOURS[a] and a in NEIGHBOURS[b]
    assert sum(len(n) for n in NEIGHBOURS.values()) == 2 * len(DOORS)
    assert NEIGHBOURS[FOYER] == (STAIRCASE, "1", "4", "10")
    assert NEIGHBOURS["3"] == ("2", "9") and NEIGHBOURS["7"] == (STAIRCASE, "8")
    seen, todo = {FOYER}, [FOYER]
    while todo:
        for nxt in NEIGHBOURS[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert seen == set(LOCATIONS) and set(ROOMS) < seen
