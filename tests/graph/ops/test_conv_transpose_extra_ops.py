"""graph/ops/conv_transpose_extra_ops.py (conv1d_transpose, atrous_conv2d_transpose), tf.nn.conv3d_backprop_filter
and tf.nn.batch_norm_with_global_normalization: graphs, values, gradients and errors against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_fails_as_tensorflow, assert_same_graph_v1, failure_kind

RNG = np.random.RandomState(3)
SIGNAL = RNG.rand(2, 5, 3).astype(np.float32)
FILTER_1D = RNG.rand(3, 4, 3).astype(np.float32)  # [width, out, in]
IMAGE = RNG.rand(1, 5, 6, 3).astype(np.float32)
FILTER_2D = RNG.rand(3, 2, 4, 3).astype(np.float32)
VOLUME = RNG.rand(1, 4, 4, 4, 2).astype(np.float32)
BACKPROP_3D = RNG.rand(1, 3, 3, 3, 3).astype(np.float32)


def _conv1d_transpose(tf, stride, padding, width):
    x, w = tf.constant(SIGNAL), tf.constant(FILTER_1D)
    return tf.nn.conv1d_transpose(x, w, [2, width, 4], stride, padding), [x, w]


def _atrous_transpose(tf, rate, padding, height, width):
    x, w = tf.constant(IMAGE), tf.constant(FILTER_2D)
    return tf.nn.atrous_conv2d_transpose(x, w, [1, height, width, 4], rate, padding), [x, w]


def _run(tf, build):
    with tf.Graph().as_default():
        y, sources = build(tf)
        grads = tf.gradients(tf.reduce_sum(y * y), sources)
        with tf.Session() as sess:
            return y.shape.as_list(), sess.run([y] + grads)


def _assert_runs_match(tf1, build):
    ours_shape, ours = _run(ours_tf, build)
    theirs_shape, theirs = _run(tf1, build)
    assert ours_shape == theirs_shape
    for mine, real in zip(ours, theirs):
        np.testing.assert_allclose(mine, real, rtol=1e-5, atol=1e-5)


@pytest.mark.tf
@pytest.mark.parametrize("stride, padding, width", [
    (1, "SAME", 5), (2, "SAME", 10), (2, "VALID", 11), (3, "VALID", 15)])
def test_conv1d_transpose_matches_tensorflow(tf1, stride, padding, width):
    _assert_runs_match(tf1, lambda tf: _conv1d_transpose(tf, stride, padding, width))


@pytest.mark.tf
@pytest.mark.parametrize("rate, padding, height, width", [
    (1, "SAME", 5, 6), (2, "SAME", 5, 6), (3, "SAME", 5, 6), (2, "VALID", 9, 8), (3, "VALID", 11, 9)])
def test_atrous_conv2d_transpose_matches_tensorflow(tf1, rate, padding, height, width):
    _assert_runs_match(tf1, lambda tf: _atrous_transpose(tf, rate, padding, height, width))


@pytest.mark.tf
def test_graphs_match_tensorflow(tf1):
    def build(tf):
        signals = tf.placeholder(tf.float32, [None, 5, 3], name="signals")
        filters = tf.placeholder(tf.float32, [3, 4, 3], name="filters")
        tf.nn.conv1d_transpose(signals, filters, [2, 10, 4], 2, "SAME")
        tf.nn.conv1d_transpose(tf.transpose(signals, [0, 2, 1]), filters, tf.constant([2, 4, 10]), [2], "VALID",
                               data_format="NCW", name="channels_first")
        image = tf.placeholder(tf.float32, [1, 5, 6, 3], name="image")
        kernel = tf.placeholder(tf.float32, [3, 2, 4, 3], name="kernel")
        tf.nn.atrous_conv2d_transpose(image, kernel, [1, 5, 6, 4], 2, "SAME")
        tf.nn.atrous_conv2d_transpose(image, kernel, (1, 11, 9, 4), 3, "VALID", name="valid")
        tf.nn.atrous_conv2d_transpose(image, kernel, [1, 5, 6, 4], 1, "SAME")
        unknown = tf.placeholder(tf.float32, [None, None, 4, 3], name="unknown_kernel")
        tf.nn.atrous_conv2d_transpose(image, unknown, [1, 5, 6, 4], 2, "SAME", name="unknown")
        volume = tf.placeholder(tf.float32, [1, 4, 4, 4, 2], name="volume")
        tf.nn.conv3d_backprop_filter(volume, [2, 2, 2, 2, 3], tf.placeholder(tf.float32, [1, 3, 3, 3, 3]),
                                     [1] * 5, "VALID")
        x = tf.placeholder(tf.float32, [2, 3, 3, 4], name="x")
        stats = [tf.placeholder(tf.float32, [4], name=name) for name in "mvbg"]
        tf.nn.batch_norm_with_global_normalization(x, *stats, 1e-3, True)
        tf.nn.batch_norm_with_global_normalization(input=x, mean=stats[0], variance=stats[1], beta=stats[2],
                                                   gamma=stats[3], variance_epsilon=1e-3,
                                                   scale_after_normalization=False, name="unscaled")

    assert_same_graph_v1(tf1, build)


@pytest.mark.tf
def test_atrous_transpose_of_unknown_filter_runs_as_tensorflow(tf1):
    def run(tf):
        with tf.Graph().as_default():
            w = tf.placeholder(tf.float32, [None, None, 4, 3])
            y = tf.nn.atrous_conv2d_transpose(tf.constant(IMAGE), w, [1, 5, 6, 4], 2, "SAME")
            with tf.Session() as sess:
                return sess.run(y, {w: FILTER_2D})

    np.testing.assert_allclose(run(ours_tf), run(tf1), rtol=1e-5, atol=1e-5)


@pytest.mark.tf
def test_conv3d_backprop_filter_and_global_batch_norm_values_match_tensorflow(tf1):
    stats = [RNG.rand(4).astype(np.float32) for _ in range(4)]
    x_value = RNG.rand(2, 3, 3, 4).astype(np.float32)

    def build(tf):
        x = tf.constant(x_value)
        normalized = tf.nn.batch_norm_with_global_normalization(x, *[tf.constant(s) for s in stats], 1e-3, True)
        plain = tf.nn.batch_norm_with_global_normalization(x, *[tf.constant(s) for s in stats], 1e-3, False)
        filt = tf.nn.conv3d_backprop_filter(tf.constant(VOLUME), [2, 2, 2, 2, 3], tf.constant(BACKPROP_3D),
                                            [1] * 5, "VALID")
        return normalized + plain + tf.reduce_sum(filt * filt), [x]  # the filter gradient's values join the sum

    _assert_runs_match(tf1, build)
    with tf1.Graph().as_default(), ours_tf.Graph().as_default():
        theirs = tf1.Session().run(tf1.nn.conv3d_backprop_filter(VOLUME, [2, 2, 2, 2, 3], BACKPROP_3D, [1] * 5,
                                                                 "VALID"))
        ours = ours_tf.Session().run(ours_tf.nn.conv3d_backprop_filter(VOLUME, [2, 2, 2, 2, 3], BACKPROP_3D,
                                                                       [1] * 5, "VALID"))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


ERRORS = {
    "1d format": lambda tf: tf.nn.conv1d_transpose(SIGNAL, FILTER_1D, [2, 5, 4], 1, data_format="NHWC"),
    "1d stride": lambda tf: tf.nn.conv1d_transpose(SIGNAL, FILTER_1D, [2, 5, 4], [1, 2, 1, 1]),
    "atrous channels": lambda tf: tf.nn.atrous_conv2d_transpose(IMAGE, FILTER_2D[..., :2], [1, 5, 6, 4], 2,
                                                                "SAME"),
    "atrous rate": lambda tf: tf.nn.atrous_conv2d_transpose(IMAGE, FILTER_2D, [1, 5, 6, 4], 0, "SAME"),
    "atrous output rank": lambda tf: tf.nn.atrous_conv2d_transpose(IMAGE, FILTER_2D, [1, 5, 6], 2, "SAME"),
    "atrous output channels": lambda tf: tf.nn.atrous_conv2d_transpose(IMAGE, FILTER_2D, [1, 5, 6, 5], 2,
                                                                       "SAME"),
    "atrous padding": lambda tf: tf.nn.atrous_conv2d_transpose(IMAGE, FILTER_2D, [1, 5, 6, 4], 2, "FULL"),
    "batch norm aliases": lambda tf: tf.nn.batch_norm_with_global_normalization(
        IMAGE, np.ones(3, np.float32), np.ones(3, np.float32), None, None, 1e-3, False, input=IMAGE),
}


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tensorflow(tf1, case):
    assert_fails_as_tensorflow(tf1, ERRORS[case])


@pytest.mark.tf
def test_mismatched_output_shape_fails_at_run_time_as_tensorflow(tf1):
    def build(tf):
        return tf.nn.conv1d_transpose(SIGNAL, FILTER_1D, [2, 7, 4], 1, "SAME")

    assert failure_kind(ours_tf, build) == failure_kind(tf1, build) == "InvalidArgumentError"
