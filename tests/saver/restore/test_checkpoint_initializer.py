"""Tests for saver/checkpoint_initializer.py: init_from_checkpoint, against values and against real TF."""

import ast
import os

import numpy as np
import pytest

from graph.core import graph as graph_lib
from graph.runtime import session as session_lib
from graph.variables import variables
from saver.format.bundle import Slice, write_checkpoint
from saver.restore import init_from_checkpoint

FULL_B = np.arange(14, dtype=np.float32).reshape(7, 2)
CHECKPOINT = {  # what every test checkpoint holds (TF writes the same values in the oracle tests)
    "old/a": np.arange(6, dtype=np.float32).reshape(3, 2),
    "old/b": FULL_B,  # stored in 3 parts
    "old/sub/d": np.array([5.0, 6.0], np.float32),
    "c": np.float64(3.5),
    "x": np.array([7.0, 8.0], np.float32),
}


def _ours():
    import graph.compat.v1 as tf
    return tf


def _write_ours(prefix: str) -> str:
    parts = [Slice((7, 2), "0,3:-", FULL_B[:3]), Slice((7, 2), "3,2:-", FULL_B[3:5]), Slice((7, 2), "5,2:-", FULL_B[5:])]
    tensors = dict(CHECKPOINT, **{"old/b": parts})
    prefix = write_checkpoint(prefix, tensors)
    with open(os.path.join(os.path.dirname(prefix), "checkpoint"), "w") as file:
        file.write('model_checkpoint_path: "%s"\n' % os.path.basename(prefix))
    return prefix


def _write_tf(tf, prefix: str) -> str:
    """The same checkpoint written by TensorFlow's Saver (partitioned old/b from a fixed_size_partitioner)."""
    with tf.Graph().as_default():
        with tf.variable_scope("old"):
            tf.get_variable("a", initializer=CHECKPOINT["old/a"])
            tf.get_variable("b", shape=[7, 2], partitioner=tf.fixed_size_partitioner(3),
                            initializer=tf.constant_initializer(0.0))
            with tf.variable_scope("sub"):
                tf.get_variable("d", initializer=CHECKPOINT["old/sub/d"])
        tf.get_variable("c", initializer=CHECKPOINT["c"])
        tf.get_variable("x", initializer=CHECKPOINT["x"])
        b_parts = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "old/b/")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            offset = 0
            for part in b_parts:
                rows = part.shape[0]
                sess.run(part.assign(FULL_B[offset:offset + rows]))
                offset += rows
            return tf.train.Saver().save(sess, prefix)


def _fixed_size_partitioner(tf, shards):
    try:
        return tf.fixed_size_partitioner(shards)
    except AttributeError:  # graph.compat.v1 does not list graph.variables.partitioning yet
        from graph.variables import partitioning
        return partitioning.fixed_size_partitioner(shards)


def _model(tf, device=None):
    """The graph being initialized: new/{a, b (2 parts), sub/d}, other/a2, top/{c, x}, f (float32 scalar)."""
    with tf.device(device):
        with tf.variable_scope("new"):
            tf.get_variable("a", shape=[3, 2])
            tf.get_variable("b", shape=[7, 2], partitioner=_fixed_size_partitioner(tf, 2))
            with tf.variable_scope("sub"):
                tf.get_variable("d", shape=[2])
        with tf.variable_scope("other"):
            tf.get_variable("a2", shape=[3, 2])
        with tf.variable_scope("top"):
            tf.get_variable("c", shape=[], dtype=tf.float64)
            tf.get_variable("x", shape=[2])
        tf.get_variable("f", shape=[])
    return {v.op.name: v for v in tf.global_variables()}


def _values(tf, sess, model):
    return {name: sess.run(var) for name, var in model.items()}


MAPS = {
    "scope": {"old/": "new/"},
    "names": {"old/a": "new/a", "old/b": "new/b", "old/sub/d": "new/sub/d"},
    "root": {"/": "top/"},
    "subscope": {"old/sub/": "new/sub/"},
    "pairs": [("old/a", "other/a2"), ("old/a", "new/a")],
    "objects": lambda m: {"old/a": m["new/a"], "old/b": [m["new/b/part_0"], m["new/b/part_1"]], "x": m["top/x"]},
}


def _run(tf, ckpt, assignment_map, device=None):
    """Builds the model, applies the map, runs the initializers; returns (values or error, new ops)."""
    with tf.Graph().as_default() as graph:
        model = _model(tf, device)
        before = {op.name for op in graph.get_operations()}
        amap = assignment_map(model) if callable(assignment_map) else assignment_map
        try:
            tf.train.init_from_checkpoint(ckpt, amap)
        except Exception as error:  # noqa: BLE001 - compared with the other side
            return error, None
        new_ops = [op for op in graph.get_operations() if op.name not in before]
        initializers = {name: var.initializer.name.split(":")[0] for name, var in model.items()}
        if device is not None:  # a remote device cannot run in a local session (in TF either)
            return ({}, initializers), new_ops
        with tf.Session() as sess:
            try:
                sess.run(tf.global_variables_initializer())
            except Exception as error:  # noqa: BLE001
                return error, new_ops
            # Only checkpoint-initialized values are compared: the others are random draws.
            restored = {n: v for n, v in model.items() if v.initial_value.op.type == "RestoreV2"}
            return (_values(tf, sess, restored), initializers), new_ops


def _describe(ops, make_ndarray):
    out = []
    for op in ops:
        entry = [op.name, op.type, [t.name for t in op.inputs], op.device]
        if op.type == "Const":
            value = make_ndarray(op)
            entry.append(value.tolist() if hasattr(value, "tolist") else value)
        if op.type == "RestoreV2":
            entry.append([d.name for d in op.get_attr("dtypes")])
        out.append(entry)
    return out


# ------------------------------------------------------------------------------------ behaviour
@pytest.fixture
def ckpt(tmp_path):
    return _write_ours(str(tmp_path / "ckpt" / "model.ckpt-7"))


def _initialized(assignment_map, ckpt):
    result, _ = _run(_ours(), ckpt, assignment_map)
    if isinstance(result, Exception):
        raise result
    return result[0]


def test_scope_to_scope_with_partitions(ckpt):
    values = _initialized(MAPS["scope"], ckpt)
    np.testing.assert_array_equal(values["new/a"], CHECKPOINT["old/a"])
    np.testing.assert_array_equal(values["new/b/part_0"], FULL_B[:4])
    np.testing.assert_array_equal(values["new/b/part_1"], FULL_B[4:])
    np.testing.assert_array_equal(values["new/sub/d"], CHECKPOINT["old/sub/d"])


def test_root_mapping_and_directory(ckpt):
    values = _initialized(MAPS["root"], os.path.dirname(ckpt))
    assert values["top/c"] == 3.5 and values["top/c"].dtype == np.float64
    np.testing.assert_array_equal(values["top/x"], CHECKPOINT["x"])


def test_variable_objects_and_pairs(ckpt):
    values = _initialized(MAPS["objects"], ckpt)
    np.testing.assert_array_equal(np.concatenate([values["new/b/part_0"], values["new/b/part_1"]]), FULL_B)
    values = _initialized(MAPS["pairs"], ckpt)
    np.testing.assert_array_equal(values["new/a"], CHECKPOINT["old/a"])
    np.testing.assert_array_equal(values["other/a2"], CHECKPOINT["old/a"])


def test_graph_structure_and_initial_value(ckpt):
    tf = _ours()
    with graph_lib.Graph().as_default() as graph:
        with tf.device("/job:ps/task:1"):
            a = variables.Variable(np.zeros((3, 2), np.float32), name="new/a")
        with graph.name_scope("outer"):
            init_from_checkpoint(ckpt, {"old/a": a})
        restore = graph.get_operation_by_name("outer/checkpoint_initializer")
        assert restore.type == "RestoreV2" and restore.device == "/job:ps/task:1/device:CPU:0"
        assert [t.name for t in restore.inputs] == ["outer/checkpoint_initializer/prefix:0",
                                                    "outer/checkpoint_initializer/tensor_names:0",
                                                    "outer/checkpoint_initializer/shape_and_slices:0"]
        assert a.initializer.name == "outer/Assign" and a.initializer.type == "Assign"
        assert a.initializer.inputs[1] is restore.outputs[0]
        assert a.initial_value is restore.outputs[0] and a.initial_value.shape.as_list() == [3, 2]
        # /job:ps/task:1 exists only in a cluster (a local session refuses it, as TF's): an in-process one
        ps = tf.train.Server({"ps": ["localhost:0", "localhost:0"]}, job_name="ps", task_index=1)
        sess = session_lib.Session(ps.target, graph=graph)
        sess.run(a.initializer)
        np.testing.assert_array_equal(sess.run(a), CHECKPOINT["old/a"])


def test_errors(ckpt, tmp_path):
    tf = _ours()
    error, _ = _run(tf, ckpt, {"old/zz": "new/a"})
    assert isinstance(error, ValueError)
    head, _, listed = str(error).partition(" checkpoint ")
    assert head == f"Tensor old/zz is not found in {ckpt}"
    assert ast.literal_eval(listed) == {k: list(np.shape(v)) for k, v in CHECKPOINT.items()}
    error, _ = _run(tf, ckpt, {"old/a": "new/sub/d"})
    assert str(error) == ("Shape of variable new/sub/d:0 ((2,)) doesn't match with shape of tensor old/a "
                          "([3, 2]) from checkpoint reader.")
    error, _ = _run(tf, ckpt, {"old/a": "new/zz"})
    assert str(error) == ("Assignment map with scope only name new should map to scope only old/a. "
                          "Should be 'scope/': 'other_scope/'.")
    error, _ = _run(tf, ckpt, {"old/": "top/"})
    assert str(error) == f"Tensor old/c (c in old/) is not found in {ckpt} checkpoint"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in given directory"):
        init_from_checkpoint(str(empty), {})


# ------------------------------------------------------------------------------------ oracle
@pytest.fixture(scope="module")
def tf_ckpt(tmp_path_factory, tf_module):
    return _write_tf(tf_module, str(tmp_path_factory.mktemp("tfckpt") / "model.ckpt-7"))


def _tf_const_value(tf):
    from tensorflow.python.framework import tensor_util

    def make(op):
        value = tensor_util.MakeNdarray(op.get_attr("value"))
        return value
    return make


def _our_const_value(op):
    return np.asarray(op.get_attr("value"))


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(MAPS) + ["device", "errors"])
def test_same_as_tensorflow(case, tf1, tf_ckpt):
    cases = {"device": [({"old/": "new/"}, "/job:ps/task:1")],
             "errors": [({"old/zz": "new/a"}, None), ({"old/a": "new/sub/d"}, None), ({"old/a": "new/zz"}, None),
                        ({"old/": "top/"}, None), ({"": "new/"}, None), ({"old/": "/"}, None),
                        ({"c": "f"}, None)]}.get(case, [(MAPS.get(case), None)])
    ours = _ours()
    for assignment_map, device in cases:
        theirs, their_ops = _run(tf1, tf_ckpt, assignment_map, device)
        mine, my_ops = _run(ours, tf_ckpt, assignment_map, device)
        if isinstance(theirs, Exception):
            assert type(mine).__name__ == type(theirs).__name__, (assignment_map, mine, theirs)
            their_text, my_text = str(theirs), str(mine)
            if " checkpoint {" in their_text:  # the map's order is C++ hash order in TF
                their_text, their_map = their_text.split(" checkpoint ", 1)
                my_text, my_map = my_text.split(" checkpoint ", 1)
                assert ast.literal_eval(my_map) == ast.literal_eval(their_map)
            if type(theirs).__name__ == "ValueError":
                assert my_text == their_text
            else:  # an error of the initializer run: TF's message, then its op context
                assert my_text.splitlines()[0] in their_text
            continue
        (their_values, their_inits), (my_values, my_inits) = theirs, mine
        assert sorted(my_values) == sorted(their_values)
        for name in their_values:
            np.testing.assert_array_equal(my_values[name], their_values[name], err_msg=name)
            assert my_values[name].dtype == their_values[name].dtype
        assert my_inits == their_inits
        assert _describe(my_ops, _our_const_value) == _describe(their_ops, _tf_const_value(tf1))


def test_partitioned_variable_object_and_mixed_slices(ckpt):
    from graph.variables import partitioning
    from graph.variables import variable_scope
    with graph_lib.Graph().as_default() as graph:
        with variable_scope.variable_scope("new"):
            b = variable_scope.get_variable("b", shape=[7, 2], partitioner=partitioning.fixed_size_partitioner(3))
            e = variable_scope.get_variable("e", shape=[7, 2], partitioner=partitioning.fixed_size_partitioner(2))
        init_from_checkpoint(ckpt, {"old/b": b})  # TF itself only takes the list of parts
        specs = [p.initial_value.op.inputs[2].op.get_attr("value").tolist() for p in b]
        assert specs == [[b"7 2 0,3:0,2"], [b"7 2 3,2:0,2"], [b"7 2 5,2:0,2"]]
        with pytest.raises(ValueError, match="^Slices must all be from the same tensor: new/b != new/e$"):
            init_from_checkpoint(ckpt, {"old/b": [b._get_variable_list()[0], e._get_variable_list()[0]]})
        sess = session_lib.Session(graph=graph)
        sess.run([p.initializer for p in b])
        np.testing.assert_array_equal(np.concatenate([sess.run(p) for p in b]), FULL_B)
