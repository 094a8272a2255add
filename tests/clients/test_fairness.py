"""The end's checks (M30, ``clients.fairness.check``) of a ``game_over`` shaped by a server that does not play fair:
each is a check that fails, never an exception in the player's program."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

import msgspec
import pytest

from clients.fairness import Checks, Noted, check
from engine.fairness import commitment, derive_seed
from protocol.messages import GameOver

TABLE = "t1"
OURS = secrets.token_hex(16)


def honest_end() -> tuple[Noted, GameOver]:
    """What a client noted of a two-seat table (ours and a bot's), and the table's honest ``game_over``."""
    secret = secrets.token_bytes(32)
    nonces = [OURS, ""]
    seed = derive_seed(secret, nonces)
    noted = Noted(commitment(secret, TABLE), [False, True], commitment(seed, TABLE), OURS)
    over = GameOver(
        table=TABLE,
        seq=9,
        commitment=commitment(seed, TABLE),
        result={"seed": seed.hex()},
        secret=secret.hex(),
        nonces=nonces,
    )
    return noted, over


def test_an_honest_end_checks_out() -> None:
    noted, over = honest_end()
    assert check(noted, over).ok


@pytest.mark.parametrize("seed", [None, 5, ["00" * 32], {"hex": "00"}])
def test_a_seed_revealed_as_no_string_fails_the_seed_checks(seed: Any) -> None:
    noted, over = honest_end()
    doctored = msgspec.structs.replace(over, result={**over.result, "seed": seed})
    assert check(noted, doctored) == Checks(seed=False, secret=True, nonces=True, derived=False)


def test_a_result_that_is_no_object_fails_the_seed_checks() -> None:
    noted, over = honest_end()
    checks = check(noted, msgspec.structs.replace(over, result=[over.result]))
    assert checks == dataclasses.replace(checks, seed=False, derived=False) and checks.secret and checks.nonces
