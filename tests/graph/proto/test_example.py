"""tf.train.Example messages: bytes identical to TensorFlow's protobuf classes, both ways, and their Python API."""

import pytest

from graph.proto import example as ex


def _example():
    example = ex.Example()
    example.features.feature["zeta"].int64_list.value.extend([1, -2, 2**40])
    example.features.feature["alpha"].float_list.value.append(1.5)
    example.features.feature["m"].bytes_list.value.append(b"x\x00\xff")
    return example


def test_building_through_attached_fields():
    example = _example()
    assert example.HasField("features")
    assert example.features.feature["zeta"].WhichOneof("kind") == "int64_list"
    # Looking at another member of the oneof neither sets it nor clears the one set.
    assert list(example.features.feature["zeta"].bytes_list.value) == []
    assert example.features.feature["zeta"].WhichOneof("kind") == "int64_list"


def test_round_trip_and_copy():
    example = _example()
    data = example.SerializeToString()
    parsed = ex.Example.FromString(data)
    assert parsed == example and parsed.SerializeToString() == data
    copy = ex.Example()
    copy.CopyFrom(example)
    assert copy == example and copy.ByteSize() == len(data)
    other = ex.Example()
    assert other.ParseFromString(data) == len(data) and other == example


def test_sequence_example_round_trip():
    sequence = ex.SequenceExample()
    sequence.context.feature["length"].int64_list.value.append(3)
    steps = sequence.feature_lists.feature_list["tokens"]
    steps.feature.extend([ex.Feature(int64_list=ex.Int64List(value=[i, i + 1])) for i in range(3)])
    assert ex.SequenceExample.FromString(sequence.SerializeToString()) == sequence


@pytest.mark.tf
def test_bytes_identical_to_tensorflow_deterministic_serialization(tf_module):
    tf = tf_module
    example = _example()
    theirs = tf.train.Example.FromString(example.SerializeToString())
    assert theirs.SerializeToString(deterministic=True) == example.SerializeToString()
    built = tf.train.Example(features=tf.train.Features(feature={
        "b": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"abc", b""])),
        "a": tf.train.Feature(float_list=tf.train.FloatList(value=[0.25, -1e30]))}))
    mine = ex.Example.FromString(built.SerializeToString())
    assert mine.SerializeToString() == built.SerializeToString(deterministic=True)
    assert list(mine.features.feature["b"].bytes_list.value) == [b"abc", b""]


@pytest.mark.tf
def test_sequence_example_bytes_identical(tf_module):
    tf = tf_module
    theirs = tf.train.SequenceExample()
    theirs.context.feature["id"].bytes_list.value.append(b"seq-1")
    for values in ([1.0], [2.0, 3.0]):
        theirs.feature_lists.feature_list["x"].feature.add().float_list.value.extend(values)
    mine = ex.SequenceExample.FromString(theirs.SerializeToString())
    assert mine.SerializeToString() == theirs.SerializeToString(deterministic=True)
    assert [list(f.float_list.value) for f in mine.feature_lists.feature_list["x"].feature] == [[1.0], [2.0, 3.0]]
