"""Assign takes over its input's buffer when nothing else holds it (TF's forward_input), and only then."""

import tracemalloc

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.core.graph import Graph
from graph.ops import state_ops

SHAPE = [2048, 2048]  # 16 MiB of float32
SIZE = 2048 * 2048 * 4


def _init_peak(make_initial_value) -> float:
    with Graph().as_default():
        v = tf.Variable(make_initial_value(), name="v")
        with tf.Session() as sess:
            tracemalloc.start()
            try:
                sess.run(v.initializer)
                return tracemalloc.get_traced_memory()[1] / SIZE
            finally:
                tracemalloc.stop()


def test_initializer_output_becomes_the_variable(monkeypatch):
    # zeros (computed) + 1: two arrays of the variable's size; a copy into the variable would be a third
    assert _init_peak(lambda: tf.zeros(SHAPE) + 1.0) < 2.1
    monkeypatch.setattr(state_ops, "_RUN_HOLDERS", -10)  # never forward: the copy shows
    assert _init_peak(lambda: tf.zeros(SHAPE) + 1.0) > 2.9


def test_random_initializers_are_forwarded():
    assert _init_peak(lambda: tf.random_uniform(SHAPE, seed=1)) < 1.1  # its reshaped output is taken over
    for make in (lambda: tf.random_uniform(SHAPE, seed=1), lambda: tf.random_normal(SHAPE, seed=1)):
        with Graph().as_default():
            value = make()
            v = tf.Variable(value, name="v")
            with tf.Session() as sess:
                sess.run(v.initializer)
                stored = sess.run(v)
            with tf.Session() as sess:  # a new session draws the same first values
                assert np.array_equal(stored, sess.run(value))


def test_views_of_held_arrays_are_copied():
    with Graph().as_default():
        base = tf.zeros([4, 3]) + 1.0
        v = tf.Variable(tf.reshape(base, [12]), name="v")
        other = base * 2.0  # a second consumer of the reshaped array's base
        with tf.Session() as sess:
            _, doubled = sess.run([v.initializer, other])
            sess.run(tf.assign_add(v, tf.ones([12])))
            assert doubled.tolist() == [[2.0] * 3] * 4 and sess.run(v).tolist() == [2.0] * 12


def _updates(tf_module, sess_factory):
    """Each case where the initial value is also held elsewhere: after assign_add the holder is unchanged."""
    results = {}
    with tf_module.Graph().as_default():
        shared = tf_module.add(tf_module.zeros([3]), 1.0)
        a = tf_module.Variable(shared, name="a")
        b = tf_module.Variable(shared, name="b")  # two consumers of one value
        c = tf_module.Variable([1.0, 2.0, 3.0], name="c")  # a Const, read again by the next initializer run
        fed = tf_module.placeholder(tf_module.float32, [3])
        d = tf_module.Variable(tf_module.zeros([3]), name="d")
        assign_fed = tf_module.assign(d, fed)
        user = np.array([5.0, 6.0, 7.0], np.float32)
        with sess_factory() as sess:
            sess.run(tf_module.global_variables_initializer())
            sess.run(assign_fed, {fed: user})
            sess.run([tf_module.assign_add(a, [10.0, 10.0, 10.0]), tf_module.assign_add(c, [1.0, 1.0, 1.0]),
                      tf_module.assign_add(d, [1.0, 1.0, 1.0])])
            results["b"] = sess.run(b).tolist()
            results["d_and_user"] = (sess.run(d).tolist(), user.tolist())
            sess.run(c.initializer)
            results["c_again"] = sess.run(c).tolist()
            init_value, _ = sess.run([a.initial_value, a.initializer])
            sess.run(tf_module.assign_add(a, [1.0, 1.0, 1.0]))
            results["fetched_initial_value"] = init_value.tolist()
    return results


def test_values_held_elsewhere_are_copied():
    results = _updates(tf, tf.Session)
    assert results == {"b": [1.0, 1.0, 1.0], "d_and_user": ([6.0, 7.0, 8.0], [5.0, 6.0, 7.0]),
                       "c_again": [1.0, 2.0, 3.0], "fetched_initial_value": [1.0, 1.0, 1.0]}


@pytest.mark.tf
def test_aliasing_matches_tensorflow(tf_module):
    assert _updates(tf, tf.Session) == _updates(tf_module, tf_module.Session)
