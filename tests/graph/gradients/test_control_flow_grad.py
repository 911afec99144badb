"""Tests for graph/gradients/control_flow_grad.py: tf.gradients through tf.cond (Switch/Merge) against TensorFlow."""

import numpy as np
import pytest

from graph.gradients import registry
from tests.graph.gradients.gradient_checks import OURS, assert_same_gradients, check_numerically, dense

X = np.array([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]])


def _cond_gradients(tf, build, values, pred_value: bool):
    """Fetched tf.gradients(sum(build(tf, pred, *xs) * w), xs) with the predicate fed ``pred_value``."""
    with tf.Graph().as_default():
        pred = tf.placeholder(tf.bool, [], name="pred")
        xs = [tf.placeholder(tf.float32, np.shape(v), name=f"x{i}") for i, v in enumerate(values)]
        out = build(tf, pred, *xs)
        y = tf.reduce_sum(out * tf.constant(np.linspace(0.5, 2.0, int(np.prod(out.shape.as_list()))).reshape(
            out.shape.as_list()), dtype=tf.float32))
        grads = tf.gradients(y, xs)
        feed = {pred: pred_value, **{x: np.asarray(v, np.float32) for x, v in zip(xs, values)}}
        with tf.Session() as sess:
            fetched = sess.run([g for g in grads if g is not None], feed)
        it = iter(fetched)
        return [None if g is None else next(it) for g in grads]


CASES = {
    "both_branches": (lambda tf, p, x: tf.cond(p, lambda: tf.square(x), lambda: x * 3.0), [X]),
    "one_branch_uses_x": (lambda tf, p, x, z: tf.cond(p, lambda: x * z, lambda: tf.exp(z)), [X, X / 2]),
    "branch_returns_outside_tensor": (lambda tf, p, x: tf.cond(p, lambda: x, lambda: tf.sin(x)), [X]),
    "constant_branch": (lambda tf, p, x: tf.cond(p, lambda: tf.constant(np.ones((2, 3)), tf.float32),
                                                 lambda: tf.tanh(x)), [X]),
    "nested": (lambda tf, p, x: tf.cond(p, lambda: tf.cond(tf.logical_not(p), lambda: x * 5.0, lambda: x * x),
                                        lambda: tf.cond(p, lambda: x, lambda: -x)), [X]),
    "tuple_outputs": (lambda tf, p, x: tf.add_n(list(tf.cond(p, lambda: (x * 2.0, tf.square(x)),
                                                             lambda: (x + 1.0, x * x * x)))), [X]),
    "gather_inside": (lambda tf, p, x: tf.cond(p, lambda: tf.gather(x, [1, 1, 0]),
                                               lambda: tf.gather(x, [0, 1, 0]) * 2.0), [X]),
    "after_cond": (lambda tf, p, x: tf.nn.relu(tf.cond(p, lambda: x - 1.0, lambda: x + 1.0)) * x, [X]),
}


@pytest.mark.tf
@pytest.mark.parametrize("pred_value", [True, False])
@pytest.mark.parametrize("name", sorted(CASES))
def test_cond_gradient_matches_tensorflow(tf1, name, pred_value):
    build, values = CASES[name]
    ours = _cond_gradients(OURS, build, values, pred_value)
    theirs = _cond_gradients(tf1, build, values, pred_value)
    assert_same_gradients(ours, theirs)


@pytest.mark.parametrize("pred_value", [True, False])
def test_cond_gradient_matches_central_differences(pred_value):
    def build(tf, x):
        return tf.cond(tf.constant(pred_value), lambda: tf.sin(x) * x, lambda: tf.square(x) - x)
    check_numerically(build, [X])


def test_untaken_branch_contributes_zeros():
    # x only feeds the true branch: with pred false its gradient is zeros (a Tensor), not None.
    for pred_value, expected in ((True, 2 * X), (False, np.zeros_like(X))):
        (grad,) = _cond_gradients(OURS, lambda tf, p, x: tf.cond(p, lambda: tf.square(x), lambda: tf.zeros_like(x)),
                                  [X], pred_value)
        np.testing.assert_allclose(dense(grad) / np.linspace(0.5, 2.0, 6).reshape(2, 3), expected, rtol=1e-6)


@pytest.mark.tf
def test_cond_gradient_of_a_variable_matches_tensorflow(tf1):
    results = []
    for tf in (OURS, tf1):
        with tf.Graph().as_default():
            v = tf.Variable(X.astype(np.float32), name="v")
            pred = tf.placeholder(tf.bool, [])
            y = tf.reduce_sum(tf.cond(pred, lambda: v * v, lambda: tf.gather(v, [1]) * 4.0))
            (grad,) = tf.gradients(y, [v])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results.append([dense(sess.run(grad, {pred: p})) for p in (True, False)])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


@pytest.mark.tf
def test_merge_outside_cond_routes_to_the_live_input(tf1):
    from graph.ops import control_flow_ops
    from tensorflow.python.ops import control_flow_ops as tf_control_flow_ops
    results = []
    for tf, module in ((OURS, control_flow_ops), (tf1, tf_control_flow_ops)):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [2, 3])
            pred = tf.placeholder(tf.bool, [])
            false_side, true_side = module.switch(x, pred)
            merged = module.merge([false_side * 2.0, tf.square(true_side)])[0]
            (grad,) = tf.gradients(tf.reduce_sum(merged), [x])
            with tf.Session() as sess:
                results.append([sess.run(grad, {x: X, pred: p}) for p in (True, False)])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_switch_and_merge_are_registered_as_tensorflow_registers_them():
    for op_type in ("Switch", "RefSwitch", "Merge", "RefMerge"):
        assert registry.lookup(op_type) is not None
