"""M7: every Event card's steps, direction and round condition."""

import pytest

from engine.mansion import GAME
from engine.mansion.actions import DECLINE, END_TURN, Collect, Dial, DiscardHaunt, Duel, Move, Rotate
from engine.mansion.cards import CCW, CW, EITHER, EVENTS, SEANCE
from engine.mansion.events import GhostsMoved, HauntDiscarded
from engine.mansion.rules import place_ghost_cards
from engine.mansion.state import PH_CANDLELIGHT, PH_TURN
from tests.engine.mansion.helpers import give, haunt, play, put_room, turn_table, types


def _of(actions: list[object], kind: type) -> list[object]:
    return [a for a in actions if isinstance(a, kind)]


def test_m7_event_table() -> None:
    table = {e.name: (e.steps, e.direction) for e in EVENTS}
    assert table == {
        "candlelight": (3, CW),
        "restless_spirits": (2, CCW),
        "open_doors": (1, CW),
        "cold_spot": (2, CW),
        "quiet_night": (3, CCW),
        "stretching_room": (1, CCW),
        "locked_hallway": (2, EITHER),
        "wandering_spirits": (4, CW),
        "busy_night": (3, CW),
        "seance_sealed": (1, EITHER),
        "truce": (3, EITHER),
        "bold_challenge": (2, CCW),
        "heavy_footsteps": (4, CCW),
        "final_round": (0, CW),
    }


def test_m7_candlelight_end_of_turn_discard_in_the_seance_room() -> None:
    s = turn_table(seats=2, event="candlelight")
    haunt(s, 0, 1, 2)
    out = play(s, 0, END_TURN)
    assert out == [] and s.phase == PH_CANDLELIGHT and GAME.prompts(s)[0].kind == "candlelight"
    assert GAME.legal_actions(s, 0) == [DiscardHaunt(1), DiscardHaunt(2), DECLINE]
    assert GAME.timeout_action(s, 0) == DECLINE
    out = play(s, 0, DiscardHaunt(2))
    assert types(out) == ["haunt_discarded", "turn_ended", "turn_started"]
    assert out[0] == HauntDiscarded(0, "candlelight", 2) and s.hands[0] == [1]
    # in a room, or with no Haunt card, the turn just ends
    s.pos[1] = 0
    haunt(s, 1, 3)
    assert types(play(s, 1, END_TURN))[0] == "turn_ended"


def test_m7_candlelight_decline_also_after_the_last_action() -> None:
    s = turn_table(seats=2, event="candlelight")
    haunt(s, 0, 3)
    play(s, 0, Move(0))
    play(s, 0, Move(1))
    out = play(s, 0, Move(SEANCE))  # the last action: the turn ends in the Séance Room
    assert types(out) == ["moved"] and s.phase == PH_CANDLELIGHT
    out = play(s, 0, DECLINE)
    assert types(out)[:2] == ["declined", "turn_ended"] and s.hands[0] == [3] and s.turn == 1


def test_m7_restless_spirits_two_duels() -> None:
    s = turn_table(seats=2, event="restless_spirits")
    give(s, 1, "musician", "painting")
    play(s, 0, Duel(1, "musician"))
    play(s, 0, Dial(0))
    play(s, 1, Dial(0))
    assert _of(GAME.legal_actions(s, 0), Duel)
    play(s, 0, Duel(1, "painting"))
    play(s, 0, Dial(0))
    play(s, 1, Dial(0))
    assert s.turn == 0 and s.actions == 1 and _of(GAME.legal_actions(s, 0), Duel) == []


def test_m7_open_doors_first_rotate_free_even_without_actions() -> None:
    s = turn_table(seats=2, event="open_doors")
    out = play(s, 0, Rotate(3))
    assert s.actions == 3 and out[0].free  # type: ignore[attr-defined]
    play(s, 0, Rotate(4))
    assert s.actions == 2
    s = turn_table(seats=2, event="open_doors")
    for to in (0, 1, 2):
        play(s, 0, Move(to))
    assert s.turn == 0 and GAME.legal_actions(s, 0) == [*(Rotate(r) for r in range(1, 7)), END_TURN]
    out = play(s, 0, Rotate(2))
    assert types(out)[:2] == ["rotated", "turn_ended"]


def test_m7_cold_spot_and_quiet_night_change_the_ghosts_room_draws() -> None:
    for event, draws in (("cold_spot", 2), ("quiet_night", 0), ("truce", 1)):
        s = turn_table(seats=2, event=event)
        s.pos[0] = 0
        put_room(s, 0, "musician")
        play(s, 0, Collect("musician"))
        assert len(s.hands[0]) == draws, event


def test_m7_stretching_room_four_actions() -> None:
    assert turn_table(event="stretching_room").actions == 4
    assert turn_table(event="truce").actions == 3


def test_m7_locked_hallway_no_rotation() -> None:
    s = turn_table(event="locked_hallway")
    assert _of(GAME.legal_actions(s, 0), Rotate) == []


def test_m7_wandering_spirits_ghosts_move_after_each_turn() -> None:
    s = turn_table(seats=3, event="wandering_spirits")
    s.pos = [SEANCE, 1, SEANCE]
    out = play(s, 0, END_TURN)
    moved = [e for e in out if isinstance(e, GhostsMoved)]
    assert types(out)[:2] == ["turn_ended", "ghosts_moved"]
    assert moved[0].cause == "wandering_spirits" and moved[0].draws == [0, 2, 0] and s.ghosts == 1


def test_m7_busy_night_two_more_cards() -> None:
    for event, extra in (("busy_night", 2), ("truce", 0), ("final_round", 3)):
        s = turn_table(seats=4, event=event)
        place_ghost_cards(s, [])
        assert sum(len(r) for r in s.rooms) == 4 + 3 + extra


def test_m7_seance_sealed_no_discard_action() -> None:
    s = turn_table(event="seance_sealed")
    haunt(s, 0, 2)
    assert _of(GAME.legal_actions(s, 0), DiscardHaunt) == []


def test_m7_truce_no_duels() -> None:
    s = turn_table(seats=2, event="truce")
    give(s, 1, "musician")
    assert _of(GAME.legal_actions(s, 0), Duel) == []


def test_m7_bold_challenge_free_duel_once() -> None:
    s = turn_table(seats=2, event="bold_challenge")
    give(s, 1, "musician")
    play(s, 0, Duel(1, "musician"))
    assert s.actions == 3
    play(s, 0, Dial(1))
    play(s, 1, Dial(2))
    assert _of(GAME.legal_actions(s, 0), Duel) == []
    # with no action left the free duel remains, when someone to duel is there
    s = turn_table(seats=2, event="bold_challenge")
    give(s, 1, "musician")
    for to in (0, 1, SEANCE):
        play(s, 0, Move(to))
    assert s.turn == 0 and GAME.legal_actions(s, 0) == [Duel(1, "musician"), END_TURN]
    # otherwise the turn ends by itself
    s = turn_table(seats=2, event="bold_challenge")
    give(s, 1, "musician")
    for to in (0, SEANCE, 0):
        play(s, 0, Move(to))
    assert s.turn == 1


@pytest.mark.parametrize("start", [0, 3, SEANCE])
def test_m7_heavy_footsteps_one_move_up_to_two_steps(start: int) -> None:
    s = turn_table(seats=2, event="heavy_footsteps")
    s.pos[0] = start
    targets = [m.to for m in _of(GAME.legal_actions(s, 0), Move)]  # type: ignore[attr-defined]
    assert targets == [to for to in range(SEANCE, 6) if to != start]
    if start == 0:
        out = play(s, 0, Move(4))  # 0 → Séance Room → 4: two steps
        assert out[0].steps == 2 and s.long_move_used  # type: ignore[attr-defined]
        assert [m.to for m in _of(GAME.legal_actions(s, 0), Move)] == [SEANCE, 3, 5]  # type: ignore[attr-defined]
    assert s.phase == PH_TURN


def test_m7_wandering_spirits_also_after_the_rounds_last_turn_before_the_next_event_phase() -> None:
    """M7 (README ruling): the ghosts move after every turn, the round's last included, before the next Event
    card is revealed; seats in the room they reach draw 2 (M10)."""
    s = turn_table(seats=2, event="wandering_spirits", seat=1)
    s.pos = [1, SEANCE]  # seat 0 in the graveyard
    play(s, 1, END_TURN)
    assert s.ghosts == 1 and len(s.hands[0]) == 2
    s.pos[0] = 2  # seat 0 moves on to the attic during its own turn; its end moves the ghosts there too
    out = play(s, 0, END_TURN)
    assert types(out)[:3] == ["turn_ended", "ghosts_moved", "haunt_drawn"]
    assert "round_started" in types(out)[3:]
    moved = out[1]
    assert isinstance(moved, GhostsMoved) and moved.cause == "wandering_spirits" and moved.to == 2
    assert moved.draws == [2, 0]


def test_m7_busy_night_and_final_round_continue_the_clockwise_placement() -> None:
    """M7 busy_night / M11 / M12: the extra cards carry on one per room clockwise, wrapping round."""
    for event, extra in (("busy_night", 2), ("final_round", 3)):
        s = turn_table(seats=6, event=event)
        s.ghosts = 3
        out: list[object] = []
        place_ghost_cards(s, out)
        count = 6 + 3 + extra
        expected = [0] * 7
        expected[3] = 2
        for i in range(count - 2):
            expected[(3 + 1 + i) % 7] += 1
        assert [len(r) for r in s.rooms] == expected, event


def test_m7_heavy_footsteps_two_sections_along_the_hallway_is_the_turns_long_move() -> None:
    """M7 heavy_footsteps: 1 → 3 crosses two steps without the Séance Room, and no second long move follows."""
    s = turn_table(seats=2, event="heavy_footsteps")
    s.pos[0] = 1
    out = play(s, 0, Move(3))
    assert out[0].steps == 2 and s.long_move_used and s.actions == 2  # type: ignore[attr-defined]
    assert [m.to for m in _of(GAME.legal_actions(s, 0), Move)] == [SEANCE, 2, 4]  # type: ignore[attr-defined]
    play(s, 0, Move(4))
    assert not [m for m in _of(GAME.legal_actions(s, 0), Move) if m.to in (0, 1, 2)]  # type: ignore[attr-defined]


def test_m7_candlelight_after_a_discard_action_and_not_with_an_empty_hand() -> None:
    """M7 candlelight (README ruling): the end-of-turn discard comes on top of the turn's M18 discard; a seat
    ending in the Séance Room with no Haunt card is not asked."""
    s = turn_table(seats=2, event="candlelight")
    haunt(s, 0, 1, 3)
    play(s, 0, DiscardHaunt(3))
    play(s, 0, END_TURN)
    assert s.phase == PH_CANDLELIGHT and GAME.legal_actions(s, 0) == [DiscardHaunt(1), DECLINE]
    out = play(s, 0, DiscardHaunt(1))
    assert out[0] == HauntDiscarded(0, "candlelight", 1) and s.hands[0] == [] and s.turn == 1
    assert s.hands[1] == [] and s.pos[1] == SEANCE
    assert types(play(s, 1, END_TURN))[0] == "turn_ended"


def test_m7_seance_sealed_forbids_the_discard_action_not_the_grim_grinning_discard() -> None:
    """M7 seance_sealed (README ruling): only the M18 action is sealed; a Grim Grinning's discard (M6) is the
    card's effect and is offered as usual, in the Séance Room or anywhere."""
    s = turn_table(seats=2, event="seance_sealed")
    haunt(s, 0, 2, 3)
    assert _of(GAME.legal_actions(s, 0), DiscardHaunt) == []
    s.pos[0] = 2
    put_room(s, 2, "grim_grinning")
    play(s, 0, Collect("grim_grinning"))
    assert GAME.legal_actions(s, 0) == [DiscardHaunt(2), DiscardHaunt(3), DECLINE]
    play(s, 0, DiscardHaunt(3))
    assert s.hands[0] == [2] and s.haunt_deck[0] == 3 and s.phase == PH_TURN
