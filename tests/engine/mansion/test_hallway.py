"""The Endless Hallway and where a seat is: M2 (the ring and its rotation), M3 (a section is in the room it
faces, the Séance Room is no room), M4 (setup), checked in every place that turns a position into a room."""

import pytest

from engine.mansion import GAME
from engine.mansion.actions import ChooseDirection, Collect, Duel, Rotate
from engine.mansion.cards import CRYPT, CW, EVENTS, FINAL_ROUND, KIND_NAMES, ROOM_COUNT, SEANCE, SECTIONS, GhostName
from engine.mansion.events import GhostsMoved
from engine.mansion.legal import collects, moves
from engine.mansion.rules import move_ghosts
from engine.mansion.state import PH_EVENT_DIRECTION, State
from tests.engine.mansion.helpers import assert_conserved, give, new_game, play, put_room, turn_table

# one distinct card without an effect per room, so the card a seat may collect names the room it is in
ROOM_CARDS: tuple[GhostName, ...] = (
    "musician",
    "painting",
    "dancing",
    "portrait_tightrope",
    "portrait_dynamite",
    "bride",
    "organist",
)


def _of(actions: list[object], kind: type) -> list[object]:
    return [a for a in actions if isinstance(a, kind)]


def _a_card_in_every_room(seats: int, rotation: int, event: str = "truce") -> State:
    s = turn_table(seats=seats, event=event)
    for room, name in enumerate(ROOM_CARDS):
        put_room(s, room, name)
    s.rotation = rotation
    return s


@pytest.mark.parametrize("rotation", range(ROOM_COUNT))
def test_m2_at_every_rotation_section_s_is_in_room_s_plus_r(rotation: int) -> None:
    """M2 / M3: view, Collect and the ghosts' draws all put a seat on section ``s`` in room ``(s + r) mod 7``."""
    for section in range(SECTIONS):
        s = _a_card_in_every_room(seats=2, rotation=rotation)
        room = (section + rotation) % ROOM_COUNT
        s.pos = [section, SEANCE]
        assert GAME.view(s, 0).seat_rooms == [room, SEANCE]
        assert _of(GAME.legal_actions(s, 0), Collect) == [Collect(ROOM_CARDS[room])]
        play(s, 0, Collect(ROOM_CARDS[room]))
        assert s.rooms[room] == [] and [KIND_NAMES[k] for k in s.collections[0]] == [ROOM_CARDS[room]]
        s.ghosts = (room - 1) % ROOM_COUNT
        out: list[object] = []
        move_ghosts(s, 1, 1, "event", out)  # the ghosts land in the seat's room: it draws 2 (M10)
        assert isinstance(out[0], GhostsMoved) and out[0].draws == [2, 0]
        assert_conserved(s)


@pytest.mark.parametrize("rotation", range(ROOM_COUNT))
def test_m2_one_room_faces_the_gap_between_sections_5_and_0(rotation: int) -> None:
    """M2: six sections on a ring of seven, so room ``(6 + r) mod 7`` faces the gap: no seat is ever in it (the
    ghosts landing there draw nobody, its cards wait for a rotation), and the gap is never crossed (M14)."""
    s = _a_card_in_every_room(seats=6, rotation=rotation)
    s.pos = list(range(SECTIONS))
    gap = (SECTIONS + rotation) % ROOM_COUNT
    assert gap not in GAME.view(s, 0).seat_rooms
    s.ghosts = (gap - 1) % ROOM_COUNT
    out: list[object] = []
    move_ghosts(s, 1, 1, "event", out)
    assert isinstance(out[0], GhostsMoved) and out[0].draws == [0] * 6
    collectable = {a.card for seat in range(6) for a in collects(s, seat)}
    assert collectable == {ROOM_CARDS[r] for r in range(ROOM_COUNT) if r != gap}
    assert [m.to for m in moves(s, 0)] == [SEANCE, 1]
    s.pos[0] = 5
    assert [m.to for m in moves(s, 0)] == [SEANCE, 4]


def test_m2_m15_seats_on_sections_turn_with_the_hallway() -> None:
    """M15: a Rotate keeps every seat on its section and changes the room it is in (and what it may collect)."""
    s = _a_card_in_every_room(seats=3, rotation=0)
    s.pos = [1, 4, SEANCE]
    assert _of(GAME.legal_actions(s, 0), Collect) == [Collect("painting")]  # room 1
    play(s, 0, Rotate(5))
    view = GAME.view(s, 1)
    assert s.pos == [1, 4, SEANCE] and view.rotation == 5 and view.seat_rooms == [6, 2, SEANCE]
    assert _of(GAME.legal_actions(s, 0), Collect) == [Collect("organist")]  # room 6
    play(s, 0, Collect("organist"))
    assert s.rooms[6] == [] and s.rooms[1] != []


@pytest.mark.parametrize("rotation", range(ROOM_COUNT))
def test_m3_the_seance_room_is_no_room(rotation: int) -> None:
    """M3: with a card in every room, a seat in the Séance Room collects nothing and no ghost move reaches it;
    it shares its location (for a Duel, M17) only with the other seats in the Séance Room."""
    s = _a_card_in_every_room(seats=3, rotation=rotation, event="cold_spot")
    s.pos = [SEANCE, SEANCE, 0]
    give(s, 1, "executioner")
    give(s, 2, "headless_knight")
    legal = GAME.legal_actions(s, 0)
    assert _of(legal, Collect) == [] and GAME.view(s, 0).seat_rooms == [SEANCE, SEANCE, rotation]
    assert _of(legal, Duel) == [Duel(1, "executioner")]
    for start in range(ROOM_COUNT):
        s.ghosts = start
        out: list[object] = []
        move_ghosts(s, 4, 1, "event", out)  # passes 3 rooms, lands in a 4th
        assert isinstance(out[0], GhostsMoved) and out[0].draws[:2] == [0, 0]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_m2_m4_setup_rotation_0_movers_in_the_seance_room_round_1_placed_from_the_ghosts_room(seats: int) -> None:
    """M2, M4, M11: at setup ``r = 0``, every mover in the Séance Room, the ghosts start in the crypt; round 1's
    Event Phase moves them from there and places seats + 3 cards starting in the room they reach."""
    for seed in range(10):
        s = new_game(seats, seed)
        assert s.rotation == 0 and GAME.view(s, None).rotation == 0
        assert s.pos == [SEANCE] * seats and GAME.view(s, None).seat_rooms == [SEANCE] * seats
        if s.phase == PH_EVENT_DIRECTION:
            assert s.ghosts == CRYPT and not any(s.rooms)
            play(s, s.first, ChooseDirection("cw"))
        card = EVENTS[s.event]
        assert s.event != FINAL_ROUND
        assert s.ghosts == (CRYPT + (card.direction or CW) * card.steps) % ROOM_COUNT  # either: cw was chosen
        assert GAME.view(s, None).ghosts == s.ghosts
        expected = [0] * ROOM_COUNT
        for i in range(seats + 3 + (2 if card.name == "busy_night" else 0)):
            expected[(s.ghosts + max(i - 1, 0)) % ROOM_COUNT] += 1
        assert [len(room) for room in s.rooms] == expected
        assert not any(s.hands) and not any(s.collections)


def test_m4_the_first_player_is_drawn_by_the_seeded_generator() -> None:
    """README (first player): the seed, not the seat order, decides it; the same seed draws the same seat."""
    firsts = {new_game(6, seed).first for seed in range(40)}
    assert firsts == set(range(6))
    assert all(new_game(4, seed).first == new_game(4, seed).first for seed in range(10))
