"""Tests for saver/global_step.py: TF1 training_util's global step functions."""

import logging

import numpy as np
import pytest

from graph.base import dtypes
from graph.core import graph as graph_lib
from graph.runtime import session as session_lib
from graph.variables import variables
from graph.core.graph import GraphKeys
from graph.train import global_step as gs


@pytest.fixture
def graph():
    g = graph_lib.Graph()
    with g.as_default():
        yield g


def test_create_get_and_value(graph):
    assert gs.get_global_step() is None
    with graph.name_scope("ignored"):
        step = gs.get_or_create_global_step()
    assert step.name == "global_step:0" and step.op.name == "global_step"
    assert step.dtype.base_dtype == dtypes.int64 and step.get_shape().as_list() == []
    assert step.trainable is False
    assert graph.get_collection(GraphKeys.GLOBAL_STEP) == [step]
    assert graph.get_collection(GraphKeys.GLOBAL_VARIABLES) == [step]
    assert graph.get_collection(GraphKeys.TRAINABLE_VARIABLES) == []
    assert gs.get_global_step() is step and gs.get_or_create_global_step(graph) is step
    with pytest.raises(ValueError, match='^"global_step" already exists.$'):
        gs.create_global_step()
    sess = session_lib.Session(graph=graph)
    sess.run(step.initializer)
    value = gs.global_step(sess, step)
    assert value == 0 and type(value) is int
    assert gs.global_step(sess, "global_step:0") == 0


def test_other_graph_and_variable_scope(graph):
    other = graph_lib.Graph()
    step = gs.create_global_step(other)
    assert step.graph is other and gs.get_global_step() is None and gs.get_global_step(other) is step
    from graph.variables import variable_scope
    with variable_scope.variable_scope("vs"):
        scoped = gs.create_global_step()
    assert scoped.name == "vs/global_step:0"  # get_variable: the variable scope still applies


def test_found_by_name_and_checked(graph):
    tensor = variables.Variable(1.5, name="global_step")
    with pytest.raises(TypeError, match="^Existing \"global_step\" does not have integer type: <dtype: 'float32_ref'>$"):
        gs.get_global_step()
    wrong = variables.Variable(np.array([1, 2], np.int32), name="other")
    graph.add_to_collection(GraphKeys.GLOBAL_STEP, wrong)
    with pytest.raises(TypeError, match=r"^Existing \"global_step\" is not scalar: \(2,\)$"):
        gs.get_global_step()
    del tensor


def test_multiple_in_collection_logs_and_returns_none(graph, caplog):
    step = gs.create_global_step()
    graph.add_to_collection(GraphKeys.GLOBAL_STEP, step)
    with caplog.at_level(logging.ERROR, logger="graph"):
        assert gs.get_global_step() is None
    assert "Multiple tensors in global_step collection." in caplog.text


def test_assert_global_step():
    from graph.ops import constant_ops as ops
    with graph_lib.Graph().as_default():
        with pytest.raises(TypeError, match="^Existing \"global_step\" must be a Variable or Tensor: x.$"):
            gs.assert_global_step("x")
        gs.assert_global_step(ops.placeholder(dtypes.int32))
        gs.assert_global_step(ops.placeholder(dtypes.int32, [None]))  # not fully defined: accepted
        with pytest.raises(TypeError, match=r"is not scalar: \(3,\)"):
            gs.assert_global_step(ops.placeholder(dtypes.int32, [3]))
        constant = ops.constant(3, name="global_step")
        assert gs.get_global_step() is constant


@pytest.mark.tf
def test_same_as_tensorflow(tf1):
    import graph.compat.v1 as ours

    def build(tf):
        with tf.name_scope("ns"):
            step = tf.train.get_or_create_global_step()
        graph = tf.get_default_graph()
        ops = [(op.name, op.type, [t.name for t in op.inputs], op.device, sorted(op.colocation_groups()))
               for op in graph.get_operations()]
        collections = {key: [v.name for v in graph.get_collection(key)]
                       for key in ("variables", "global_step", "trainable_variables")}
        try:
            tf.train.create_global_step()
        except ValueError as error:
            message = str(error)
        return (step.name, step.dtype.name, step.initializer.name, step.initial_value.name, ops, collections,
                message, tf.train.get_global_step() is step)

    theirs = build(tf1)
    with graph_lib.Graph().as_default():
        mine = build(ours)
    assert mine == theirs
