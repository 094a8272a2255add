"""A round: the Event Phase (M9–M12) and the Action Phase (M13)."""

import pytest

from engine.contract import IllegalAction
from engine.mansion import GAME
from engine.mansion.actions import DIRECTIONS, END_TURN, ChooseDirection, Collect, Move
from engine.mansion.cards import EVENT_NAMES, FINAL_ROUND, KIND_INDEX, ROOM_COUNT, SEANCE
from engine.mansion.events import GhostCardsPlaced, GhostsMoved, HauntDrawn, RoundStarted
from engine.mansion.rules import ghost_path, move_ghosts, place_ghost_cards, start_round
from engine.mansion.state import PH_EVENT_DIRECTION, PH_OVER, PH_TEA_PARTY, PH_TURN, State
from tests.engine.mansion.helpers import assert_conserved, haunt_on_top, on_top, play, put_room, turn_table, types


def _next_round_with(s: State, name: str) -> list[object]:
    """Put ``name`` on top of the Event deck and start the next round."""
    wanted = EVENT_NAMES.index(name)
    for pile in (s.event_deck, s.removed_events, s.events_done):
        if wanted in pile:
            pile.remove(wanted)
            break
    s.event_deck.append(wanted)
    out: list[object] = []
    start_round(s, out)
    return out


def test_m9_event_phase_order_reveal_move_place_then_turns() -> None:
    s = turn_table(seats=3, event="truce")
    s.first = 1
    out = _next_round_with(s, "candlelight")
    assert types(out)[:3] == ["round_started", "ghosts_moved", "ghost_cards_placed"]
    assert types(out)[-1] == "turn_started"
    assert isinstance(out[0], RoundStarted) and out[0].event == "candlelight" and out[0].first == 1
    assert s.turn == 1 and s.phase == PH_TURN
    assert_conserved(s)


def test_m9_either_direction_is_the_first_players_decision() -> None:
    s = turn_table(seats=3, event="truce")
    s.first = 2
    out = _next_round_with(s, "locked_hallway")
    assert types(out) == ["round_started"]
    assert s.phase == PH_EVENT_DIRECTION
    assert list(GAME.prompts(s)) == [2] and GAME.prompts(s)[2].kind == "event_direction"
    assert GAME.legal_actions(s, 2) == DIRECTIONS and GAME.legal_actions(s, 0) == []
    with pytest.raises(IllegalAction) as err:
        play(s, 0, ChooseDirection("cw"))
    assert err.value.code == "not_your_turn"
    start = s.ghosts
    out = play(s, 2, ChooseDirection("ccw"))
    assert types(out)[:2] == ["ghosts_moved", "ghost_cards_placed"]
    assert s.ghosts == (start - 2) % 7 and s.turn == 2


def test_m10_pass_draws_one_land_draws_two_seance_and_start_room_none() -> None:
    s = turn_table(seats=5, event="truce")
    s.first = 0
    s.ghosts = 0
    s.rotation = 0
    # seat 0 in the start room (section 0 faces room 0), seat 1 passed (room 1), seat 2 passed (room 2),
    # seat 3 in the final room (3), seat 4 in the Séance Room
    s.pos = [0, 1, 2, 3, SEANCE]
    haunt_on_top(s, 1, 2, 3, 1, 2)
    out: list[object] = []
    move_ghosts(s, 3, 1, "event", out)
    moved = out[0]
    assert isinstance(moved, GhostsMoved) and moved.draws == [0, 1, 1, 2, 0] and s.ghosts == 3
    assert [len(h) for h in s.hands] == [0, 1, 1, 2, 0]
    assert s.hands[1] == [1] and s.hands[2] == [2] and s.hands[3] == [1, 3]  # clockwise from the first player
    assert [e.seat for e in out if isinstance(e, HauntDrawn)] == [1, 2, 3]


def test_m10_counter_clockwise_and_moving_into_the_ghosts_room_never_draws() -> None:
    s = turn_table(seats=2, event="truce", seat=1)
    s.ghosts = 1
    s.pos = [5, SEANCE]  # section 5 faces room 5 at rotation 0
    out: list[object] = []
    move_ghosts(s, 3, -1, "event", out)  # 1 → 0 → 6 → 5
    assert s.ghosts == 5 and len(s.hands[0]) == 2
    play(s, 1, Move(5))  # M14: moving into the ghosts' room draws nothing
    assert s.hands[1] == []


def test_m10_ghost_path_for_every_start_direction_and_length() -> None:
    """``ghost_path`` (the engine's moves, the bots' forecasts): ``k`` rooms along the way from the start, a seat
    draws 1 for ``0 < k < steps`` and 2 for ``k == steps``; nothing anywhere else."""
    for start in range(ROOM_COUNT):
        for steps in range(1, ROOM_COUNT):
            for sign in (1, -1):
                final, draws = ghost_path(start, steps, sign)
                assert final == (start + sign * steps) % ROOM_COUNT
                along = {(room - start) * sign % ROOM_COUNT: n for room, n in draws.items()}
                assert along == {**dict.fromkeys(range(1, steps), 1), steps: 2}


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_m11_placement_two_in_the_ghosts_room_then_one_per_room_clockwise(seats: int) -> None:
    s = turn_table(seats=seats, event="truce")
    s.ghosts = 5
    s.rooms[0].append(s.ghost_deck.pop(0))  # a card from an earlier round stays
    before = [len(r) for r in s.rooms]
    out: list[object] = []
    place_ghost_cards(s, out)
    added = [len(r) - b for r, b in zip(s.rooms, before, strict=True)]
    assert sum(added) == seats + 3
    expected = [0] * 7
    expected[5] = 2
    for i in range(seats + 1):
        expected[(5 + 1 + i) % 7] += 1
    assert added == expected
    placed = out[0]
    assert isinstance(placed, GhostCardsPlaced) and [len(r) for r in placed.rooms] == expected
    assert_conserved(s)


def test_m11_exhausted_ghost_deck_places_what_is_left() -> None:
    s = turn_table(seats=4, event="truce")
    for _ in range(len(s.ghost_deck) - 3):
        s.rooms[0].append(s.ghost_deck.pop())
    place_ghost_cards(s, [])
    assert s.ghost_deck == [] and sum(len(r) for r in s.rooms) == 99


def test_m12_final_round_ghosts_stay_six_more_cards_then_the_game_ends() -> None:
    s = turn_table(seats=2, event="truce")
    s.ghosts = 4
    s.first = 1
    out = _next_round_with(s, "final_round")
    assert types(out) == ["round_started", "ghost_cards_placed", "turn_started"]
    assert s.ghosts == 4 and sum(len(r) for r in s.rooms) == 2 + 6
    play(s, 1, END_TURN)
    assert s.phase == PH_TURN and s.turn == 0
    out = play(s, 0, END_TURN)
    assert types(out)[-2:] == ["turn_ended", "game_over"]
    assert s.phase == PH_OVER and GAME.prompts(s) == {} and GAME.result(s) is not None
    assert s.event == FINAL_ROUND


def test_m13_three_actions_in_any_order_then_the_next_seat_and_the_marker_passes() -> None:
    s = turn_table(seats=3, event="truce", seat=0)
    assert s.actions == 3
    play(s, 0, Move(2))
    play(s, 0, Move(SEANCE))
    assert s.turn == 0 and s.actions == 1
    out = play(s, 0, Move(2))  # the third action ends the turn by itself (only End Turn was left)
    assert types(out)[-2:] == ["turn_ended", "turn_started"] and s.turn == 1
    play(s, 1, END_TURN)  # ending early
    assert s.turn == 2
    rounds = s.round
    out = play(s, 2, END_TURN)
    assert s.round == rounds + 1 and s.first == 1  # the First Player marker passed clockwise
    assert isinstance(out[1], RoundStarted) and out[1].first == 1


def test_m13_wrong_seat_and_wrong_kind_of_action_are_refused() -> None:
    s = turn_table(seats=3, event="truce", seat=0)
    with pytest.raises(IllegalAction) as err:
        play(s, 1, END_TURN)
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as err:
        play(s, 0, ChooseDirection("cw"))
    assert err.value.code == "illegal_move"
    assert KIND_INDEX["musician"] == 0


def test_m10_a_seat_draws_for_the_room_its_section_faces_at_the_current_rotation() -> None:
    s = turn_table(seats=3, event="truce")
    s.ghosts = 0
    s.rotation = 3
    s.pos = [5, 4, 0]  # rooms 1, 0 (the start room) and 3 (the final room)
    out: list[object] = []
    move_ghosts(s, 3, 1, "event", out)
    assert isinstance(out[0], GhostsMoved) and out[0].draws == [1, 0, 2]


def test_m13_turns_run_clockwise_from_the_first_player_wrapping_past_the_last_seat() -> None:
    s = turn_table(seats=3, event="truce", seat=2)
    order = []
    rounds = s.round
    while s.round == rounds:
        order.append(s.turn)
        play(s, s.turn, END_TURN)
    assert order == [2, 0, 1] and s.first == 0
    if s.phase == PH_EVENT_DIRECTION:
        play(s, 0, DIRECTIONS[0])
    assert s.turn == 0


def test_m5_m10_a_short_haunt_deck_goes_clockwise_from_the_first_player() -> None:
    """M5 / M10 (README ruling): simultaneous draws are made clockwise from the first player, so with too few
    Haunt cards left the seats after the first player go short."""
    s = turn_table(seats=3, event="truce")
    s.first = 2
    s.ghosts = 0
    s.pos = [1, 1, 1]  # everyone in the graveyard, where the ghosts land
    for value in list(s.haunt_deck[3:]):
        s.haunt_deck.remove(value)
        s.hands[1].append(value)
    s.hands[1].sort()
    held = len(s.hands[1])
    out: list[object] = []
    move_ghosts(s, 1, 1, "event", out)
    assert [(e.seat, e.count) for e in out if isinstance(e, HauntDrawn)] == [(2, 2), (0, 1)]
    assert len(s.hands[1]) == held and s.haunt_deck == []
    assert_conserved(s)


def test_m11_cards_come_off_the_top_of_the_ghost_deck_in_placement_order() -> None:
    """M11: the first two cards drawn go to the ghosts' room, the next ones clockwise, one per room."""
    s = turn_table(seats=2, event="truce")
    s.ghosts = 6
    on_top(s, "bride", "organist", "executioner", "headless_knight", "madame_leota")
    out: list[object] = []
    place_ghost_cards(s, out)
    assert isinstance(out[0], GhostCardsPlaced)
    assert out[0].rooms == [["executioner"], ["headless_knight"], ["madame_leota"], [], [], [], ["bride", "organist"]]


def test_timeouts_send_the_ghosts_clockwise_for_an_either_event_and_a_tea_party() -> None:
    """README (time-outs): a direction owed is clockwise, for the first player's ``either`` and a Tea Party."""
    s = turn_table(seats=2, event="truce")
    _next_round_with(s, "seance_sealed")
    start = s.ghosts
    assert s.phase == PH_EVENT_DIRECTION and GAME.timeout_action(s, s.first) == ChooseDirection("cw")
    play(s, s.first, GAME.timeout_action(s, s.first))
    assert s.ghosts == (start + 1) % 7
    seat = s.turn
    s.pos[seat] = 0
    put_room(s, s.rotation % 7, "tea_party_2")
    play(s, seat, Collect("tea_party_2"))
    assert s.phase == PH_TEA_PARTY and GAME.timeout_action(s, seat) == ChooseDirection("cw")
    play(s, seat, GAME.timeout_action(s, seat))
    assert s.ghosts == (start + 3) % 7
