"""Depthwise MaxPool (a window across channels only) and bfloat16 max pooling, against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf

IMAGE = np.random.RandomState(3).randn(2, 3, 4, 6).astype(np.float32)


def _run(tf):
    with tf.Graph().as_default():
        x = tf.constant(IMAGE)
        depthwise = tf.nn.max_pool(x, [1, 1, 1, 3], [1, 1, 1, 3], "SAME")
        half = tf.nn.max_pool(tf.cast(x, tf.bfloat16), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        with tf.Session() as sess:
            return depthwise.shape.as_list(), sess.run([depthwise, tf.cast(half, tf.float32)])


@pytest.mark.tf
def test_values_and_shapes_match_tensorflow(tf_module):
    (ours_shape, ours), (theirs_shape, theirs) = _run(ours_tf), _run(tf_module)
    assert ours_shape == theirs_shape == [2, 3, 4, 2]
    for mine, real in zip(ours, theirs):
        np.testing.assert_array_equal(mine, real)


@pytest.mark.tf
@pytest.mark.parametrize("ksize, strides, padding, message", [
    ([1, 1, 1, 4], [1, 1, 1, 4], "SAME", "evenly divide the input depth"),
    ([1, 1, 1, 4], [1, 1, 1, 4], "VALID", "evenly divide the input depth"),
    ([1, 1, 1, 3], [1, 1, 1, 2], "SAME", "depth window to equal the depth stride"),
    ([1, 2, 1, 3], [1, 1, 1, 3], "SAME", "exactly one of pooling across depth"),
])
def test_shapes_and_run_errors_match_tensorflow(tf_module, ksize, strides, padding, message):
    shapes = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            pooled = tf.nn.max_pool(tf.constant(IMAGE), ksize, strides, padding)
            shapes.append(pooled.shape.as_list())
            with tf.Session() as sess:
                with pytest.raises(tf.errors.UnimplementedError, match=message):
                    sess.run(pooled)
    assert shapes[0] == shapes[1]
