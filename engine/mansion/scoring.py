"""Final scoring: the Haunt penalty (M20), card scores (M21) and the winners (M22)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.mansion.cards import (
    BRIDE,
    DANCING,
    DANCING_PAIR,
    EXECUTIONER,
    FLAT_SCORES,
    GROOM_GHOST,
    HEADLESS_KNIGHT,
    ICONS,
    KIND_ICON,
    KINDS,
    LEOTA_DEFAULT,
    LEOTA_LOWEST,
    MADAME_LEOTA,
    MUSICIAN,
    MUSICIAN_SET,
    NO_ICON,
    ORGANIST,
    PAINTING,
    PAINTING_SET,
    PAINTING_SET_SCORES,
    PORTRAIT_MIXED_SET,
    PORTRAIT_SAME_SET,
    PORTRAIT_SAME_SIZE,
    PORTRAITS,
)

_KIND_COUNT = len(KINDS)


def kind_counts(collection: list[int]) -> list[int]:
    """How many cards of each kind a collection holds."""
    counts = [0] * _KIND_COUNT
    for kind in collection:
        counts[kind] += 1
    return counts


def portrait_splits(kinds: Sequence[int]) -> list[tuple[int, list[int]]]:
    """M21: the splits of the portraits (``kinds``: the count of each portrait kind) worth trying, one per number
    of sets of 4 different kinds (18) with the rest in sets of 3 of one kind (15): its points and each kind's
    cards left over."""
    splits = []
    for mixed in range(min(kinds) + 1):
        same, left = 0, []
        for n in kinds:
            sets, rest = divmod(n - mixed, PORTRAIT_SAME_SIZE)
            same += sets
            left.append(rest)
        splits.append((mixed * PORTRAIT_MIXED_SET + same * PORTRAIT_SAME_SET, left))
    return splits


def portrait_score(counts: list[int]) -> int:
    """M21: the points of the best of the ``portrait_splits``."""
    return max([points for points, _ in portrait_splits([counts[k] for k in PORTRAITS])])


def score(collection: list[int], lowest_haunt: bool) -> int:
    """M21: the points of a collection; ``lowest_haunt`` is whether its owner's Haunt total is strictly lowest."""
    c = kind_counts(collection)
    full, rest = divmod(c[MUSICIAN], MUSICIAN_SET)
    points = full * MUSICIAN_SET**2 + rest**2
    full, rest = divmod(c[PAINTING], PAINTING_SET)
    points += full * PAINTING_SET_SCORES[PAINTING_SET] + PAINTING_SET_SCORES[rest]
    points += c[DANCING] // 2 * DANCING_PAIR
    points += sum(c[kind] * value for kind, value in FLAT_SCORES.items())
    points += portrait_score(c)
    points += c[BRIDE] * (2 + 2 * c[GROOM_GHOST])
    points += c[HEADLESS_KNIGHT] * (1 + 2 * c[PAINTING])
    points += c[ORGANIST] * (1 + 2 * c[DANCING])
    icons = {KIND_ICON[k] for k in collection} - {NO_ICON}
    points += c[EXECUTIONER] * (1 + len(icons))
    points += c[MADAME_LEOTA] * (LEOTA_LOWEST if lowest_haunt else LEOTA_DEFAULT)
    return points


def penalty_icon(collection: list[int]) -> int:
    """M20: the icon a seat with the highest Haunt total discards (``NO_ICON`` when it holds no icon).

    The icon it holds most cards of; between tied icons the one whose loss lowers its score the most; still
    tied, the icon listed first in M6.  Madame Leota (M21) is scored at 3: she has no icon, so her points are the
    same whichever icon goes, and a seat with the highest total is never strictly the lowest (2–6 seats).
    """
    held = [0] * len(ICONS)
    for kind in collection:
        if KIND_ICON[kind] != NO_ICON:
            held[KIND_ICON[kind]] += 1
    most = max(held)
    if most == 0:
        return NO_ICON
    tied = [icon for icon, n in enumerate(held) if n == most]
    return min(tied, key=lambda icon: (score([k for k in collection if KIND_ICON[k] != icon], False), icon))


def final_scores(collections: list[list[int]], totals: list[int]) -> tuple[list[list[int]], list[int], list[int]]:
    """M19–M22: the cards each seat discards, every seat's score and the winners.

    ``collections`` is not changed; the caller moves the discarded cards.
    """
    highest, lowest = max(totals), min(totals)
    lowest_alone = totals.count(lowest) == 1
    discards: list[list[int]] = []
    scores: list[int] = []
    for seat, collection in enumerate(collections):
        leota = lowest_alone and totals[seat] == lowest
        icon = penalty_icon(collection) if totals[seat] == highest else NO_ICON
        kept = [k for k in collection if icon == NO_ICON or KIND_ICON[k] != icon]
        discards.append([k for k in collection if icon != NO_ICON and KIND_ICON[k] == icon])
        scores.append(score(kept, leota))
    best = max(scores)
    contenders = [seat for seat, s in enumerate(scores) if s == best]
    calmest = min(totals[seat] for seat in contenders)
    winners = [seat for seat in contenders if totals[seat] == calmest]
    return discards, scores, winners
