"""Tests for graph/layers/convolutional.py: tf.layers convolutions against TensorFlow (graphs, names, values)."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.layers import convolutional
from tests.graph.graph_oracle import assert_same_graph_v1

IMAGES = (np.arange(2 * 7 * 6 * 3, dtype=np.float32).reshape(2, 7, 6, 3) % 11 - 5) / 5
SIGNALS = (np.arange(2 * 9 * 3, dtype=np.float32).reshape(2, 9, 3) % 7 - 3) / 3


def _run(tf_module, graph, fetches):
    with graph.as_default():
        init = tf_module.global_variables_initializer()  # built after the graph comparison
        with tf_module.Session(graph=graph) as sess:
            sess.run(init)
            return sess.run(fetches)


def _assert_same_values(tf1, ours_graph, theirs_graph, fetches):
    for mine, real in zip(_run(tf, ours_graph, fetches), _run(tf1, theirs_graph, fetches)):
        np.testing.assert_allclose(mine, real, rtol=1e-5, atol=1e-5)


@pytest.mark.tf
def test_conv2d_graphs_and_values_match_tensorflow(tf1):
    def build(tf_module):
        tf_module.set_random_seed(11)
        images = tf_module.constant(IMAGES, name="images")
        a = tf_module.layers.conv2d(images, 4, 3, padding="same", activation=tf_module.nn.relu)
        b = tf_module.layers.conv2d(a, 5, (3, 2), strides=(2, 1), name="strided")
        c = tf_module.layers.Conv2D(2, 3, dilation_rate=2, use_bias=False,
                                    kernel_regularizer=lambda w: tf_module.reduce_sum(tf_module.abs(w)))
        c(images)
        c(images)  # shared weights, ops suffixed
        unknown = tf_module.placeholder(tf_module.float32, [None, None, None, 3], name="unknown")
        d = tf_module.layers.conv2d(unknown, 2, 1, strides=2, padding="same", name="dyn", reuse=tf_module.AUTO_REUSE)
        tf_module.layers.conv2d(tf_module.placeholder(tf_module.float32, [1, 3, 8, 8], name="nchw"), 4, 3,
                                data_format="channels_first")
        return [t.shape.as_list() for t in (a, b, d)], [v.name for v in tf_module.global_variables()]
    (ours_graph, ours), (theirs_graph, theirs) = assert_same_graph_v1(tf1, build)
    assert ours == theirs
    _assert_same_values(tf1, ours_graph, theirs_graph,
                        ["conv2d/Relu:0", "strided/BiasAdd:0", "conv2d_1/Conv2D_1:0", "conv2d/kernel:0"])


@pytest.mark.tf
def test_conv1d_transpose_and_separable_match_tensorflow(tf1):
    def build(tf_module):
        tf_module.set_random_seed(5)
        signals = tf_module.constant(SIGNALS, name="signals")
        images = tf_module.constant(IMAGES, name="images")
        one = tf_module.layers.conv1d(signals, 4, 3, padding="same")
        causal = tf_module.layers.Conv1D(2, 3, padding="causal")(signals)
        up = tf_module.layers.conv2d_transpose(images, 3, 3, strides=2, padding="same")
        valid = tf_module.layers.conv2d_transpose(images, 2, (2, 3), strides=(1, 2), activation=tf_module.nn.relu)
        dynamic = tf_module.placeholder(tf_module.float32, [None, None, 4, 3], name="dynamic")
        tf_module.layers.Conv2DTranspose(2, 3)(dynamic)
        separable = tf_module.layers.separable_conv2d(images, 4, 3, depth_multiplier=2, padding="same")
        tf_module.layers.SeparableConv2D(2, (2, 2), strides=2, use_bias=False)(images)
        return ([t.shape.as_list() for t in (one, causal, up, valid, separable)],
                [v.name for v in tf_module.global_variables()])
    (ours_graph, ours), (theirs_graph, theirs) = assert_same_graph_v1(tf1, build)
    assert ours == theirs
    _assert_same_values(tf1, ours_graph, theirs_graph, [
        "conv1d/BiasAdd:0", "conv1d_1/BiasAdd:0", "conv2d_transpose/BiasAdd:0", "conv2d_transpose_1/Relu:0",
        "separable_conv2d/BiasAdd:0", "separable_conv2d_1/separable_conv2d:0"])


@pytest.mark.tf
def test_cnn_training_step_matches_tensorflow(tf1):
    def build(tf_module):
        tf_module.set_random_seed(2)
        images = tf_module.constant(IMAGES, name="images")
        labels = tf_module.constant([1, 0], name="labels")
        net = tf_module.layers.conv2d(images, 4, 3, padding="same", activation=tf_module.nn.relu)
        net = tf_module.layers.max_pooling2d(net, 2, 2)
        net = tf_module.layers.separable_conv2d(net, 3, 2, activation=tf_module.nn.relu)
        net = tf_module.layers.conv2d_transpose(net, 2, 2, strides=2)
        logits = tf_module.layers.dense(tf_module.layers.flatten(net), 2)
        loss = tf_module.losses.sparse_softmax_cross_entropy(labels, logits)
        train = tf_module.train.AdamOptimizer(0.01).minimize(loss)
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
    np.testing.assert_allclose(mine, real, rtol=1e-4)
    for a, b in zip(my_vars, real_vars):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_argument_errors(g):
    with pytest.raises(ValueError, match="The `kernel_size` argument must be a tuple of 2 integers"):
        convolutional.Conv2D(3, (3, 3, 3))
    with pytest.raises(ValueError, match="Expected a strictly positive value. Received filters=0"):
        convolutional.Conv2D(0, 3)
    with pytest.raises(ValueError, match="Causal padding is only supported for `Conv1D`"):
        convolutional.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="The channel dimension of the inputs should be defined"):
        convolutional.conv2d(tf.placeholder(tf.float32, [None, 4, 4, None]), 2, 3)
    with pytest.raises(ValueError, match="One of the dimensions in the output is <= 0"):
        convolutional.conv2d(tf.placeholder(tf.float32, [None, 2, 2, 1]), 2, 3)
    # channels_first transposes to NHWC (in TF, Keras' NCHW-support probe also opens a session: not emulated)
    nchw = convolutional.conv2d_transpose(tf.placeholder(tf.float32, [1, 3, 4, 4]), 2, 3, data_format="channels_first")
    assert nchw.shape.as_list() == [1, 2, 6, 6] and nchw.op.type == "BiasAdd"
    assert convolutional.conv_output_length(7, 3, "valid", 2) == 3
    assert convolutional.deconv_output_length(4, 3, "valid", 2) == 9
