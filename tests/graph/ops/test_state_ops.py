"""Tests for graph/state_ops.py: Assign-family naming and colocation as TF builds them, CountUpTo, and errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph import errors


def _build(tf):
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([1.0, 2.0], name="w")
    tf.assign(w, [3.0, 4.0])
    tf.assign(w, [3.0, 4.0], name="myassign")
    tf.assign_add(w, [1.0, 1.0])
    w.assign_sub([1.0, 1.0])
    tf.is_variable_initialized(w)
    c = tf.Variable(0, name="c")
    tf.count_up_to(c, 3)
    c.count_up_to(3)


def _ops(graph, class_of):
    return [(op.name, op.type, op.device, class_of(op), [t.name for t in op.inputs]) for op in graph.get_operations()]


def _our_class(op):
    return list(op.get_attr("_class")) if "_class" in op.attrs else []


@pytest.mark.tf
def test_names_devices_and_colocation_match_tensorflow(tf1):
    _build(tf1)
    expected = _ops(tf1.get_default_graph(),
                    lambda op: list(op.node_def.attr["_class"].list.s) if "_class" in op.node_def.attr else [])
    with ours.Graph().as_default() as graph:
        _build(ours)
        assert _ops(graph, _our_class) == expected


def test_assign_value_is_named_under_the_op():
    with ours.Graph().as_default():
        v = ours.Variable(1.0, name="v")
        first, second = ours.assign(v, 2.0), ours.assign(v, 3.0)
        assert [t.op.name for t in first.op.inputs] == ["v", "Assign/value"]
        assert second.op.inputs[1].op.name == "Assign_1/value"


def test_count_up_to_counts_then_stops():
    with ours.Graph().as_default():
        c = ours.Variable(0, name="c")
        step = c.count_up_to(2)
        assert (step.dtype, step.shape.as_list()) == (ours.int32, [])
        with ours.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError) as info:
                sess.run(step)
            assert info.value.op is step.op  # the op that read the variable, as TF's [[{{node CountUpTo}}]]
            sess.run(c.initializer)
            assert [sess.run(step), sess.run(step)] == [0, 1]
            with pytest.raises(errors.OutOfRangeError, match="Reached limit of 2") as info:
                sess.run(step)
            assert info.value.op is step.op and sess.run(c) == 2
        with pytest.raises(TypeError, match="int32, int64"):
            ours.count_up_to(ours.Variable(0.0), 2)


def test_uninitialized_error_names_the_reading_op():
    with ours.Graph().as_default():
        w = ours.Variable(np.zeros(2, np.float32), name="w")
        doubled = w * 2.0
        with ours.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError) as info:
                sess.run(doubled)
    error = info.value
    assert error.op.name == "w/read"
    assert error.message.startswith("Attempting to use uninitialized value w\n")
    assert "global_variables_initializer" in error.message  # the helpful sentence stays
    assert str(error).endswith("[[node w/read]]")


def _read_after_update(tf):
    """TF1's idiom for reading a variable after an update: the read aliases the variable's buffer."""
    with tf.Graph().as_default():
        v = tf.Variable(10.0)
        w = tf.Variable([1, 2], dtype=tf.int32)
        with tf.control_dependencies([v.assign_add(1.0)]):
            v_after = tf.identity(v)
        with tf.control_dependencies([w.assign_sub([1, 1])]):
            w_after = tf.identity(w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run(v_after), sess.run(v_after), sess.run(w_after).tolist(), sess.run(v)]


@pytest.mark.tf
def test_assign_add_and_sub_update_in_place_as_tensorflow(tf_module):
    # AssignAdd/AssignSub update the variable's buffer in place, so a read taken earlier in the run sees them.
    assert _read_after_update(ours) == _read_after_update(tf_module) == [11.0, 12.0, [0, 1], 12.0]


@pytest.mark.tf
@pytest.mark.parametrize("function", ["assign", "assign_add", "assign_sub"])
@pytest.mark.parametrize("case", ["tensor", "variable", "string tensor", "python floats", "None"])
def test_value_of_another_dtype_is_tensorflows_error(tf_module, function, case):
    """op_def_library's errors: a tensor or variable of another dtype is a TypeError naming both types, a Python
    value that does not convert names the parameter, None says the conversion failed."""
    results = []
    for tf in (tf_module, ours):
        with tf.Graph().as_default():
            v = tf.Variable([1, 2], dtype=tf.int32, name="v")
            f = tf.Variable([1.0, 2.0], name="f")
            value = {"tensor": lambda: tf.constant([1.0, 2.0]), "variable": lambda: f,
                     "string tensor": lambda: tf.constant(["a", "b"]), "python floats": lambda: [1.5, 2.0],
                     "None": lambda: None}[case]()
            with pytest.raises((TypeError, ValueError)) as raised:
                getattr(tf, function)(v, value)
            results.append((type(raised.value).__name__, str(raised.value)))
    assert results[1] == results[0]
