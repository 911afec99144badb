"""Tests for graph/testing/graph_def_equality.py: tf.test.assert_equal_graph_def against TensorFlow's own.

Each case builds an actual and an expected graph with the same code under both frameworks; the two must agree
on equality and, when unequal, on the message (TF's C++ EqualGraphDef, quoting SummarizeNodeDef).  Each case
differs in one place: where several attrs (or unexpected nodes) differ, TF names the first its hash map yields,
which changes from run to run.
"""

import numpy as np
import pytest

import graph.compat.v1 as tf


def _graph_def(tf_module, build):
    with tf_module.Graph().as_default() as graph:
        build(tf_module)
    return graph.as_graph_def()


def _consts(tf, order):
    for name in order:
        tf.constant({"a": 1.0, "b": [2, 3], "c": "text"}[name], name=name)


def _add(tf, op="add", device="", second="b", control=()):
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    extra = tf.constant(3.0, name="extra")
    inputs = {"b": b, "extra": extra, "a": a}
    controls = [{"a": a, "b": b, "extra": extra}[name].op for name in control]
    with tf.device(device), tf.control_dependencies(controls):
        getattr(tf, op)(a, inputs[second], name="sum")


def _placeholder(tf, shape, dtype="float32", name="p"):
    tf.placeholder(getattr(tf, dtype), shape, name=name)


CASES = {
    "same nodes in another order": (lambda tf: _consts(tf, "abc"), lambda tf: _consts(tf, "cab")),
    "a node missing": (lambda tf: _consts(tf, "ab"), lambda tf: _consts(tf, "abc")),
    "an unexpected node": (lambda tf: _consts(tf, "abc"), lambda tf: _consts(tf, "ac")),
    "another op": (lambda tf: _add(tf, "add"), lambda tf: _add(tf, "subtract")),
    "another input": (lambda tf: _add(tf, second="b"), lambda tf: _add(tf, second="extra")),
    "another device": (lambda tf: _add(tf, device="/cpu:0"), lambda tf: _add(tf)),
    "control inputs in another order": (lambda tf: _add(tf, control=("a", "b")),
                                        lambda tf: _add(tf, control=("b", "a"))),
    "a control input missing": (lambda tf: _add(tf, control=("a",)), lambda tf: _add(tf, control=("a", "b"))),
    "an unexpected control input": (lambda tf: _add(tf, control=("a", "extra")), lambda tf: _add(tf, control=("a",))),
    "more inputs": (lambda tf: _add(tf, control=("a",)), lambda tf: _add(tf)),
    "another tensor value": (lambda tf: tf.constant([1.5, 2.0], name="c"),
                             lambda tf: tf.constant([1.5, 2.5], name="c")),
    "another string value": (lambda tf: tf.constant("one\n\"two\"", name="c"),
                             lambda tf: tf.constant("x" * 90, name="c")),
    "another dtype": (lambda tf: _placeholder(tf, [2], "float32"), lambda tf: _placeholder(tf, [2], "int64")),
    "another shape": (lambda tf: _placeholder(tf, [None, 3]), lambda tf: _placeholder(tf, None)),
    "list attrs": (lambda tf: tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "SAME",
                                           name="conv"),
                   lambda tf: tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 2, 2, 1], "SAME",
                                           name="conv")),
    "float and bool attrs": (lambda tf: tf.nn.leaky_relu(tf.zeros([2]), alpha=0.25, name="lrelu"),
                             lambda tf: tf.nn.leaky_relu(tf.zeros([2]), alpha=0.3, name="lrelu")),
    "a large tensor": (lambda tf: tf.constant(np.arange(12).reshape(3, 4), name="c"),
                       lambda tf: tf.constant(np.arange(12).reshape(3, 4) + 1, name="c")),
}


def _message(assert_equal, actual, expected):
    try:
        assert_equal(actual, expected)
    except AssertionError as error:
        return str(error)
    return None


def test_equal_graphs_pass_and_differences_are_named():
    actual, expected = (_graph_def(tf, build) for build in CASES["same nodes in another order"])
    tf.test.assert_equal_graph_def(actual, expected)
    actual, expected = (_graph_def(tf, build) for build in CASES["a node missing"])
    with pytest.raises(AssertionError, match=r"Did not find expected node '\{\{node c\}\} = Const\[dtype=DT_STRING, "
                                             r"value=Tensor<type: string shape: \[\] values: text>\]\(\)'"):
        tf.test.assert_equal_graph_def(actual, expected)


def test_internal_attrs_and_zero_outputs_are_ignored():
    actual = _graph_def(tf, lambda tf: _add(tf))
    expected = tf.GraphDef.FromString(actual.SerializeToString())
    node = next(node for node in expected.node if node.name == "sum")
    node.input[1] = "b:0"  # "b" and "b:0" name one tensor
    node.attr["_class"] = tf.AttrValue(list=tf.AttrValue.ListValue(s=[b"loc:@a"]))
    tf.test.assert_equal_graph_def(actual, expected)


def test_arguments_must_be_graph_defs():
    with pytest.raises(TypeError, match="Expected tf.GraphDef for actual, got NodeDef"):
        tf.test.assert_equal_graph_def(tf.NodeDef(), tf.GraphDef())
    with pytest.raises(TypeError, match="Expected tf.GraphDef for expected, got str"):
        tf.test.assert_equal_graph_def(tf.GraphDef(), "node {}")


def test_checkpoint_v2_ignores_the_random_temporary_names():
    """Older TF Savers named a sharded save's temporary files ``_temp_<uuid hex>/part``; TF 2.21's (and ours)
    write ``_temp/part``, so graphs of older files differ only there."""
    def build(suffix):
        return lambda tf: tf.constant("_temp_%s/part" % suffix, name="save/Const_2")
    first, second = _graph_def(tf, build("0" * 32)), _graph_def(tf, build("f" * 32))
    assert _message(tf.test.assert_equal_graph_def, first, second) is not None
    tf.test.assert_equal_graph_def(first, second, checkpoint_v2=True)
    assert [node.name for node in first.node] == ["save/Const_2"] and "value" not in first.node[0].attr


def test_hash_table_shared_name_is_ignored_on_request():
    def build(tf):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1], tf.string, tf.int64), -1,
                                  name="table")
    first, second = _graph_def(tf, build), _graph_def(tf, build)
    tables = [node for node in second.node if node.op == "HashTableV2"]
    tables[0].attr["shared_name"] = tf.AttrValue(s=b"hash_table_0123-abcd")
    assert "shared_name" in _message(tf.test.assert_equal_graph_def, first, second)
    tf.test.assert_equal_graph_def(first, second, hash_table_shared_name=True)


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(CASES))
def test_messages_match_tensorflow(tf_module, case):
    build_actual, build_expected = CASES[case]
    ours = _message(tf.test.assert_equal_graph_def, _graph_def(tf, build_actual), _graph_def(tf, build_expected))
    theirs = _message(tf_module.test.assert_equal_graph_def, _graph_def(tf_module, build_actual),
                      _graph_def(tf_module, build_expected))
    assert ours == theirs
