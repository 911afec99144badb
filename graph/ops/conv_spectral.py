"""Unit-stride 2-D convolutions by discrete Fourier transform: fewer multiplications for wide layers.

A stride-1 correlation of an ``[N, H, W, C]`` image with an ``[R, S, C, K]`` filter multiplies
``N * Ho * Wo * R * S * C * K`` pairs by im2col.  In the frequency domain it is one ``[N, C] @ [C, K]``
product per frequency of an ``Lh x (Lw // 2 + 1)`` half spectrum: for a 5x5 filter over a 14x14
image (Lh = Lw = 16) that is about ten times fewer multiplications, and the transforms themselves
are small matrix products here (a DFT as a matrix, one spatial axis at a time), so every step is BLAS.

The transform lengths are the shortest without wrap-around for the outputs wanted: the circular
correlation over ``L`` points equals the linear one on ``Ho`` outputs when
``L >= max(H + pad_before, Ho + R - 1 - pad_before)``.  The filter gradient, a correlation of the
image with the output gradient summed over the batch, needs the same lengths.  Results agree with the
direct product to float32 rounding (computed in complex64 for float32, complex128 for float64; on the
layers it is used for its error is below im2col's, whose sums run over R*S*C terms in float32).

Opt-in (``TF1_SAVER_SPECTRAL_CONV=1``), as TensorFlow's ``TF_ENABLE_ONEDNN_OPTS`` changes its own
numerics.  im2col's rounding stays close to TF's Eigen kernel (both multiply the same window columns by
the filter); the DFT's sums, as exact, round differently, and a training decision that hangs on the last
bits (presumably a ReLU at zero or a max-pool near-tie) can then fall the other way: tests/programs' MNIST
convolutional model prints a loss of 6.521 after two steps where TF and im2col print 6.524 (an exact
complex128 transform prints 6.521 too).
"""

from __future__ import annotations

import functools
import os

import numpy as np

from graph.ops import intra_op
from graph.ops.conv_util import Window

__all__ = ["ENABLED", "worthwhile", "correlate", "filter_grad"]

ENVIRONMENT_VARIABLE = "TF1_SAVER_SPECTRAL_CONV"
ENABLED = os.environ.get(ENVIRONMENT_VARIABLE, "0").strip().lower() in ("1", "on", "true", "yes")

_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_MIN_CHANNELS = 16  # fewer input or output channels: the transforms cost more than the products save
_MIN_SAVING = 4.0  # im2col multiplications over the spectral product's, below which im2col stays


def _length(size: int, out: int, taps: int, pad_before: int) -> int:
    """The shortest DFT length whose circular correlation gives the ``out`` linear outputs exactly."""
    return max(size + pad_before, out + taps - 1 - pad_before, 1)


def worthwhile(image_shape, filter_shape, rows: Window, cols: Window, strides, dilations, dtype) -> bool:
    """Whether the spectral path is on (`ENABLED`), applies (unit strides and dilations, pads within the filter,
    float32/64) and multiplies at least `_MIN_SAVING` times fewer pairs than im2col."""
    if not ENABLED or tuple(strides) != (1, 1) or tuple(dilations) != (1, 1) or np.dtype(dtype) not in _COMPLEX:
        return False
    batch, height, width, depth = image_shape
    taps_rows, taps_cols, _, out_depth = filter_shape
    if min(depth, out_depth) < _MIN_CHANNELS or min(batch, height, width, rows.out, cols.out) < 1:
        return False  # narrow layers, and empty tensors (nothing to multiply)
    if not (0 <= rows.pad_before < taps_rows and 0 <= cols.pad_before < taps_cols):
        return False
    length_rows = _length(height, rows.out, taps_rows, rows.pad_before)
    length_cols = _length(width, cols.out, taps_cols, cols.pad_before)
    direct = rows.out * cols.out * taps_rows * taps_cols
    spectral = 2 * length_rows * (length_cols // 2 + 1)  # a complex multiply-add is four real ones
    return direct >= _MIN_SAVING * spectral


@functools.lru_cache(maxsize=64)
def _dft(frequencies: int, length: int, positions: int, offset: int, sign: int, dtype: np.dtype,
         scale: float = 1.0, half: bool = False) -> np.ndarray:
    """``[frequencies, positions]`` matrix ``scale * exp(sign * 2 pi i * f * (p - offset) / length)`` (read only);
    ``half``: the real inverse's weights over a half spectrum (2 for the frequencies standing for a pair)."""
    f = np.arange(frequencies)[:, None]
    p = np.arange(positions)[None, :] - offset
    matrix = scale * np.exp(sign * 2j * np.pi * ((f * p) % length) / length)
    if half:
        weights = np.full(frequencies, 2.0)
        weights[0] = 1.0
        if length % 2 == 0:
            weights[-1] = 1.0
        matrix *= weights[:, None]
    matrix = matrix.astype(dtype)
    matrix.flags.writeable = False
    return matrix


def _spectrum(image: np.ndarray, lengths: tuple[int, int], sign: int, complex_dtype) -> np.ndarray:
    """``[Lh * (Lw // 2 + 1), N, C]``: the 2-D DFT of each ``[H, W]`` plane of the NHWC ``image``, half along W."""
    n, height, width, depth = image.shape
    half = lengths[1] // 2 + 1
    along_cols = intra_op.matmul(_dft(half, lengths[1], width, 0, sign, complex_dtype),
                                 image.transpose(2, 0, 1, 3).reshape(width, -1).astype(complex_dtype))  # [Fw, N*H*C]
    along_rows = np.ascontiguousarray(along_cols.reshape(half, n, height, depth).transpose(2, 0, 1, 3))
    spectrum = intra_op.matmul(_dft(lengths[0], lengths[0], height, 0, sign, complex_dtype),
                               along_rows.reshape(height, -1))
    return spectrum.reshape(lengths[0] * half, n, depth)


def _filter_spectrum(filters: np.ndarray, lengths: tuple[int, int], offsets: tuple[int, int],
                     complex_dtype) -> np.ndarray:
    """``[Lh * Fw, C, K]``: the filter's taps at lags ``tap - offset``, transformed with the conjugate kernel."""
    taps_rows, taps_cols, depth, out_depth = filters.shape
    half = lengths[1] // 2 + 1
    along_cols = _dft(half, lengths[1], taps_cols, offsets[1], 1, complex_dtype) @ \
        filters.transpose(1, 0, 2, 3).reshape(taps_cols, -1).astype(complex_dtype)  # [Fw, R*C*K]
    along_rows = np.ascontiguousarray(along_cols.reshape(half, taps_rows, depth, out_depth).transpose(1, 0, 2, 3))
    spectrum = _dft(lengths[0], lengths[0], taps_rows, offsets[0], 1, complex_dtype) @ \
        along_rows.reshape(taps_rows, -1)
    return spectrum.reshape(lengths[0] * half, depth, out_depth)


def _real_inverse(spectrum: np.ndarray, lengths: tuple[int, int], sizes: tuple[int, int],
                  offsets: tuple[int, int], dtype) -> np.ndarray:
    """The real ``[sizes[0], sizes[1], rest...]`` signal at positions ``p - offset`` of a half spectrum
    ``[Lh, Fw, rest...]`` (the inverse 2-D DFT, its imaginary part dropped)."""
    half = lengths[1] // 2 + 1
    rest = spectrum.shape[2:]
    complex_dtype = spectrum.dtype
    rows_done = intra_op.matmul(_inverse_matrix(sizes[0], lengths[0], offsets[0], complex_dtype, 1.0, False),
                                spectrum.reshape(lengths[0], -1))  # [size0, Fw * rest]
    by_cols = np.ascontiguousarray(rows_done.reshape((sizes[0], half) + rest).swapaxes(0, 1))
    cols = _inverse_matrix(sizes[1], lengths[1], offsets[1], complex_dtype, 1.0 / (lengths[0] * lengths[1]), True)
    signal = intra_op.matmul(cols, by_cols.reshape(half, -1)).real
    return signal.astype(dtype, copy=False).reshape((sizes[1], sizes[0]) + rest)


@functools.lru_cache(maxsize=64)
def _inverse_matrix(positions: int, length: int, offset: int, dtype, scale: float, half: bool) -> np.ndarray:
    """``[positions, frequencies]``: ``scale * w_f * exp(+2 pi i f (p - offset) / length)``, the inverse DFT rows for
    positions ``p - offset``; over a half spectrum (``half``) with the pair weights ``w_f``."""
    frequencies = length // 2 + 1 if half else length
    return np.ascontiguousarray(_dft(frequencies, length, positions, offset, 1, dtype, scale, half).T)


def correlate(image: np.ndarray, filters: np.ndarray, rows: Window, cols: Window) -> np.ndarray:
    """``[N, rows.out, cols.out, K]``: the unit-stride correlation Conv2D computes, by DFT."""
    complex_dtype = _COMPLEX[image.dtype]
    taps = filters.shape[:2]
    lengths = (_length(image.shape[1], rows.out, taps[0], rows.pad_before),
               _length(image.shape[2], cols.out, taps[1], cols.pad_before))
    offsets = (rows.pad_before, cols.pad_before)
    products = intra_op.matmul(_spectrum(image, lengths, -1, complex_dtype),
                               _filter_spectrum(filters, lengths, offsets, complex_dtype))  # [Q, N, K]
    half = lengths[1] // 2 + 1
    out = _real_inverse(products.reshape((lengths[0], half) + products.shape[1:]), lengths, (rows.out, cols.out),
                        (0, 0), image.dtype)  # [Wo, Ho, N, K]
    return np.ascontiguousarray(out.transpose(2, 1, 0, 3))


def filter_grad(image: np.ndarray, out_backprop: np.ndarray, rows: Window, cols: Window, taps) -> np.ndarray:
    """``[R, S, C, K]``: Conv2DBackpropFilter at unit strides, ``sum over n, i, j of image[n, i + r - pad, j + s - pad]
    * out_backprop[n, i, j]``, by DFT (the correlation of the image with the gradient, per channel pair)."""
    complex_dtype = _COMPLEX[image.dtype]
    lengths = (_length(image.shape[1], rows.out, taps[0], rows.pad_before),
               _length(image.shape[2], cols.out, taps[1], cols.pad_before))
    # The gradient's spectrum with the conjugate kernel is the conjugate of its spectrum (a real signal).
    products = intra_op.matmul(_spectrum(image, lengths, -1, complex_dtype).transpose(0, 2, 1),
                               _spectrum(out_backprop, lengths, 1, complex_dtype))  # [Q, C, K]
    half = lengths[1] // 2 + 1
    grad = _real_inverse(products.reshape((lengths[0], half) + products.shape[1:]), lengths, tuple(taps),
                         (rows.pad_before, cols.pad_before), image.dtype)  # [S, R, C, K]
    return np.ascontiguousarray(grad.transpose(1, 0, 2, 3))
