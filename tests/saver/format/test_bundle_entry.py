"""Tests for saver/bundle_entry.py: the fast BundleEntryProto codec agrees with the generic one."""

import random

import pytest

from graph.errors import DataLossError
from saver.format.bundle_entry import (BundleEntry, Slice, decode_dtype_and_shape, decode_entry, encode_entry,
                                slice_from_proto, slice_to_proto)
from saver.format.coding import TensorSlice
from saver.format.proto import BundleEntryProto, TensorShapeProto, TensorSliceProto


def _random_entry(rng):
    shape = tuple(rng.choice([0, 1, 7, 200, 2 ** 20, 2 ** 40]) for _ in range(rng.randrange(5)))
    return BundleEntry(rng.choice([0, 1, 7, 14, 21, 101]), shape, rng.choice([0, 1, 3, 200]),
                       rng.choice([0, 5, 127, 128, 2 ** 33]), rng.choice([0, 4, 2 ** 31]),
                       rng.choice([0, 1, 0xA282EAD8, 0xFFFFFFFF]),
                       rng.choice([[], [TensorSlice.parse("0,3:-")], [TensorSlice.parse("0,0:1,2"),
                                                                        TensorSlice.parse("3,4:-")]]))


def test_encode_and_decode_agree_with_the_generic_codec():
    rng = random.Random(0)
    for _ in range(500):
        entry = _random_entry(rng)
        if entry.slices:
            entry.shape = tuple(8 for _ in entry.slices[0].extents)
        generic = entry.to_proto().to_bytes()
        assert encode_entry(entry) == generic
        assert decode_entry(generic) == entry
        assert BundleEntry.from_proto(BundleEntryProto.from_bytes(generic)) == entry
        dtype, shape, has_slices = decode_dtype_and_shape(generic)
        assert (dtype, shape, has_slices) == (entry.dtype, entry.shape, bool(entry.slices))


def test_golden_worked_example():
    raw = bytes.fromhex("0801120412020802280835593ce535")  # tf-checkpoint-format.md §1: v = [1.0, 2.0]
    entry = decode_entry(raw)
    assert (entry.dtype, entry.shape, entry.size, entry.crc32c) == (1, (2,), 8, 0x35E53C59)
    assert encode_entry(entry) == raw
    assert encode_entry(BundleEntry(1, ())) == b"\x08\x01\x12\x00"  # a scalar's shape is written empty


@pytest.mark.parametrize("raw", [
    BundleEntryProto(dtype=1, shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=3, name="rows")])).to_bytes(),
    BundleEntryProto(dtype=1, shape=TensorShapeProto(unknown_rank=True)).to_bytes(),
    bytes.fromhex("08011200") + bytes.fromhex("0802"),  # dtype twice: the last wins
    bytes.fromhex("0801120412020802") + bytes.fromhex("120412020803"),  # shape twice: merged
    bytes.fromhex("08011200") + bytes.fromhex("f80100"),  # an unknown field
    bytes.fromhex("0801120020ffffffffffffffffff01"),  # offset -1 as a 10-byte varint
])
def test_unusual_bytes_decode_as_the_generic_decoder_does(raw):
    assert decode_entry(raw) == BundleEntry.from_proto(BundleEntryProto.from_bytes(raw))
    dtype, shape, _ = decode_dtype_and_shape(raw)
    expected = decode_entry(raw)
    assert (dtype, shape) == (expected.dtype, expected.shape)


@pytest.mark.parametrize("raw", [b"\x08", b"\x12\x05\x12", b"\x35\x00\x00", b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"])
def test_damaged_bytes_raise_data_loss(raw):
    with pytest.raises(DataLossError):
        decode_entry(raw)
    with pytest.raises(DataLossError):
        BundleEntryProto.from_bytes(raw)


def test_slices_and_slice_values():
    spec = TensorSlice.parse("0,3:-")
    proto = slice_to_proto(spec)
    assert proto.to_bytes() == bytes.fromhex("0a0210030a00")  # explicit length, whole dim empty
    assert slice_from_proto(proto) == spec
    assert slice_from_proto(TensorSliceProto.from_bytes(proto.to_bytes())) == spec
    part = Slice.parse("7 2 0,3:0,2", [[1, 2]] * 3)
    assert part.full_shape == (7, 2) and part.spec == TensorSlice.parse("0,3:0,2")
