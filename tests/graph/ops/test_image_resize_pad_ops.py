"""Tests for graph/ops/image_resize_pad_ops.py (TF1's resize_image_with_pad): graphs op for op, values and
gradients against TensorFlow, static and run-time errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text, run_both_fed

RNG = np.random.RandomState(5)
IMAGE = RNG.rand(4, 7, 3).astype(np.float32)
BATCH = RNG.rand(2, 5, 3, 2).astype(np.float32)


def _build(tf):
    x = tf.placeholder(tf.float32, IMAGE.shape, name="x")
    batch = tf.placeholder(tf.float32, [None, None, None, 2], name="batch")
    target = tf.placeholder(tf.int32, [], name="target")
    outputs = [tf.image.resize_image_with_pad(x, 6, 6), tf.image.resize_image_with_pad(x, 3, 9, method=1),
               tf.image.resize_image_with_pad(x, 8, 5, method=2, align_corners=True),
               tf.image.resize_image_with_pad(x, 4, 7), tf.image.resize_image_with_pad(batch, 7, 4, method=3),
               tf.image.resize_image_with_pad(batch, target, 9),
               tf.image.resize_image_with_pad(tf.cast(x * 255, tf.uint8), 5, 5)]
    return outputs + tf.gradients(tf.reduce_sum(outputs[0] * outputs[0]) + tf.reduce_sum(outputs[5]), [x, batch])


@pytest.mark.tf
def test_graphs_values_and_gradients_match_tensorflow(tf1):
    (ours, our_outputs), (theirs, their_outputs) = assert_same_graph_v1(tf1, _build)
    feeds = {"x:0": IMAGE, "batch:0": BATCH, "target:0": 10}
    found, expected = run_both_fed(tf1, ours, our_outputs, theirs, their_outputs, feeds)
    for index, (mine, real) in enumerate(zip(found, expected)):
        assert mine.dtype == real.dtype and mine.shape == real.shape, index
        np.testing.assert_allclose(mine, real, rtol=1e-6, atol=1e-6, err_msg=f"output {index}")
    assert our_outputs[0].shape.as_list() == their_outputs[0].shape.as_list() == [6, 6, 3]


@pytest.mark.tf
@pytest.mark.parametrize("arguments", [([4, 7], 6, 6), ([4, 7, 3], 0, 6), ([4, 7, 3], 6, -1),
                                       ([2, 2, 4, 7, 3], 6, 6), ([0, 7, 3], 6, 6)])
def test_build_time_errors_match_tensorflow(tf_module, arguments):
    shape, height, width = arguments
    texts = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            with pytest.raises(ValueError) as caught:
                tf.image.resize_image_with_pad(tf.zeros(shape), height, width)
            texts.append(str(caught.value))
    assert texts[0] == texts[1]


@pytest.mark.tf
def test_run_time_target_check_matches_tensorflow(tf_module):
    def build(tf):
        target = tf.placeholder_with_default(-2, [])
        return tf.image.resize_image_with_pad(tf.zeros([4, 7, 3]), target, 5)

    assert failure_kind(ours_tf, build) == failure_kind(tf_module, build) == "InvalidArgumentError"
    assert "target_height must be > 0." in failure_text(ours_tf, build)
    assert failure_text(ours_tf, build) in failure_text(tf_module, build)
