"""Hunts (S11) as a joint decision in steps, and the draw after a successful one (S12)."""

from collections import Counter

import pytest

from engine.contract import IllegalAction
from engine.spook import GAME
from engine.spook.actions import Done, EndTurn, Move, Offer, StartHunt
from engine.spook.cards import DECK
from engine.spook.events import (
    CardDrawn,
    CardOffered,
    GameOver,
    GhostAppeared,
    HuntAbandoned,
    HunterDone,
    HuntStarted,
    HuntSucceeded,
)
from engine.spook.state import Offered
from tests.engine.spook.helpers import census, make_state


def test_s11_a_spade_ghost_needs_hearts_reaching_its_value() -> None:
    state = make_state(hands=[["3H", "4H", "9D", "KD"]], rooms={"1": "6S"}, pawns=["1"], pile=["2D"])
    assert GAME.apply(state, 0, StartHunt(ghost="6S")) == [
        HuntStarted(seat=0, kind="normal", ghost="6S", location="1", value=6, hunters=[0], waiting=[0])
    ]
    assert GAME.prompts(state)[0].kind == "contribute"
    assert GAME.legal_actions(state, 0) == [Offer(card="3H"), Offer(card="4H"), Done()]  # no diamonds
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, Offer(card="9D"))
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, EndTurn())
    assert GAME.apply(state, 0, Offer(card="4H")) == [CardOffered(seat=0, card="4H", total=4)]
    events = GAME.apply(state, 0, Offer(card="3H"))
    assert events[:2] == [
        CardOffered(seat=0, card="3H", total=7),
        HuntSucceeded(ghosts=["6S"], cards=["4H", "3H"]),
    ]
    assert state.rooms[0] is None and state.hunt is None and state.discard[-4:] == ["4H", "3H", "6S", "2D"]
    assert state.hands[0] == ["9D", "KD"] and GAME.prompts(state)[0].kind == "turn"


def test_s11_a_club_ghost_needs_diamonds_and_a_red_queen_or_king_counts_ten() -> None:
    state = make_state(hands=[["9H", "QD", "KH"]], rooms={"4": "10C"}, pawns=["4"], pile=["2D"])
    assert GAME.legal_actions(state, 0)[1:3] == [StartHunt(ghost="10C"), StartHunt(ghost="10C", kind="king")]
    GAME.apply(state, 0, StartHunt(ghost="10C"))
    assert GAME.legal_actions(state, 0) == [Offer(card="QD"), Done()]
    events = GAME.apply(state, 0, Offer(card="QD"))
    assert HuntSucceeded(ghosts=["10C"], cards=["QD"]) in events


def test_s11_a_hunt_that_cannot_reach_the_value_is_not_legal() -> None:
    state = make_state(hands=[["3H", "2H", "9D", "JH"]], rooms={"1": "6S"}, pawns=["1"])
    assert not any(isinstance(a, StartHunt) for a in GAME.legal_actions(state, 0))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, StartHunt(ghost="6S"))
    assert err.value.code == "illegal_move"
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, StartHunt(ghost="6S", kind="king"))
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, StartHunt(ghost="7S"))  # not here


def test_s11_every_seat_with_a_pawn_there_is_prompted_at_once() -> None:
    hands = [["2H"], ["5H", "9D"], ["3H"], ["4H"]]
    state = make_state(4, hands=hands, rooms={"2": "10S"}, pawns=["2", "2", "foyer", "2"], active=1, pile=["AD"])
    assert StartHunt(ghost="10S") in GAME.legal_actions(state, 1)  # 2 + 5 + 4 ≥ 10; seat 2 is elsewhere
    GAME.apply(state, 1, StartHunt(ghost="10S"))
    assert sorted(GAME.prompts(state)) == [0, 1, 3]
    assert {p.kind for p in GAME.prompts(state).values()} == {"contribute"}
    assert GAME.legal_actions(state, 2) == []
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 2, Offer(card="3H"))
    assert err.value.code == "not_your_turn"
    # seat 3 offers its only heart and is done without being asked
    assert GAME.apply(state, 3, Offer(card="4H")) == [CardOffered(seat=3, card="4H", total=4), HunterDone(seat=3)]
    assert sorted(GAME.prompts(state)) == [0, 1]
    GAME.apply(state, 1, Offer(card="5H"))
    assert sorted(GAME.prompts(state)) == [0]
    events = GAME.apply(state, 0, Offer(card="2H"))
    assert HuntSucceeded(ghosts=["10S"], cards=["4H", "5H", "2H"]) in events
    assert state.hands == [[], ["9D"], ["3H"], []] and GAME.prompts(state) == {1: GAME.prompts(state)[1]}
    assert census(state) == Counter(DECK)


def test_s11_a_hunt_that_can_no_longer_reach_is_abandoned_and_the_cards_return() -> None:
    hands = [["2H", "AH"], ["5H"]]
    state = make_state(2, hands=hands, rooms={"3": "8S"}, pawns=["3", "3"])
    GAME.apply(state, 0, StartHunt(ghost="8S"))
    GAME.apply(state, 0, Offer(card="2H"))
    GAME.apply(state, 1, Offer(card="5H"))  # 7 offered, seat 0 still holds the Ace
    assert state.hunt is not None and state.hands == [["AH"], []]
    events = GAME.apply(state, 0, Done())
    assert events == [
        HunterDone(seat=0),
        HuntAbandoned(returned=[Offered(seat=0, card="2H"), Offered(seat=1, card="5H")]),
    ]
    assert state.hunt is None and state.hands == [["AH", "2H"], ["5H"]] and state.rooms[2] == "8S"
    assert GAME.prompts(state)[0].kind == "turn"


def test_s11_a_hunt_let_go_is_not_legal_again_this_turn_with_the_same_hunters() -> None:
    """Started again and again and let go each time (a server-run bot and an away seat's time-outs), a hunt kept
    the game from ever ending: the server committed the same two updates for ever, at full speed."""
    state = make_state(3, hands=[["2H"], ["9H"], ["AH"]], rooms={"3": "8S"}, pawns=["3", "3", "foyer"])
    GAME.apply(state, 0, StartHunt(ghost="8S"))
    assert isinstance(GAME.apply(state, 1, Done())[-1], HuntAbandoned)  # seat 0's 2H alone cannot reach 8
    assert state.hunt is None and GAME.prompts(state)[0].kind == "turn"
    assert StartHunt(ghost="8S") not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, StartHunt(ghost="8S"))
    assert err.value.code == "illegal_move" and "let this hunt go" in err.value.detail
    state.pawns[2] = "3"  # other hunters: another hunt
    assert StartHunt(ghost="8S") in GAME.legal_actions(state, 0)
    state.pawns[2] = "foyer"
    GAME.apply(state, 0, EndTurn())  # the next turn it is legal again
    assert state.let_go == [] and GAME.decode_state(GAME.encode_state(state)) == state


def test_s11_a_greedy_bot_and_an_away_seat_finish_the_game() -> None:
    """The game of seed 9 (a greedy bot, seat 1 timing out) never ended: the bot re-started the hunt seat 1's
    time-outs let go."""
    from engine.rng import seed_from_int
    from server.bots import bot_action
    from server.store import TableMeta

    meta = TableMeta(game="spook", seats=2, bots={0: "greedy"})
    state = GAME.setup(2, seed_from_int(9), GAME.default_options(), "t")
    for _ in range(2000):
        if GAME.result(state) is not None:
            break
        seat = min(GAME.prompts(state))
        action = bot_action(GAME, state, meta, seat) if seat == 0 else GAME.timeout_action(state, seat)
        GAME.apply(state, seat, action)
    assert GAME.result(state) is not None


def test_s11_hunters_without_a_counting_card_are_not_asked() -> None:
    state = make_state(2, hands=[["KD"], ["9H"]], rooms={"3": "8S"}, pawns=["3", "3"])
    GAME.apply(state, 0, StartHunt(ghost="8S"))  # the King counts 10 only as a diamond here
    assert sorted(GAME.prompts(state)) == [1]


def test_s11_a_red_king_alone_banishes_any_ghost_but_the_queen() -> None:
    state = make_state(2, hands=[["2H"], ["KH"]], rooms={"5": "10C"}, pawns=["5", "5"], pile=["3D"])
    GAME.apply(state, 0, StartHunt(ghost="10C", kind="king"))
    assert list(GAME.prompts(state)) == [1] and GAME.legal_actions(state, 1) == [Offer(card="KH"), Done()]
    events = GAME.apply(state, 1, Offer(card="KH"))
    assert HuntSucceeded(ghosts=["10C"], cards=["KH"]) in events
    state = make_state(hands=[["KH", "KD"]], rooms={"5": "QS"}, pawns=["5"])
    assert StartHunt(ghost="QS", kind="king") not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, StartHunt(ghost="QS", kind="king"))


def test_s11_two_red_queens_clear_the_wing_but_not_the_queen() -> None:
    hands = [["QH"], ["QD", "5H"]]
    rooms = {"7": "9S", "8": "QS", "9": "4C", "1": "2S"}
    state = make_state(2, hands=hands, rooms=rooms, pawns=["8", "8"], pile=["6H"])
    legal = GAME.legal_actions(state, 0)
    assert StartHunt(ghost=None, kind="wing") in legal
    GAME.apply(state, 0, StartHunt(kind="wing"))
    assert GAME.legal_actions(state, 1) == [Offer(card="QD"), Done()]
    GAME.apply(state, 1, Offer(card="QD"))
    events = GAME.apply(state, 0, Offer(card="QH"))
    assert HuntSucceeded(ghosts=["9S", "4C"], cards=["QD", "QH"]) in events
    assert state.rooms[6:9] == [None, "QS", None] and state.rooms[0] == "2S"
    assert GAME.result(state) is None


def test_s11_no_wing_clear_outside_a_wing_or_without_both_queens() -> None:
    state = make_state(hands=[["QH", "QD"]], rooms={"10": "3S"}, pawns=["10"])
    assert StartHunt(kind="wing") not in GAME.legal_actions(state, 0)  # the chapel is in no wing
    state = make_state(hands=[["QH", "KD"]], rooms={"2": "3S"}, pawns=["2"])
    assert StartHunt(kind="wing") not in GAME.legal_actions(state, 0)
    state = make_state(hands=[["QH", "QD"]], rooms={"2": "QS"}, pawns=["2"])
    assert StartHunt(kind="wing") not in GAME.legal_actions(state, 0)  # nothing but the Queen to clear
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, StartHunt(ghost="QS", kind="wing"))


def test_s11_ghosts_on_the_staircase_are_hunted_from_there() -> None:
    state = make_state(hands=[["5D", "3H"]], staircase=["4C", "2S"], pawns=["staircase"], pile=["AD"])
    hunts = [a for a in GAME.legal_actions(state, 0) if isinstance(a, StartHunt)]
    assert hunts == [StartHunt(ghost="4C"), StartHunt(ghost="2S")]
    GAME.apply(state, 0, StartHunt(ghost="2S"))
    GAME.apply(state, 0, Offer(card="3H"))
    assert state.staircase == ["4C"]


def test_s11_the_queen_is_worth_every_other_ghost_and_takes_both_red_suits() -> None:
    rooms = {"3": "QS", "6": "4C", "9": "AS"}
    state = make_state(hands=[["5D", "3H", "JH"]], rooms=rooms, staircase=["2S"], pawns=["3"])
    assert GAME.view(state, 0).queen_value == 7
    GAME.apply(state, 0, StartHunt(ghost="QS"))
    assert state.hunt is not None and state.hunt.value == 7
    assert GAME.legal_actions(state, 0) == [Offer(card="5D"), Offer(card="3H"), Done()]
    GAME.apply(state, 0, Offer(card="5D"))
    events = GAME.apply(state, 0, Offer(card="3H"))
    assert events[-2:] == [
        HuntSucceeded(ghosts=["QS"], cards=["5D", "3H"]),
        GameOver(won=True, reason="queen_hunted"),
    ]


def test_s11_a_lone_queen_is_worth_nothing_yet_a_hunt_needs_a_card() -> None:
    state = make_state(hands=[["AH"]], rooms={"3": "QS"}, pawns=["3"])
    GAME.apply(state, 0, StartHunt(ghost="QS"))
    GAME.apply(state, 0, Offer(card="AH"))
    assert state.outcome == "won"
    state = make_state(hands=[["JH"]], rooms={"3": "QS"}, pawns=["3"])
    assert not any(isinstance(a, StartHunt) for a in GAME.legal_actions(state, 0))


def test_s12_after_a_hunt_a_red_draw_is_discarded() -> None:
    state = make_state(hands=[["6H"]], rooms={"1": "6S"}, pawns=["1"], pile=["9S", "4D"])
    GAME.apply(state, 0, StartHunt(ghost="6S"))
    events = GAME.apply(state, 0, Offer(card="6H"))
    assert events[-1] == CardDrawn(seat=0, card="4D", destination="discard", public=True, pile_size=1)
    assert state.discard[-1] == "4D" and state.hands[0] == []


def test_s12_after_a_hunt_a_black_draw_appears() -> None:
    state = make_state(hands=[["6H"]], rooms={"1": "6S"}, pawns=["1"], pile=["2D", "9S"], omen="1")
    GAME.apply(state, 0, StartHunt(ghost="6S"))
    events = GAME.apply(state, 0, Offer(card="6H"))
    assert events[-3:-1] == [
        CardDrawn(seat=0, card="9S", destination="board", public=True, pile_size=1),
        GhostAppeared(ghost="9S", location="1"),
    ]
    assert state.rooms[0] == "9S" and state.omen == "9"


def test_s12_s15_no_card_left_for_the_draw_after_a_hunt_loses() -> None:
    state = make_state(hands=[["6H"]], rooms={"1": "6S"}, pawns=["1"], pile=[])
    GAME.apply(state, 0, StartHunt(ghost="6S"))
    events = GAME.apply(state, 0, Offer(card="6H"))
    assert events[-1] == GameOver(won=False, reason="pile_empty")
    assert GAME.result(state) is not None and state.outcome == "lost"


def test_s12_no_draw_after_an_abandoned_hunt() -> None:
    state = make_state(hands=[["6H"]], rooms={"1": "6S"}, pawns=["1"], pile=["2D"])
    GAME.apply(state, 0, StartHunt(ghost="6S"))
    assert GAME.apply(state, 0, Done()) == [HunterDone(seat=0), HuntAbandoned(returned=[])]
    assert state.pile == ["2D"]


def test_s15_hunting_the_queen_wins_for_every_seat() -> None:
    state = make_state(3, hands=[[], ["KD"], []], staircase=["QS", "3C"], pawns=["staircase"] * 3, active=2)
    GAME.apply(state, 2, StartHunt(ghost="QS"))
    assert list(GAME.prompts(state)) == [1]
    GAME.apply(state, 1, Offer(card="KD"))
    result = GAME.result(state)
    assert result is not None and result.scores == [1, 1, 1] and result.winners == [0, 1, 2]
    assert result.seed == state.rng.seed.hex() and GAME.prompts(state) == {}


def test_s15_the_queen_hunted_with_an_empty_pile_wins_no_draw_is_due() -> None:
    state = make_state(hands=[["9D"]], rooms={"6": "QS", "2": "4C"}, pawns=["6"], pile=[])
    GAME.apply(state, 0, StartHunt(ghost="QS"))
    events = GAME.apply(state, 0, Offer(card="9D"))
    assert events[-1] == GameOver(won=True, reason="queen_hunted")
    assert state.outcome == "won" and not any(isinstance(e, CardDrawn) for e in events)


def test_s11_s12_a_wing_clear_from_an_empty_room_of_the_wing_then_draws() -> None:
    rooms = {"4": "7S", "6": "2C", "10": "5S"}
    state = make_state(hands=[["QH", "QD"]], rooms=rooms, pawns=["5"], pile=["3H"])
    GAME.apply(state, 0, StartHunt(kind="wing"))
    events = GAME.apply(state, 0, Offer(card="QH"))
    assert not any(isinstance(e, HuntSucceeded) for e in events)  # both Queens are needed
    events = GAME.apply(state, 0, Offer(card="QD"))
    assert events[-2:] == [
        HuntSucceeded(ghosts=["7S", "2C"], cards=["QH", "QD"]),
        CardDrawn(seat=0, card="3H", destination="discard", public=True, pile_size=0),
    ]
    assert state.rooms[3:6] == [None, None, None] and state.rooms[9] == "5S"
    state = make_state(hands=[["QH", "QD"]], staircase=["4C"], rooms={"7": "2S"}, pawns=["staircase"])
    assert StartHunt(kind="wing") not in GAME.legal_actions(state, 0)  # the staircase is in no wing (S6)


def test_s11_a_hunt_let_go_is_legal_again_once_a_hunt_has_changed_the_board() -> None:
    """S11 (README, step 4): a hunt let go stays barred only while nothing has changed.  Here seat 1 lets the
    Queen (worth 14) go; seat 0 then hunts the 9♠ next door and comes back: the Queen is worth 5 now, which
    seat 1's 5♦ reaches, so the table may hunt her again — and wins."""
    rooms = {"5": "QS", "6": "9S"}
    hands = [["10H"], ["5D"]]
    state = make_state(2, hands=hands, rooms=rooms, staircase=["5C"], pawns=["5", "5"], phase="move", pile=["2D"])
    GAME.apply(state, 0, StartHunt(ghost="QS"))
    assert state.hunt is not None and state.hunt.value == 14
    GAME.apply(state, 0, Offer(card="10H"))
    assert isinstance(GAME.apply(state, 1, Done())[-1], HuntAbandoned)
    assert StartHunt(ghost="QS") not in GAME.legal_actions(state, 0)
    GAME.apply(state, 0, Move(pawn=0, to="6"))
    GAME.apply(state, 0, StartHunt(ghost="9S"))
    assert HuntSucceeded(ghosts=["9S"], cards=["10H"]) in GAME.apply(state, 0, Offer(card="10H"))
    GAME.apply(state, 0, Move(pawn=0, to="5"))
    assert GAME.view(state, 0).queen_value == 5
    assert StartHunt(ghost="QS") in GAME.legal_actions(state, 0)
    GAME.apply(state, 0, StartHunt(ghost="QS"))
    assert GAME.apply(state, 1, Offer(card="5D"))[-1] == GameOver(won=True, reason="queen_hunted")


def test_s11_s15_four_seats_hunt_the_queen_together_with_red_kings_and_queens_at_ten() -> None:
    """S1, S11, S15 with 4 seats: the Queen (worth 6 + 9 + 10 + 3 = 28) takes ♥ and ♦ alike, a red King or Queen
    counting 10 and a Jack nothing; three hunters answer at once, the fourth is elsewhere, and her fall wins for
    all four.  A hunter answering after the hunt is over is refused and keeps its card."""
    rooms = {"2": "QS", "4": "6C", "8": "9S", "10": "10C"}
    hands = [["KD", "JH"], ["QH", "2D"], ["8H", "9D"], ["KH"]]
    pawns = ["2", "2", "2", "foyer"]
    state = make_state(4, hands=hands, rooms=rooms, staircase=["3S"], pawns=pawns, active=1, phase="roll")
    GAME.apply(state, 1, StartHunt(ghost="QS"))
    assert state.hunt is not None and state.hunt.value == 28 and state.hunt.waiting == [0, 1, 2]
    assert GAME.legal_actions(state, 0) == [Offer(card="KD"), Done()]  # the Jack does not count
    GAME.apply(state, 0, Offer(card="KD"))
    GAME.apply(state, 1, Offer(card="QH"))
    events = GAME.apply(state, 2, Offer(card="8H"))
    assert events[-2:] == [
        HuntSucceeded(ghosts=["QS"], cards=["KD", "QH", "8H"]),
        GameOver(won=True, reason="queen_hunted"),
    ]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, Offer(card="2D"))
    assert err.value.code == "game_over" and state.hands == [["JH"], ["2D"], ["9D"], ["KH"]]
    result = GAME.result(state)
    assert result is not None and result.winners == [0, 1, 2, 3] and result.scores == [1, 1, 1, 1]


def test_s11_an_offer_after_the_hunt_succeeded_is_refused_and_the_card_stays() -> None:
    """S11: every hunter answers at once; once the offered cards reach the value the hunt is over, so a second
    hunter's offer sent at the same moment is refused (``not_your_turn``) and changes nothing."""
    state = make_state(2, hands=[["9H"], ["5H"]], rooms={"3": "8S"}, pawns=["3", "3"], pile=["2D"])
    GAME.apply(state, 0, StartHunt(ghost="8S"))
    assert sorted(GAME.prompts(state)) == [0, 1]
    GAME.apply(state, 0, Offer(card="9H"))
    before = GAME.encode_state(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, Offer(card="5H"))
    assert err.value.code == "not_your_turn" and GAME.encode_state(state) == before and state.hands[1] == ["5H"]
