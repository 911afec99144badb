"""Tests for graph/gradients/nn_batchnorm_grad.py and nn_statistics' gradients: against TF and central differences."""

import numpy as np
import pytest

from tests.graph.gradients.gradient_checks import check_numerically, compare_with_tensorflow
from tests.graph.graph_oracle import assert_same_graph_v1

RNG = np.random.RandomState(11)
IMAGES = RNG.randn(2, 3, 2, 4) * 1.5 + 0.5
SCALE4, OFFSET4 = RNG.rand(4) + 0.5, RNG.randn(4)
SCALE3, OFFSET3 = RNG.rand(3) + 0.5, RNG.randn(3)
MEAN4, VAR4, MEAN3, VAR3 = RNG.randn(4), RNG.rand(4) + 0.5, RNG.randn(3), RNG.rand(3) + 0.5
X = RNG.randn(3, 4)
POSITIVE = RNG.rand(3, 4) + 0.5


def _fused(data_format, is_training, factor=1.0):
    def build(tf, x, scale, offset):
        stats = MEAN4 if data_format == "NHWC" else MEAN3, VAR4 if data_format == "NHWC" else VAR3
        mean, variance = (None, None) if is_training and factor == 1.0 else (
            tf.constant(stats[0], tf.float32), tf.constant(stats[1], tf.float32))
        return tf.nn.fused_batch_norm(x, scale, offset, mean, variance, data_format=data_format,
                                      is_training=is_training, exponential_avg_factor=factor)[0]
    return build


FUSED_CASES = {
    "nhwc_training": (_fused("NHWC", True), [IMAGES, SCALE4, OFFSET4]),
    "nchw_training": (_fused("NCHW", True), [IMAGES, SCALE3, OFFSET3]),
    "nhwc_inference": (_fused("NHWC", False), [IMAGES, SCALE4, OFFSET4]),
    "nchw_inference": (_fused("NCHW", False), [IMAGES, SCALE3, OFFSET3]),
    "nhwc_training_average": (_fused("NHWC", True, 0.25), [IMAGES, SCALE4, OFFSET4]),
}

COMPOSITE_CASES = {
    "batch_normalization": (lambda tf, x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
                            [X, X.mean(0), X.var(0) + 0.5, RNG.randn(4), RNG.rand(4) + 0.5]),
    "batch_normalization_moments": (
        lambda tf, x: tf.nn.batch_normalization(x, *tf.nn.moments(x, [0]), None, None, 1e-3), [X]),
    "normalize_moments": (lambda tf, x: tf.add_n(list(tf.nn.normalize_moments(
        *tf.nn.sufficient_statistics(x, [1], shift=tf.constant(0.3, x.dtype))))), [X]),
    "weighted_moments": (lambda tf, x, w: tf.add_n(list(tf.nn.weighted_moments(x, [0], w))),
                         [X, RNG.rand(3, 1) + 0.5]),
    "log_poisson_loss_full": (lambda tf, z, c: tf.nn.log_poisson_loss(z, c, compute_full_loss=True),
                              [POSITIVE * 2, X]),
}


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(FUSED_CASES))
def test_fused_batch_norm_gradients_match_tensorflow(tf_module, case):
    build, values = FUSED_CASES[case]
    compare_with_tensorflow(tf_module, build, values, rtol=2e-4)


@pytest.mark.tf
@pytest.mark.parametrize("case", ["nhwc_training", "nchw_training", "nhwc_inference", "nchw_inference"])
def test_fused_batch_norm_second_order_matches_tensorflow(tf_module, case):
    build, values = FUSED_CASES[case]
    compare_with_tensorflow(tf_module, build, values, second_order=True, rtol=2e-3)


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(COMPOSITE_CASES))
def test_composite_gradients_match_tensorflow(tf_module, case):
    build, values = COMPOSITE_CASES[case]
    compare_with_tensorflow(tf_module, build, values, rtol=1e-4)


@pytest.mark.parametrize("case", sorted(COMPOSITE_CASES))
def test_composite_gradients_match_central_differences(case):
    build, values = COMPOSITE_CASES[case]
    check_numerically(build, values, rtol=1e-5, atol=1e-6)


@pytest.mark.tf
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False])
def test_gradient_graph_matches_tensorflow(tf1, data_format, is_training):
    depth = 4 if data_format == "NHWC" else 3

    def build(tf):
        x = tf.placeholder(tf.float32, [2, 3, 2, 4], name="x")
        scale = tf.constant([1.5] * depth, name="scale")
        offset = tf.constant([0.5] * depth, name="offset")
        stats = (None, None) if is_training else ([0.1] * depth, [1.2] * depth)
        y = tf.nn.fused_batch_norm(x, scale, offset, *stats, data_format=data_format, is_training=is_training)[0]
        tf.gradients(tf.reduce_sum(y * y), [x, scale, offset])
    assert_same_graph_v1(tf1, build)
