"""saver.graph_ops.save_ops: SaveV2 / RestoreV2 / MergeV2Checkpoints and string ops, built and run in a Session."""

import os

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.ops import array_index_ops
from graph import errors
from saver.graph_ops import restored_arrays, save_ops
from saver.format.bundle import BundleReader


@pytest.fixture
def g():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_save_v2_then_restore_v2(g, tmp_path):
    prefix = str(tmp_path / "ck")
    a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = tf.constant(np.array([b"x", b"yz"], dtype=object))
    save = save_ops.save_v2(prefix, ["b", "a"], ["", ""], [b, a])
    assert save.type == "SaveV2" and save.name == "SaveV2"
    assert [t.op.name for t in save.inputs[1:3]] == ["SaveV2/tensor_names", "SaveV2/shape_and_slices"]
    assert save.get_attr("dtypes") == [tf.string, tf.float32]
    _run(save)
    assert sorted(os.listdir(tmp_path)) == ["ck.data-00000-of-00001", "ck.index"]
    with BundleReader(prefix) as reader:
        assert reader.keys() == ["a", "b"]
    restored = save_ops.restore_v2(prefix, ["a", "b"], ["", ""], [tf.float32, tf.string])
    assert restored[0].op.type == "RestoreV2" and restored[0].op.name == "RestoreV2"
    a_value, b_value = _run(restored)
    np.testing.assert_array_equal(a_value, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert list(b_value) == [b"x", b"yz"]


def test_save_slices_and_restore_any_slice(g, tmp_path):
    prefix = str(tmp_path / "p")
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    parts = [tf.constant(full[0:3]), tf.constant(full[3:5]), tf.constant(full[5:7])]
    _run(save_ops.save_v2(prefix, ["emb"] * 3, ["7 2 0,3:0,2", "7 2 3,2:0,2", "7 2 5,2:0,2"], parts))
    outs = save_ops.restore_v2(prefix, ["emb", "emb"], ["", "7 2 2,3:0,2"], [tf.float32, tf.float32])
    assert outs[1].shape.as_list() == [3, 2]  # static shape from the slice spec
    whole, window = _run(outs)
    np.testing.assert_array_equal(whole, full)
    np.testing.assert_array_equal(window, full[2:5])


def test_restore_v2_errors(g, tmp_path):
    prefix = str(tmp_path / "e")
    _run(save_ops.save_v2(prefix, ["weights", "bias"], ["", ""], [tf.constant([1.0]), tf.constant(2)]))
    with pytest.raises(errors.NotFoundError, match=r"Key weight not found in checkpoint.*Closest keys present: weights"):
        _run(save_ops.restore_v2(prefix, ["weight"], [""], [tf.float32]))
    with pytest.raises(errors.InvalidArgumentError,
                       match="tensor_name = bias; expected dtype float does not equal original dtype int32"):
        _run(save_ops.restore_v2(prefix, ["bias"], [""], [tf.float32]))
    with pytest.raises(errors.NotFoundError):
        _run(save_ops.restore_v2(str(tmp_path / "missing"), ["bias"], [""], [tf.int32]))


def test_restore_v2_output_is_adoptable(g, tmp_path):
    prefix = str(tmp_path / "r")
    _run(save_ops.save_v2(prefix, ["a"], [""], [tf.constant([1.0, 2.0])]))
    arrays = restored_arrays.read_tensors(prefix, ["a"], [""], [tf.float32])
    assert isinstance(arrays[0], restored_arrays.RestoredArray) and arrays[0].flags.owndata is False
    assert arrays[0].base.flags.c_contiguous


def test_restore_v2_reads_v1(g, tmp_path):
    filename = str(tmp_path / "v1ck")
    op = save_ops.save_slices(filename, ["a", "m"], ["", "4 2 0,2:-"],
                              [tf.constant([1, 2, 3]), tf.constant(np.ones((2, 2), np.float64))])
    assert op.type == "SaveSlices" and op.name == "save"
    _run(op)
    a, m = _run(save_ops.restore_v2(filename, ["a", "m"], ["", "4 2 0,2:0,2"], [tf.int32, tf.float64]))
    np.testing.assert_array_equal(a, [1, 2, 3])
    np.testing.assert_array_equal(m, np.ones((2, 2)))


def test_sharded_names_and_merge(g, tmp_path):
    base = str(tmp_path / "m")
    temp = save_ops.string_join([base, array_index_ops.where(
        save_ops.static_regex_full_match(base, "^s3://.*"), tf.constant(".part"), tf.constant("_temp/part"))])
    num = tf.constant(2, name="num_shards")
    shard0 = save_ops.sharded_filename(temp, 0, num)
    shard1 = save_ops.sharded_filename(temp, 1, num)
    assert shard0.op.inputs[1].op.name == "ShardedFilename/shard"
    s0 = save_ops.save_v2(shard0, ["b"], [""], [tf.constant([2.0])])
    s1 = save_ops.save_v2(shard1, ["a", "c"], ["", ""], [tf.constant([1.0]), tf.constant([3.0])])
    with tf.control_dependencies([s0, s1]):
        merge = save_ops.merge_v2_checkpoints([shard0, shard1], base)
    assert merge.inputs[0].op.type == "Pack" and merge.inputs[0].op.name == "MergeV2Checkpoints/checkpoint_prefixes"
    assert merge.get_attr("delete_old_dirs") is True
    names = _run([shard0, shard1])
    assert names == [(base + "_temp/part-00000-of-00002").encode(), (base + "_temp/part-00001-of-00002").encode()]
    _run(merge)
    assert sorted(os.listdir(tmp_path)) == ["m.data-00000-of-00002", "m.data-00001-of-00002", "m.index"]
    with BundleReader(base) as reader:
        assert reader.keys() == ["a", "b", "c"]
        assert reader.header.num_shards == 2
    assert _run(save_ops.sharded_filespec(base, 3)) == (base + "-?????-of-00003").encode()


def test_string_ops(g):
    joined = save_ops.string_join([tf.constant(["a", "b"]), tf.constant("x")], separator="-")
    assert list(_run(joined)) == [b"a-x", b"b-x"]
    match = save_ops.static_regex_full_match(tf.constant(["s3://b/k", "/tmp/s3://"]), "^s3://.*")
    assert list(_run(match)) == [True, False]


def test_save_v2_into_missing_parent(g, tmp_path):
    prefix = str(tmp_path / "a" / "b" / "c")
    with pytest.raises(errors.NotFoundError):
        _run(save_ops.save_v2(prefix, ["x"], [""], [tf.constant(1.0)]))
    one_level = str(tmp_path / "new" / "c")  # one missing level is created, as TF does
    _run(save_ops.save_v2(one_level, ["x"], [""], [tf.constant(1.0)]))
    assert os.path.exists(one_level + ".index")
