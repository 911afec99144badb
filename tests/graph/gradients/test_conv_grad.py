"""Tests for graph/gradients/conv_grad.py: convolution, pooling and LRN gradients against TF and central differences."""

import numpy as np
import pytest

from tests.graph.gradients.gradient_checks import check_numerically, compare_with_tensorflow
from tests.graph.graph_oracle import assert_same_graph_v1

RNG = np.random.RandomState(11)
IMAGE = RNG.randn(2, 5, 6, 2)
FILTER = RNG.randn(3, 3, 2, 3)
DEPTHWISE = RNG.randn(3, 2, 2, 2)
POINTWISE = RNG.randn(1, 1, 4, 3)
# Distinct values (a shuffled range) keep max pooling away from ties, where the derivative jumps.
DISTINCT = RNG.permutation(2 * 5 * 6 * 2).reshape(2, 5, 6, 2) / 7.0
UPSTREAM = RNG.randn(2, 3, 3, 3)
CHANNELS = RNG.randn(1, 3, 2, 7)

CASES = {
    "conv2d_same_stride2": (lambda tf, x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), [IMAGE, FILTER]),
    "conv2d_valid": (lambda tf, x, w: tf.nn.conv2d(x, w, 1, "VALID"), [IMAGE, FILTER]),
    "conv2d_explicit": (lambda tf, x, w: tf.nn.conv2d(x, w, [1, 2, 1, 1], [[0, 0], [2, 1], [0, 2], [0, 0]]),
                        [IMAGE, FILTER]),
    "conv2d_padding_beyond_the_filter": (  # more padding than the filter spans: the backprop crops
        lambda tf, x, w: tf.nn.conv2d(x, w, 1, [[0, 0], [3, 0], [1, 4], [0, 0]]), [IMAGE, FILTER]),
    "conv2d_transpose": (lambda tf, dy, w: tf.nn.conv2d_transpose(dy, w, [2, 5, 6, 2], [1, 2, 2, 1], "SAME"),
                         [UPSTREAM, FILTER]),
    "conv2d_backprop_filter": (
        lambda tf, x, dy: tf.nn.conv2d_backprop_filter(x, [3, 3, 2, 3], dy, [1, 2, 2, 1], "SAME"), [IMAGE, UPSTREAM]),
    "conv1d": (lambda tf, x, w: tf.nn.conv1d(x, w, 2, "SAME"), [RNG.randn(2, 7, 2), RNG.randn(3, 2, 3)]),
    "depthwise": (lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"), [IMAGE, DEPTHWISE]),
    "depthwise_backprop_input": (
        lambda tf, w, dy: tf.nn.depthwise_conv2d_native_backprop_input([2, 5, 6, 2], w, dy, [1, 1, 1, 1], "VALID"),
        [DEPTHWISE, RNG.randn(2, 3, 5, 4)]),
    "depthwise_backprop_filter": (
        lambda tf, x, dy: tf.nn.depthwise_conv2d_native_backprop_filter(x, [3, 2, 2, 2], dy, [1, 2, 2, 1], "SAME"),
        [IMAGE, RNG.randn(2, 3, 3, 4)]),
    "atrous_same": (lambda tf, x, w: tf.nn.atrous_conv2d(x, w, 2, "SAME"), [IMAGE, FILTER]),
    "depthwise_rate2": (lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", rate=[2, 2]),
                        [IMAGE, DEPTHWISE]),
    "separable_rate_2_1": (lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID", rate=[2, 1]),
                           [IMAGE, DEPTHWISE, POINTWISE]),
    "separable": (lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID"),
                  [IMAGE, DEPTHWISE, POINTWISE]),
    "max_pool_same": (lambda tf, x: tf.nn.max_pool(x, 3, 2, "SAME"), [DISTINCT]),
    "max_pool_valid": (lambda tf, x: tf.nn.max_pool(x, [1, 2, 3, 1], [1, 1, 2, 1], "VALID"), [DISTINCT]),
    "avg_pool_same": (lambda tf, x: tf.nn.avg_pool(x, 3, 2, "SAME"), [IMAGE]),
    "avg_pool_valid": (lambda tf, x: tf.nn.avg_pool(x, 2, 1, "VALID"), [IMAGE]),
    "lrn": (lambda tf, x: tf.nn.lrn(x, 2, 1.5, 0.3, 0.75), [CHANNELS]),
    "cnn_layer": (lambda tf, x, w: tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + 0.1), 2, 2, "SAME"),
                  [IMAGE, FILTER]),
}

# TF's CPU kernels have no dilated backprops and no NCHW: these are checked numerically only.
NUMERIC_ONLY = {
    "conv2d_dilated": (lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME", dilations=[1, 2, 1, 1]), [IMAGE, FILTER]),
    "conv2d_nchw": (lambda tf, x, w: tf.nn.conv2d(x, w, [1, 1, 2, 1], "SAME", data_format="NCHW"),
                    [IMAGE.transpose(0, 3, 1, 2), FILTER]),
    "depthwise_dilated": (
        lambda tf, x, w: tf.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "VALID", dilations=[1, 1, 2, 1]),
        [IMAGE, DEPTHWISE]),
    "max_pool_nchw": (lambda tf, x: tf.nn.max_pool(x, 2, 2, "SAME", data_format="NCHW"),
                      [DISTINCT.transpose(0, 3, 1, 2)]),
    "avg_pool_nchw": (lambda tf, x: tf.nn.avg_pool(x, 3, 2, "SAME", data_format="NCHW"), [IMAGE.transpose(0, 3, 1, 2)]),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_tensorflow(tf1, name):
    build, values = CASES[name]
    compare_with_tensorflow(tf1, build, values, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(set(CASES) | set(NUMERIC_ONLY)))
def test_gradient_matches_central_differences(name):
    build, values = {**CASES, **NUMERIC_ONLY}[name]
    check_numerically(build, values, rtol=1e-5, atol=1e-6)


SECOND_ORDER = {
    # First gradients are backprop ops; the second walks their registered gradients.
    "conv2d": (lambda tf, x, w: tf.square(tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")), [IMAGE, FILTER]),
    "conv2d_transpose": (lambda tf, dy, w: tf.square(tf.nn.conv2d_transpose(dy, w, [2, 5, 6, 2], [1, 2, 2, 1],
                                                                           "SAME")), [UPSTREAM, FILTER]),
    "depthwise": (lambda tf, x, w: tf.square(tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")),
                  [IMAGE, DEPTHWISE]),
    "max_pool": (lambda tf, x: tf.square(tf.nn.max_pool(x, 3, 2, "SAME")), [DISTINCT]),
    "avg_pool": (lambda tf, x: tf.square(tf.nn.avg_pool(x, 3, 2, "SAME")), [IMAGE]),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_matches_tensorflow(tf1, name):
    build, values = SECOND_ORDER[name]
    compare_with_tensorflow(tf1, build, values, second_order=True, rtol=1e-4)


@pytest.mark.tf
def test_gradient_graph_matches_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
        w1 = tf.placeholder(tf.float32, [5, 5, 1, 4], name="w1")
        w2 = tf.placeholder(tf.float32, [3, 3, 4, 2], name="w2")
        h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME")), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        h = tf.nn.avg_pool(tf.nn.lrn(tf.nn.conv2d(h, w2, 1, "VALID"), 2), 2, 1, "SAME")
        h = tf.nn.depthwise_conv2d(h, tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], "SAME")
        tf.gradients(tf.reduce_sum(h), [x, w1, w2])
    assert_same_graph_v1(tf1, build)
