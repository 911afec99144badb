"""Tests for graph/ops/image_combined_nms_ops.py (CombinedNonMaxSuppression): graphs, outputs bit for bit against
TensorFlow (ties between equal scores included), static shapes and TF's errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.ops.image_combined_nms_ops import _introsort
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text, fetch_named_result, run_both_fed

RNG = np.random.RandomState(11)
BOXES = (RNG.rand(2, 30, 1, 4) * 1.4 - 0.2).astype(np.float32)  # some outside [0, 1]: clip_boxes matters
CLASS_BOXES = (RNG.rand(2, 30, 3, 4) * 1.4 - 0.2).astype(np.float32)
# few distinct values: many ties, in the heap and in the sort of more than 16 slots; -2 scores a kept box below
# TF's placeholder score -1
TIED = RNG.choice(np.array([0.1, 0.5, 0.5, 0.9, -2.0, 0.3], np.float32), size=(2, 30, 3))
SPREAD = RNG.randn(2, 30, 3).astype(np.float32)


def _build(tf):
    boxes = tf.placeholder(tf.float32, [2, 30, 1, 4], name="boxes")
    per_class = tf.placeholder(tf.int32, [], name="per_class")
    outputs = []
    for scores, class_boxes, arguments, keywords in [
            (TIED, boxes, (5, 20), {}), (TIED, CLASS_BOXES, (9, 40), dict(iou_threshold=0.3, pad_per_class=True)),
            (SPREAD, boxes, (per_class, 12), dict(score_threshold=-1.5, clip_boxes=False)),
            (SPREAD, CLASS_BOXES, (4, 100), dict(iou_threshold=0.0, pad_per_class=True, name="nms")),
            (TIED, boxes, (30, 7), dict(iou_threshold=1.0, score_threshold=0.2)),
            (TIED, boxes, (30, 90), dict(iou_threshold=0.3))]:
        outputs += tf.image.combined_non_max_suppression(class_boxes, scores, *arguments, **keywords)
    return outputs


@pytest.mark.tf
def test_graphs_and_outputs_match_tensorflow_bit_for_bit(tf1):
    (ours, our_outputs), (theirs, their_outputs) = assert_same_graph_v1(tf1, _build)
    feeds = {"boxes:0": BOXES, "per_class:0": 6}
    found, expected = run_both_fed(tf1, ours, our_outputs, theirs, their_outputs, feeds)
    for index, (mine, real) in enumerate(zip(found, expected)):
        assert mine.dtype == real.dtype and mine.shape == real.shape, index
        np.testing.assert_array_equal(mine, real, err_msg=f"output {index}")
    assert -1 in found[-2]  # the placeholder TF outputs ahead of a box scoring -2


@pytest.mark.parametrize("size", [0, 1, 5, 16, 17, 40, 300])
def test_introsort_sorts(size):
    values = [(float(v), i) for i, v in enumerate(np.random.RandomState(size).randint(0, 6, size))]
    _introsort(values, lambda a, b: b[0] < a[0])
    assert [v for v, _ in values] == sorted((v for v, _ in values), reverse=True)
    assert sorted(i for _, i in values) == list(range(size))


def _static_error_builds():
    boxes, scores = np.zeros((2, 5, 1, 4), np.float32), np.zeros((2, 5, 3), np.float32)
    return [lambda tf: tf.image.combined_non_max_suppression(boxes[0], scores, 2, 4),
            lambda tf: tf.image.combined_non_max_suppression(boxes, scores[:1], 2, 4),
            lambda tf: tf.image.combined_non_max_suppression(boxes, scores[:, :4], 2, 4),
            lambda tf: tf.image.combined_non_max_suppression(boxes[..., :3], scores, 2, 4),
            lambda tf: tf.image.combined_non_max_suppression(np.zeros((2, 5, 2, 4), np.float32), scores, 2, 4),
            lambda tf: tf.image.combined_non_max_suppression(boxes, scores, 2, 0),
            lambda tf: tf.image.combined_non_max_suppression(boxes, scores, 0, 4, pad_per_class=True),
            lambda tf: tf.image.combined_non_max_suppression(boxes, scores, [2], 4)]


@pytest.mark.tf
@pytest.mark.parametrize("index", range(8))
def test_build_time_errors_match_tensorflow(tf_module, index):
    texts = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            with pytest.raises(ValueError) as caught:
                _static_error_builds()[index](tf)
            texts.append(str(caught.value))
    ours, theirs = texts
    if " for " in ours:  # TF names the node by its NodeDef, we by name and type
        assert ours.split(" for ")[0] == theirs.split(" for ")[0]
        assert ours.split("with input shapes:")[1] == theirs.split("with input shapes:")[1]
    else:
        assert ours in theirs


@pytest.mark.tf
@pytest.mark.parametrize("boxes_shape, scores_shape, per_class, total, iou", [
    ([2, 5, 1, 4], [3, 5, 2], 2, 4, 0.5), ([2, 5, 1, 4], [2, 5, 2], 0, 4, 0.5), ([2, 5, 1, 4], [2, 5, 2], 2, -1, 0.5),
    ([2, 5, 1, 4], [2, 5, 2], 2, 4, 1.5), ([2, 5, 3, 4], [2, 5, 2], 2, 4, 0.5), ([2, 5, 1, 3], [2, 5, 2], 2, 4, 0.5),
    ([2, 5, 1, 4], [2, 4, 2], 2, 4, 0.5), ([2, 5, 4], [2, 5, 2], 2, 4, 0.5)])
def test_run_time_errors_match_tensorflow(tf_module, boxes_shape, scores_shape, per_class, total, iou):
    def build(tf):
        boxes = tf.placeholder_with_default(np.zeros(boxes_shape, np.float32), None)
        scores = tf.placeholder_with_default(np.zeros(scores_shape, np.float32), None)
        per_class_t = tf.placeholder_with_default(per_class, [])
        total_t = tf.placeholder_with_default(total, [])
        return tf.image.combined_non_max_suppression(boxes, scores, per_class_t, total_t,
                                                     iou_threshold=tf.placeholder_with_default(iou, []))[3]

    assert failure_kind(ours_tf, build) == failure_kind(tf_module, build) == "InvalidArgumentError"
    assert failure_text(ours_tf, build) in failure_text(tf_module, build)


@pytest.mark.tf
def test_combined_nms_result_is_tfs_named_tuple_and_fetches_as_one(tf1):
    boxes = np.array([[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0, 2, 1, 3]]]], np.float32)
    scores = np.array([[[0.9], [0.8], [0.7]]], np.float32)
    mine, real = fetch_named_result(
        tf1, lambda tf: tf.image.combined_non_max_suppression(tf.constant(boxes), tf.constant(scores), 2, 2))
    for got, want in zip(mine, real):
        np.testing.assert_array_equal(got, want)
