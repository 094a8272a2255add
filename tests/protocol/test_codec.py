"""Typed decoding of client frames: every failure is a catalogue code, never a crash."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import codec
from protocol.errors import Code, ProtocolError
from protocol.messages import Act, Hello, Pong


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{bad", Code.MALFORMED),
        ("[]", Code.MALFORMED),
        ("42", Code.MALFORMED),
        ("{}", Code.UNKNOWN_TYPE),
        ('{"type": "nope"}', Code.UNKNOWN_TYPE),
        ('{"type": 7}', Code.UNKNOWN_TYPE),
        ('{"type": "hello"}', Code.VERSION),  # no version at all
        ('{"type": "ping", "x": 1}', Code.BAD_FIELD),
        ('{"type": "act", "table": "t", "token": "k", "cmd": "", "action": {}}', Code.BAD_FIELD),
        ('{"type": "join", "table": "{t:x}", "name": "a"}', Code.BAD_FIELD),
        # a Python pattern's "$" also matches before a final newline: such an id or token was let through
        ('{"type": "watch", "table": "sFES2VRX\\n"}', Code.BAD_FIELD),
        ('{"type": "join", "table": "t", "name": "a", "token": "Jr5cWq0ZkT3uV8xYb2LdNg\\n"}', Code.BAD_FIELD),
        ('{"type": "create", "game": "g", "seats": 2, "cmd": "Xq3v9ZpL0b7TtW2yK8mN4A\\n"}', Code.BAD_FIELD),
        ('{"type": "hello", "version": 2}', Code.VERSION),
        ('{"type": "hello", "version": 2, "future_field": []}', Code.VERSION),
        ('{"type": "hello", "version": "1"}', Code.VERSION),
        # Python holds 1.0 and true equal to 1, JSON does not: neither is the integer 1
        ('{"type": "hello", "version": 1.0}', Code.VERSION),
        ('{"type": "hello", "version": true}', Code.VERSION),
        # nested past msgspec's depth limit (a RecursionError inside the decoder) where any JSON is accepted
        (
            '{"type": "act", "table": "t", "token": "k", "cmd": "c", "action": {"a": ' + "[" * 2000 + "]" * 2000 + "}}",
            Code.MALFORMED,
        ),
        (
            '{"type": "create", "game": "g", "seats": 2, "options": {"o": ' + "[" * 5000 + "]" * 5000 + "}}",
            Code.MALFORMED,
        ),
        ('{"type": "hello", "version": ' + "[" * 2000 + "]" * 2000 + "}", Code.BAD_FIELD),  # the peek copes too
    ],
)
def test_bad_frames_get_their_code(frame: str, code: Code) -> None:
    with pytest.raises(ProtocolError) as caught:
        codec.decode_client(frame)
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("frame", "ref"),
    [
        ('{"type": "join", "table": "t", "name": "a", "token": "short", "ref": "j3"}', "j3"),
        ('{"type": "hello", "version": 2, "ref": "h1"}', "h1"),
        ('{"type": "ping", "x": 1, "ref": 5}', None),  # not a ref: not echoed
        ('{"type": "ping", "x": 1, "ref": "' + "r" * 65 + '"}', None),  # too long to be one
        ('{"type": "hello", "version": 2, "ref": "' + "r" * 65 + '"}', None),  # another version's too
        ('{"type": "hello", "version": 1.0, "ref": "' + "r" * 64 + '"}', "r" * 64),
        ('{"type": "nope"}', None),
    ],
)
def test_a_refused_frame_echoes_its_ref(frame: str, ref: str | None) -> None:
    with pytest.raises(ProtocolError) as caught:
        codec.decode_client(frame)
    assert caught.value.ref == ref


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        ('{"type": "hello"}', "no version"),
        ('{"type": "hello", "version": null}', "version null"),
        ('{"type": "hello", "version": "1"}', 'version "1"'),
        ('{"type": "hello", "version": true}', "version true"),
        ('{"type": "hello", "version": 1.0}', "version 1.0"),
    ],
)
def test_another_version_is_named_as_json_spells_it(frame: str, said: str) -> None:
    """The error text is read by clients in any language: the version as the hello spelled it, no Python repr."""
    with pytest.raises(ProtocolError) as caught:
        codec.decode_client(frame)
    assert caught.value.message == f"this server speaks protocol version 1; the hello said {said}"


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (
            '{"type": "join", "table": "t", "name": "a\\u200bb"}',
            "Expected `str` of visible text (no control characters, line breaks, bidi controls, invisible"
            " formatting or blank letters) - at `$.name`",
        ),
        ('{"type": "watch", "table": "a b"}', "Expected `str` of URL-safe characters (A-Z a-z 0-9 _ -) - at `$.table`"),
    ],
)
def test_a_pattern_refused_is_told_in_words(frame: str, message: str) -> None:
    """A regular expression (Python's, escaped twice) tells a client's user nothing: the rule PROTOCOL words."""
    with pytest.raises(ProtocolError) as caught:
        codec.decode_client(frame)
    assert caught.value.message == message


def test_round_trip() -> None:
    act = Act(table="t1", token="k", cmd="c1", action={"type": "end_turn"}, seq=3, ref="r")
    assert codec.decode_client(codec.encode(act)) == act
    assert codec.decode_client('{"type": "hello", "version": 1}') == Hello(version=1)
    assert codec.decode_server(codec.encode(Pong(time=1.5))) == Pong(time=1.5)


def test_a_server_message_of_an_unknown_type_is_told_from_an_invalid_one() -> None:
    """A newer server's message type (to be skipped) raises ``UnknownServerType``; a known type with a field
    missing, or no type at all, stays invalid; a field not known is ignored."""
    with pytest.raises(codec.UnknownServerType) as unknown:
        codec.decode_server(memoryview(b'{"type": "aurora", "table": "t"}'))
    assert unknown.value.type == "aurora"
    for invalid in ('{"type": "pong"}', '{"time": 1}', '{"type": 7}', "[]"):
        with pytest.raises(msgspec.ValidationError):
            codec.decode_server(invalid)
    assert codec.decode_server('{"type": "pong", "time": 1.5, "load": 0.5}') == Pong(time=1.5)


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200),
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=10),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.sampled_from(["type", "ref", "table", "version", "x"]), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(lambda v: __import__("json").dumps(v)),
    )
)
def test_any_frame_decodes_or_gets_a_code(frame: str | bytes) -> None:
    try:
        codec.decode_client(frame)
    except ProtocolError as exc:
        assert exc.code in set(Code)


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("Ada", True),
        ("Zoë 🎃", True),
        ("👨\u200d👩\u200d👧", True),  # joiners make one emoji of three
        ("مرحبا", True),
        ("<img src=x onerror=alert(1)>", True),  # text: every client shows it as such
        (" ", False),
        ("\u3000\u3000", False),
        ("\u200b" * 32, False),  # zero-width: a seat that looks free
        ("Ada\n", False),
        ("a\nb", False),
        ("\x1b[2J\x1b[H", False),  # terminal control sequences
        ("\x00", False),
        ("\u202eadA", False),  # shown reversed, as "Ada"
        ("a\u2066b", False),
        ("\u3164", False),  # the Hangul filler: a letter that shows nothing, the usual "invisible name"
        ("\u115f\u1160", False),
        ("\uffa0", False),
        ("\u2800\u2800", False),  # the blank Braille pattern
        ("\ufe0f", False),  # a variation selector with nothing to select
        ("\u034f", False),  # the grapheme joiner
        ("a\u180e", False),
        ("Ada\u3164", False),  # "Ada" to the eye, another name to the server
        ("\u2764\ufe0f", True),  # a red heart: the selector shows the emoji form
        ("\u1821\u180b", True),  # a Mongolian letter and its variant form
        ("\u2800Ada", True),
        # past U+FFFF, which the pattern does not name: tag characters (invisible: "Ada" to the eye, and a hidden
        # text after it) but in an emoji's tag sequence (a flag), invisible format controls
        ("\U000e0041\U000e0064\U000e0061", False),
        ("Ada\U000e0068\U000e0069", False),
        ("\U0001d173\U0001d17a", False),  # musical formatting
        ("a\U0001bca0", False),  # shorthand format controls
        ("\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", True),  # Scotland's flag
        ("\U000e0067\U000e0062\U000e007f", False),  # a tag sequence with no flag before it
        # combining marks: as a script stacks them (Vietnamese, Tibetan, a keycap), not "Zalgo" text piled up
        # past the line over its neighbours
        ("Vie\u0323\u0302t", True),
        ("\u0f66\u0f90\u0fb1\u0f7a", True),
        ("1\ufe0f\u20e3", True),
        ("Z" + "\u0301\u0316\u0352" * 2 + "a", True),
        ("Z" + "\u0301" * 7 + "a", False),
        ("\u0301" * 30, False),
    ],
)
@pytest.mark.parametrize(("kind", "field"), [("join", "name"), ("say", "text")])
def test_a_display_name_is_visible_text(name: str, ok: bool, kind: str, field: str) -> None:
    """A name of control characters, line breaks, bidi controls or nothing visible was seated as it came: blank,
    invisible or reversed in every client's seat list, and raw escape sequences for a terminal client.  A chat
    line is held to the same rule (a line of tag characters alone was said, blank)."""
    frame = msgspec.json.encode({"type": kind, "table": "t", field: name}).decode()
    if ok:
        assert getattr(codec.decode_client(frame), field) == name
        return
    with pytest.raises(ProtocolError) as caught:
        codec.decode_client(frame)
    assert caught.value.code == Code.BAD_FIELD
