"""The seeded generator and the seed commitment (rule M30)."""

import hashlib
from collections import Counter

import msgspec
import pytest

from engine.fairness import commitment, derive_seed, verify
from engine.rng import Rng, seed_from_int


def test_below_follows_the_documented_algorithm() -> None:
    seed = seed_from_int(7)
    rng = Rng(seed)
    digest = hashlib.sha256(seed + (0).to_bytes(8, "big")).digest()
    assert rng.below(10) == int.from_bytes(digest[:8], "big") % 10
    assert rng.counter == 1


def test_same_seed_same_shuffle_and_state_roundtrips() -> None:
    a, b = Rng(seed_from_int(1)), Rng(seed_from_int(1))
    xs, ys = list(range(50)), list(range(50))
    a.shuffle(xs)
    b.shuffle(ys)
    assert xs == ys and xs != list(range(50))
    encoded = msgspec.msgpack.encode(a)
    assert msgspec.msgpack.decode(encoded, type=Rng) == a


def test_below_is_roughly_uniform() -> None:
    rng = Rng(seed_from_int(3))
    counts = Counter(rng.below(3) for _ in range(3000))
    assert all(900 < counts[k] < 1100 for k in range(3))


def test_below_rejects_empty_range() -> None:
    with pytest.raises(ValueError):
        Rng(seed_from_int(0)).below(0)


def test_commitment_verifies_only_the_right_seed_and_table() -> None:
    seed = seed_from_int(11)
    published = commitment(seed, "t1")
    assert published == hashlib.sha256(seed + b"t1").hexdigest()
    assert verify(seed.hex(), "t1", published)
    assert not verify(seed.hex(), "t2", published)
    assert not verify(seed_from_int(12).hex(), "t1", published)
    # only 32 bytes as the 64 lowercase hex digits published: no other spelling of them (which the web page's check
    # would read otherwise or refuse), nor other bytes that hash alike with the table id after them
    spelled = [seed.hex().upper(), " ".join(f"{b:02x}" for b in seed), seed.hex() + "\n", "zz", "é"]
    assert not any(verify(hex_text, "t1", published) for hex_text in spelled)
    assert not verify(seed.hex() + b"t".hex(), "1", commitment(seed + b"t", "1"))


def test_the_seed_is_derived_from_the_secret_and_every_nonce_as_documented() -> None:
    secret = seed_from_int(13)
    nonces = ["ab", "", "été"]
    framed = b"".join(len(n.encode()).to_bytes(4, "big") + n.encode() for n in nonces)
    assert derive_seed(secret, nonces) == hashlib.sha256(b"hauntd/seed/v1\x00" + secret + framed).digest()
    # every input counts, and the length prefixes keep nonces from running into each other
    others = [(seed_from_int(14), nonces), (secret, ["ab", "", "éte"]), (secret, ["a", "b", "été"]), (secret, ["ab"])]
    assert len({derive_seed(secret, nonces), *(derive_seed(s, n) for s, n in others)}) == 5
