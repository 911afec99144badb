"""TensorArray gradients (TensorArrayGradV3 gradient arrays): values vs TF and central differences, graphs op by op."""

from __future__ import annotations

import numpy as np
import pytest

import graph.compat.v1 as tf_ours
from graph import errors
from graph.gradients.tensor_array_grad import gradient_source
from tests.graph.gradients import gradient_checks
from tests.graph.ops.test_control_flow_while import assert_same_graph_v1


# ----------------------------------------------------------------- cases: build(tf, *xs) -> tensor
def _unstack_read(tf, x):
    ta = tf.TensorArray(x.dtype, size=3).unstack(x)
    return ta.read(0) * 2.0 + ta.read(2) * ta.read(1)


def _write_stack(tf, x, y):
    ta = tf.TensorArray(x.dtype, size=2).write(0, x * y).write(1, tf.sin(x))
    return ta.stack()


def _scatter_gather(tf, x):
    ta = tf.TensorArray(x.dtype, size=4).scatter([3, 0, 1, 2], x)
    return tf.reshape(ta.gather([1, 3]), [2, 2]) * 3.0


def _split_concat(tf, x):
    ta = tf.TensorArray(x.dtype, size=3, infer_shape=False).split(x, [1, 3, 2])
    return tf.reshape(ta.concat(), [6]) * tf.range(1, 7, dtype=x.dtype)


def _read_twice(tf, x):
    # two reads of one element: the gradient writes to the same index add up
    ta = tf.TensorArray(x.dtype, size=2, clear_after_read=False).unstack(x)
    return ta.read(1) * ta.read(1) + ta.read(0)


def _unwritten_gradient(tf, x):
    # element 1 is never read: its gradient reads as zeros of its shape
    ta = tf.TensorArray(x.dtype, size=3).unstack(x)
    return ta.read(0) + ta.read(2)


def _rnn_loop(tf, x, w):
    """dynamic_rnn's shape: unstack the inputs, read per step, write the outputs, stack them."""
    steps = x.shape.as_list()[0]
    inputs = tf.TensorArray(x.dtype, size=steps).unstack(x)
    outputs = tf.TensorArray(x.dtype, size=steps)

    def body(t, h, out):
        h = tf.tanh(tf.matmul(inputs.read(t), w) + h)
        return t + 1, h, out.write(t, h)
    _, h, outputs = tf.while_loop(lambda t, h, out: t < steps, body,
                                  [tf.constant(0), tf.zeros_like(x[0]), outputs])
    return outputs.stack() * 1.5 + h


def _dynamic_size_loop(tf, x):
    ta = tf.TensorArray(x.dtype, size=0, dynamic_size=True)

    def body(t, out):
        return t + 1, out.write(t, x * tf.cast(t + 1, x.dtype))
    _, ta = tf.while_loop(lambda t, out: t < 3, body, [tf.constant(0), ta])
    return tf.reshape(ta.stack(), [3, 2])


CASES = [
    ("unstack_read", _unstack_read, [(3, 2)]),
    ("write_stack", _write_stack, [(2,), (2,)]),
    ("scatter_gather", _scatter_gather, [(4, 2)]),
    ("split_concat", _split_concat, [(6,)]),
    ("read_twice", _read_twice, [(2, 3)]),
    ("unwritten_gradient", _unwritten_gradient, [(3, 2)]),
    ("rnn_loop", _rnn_loop, [(4, 2, 3), (3, 3)]),
    ("dynamic_size_loop", _dynamic_size_loop, [(2,)]),
]


def _values(shapes, seed: int = 5):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-0.8, 0.8, shape) for shape in shapes]


@pytest.mark.tf
@pytest.mark.parametrize("name,build,shapes", CASES, ids=[case[0] for case in CASES])
def test_gradient_values_match_tensorflow(tf1, name, build, shapes):
    gradient_checks.compare_with_tensorflow(tf1, build, _values(shapes), rtol=1e-4)


@pytest.mark.parametrize("name,build,shapes", CASES, ids=[case[0] for case in CASES])
def test_gradient_values_match_central_differences(name, build, shapes):
    gradient_checks.check_numerically(build, _values(shapes), rtol=1e-5, atol=1e-6)


@pytest.mark.tf
@pytest.mark.parametrize("name,build,shapes", CASES, ids=[case[0] for case in CASES])
def test_gradient_graph_matches_tensorflow(tf1, name, build, shapes):
    def gradient_graph(tf):
        xs = [tf.placeholder(tf.float32, shape, name=f"x{i}") for i, shape in enumerate(shapes)]
        return tf.gradients(tf.reduce_sum(build(tf, *xs)), xs)
    assert_same_graph_v1(tf1, gradient_graph)


# ----------------------------------------------------------------- gradient arrays per tf.gradients call
def test_each_gradients_call_gets_its_own_gradient_array():
    with tf_ours.Graph().as_default():
        x = tf_ours.placeholder(tf_ours.float32, [2, 2], name="x")
        ta = tf_ours.TensorArray(tf_ours.float32, size=2, clear_after_read=False).unstack(x)
        y = tf_ours.reduce_sum(ta.read(0) * ta.read(1))
        first = tf_ours.gradients(y, x)[0]
        second = tf_ours.gradients(y, x)[0]  # a shared array would count every read twice
        sources = sorted({op.get_attr("source") for op in tf_ours.get_default_graph().get_operations()
                          if op.type == "TensorArrayGradV3"})
        assert sources == [b"gradients", b"gradients_1"]
        value = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
        with tf_ours.Session() as sess:
            mine, again = sess.run([first, second], {x: value})
        np.testing.assert_array_equal(mine, value[::-1])
        np.testing.assert_array_equal(again, value[::-1])


def test_gradient_source_names_the_gradients_scope():
    with tf_ours.Graph().as_default():
        with tf_ours.name_scope("outer/gradients_2/while/gradients_not/"):
            inner = tf_ours.constant(1.0, name="x")
        assert gradient_source(inner) == "outer/gradients_2/while/gradients_not"
        with pytest.raises(ValueError, match="Expected op/tensor name to start with gradients"):
            gradient_source(tf_ours.constant(0.0, name="plain"))


def test_gradient_array_of_an_element_with_unknown_shape_is_an_error_when_read():
    with tf_ours.Graph().as_default():
        x = tf_ours.placeholder(tf_ours.float32, None, name="x")
        ta = tf_ours.TensorArray(tf_ours.float32, size=2, infer_shape=False)
        grad = ta.grad("gradients").read(1)
        with tf_ours.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                                       match="the element shape is not fully defined"):
            sess.run(grad, {x: 1.0})
