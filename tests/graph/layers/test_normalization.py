"""Tests for graph/layers/normalization.py: tf.layers batch normalization against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.layers import normalization
from tests.graph.graph_oracle import assert_same_graph_v1

IMAGES = (np.arange(4 * 3 * 3 * 2, dtype=np.float32).reshape(4, 3, 3, 2) * 7 % 13 - 4) / 3
ROWS = (np.arange(6 * 5, dtype=np.float32).reshape(6, 5) * 5 % 11 - 3) / 2


def _build(tf_module, training_kind):
    """Fused (4-D) and unfused (2-D, 3-D) layers, with ``training`` a Python bool or a placeholder."""
    images = tf_module.constant(IMAGES, name="images")
    rows = tf_module.constant(ROWS, name="rows")
    training = (tf_module.placeholder(tf_module.bool, [], name="training") if training_kind == "tensor"
                else training_kind == "true")
    outputs = [
        tf_module.layers.batch_normalization(images, training=training),
        tf_module.layers.batch_normalization(rows, training=training, momentum=0.9, name="bn_rows"),
        tf_module.layers.BatchNormalization(axis=1, center=False, epsilon=0.01)(
            tf_module.reshape(rows, [6, 5, 1]), training=training),
        tf_module.layers.batch_normalization(images, axis=1, fused=False, scale=False, training=training),
    ]
    updates = tf_module.get_collection(tf_module.GraphKeys.UPDATE_OPS)
    return {
        "outputs": outputs,
        "updates": [op.name for op in updates],
        "variables": [v.name for v in tf_module.global_variables()],
        "trainable": [v.name for v in tf_module.trainable_variables()],
    }


def _values(tf_module, graph, result, feed):
    names = [t.name for t in result["outputs"]]
    with graph.as_default():
        init = tf_module.global_variables_initializer()
        moving = [v for v in tf_module.global_variables() if "moving" in v.name]
        with tf_module.Session(graph=graph) as sess:
            sess.run(init)
            feed_dict = {graph.get_tensor_by_name("training:0"): feed} if feed is not None else None
            for _ in range(2):  # twice: the second run sees moving statistics updated by the first
                outputs = sess.run(names + result["updates"], feed_dict)[:len(names)]
            return outputs, sess.run(moving)


@pytest.mark.tf
@pytest.mark.parametrize("training_kind", ["true", "false", "tensor"])
def test_batch_normalization_graphs_updates_and_values_match_tensorflow(tf1, training_kind):
    (ours_graph, ours), (theirs_graph, theirs) = assert_same_graph_v1(tf1, lambda t: _build(t, training_kind))
    for key in ("updates", "variables", "trainable"):
        assert ours[key] == theirs[key]
    assert ours["variables"][:4] == ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                                     "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    feeds = [True, False] if training_kind == "tensor" else [None]
    for feed in feeds:
        (mine, my_moving) = _values(tf, ours_graph, ours, feed)
        (real, real_moving) = _values(tf1, theirs_graph, theirs, feed)
        for a, b in zip(mine + my_moving, real + real_moving):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.tf
def test_training_with_update_ops_matches_tensorflow(tf1):
    def run(tf_module):
        with tf_module.Graph().as_default():
            tf_module.set_random_seed(4)
            images = tf_module.constant(IMAGES, name="images")
            net = tf_module.layers.conv2d(images, 3, 2)
            net = tf_module.layers.batch_normalization(net, training=True)
            logits = tf_module.layers.dense(tf_module.layers.flatten(tf_module.nn.relu(net)), 2)
            loss = tf_module.losses.sparse_softmax_cross_entropy(tf_module.constant([0, 1, 1, 0]), logits)
            with tf_module.control_dependencies(tf_module.get_collection(tf_module.GraphKeys.UPDATE_OPS)):
                train = tf_module.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
            with tf_module.Session() as sess:
                sess.run(tf_module.global_variables_initializer())
                losses = [sess.run([loss, train])[0] for _ in range(3)]
                return losses, sess.run(tf_module.global_variables())
    (mine, my_vars), (real, real_vars) = run(tf), run(tf1)
    np.testing.assert_allclose(mine, real, rtol=1e-4)
    for a, b in zip(my_vars, real_vars):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_errors_and_weights(g):
    with pytest.raises(ValueError, match="Input has undefined `axis` dimension"):
        normalization.batch_normalization(tf.placeholder(tf.float32, [None, None]))
    with pytest.raises(ValueError, match="Invalid value for `axis` argument"):
        normalization.batch_normalization(tf.placeholder(tf.float32, [2, 3]), axis=2)
    with pytest.raises(TypeError, match="Expected an int or a list/tuple of ints for the argument 'axis'"):
        normalization.BatchNormalization(axis="channels")
    layer = normalization.BatchNormalization(trainable=False)
    layer(tf.placeholder(tf.float32, [None, 3]), training=True)
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 4
    assert layer.updates == []  # a frozen layer's updates are not collected
