"""The game-agnostic contract every rule set fulfils; the server and clients know games only through it.

A game is a stateless object (one instance, ``GAME``, exported by its package) whose methods take the game
state as their first argument.  The state is a ``msgspec.Struct`` that holds *everything*, including the seeded
generator (``engine.rng.Rng``, rule M30), so it encodes to MessagePack and back losslessly and a replay of the
same seed and actions is byte-identical.

Decisions: ``prompts(state)`` names every seat that must decide now and what kind of decision it is; several
seats at once is normal (both duel dials, a hunt's helpers, every seat that may stop an escape).  A compound
decision is split into steps so that ``legal_actions`` is always a complete, finite, small list.

Actions and events are tagged unions of ``msgspec.Struct`` (the tag field is ``type``).  ``apply`` validates
first and raises ``IllegalAction`` *before* touching the state, then mutates the state in place and returns the
full (unredacted) events.  Hidden information is decided only in ``view`` and ``redact``; ``None`` as the seat
means a spectator.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

_json_encoder = msgspec.json.Encoder()

S = TypeVar("S", bound=msgspec.Struct)
A = TypeVar("A", bound=msgspec.Struct)
E = TypeVar("E", bound=msgspec.Struct)


class IllegalAction(Exception):
    """A refused action.  ``code`` is one of ``CODES``; ``detail`` is safe to show the acting seat."""

    CODES: ClassVar[frozenset[str]] = frozenset({"not_your_turn", "illegal_move", "game_over", "bad_option"})

    def __init__(self, code: str, detail: str = "") -> None:
        if code not in self.CODES:
            raise ValueError(f"unknown illegal-action code {code!r}")
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class ActionStruct(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What every game's actions derive from (each with its ``tag``): a value, and one with a field the game does
    not know is refused (``bad_field``) rather than taken without it, as every protocol message with one is."""


class Prompt(msgspec.Struct, frozen=True):
    """A decision one seat owes now: ``kind`` is game-defined (``turn``, ``dial``, ``cat_defence`` …)."""

    kind: str
    note: str = ""


class Result(msgspec.Struct):
    """The end of a game: per-seat scores (index = seat), the winners, the revealed seed (hex, M30) and the
    game's own end-of-game reveal (every hidden value), as a struct of the game's choosing."""

    scores: list[int]
    winners: list[int]
    seed: str
    reveal: Any = None


class Game(abc.ABC, Generic[S, A, E]):
    """One rule set.  Subclasses set the class attributes and implement the abstract methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    cooperative: ClassVar[bool] = False  # all seats win or lose together
    state_type: ClassVar[type[msgspec.Struct]]
    action_type: ClassVar[Any]  # the tagged union of the game's actions
    event_type: ClassVar[Any]  # the tagged union of the game's events
    options_type: ClassVar[type[msgspec.Struct]]
    catalog: ClassVar[msgspec.Struct]
    """The game's public, static data as JSON-able structs: its cards and its board, the same for every table and
    hiding nothing.  Built from the one data module the rules files keep such data in (G1, G2: Ghost at Home's
    cards; S1–S4: Spook's deck and map; M1–M7: Call of the Spirits' board and decks), so a client draws from it
    instead of a copy, and printed values replacing reconstructed ones reach every client at once."""

    def __init__(self) -> None:
        self._state_encoder = msgspec.msgpack.Encoder()
        self._state_decoder: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(self.state_type)
        self._action_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(self.action_type)

    # -- the rules ---------------------------------------------------------------------------------------
    @abc.abstractmethod
    def setup(self, seats: int, seed: bytes, options: msgspec.Struct, table_id: str) -> S:
        """A new game; raises ``IllegalAction('bad_option')`` for an unsupported seat count or option."""

    @abc.abstractmethod
    def prompts(self, state: S) -> dict[int, Prompt]:
        """Every seat that must decide now; empty once the game is over."""

    @abc.abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[A]:
        """Every action ``seat`` may take now (empty when it owes no decision)."""

    @abc.abstractmethod
    def apply(self, state: S, seat: int, action: A) -> list[E]:
        """Validate, then mutate ``state`` and return the events; on ``IllegalAction`` the state is untouched."""

    @abc.abstractmethod
    def view(self, state: S, seat: int | None) -> msgspec.Struct:
        """What ``seat`` (``None``: a spectator) may see of the state."""

    @abc.abstractmethod
    def redact(self, event: E, seat: int | None) -> E | None:
        """The event as ``seat`` may see it, or ``None`` when it must not learn of it at all."""

    @abc.abstractmethod
    def result(self, state: S) -> Result | None:
        """The final result, or ``None`` while the game goes on."""

    @abc.abstractmethod
    def timeout_action(self, state: S, seat: int) -> A:
        """The rules' default for ``seat``'s pending decision when its time runs out."""

    # -- encoding, shared by every game ------------------------------------------------------------------
    def default_options(self) -> msgspec.Struct:
        return self.options_type()

    def decode_options(self, raw: dict[str, Any]) -> msgspec.Struct:
        """Options from a JSON-like mapping; unknown keys or wrong types raise ``IllegalAction('bad_option')``."""
        try:
            return msgspec.convert(raw, self.options_type, strict=True)
        except msgspec.ValidationError as exc:
            raise IllegalAction("bad_option", str(exc)) from None

    def encode_state(self, state: S) -> bytes:
        return self._state_encoder.encode(state)

    def decode_state(self, data: bytes) -> S:
        state: S = self._state_decoder.decode(data)
        return state

    def decode_action(self, data: bytes | str) -> A:
        """An action from JSON; raises ``msgspec.ValidationError`` / ``msgspec.DecodeError`` when malformed."""
        action: A = self._action_decoder.decode(data)
        return action

    def action_from_builtins(self, obj: Any) -> A:
        """An action from already-parsed JSON (``dict``); raises ``msgspec.ValidationError`` when malformed.

        Re-encoded and decoded by the cached typed decoder: ``msgspec.convert`` to a tagged union re-derives the
        union's layout on every call, some 40 times slower (about 6% of the server's time per action)."""
        try:
            data = _json_encoder.encode(obj)
        except (TypeError, msgspec.EncodeError) as exc:
            raise msgspec.ValidationError(str(exc)) from None
        return self.decode_action(data)
