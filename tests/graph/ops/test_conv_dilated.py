"""Dilated 1-D convolutions and channels-first dilated convolutions: TF's SpaceToBatchND graph, values and gradients."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1

RNG = np.random.RandomState(7)

# (input, filter, dilation_rate, data_format) for tf.nn.convolution
CASES = {
    "nwc_rate2": ((2, 10, 3), (3, 3, 4), [2], None),
    "nwc_rate4_uneven": ((1, 9, 2), (2, 2, 1), [4], "NWC"),
    "ncw_rate3": ((2, 3, 10), (3, 3, 4), [3], "NCW"),
    "nchw_rate_2_3": ((1, 2, 7, 8), (3, 2, 2, 3), [2, 3], "NCHW"),
}
VALUES = {name: (RNG.rand(*x).astype(np.float32), RNG.rand(*w).astype(np.float32)) for name, (x, w, _, _) in
          CASES.items()}


def _run(tf, name, padding, channels_last=False):
    """The convolution of case ``name`` and its gradients with respect to input and filter.

    ``channels_last``: the same convolution computed channels-last between transposes (TF's CPU kernels refuse
    NCHW, so the oracle computes channels-first cases this way; the graph test checks TF's NC graph).
    """
    _, _, rate, data_format = CASES[name]
    image, filters = VALUES[name]
    with tf.Graph().as_default():
        x, w = tf.constant(image), tf.constant(filters)
        if channels_last:
            to_last = [0] + list(range(2, image.ndim)) + [1]
            to_first = [0, image.ndim - 1] + list(range(1, image.ndim - 1))
            y = tf.transpose(tf.nn.convolution(tf.transpose(x, to_last), w, padding, dilation_rate=rate), to_first)
        else:
            y = tf.nn.convolution(x, w, padding, dilation_rate=rate, data_format=data_format)
        grads = tf.gradients(tf.reduce_sum(y * y), [x, w])
        with tf.Session() as sess:
            return y.shape.as_list(), sess.run([y] + grads)


@pytest.mark.tf
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_tensorflow(tf1, name, padding):
    ours_shape, ours = _run(ours_tf, name, padding)
    theirs_shape, theirs = _run(tf1, name, padding, channels_last=CASES[name][3] in ("NCW", "NCHW"))
    assert ours_shape == theirs_shape
    for mine, real in zip(ours, theirs):
        assert mine.shape == real.shape
        np.testing.assert_allclose(mine, real, rtol=1e-5, atol=1e-4)


@pytest.mark.tf
def test_graph_matches_tensorflow(tf1):
    def build(tf):
        signals = tf.placeholder(tf.float32, [None, 10, 3], name="x")
        w = tf.placeholder(tf.float32, [3, 3, 4], name="w")
        tf.nn.convolution(signals, w, "SAME", dilation_rate=[2])
        tf.nn.convolution(signals, w, "VALID", dilation_rate=[3], name="valid")
        tf.nn.convolution(tf.placeholder(tf.float32, [None, 3, 11]), w, "SAME", dilation_rate=2, data_format="NCW")
        tf.nn.convolution(tf.placeholder(tf.float32, [2, 3, 7, 8]), tf.ones([3, 2, 3, 5]), "SAME",
                          dilation_rate=[2, 3], data_format="NCHW")
    assert_same_graph_v1(tf1, build)


def _layer(tf, padding, rate, data_format, run=True, channels_last=False):
    """tf.layers.conv1d with a dilation rate: its ops and (``run``) its output and input gradient after
    initialization; ``channels_last``: a channels-first layer computed channels-last between transposes (TF's
    CPU kernels refuse NCHW)."""
    image = VALUES["nwc_rate2"][0]
    with tf.Graph().as_default():
        x = tf.constant(image if data_format == "channels_last" else image.transpose(0, 2, 1))
        kwargs = dict(padding=padding, dilation_rate=rate, bias_initializer=tf.constant_initializer(0.5),
                      kernel_initializer=tf.constant_initializer(np.linspace(-1, 1, 36).reshape(3, 3, 4)))
        if channels_last:
            y = tf.transpose(tf.layers.conv1d(tf.transpose(x, [0, 2, 1]), 4, 3, **kwargs), [0, 2, 1])
        else:
            y = tf.layers.conv1d(x, 4, 3, data_format=data_format, **kwargs)
        grads = tf.gradients(tf.reduce_sum(y * y), [x])
        names = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
        if not run:
            return names, None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return names, sess.run([y] + grads)


@pytest.mark.tf
@pytest.mark.parametrize("padding, rate, data_format", [("causal", 2, "channels_last"), ("causal", 4, "channels_last"),
                                                         ("same", 3, "channels_last"), ("valid", 2, "channels_first")])
def test_layers_conv1d_dilated_matches_tensorflow(tf1, padding, rate, data_format):
    ours_names, ours = _layer(ours_tf, padding, rate, data_format)
    theirs_names, _ = _layer(tf1, padding, rate, data_format, run=False)
    _, theirs = _layer(tf1, padding, rate, data_format, channels_last=data_format == "channels_first")
    assert ours_names == theirs_names
    for mine, real in zip(ours, theirs):
        np.testing.assert_allclose(mine, real, rtol=1e-5, atol=1e-4)


def test_strides_with_dilation_are_refused():
    with ours_tf.Graph().as_default():
        with pytest.raises(ValueError, match="strides > 1"):
            ours_tf.nn.convolution(ours_tf.ones([1, 10, 3]), ours_tf.ones([3, 3, 2]), "SAME", strides=[2],
                                   dilation_rate=[2])
