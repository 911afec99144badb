"""Tests for graph/ops/image_channel_ops.py: grayscale and YUV / YIQ conversions, graphs op for op, values and
gradients against TensorFlow, TF's static and run-time errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text, run_both_fed

RNG = np.random.RandomState(3)
IMAGES = RNG.rand(2, 4, 5, 3).astype(np.float32)
PIXELS = (RNG.rand(4, 5, 3) * 255).astype(np.uint8)
GRAY = RNG.rand(2, 4, 5, 1).astype(np.float32)
WEIGHTS = RNG.rand(2, 4, 5, 3).astype(np.float32)


def _build(tf):
    x = tf.placeholder(tf.float32, IMAGES.shape, name="x")
    partial = tf.placeholder(tf.float32, [None, None, None, 3], name="partial")
    gray = tf.placeholder(tf.float32, [None, 4, None, 1], name="gray")
    pixels = tf.constant(PIXELS)
    outputs = [tf.image.rgb_to_grayscale(x), tf.image.rgb_to_grayscale(pixels, name="luma"),
               tf.image.rgb_to_grayscale(partial), tf.image.grayscale_to_rgb(gray),
               tf.image.grayscale_to_rgb(tf.constant(GRAY[0]), name="tiled"),
               tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(pixels)),
               tf.image.rgb_to_yuv(x), tf.image.yuv_to_rgb(partial), tf.image.rgb_to_yiq(partial),
               tf.image.yiq_to_rgb(x), tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(tf.constant(IMAGES, tf.float64)))]
    weights = tf.constant(WEIGHTS)
    loss = (tf.reduce_sum(tf.image.rgb_to_grayscale(x)) + tf.reduce_sum(tf.image.rgb_to_yiq(x) * weights)
            + tf.reduce_sum(tf.image.yuv_to_rgb(x) * weights) + tf.reduce_sum(tf.image.grayscale_to_rgb(gray) * weights))
    return outputs + tf.gradients(loss, [x, gray])


@pytest.mark.tf
def test_graphs_values_and_gradients_match_tensorflow(tf1):
    (ours, our_outputs), (theirs, their_outputs) = assert_same_graph_v1(tf1, _build)
    feeds = {"x:0": IMAGES, "partial:0": IMAGES[::-1], "gray:0": GRAY}
    found, expected = run_both_fed(tf1, ours, our_outputs, theirs, their_outputs, feeds)
    for index, (mine, real) in enumerate(zip(found, expected)):
        assert mine.dtype == real.dtype and mine.shape == real.shape, index
        np.testing.assert_allclose(mine, real, rtol=1e-6, atol=1e-6, err_msg=f"output {index}")


def _static_errors(tf):
    return [lambda: tf.image.grayscale_to_rgb(tf.zeros([4, 5, 3])), lambda: tf.image.grayscale_to_rgb(tf.zeros([4])),
            lambda: tf.image.rgb_to_yuv(tf.placeholder(tf.float32)),
            lambda: tf.image.rgb_to_grayscale(tf.constant(["a"]))]


@pytest.mark.tf
def test_build_time_errors_match_tensorflow(tf_module):
    for index in range(4):
        kinds, texts = [], []
        for tf in (ours_tf, tf_module):
            with tf.Graph().as_default():
                with pytest.raises((ValueError, TypeError, AttributeError)) as caught:
                    _static_errors(tf)[index]()
            kinds.append(caught.type)
            texts.append(str(caught.value))
        assert kinds[0] is kinds[1], (index, kinds)
        if index < 2:
            assert texts[0] == texts[1]


@pytest.mark.tf
def test_run_time_grayscale_checks_match_tensorflow(tf_module):
    def build(tf):
        gray = tf.placeholder_with_default(np.zeros((2, 3, 2), np.float32), [None, None, None])
        return tf.image.grayscale_to_rgb(gray)

    assert failure_kind(ours_tf, build) == failure_kind(tf_module, build) == "InvalidArgumentError"
    assert "Last dimension of a grayscale image should be size 1." in failure_text(ours_tf, build)
    assert failure_text(ours_tf, build) in failure_text(tf_module, build)
