"""Tests for graph/ops/nn_batchnorm_ops.py: FusedBatchNormV3 / FusedBatchNormGradV3 against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.ops import nn_batchnorm_ops
from tests.graph.graph_oracle import assert_same_graph_v1

RNG = np.random.RandomState(3)
X = (RNG.randn(2, 3, 2, 4) * 2 + 1).astype(np.float32)
STATS = {depth: [(RNG.rand(depth) + 0.5).astype(np.float32), RNG.randn(depth).astype(np.float32),
                 RNG.randn(depth).astype(np.float32), (RNG.rand(depth) + 0.5).astype(np.float32)]
         for depth in (3, 4)}


def _run_fused(tf, data_format, is_training, factor, dtype="float32", epsilon=0.001):
    """All six outputs of FusedBatchNormV3 and the gradients of sum(y * w) w.r.t. x, scale, offset."""
    depth = 4 if data_format == "NHWC" else 3
    scale, offset, mean, variance = STATS[depth]
    with tf.Graph().as_default():
        x = tf.placeholder(getattr(tf, dtype), X.shape, name="x")
        scale_t, offset_t = tf.constant(scale), tf.constant(offset)
        with_stats = not is_training or factor != 1.0
        y, _, _ = tf.nn.fused_batch_norm(x, scale_t, offset_t, mean if with_stats else None,
                                         variance if with_stats else None, epsilon=epsilon,
                                         data_format=data_format, is_training=is_training,
                                         exponential_avg_factor=factor)
        weights = tf.constant(np.linspace(-1, 1, X.size).reshape(X.shape), dtype=getattr(tf, dtype))
        grads = tf.gradients(tf.reduce_sum(y * weights), [x, scale_t, offset_t])
        with tf.Session() as sess:
            return sess.run(list(y.op.outputs) + grads, {x: X.astype(dtype)})


@pytest.mark.tf
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False])
@pytest.mark.parametrize("factor", [1.0, 0.3])
def test_values_and_gradients_match_tensorflow(tf_module, data_format, is_training, factor):
    ours = _run_fused(ours_tf, data_format, is_training, factor)
    theirs = _run_fused(tf_module, data_format, is_training, factor)
    for index, (mine, reference) in enumerate(zip(ours, theirs)):
        assert mine.dtype == reference.dtype, index
        if index == 5:  # reserve_space_3: scratch TF's CPU kernel leaves empty (shape (0,) or () by graph)
            assert mine.shape == (0,) and reference.size <= 1
            continue
        if index in (3, 4) and not is_training:  # unspecified in inference: TF's CPU kernel may not write them
            continue
        np.testing.assert_allclose(mine, reference, rtol=2e-5, atol=2e-5, err_msg=f"output {index}")


def test_running_variance_has_bessel_correction():
    y, mean, variance, saved_mean, saved_variance, _ = _run_fused(ours_tf, "NHWC", True, 1.0)[:6]
    flat = X.reshape(-1, 4).astype(np.float64)
    np.testing.assert_allclose(mean, flat.mean(0), rtol=1e-5)
    np.testing.assert_allclose(variance, flat.var(0, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(saved_variance, flat.var(0), rtol=1e-5)
    scale, offset = STATS[4][:2]
    np.testing.assert_allclose(y, (X - flat.mean(0)) / np.sqrt(flat.var(0) + 0.001) * scale + offset,
                               rtol=1e-4, atol=1e-5)


def test_exponential_average_blends_running_statistics():
    _, mean, variance = _run_fused(ours_tf, "NHWC", True, 0.3)[:3]
    flat = X.reshape(-1, 4).astype(np.float64)
    old_mean, old_variance = STATS[4][2:]
    np.testing.assert_allclose(mean, 0.7 * old_mean + 0.3 * flat.mean(0), rtol=1e-5)
    np.testing.assert_allclose(variance, 0.7 * old_variance + 0.3 * flat.var(0, ddof=1), rtol=1e-5)


@pytest.mark.tf
def test_float16_input_matches_tensorflow(tf_module):
    ours = _run_fused(ours_tf, "NHWC", True, 1.0, dtype="float16")
    theirs = _run_fused(tf_module, "NHWC", True, 1.0, dtype="float16")
    assert ours[0].dtype == np.float16 and ours[1].dtype == np.float32
    for mine, reference in zip(ours[:5], theirs[:5]):
        np.testing.assert_allclose(mine, reference, rtol=2e-3, atol=2e-3)


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [2, 3, 2, 4], name="x")
        tf.nn.fused_batch_norm(x, [1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0, 1.5])
        tf.nn.fused_batch_norm(x, [1.0, 2.0, 3.0], [0.0, 0.5, 1.0], [0.1, 0.2, 0.3], [1.0, 1.5, 2.0], epsilon=0.01,
                               data_format="NCHW", is_training=False, name="bn_infer")
        tf.nn.fused_batch_norm(x, [1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0, 1.5], [0.0] * 4, [1.0] * 4,
                               exponential_avg_factor=0.1)
    assert_same_graph_v1(tf1, build)


@pytest.mark.tf
def test_errors_match_tensorflow(tf_module):
    bad_calls = [
        lambda tf: tf.nn.fused_batch_norm(tf.zeros([2, 3]), [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
        lambda tf: tf.nn.fused_batch_norm(tf.zeros([2, 3, 2, 4]), [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
        lambda tf: tf.nn.fused_batch_norm(tf.zeros([2, 3, 2, 4]), [1.0] * 4, [0.0] * 4, is_training=False),
        lambda tf: tf.nn.fused_batch_norm(tf.zeros([2, 3, 2, 4]), [1.0] * 4, [0.0] * 4, data_format="NCDHW"),
        lambda tf: tf.nn.fused_batch_norm(tf.zeros([2, 3, 2, 4], tf.float64), [1.0] * 4, [0.0] * 4),
    ]
    for call in bad_calls:
        with tf_module.Graph().as_default():
            with pytest.raises(Exception) as theirs:
                call(tf_module)
        with ours_tf.Graph().as_default():
            with pytest.raises(type(theirs.value)) as mine:
                call(ours_tf)
        assert str(mine.value) == str(theirs.value)


def test_five_dimensional_input():
    x5 = np.arange(2 * 2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 2, 3, 2, 3) % 7
    with ours_tf.Graph().as_default():
        y, mean, variance = ours_tf.nn.fused_batch_norm(x5, [1.0] * 3, [0.0] * 3, data_format="NDHWC")
        assert y.shape.as_list() == [2, 2, 3, 2, 3] and mean.shape.as_list() == [3]
        with ours_tf.Session() as sess:
            got_y, got_mean = sess.run([y, mean])
    flat = x5.reshape(-1, 3)
    np.testing.assert_allclose(got_mean, flat.mean(0), rtol=1e-6)
    np.testing.assert_allclose(got_y, (x5 - flat.mean(0)) / np.sqrt(flat.var(0) + 0.001), rtol=1e-5, atol=1e-5)


def test_grad_op_outputs_and_shapes():
    with ours_tf.Graph().as_default():
        x = ours_tf.constant(X)
        y, _, _ = ours_tf.nn.fused_batch_norm(x, STATS[4][0], STATS[4][1])
        outputs = nn_batchnorm_ops.fused_batch_norm_grad_v3(ours_tf.ones_like(x), x, STATS[4][0], y.op.outputs[3],
                                                            y.op.outputs[4], y.op.outputs[5], epsilon=0.001)
        assert [t.shape.as_list() for t in outputs] == [[2, 3, 2, 4], [4], [4], [0], [0]]
        assert outputs[0].op.type == "FusedBatchNormGradV3" and outputs[0].op.get_attr("U") == ours_tf.float32
        with ours_tf.Session() as sess:
            dx, dscale, doffset = sess.run(list(outputs[:3]))
    np.testing.assert_allclose(doffset, [12.0] * 4)
    np.testing.assert_allclose(dscale, 0.0, atol=1e-4)  # sum of normalized x is zero
    np.testing.assert_allclose(dx, 0.0, atol=1e-5)  # a constant upstream gradient cancels in training
