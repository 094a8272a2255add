"""The turn: draw (S8), ghosts appearing (S9), die and move (S10), traps (S13), end of turn (S14), end (S15)."""

from collections import Counter

import pytest

from engine.contract import IllegalAction
from engine.rng import Rng
from engine.spook import GAME
from engine.spook.actions import Done, Draw, EndTurn, LayTrap, Move, Offer, Roll, StartHunt, StopMoving
from engine.spook.cards import DECK
from engine.spook.events import (
    CardDrawn,
    DieRolled,
    GameOver,
    GhostAppeared,
    MoveStopped,
    OmenMoved,
    PawnMoved,
    TrapLaid,
    TrapSprung,
    TurnEnded,
)
from tests.engine.spook.helpers import census, make_state


def test_s8_a_red_card_is_kept_and_only_its_drawer_sees_it() -> None:
    state = make_state(2, pile=["9S", "4H"], phase="draw")
    events = GAME.apply(state, 0, Draw())
    assert events == [CardDrawn(seat=0, card="4H", destination="hand", public=False, pile_size=1)]
    assert state.hands[0] == ["4H"] and state.pile == ["9S"] and state.phase == "roll"
    assert GAME.redact(events[0], 0) == events[0]
    for other in (1, None):
        hidden = GAME.redact(events[0], other)
        assert isinstance(hidden, CardDrawn) and hidden.card is None and hidden.seat == 0


def test_s8_open_hands_make_the_drawn_card_public() -> None:
    state = make_state(2, pile=["4H"], phase="draw", open_hands=True)
    [event] = GAME.apply(state, 0, Draw())
    assert isinstance(event, CardDrawn) and event.public
    assert GAME.redact(event, 1) == event == GAME.redact(event, None)


def test_s8_a_black_card_is_a_ghost_appearing_in_public() -> None:
    state = make_state(2, pile=["6C"], phase="draw", omen="3")
    events = GAME.apply(state, 0, Draw())
    assert events == [
        CardDrawn(seat=0, card="6C", destination="board", public=True, pile_size=0),
        GhostAppeared(ghost="6C", location="3"),
        OmenMoved(room="6"),
    ]
    assert state.rooms[2] == "6C" and state.omen == "6" and state.hands[0] == []
    assert all(GAME.redact(e, 1) == e for e in events)


def test_s9_an_occupied_omen_room_sends_the_ghost_to_the_next_free_room_wrapping_after_10() -> None:
    state = make_state(rooms={"9": "AS", "10": "2S", "1": "3S"}, pile=["5C"], phase="draw", omen="9")
    events = GAME.apply(state, 0, Draw())
    assert GhostAppeared(ghost="5C", location="2") in events
    assert state.rooms[1] == "5C" and state.omen == "5"


def test_s9_the_omen_stays_when_the_ghost_has_its_own_number() -> None:
    state = make_state(pile=["4C"], phase="draw", omen="4")
    events = GAME.apply(state, 0, Draw())
    assert not any(isinstance(e, OmenMoved) for e in events) and state.omen == "4" and state.rooms[3] == "4C"


def test_s9_a_trap_destroys_the_ghost_and_the_omen_still_moves() -> None:
    state = make_state(pile=["8S"], traps={"2": "JH"}, phase="draw", omen="2")
    events = GAME.apply(state, 0, Draw())
    assert TrapSprung(room="2", trap="JH", ghost="8S", ghost_destroyed=True) in events
    assert state.rooms[1] is None and state.traps[1] is None
    assert state.discard[-2:] == ["8S", "JH"] and state.omen == "8"


def test_s9_the_queen_survives_a_trap_and_does_not_move_the_omen() -> None:
    state = make_state(pile=["QS"], traps={"5": "JD"}, phase="draw", omen="5")
    events = GAME.apply(state, 0, Draw())
    assert TrapSprung(room="5", trap="JD", ghost="QS", ghost_destroyed=False) in events
    assert state.rooms[4] == "QS" and state.traps[4] is None and state.discard[-1] == "JD"
    assert state.omen == "5" and not any(isinstance(e, OmenMoved) for e in events)


def test_s9_with_every_room_haunted_the_ghost_goes_on_the_staircase() -> None:
    rooms = {str(n): f"{'A' if n == 1 else n}S" for n in range(1, 11)}
    state = make_state(rooms=rooms, staircase=["2C"], pile=["7C"], phase="draw", omen="4")
    events = GAME.apply(state, 0, Draw())
    assert GhostAppeared(ghost="7C", location="staircase") in events
    assert state.staircase == ["2C", "7C"] and state.omen == "7"


def test_s10_the_die_comes_from_the_seeded_generator() -> None:
    state = make_state(phase="roll")
    expected = Rng(state.rng.seed, state.rng.counter).below(6) + 1
    assert GAME.apply(state, 0, Roll()) == [DieRolled(seat=0, value=expected)]
    assert state.roll == state.steps_left == expected and state.phase == "move"


def test_s10_any_one_pawn_moves_door_by_door_up_to_the_roll() -> None:
    state = make_state(3, phase="move", active=0)  # the roll is 3
    assert {m.pawn for m in GAME.legal_actions(state, 0) if isinstance(m, Move)} == {0, 1, 2}
    assert GAME.apply(state, 0, Move(pawn=2, to="1")) == [PawnMoved(pawn=2, origin="foyer", to="1", steps_left=2)]
    moves = [a for a in GAME.legal_actions(state, 0) if isinstance(a, Move)]
    assert moves == [Move(pawn=2, to="foyer"), Move(pawn=2, to="2")]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, Move(pawn=0, to="1"))
    assert err.value.code == "illegal_move"
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, Move(pawn=2, to="5"))  # no door from 1 to 5
    GAME.apply(state, 0, Move(pawn=2, to="2"))
    GAME.apply(state, 0, Move(pawn=2, to="1"))  # walking back is allowed
    assert state.pawns == ["foyer", "foyer", "1"] and state.steps_left == 0 and state.phase == "turn"
    assert GAME.prompts(state)[0].kind == "turn"


def test_s10_stopping_early() -> None:
    state = make_state(phase="move")
    GAME.apply(state, 0, Move(pawn=0, to="staircase"))
    assert GAME.apply(state, 0, StopMoving()) == [MoveStopped(seat=0, steps_left=2)]
    assert state.phase == "turn" and state.steps_left == 0
    assert EndTurn() in GAME.legal_actions(state, 0) and StopMoving() not in GAME.legal_actions(state, 0)


def test_s10_hunts_and_traps_before_during_and_after_the_move_but_not_before_the_draw() -> None:
    hunt = StartHunt(ghost="3S", kind="normal")
    for phase in ("roll", "move", "turn"):
        state = make_state(hands=[["5H", "JD"]], rooms={"1": "3S"}, pawns=["1"], phase=phase)
        legal = GAME.legal_actions(state, 0)
        assert hunt in legal and LayTrap(card="JD") in legal
    state = make_state(hands=[["5H", "JD"]], rooms={"1": "3S"}, pawns=["1"], phase="draw")
    assert GAME.legal_actions(state, 0) == [Draw()]
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, hunt)
    # a hunt in the middle of the move keeps the steps left
    state = make_state(hands=[["5H"]], rooms={"1": "3S"}, pawns=["1"], phase="move", pile=["2D"])
    GAME.apply(state, 0, hunt)
    GAME.apply(state, 0, Offer(card="5H"))
    assert state.phase == "move" and state.steps_left == 3 and state.rooms[0] is None


def test_s13_a_red_jack_becomes_the_trap_of_the_active_seats_room() -> None:
    state = make_state(2, hands=[["JH", "JD", "2H"], []], pawns=["6", "6"], rooms={"6": "9C"})
    assert [a for a in GAME.legal_actions(state, 0) if isinstance(a, LayTrap)] == [
        LayTrap(card="JH"),
        LayTrap(card="JD"),
    ]
    assert GAME.apply(state, 0, LayTrap(card="JD")) == [TrapLaid(seat=0, trap="JD", room="6")]
    assert state.traps[5] == "JD" and state.hands[0] == ["JH", "2H"] and state.rooms[5] == "9C"
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, LayTrap(card="JH"))  # one trap per room
    assert not any(isinstance(a, LayTrap) for a in GAME.legal_actions(state, 0))
    assert census(state) == Counter(DECK)


def test_s13_no_trap_outside_the_rooms_and_only_jacks() -> None:
    state = make_state(hands=[["JH", "2H"]], pawns=["staircase"])
    assert not any(isinstance(a, LayTrap) for a in GAME.legal_actions(state, 0))
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, LayTrap(card="JH"))
    state = make_state(hands=[["JH", "2H"]], pawns=["3"])
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, LayTrap(card="2H"))
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, LayTrap(card="JD"))  # not in the hand


def test_s13_only_the_active_seat_lays_a_trap() -> None:
    """S13: the Jack comes from the active seat's hand; a seat sharing the room lays none out of turn."""
    state = make_state(2, hands=[["2H"], ["JH"]], pawns=["6", "6"])
    assert not any(isinstance(a, LayTrap) for a in GAME.legal_actions(state, 0))
    assert GAME.legal_actions(state, 1) == []
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, LayTrap(card="JH"))
    assert err.value.code == "not_your_turn" and state.traps[5] is None


def test_s14_the_turn_ends_after_the_move_and_passes_on() -> None:
    state = make_state(3, phase="move", active=2)
    with pytest.raises(IllegalAction):
        GAME.apply(state, 2, EndTurn())
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, StopMoving())
    assert err.value.code == "not_your_turn"
    GAME.apply(state, 2, StopMoving())
    assert GAME.apply(state, 2, EndTurn()) == [TurnEnded(seat=2, next_seat=0)]
    assert state.active == 0 and state.phase == "draw" and state.turn == 2 and state.moving_pawn is None
    assert GAME.prompts(state) == {0: GAME.prompts(state)[0]} and GAME.prompts(state)[0].kind == "draw"


def test_s15_a_haunted_wing_loses_at_the_end_of_the_turn_only() -> None:
    state = make_state(2, rooms={"4": "AS", "5": "2S"}, pile=["3D", "6C"], phase="draw", omen="6")
    GAME.apply(state, 0, Draw())  # room 6 fills the east wing mid-turn: play goes on
    assert state.rooms[3:6] == ["AS", "2S", "6C"] and GAME.result(state) is None
    GAME.apply(state, 0, Roll())
    GAME.apply(state, 0, StopMoving())
    assert GAME.apply(state, 0, EndTurn()) == [GameOver(won=False, reason="wing_haunted", wing="east")]
    result = GAME.result(state)
    assert result is not None and result.scores == [0, 0] and result.winners == []
    assert GAME.prompts(state) == {} and GAME.legal_actions(state, 0) == []
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, Draw())
    assert err.value.code == "game_over"


def test_s15_a_wing_cleared_before_the_end_of_the_turn_does_not_lose() -> None:
    state = make_state(hands=[["3H"]], rooms={"7": "AS", "8": "2S", "9": "3S"}, pawns=["9"], pile=["5D", "4D"])
    GAME.apply(state, 0, StartHunt(ghost="3S"))
    GAME.apply(state, 0, Offer(card="3H"))
    GAME.apply(state, 0, EndTurn())
    assert GAME.result(state) is None and state.active == 0 and state.phase == "draw"


def test_s15_the_queen_counts_as_a_ghost_of_a_haunted_wing() -> None:
    """S15: the Queen is a ghost (S1, S8), so she fills a wing's third room like any other."""
    state = make_state(2, rooms={"7": "AS", "8": "2C", "9": "QS"}, pile=["3D"])
    assert GAME.apply(state, 0, EndTurn()) == [GameOver(won=False, reason="wing_haunted", wing="upper")]


def test_s15_an_empty_pile_when_the_next_draw_is_due_loses() -> None:
    state = make_state(2, pile=[])
    assert GAME.apply(state, 0, EndTurn()) == [
        TurnEnded(seat=0, next_seat=1),
        GameOver(won=False, reason="pile_empty"),
    ]
    result = GAME.result(state)
    assert result is not None and result.winners == [] and state.outcome == "lost"


def test_timeouts_keep_the_game_moving() -> None:
    state = make_state(2, hands=[["2H"], ["4H"]], rooms={"1": "5S"}, pawns=["1", "1"], phase="draw", pile=["8D"])
    assert GAME.timeout_action(state, 0) == Draw()
    with pytest.raises(IllegalAction):
        GAME.timeout_action(state, 1)
    for phase, expected in (("roll", Roll()), ("move", StopMoving()), ("turn", EndTurn())):
        state.phase = phase  # type: ignore[assignment]
        assert GAME.timeout_action(state, 0) == expected
    GAME.apply(state, 0, StartHunt(ghost="5S"))
    assert GAME.timeout_action(state, 0) == GAME.timeout_action(state, 1) == Done()


def test_s15_the_last_card_drawn_loses_only_when_the_next_draw_is_due() -> None:
    state = make_state(2, pile=["4H"], phase="draw")
    GAME.apply(state, 0, Draw())  # the pile is now empty, but no draw is due: the turn goes on
    assert state.pile == [] and state.phase == "roll" and GAME.result(state) is None
    GAME.apply(state, 0, Roll())
    GAME.apply(state, 0, StopMoving())
    assert GAME.result(state) is None
    assert GAME.apply(state, 0, EndTurn())[-1] == GameOver(won=False, reason="pile_empty")


def test_s15_a_haunted_wing_at_the_end_of_the_turn_comes_before_the_next_draw() -> None:
    state = make_state(2, rooms={"1": "AS", "2": "2S", "3": "3S"}, pile=[])
    assert GAME.apply(state, 0, EndTurn()) == [GameOver(won=False, reason="wing_haunted", wing="west")]
    assert state.active == 0 and state.outcome == "lost"


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_s14_seats_play_in_turn_from_seat_0_round_the_table(seats: int) -> None:
    state = make_state(seats, phase="turn")
    order = []
    for _ in range(2 * seats):
        order.append(state.active)
        GAME.apply(state, state.active, EndTurn())
        assert GAME.prompts(state) == {state.active: GAME.prompts(state)[state.active]}
        state.phase = "turn"
    assert order == [*range(seats)] * 2 and state.turn == 2 * seats + 1


def test_s9_the_queen_appearing_never_moves_the_omen() -> None:
    state = make_state(pile=["QS"], rooms={"5": "2C"}, phase="draw", omen="5")
    events = GAME.apply(state, 0, Draw())
    assert GhostAppeared(ghost="QS", location="6") in events and state.rooms[5] == "QS"
    assert state.omen == "5" and not any(isinstance(e, OmenMoved) for e in events)
    rooms = {str(n): f"{'A' if n == 1 else n}S" for n in range(1, 11)}
    state = make_state(rooms=rooms, pile=["QS"], phase="draw", omen="3")
    events = GAME.apply(state, 0, Draw())
    assert GhostAppeared(ghost="QS", location="staircase") in events and state.staircase == ["QS"]
    assert state.omen == "3" and not any(isinstance(e, OmenMoved) for e in events)


def test_s9_only_the_room_the_ghost_lands_in_springs_its_trap() -> None:
    # the omen's room holds a ghost and a trap: the new ghost goes on to room 4, whose trap destroys it
    state = make_state(rooms={"3": "AC"}, traps={"3": "JH", "4": "JD"}, pile=["9C"], phase="draw", omen="3")
    events = GAME.apply(state, 0, Draw())
    assert GhostAppeared(ghost="9C", location="4") in events
    assert TrapSprung(room="4", trap="JD", ghost="9C", ghost_destroyed=True) in events
    assert state.traps[2] == "JH" and state.traps[3] is None and state.rooms[2:4] == ["AC", None]
    assert state.omen == "9" and census(state) == Counter(DECK)


def test_s10_s11_moving_another_seats_pawn_in_lets_it_join_the_hunt() -> None:
    state = make_state(2, hands=[["3H"], ["5H"]], rooms={"1": "8S"}, pawns=["1", "foyer"], phase="move", pile=["2D"])
    assert not any(isinstance(a, StartHunt) for a in GAME.legal_actions(state, 0))  # 3 alone cannot reach 8
    GAME.apply(state, 0, Move(pawn=1, to="1"))
    assert StartHunt(ghost="8S") in GAME.legal_actions(state, 0)
    GAME.apply(state, 0, StartHunt(ghost="8S"))
    assert sorted(GAME.prompts(state)) == [0, 1]
    GAME.apply(state, 1, Offer(card="5H"))
    GAME.apply(state, 0, Offer(card="3H"))
    assert state.rooms[0] is None and state.phase == "move" and state.steps_left == 2 and state.moving_pawn == 1


@pytest.mark.parametrize("seats", [1, 4])
def test_s15_solo_and_four_seats_win_and_lose_together(seats: int) -> None:
    """S15 with 1 and 4 seats: a haunted wing at the end of the turn and an empty pile when the next draw is due
    lose for every seat; the Queen hunted wins for every seat (the last seat's turn passes to seat 0)."""
    last = seats - 1
    lost = make_state(seats, rooms={"4": "AS", "5": "2S", "6": "3S"}, active=last)
    assert GAME.apply(lost, last, EndTurn()) == [GameOver(won=False, reason="wing_haunted", wing="east")]
    empty = make_state(seats, pile=[], active=last)
    assert GAME.apply(empty, last, EndTurn()) == [TurnEnded(seat=last, next_seat=0), GameOver(False, "pile_empty")]
    for state in (lost, empty):
        result = GAME.result(state)
        assert result is not None and result.scores == [0] * seats and result.winners == []
    won = make_state(seats, hands=[["AD"]] * 1 + [[]] * last, rooms={"1": "QS"}, pawns=["1"] * seats, active=last)
    GAME.apply(won, last, StartHunt(ghost="QS"))
    assert list(GAME.prompts(won)) == [0]  # only a hunter holding a card that counts is asked
    GAME.apply(won, 0, Offer(card="AD"))
    result = GAME.result(won)
    assert result is not None and result.scores == [1] * seats and result.winners == list(range(seats))
