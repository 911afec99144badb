"""Tests for graph/ops/image_distort_box_ops.py: SampleDistortedBoundingBoxV2's graph, TF's exact draws for fixed
seeds over several runs, and TF's build-time and run-time errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text, fetch_named_result

BOXES = np.array([[[0.1, 0.2, 0.5, 0.9], [0.3, 0.3, 0.35, 0.4]]], np.float32)
# (image size, its dtype, keyword arguments): defaults, few attempts (often the whole image), tiny areas that a
# strict coverage rejects, extreme aspect ratios whose widths need TF's max_height correction
CASES = [([480, 640, 3], "int32", {}),
         ([37, 23, 1], "int64", dict(min_object_covered=0.5, aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.9],
                                     max_attempts=3)),
         ([100, 100, 3], "uint8", dict(min_object_covered=0.9, area_range=[0.01, 0.05], max_attempts=50)),
         ([7, 300, 3], "int16", dict(aspect_ratio_range=[3.0, 40.0], area_range=[0.5, 1.0])),
         ([60, 50, 3], "int32", dict(min_object_covered=0.0, aspect_ratio_range=(0.9, 1.1)))]


def _build(tf, seed):
    outputs = []
    for index, (size, dtype, keywords) in enumerate(CASES):
        outputs += tf.image.sample_distorted_bounding_box(tf.constant(size, getattr(tf, dtype)), BOXES, seed=seed,
                                                          seed2=index + 1, **keywords)
    no_boxes = tf.image.sample_distorted_bounding_box(tf.placeholder(tf.int32, [3], name="size"), tf.zeros([1, 0, 4]),
                                                      seed=seed, min_object_covered=tf.constant(0.2),
                                                      use_image_if_no_bounding_boxes=True, name="whole")
    return outputs + list(no_boxes)


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    assert_same_graph_v1(tf1, lambda tf: _build(tf, 7))


@pytest.mark.tf
@pytest.mark.parametrize("seed", [1, 2, 3, 17, 2**40 + 5])
def test_draws_match_tensorflow_bit_for_bit_over_runs(tf_module, seed):
    results = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            outputs = _build(tf, seed)
            size = tf.get_default_graph().get_tensor_by_name("size:0")
            with tf.Session() as sess:
                results.append([sess.run(outputs, {size: [90, 31, 3]}) for _ in range(4)])  # each run draws afresh
    for ours_run, their_run in zip(*results):
        for mine, real in zip(ours_run, their_run):
            assert mine.dtype == real.dtype and mine.shape == real.shape
            np.testing.assert_array_equal(mine, real)


def _static_error_builds():
    return [lambda tf: tf.image.sample_distorted_bounding_box([4, 5], tf.zeros([1, 1, 4])),
            lambda tf: tf.image.sample_distorted_bounding_box([4, 5, 3], tf.zeros([1, 4])),
            lambda tf: tf.image.sample_distorted_bounding_box([4, 5, 3], tf.zeros([1, 1, 3])),
            lambda tf: tf.image.sample_distorted_bounding_box([4, 5, 3], tf.zeros([1, 1, 4]), min_object_covered=[0.1]),
            lambda tf: tf.image.sample_distorted_bounding_box([4.0, 5, 3], tf.zeros([1, 1, 4])),
            lambda tf: tf.image.sample_distorted_bounding_box([4, 5, 3], tf.zeros([1, 1, 4]), area_range=0.5)]


@pytest.mark.tf
@pytest.mark.parametrize("index", range(6))
def test_build_time_errors_match_tensorflow(tf_module, index):
    caught = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            with pytest.raises((ValueError, TypeError)) as error:
                _static_error_builds()[index](tf)
            caught.append(error)
    assert caught[0].type is caught[1].type
    ours, theirs = str(caught[0].value), str(caught[1].value)
    if caught[0].type is ValueError:  # TF names the node by its NodeDef, we by name and type
        assert ours.split(" for ")[0] == theirs.split(" for ")[0]
        assert ours.split("with input shapes:")[1] == theirs.split("with input shapes:")[1]
    else:
        assert ours == theirs


@pytest.mark.tf
@pytest.mark.parametrize("keywords, boxes", [
    (dict(area_range=[0.0, 1.0]), BOXES), (dict(area_range=[0.5, 1.5]), BOXES),
    (dict(aspect_ratio_range=[-1.0, 1.5]), BOXES), (dict(max_attempts=0), BOXES),
    (dict(aspect_ratio_range=[1.0]), BOXES), (dict(area_range=[0.1, 0.2, 0.3]), BOXES),
    (dict(min_object_covered=-0.5), BOXES), ({}, [[[0.1, 0.1, 1.5, 0.5]]]), ({}, np.zeros((1, 0, 4), np.float32))])
def test_run_time_errors_match_tensorflow(tf_module, keywords, boxes):
    def build(tf):
        return tf.image.sample_distorted_bounding_box([4, 5, 3], boxes, seed=1, **keywords)[0]

    assert failure_kind(ours_tf, build) == failure_kind(tf_module, build) == "InvalidArgumentError"
    assert failure_text(ours_tf, build) in failure_text(tf_module, build)


@pytest.mark.tf
def test_image_size_checks_match_tensorflow(tf_module):
    def build(tf):
        size = tf.placeholder_with_default(np.array([4, 5, 3, 1], np.int32), [None])
        return tf.image.sample_distorted_bounding_box(size, BOXES, seed=1)[1]

    assert failure_kind(ours_tf, build) == failure_kind(tf_module, build) == "InvalidArgumentError"
    assert "image_size must contain 3 elements[4]" in failure_text(ours_tf, build)
    assert failure_text(ours_tf, build) in failure_text(tf_module, build)


@pytest.mark.tf
def test_sample_distorted_bounding_box_result_is_tfs_named_tuple_and_fetches_as_one(tf1):
    mine, real = fetch_named_result(tf1, lambda tf: tf.image.sample_distorted_bounding_box(
        [40, 30, 3], tf.constant([[[0.1, 0.2, 0.8, 0.9]]]), seed=3, seed2=5))
    for got, want in zip(mine, real):
        np.testing.assert_array_equal(got, want)
