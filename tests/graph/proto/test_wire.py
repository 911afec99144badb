"""Tests for graph/proto/wire.py: varint golden bytes and bounds, field keys, the field-by-field reader."""

import pytest

from graph.errors import DataLossError
from graph.proto.wire import LEN, VARINT, decode_varint32, decode_varint64, encode_varint, field_key, parse_fields, raw_field


def test_varint_golden_bytes():
    assert encode_varint(0) == b"\x00"
    assert encode_varint(300) == b"\xac\x02"
    assert encode_varint(-1) == b"\xff" * 9 + b"\x01"
    assert decode_varint64(b"\xac\x02", 0) == (300, 2)
    with pytest.raises(DataLossError):
        decode_varint64(b"\x80\x80", 0)


def test_varint32_bounds():
    assert decode_varint32(b"\xff\xff\xff\xff\x0f") == (2**32 - 1, 5)
    with pytest.raises(DataLossError, match="overflows 32 bits"):
        decode_varint32(b"\x80\x80\x80\x80\x10")
    with pytest.raises(DataLossError, match="longer than 5 bytes"):
        decode_varint32(b"\x80\x80\x80\x80\x80\x01")


def test_fields_parse_and_write_back_unchanged():
    data = field_key(1, LEN) + b"\x02ab" + field_key(3, VARINT) + encode_varint(-2) + field_key(2, 5) + b"\x01\0\0\0"
    fields = list(parse_fields(data))
    assert fields == [(1, LEN, b"ab"), (3, VARINT, 2**64 - 2), (2, 5, b"\x01\0\0\0")]
    assert b"".join(raw_field(*field) for field in fields) == data
    with pytest.raises(DataLossError, match="field 1 wants 5 bytes at byte 2, only 2 left"):
        list(parse_fields(b"\x0a\x05ab"))
