"""Tests for saver/bundle.py: golden layouts, every dtype, slices, merge, damage and validation."""

import os
import struct

import ml_dtypes
import numpy as np
import pytest

from graph.base import dtypes
from graph.errors import DataLossError, InvalidArgumentError, NotFoundError
from graph.base import crc
from saver.format.bundle import (BundleReader, BundleWriter, Slice, data_filename, merge_bundles,
                          write_checkpoint, write_index)
from saver.format.coding import TensorSlice, encode_tensor_name_slice
from saver.format.proto import BundleEntryProto, BundleHeaderProto, TensorShapeProto, VariantTensorDataProto, VersionDef
from saver.format.table import Table

EVERY_DTYPE = {
    "f32": np.array([1.5, -2.0], np.float32), "f64": np.arange(6.0).reshape(2, 3),
    "f16": np.array([1, 2.5], np.float16), "bf16": np.array([1, 2.5, -3], ml_dtypes.bfloat16),
    "f8": np.array([1, -0.5], ml_dtypes.float8_e4m3fn), "i8": np.array([-1, 2], np.int8),
    "i16": np.array([-300], np.int16), "i32": np.int32(7), "i64": np.array([2 ** 40], np.int64),
    "u8": np.array([255], np.uint8), "u16": np.array([65535], np.uint16), "u32": np.array([2 ** 32 - 1], np.uint32),
    "u64": np.array([2 ** 64 - 1], np.uint64), "b": np.array([True, False]), "c64": np.array([1 + 2j], np.complex64),
    "c128": np.array([[3 - 4j]], np.complex128), "s": np.array([b"ab", b"xyz", b"\x00\xff"], object),
    "s_empty": np.zeros((0,), object), "s_scalar": np.array(b"scalar", object), "empty": np.zeros((0, 3), np.float32),
    "qint8": np.array([(-3,), (4,)], dtypes.qint8.numpy_dtype),
    "quint16": np.array([(65000,)], dtypes.quint16.numpy_dtype),
}


def _file(path):
    with open(path, "rb") as file:
        return file.read()


def test_worked_example_is_byte_exact(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "one"), {"v": np.array([1.0, 2.0], np.float32)})
    index = _file(prefix + ".index")
    assert len(index) == 121 and index.endswith(bytes.fromhex("57fb808b247547db"))
    assert _file(data_filename(prefix, 0, 1)) == np.array([1.0, 2.0], np.float32).tobytes()
    assert sorted(os.listdir(tmp_path)) == ["one.data-00000-of-00001", "one.index"]


def test_string_layouts_golden(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "s"), {"a": np.array([b"ab", b"xyz"], object),
                                                    "b": np.zeros((0,), object), "c": np.array([b""], object)})
    data = _file(data_filename(prefix, 0, 1))
    assert data == bytes.fromhex("0203bde37d266162 78797a" "d8ea82a2" "00a67b113a".replace(" ", ""))
    with BundleReader(prefix) as reader:
        assert reader.lookup_entry("a").size == 11 and reader.lookup_entry("a").crc32c == 693988756
        assert reader.lookup_entry("b").crc32c == 1678557686 and reader.lookup_entry("b").size == 4
        assert list(reader.lookup("a")) == [b"ab", b"xyz"]
        assert reader.lookup("b").shape == (0,) and list(reader.lookup("c")) == [b""]


def test_every_dtype_round_trip(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "all"), EVERY_DTYPE)
    with BundleReader(prefix) as reader:
        assert reader.keys() == sorted(EVERY_DTYPE)
        for name, value in EVERY_DTYPE.items():
            got = reader.lookup(name)
            value = np.asarray(value)
            assert got.dtype == value.dtype and got.shape == value.shape, name
            assert got.tobytes() == value.tobytes() if value.dtype != object else list(got.flat) == list(value.flat)
            assert reader.lookup_dtype_and_shape(name) == (dtypes.as_dtype(value.dtype), value.shape)
        entry = reader.lookup_entry("i32")
        assert entry.shape.to_bytes() == b"" and entry.to_bytes().startswith(b"\x08\x03\x12\x00")


def test_str_and_list_values_and_read_into(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "m"), {"u": np.array(["é", "b"]), "l": [[1.0, 2.0]]})
    with BundleReader(prefix) as reader:
        assert list(reader.lookup("u")) == ["é".encode(), b"b"]
        out = np.zeros((1, 2))
        assert reader.lookup("l", out=out) is out and out.tolist() == [[1.0, 2.0]]
        with pytest.raises(InvalidArgumentError):
            reader.lookup("l", out=np.zeros((2,)))


def test_variant_layout(tmp_path):
    bodies = [VariantTensorDataProto(type_name="T", metadata=b"m").to_bytes(), b""]
    with BundleWriter(str(tmp_path / "v")) as writer:
        entry = writer.add("it", np.array(bodies, object), dtype=dtypes.variant)
    data = _file(data_filename(str(tmp_path / "v"), 0, 1))
    running = crc.extend(crc.extend(0, struct.pack("<Q", len(bodies[0]))), bodies[0])
    first = bytes([len(bodies[0])]) + bodies[0] + struct.pack("<I", crc.mask(running))
    assert data.startswith(first) and entry.size == len(data) == len(first) + 5
    with BundleReader(str(tmp_path / "v")) as reader:
        assert list(reader.lookup("it")) == bodies


def test_partitioned_slices(tmp_path):
    full = np.arange(14.0, dtype=np.float32).reshape(7, 2)
    parts = [Slice.parse("7 2 0,3:0,2", full[0:3]), Slice.parse("7 2 3,2:0,2", full[3:5]),
             Slice((7, 2), "5,2:-", full[5:7])]
    prefix = write_checkpoint(str(tmp_path / "p"), {"emb": parts, "a": np.float32(1)})
    table = dict(Table(prefix + ".index").items())
    assert encode_tensor_name_slice("emb", TensorSlice.parse("3,2:0,2")) in table
    full_entry = BundleEntryProto.from_bytes(table[b"emb"])
    assert full_entry.size == 0 and full_entry.crc32c == 0 and len(full_entry.slices) == 3
    assert bytes.fromhex("3a080a0210030a021002") in table[b"emb"]  # "0,3:0,2": explicit lengths
    assert table[b"emb"].endswith(bytes.fromhex("3a080a04080510020a00"))  # "5,2:-": whole dim = empty Extent
    with BundleReader(prefix) as reader:
        assert reader.keys() == ["a", "emb"]
        np.testing.assert_array_equal(reader.lookup("emb"), full)
        np.testing.assert_array_equal(reader.lookup_slice("emb", "2,3:0,2"), full[2:5])
        np.testing.assert_array_equal(reader.lookup_slice("emb", "5,2:-"), full[5:7])
        np.testing.assert_array_equal(reader.lookup_slice("a", ""), np.float32(1))
        assert [str(s) for s in reader.lookup_tensor_slices("emb")] == ["0,3:0,2", "3,2:0,2", "5,2:-"]
    # a stored full tensor restores as any slice
    prefix2 = write_checkpoint(str(tmp_path / "f"), {"emb": full})
    with BundleReader(prefix2) as reader:
        np.testing.assert_array_equal(reader.lookup_slice("emb", "5,2:-"), full[5:7])
    # missing parts: not enough slices
    prefix3 = write_checkpoint(str(tmp_path / "g"), {"emb": parts[:2]})
    with BundleReader(prefix3) as reader:
        with pytest.raises(NotFoundError, match="sufficient slices"):
            reader.lookup("emb")


def test_whole_slice_is_a_plain_entry_and_duplicates_rejected(tmp_path):
    with BundleWriter(str(tmp_path / "w")) as writer:
        writer.add_slice("x", [2], "0,2", np.ones(2))
        with pytest.raises(InvalidArgumentError, match="duplicate"):
            writer.add("x", np.ones(2))
        with pytest.raises(InvalidArgumentError):
            writer.add_slice("y", [4], "0,2", np.ones(3))
    with BundleReader(str(tmp_path / "w")) as reader:
        assert reader.lookup_entry("x").slices == []


def test_missing_key_lists_closest(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "k"), {"dense/kernel": np.ones(1), "dense/bias": np.ones(1)})
    with BundleReader(prefix) as reader:
        with pytest.raises(NotFoundError, match="dense/kernel"):
            reader.lookup("dense/kernal")
        assert "dense/bias" in reader and "nope" not in reader and "" not in reader
    with pytest.raises(NotFoundError):
        BundleReader(str(tmp_path / "absent"))


def test_atomic_temp_names_and_failed_writer(tmp_path):
    writer = BundleWriter(str(tmp_path / "t"))
    names = os.listdir(tmp_path)
    assert len(names) == 1 and names[0].startswith("t.data-00000-of-00001.tempstate")
    assert names[0].rsplit("tempstate", 1)[1].isdigit()
    writer.abort()
    assert os.listdir(tmp_path) == []
    with pytest.raises(InvalidArgumentError):
        with BundleWriter(str(tmp_path / "u")) as bad:
            bad.add("r", np.zeros(1), dtype=dtypes.resource)
    assert os.listdir(tmp_path) == []
    write_checkpoint(str(tmp_path / "sub" / "x"), {"a": np.ones(1)})  # one level is created
    with pytest.raises(NotFoundError, match="directory"):
        BundleWriter(str(tmp_path / "no" / "such" / "x"))


def test_merge_bundles_like_merge_v2_checkpoints(tmp_path):
    temp = tmp_path / "m_temp"
    temp.mkdir()
    full = np.arange(14.0).reshape(7, 2)
    shard0 = write_checkpoint(str(temp / "part-00000-of-00002"),
                              {"z": np.float32(1), "a": np.float32(2), "emb": [Slice((7, 2), "3,2:-", full[3:5])]})
    shard1 = write_checkpoint(str(temp / "part-00001-of-00002"),
                              {"b": np.float32(3), "emb": [Slice((7, 2), "0,3:-", full[:3]),
                                                           Slice((7, 2), "5,2:-", full[5:])]})
    merge_bundles([shard0, shard1], str(tmp_path / "m"))
    assert sorted(os.listdir(tmp_path)) == ["m.data-00000-of-00002", "m.data-00001-of-00002", "m.index"]
    with BundleReader(str(tmp_path / "m")) as reader:
        assert reader.num_shards == 2
        assert reader.lookup_entry("a").shard_id == 0 and reader.lookup_entry("b").shard_id == 1
        assert [str(s) for s in reader.lookup_tensor_slices("emb")] == ["3,2:-", "0,3:-", "5,2:-"]
        np.testing.assert_array_equal(reader.lookup("emb"), full)
        assert reader.lookup("z") == 1
    dup = write_checkpoint(str(tmp_path / "d1"), {"a": np.ones(1)})
    dup2 = write_checkpoint(str(tmp_path / "d2"), {"a": np.ones(1)})
    with pytest.raises(InvalidArgumentError, match="Duplicate tensor keyed by a"):
        merge_bundles([dup, dup2], str(tmp_path / "dm"))
    with pytest.raises(NotFoundError):
        merge_bundles([str(tmp_path / "nothing")], str(tmp_path / "nm"))


def _corrupt_copy(tmp_path, name, mutate):
    prefix = write_checkpoint(str(tmp_path / name), {"w": np.arange(50, dtype=np.float32),
                                                     "s": np.array([b"hello", b"world"], object)})
    path = data_filename(prefix, 0, 1)
    data = bytearray(_file(path))
    with open(path, "wb") as file:
        file.write(mutate(data))
    return prefix


def test_data_byte_flips_are_detected(tmp_path):
    prefix = _corrupt_copy(tmp_path, "ok", lambda d: d)
    size = os.path.getsize(data_filename(prefix, 0, 1))
    for position in range(0, size, 3):
        def flip(data, position=position):
            data[position] ^= 0x40
            return data
        damaged = _corrupt_copy(tmp_path, f"c{position}", flip)
        with BundleReader(damaged) as reader:
            with pytest.raises(DataLossError, match=f"c{position}.data-00000-of-00001"):
                reader.lookup("s")
                reader.lookup("w")


def test_data_truncation_is_detected(tmp_path):
    for keep in (0, 1, 17, 199, 200, 214):
        damaged = _corrupt_copy(tmp_path, f"t{keep}", lambda d, keep=keep: d[:keep])
        with BundleReader(damaged) as reader:
            with pytest.raises(DataLossError, match="past the end of the data file"):
                reader.lookup("w")
                reader.lookup("s")


def test_index_truncation_and_flips(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "i"), {"w": np.ones(3), "x": np.zeros(2)})
    index = _file(prefix + ".index")
    for length in range(0, len(index), 5):
        with open(prefix + ".index", "wb") as file:
            file.write(index[:length])
        with pytest.raises(DataLossError, match="i.index"):
            with BundleReader(prefix) as reader:
                reader.lookup("w"), reader.lookup("x")
    for position in range(len(index) - 48):
        damaged = bytearray(index)
        damaged[position] ^= 0x10
        with open(prefix + ".index", "wb") as file:
            file.write(damaged)
        with pytest.raises(DataLossError):
            with BundleReader(prefix) as reader:
                reader.lookup("w"), reader.lookup("x")


def _hand_made(tmp_path, name, entry, data=b"", header=None):
    prefix = str(tmp_path / name)
    header = header or BundleHeaderProto(num_shards=1, version=VersionDef(producer=1))
    write_index(prefix + ".index", header, {b"x": entry})
    with open(data_filename(prefix, 0, header.num_shards or 1), "wb") as file:
        file.write(data)
    return prefix


def test_validation_before_allocation(tmp_path):
    huge = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape([2 ** 40, 2 ** 20]), size=8)
    with BundleReader(_hand_made(tmp_path, "huge", huge, b"\x00" * 8)) as reader:
        with pytest.raises(DataLossError, match="x has 8 bytes but shape"):
            reader.lookup("x")
    absurd = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape([2 ** 62, 2 ** 62]))
    with BundleReader(_hand_made(tmp_path, "absurd", absurd)) as reader:
        with pytest.raises(DataLossError, match="absurd shape"):
            reader.lookup("x")
    negative = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape([-1]))
    with BundleReader(_hand_made(tmp_path, "neg", negative)) as reader:
        with pytest.raises(DataLossError, match="negative"):
            reader.lookup("x")
    strings = BundleEntryProto(dtype=7, shape=TensorShapeProto.from_shape([10 ** 12]), size=6)
    with BundleReader(_hand_made(tmp_path, "str", strings, b"\x00" * 6)) as reader:
        with pytest.raises(DataLossError, match="too few"):
            reader.lookup("x")
    past = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape([2]), offset=4, size=8)
    with BundleReader(_hand_made(tmp_path, "past", past, b"\x00" * 8)) as reader:
        with pytest.raises(DataLossError, match="runs past the end"):
            reader.lookup("x")
    bad_dtype = BundleEntryProto(dtype=99, shape=TensorShapeProto())
    with BundleReader(_hand_made(tmp_path, "dt", bad_dtype)) as reader:
        with pytest.raises(DataLossError, match="unknown dtype"):
            reader.lookup("x")
    bad_shard = BundleEntryProto(dtype=1, shape=TensorShapeProto(), shard_id=3, size=4)
    with BundleReader(_hand_made(tmp_path, "sh", bad_shard)) as reader:
        with pytest.raises(DataLossError, match="shard 3"):
            reader.lookup("x")


def test_header_versions(tmp_path):
    entry = BundleEntryProto(dtype=1, shape=TensorShapeProto())
    for version in (VersionDef(producer=1, min_consumer=2), VersionDef(producer=1, bad_consumers=[1])):
        prefix = _hand_made(tmp_path, f"v{version.min_consumer}", entry,
                            header=BundleHeaderProto(num_shards=1, version=version))
        with pytest.raises(InvalidArgumentError, match="consumer"):
            BundleReader(prefix)
    prefix = _hand_made(tmp_path, "nov", BundleEntryProto(dtype=1, shape=TensorShapeProto(), size=4,
                                                          crc32c=crc.mask(crc.crc32c(b"\0\0\x80?"))),
                        b"\0\0\x80?", header=BundleHeaderProto(num_shards=1))
    with BundleReader(prefix) as reader:  # a missing version is accepted
        assert reader.lookup("x") == 1.0


def test_big_endian_bundle_is_byteswapped(tmp_path):
    value = np.array([1.5, -2.0, 3.25], dtype=">f8")
    raw = value.tobytes()
    entry = BundleEntryProto(dtype=2, shape=TensorShapeProto.from_shape([3]), size=len(raw),
                             crc32c=crc.mask(crc.crc32c(raw)))
    header = BundleHeaderProto(num_shards=1, endianness=BundleHeaderProto.BIG, version=VersionDef(producer=1))
    with BundleReader(_hand_made(tmp_path, "be", entry, raw, header)) as reader:
        assert reader.lookup("x").tolist() == [1.5, -2.0, 3.25]
