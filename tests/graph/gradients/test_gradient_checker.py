"""tf.test.compute_gradient / compute_gradient_error against TensorFlow's gradient checker."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf

X0 = np.random.RandomState(0).rand(2, 3)


def _jacobians(tf):
    with tf.Graph().as_default(), tf.Session():
        x = tf.constant(X0)
        y = tf.nn.softmax(x * x)
        dense = tf.test.compute_gradient(x, [2, 3], y, [2, 3], x_init_value=X0)
        params = tf.Variable(np.arange(12.0).reshape(4, 3))
        sparse = tf.test.compute_gradient(params, [4, 3], tf.gather(params, [0, 2, 2]), [3, 3],
                                          x_init_value=np.arange(12.0).reshape(4, 3))
        listed = tf.test.compute_gradient([x], [[2, 3]], tf.reduce_sum(y, 1), [2], x_init_value=[X0])
        error = tf.test.compute_gradient_error(x, [2, 3], tf.abs(x - 0.5), [2, 3], x_init_value=X0, delta=0.1)
        empty = tf.test.compute_gradient_error(x, [2, 3], tf.zeros([0], tf.float64) * tf.reduce_sum(x), [0], x_init_value=X0)
        return [*dense, *sparse, *listed[0], error, empty]


@pytest.mark.tf
def test_jacobians_match_tensorflow(tf_module):
    ours, theirs = _jacobians(ours_tf), _jacobians(tf_module)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs):
        assert np.shape(mine) == np.shape(real)
        np.testing.assert_allclose(mine, real, rtol=1e-9, atol=1e-12)


def test_float32_error_is_small_for_a_correct_gradient():
    with ours_tf.Graph().as_default(), ours_tf.Session():
        x = ours_tf.constant(X0.astype(np.float32))
        y = ours_tf.tanh(ours_tf.matmul(x, x, transpose_b=True))
        assert ours_tf.test.compute_gradient_error(x, [2, 3], y, [2, 2], x_init_value=X0.astype(np.float32)) < 1e-3


def test_needs_a_default_session():
    with ours_tf.Graph().as_default():
        x = ours_tf.constant(X0)
        with pytest.raises(ValueError, match="default session"):
            ours_tf.test.compute_gradient(x, [2, 3], x * 2.0, [2, 3])


def test_refuses_integer_tensors():
    with ours_tf.Graph().as_default(), ours_tf.Session():
        x = ours_tf.constant([1, 2])
        with pytest.raises(TypeError, match="int32"):
            ours_tf.test.compute_gradient(ours_tf.cast(x, ours_tf.float32), [2], x, [2])
