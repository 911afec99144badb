"""graph/ops/image_patches_ops.py (tf.extract_image_patches and its gradient), with TF1's space_to_batch /
batch_to_space (graph/ops/space_to_batch_v1_ops.py), tf.nn.relu_layer and tf.linalg.normalize, against
TensorFlow: graphs, values, errors and gradients."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text, run_in

IMAGE = np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3) / 10


def _build(tf):
    image = tf.constant(IMAGE)
    return [
        tf.extract_image_patches(image, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        tf.extract_image_patches(image, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
        tf.image.extract_image_patches(image, sizes=[1, 2, 3, 1], strides=[1, 2, 1, 1], rates=[1, 2, 2, 1],
                                       padding="SAME", name="dilated"),
        tf.image.extract_patches(image, sizes=[1, 3, 3, 1], strides=[1, 1, 2, 1], rates=[1, 1, 2, 1],
                                 padding="VALID", name="tf2_spelling"),
        tf.extract_image_patches(tf.constant(IMAGE.astype(np.int32)), [1, 2, 2, 1], [1, 3, 3, 1], [1, 1, 1, 1],
                                 "VALID"),
        tf.space_to_batch(tf.reshape(tf.range(32.0), [2, 4, 4, 1]), [[0, 0], [2, 0]], block_size=2),
        tf.nn.space_to_batch(tf.ones([1, 2, 2, 3]), [[1, 1], [1, 1]], block_shape=2, name="s2b"),
        tf.batch_to_space(tf.reshape(tf.range(16), [4, 2, 2, 1]), [[0, 1], [1, 0]], 2),
        tf.nn.relu_layer(tf.constant([[1.0, -2.0], [0.5, 3.0]]), tf.constant([[1.0, -1.0, 2.0], [0.5, 0.5, -1.0]]),
                         tf.constant([0.1, -0.2, 0.3])),
        *tf.linalg.normalize(tf.constant([[3.0, 4.0], [6.0, 8.0]])),
        *tf.linalg.normalize(tf.constant([[3.0, -4.0], [1.0, 1.0]]), ord=1, axis=1, name="rows"),
    ]


@pytest.mark.tf
def test_graphs_and_values_match_tensorflow(tf1):
    (ours, ours_out), (theirs, their_out) = assert_same_graph_v1(tf1, _build)
    for got, want in zip(run_in(ours_tf, ours, ours_out), run_in(tf1, theirs, their_out)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _gradients(tf):
    image = tf.constant(IMAGE)
    weights = tf.reshape(tf.range(2 * 3 * 2 * 18, dtype=tf.float32), [2, 3, 2, 18]) / 100
    patches = tf.extract_image_patches(image, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME")
    dilated = tf.extract_image_patches(image, [1, 2, 2, 1], [1, 1, 2, 1], [1, 2, 1, 1], "VALID")
    return (tf.gradients(tf.reduce_sum(patches * weights), image) +
            tf.gradients(tf.reduce_sum(dilated * dilated), image))


@pytest.mark.tf
def test_gradients_match_tensorflow(tf1):
    (ours, ours_out), (theirs, their_out) = assert_same_graph_v1(tf1, _gradients)
    for got, want in zip(run_in(ours_tf, ours, ours_out), run_in(tf1, theirs, their_out)):
        np.testing.assert_allclose(got, want, rtol=1e-5)


FAILURES = {
    "patches padding": lambda tf: tf.extract_image_patches(tf.ones([1, 2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1],
                                                           [1, 1, 1, 1], "FULL"),
    "patches rank": lambda tf: tf.extract_image_patches(tf.ones([2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1],
                                                        [1, 1, 1, 1], "VALID"),
    "patches ksizes length": lambda tf: tf.extract_image_patches(tf.ones([1, 2, 2, 1]), [1, 1, 1], [1, 1, 1, 1],
                                                                 [1, 1, 1, 1], "VALID"),
    "patches batch window": lambda tf: tf.extract_image_patches(tf.ones([2, 2, 2, 1]), [2, 1, 1, 1], [1, 1, 1, 1],
                                                                [1, 1, 1, 1], "VALID"),
    "space_to_batch indivisible": lambda tf: tf.space_to_batch(tf.ones([1, 3, 4, 1]), [[0, 0], [0, 0]], 2),
    "space_to_batch rank": lambda tf: tf.space_to_batch(tf.ones([1, 4, 4]), [[0, 0], [0, 0]], 2),
    "space_to_batch both sizes": lambda tf: tf.space_to_batch(tf.ones([1, 4, 4, 1]), [[0, 0], [0, 0]], 2,
                                                              block_shape=2),
    "batch_to_space indivisible": lambda tf: tf.batch_to_space(tf.ones([3, 2, 2, 1]), [[0, 0], [0, 0]], 2),
    "patches window beyond the image": lambda tf: tf.extract_image_patches(tf.ones([1, 1, 1, 1]), [1, 3, 3, 1],
                                                                           [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    "patches window beyond a fed image": lambda tf: tf.extract_image_patches(
        tf.placeholder_with_default(tf.ones([1, 1, 1, 1]), None), [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    "relu_layer shapes": lambda tf: tf.nn.relu_layer(tf.ones([2, 3]), tf.ones([2, 3]), tf.ones([3])),
    "normalize ord": lambda tf: tf.linalg.normalize(tf.ones([2]), ord=-1),
}


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failures_match_tensorflow(tf_module, case):
    assert failure_kind(ours_tf, FAILURES[case]) == failure_kind(tf_module, FAILURES[case]) != "ran"
    ours, theirs = failure_text(ours_tf, FAILURES[case]), failure_text(tf_module, FAILURES[case])
    assert ours.split(" for '{{node")[0].split(" for '")[0] in theirs
