"""Tests for graph/ops/image_glimpse_ops.py (ExtractGlimpse): graphs, glimpses inside their images and zero noise
against TensorFlow, the refused unreproducible noise, TF's errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text, run_both_fed

IMAGES = np.random.RandomState(6).rand(3, 9, 11, 2).astype(np.float32)
# windows inside their images, up to touching the right and bottom edges (TF's noise is overwritten there)
INSIDE = np.array([[0.0, 0.0], [-0.3, 0.25], [0.5, 0.6]], np.float32)
PIXELS = np.array([[1.0, 2.0], [1.0, 1.5], [5.5, 7.0]], np.float32)
CORNERS = np.array([[-0.7, -0.7], [0.0, -0.5], [0.6, 0.2]], np.float32)
UNCENTRED = np.array([[0.3, 0.2], [0.5, 0.5], [0.55, 0.6]], np.float32)


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 9, 11, 2], name="x")
    size = tf.placeholder(tf.int32, [2], name="size")
    return [tf.image.extract_glimpse(x, [3, 4], INSIDE), tf.image.extract_glimpse(x, [5, 5], INSIDE, name="look"),
            tf.image.extract_glimpse(x, [2, 3], PIXELS, centered=False, normalized=False),
            tf.image.extract_glimpse(x, [4, 4], UNCENTRED, centered=False, uniform_noise=False),
            tf.image.extract_glimpse(x, [3, 3], PIXELS - 4, normalized=False),
            tf.image.extract_glimpse(x, [9, 11], np.zeros((3, 2), np.float32)),
            tf.image.extract_glimpse(x, size, INSIDE)]


@pytest.mark.tf
def test_graphs_and_glimpses_inside_images_match_tensorflow(tf1):
    (ours, our_outputs), (theirs, their_outputs) = assert_same_graph_v1(tf1, _build)
    feeds = {"x:0": IMAGES, "size:0": [2, 2]}
    found, expected = run_both_fed(tf1, ours, our_outputs, theirs, their_outputs, feeds)
    for index, (mine, real) in enumerate(zip(found, expected)):
        assert mine.dtype == real.dtype and mine.shape == real.shape, index
        np.testing.assert_array_equal(mine, real, err_msg=f"output {index}")


@pytest.mark.tf
@pytest.mark.parametrize("offsets", [CORNERS, -CORNERS * 1.5, np.full((3, 2), 3.0, np.float32)])
def test_zero_noise_matches_tensorflow(tf_module, offsets):
    results = []
    for tf, glimpse in ((ours_tf, None), (tf_module, tf_module.raw_ops.ExtractGlimpse)):
        with tf.Graph().as_default():
            if glimpse is None:
                from graph.ops.op_builder import apply_op
                attrs = {"centered": True, "normalized": True, "uniform_noise": False, "noise": "zero"}
                out = apply_op("ExtractGlimpse", [(IMAGES, "input", tf.float32), ([6, 7], "size", tf.int32),
                                                  (offsets, "offsets", tf.float32)], attrs).outputs[0]
            else:
                out = glimpse(input=IMAGES, size=[6, 7], offsets=offsets, uniform_noise=False, noise="zero")
            with tf.Session() as sess:
                results.append(sess.run(out))
    np.testing.assert_array_equal(*results)


def test_visible_uniform_noise_is_refused():
    with ours_tf.Graph().as_default(), ours_tf.Session() as sess:
        glimpse = ours_tf.image.extract_glimpse(IMAGES, [4, 4], CORNERS, centered=False, uniform_noise=False)
        with pytest.raises(errors.UnimplementedError, match="uniform noise from an unseeded generator"):
            sess.run(glimpse)


@pytest.mark.tf
@pytest.mark.parametrize("arguments", [([4, 4], np.zeros((3, 2, 1))), ([4, 4], np.zeros((2, 2))),
                                       ([4, 4], np.zeros((3, 3))), ([4, 4, 1], np.zeros((3, 2))),
                                       ([[4, 4]], np.zeros((3, 2)))])
def test_build_time_errors_match_tensorflow(tf_module, arguments):
    size, offsets = arguments
    texts = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            with pytest.raises(ValueError) as caught:
                tf.image.extract_glimpse(tf.zeros([3, 9, 11, 2]), size, offsets.astype(np.float32))
            texts.append(str(caught.value))
    assert texts[0].split(" for ")[0] == texts[1].split(" for ")[0]
    assert texts[0].split("with input shapes:")[1] == texts[1].split("with input shapes:")[1]


@pytest.mark.tf
@pytest.mark.parametrize("size, offsets", [([2, 2, 2], INSIDE), ([2, 2], INSIDE[:2]), ([2, 2], INSIDE[:, :1]),
                                           ([-1, 2], INSIDE)])
def test_run_time_errors_match_tensorflow(tf_module, size, offsets):
    def build(tf):
        size_t = tf.placeholder_with_default(np.array(size, np.int32), [None])
        offsets_t = tf.placeholder_with_default(offsets, [None, None])
        return tf.image.extract_glimpse(tf.placeholder_with_default(IMAGES, [None] * 4), size_t, offsets_t)

    assert failure_kind(ours_tf, build) == failure_kind(tf_module, build) == "InvalidArgumentError"
    assert failure_text(ours_tf, build) in failure_text(tf_module, build)
