"""Tests for graph/proto/text_tokenizer.py: tokens, scalars and error places as protobuf's text_format.Tokenizer."""

import math

import pytest

from graph.proto.text_tokenizer import INTEGER_RANGE, UINT64_RANGE, ParseError, Tokenizer
from graph.proto.wire import INT32, UINT32

SAMPLES = [
    'a: 1 # comment\n b { c: "x\\"y" }',
    "f: -1.5e3f g: inf h: -Infinity i: nan j: 0x1F k: 010",
    "s: 'one' \"two\" t: [1, 2,3];",
    "weird+name-1 .5 +7 \"unterminated\n",
    "",
    "  \n # only a comment\n",
]


def _tokens(tokens: Tokenizer) -> list[str]:
    found = []
    while not tokens.at_end():
        found.append(tokens.token)
        tokens.next()
    return found


def test_tokens_skip_whitespace_and_comments():
    assert _tokens(Tokenizer(SAMPLES[0])) == ["a", ":", "1", "b", "{", "c", ":", '"x\\"y"', "}"]
    assert _tokens(Tokenizer(SAMPLES[5])) == []


def test_scalars():
    tokens = Tokenizer("010 0x10 -0x10 1.5f -Infinity nan true 'a' \"\\x41\\101\" \"\\u00e9\"")
    assert tokens.consume_integer(INTEGER_RANGE[INT32]) == 8  # C octal
    assert tokens.consume_integer(INTEGER_RANGE[INT32]) == 16
    assert tokens.consume_integer(INTEGER_RANGE[INT32]) == -16
    assert tokens.consume_float() == 1.5
    assert tokens.consume_float() == -math.inf
    assert math.isnan(tokens.consume_float())
    assert tokens.consume_bool() is True
    assert tokens.consume_byte_string() == b"aAA\xc3\xa9"  # adjacent strings are joined
    assert tokens.at_end()
    assert Tokenizer("'\\303\\251' x").consume_string() == "\u00e9"  # UTF-8 bytes as octal escapes


def test_errors_name_line_and_column():
    tokens = Tokenizer("a: 1\n  b: -1")
    for _ in range(5):
        tokens.next()
    with pytest.raises(ParseError, match="^2:6 : '  b: -1': Value out of range: -1") as info:
        tokens.consume_integer(INTEGER_RANGE[UINT32])
    assert (info.value.GetLine(), info.value.GetColumn()) == (2, 6)
    assert str(ParseError("plain")) == "plain" and ParseError("x", 3).line == 3
    with pytest.raises(ParseError, match="Couldn't parse integer: 019"):
        Tokenizer("019").consume_integer(UINT64_RANGE)
    with pytest.raises(ParseError, match="String missing ending quote"):
        Tokenizer('"open').consume_string()
    assert not Tokenizer("x").attempt(Tokenizer("x").consume_float)


@pytest.mark.tf
@pytest.mark.parametrize("text", SAMPLES)
def test_tokens_match_protobuf(text):
    text_format = pytest.importorskip("google.protobuf.text_format")
    reference = text_format.Tokenizer(text.split("\n"))
    expected = []
    while not reference.AtEnd():
        expected.append(reference.token)
        reference.NextToken()
    assert _tokens(Tokenizer(text)) == expected
