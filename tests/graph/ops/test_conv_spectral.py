"""Tests for graph/ops/conv_spectral.py: the DFT path of unit-stride convolutions, against float64 sums and TF."""

import os
import subprocess
import sys

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.ops import conv_spectral
from graph.ops.conv_util import Window

RNG = np.random.RandomState(7)

# (image [N, H, W, C], taps (R, S), out depth K, row Window, col Window): SAME, VALID, uneven and lopsided pads.
GEOMETRIES = {
    "same_5x5": ((3, 14, 14, 32), (5, 5), 64, Window(14, 2, 2), Window(14, 2, 2)),
    "same_3x4_odd": ((2, 9, 11, 16), (3, 4), 24, Window(9, 1, 1), Window(11, 1, 2)),
    "valid_3x3": ((2, 9, 11, 16), (3, 3), 24, Window(7, 0, 0), Window(9, 0, 0)),
    "pad_after_only": ((2, 7, 8, 17), (5, 3), 19, Window(7, 0, 4), Window(6, 0, 0)),
    "pad_before_only": ((2, 7, 8, 17), (5, 3), 19, Window(7, 4, 0), Window(8, 2, 0)),
}


def _direct(image, filters, rows, cols):
    """The correlation Conv2D computes, summed in float64 tap by tap."""
    n, height, width, _ = image.shape
    out = np.zeros((n, rows.out, cols.out, filters.shape[3]))
    for r in range(filters.shape[0]):
        for s in range(filters.shape[1]):
            for i in range(rows.out):
                h = i + r - rows.pad_before
                for j in range(cols.out):
                    w = j + s - cols.pad_before
                    if 0 <= h < height and 0 <= w < width:
                        out[:, i, j] += image[:, h, w].astype(np.float64) @ filters[r, s].astype(np.float64)
    return out


def _direct_filter_grad(image, grad, rows, cols, taps):
    """Conv2DBackpropFilter at unit strides, summed in float64."""
    height, width = image.shape[1:3]
    out = np.zeros(tuple(taps) + (image.shape[3], grad.shape[3]))
    for r in range(taps[0]):
        for s in range(taps[1]):
            for i in range(rows.out):
                h = i + r - rows.pad_before
                for j in range(cols.out):
                    w = j + s - cols.pad_before
                    if 0 <= h < height and 0 <= w < width:
                        out[r, s] += image[:, h, w].astype(np.float64).T @ grad[:, i, j].astype(np.float64)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(GEOMETRIES))
def test_correlate_and_filter_grad_equal_the_float64_sums(name, dtype):
    shape, taps, out_depth, rows, cols = GEOMETRIES[name]
    image = RNG.randn(*shape).astype(dtype)
    filters = RNG.randn(*taps, shape[3], out_depth).astype(dtype)
    grad = RNG.randn(shape[0], rows.out, cols.out, out_depth).astype(dtype)
    tolerance = 1e-6 if dtype == np.float32 else 1e-13  # relative to the largest value
    out = conv_spectral.correlate(image, filters, rows, cols)
    expected = _direct(image, filters, rows, cols)
    assert out.dtype == dtype and out.shape == expected.shape and out.flags.c_contiguous
    assert np.abs(out - expected).max() <= tolerance * np.abs(expected).max()
    filter_grad = conv_spectral.filter_grad(image, grad, rows, cols, taps)
    expected = _direct_filter_grad(image, grad, rows, cols, taps)
    assert filter_grad.dtype == dtype and filter_grad.shape == expected.shape
    assert np.abs(filter_grad - expected).max() <= tolerance * np.abs(expected).max()


@pytest.fixture
def spectral_on(monkeypatch):
    """The spectral path switched on, as ``TF1_SAVER_SPECTRAL_CONV=1`` does."""
    monkeypatch.setattr(conv_spectral, "ENABLED", True)


def test_the_spectral_path_is_opt_in(monkeypatch):
    monkeypatch.setattr(conv_spectral, "ENABLED", False)
    same = (Window(14, 2, 2), Window(14, 2, 2))
    assert not conv_spectral.worthwhile((50, 14, 14, 32), (5, 5, 32, 64), *same, (1, 1), (1, 1), np.float32)


def test_the_environment_switch_turns_it_on():
    script = "from graph.ops import conv_spectral; print(conv_spectral.ENABLED)"
    for value, expected in (("1", "True"), ("on", "True"), ("0", "False"), ("", "False")):
        env = {**os.environ, conv_spectral.ENVIRONMENT_VARIABLE: value}
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        assert result.stdout.strip() == expected


@pytest.mark.usefixtures("spectral_on")
def test_worthwhile_takes_only_wide_unit_stride_layers_with_pads_inside_the_filter():
    same = (Window(14, 2, 2), Window(14, 2, 2))
    assert conv_spectral.worthwhile((50, 14, 14, 32), (5, 5, 32, 64), *same, (1, 1), (1, 1), np.float32)
    assert not conv_spectral.worthwhile((50, 14, 14, 32), (5, 5, 32, 64), *same, (2, 2), (1, 1), np.float32)
    assert not conv_spectral.worthwhile((50, 14, 14, 32), (5, 5, 32, 64), *same, (1, 1), (2, 1), np.float32)
    assert not conv_spectral.worthwhile((50, 14, 14, 32), (5, 5, 32, 64), *same, (1, 1), (1, 1), np.float16)
    assert not conv_spectral.worthwhile((50, 28, 28, 1), (5, 5, 1, 32), Window(28, 2, 2), Window(28, 2, 2),
                                        (1, 1), (1, 1), np.float32)  # one input channel: im2col is cheaper
    assert not conv_spectral.worthwhile((50, 14, 14, 32), (1, 1, 32, 64), Window(14, 0, 0), Window(14, 0, 0),
                                        (1, 1), (1, 1), np.float32)  # a 1x1 filter saves nothing
    assert not conv_spectral.worthwhile((50, 14, 14, 32), (3, 3, 32, 64), Window(18, 5, 5), Window(14, 1, 1),
                                        (1, 1), (1, 1), np.float32)  # explicit pads beyond the filter
    assert not conv_spectral.worthwhile((0, 14, 14, 32), (5, 5, 32, 64), *same, (1, 1), (1, 1), np.float32)


def _conv_and_gradients(tf, image, filters, padding):
    """Conv2D of ``image`` and ``filters`` and the gradients of a weighted sum of it, in a fresh graph of ``tf``."""
    with tf.Graph().as_default():
        x = tf.constant(image)
        w = tf.constant(filters)
        y = tf.nn.conv2d(x, w, [1, 1, 1, 1], padding)
        weights = tf.constant(np.linspace(-1, 1, int(np.prod(y.shape.as_list()))).reshape(y.shape.as_list())
                              .astype(np.float32))
        grads = tf.gradients(tf.reduce_sum(y * weights), [x, w])
        with tf.Session() as sess:
            return sess.run([y] + grads)


@pytest.mark.tf
@pytest.mark.usefixtures("spectral_on")
@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [1, 3], [4, 0], [0, 0]]])
def test_conv2d_and_its_gradients_on_the_spectral_path_match_tensorflow(padding):
    import tensorflow.compat.v1 as tf
    image = RNG.randn(4, 14, 13, 32).astype(np.float32)
    filters = RNG.randn(5, 5, 32, 48).astype(np.float32) * 0.1
    ours = _conv_and_gradients(ours_tf, image, filters, padding)
    theirs = _conv_and_gradients(tf, image, filters, padding)
    for mine, expected in zip(ours, theirs):
        assert mine.shape == expected.shape
        np.testing.assert_allclose(mine, expected, rtol=0, atol=2e-6 * np.abs(expected).max())
