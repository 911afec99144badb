"""Tests for Operation.node_def / Graph.as_graph_def: NodeDef/GraphDef export of a Graph, the per-op NodeDef
cache, TensorFlow importing what we export (the encoder's own bytes: tests/graph/proto/test_node_def.py)."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.base import dtypes
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.proto.framework import GraphDef, NodeDef, VersionDef
from graph.proto.values import python_value_of
from tests.graph.graph_oracle import small_graph


def node_def_of(op, add_shapes=False):
    return NodeDef.from_bytes(op.node_def_bytes(add_shapes))


def graph_def_of(graph, add_shapes=False):
    return graph.as_graph_def(add_shapes=add_shapes)


def graph_def_bytes(graph, add_shapes=False):
    return graph.as_graph_def(add_shapes=add_shapes).to_bytes()


def test_attr_errors_name_the_op_and_attr():
    g = graph_lib.Graph()
    with g.as_default():
        op = g.create_op("NoOp", [], [], name="bad", attrs={"weird": {1: 2}})
    with pytest.raises(TypeError, match="Op 'bad' \\(NoOp\\): attr 'weird'"):
        node_def_of(op)


def test_node_def_inputs_device_attrs_and_defaults():
    g, v, x, y, done, _ = small_graph()
    node = node_def_of(y.op, add_shapes=True)
    assert (node.name, node.op, node.input, node.device) == ("y", "Identity", ["mul"], "/device:CPU:0")
    assert python_value_of(node.attr["T"]) == dtypes.float32
    assert python_value_of(node.attr["_output_shapes"]) == [TensorShape([None, 2])]
    assert node_def_of(done).input == ["^y"]
    assign = node_def_of(g.get_operation_by_name("v/Assign"))
    assert assign.input == ["v", "v/initial_value"]
    assert python_value_of(assign.attr["_class"]) == [b"loc:@v"]
    assert assign.attr["use_locking"].b is True and assign.attr["validate_shape"].b is True
    kernel = kernels.lookup("VariableV2")
    variable = node_def_of(v.op)
    for name, _ in kernel.default_attrs:  # registered defaults are written, as TF writes every attr
        assert name in variable.attr


def test_graph_def_lazy_decoding_matches_bytes():
    g, *_ = small_graph()
    data = graph_def_bytes(g, add_shapes=True)
    lazy = graph_def_of(g, add_shapes=True)
    assert lazy.to_bytes() == data
    assert [n.name for n in lazy.node] == [op.name for op in g.get_operations()]
    assert lazy.versions == VersionDef(producer=2474)
    assert GraphDef.from_bytes(data) == GraphDef.from_bytes(lazy.to_bytes())


# ------------------------------------------------------------------------------------- TensorFlow as oracle


def _representative_graph():
    """Ops from every builder module, as a user's TF1 model has them."""
    g = graph_lib.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.int32, [None], name="labels")
        w = tf.get_variable("w", [4, 3], initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        n = tf.get_variable("n", [2], initializer=tf.random_normal_initializer(seed=1))
        t = tf.get_variable("t", [2], initializer=tf.truncated_normal_initializer(seed=2))
        logits = tf.nn.bias_add(tf.matmul(x, w), b)
        probs = tf.nn.softmax(tf.nn.relu(logits))
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        stats = tf.concat([tf.reduce_sum(probs, axis=1, keepdims=True), tf.reduce_max(probs, axis=1, keepdims=True)],
                          axis=1)
        shaped = tf.reshape(tf.transpose(stats), [-1])
        picked = tf.gather(shaped, tf.argmax(probs, axis=1))
        casted = tf.cast(tf.greater(picked, 0.5), tf.float32) + tf.sqrt(tf.square(picked)) - tf.exp(-picked)
        sliced = tf.strided_slice(tf.stack([casted, casted]), [0], [1], [1])
        out = tf.identity(tf.where(tf.is_finite(sliced), sliced, tf.zeros_like(sliced)), name="out")
        tf.assign_add(n, t)
        tf.train.Saver()
        tf.global_variables_initializer()
    return g, x, labels, loss, out


@pytest.mark.tf
def test_every_node_has_the_attrs_tensorflow_requires(tf1):
    from tensorflow.python.framework import op_def_registry
    g, *_ = _representative_graph()
    problems = []
    for node in GraphDef.from_bytes(graph_def_bytes(g)).node:
        op_def = op_def_registry.get(node.op)
        if op_def is None:
            problems.append(f"{node.name}: unknown op type {node.op}")
            continue
        known = {a.name for a in op_def.attr}
        required = {a.name for a in op_def.attr if not a.HasField("default_value")}
        missing = required - set(node.attr)
        unknown = {k for k in node.attr if not k.startswith("_")} - known
        if missing or unknown:
            problems.append(f"{node.name} ({node.op}): missing {sorted(missing)}, not in OpDef {sorted(unknown)}")
    assert not problems, "\n".join(problems)


@pytest.mark.tf
def test_tensorflow_imports_our_graph_def_and_computes_the_same(tf1):
    from tensorflow.core.framework import graph_pb2
    g, x, labels, loss, out = _representative_graph()
    feed = {x: np.arange(8, dtype=np.float32).reshape(2, 4) / 7.0, labels: np.array([0, 2], np.int32)}
    with tf.Session(graph=g) as sess:
        sess.run("init")
        ours = sess.run([loss, out], feed)
        values = {name: sess.run(name + ":0") for name in ("w", "b")}
    real = graph_pb2.GraphDef.FromString(graph_def_bytes(g, add_shapes=True))
    tf1.import_graph_def(real, name="")
    with tf1.Session() as sess:
        sess.run("init")
        for name, value in values.items():
            sess.run(tf1.get_default_graph().get_tensor_by_name(name + ":0").op.outputs[0].op.name + "/Assign",
                     {name + "/Initializer/" + ("zeros:0" if name == "b" else "random_uniform:0"): value})
        theirs = sess.run([loss.name, out.name], {x.name: feed[x], labels.name: feed[labels]})
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)


def _fresh_bytes(graph, add_shapes):
    """The GraphDef bytes with every op's cached NodeDef dropped first."""
    for op in graph.get_operations():
        op._encoded = None
    return graph_def_bytes(graph, add_shapes)


@pytest.mark.parametrize("add_shapes", [False, True])
def test_cached_node_defs_follow_every_change_to_an_op(add_shapes):
    with tf.Graph().as_default() as graph:
        a = tf.Variable(tf.zeros([3]), name="a")
        b = tf.Variable(tf.ones([3]), name="b")
        x = tf.placeholder(tf.float32, name="x")
        y = tf.identity(x, name="y")
        assert graph_def_bytes(graph, add_shapes) == _fresh_bytes(graph, add_shapes)
        changes = [
            lambda: a.op._set_attr("container", "box"),
            lambda: b.op._set_device("/job:ps/task:1"),
            lambda: b.op._set_device_from_string("/job:ps/task:2"),
            lambda: y.op._add_control_input(a.initializer),
            lambda: y.op._update_input(0, b.value()),
            lambda: x.set_shape([3]),
        ]
        for change in changes:
            before = graph_def_bytes(graph, add_shapes)
            change()
            after = graph_def_bytes(graph, add_shapes)
            assert after == _fresh_bytes(graph, add_shapes)
            assert after != before or (change is changes[-1] and not add_shapes)


def test_cached_node_def_notices_a_kernel_registered_later():
    with tf.Graph().as_default() as graph:
        op = graph.create_op("LaterKernelOp", [], [dtypes.float32], name="later")
        first = node_def_of(op)
        assert "flag" not in first.attr
        try:
            kernels.register("LaterKernelOp", default_attrs={"flag": True})
            assert node_def_of(op).attr["flag"].b is True
        finally:
            kernels._REGISTRY.pop("LaterKernelOp", None)
