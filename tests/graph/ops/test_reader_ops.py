"""Readers (graph/ops/reader_ops.py): graphs, keys, values, counters and errors against TensorFlow."""

import re

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.platform.tfrecord_io import TFRecordWriter


@pytest.fixture
def files(tmp_path):
    """Two TFRecord files (one GZIP), two text files with a header, blank and CRLF lines."""
    for index in range(2):
        with TFRecordWriter(str(tmp_path / f"r{index}.tfrecord")) as writer:
            for j in range(3):
                writer.write(b"rec%d-%d" % (index, j) * (j + 1))
        (tmp_path / f"t{index}.txt").write_bytes(b"header\nline a%d\n\nline c\r\nlast" % index)
    with TFRecordWriter(str(tmp_path / "z.tfrecord"), options="GZIP") as writer:
        writer.write(b"zipped")
        writer.write(b"twice")
    return tmp_path


def _program(tf, d, results):
    def attempt(sess, fetch):
        try:
            value = sess.run(fetch)
            results.append(value)
        except tf.errors.OpError as error:
            lines = [line for line in error.message.splitlines() if line and "[[" not in line]
            results.append((type(error).__name__, re.sub(r"'_\d+_", "'_N_", lines[-1])))

    def queue_of(sess, names):
        q = tf.FIFOQueue(10, tf.string)
        sess.run(q.enqueue_many([[f"{d}/{name}" for name in names]]))
        sess.run(q.close())
        return q

    reader = tf.TFRecordReader()
    with tf.Session() as sess:
        q = queue_of(sess, ["r0.tfrecord", "r1.tfrecord"])
        key, value = reader.read(q)
        keys, values = reader.read_up_to(q, 4)
        counters = [reader.num_records_produced(), reader.num_work_units_completed()]
        for fetch in ([key, value], [keys, values], counters, [keys, values], counters, [key, value], reader.reset(),
                      counters):
            attempt(sess, fetch)
    for make, names in ((lambda: tf.TextLineReader(skip_header_lines=1), ["t0.txt", "t1.txt"]),
                        (tf.WholeFileReader, ["t0.txt"]), (tf.IdentityReader, ["x", "y"]),
                        (lambda: tf.TFRecordReader(options=tf.python_io.TFRecordOptions("GZIP")), ["z.tfrecord"])):
        other = make()
        with tf.Session() as sess:
            key, value = other.read(queue_of(sess, names))
            for _ in range(len(names) * 4 + 1):
                attempt(sess, [key, value])
            attempt(sess, [other.num_records_produced(), other.num_work_units_completed()])
    with tf.Session() as sess:
        keys, values = reader.read_up_to(queue_of(sess, ["r0.tfrecord", "missing"]), 2)
        for _ in range(3):
            attempt(sess, [keys, values])
    return [(op.name, op.type, [t.name for t in op.inputs]) for op in tf.get_default_graph().get_operations()]


@pytest.mark.tf
def test_readers_match_tensorflow(tf1, files):
    expected, actual = [], []
    expected_ops = _program(tf1, files, expected)
    with ours.Graph().as_default():
        actual_ops = _program(ours, files, actual)
    assert actual_ops == expected_ops
    assert len(actual) == len(expected)
    for ours_item, tf_item in zip(actual, expected):
        if isinstance(tf_item, tuple):
            assert ours_item == tf_item
        elif tf_item is None:
            assert ours_item is None
        else:
            for a, b in zip(ours_item, tf_item):
                np.testing.assert_array_equal(a, b)


def test_reader_reads_from_a_queue_filled_by_another_thread(files):
    import threading
    with ours.Graph().as_default():
        q = ours.FIFOQueue(1, ours.string)
        name = ours.placeholder(ours.string)
        enqueue, close = q.enqueue(name), q.close()
        key, value = ours.TFRecordReader().read(q)
        with ours.Session() as sess:
            def produce():
                for index in range(2):
                    sess.run(enqueue, {name: str(files / f"r{index}.tfrecord")})
                sess.run(close)
            producer = threading.Thread(target=produce)
            producer.start()
            got = []
            with pytest.raises(ours.errors.OutOfRangeError):
                while True:
                    got.append(sess.run(value))
            producer.join(5)
    assert len(got) == 6 and got[0] == b"rec0-0" and got[-1] == b"rec1-2" * 3


def _fixed_length_program(tf, d):
    """Every (key, value) and the counters of FixedLengthRecordReaders over files with headers, hops, GZIP."""
    results = []
    with tf.Graph().as_default():
        cases = [(dict(record_bytes=3, header_bytes=2, footer_bytes=1), ["f0.bin", "f1.bin"]),
                 (dict(record_bytes=4, hop_bytes=2, name="hopping"), ["f0.bin"]),
                 (dict(record_bytes=2, hop_bytes=5, footer_bytes=3), ["f1.bin"]),
                 (dict(record_bytes=3, header_bytes=2, encoding="GZIP"), ["z.bin.gz"])]
        for arguments, names in cases:
            reader = tf.FixedLengthRecordReader(**arguments)
            q = tf.FIFOQueue(10, tf.string)
            key, value = reader.read(q)
            counters = [reader.num_records_produced(), reader.num_work_units_completed()]
            with tf.Session() as sess:
                sess.run(q.enqueue_many([[f"{d}/{name}" for name in names]]))
                sess.run(q.close())
                while True:
                    try:
                        results.append(sess.run([key, value]))
                    except tf.errors.OutOfRangeError:
                        break
                results.append(sess.run(counters))
        graph = [(op.name, op.type, [op.get_attr(attr) for attr in
                                     ("header_bytes", "record_bytes", "footer_bytes", "hop_bytes", "encoding")])
                 for op in tf.get_default_graph().get_operations() if op.type == "FixedLengthRecordReaderV2"]
    return [[v.decode() if isinstance(v, bytes) else int(v) for v in pair] for pair in results], graph


@pytest.mark.tf
def test_fixed_length_record_reader_matches_tensorflow(tf1, tmp_path):
    import gzip
    (tmp_path / "f0.bin").write_bytes(b"HHabcdefghijF")  # header 2, then 11 bytes: a short last record
    (tmp_path / "f1.bin").write_bytes(b"HH0123456789xyzF")
    (tmp_path / "z.bin.gz").write_bytes(gzip.compress(b"HHzipzapzop"))
    theirs, their_graph = _fixed_length_program(tf1, tmp_path)
    mine, my_graph = _fixed_length_program(ours, tmp_path)
    assert mine == theirs
    assert my_graph == their_graph
    # The first reader: three whole records of f0 (its short tail dropped), then f1's four.
    assert [value for _, value in mine[:3]] == ["abc", "def", "ghi"] and mine[0][0].endswith("f0.bin:0")


def test_fixed_length_record_reader_rejects_negative_sizes():
    with ours.Graph().as_default():
        with pytest.raises(ours.errors.InvalidArgumentError, match="footer_bytes must be >= 0 not -1"):
            ours.FixedLengthRecordReader(4, footer_bytes=-1)
