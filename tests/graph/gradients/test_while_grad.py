"""Gradients through tf.while_loop (TF1 frames): values vs TF and central differences, gradient graphs op by op."""

from __future__ import annotations

import numpy as np
import pytest

import graph.compat.v1 as tf_ours
from tests.graph.gradients import gradient_checks
from tests.graph.ops.test_control_flow_while import assert_same_graph_v1


# ----------------------------------------------------------------- cases: build(tf, *xs) -> tensor
def _power(tf, x):
    return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [tf.constant(0), tf.ones_like(x)])[1]


def _invariant_used_twice(tf, x, y):
    def body(i, v):
        return i + 1, tf.sin(v) * x + tf.matmul(v, y)
    return tf.while_loop(lambda i, v: i < 4, body, [tf.constant(0), x])[1]


def _nested(tf, x):
    def outer(i, v):
        def inner(j, u):
            return j + 1, u * x + tf.cast(j, x.dtype)
        _, u = tf.while_loop(lambda j, u: j < i, inner, [tf.constant(0), v])
        return i + 1, tf.tanh(u)
    return tf.while_loop(lambda i, v: i < 3, outer, [tf.constant(0), x])[1]


def _maximum_iterations(tf, x):
    return tf.while_loop(lambda v: tf.reduce_sum(v) < 1e9, lambda v: v * 1.5 + x, [x], maximum_iterations=5)


def _cond_in_body(tf, x):
    def body(i, v):
        return i + 1, tf.cond(i < 2, lambda: v * x, lambda: tf.sin(v) + x)
    return tf.while_loop(lambda i, v: i < 4, body, [tf.constant(0), x])[1]


def _unused_exit(tf, x):
    # b's Exit is unused, but b feeds a: its gradient enters the loop as zeros (TF's deferred exits)
    r = tf.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a * b, b + x), [tf.constant(0), x, x * 2.0])
    return r[1]


def _not_self_dependent(tf, x):
    # v's next value ignores v: PostProcessing feeds zeros back into its gradient loop
    return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, x * 2.0), [tf.constant(0), x])[1]


def _unknown_shape(tf, x):
    def body(i, v):
        return i + 1, tf.concat([v, v * x[:1]], 0)
    result = tf.while_loop(lambda i, v: i < 2, body, [tf.constant(0), x],
                           shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])[1]
    return tf.reduce_sum(result, 0)


def _cond_unknown_shape(tf, x):
    def body(i, v):
        return i + 1, tf.cond(i < 1, lambda: tf.concat([v, v * x[:1]], 0)[:tf.shape(v)[0]], lambda: v * 2.0)
    result = tf.while_loop(lambda i, v: i < 3, body, [tf.constant(0), x],
                           shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])[1]
    return tf.reshape(result[:1], [1, 3])


def _gather_of_invariant(tf, x):
    # the invariant's gradient is IndexedSlices: TF's IndexedSlices accumulator loop
    def body(i, v):
        return i + 1, v + tf.gather(x, tf.stack([i, i]) % 3)
    return tf.while_loop(lambda i, v: i < 4, body, [tf.constant(0), tf.zeros([2, 2], x.dtype)])[1]


def _sequential(tf, x):
    return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * x), [tf.constant(0), x],
                         parallel_iterations=1)[1]


def _zero_iterations(tf, x):
    return tf.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v * x), [tf.constant(0), x])[1] + x


CASES = [
    ("power", _power, [(2, 3)]),
    ("invariant_used_twice", _invariant_used_twice, [(3, 3), (3, 3)]),
    ("nested", _nested, [(2,)]),
    ("maximum_iterations", _maximum_iterations, [(2,)]),
    ("cond_in_body", _cond_in_body, [(2,)]),
    ("unused_exit", _unused_exit, [(2,)]),
    ("not_self_dependent", _not_self_dependent, [(2,)]),
    ("unknown_shape", _unknown_shape, [(1, 3)]),
    ("cond_unknown_shape", _cond_unknown_shape, [(1, 3)]),
    ("gather_of_invariant", _gather_of_invariant, [(3, 2)]),
    ("sequential", _sequential, [(2,)]),
    ("zero_iterations", _zero_iterations, [(2,)]),
]


def _values(shapes, seed: int = 1):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-0.5, 0.5, shape) for shape in shapes]


@pytest.mark.tf
@pytest.mark.parametrize("name,build,shapes", CASES, ids=[case[0] for case in CASES])
def test_gradient_values_match_tensorflow(tf1, name, build, shapes):
    gradient_checks.compare_with_tensorflow(tf1, build, _values(shapes), rtol=1e-4)


@pytest.mark.parametrize("name,build,shapes", CASES, ids=[case[0] for case in CASES])
def test_gradient_values_match_central_differences(name, build, shapes):
    gradient_checks.check_numerically(build, _values(shapes), rtol=1e-5, atol=1e-6)


# The gradient graph, op by op (names, inputs, control inputs, attrs, shapes).  Left out: unknown_shape
# and cond_unknown_shape, whose concat/strided-slice gradients name shape ops differently (array_grad).
GRAPH_CASES = [case for case in CASES if "unknown" not in case[0]]


@pytest.mark.tf
@pytest.mark.parametrize("name,build,shapes", GRAPH_CASES, ids=[case[0] for case in GRAPH_CASES])
def test_gradient_graph_matches_tensorflow(tf1, name, build, shapes):
    def gradient_graph(tf):
        xs = [tf.placeholder(tf.float32, shape, name=f"x{i}") for i, shape in enumerate(shapes)]
        return tf.gradients(tf.reduce_sum(build(tf, *xs)), xs)
    assert_same_graph_v1(tf1, gradient_graph)


# ----------------------------------------------------------------- back_prop, second order, training
def _loop_without_backprop(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    result = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [tf.constant(0), x], back_prop=False)
    return tf.gradients(tf.reduce_sum(result[1]), x)


@pytest.mark.tf
def test_back_prop_false_gives_no_gradient_as_tensorflow(tf1):
    (ours, ours_grads), (theirs, theirs_grads) = assert_same_graph_v1(tf1, _loop_without_backprop)
    assert ours_grads == theirs_grads == [None]


@pytest.mark.tf
def test_gradient_of_a_gradient_loop_raises_typeerror_as_tensorflow(tf1):
    def second_order(tf):
        x = tf.placeholder(tf.float32, [2], name="x")
        result = _power(tf, x)
        first = tf.gradients(tf.reduce_sum(result), x)[0]
        return tf.gradients(tf.reduce_sum(first), x)
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported."):
        second_order(tf1)
    with tf_ours.Graph().as_default():
        with pytest.raises(TypeError, match="Second-order gradient for while loops not supported."):
            second_order(tf_ours)


def _train(tf, steps: int = 3):
    """Variables read inside a loop, the loss from its result, GradientDescentOptimizer.minimize."""
    rng = np.random.RandomState(3)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        w = tf.Variable(rng.uniform(-0.5, 0.5, (3, 3)).astype(np.float32), name="w")
        b = tf.Variable(np.zeros(3, np.float32), name="b")
        inputs = tf.constant(rng.uniform(-1, 1, (4, 2, 3)).astype(np.float32))

        def body(t, h):
            return t + 1, tf.tanh(tf.matmul(inputs[t], w) + h + b)
        _, h = tf.while_loop(lambda t, h: t < 4, body, [tf.constant(0), tf.zeros([2, 3])])
        loss = tf.reduce_mean(tf.square(h - 0.25))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([train, loss])[1] for _ in range(steps)]
            return losses, sess.run([w, b])


@pytest.mark.tf
def test_optimizer_minimizes_a_loss_computed_by_a_loop_as_tensorflow(tf1):
    ours_losses, ours_vars = _train(tf_ours)
    theirs_losses, theirs_vars = _train(tf1)
    np.testing.assert_allclose(ours_losses, theirs_losses, rtol=1e-5)
    for mine, reference in zip(ours_vars, theirs_vars):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)
    assert ours_losses[-1] < ours_losses[0]


def test_two_gradient_calls_on_one_loop_get_their_own_gradient_loops():
    with tf_ours.Graph().as_default():
        x = tf_ours.placeholder(tf_ours.float32, [], name="x")
        result = _power(tf_ours, x)
        first = tf_ours.gradients(result, x)[0]
        second = tf_ours.gradients(result * 2.0, x)[0]
        names = {op.name for op in tf_ours.get_default_graph().get_operations()}
        assert {"gradients/b_count", "gradients_1/b_count"} <= names
        with tf_ours.Session() as sess:
            assert sess.run([first, second], {x: 2.0}) == [12.0, 24.0]


@pytest.mark.tf
def test_gradient_inside_a_body_through_a_loop_variables_initial_value_is_tfs_valueerror(tf1):
    def gradient_in_body(tf):
        x = tf.placeholder(tf.float32, shape=(), name="x")
        y = x + 1

        def body(i, v):
            return i + 1, tf.gradients(v * 2, x)[0]
        tf.while_loop(lambda i, v: i < 3, body, [0, y])
    message = r"Cannot compute gradient inside while loop with respect to op 'x'\. We do not support"
    with pytest.raises(ValueError, match=message):
        gradient_in_body(tf1)
    with tf_ours.Graph().as_default(), pytest.raises(ValueError, match=message):
        gradient_in_body(tf_ours)


@pytest.mark.tf
def test_hessians_loop_over_the_gradient_as_tensorflow(tf1):
    # tf.hessians is a while_loop writing one second derivative per element to a TensorArray: the
    # same graph op by op, for an x whose size is known only when it runs, and the same values.
    def hessian_graph(tf):
        x = tf.placeholder(tf.float64, [None], name="x")
        return x, tf.hessians(tf.reduce_sum(x * x * x) + x[0] * x[1], x)[0]
    (ours, (x_ours, h_ours)), (theirs, (x_tf, h_tf)) = assert_same_graph_v1(tf1, hessian_graph)
    with tf1.Session(graph=theirs) as sess:
        expected = sess.run(h_tf, {x_tf: [1.0, 2.0, 3.0]})
    with tf_ours.Session(graph=ours) as sess:
        np.testing.assert_allclose(sess.run(h_ours, {x_ours: [1.0, 2.0, 3.0]}), expected)
