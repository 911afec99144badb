"""graph.train.moving_averages: EMA graphs op by op, values after updates and checkpoint names against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core import graph as graph_lib
from graph.runtime import session
from graph.train import moving_averages
from saver import Saver
from tests.graph.graph_oracle import describe_ours, describe_tf

V0 = np.array([1.0, 2.0], np.float32)
UPDATES = [np.array([3.0, -1.0], np.float32), np.array([0.5, 0.5], np.float32), np.array([10.0, 0.0], np.float32)]


def _build(tf, ema_class, **ema_args):
    """v, w, a step counter and an EMA over [v, w, t] (t a tensor of v); returns the pieces."""
    v = tf.Variable(V0, name="v")
    w = tf.Variable(3.0, name="w")
    step = tf.Variable(0, name="step", trainable=False)
    t = tf.identity(v * 2.0, name="t")
    with tf.name_scope("outer"):
        ema = ema_class(0.9, num_updates=step if ema_args.pop("counted", False) else None, **ema_args)
        update = ema.apply([v, w, t])
    with tf.control_dependencies([update]):
        bump = tf.assign_add(step, 1)
    new_v = tf.placeholder(tf.float32, [2], name="new_v")
    set_v = tf.assign(v, new_v)
    return v, w, t, ema, update, bump, new_v, set_v


def _run(tf, sess, pieces):
    v, w, t, ema, update, bump, new_v, set_v = pieces
    sess.run(tf.global_variables_initializer())
    history = []
    for value in UPDATES:
        sess.run(set_v, {new_v: value})
        sess.run(bump)
        history.append(sess.run([ema.average(v), ema.average(w), ema.average(t)]))
    return history


@pytest.mark.tf
@pytest.mark.parametrize("options", [{}, {"counted": True}, {"zero_debias": True}, {"counted": True, "zero_debias": True}],
                         ids=["plain", "num_updates", "zero_debias", "both"])
def test_ema_matches_tensorflow(tf1, options):
    with graph_lib.Graph().as_default() as graph:
        ours = _build(ours_tf, moving_averages.ExponentialMovingAverage, **dict(options))
        mine = _run(ours_tf, session.Session(graph=graph), ours)
        ours_rows = describe_ours(graph)
        ours_names = {k: v.name for k, v in ours[3].variables_to_restore().items()}
        ours_collection = [v.name for v in ours_tf.get_collection(ours_tf.GraphKeys.MOVING_AVERAGE_VARIABLES)]
        ours_globals = [v.name for v in ours_tf.global_variables()]
    theirs = _build(tf1, tf1.train.ExponentialMovingAverage, **dict(options))
    with tf1.Session() as sess:
        real = _run(tf1, sess, theirs)
    tf_rows = describe_tf(tf1.get_default_graph())
    for index, (a, b) in enumerate(zip(ours_rows, tf_rows)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(ours_rows) == len(tf_rows)
    for step, (a, b) in enumerate(zip(mine, real)):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-6, err_msg=f"update {step}")
    assert ours_names == {k: v.name for k, v in theirs[3].variables_to_restore().items()}
    assert ours_collection == [v.name for v in tf1.get_collection(tf1.GraphKeys.MOVING_AVERAGE_VARIABLES)]
    assert ours_globals == [v.name for v in tf1.global_variables()]
    assert ours[3].average_name(ours[0]) == theirs[3].average_name(theirs[0]) == "v/ExponentialMovingAverage"


@pytest.mark.tf
def test_assign_moving_average_matches_tensorflow(tf1):
    def build(tf, module):
        var = tf.Variable([0.0, 4.0], name="avg")
        value = tf.constant([2.0, 2.0])
        plain = module.assign_moving_average(var, value, 0.75, zero_debias=False)
        other = tf.Variable([0.0, 0.0], name="debiased")
        debiased = module.assign_moving_average(other, value, 0.5, zero_debias=True, name="db")
        return var, other, plain, debiased
    with graph_lib.Graph().as_default() as graph:
        var, other, plain, debiased = build(ours_tf, moving_averages)
        sess = session.Session(graph=graph)
        sess.run(ours_tf.global_variables_initializer())
        mine = [sess.run([plain, debiased]) for _ in range(3)]
        ours_rows = describe_ours(graph)
    from tensorflow.python.training import moving_averages as tf_moving_averages
    var, other, plain, debiased = build(tf1, tf_moving_averages)
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        real = [sess.run([plain, debiased]) for _ in range(3)]
    tf_rows = describe_tf(tf1.get_default_graph())
    for index, (a, b) in enumerate(zip(ours_rows, tf_rows)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    for a, b in zip(mine, real):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_rejects_integer_variables(g):
    counter = ours_tf.Variable(0, name="counter")
    with pytest.raises(TypeError, match="The variables must be half, float, or double: counter:0"):
        moving_averages.ExponentialMovingAverage(0.9).apply([counter])


def test_average_of_unknown_variable_is_none_and_name_is_predicted(g):
    v = ours_tf.Variable(1.0, name="v")
    ema = moving_averages.ExponentialMovingAverage(0.5)
    assert ema.average(v) is None and ema.average_name(v) == "v/ExponentialMovingAverage"
    ema.apply()
    assert ema.average(v).name == "v/ExponentialMovingAverage:0"
    assert ema.average(v).device == v.device and not ema.average(v).trainable


@pytest.mark.tf
def test_checkpoint_written_with_our_ema_restores_averages_in_tensorflow(tf1, tmp_path):

    prefix = str(tmp_path / "model")
    with graph_lib.Graph().as_default() as graph:
        v = ours_tf.Variable(V0, name="v")
        ema = moving_averages.ExponentialMovingAverage(0.5)
        update = ema.apply([v])
        sess = session.Session(graph=graph)
        sess.run(ours_tf.global_variables_initializer())
        sess.run(ours_tf.assign(v, [5.0, 6.0]))
        sess.run(update)
        expected_average = sess.run(ema.average(v))
        Saver().save(sess, prefix)
    tf_v = tf1.Variable(np.zeros(2, np.float32), name="v")
    tf_ema = tf1.train.ExponentialMovingAverage(0.5)
    restorer = tf1.train.Saver(tf_ema.variables_to_restore())
    with tf1.Session() as sess:
        restorer.restore(sess, prefix)
        np.testing.assert_allclose(sess.run(tf_v), expected_average)
    np.testing.assert_allclose(expected_average, [3.0, 4.0])
