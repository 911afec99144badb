"""Tests for graph/ops/conv_banded.py: the tap bands, and the banded products against a plain padded im2col
(TF itself is the oracle of the Conv2D kernels in test_conv_ops.py), whatever the chunks and the cores."""

import numpy as np
import pytest

from graph.ops import conv_banded, conv_util, intra_op

RNG = np.random.default_rng(5)


def test_tap_bands_of_same_and_valid_windows():
    same = conv_util.window_geometry(14, 5, 1, 1, b"SAME")
    assert conv_banded.tap_bands(same, 14, 5, 1, 1) == [(0, 1, 2, 5), (1, 2, 1, 5), (2, 12, 0, 5), (12, 13, 0, 4),
                                                         (13, 14, 0, 3)]
    valid = conv_util.window_geometry(14, 5, 2, 1, b"VALID")
    assert conv_banded.tap_bands(valid, 14, 5, 2, 1) == [(0, 5, 0, 5)]


def _dense(image, filters, strides, padding):
    """The plain im2col over the padded input: every window times the whole filter, in float64."""
    taps = filters.shape[:2]
    rows, cols = (conv_util.window_geometry(image.shape[axis], taps[axis - 1], strides[axis - 1], 1, padding)
                  for axis in (1, 2))
    padded = conv_util.pad_nhwc(image.astype(np.float64), rows, cols)
    view = conv_util.windows(padded, rows, cols, taps, strides)
    return view, rows, cols


@pytest.mark.parametrize("chunk_bytes", [1, 4 << 20])  # one image per chunk (many tasks), or the whole batch
@pytest.mark.parametrize("strides, padding", [((1, 1), b"SAME"), ((2, 1), b"SAME"), ((1, 1), b"VALID")])
def test_products_match_a_padded_im2col(monkeypatch, chunk_bytes, strides, padding):
    monkeypatch.setattr(conv_banded, "_COLUMN_BYTES", chunk_bytes)
    image = RNG.standard_normal((5, 9, 11, 16)).astype(np.float32)
    filters = RNG.standard_normal((5, 3, 16, 8)).astype(np.float32)
    view, rows, cols = _dense(image, filters, strides, padding)
    expected = np.einsum("nhwijc,ijco->nhwo", view, filters.astype(np.float64))
    got = conv_banded.correlate(image, filters, rows, cols, strides)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    grads = RNG.standard_normal(expected.shape).astype(np.float32)
    expected_grad = np.einsum("nhwijc,nhwo->ijco", view, grads.astype(np.float64))
    got_grad = conv_banded.correlate_filter_grad(image, grads, rows, cols, filters.shape[:2], strides)
    np.testing.assert_allclose(got_grad, expected_grad, rtol=1e-4, atol=1e-3)


def test_empty_batch_gives_zero_sized_and_zero_results():
    image = np.zeros((0, 6, 6, 16), np.float32)
    filters = RNG.standard_normal((3, 3, 16, 4)).astype(np.float32)
    window = conv_util.window_geometry(6, 3, 1, 1, b"SAME")
    assert conv_banded.correlate(image, filters, window, window, (1, 1)).shape == (0, 6, 6, 4)
    grad = conv_banded.correlate_filter_grad(image, np.zeros((0, 6, 6, 4), np.float32), window, window, (3, 3),
                                             (1, 1))
    np.testing.assert_array_equal(grad, np.zeros((3, 3, 16, 4), np.float32))


def test_same_bits_on_one_core_and_on_all(monkeypatch):
    image = RNG.standard_normal((20, 14, 14, 32)).astype(np.float32)
    filters = RNG.standard_normal((5, 5, 32, 16)).astype(np.float32)
    grads = RNG.standard_normal((20, 14, 14, 16)).astype(np.float32)
    window = conv_util.window_geometry(14, 5, 1, 1, b"SAME")

    def run():
        with intra_op.blas_pinned():
            return (conv_banded.correlate(image, filters, window, window, (1, 1)),
                    conv_banded.correlate_filter_grad(image, grads, window, window, (5, 5), (1, 1)))

    split = run()
    monkeypatch.setattr(intra_op, "_CORES", 1)
    for got, expected in zip(split, run()):
        np.testing.assert_array_equal(got, expected)
