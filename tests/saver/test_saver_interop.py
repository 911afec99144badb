"""Saver interop with real TensorFlow: byte-identical files for the same graph, and restores both ways."""

import os

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.variables.partitioning import fixed_size_partitioner as our_fixed_size_partitioner

pytestmark = pytest.mark.tf

FULL = np.arange(14, dtype=np.float32).reshape(7, 2)
KINDS = ["plain", "renamed", "subset", "sharded", "partitioned", "steps", "v1"]


def _partitioner(tf):
    return our_fixed_size_partitioner if tf is ours else tf.fixed_size_partitioner


def _build(tf, kind):
    """Variables with deterministic values, their Saver, and the assign ops that set the values."""
    sets = []
    if kind == "sharded":
        variables = {}
        for name, device, value in (("a", "/cpu:1", np.arange(4, dtype=np.float32)),
                                    ("b", "/cpu:0", np.arange(3, dtype=np.int64)),
                                    ("c", "/cpu:2", np.float64(2.5)), ("d", "/cpu:1", np.array([b"x", b"yz"]))):
            with tf.device(device):
                variables[name] = tf.Variable(value, name=name)
        return variables, tf.train.Saver(sharded=True, max_to_keep=2), sets
    if kind == "partitioned":
        emb = tf.get_variable("emb", [7, 2], initializer=tf.zeros_initializer(), partitioner=_partitioner(tf)(3))
        for part in emb:
            offset, rows = part._save_slice_info.var_offset[0], part._save_slice_info.var_shape[0]
            sets.append(part.assign(FULL[offset:offset + rows]))
        x = tf.Variable(np.float16(1.5), name="x")
        return {"emb": emb, "x": x}, tf.train.Saver(), sets
    variables = {
        "w": tf.Variable(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3), name="layer/w"),
        "b": tf.Variable(np.array([1, -2], np.int32), name="layer/b"),
        "s": tf.Variable(b"text", name="s"),
        "step": tf.Variable(np.int64(0), name="global_step", trainable=False),
    }
    if kind == "renamed":
        saver = tf.train.Saver({"net/weights": variables["w"], "net/bias": variables["b"]})
    elif kind == "subset":
        saver = tf.train.Saver([variables["b"], variables["s"]])
    elif kind == "steps":
        saver = tf.train.Saver(max_to_keep=2)
    elif kind == "v1":
        saver = tf.train.Saver(write_version=tf.train.SaverDef.V1)
    else:
        saver = tf.train.Saver()
    return variables, saver, sets


def _save(tf, kind, directory):
    graph = tf.Graph()
    with graph.as_default():
        variables, saver, sets = _build(tf, kind)
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(sets)
            base = os.path.join(directory, "model.ckpt")
            if kind in ("steps", "sharded"):
                return [saver.save(sess, base, global_step=step, write_meta_graph=False) for step in (0, 10, 20)]
            return [saver.save(sess, base, write_meta_graph=False)]


def _restored_values(tf, kind, prefix):
    graph = tf.Graph()
    with graph.as_default():
        variables, saver, _ = _build(tf, kind)
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
            saver.restore(sess, prefix)
            values = {}
            for name, variable in variables.items():
                if name == "emb":
                    values[name] = np.concatenate(sess.run(list(variable)))
                elif kind != "subset" or name in ("b", "s"):
                    if kind != "renamed" or name in ("w", "b"):
                        values[name] = sess.run(variable)
            return values


def _read(path, replace=None):
    data = open(path, "rb").read()
    if replace:
        data = data.replace(replace[0].encode(), replace[1].encode())
    return data


@pytest.mark.parametrize("kind", KINDS)
def test_same_files_as_tensorflow_and_both_restore(tf1, tmp_path, kind):
    tf_dir, our_dir = str(tmp_path / "tf"), str(tmp_path / "ours")
    os.mkdir(tf_dir)
    os.mkdir(our_dir)
    tf_paths = _save(tf1, kind, tf_dir)
    our_paths = _save(ours, kind, our_dir)
    assert [os.path.basename(p) for p in our_paths] == [os.path.basename(p) for p in tf_paths]
    assert sorted(os.listdir(our_dir)) == sorted(os.listdir(tf_dir))
    for name in os.listdir(tf_dir):
        replace = (tf_dir, our_dir) if name == "checkpoint" else None
        assert _read(os.path.join(our_dir, name)) == _read(os.path.join(tf_dir, name), replace), name
    expected = _restored_values(tf1, kind, tf_paths[-1])
    for source, prefix in (("ours->tf", our_paths[-1]),):
        got = _restored_values(tf1, kind, prefix)
        assert got.keys() == expected.keys(), source
        for key in expected:
            np.testing.assert_array_equal(got[key], expected[key], err_msg=f"{source} {key}")
    got = _restored_values(ours, kind, tf_paths[-1])
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=f"tf->ours {key}")


def test_tensorflow_imports_restores_our_meta_when_written(tf1, tmp_path):
    """If a .meta is written, TF's import_meta_graph + restore must work with it."""
    graph = ours.Graph()
    with graph.as_default():
        v = ours.Variable(np.array([1.0, 2.0], np.float32), name="v")
        saver = ours.train.Saver()
        with ours.Session() as sess:
            sess.run(v.initializer)
            prefix = saver.save(sess, str(tmp_path / "m"))
    assert os.path.exists(prefix + ".meta")
    with tf1.Session() as sess:
        restorer = tf1.train.import_meta_graph(prefix + ".meta")
        restorer.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run("v:0"), [1.0, 2.0])
