"""TFRecord framing: golden bytes, round trips, corruption, and TensorFlow reading and writing the same bytes."""

import struct

import pytest

from graph import errors
from graph.base import crc
from graph.platform import tfrecord

# An empty record: length 0, its masked CRC, no data, the masked CRC of b"" (crc32c(b"") == 0 -> mask(0))
EMPTY_RECORD = struct.pack("<QII", 0, crc.mask(crc.crc32c(b"\x00" * 8)), crc.mask(0))


def test_golden_empty_record():
    assert tfrecord.encode_record(b"") == EMPTY_RECORD
    assert EMPTY_RECORD.hex() == "0000000000000000" + "29039807" + "d8ea82a2"  # as TFRecordWriter writes b""


def test_round_trip(tmp_path):
    records = [b"", b"a", b"\x00" * 1000, bytes(range(256))]
    path = str(tmp_path / "r.tfrecord")
    with open(path, "wb") as file:
        writer = tfrecord.RecordWriter(file)
        for record in records:
            writer.write(record)
        writer.flush()
    assert list(tfrecord.read_records(path)) == records
    assert list(tfrecord.iterate_records(b"")) == []


@pytest.mark.parametrize("position, words", [(0, "corrupted record at 0"), (9, "corrupted record at 0"),
                                             (12, "corrupted record at 0"), (17, "corrupted record at 0")])
def test_corruption_is_data_loss(position, words):
    data = bytearray(tfrecord.encode_record(b"hello"))
    data[position] ^= 0x01
    with pytest.raises(errors.DataLossError, match=words):
        list(tfrecord.iterate_records(bytes(data), "f"))


def test_truncation_is_data_loss():
    data = tfrecord.encode_record(b"first") + tfrecord.encode_record(b"second")
    first = len(tfrecord.encode_record(b"first"))
    for cut in (first + 3, first + 12, len(data) - 1):
        with pytest.raises(errors.DataLossError, match=f"truncated record at {first} in f"):
            list(tfrecord.iterate_records(data[:cut], "f"))


@pytest.mark.tf
def test_tensorflow_writes_and_reads_the_same_bytes(tf_module, tmp_path):
    records = [b"", b"x", b"tensorflow" * 50]
    theirs = str(tmp_path / "theirs")
    with tf_module.io.TFRecordWriter(theirs) as writer:
        for record in records:
            writer.write(record)
    ours = b"".join(tfrecord.encode_record(r) for r in records)
    assert open(theirs, "rb").read() == ours
    mine = tmp_path / "ours"
    mine.write_bytes(ours)
    assert list(tf_module.io.tf_record_iterator(str(mine))) == records
