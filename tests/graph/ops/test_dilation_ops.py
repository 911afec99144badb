"""graph/ops/dilation_ops.py: Dilation2D, its backprops, tf.nn.dilation2d and tf.nn.erosion2d against TensorFlow
(values, gradients, graphs, errors)."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_fails_as_tensorflow, assert_same_graph_v1

RNG = np.random.RandomState(9)
IMAGE = RNG.rand(2, 7, 6, 3).astype(np.float32)
FILTER = RNG.rand(3, 2, 3).astype(np.float32)
TIES = np.round(RNG.rand(1, 5, 5, 2) * 3).astype(np.float32)  # repeated values: the first maximum wins

CASES = {  # (image, filter, strides, rates, padding)
    "same": (IMAGE, FILTER, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    "valid strided": (IMAGE, FILTER, [1, 2, 1, 1], [1, 1, 1, 1], "VALID"),
    "same rates": (IMAGE, FILTER, [1, 1, 1, 1], [1, 2, 3, 1], "SAME"),
    "same strided rates": (IMAGE, FILTER, [1, 2, 3, 1], [1, 2, 1, 1], "SAME"),
    "ties": (TIES, np.zeros((2, 3, 2), np.float32), [1, 1, 2, 1], [1, 1, 1, 1], "SAME"),
    "float64": (IMAGE.astype(np.float64), FILTER.astype(np.float64), [1, 1, 1, 1], [1, 1, 2, 1], "VALID"),
}


def _run(tf, case, erosion):
    image, kernel, strides, rates, padding = CASES[case]
    with tf.Graph().as_default():
        x, w = tf.constant(image), tf.constant(kernel)
        if erosion:
            y = tf.nn.erosion2d(x, w, strides, rates, padding)
        else:
            y = tf.nn.dilation2d(x, w, strides, rates, padding)
        grads = tf.gradients(tf.reduce_sum(y * tf.cos(y)), [x, w])
        with tf.Session() as sess:
            return y.shape.as_list(), sess.run([y] + grads)


@pytest.mark.tf
@pytest.mark.parametrize("erosion", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_match_tensorflow(tf1, case, erosion):
    ours_shape, ours = _run(ours_tf, case, erosion)
    theirs_shape, theirs = _run(tf1, case, erosion)
    assert ours_shape == theirs_shape
    for mine, real in zip(ours, theirs):
        assert mine.dtype == real.dtype
        np.testing.assert_allclose(mine, real, rtol=1e-6, atol=1e-6)


@pytest.mark.tf
def test_graphs_match_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [None, 7, 6, 3], name="x")
        w = tf.placeholder(tf.float32, [3, 2, 3], name="w")
        y = tf.nn.dilation2d(x, w, [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
        tf.nn.dilation2d(input=x, filters=w, strides=[1, 1, 1, 1], dilations=[1, 1, 1, 1], padding="VALID",
                         name="named")
        tf.nn.erosion2d(x, w, [1, 1, 1, 1], [1, 2, 2, 1], "SAME")
        tf.nn.dilation2d(tf.placeholder(tf.float32, [2, None, None, 3]), w, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
        tf.gradients(y, [x, w])

    assert_same_graph_v1(tf1, build)


ERRORS = {
    "strides length": lambda tf: tf.nn.dilation2d(IMAGE, FILTER, [1, 1, 1], [1, 1, 1, 1], "SAME"),
    "padding": lambda tf: tf.nn.dilation2d(IMAGE, FILTER, [1, 1, 1, 1], [1, 1, 1, 1], "FULL"),
    "filter rank": lambda tf: tf.nn.dilation2d(IMAGE, FILTER[0], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    "depth": lambda tf: tf.nn.dilation2d(IMAGE, FILTER[..., :2], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    "too large": lambda tf: tf.nn.dilation2d(IMAGE, FILTER, [1, 1, 1, 1], [1, 4, 1, 1], "VALID"),
    "batch stride": lambda tf: tf.nn.dilation2d(IMAGE, FILTER, [2, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    "depth rate": lambda tf: tf.nn.dilation2d(IMAGE, FILTER, [1, 1, 1, 1], [1, 1, 1, 2], "SAME"),
    "dtype": lambda tf: tf.nn.dilation2d(IMAGE.astype(np.complex64), FILTER.astype(np.complex64), [1, 1, 1, 1],
                                         [1, 1, 1, 1], "SAME"),
}


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tensorflow(tf1, case):
    assert_fails_as_tensorflow(tf1, ERRORS[case])
