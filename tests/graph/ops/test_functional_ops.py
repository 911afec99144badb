"""tf.map_fn, tf.scan, tf.foldl, tf.foldr: TF1's graphs op by op, values, errors and gradients vs TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import graph.compat.v1 as tf_ours
from tests.graph.gradients import gradient_checks
from tests.graph.ops.test_control_flow_while import assert_same_graph_v1

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 7.0 - 0.5


def _map(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    return tf.map_fn(lambda row: row * 2.0 + 1.0, x)


def _map_nested(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    labels = tf.constant([1, 2, 3, 4])
    return tf.map_fn(lambda t: {"sum": tf.reduce_sum(t[0]), "label": tf.cast(t[1], tf.float32) * t[0]},
                     (x, labels), dtype={"sum": tf.float32, "label": tf.float32}, parallel_iterations=3,
                     name="named")


def _map_no_infer(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    return tf.map_fn(lambda row: tf.cast(row > 0.0, tf.int32), x, dtype=tf.int32, infer_shape=False,
                     back_prop=False, swap_memory=True)


def _scan(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    return tf.scan(lambda a, e: a * 0.5 + e, x)


def _scan_reverse_nested(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    return tf.scan(lambda a, e: (a[0] + e, a[1] * tf.reduce_sum(e)), x,
                   initializer=(tf.zeros([3]), tf.constant(1.0)), reverse=True)


def _scan_elems_tuple(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    return tf.scan(lambda a, e: (a[0] + e[1], a[1] - e[0]), (x, x * 2.0), reverse=True, infer_shape=False)


def _foldl(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    return tf.foldl(lambda a, e: a * e + 1.0, x), tf.foldl(lambda a, e: a + tf.reduce_sum(e), x,
                                                           initializer=tf.constant(10.0), name="total")


def _foldr(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    return tf.foldr(lambda a, e: a - e, x), tf.foldr(lambda a, e: (a[0] + e[0], a[1] * 2.0), (x, x),
                                                     initializer=(tf.zeros([3]), tf.constant(1.0)))


def _map_of_map(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    return tf.map_fn(lambda row: tf.map_fn(lambda v: v * v, row), x)


BUILDS = {f.__name__[1:]: f for f in (_map, _map_nested, _map_no_infer, _scan, _scan_reverse_nested,
                                       _scan_elems_tuple, _foldl, _foldr, _map_of_map)}


def _flat(value):
    if isinstance(value, dict):
        return [item for key in sorted(value) for item in _flat(value[key])]
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flat(part)]
    return [value]


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(BUILDS))
def test_graph_and_values_match_tensorflow(tf1, case):
    (ours, mine), (theirs, real) = assert_same_graph_v1(tf1, BUILDS[case])
    for a, b in zip(_flat(mine), _flat(real)):
        assert a.shape.as_list() == b.shape.as_list() if b.shape.ndims is not None else a.shape.ndims is None
    with tf1.Session() as sess:
        expected = sess.run(real, {theirs.get_tensor_by_name("x:0"): X})
    got = tf_ours.Session(graph=ours).run(mine, {ours.get_tensor_by_name("x:0"): X})
    assert type(got) is type(expected)
    for a, b in zip(_flat(got), _flat(expected)):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(a, b, rtol=1e-6)


def _grad_map(tf, x):
    return tf.map_fn(lambda row: tf.tanh(row) * row, x)


def _grad_scan(tf, x):
    return tf.scan(lambda a, e: a * e + tf.sin(e), x, reverse=True)


def _grad_scan_initializer(tf, x, y):
    return tf.scan(lambda a, e: a * 0.5 + e * y, x, initializer=tf.ones_like(y))


def _grad_foldl(tf, x):
    return tf.reshape(tf.foldl(lambda a, e: a * e + 0.5, x), [3])


def _grad_foldr(tf, x, y):
    return tf.reshape(tf.foldr(lambda a, e: a * tf.exp(e * 0.1) + y, x, initializer=tf.zeros_like(y)), [3])


def _grad_map_of_map(tf, x):
    return tf.map_fn(lambda row: tf.map_fn(lambda v: v * v * v, row), x)


@pytest.mark.tf
@pytest.mark.parametrize("build, values", [
    (_grad_map, [X]), (_grad_scan, [X]), (_grad_scan_initializer, [X, X[0] + 1.0]), (_grad_foldl, [X]),
    (_grad_foldr, [X, X[1]]), (_grad_map_of_map, [X]),
], ids=lambda value: getattr(value, "__name__", ""))
def test_gradients_match_tensorflow_and_central_differences(tf1, build, values):
    gradient_checks.compare_with_tensorflow(tf1, build, values)
    gradient_checks.check_numerically(build, values)


def _train(tf):
    """Five gradient-descent steps on a loss computed through map_fn and scan; the variables after each step."""
    tf.set_random_seed(1)
    w = tf.Variable(np.linspace(-1.0, 1.0, 9, dtype=np.float32).reshape(3, 3), name="w")
    b = tf.get_variable("b", [3], initializer=tf.constant_initializer(0.1))
    x = tf.constant(X)
    hidden = tf.map_fn(lambda row: tf.tanh(tf.matmul(row[None], w)[0] + b), x)
    state = tf.scan(lambda a, e: 0.5 * a + e, hidden)
    loss = tf.reduce_sum(tf.square(state - 1.0))
    step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    values = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            values.append(sess.run([loss, step, w, b])[::2] + [sess.run(b)])
    return values


@pytest.mark.tf
def test_an_optimizer_trains_through_map_fn_and_scan_as_tensorflow(tf1):
    with tf_ours.Graph().as_default():
        ours = _train(tf_ours)
    theirs = _train(tf1)
    for mine, real in zip(ours, theirs):
        for a, b in zip(mine, real):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)
    assert ours[-1][0] < ours[0][0]


@pytest.mark.tf
@pytest.mark.parametrize("build", [
    lambda tf: tf.map_fn(lambda v: v, tf.constant(1.0)),
    lambda tf: tf.map_fn(lambda v: v, []),
    lambda tf: tf.map_fn(lambda v: (v, v), tf.constant([1.0, 2.0])),
    lambda tf: tf.map_fn(lambda t: [t[0], t[1]], (tf.constant([1.0]), tf.constant([2.0]))),
    lambda tf: tf.map_fn(lambda t: t, (tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))),
    lambda tf: tf.scan(lambda a, e: (a, e), tf.constant([1.0, 2.0])),
    lambda tf: tf.map_fn(5, tf.constant([1.0])),
    lambda tf: tf.foldl(5, tf.constant([1.0])),
    lambda tf: tf.scan(type("NotCallable", (), {"__name__": "table"})(), tf.constant([1.0])),
], ids=["scalar", "empty", "structure", "sequence-type", "first-dimensions", "scan-structure", "map-callable",
        "fold-callable",
        "scan-callable"])
def test_errors_match_tensorflow(tf1, build):
    with pytest.raises(Exception) as theirs:
        build(tf1)
    with tf_ours.Graph().as_default(), pytest.raises(type(theirs.value)) as ours:
        build(tf_ours)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
