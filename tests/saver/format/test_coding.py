"""Tests for saver/coding.py: varints, fixed ints, OrderedCode and slice keys (spec §0, §4)."""

import random

import pytest

from graph.errors import DataLossError, InvalidArgumentError
from graph.proto.wire import decode_varint32, decode_varint64, encode_varint
from saver.format.coding import (
    TensorSlice, decode_fixed32, decode_fixed64, decode_tensor_name_slice,
    encode_fixed32, encode_fixed64, encode_tensor_name_slice,
    format_shape_and_slice, parse_shape_and_slice, read_num_increasing, read_signed_num_increasing,
    read_string, write_num_increasing, write_signed_num_increasing, write_string)

SIGNED_GOLDEN = [
    (0, "80"), (3, "83"), (63, "bf"), (-1, "7f"), (64, "c040"), (8191, "dfff"), (8192, "e02000"),
    (2 ** 20, "f0100000"), (2500000000, "f89502f900"), (2 ** 55, "ff8080000000000000"),
    (2 ** 62, "ffc04000000000000000"),
]


@pytest.mark.parametrize("value,hexed", SIGNED_GOLDEN)
def test_signed_num_increasing_golden(value, hexed):
    assert write_signed_num_increasing(value).hex() == hexed
    assert read_signed_num_increasing(bytes.fromhex(hexed) + b"\x00") == (value, len(hexed) // 2)


def test_signed_num_increasing_round_trip_and_order():
    rng = random.Random(0)
    values = [rng.randint(-2 ** 63, 2 ** 63 - 1) >> rng.randint(0, 63) for _ in range(3000)]
    values += [-2 ** 63, 2 ** 63 - 1, -64, -65, -8193, 2 ** 63 - 2]
    for value in values:
        encoded = write_signed_num_increasing(value)
        assert read_signed_num_increasing(encoded + b"\xff") == (value, len(encoded))
    ordered = sorted(set(values))
    assert sorted(ordered, key=write_signed_num_increasing) == ordered


def test_num_increasing_and_string():
    assert write_num_increasing(0) == b"\x00"
    assert write_num_increasing(2) == b"\x01\x02"
    assert write_num_increasing(256) == b"\x02\x01\x00"
    assert read_num_increasing(b"\x02\x01\x00") == (256, 3)
    assert write_string(b"a\x00\xffb") == bytes.fromhex("6100ffff00620001")
    assert read_string(bytes.fromhex("6100ffff00620001")) == (b"a\x00\xffb", 8)
    with pytest.raises(DataLossError):
        read_string(b"abc")


def test_slice_key_golden():
    assert encode_tensor_name_slice("emb", TensorSlice.parse("3,2:0,2")).hex(" ") == \
        "00 65 6d 62 00 01 01 02 83 82 80 82"
    assert encode_tensor_name_slice("a", TensorSlice.parse("2,5:-")).hex(" ") == "00 61 00 01 01 02 82 85 80 7f"
    assert encode_tensor_name_slice("a", TensorSlice.parse("-")).hex(" ") == "00 61 00 01 01 01 80 7f"
    assert decode_tensor_name_slice(bytes.fromhex("00656d620001010283828082")) == \
        ("emb", TensorSlice([(3, 2), (0, 2)]))
    odd = "w\x00\xff/é"
    assert decode_tensor_name_slice(encode_tensor_name_slice(odd, TensorSlice.parse("0,1:-"))) == \
        (odd, TensorSlice.parse("0,1:-"))
    with pytest.raises(DataLossError):
        decode_tensor_name_slice(encode_tensor_name_slice("a", TensorSlice.parse("-")) + b"\x00")


def test_varints():
    assert encode_varint(0) == b"\x00"
    assert encode_varint(300) == b"\xac\x02"
    assert encode_varint(-1) == b"\xff" * 9 + b"\x01"
    assert decode_varint64(b"\xac\x02", 0) == (300, 2)
    assert decode_varint64(b"\xff" * 9 + b"\x01") == (2 ** 64 - 1, 10)
    assert decode_varint32(b"\xff\xff\xff\xff\x0f") == (2 ** 32 - 1, 5)
    for bad in (b"\xff" * 10 + b"\x01", b"\xff" * 9 + b"\x02", b"\x80", b""):
        with pytest.raises(DataLossError):
            decode_varint64(bad)
    for bad in (b"\xff\xff\xff\xff\x10", b"\xff" * 6):
        with pytest.raises(DataLossError):
            decode_varint32(bad)
    for value in (0, 1, 127, 128, 2 ** 32, 2 ** 63, 2 ** 64 - 1):
        assert decode_varint64(b"x" + encode_varint(value), 1) == (value, 1 + len(encode_varint(value)))


def test_fixed():
    assert encode_fixed32(1) == b"\x01\x00\x00\x00"
    assert decode_fixed64(encode_fixed64(0xdb4775248b80fb57)) == 0xdb4775248b80fb57
    assert encode_fixed64(0xdb4775248b80fb57).hex(" ") == "57 fb 80 8b 24 75 47 db"
    assert decode_fixed32(b"\x00\x01\x00\x00\x00", 1) == 1
    with pytest.raises(DataLossError):
        decode_fixed32(b"\x00\x00")


def test_tensor_slice():
    full_shape = [7, 2]
    part = TensorSlice.parse("3,2:0,2")
    assert str(part) == "3,2:0,2" and part.slice_shape(full_shape) == (2, 2)
    assert str(TensorSlice.parse("-:0,1")) == "-:0,1"
    assert part.index(full_shape) == (slice(3, 5), slice(0, 2))
    assert TensorSlice.parse("-").covers([5]) and TensorSlice.parse("0,5").covers([5])
    assert not TensorSlice.parse("0,4").covers([5])
    overlap = TensorSlice.parse("2,3:-").intersect(part, full_shape)
    assert overlap == TensorSlice.parse("3,2:0,2")
    assert TensorSlice.parse("0,3:-").intersect(part, full_shape) is None
    assert overlap.relative_to(TensorSlice.parse("2,3:-"), full_shape) == (slice(1, 3), slice(0, 2))
    assert parse_shape_and_slice("7 2 0,3:0,2") == ([7, 2], TensorSlice.parse("0,3:0,2"))
    assert parse_shape_and_slice("") == ([], None)
    assert format_shape_and_slice([7, 2], TensorSlice.parse("5,2:-")) == "7 2 5,2:-"
    for bad in ("1", "a,b", "-1,2", "0,3:0,2 extra"):
        with pytest.raises(InvalidArgumentError):
            TensorSlice.parse(bad)
    with pytest.raises(InvalidArgumentError):
        parse_shape_and_slice("7 2 0,8:-")
