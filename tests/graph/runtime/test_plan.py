"""graph/runtime/plan.py: a control dependency on a fed Placeholder waits for the feed, as TF's FeedInputs."""

from __future__ import annotations

import numpy as np
import pytest

import graph.compat.v1 as tf_ours


def _build(tf):
    b = tf.placeholder(tf.bool, name="b")
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.control_dependencies([b]):
        plain = x + 1.0
        looped = tf.while_loop(lambda i: i < 3, lambda i: i + tf.cast(x, tf.int32), [tf.constant(0)])
    return [plain, looped]


@pytest.mark.tf
def test_control_dependencies_on_fed_placeholders_run_as_tensorflow(tf1):
    theirs = _build(tf1)
    with tf1.Session() as sess:
        expected = sess.run(theirs, {"x:0": 1.0, "b:0": True})
        with pytest.raises(tf1.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'b'"):
            sess.run(theirs[0], {"x:0": 1.0})
    graph = tf_ours.Graph()
    with graph.as_default():
        ours = _build(tf_ours)
    sess = tf_ours.Session(graph=graph)
    got = sess.run(ours, {"x:0": 1.0, "b:0": True})
    for mine, real in zip(got, expected):
        np.testing.assert_array_equal(mine, real)
    with pytest.raises(tf_ours.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'b'"):
        sess.run(ours[0], {"x:0": 1.0})
