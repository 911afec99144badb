"""tf.python_io: TFRecord files, plain and compressed, byte-identical to TensorFlow's and read both ways."""

import os

import pytest

from graph import errors
from graph.platform import tfrecord_io as io

RECORDS = [b"", b"abc", bytes(range(256)) * 3, b"z" * 70000, os.urandom(1000)]


def _write(path, options=None, records=RECORDS):
    with io.TFRecordWriter(path, options) as writer:
        for record in records:
            writer.write(record)


@pytest.mark.parametrize("compression", [None, "", "ZLIB", "GZIP", io.TFRecordCompressionType.GZIP])
def test_round_trip(tmp_path, compression):
    path = str(tmp_path / "r.tfrecord")
    _write(path, io.TFRecordOptions(compression))
    assert list(io.tf_record_iterator(path, io.TFRecordOptions(compression))) == RECORDS


def test_damaged_stream_and_record_are_data_loss(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    _write(path, "GZIP")
    with pytest.raises(errors.DataLossError, match="not a valid ZLIB stream"):
        list(io.tf_record_iterator(path, "ZLIB"))
    _write(path)
    data = bytearray(open(path, "rb").read())
    data[20] ^= 1
    open(path, "wb").write(bytes(data))
    with pytest.raises(errors.DataLossError, match="corrupted record"):
        list(io.tf_record_iterator(path))


def test_unknown_compression_is_rejected():
    with pytest.raises(ValueError, match="Unsupported compression type"):
        io.TFRecordOptions("LZ4")


def test_writer_after_close_fails(tmp_path):
    writer = io.TFRecordWriter(str(tmp_path / "r"))
    writer.close()
    with pytest.raises(errors.FailedPreconditionError):
        writer.write(b"x")


@pytest.mark.tf
@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_files_identical_to_tensorflow_and_read_both_ways(tf_module, tmp_path, compression):
    tf = tf_module
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    _write(mine, compression)
    with tf.python_io.TFRecordWriter(theirs, tf.python_io.TFRecordOptions(compression)) as writer:
        for record in RECORDS:
            writer.write(record)
    assert open(mine, "rb").read() == open(theirs, "rb").read()
    assert list(tf.python_io.tf_record_iterator(mine, tf.python_io.TFRecordOptions(compression))) == RECORDS
    assert list(io.tf_record_iterator(theirs, compression)) == RECORDS


@pytest.mark.tf
def test_flushed_compressed_file_is_read_by_tensorflow(tf_module, tmp_path):
    path = str(tmp_path / "flushed")
    with io.TFRecordWriter(path, "ZLIB") as writer:
        writer.write(b"first")
        writer.flush()
        writer.write(b"second")
    assert list(tf_module.python_io.tf_record_iterator(path, tf_module.python_io.TFRecordOptions("ZLIB"))) == \
        [b"first", b"second"]
