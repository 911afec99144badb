"""Tests for graph/protobuf.py: wire codec golden bytes and round trips (text format: test_text_format.py)."""

import pytest

from graph.base.errors import DataLossError
from graph.proto.protobuf import decode_varint64, encode_varint
from tests.graph.proto_messages import Kitchen, Saverish, Shape

def test_varint_golden_bytes():
    assert encode_varint(0) == b"\x00"
    assert encode_varint(300) == b"\xac\x02"
    assert encode_varint(-1) == b"\xff" * 9 + b"\x01"
    assert decode_varint64(b"\xac\x02", 0) == (300, 2)
    with pytest.raises(DataLossError):
        decode_varint64(b"\x80\x80", 0)


def test_wire_golden_bytes_and_round_trip():
    message = Saverish(filename_tensor_name="save/Const:0", max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                       version=2)
    data = message.to_bytes()
    assert data == b"\x0a\x0csave/Const:0\x20\x05\x35\x00\x40\x1c\x46\x38\x02"
    assert Saverish.from_bytes(data) == message


def test_kitchen_wire_round_trip():
    message = Kitchen(i=-5, u=2**64 - 1, d=0.1, b=b"\x00\xff", packed=[1, -2, 3], aliases={"b": "2", "a": "1"},
                      shapes=[Shape(dim=[Shape.Dim(size=-1)])], sub={"k": Shape()}, f=0.5)
    assert Kitchen.from_bytes(message.to_bytes()) == message


def test_text_format_error_is_text_format_parse_error():
    from graph.proto import protobuf
    from graph.proto import text_format
    assert protobuf.TextFormatError is text_format.ParseError
