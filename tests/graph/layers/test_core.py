"""Tests for graph/layers/core.py: tf.layers Dense, Dropout and Flatten against TensorFlow (graphs, names, values)."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.layers import core
from tests.graph.graph_oracle import assert_same_graph_v1

X = (np.arange(24, dtype=np.float32).reshape(2, 4, 3) % 7 - 3) / 3


def _values(tf_module, graph, fetches, feed=None):
    """``fetches`` (names) of ``graph`` after initializing its variables, in ``tf_module``'s Session."""
    with graph.as_default():
        init = tf_module.global_variables_initializer()  # after the comparison: its control inputs are a set
        with tf_module.Session(graph=graph) as sess:
            sess.run(init)
            return sess.run(fetches, feed_dict=feed(graph) if feed else None)


@pytest.mark.tf
def test_dense_graphs_match_tensorflow(tf1):
    def build(tf_module):
        tf_module.set_random_seed(7)
        x2 = tf_module.placeholder(tf_module.float32, [None, 3], name="x2")
        x3 = tf_module.constant(X, name="x3")
        dynamic = tf_module.placeholder(tf_module.float32, [None, None, 3], name="dynamic")
        y = tf_module.layers.dense(x2, 4, activation=tf_module.nn.relu,
                                   kernel_regularizer=lambda w: 0.1 * tf_module.reduce_sum(w * w))
        tf_module.layers.dense(y, 2, name="logits", use_bias=False)
        tf_module.layers.dense(y, 2, name="logits", reuse=True, use_bias=False)  # shares logits/kernel
        static = tf_module.layers.dense(x3, 5, activation="tanh")
        tf_module.layers.dense(dynamic, 2, bias_initializer=tf_module.constant_initializer(0.5))
        layer = tf_module.layers.Dense(3, activity_regularizer=lambda t: tf_module.reduce_mean(t))
        layer(x2)
        layer(y[:, :3])
        return {
            "static_shape": static.shape.as_list(),
            "variables": [v.name for v in tf_module.global_variables()],
            "losses": [t.name for t in tf_module.get_collection(tf_module.GraphKeys.REGULARIZATION_LOSSES)],
            "layer": (layer.name, layer.scope_name, [v.name for v in layer.trainable_weights]),
        }
    (ours_graph, ours), (theirs_graph, theirs) = assert_same_graph_v1(tf1, build)
    assert ours == theirs
    fetch = ["dense_1/Tanh:0", "dense/Relu:0", "logits_1/MatMul:0", "dense_2/BiasAdd:0", "dense/kernel:0"]

    def feed(graph):
        return {graph.get_tensor_by_name("x2:0"): X[0], graph.get_tensor_by_name("dynamic:0"): X}
    mine = _values(tf, ours_graph, fetch, feed)
    real = _values(tf1, theirs_graph, fetch, feed)
    for a, b in zip(mine, real):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.tf
def test_dropout_and_flatten_graphs_and_masks_match_tensorflow(tf1):
    def build(tf_module):
        x = tf_module.constant(np.ones((4, 5, 6), np.float32), name="x")
        training = tf_module.placeholder(tf_module.bool, [], name="training")
        layer = tf_module.layers.Dropout(0.3, seed=4)
        by_tensor = layer(x, training=training)
        by_bool = layer(x, training=True)  # the next seed: 5
        tf_module.layers.dropout(x, 0.5, training=tf_module.constant(True), seed=1, name="constant_pred")
        tf_module.layers.dropout(x, 0.5)  # inference: identity
        tf_module.layers.dropout(x, 0.0, training=True)  # rate 0: identity
        tf_module.layers.dropout(x, 0.5, noise_shape=[None, 1, 6], training=True, seed=2)
        flat = tf_module.layers.flatten(x)
        unknown = tf_module.placeholder(tf_module.float32, [None, None, 2], name="unknown")
        tf_module.layers.flatten(unknown)
        tf_module.layers.flatten(tf_module.placeholder(tf_module.float32, [3, None], name="batch_known"))
        tf_module.layers.Flatten(data_format="channels_first")(x)
        tf_module.layers.flatten(tf_module.placeholder(tf_module.float32, [7], name="vector"))
        return by_tensor.name, by_bool.name, flat.shape.as_list()
    (ours_graph, ours), (theirs_graph, theirs) = assert_same_graph_v1(tf1, build)
    assert ours == theirs
    fetch = ["dropout/cond/Merge:0", "dropout/dropout/SelectV2:0", "constant_pred/dropout/SelectV2:0",
             "dropout_3/dropout/SelectV2:0", "flatten_3/Reshape:0"]
    for training in (True, False):
        with ours_graph.as_default(), tf.Session(graph=ours_graph) as sess:
            mine = sess.run(fetch, {ours_graph.get_tensor_by_name("training:0"): training})
        with tf1.Session(graph=theirs_graph) as sess:
            real = sess.run(fetch, {theirs_graph.get_tensor_by_name("training:0"): training})
        for a, b in zip(mine, real):
            np.testing.assert_array_equal(a, b)  # TF's exact dropout masks (the seeds' Philox streams)


@pytest.mark.tf
def test_dense_training_step_matches_tensorflow(tf1):
    def build(tf_module):
        tf_module.set_random_seed(3)
        x = tf_module.constant(X.reshape(8, 3), name="x")
        labels = tf_module.constant(np.arange(8) % 2, name="labels")
        hidden = tf_module.layers.dense(x, 6, activation=tf_module.nn.relu)
        hidden = tf_module.layers.dropout(hidden, 0.25, training=True, seed=9)
        logits = tf_module.layers.dense(hidden, 2)
        loss = tf_module.losses.sparse_softmax_cross_entropy(labels, logits)
        train = tf_module.train.GradientDescentOptimizer(0.5).minimize(loss)
        return loss, train, tf_module.global_variables_initializer(), tf_module.trainable_variables()

    results = []
    for tf_module in (tf, tf1):
        with tf_module.Graph().as_default():
            loss, train, init, variables = build(tf_module)
            with tf_module.Session() as sess:
                sess.run(init)
                losses = [sess.run([loss, train])[0] for _ in range(3)]
                results.append((losses, sess.run(variables)))
    (mine, my_vars), (real, real_vars) = results
    np.testing.assert_allclose(mine, real, rtol=1e-5)
    for a, b in zip(my_vars, real_vars):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_dense_errors_and_shapes(g):
    with pytest.raises(ValueError, match="The last dimension of the inputs to a Dense layer should be defined"):
        core.dense(tf.placeholder(tf.float32, [None, None]), 2)
    with pytest.raises(TypeError, match="A Dense layer can only be built with a floating-point dtype"):
        core.dense(tf.placeholder(tf.int32, [None, 3]), 2)
    with pytest.raises(ValueError, match="Unknown activation function: 'bogus'"):
        core.Dense(2, activation="bogus")
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    core.dense(x, 2, name="fc")
    with pytest.raises(ValueError, match="Variable fc/kernel already exists"):
        core.dense(x, 2, name="fc")  # the functional name is the scope: TF asks for reuse=True
    assert core.Dense(7).compute_output_shape([None, 5, 3]).as_list() == [None, 5, 7]
    assert core.Flatten().compute_output_shape([None, 5, 3]).as_list() == [None, 15]


def test_smart_cond(g):
    assert core.smart_cond(True, lambda: 1, lambda: 2) == 1
    assert core.smart_cond(tf.constant(False), lambda: 1, lambda: 2) == 2
    with pytest.raises(TypeError, match="`predicate` must be a Tensor"):
        core.smart_cond("yes", lambda: 1, lambda: 2)
