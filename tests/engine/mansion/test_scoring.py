"""The end of the game: Haunt totals (M19), the penalty (M20), card scores (M21) and winners (M22)."""

import pytest

from engine.mansion import GAME
from engine.mansion.actions import END_TURN
from engine.mansion.cards import KIND_INDEX
from engine.mansion.events import GameOver
from engine.mansion.scoring import final_scores, penalty_icon, portrait_score, portrait_splits, score
from tests.engine.mansion.helpers import assert_conserved, give, haunt, play, turn_table


def cards(**counts: int) -> list[int]:
    return sorted(KIND_INDEX[name] for name, n in counts.items() for _ in range(n))


SEED_EXAMPLE = cards(ballroom=2, grim_grinning=1, dancing=2, musician=3, tea_party_1=1, painting=3)


def test_seed_worked_example_scores_40() -> None:
    assert score(SEED_EXAMPLE, lowest_haunt=False) == 8 + 2 + 7 + 9 + 2 + 12 == 40


@pytest.mark.parametrize(
    ("card", "others", "points"),
    [
        ("bride", cards(groom=3), 8),
        ("headless_knight", cards(painting=3), 7),
        ("organist", cards(dancing=4), 9),
        (
            "executioner",
            cards(musician=1, painting=1, dancing=1, tea_party_1=1, grim_grinning=1, ballroom=1, groom=1),
            8,
        ),
    ],
)
def test_m21_french_seed_worked_examples_of_the_special_ghosts(card: str, others: list[int], points: int) -> None:
    """M21 against the French seed's captions (000_…, absent from the English text): a Bride with three Grooms
    scores 8, a Headless Knight with three Paintings 7, an Organist with four Dancing Ghosts 9, an Executioner
    among seven icons 8."""
    assert score(sorted([*others, KIND_INDEX[card]]), False) - score(others, False) == points


def test_m21_french_seed_portraits_each_card_in_one_set() -> None:
    """M21, the French seed's caption: three of one portrait and one of each other kind score one way or the
    other, not both; the engine picks the better, the four different (18)."""
    assert (
        score(cards(portrait_tightrope=3, portrait_dynamite=1, portrait_quicksand=1, portrait_tombstone=1), False) == 18
    )


def test_m20_seed_penalty_example_discards_the_paintings() -> None:
    # 3 musician and 3 painting tied as the most held: the paintings score 12 against 9, so they go
    assert penalty_icon(SEED_EXAMPLE) == 1  # painting
    discards, scores, winners = final_scores([SEED_EXAMPLE, cards(musician=1)], [12, 10])
    assert discards == [cards(painting=3), []]
    assert scores == [40 - 12, 1] and winners == [0]


def test_m20_every_tied_highest_seat_discards_and_specials_never_go() -> None:
    collections = [cards(musician=2, bride=1), cards(dancing=2, madame_leota=1), cards(groom=1), cards(bride=1)]
    discards, scores, _ = final_scores(collections, [7, 7, 3, 7])
    assert discards == [cards(musician=2), cards(dancing=2), [], []]
    assert scores == [2, 3, 1, 2]


def test_m20_tied_icons_lose_the_most_points_then_the_first_listed() -> None:
    assert penalty_icon(cards(tea_party_2=1, grim_grinning=1, ballroom=1)) == 5  # ballroom: 4 points
    assert penalty_icon(cards(tea_party_2=1, grim_grinning=1)) == 3  # 2 and 2: tea_party listed first
    assert penalty_icon(cards(bride=2)) == -1
    # the loss counts the bonuses of special ghosts: two grooms feed a bride
    assert penalty_icon(cards(groom=2, musician=2, bride=1)) == 6


@pytest.mark.parametrize(
    ("collection", "points"),
    [
        (cards(musician=1), 1),
        (cards(musician=5), 25),
        (cards(musician=6), 26),
        (cards(musician=11), 25 + 25 + 1),
        (cards(painting=1), 3),
        (cards(painting=2), 0),
        (cards(painting=4), 15),
        (cards(painting=5), 12),
        (cards(painting=7), 12 + 12 + 3),
        (cards(dancing=1), 0),
        (cards(dancing=3), 7),
        (cards(dancing=4), 14),
        (cards(tea_party_1=1, tea_party_3=1), 4),
        (cards(grim_grinning=2), 4),
        (cards(ballroom=3), 12),
        (cards(groom=2), 2),
        (cards(bride=1, groom=2), 6 + 2),
        (cards(headless_knight=1, painting=2), 5),
        (cards(organist=1, dancing=3), 7 + 7),
        (cards(executioner=1, musician=1, painting=1, portrait_tightrope=1, bride=1), 4 + 1 + 3 + 2),
        (cards(executioner=2), 2),
        (cards(madame_leota=1), 3),
    ],
)
def test_m21_card_scores(collection: list[int], points: int) -> None:
    assert score(collection, lowest_haunt=False) == points


def test_m21_portraits_best_split() -> None:
    def p(a: int, b: int, c: int, d: int) -> int:
        return portrait_score(
            [0] * 9 + [a, b, c, d] + [0] * 5,
        )

    assert p(3, 0, 0, 0) == 15
    assert p(1, 1, 1, 1) == 18
    assert p(4, 1, 1, 1) == 18 + 15
    assert p(3, 3, 3, 3) == 60  # four triples beat three mixed sets
    assert p(2, 2, 2, 2) == 36
    assert p(2, 2, 2, 0) == 0
    assert score(cards(portrait_dynamite=3, portrait_quicksand=1), False) == 15
    assert list(portrait_splits([4, 1, 1, 1])) == [(15, [1, 1, 1, 1]), (18 + 15, [0, 0, 0, 0])]  # points, left over


def test_m21_madame_leota_13_only_for_the_strictly_lowest_total() -> None:
    leota = cards(madame_leota=1)
    assert score(leota, lowest_haunt=True) == 13
    assert final_scores([leota, leota, leota], [1, 2, 5])[1] == [13, 3, 3]
    assert final_scores([leota, leota, leota], [1, 1, 5])[1] == [3, 3, 3]


def test_m22_ties_go_to_the_lower_haunt_total_then_are_shared() -> None:
    a, b = cards(musician=2), cards(ballroom=1)
    assert final_scores([a, b, cards()], [4, 3, 9])[2] == [1]
    assert final_scores([a, b, cards()], [3, 3, 9])[2] == [0, 1]


def test_m19_game_end_reveals_totals_applies_the_penalty_and_scores() -> None:
    s = turn_table(seats=2, event="final_round", seat=0)
    give(s, 0, "musician", "musician", "musician", "painting", "painting", "painting", "ballroom")
    give(s, 1, "madame_leota")
    haunt(s, 0, 3, 3, 2)
    haunt(s, 1, 1)
    play(s, 0, END_TURN)
    out = play(s, 1, END_TURN)
    over = out[-1]
    assert isinstance(over, GameOver)
    assert over.reveal.haunt == [[2, 3, 3], [1]] and over.reveal.haunt_totals == [8, 1]
    assert over.reveal.discarded == [["painting"] * 3, []]
    assert over.scores == [9 + 4, 13] and over.winners == [1]
    assert over.seed == s.rng.seed.hex()
    result = GAME.result(s)
    assert result is not None and result.scores == over.scores and result.reveal == over.reveal
    assert s.collections[0] == cards(musician=3, ballroom=1)
    assert_conserved(s)


def test_m21_bonuses_count_what_is_left_after_the_m20_penalty() -> None:
    """M21 "All after M20": a discarded icon no longer feeds a Headless Knight nor counts for an Executioner."""
    collection = cards(painting=3, musician=1, headless_knight=1, executioner=1)
    assert score(collection, False) == 12 + 1 + (1 + 2 * 3) + (1 + 2)
    discards, scores, _ = final_scores([collection, cards()], [9, 2])
    assert discards == [cards(painting=3), []]
    assert scores == [1 + 1 + (1 + 1), 0]


def test_m20_all_totals_tied_every_seat_discards() -> None:
    """M20 (README ruling): all seats tie for the highest Haunt total, so every one of them discards."""
    discards, scores, winners = final_scores([cards(musician=2), cards(ballroom=1, dancing=2)], [0, 0])
    assert discards == [cards(musician=2), cards(dancing=2)]
    assert scores == [0, 4] and winners == [1]


def _final_round(seats: int, hands: list[list[int]], **collections: list[str]) -> GameOver:
    """Play a Final Round of ``seats`` in which nobody acts, from these Haunt hands and collections."""
    s = turn_table(seats=seats, event="final_round", seat=0)
    for seat, hand in enumerate(hands):
        haunt(s, seat, *hand)
        give(s, seat, *collections.get(f"s{seat}", []))
    out: list[object] = []
    for seat in range(seats):
        out = play(s, seat, END_TURN)
    assert_conserved(s)
    over = out[-1]
    assert isinstance(over, GameOver)
    return over


def test_m19_m22_six_seats_two_penalised_leota_alone_lowest_and_a_tie_for_first() -> None:
    """M19-M22 with six seats, worked by hand: seats 0 and 3 tie for the highest total (9) and both discard;
    seat 1 alone has the lowest (1), so its Madame Leota scores 13; seats 2 and 4 tie on 33 and seat 4, with the
    lower Haunt total, wins."""
    over = _final_round(
        6,
        [[3, 3, 3], [1], [2, 3], [3, 3, 2, 1], [1, 3], [3, 3]],
        # musician 3 (9) and painting 3 (12 + 6 to the Knight) tie: the paintings go, 9 + 1 left
        s0=["musician"] * 3 + ["painting"] * 3 + ["headless_knight"],
        s1=["madame_leota", "groom", "groom", "bride"],  # 13 + 2 + (2 + 4)
        s2=["portrait_tightrope"] * 4 + ["portrait_dynamite", "portrait_quicksand", "portrait_tombstone"],  # 18 + 15
        s3=["dancing"] * 4 + ["organist", "tea_party_1"],  # the 4 dancing go: 1 + 2 left
        s4=["musician"] * 5 + ["ballroom"] * 2,  # 25 + 8
        # 5 icons: 1 + 5, then 1 + 3 + 0 + 2 + 4
        s5=["executioner", "musician", "painting", "dancing", "grim_grinning", "ballroom"],
    )
    assert over.reveal.haunt_totals == [9, 1, 5, 9, 4, 6]
    assert over.reveal.discarded == [["painting"] * 3, [], [], ["dancing"] * 4, [], []]
    assert over.scores == [10, 21, 33, 3, 33, 16]
    assert over.winners == [4]


def test_m20_m22_two_seats_with_equal_totals_both_discard_and_leota_scores_3() -> None:
    """M20-M22 with two seats and equal Haunt totals: both have the highest, so both discard their most held
    icon; neither is strictly lowest, so each Madame Leota scores 3; equal scores and totals share the win."""
    over = _final_round(
        2,
        [[2, 3], [1, 1, 3]],
        s0=["madame_leota", "musician", "musician", "painting"],  # the musicians go: 3 + 3
        s1=["madame_leota", "ballroom", "ballroom", "tea_party_2"],  # the ballrooms go: 3 + 2
    )
    assert over.reveal.haunt_totals == [5, 5]
    assert over.reveal.discarded == [["musician"] * 2, ["ballroom"] * 2]
    assert over.scores == [6, 5] and over.winners == [0]
    over = _final_round(
        2, [[2, 2], [1, 3]], s0=["madame_leota", "painting", "bride"], s1=["madame_leota", "tea_party_3", "bride"]
    )
    assert over.reveal.discarded == [["painting"], ["tea_party_3"]]  # each seat's only icon
    assert over.scores == [5, 5] and over.winners == [0, 1]
