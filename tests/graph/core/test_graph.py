"""Tests for graph/graph.py: names and scopes, collections, control dependencies, lookups,
finalize and seeds, compared with TensorFlow."""

import pytest

from graph.core import random_seed
from graph.base import dtypes
from graph.ops import math_ops
from graph.ops import constant_ops as ops
from graph.ops import state_ops
from graph.core import graph as graph_lib
from tests.graph.graph_oracle import assert_same_graph


def test_uniquification_and_scopes(g):
    assert state_ops.variable_op_v2([], dtypes.float32).op.name == "Variable"
    assert state_ops.variable_op_v2([], dtypes.float32).op.name == "Variable_1"
    with graph_lib.name_scope("scope"):
        assert ops.constant(1, name="x").op.name == "scope/x"
    with graph_lib.name_scope("scope") as scope:
        assert scope == "scope_1/"
        assert ops.constant(1, name="x").op.name == "scope_1/x"
        with graph_lib.name_scope(scope):
            assert ops.constant(1, name="x").op.name == "scope_1/x_1"
    with graph_lib.name_scope(None, "default") as scope:
        assert scope == "default/"
    with graph_lib.name_scope(""):
        assert ops.constant(1, name="top").op.name == "top"
    assert ops.constant(1, name="Top").op.name == "Top_1"  # case-insensitive uniquification, as TF
    with pytest.raises(ValueError):
        with graph_lib.name_scope("bad name!"):
            pass


def test_collections(g):
    graph_lib.add_to_collection("things", 1)
    graph_lib.add_to_collections(["things", "other"], 2)
    assert graph_lib.get_collection("things") == [1, 2]
    ref = graph_lib.get_collection_ref("things")
    ref.append(3)
    assert g.get_collection("things") == [1, 2, 3]
    a = ops.constant(1, name="a")
    with graph_lib.name_scope("s"):
        b = ops.constant(1, name="b")
    g.add_to_collection("tensors", a)
    g.add_to_collection("tensors", b)
    assert g.get_collection("tensors", scope="s") == [b]
    assert sorted(g.get_all_collection_keys()) == ["other", "tensors", "things"]
    g.clear_collection("other")
    assert g.get_collection("other") == []


def test_control_dependencies(g):
    a = ops.constant(1, name="a")
    b = ops.constant(2, name="b")
    with graph_lib.control_dependencies([a]):
        c = ops.constant(3, name="c")
        with graph_lib.control_dependencies([b.op]):
            d = ops.constant(4, name="d")
        with graph_lib.control_dependencies(None):
            e = ops.constant(5, name="e")
        f = math_ops.add(c, 1)  # an input already carries the dependency
    assert c.op.control_inputs == [a.op]
    assert d.op.control_inputs == [a.op, b.op]
    assert e.op.control_inputs == []
    assert f.op.control_inputs == []
    with pytest.raises(TypeError):
        with graph_lib.control_dependencies([1]):
            pass


def test_lookups_and_errors(g):
    c = ops.constant(1, name="c")
    assert g.get_operation_by_name("c") is c.op
    assert g.get_tensor_by_name("c:0") is c
    with pytest.raises(KeyError, match="The name 'nope' refers to an Operation not in the graph."):
        g.get_operation_by_name("nope")
    with pytest.raises(KeyError, match="The operation, 'nope', does not exist in the graph."):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="exists but only has 1 outputs"):
        g.get_tensor_by_name("c:1")
    with pytest.raises(ValueError, match="refers to an Operation, not a Tensor"):
        g.get_tensor_by_name("c")
    with pytest.raises(ValueError, match="appears to refer to a Tensor, not a Operation"):
        g.get_operation_by_name("c:0")


def test_finalize_and_version(g):
    before = g.version
    ops.constant(1)
    assert g.version == before + 1
    g.finalize()
    assert g.finalized
    with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified."):
        ops.constant(2)
    g._unsafe_unfinalize()
    ops.constant(2)


def test_seeds(g):
    assert random_seed.get_seed(None) == (None, None)
    assert random_seed.get_seed(5) == (random_seed.DEFAULT_GRAPH_SEED, 5)
    random_seed.set_random_seed(3)
    assert random_seed.get_seed(None) == (3, 0)
    assert random_seed.get_seed(None) == (3, 1)
    assert random_seed.get_seed(9) == (3, 9)
    random_seed.set_random_seed(0)
    assert random_seed.get_seed(0) == (0, 2**31 - 1)


def test_default_graph_stack():
    outer = graph_lib.get_default_graph()
    inner = graph_lib.Graph()
    with inner.as_default():
        assert graph_lib.get_default_graph() is inner
        with pytest.raises(AssertionError):
            graph_lib.reset_default_graph()
    assert graph_lib.get_default_graph() is outer
    graph_lib.reset_default_graph()
    assert graph_lib.get_default_graph() is not outer


@pytest.mark.tf
def test_names_and_dependencies_match_tensorflow(tf1):
    def build(tf):
        a = tf.constant(1.0)
        tf.constant(1.0)
        b = tf.constant(2.0, name="Const")
        with tf.name_scope("scope"):
            tf.constant(1, name="x")
        with tf.name_scope("scope") as scope:
            tf.constant(1, name="x")
            with tf.name_scope(scope):
                tf.constant(1, name="x")
            with tf.name_scope("inner"):
                tf.identity(a)
        with tf.control_dependencies([a]):
            c = tf.constant(3.0, name="c")
            with tf.control_dependencies([b]):
                tf.add(c, 1.0, name="d")
                tf.constant(0.0, name="e")
            with tf.control_dependencies(None):
                tf.constant(0.0, name="f")
        tf.constant(1.0, name="C")
        tf.constant(1.0, name="c_1")
        tf.constant(1.0, name="c")
    assert_same_graph(tf1, build)


@pytest.mark.tf
def test_lookup_errors_match_tensorflow(tf1):
    tf1.constant(1, name="c")
    ours = graph_lib.Graph()
    with ours.as_default():
        ops.constant(1, name="c")
    cases = [("get_operation_by_name", "nope"), ("get_tensor_by_name", "nope:0"), ("get_tensor_by_name", "c:1"),
             ("get_tensor_by_name", "c"), ("get_operation_by_name", "c:0"), ("get_tensor_by_name", "c:x")]
    for method, argument in cases:
        with pytest.raises(Exception) as theirs:
            getattr(tf1.get_default_graph(), method)(argument)
        with pytest.raises(Exception) as mine:
            getattr(ours, method)(argument)
        assert type(mine.value) is type(theirs.value), (method, argument)
        assert str(mine.value) == str(theirs.value), (method, argument)
