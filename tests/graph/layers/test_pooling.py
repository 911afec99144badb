"""Tests for graph/layers/pooling.py: tf.layers max and average pooling against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.layers import pooling
from tests.graph.graph_oracle import assert_same_graph_v1

IMAGES = (np.arange(2 * 7 * 6 * 3, dtype=np.float32).reshape(2, 7, 6, 3) * 7 % 13 - 6) / 6
SIGNALS = (np.arange(2 * 9 * 3, dtype=np.float32).reshape(2, 9, 3) * 5 % 11 - 5) / 5


@pytest.mark.tf
def test_pooling_graphs_and_values_match_tensorflow(tf1):
    def build(tf_module):
        images = tf_module.constant(IMAGES, name="images")
        signals = tf_module.constant(SIGNALS, name="signals")
        outputs = [
            tf_module.layers.max_pooling2d(images, 2, 2),
            tf_module.layers.max_pooling2d(images, (3, 2), (2, 1), padding="same", name="pool"),
            tf_module.layers.average_pooling2d(images, 2, 1),
            tf_module.layers.AveragePooling2D(3, 2, padding="same")(images),
            tf_module.layers.max_pooling1d(signals, 2, 2),
            tf_module.layers.average_pooling1d(signals, 3, 2, padding="same"),
            tf_module.layers.MaxPooling1D(3, 1)(signals),
        ]
        tf_module.layers.max_pooling2d(tf_module.placeholder(tf_module.float32, [None, 3, 8, 8], name="nchw"), 2, 2,
                                       data_format="channels_first")
        tf_module.layers.max_pooling2d(tf_module.placeholder(tf_module.float32, [None, None, None, 3], name="x"),
                                       2, 2)
        return outputs
    (ours_graph, ours), (_, theirs) = assert_same_graph_v1(tf1, build)
    with tf.Session(graph=ours_graph) as sess:
        mine = sess.run(ours)
    with tf1.Session() as sess:
        real = sess.run(theirs)
    for a, b, t in zip(mine, real, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=t.name)
        assert a.shape == tuple(t.shape.as_list())


def test_pooling_shapes_and_errors(g):
    layer = pooling.MaxPooling2D(3, None, padding="same")  # strides default to the pool size
    assert layer.strides == (3, 3)
    assert layer.compute_output_shape([None, 7, 6, 2]).as_list() == [None, 3, 2, 2]
    assert pooling.AveragePooling1D(2, 2).compute_output_shape([4, 9, 3]).as_list() == [4, 4, 3]
    with pytest.raises(ValueError, match='The `padding` argument must be a list/tuple or one of "valid", "same"'):
        pooling.MaxPooling2D(2, 2, padding="full")  # named max_pooling2d_2 before the check, as in TF
    with pytest.raises(ValueError, match='Input 0 of layer "max_pooling2d_3" is incompatible with the layer: '
                                         "expected ndim=4, found ndim=3"):
        pooling.max_pooling2d(tf.placeholder(tf.float32, [1, 4, 4]), 2, 2)
