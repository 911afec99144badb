"""Tap-major im2col for convolutions over few channels (a grayscale or RGB first layer).

NHWC im2col copies runs of ``channels`` elements: with one channel every run is one float and the
copy, not the product, costs the most.  Here the image is first laid out as channel planes
``[C, N, rows, cols]`` (padded), and the columns matrix is built transposed, one row per filter
tap and channel: ``[taps_rows * taps_cols * C, N * out_rows * out_cols]``, each row one strided
slice of a plane, copied in runs of a whole output row.  Rows are ordered (tap row, tap col,
channel) as a ``[rows, cols, in, out]`` filter reshaped to ``[taps * in, out]``, so the forward
product, the filter gradient and the input gradient (col2im, tap by tap on the planes) are each
one BLAS product per chunk of images.
"""

from __future__ import annotations

import numpy as np

from graph.ops import intra_op
from graph.ops.conv_util import Window, batch_chunks

__all__ = ["correlate", "filter_grad", "input_grad"]

# Images per chunk are chosen so a chunk's columns take about this many bytes (they stay in cache).
_COLUMN_BYTES = 4 << 20


def _padded_extent(size: int, window: Window, taps: int, stride: int, dilation: int) -> int:
    """The padded length every tap slice fits in (at least the input plus both pads)."""
    return max(size + window.pad_before + window.pad_after, (window.out - 1) * stride + (taps - 1) * dilation + 1)


def _tap_slice(tap: int, window: Window, stride: int, dilation: int) -> slice:
    """The padded positions tap ``tap`` of every window reads."""
    start = tap * dilation
    return slice(start, start + (window.out - 1) * stride + 1, stride)


def _planes(image: np.ndarray, rows: Window, cols: Window, taps, strides, dilations) -> np.ndarray:
    """The NHWC ``image`` as zero-padded channel planes ``[C, N, padded rows, padded cols]``."""
    n, height, width, depth = image.shape
    planes = np.zeros((depth, n, _padded_extent(height, rows, taps[0], strides[0], dilations[0]),
                       _padded_extent(width, cols, taps[1], strides[1], dilations[1])), image.dtype)
    planes[:, :, rows.pad_before:rows.pad_before + height, cols.pad_before:cols.pad_before + width] = \
        image.transpose(3, 0, 1, 2)
    return planes


def _chunks(n: int, per_image_bytes: int, pieces: int = 1) -> list[tuple[int, int]]:
    """`conv_util.batch_chunks` of `_COLUMN_BYTES` (the filter gradient, which sums one product per chunk, asks
    for one piece: its chunks, hence its result, do not depend on the cores)."""
    return batch_chunks(n, per_image_bytes, _COLUMN_BYTES, pieces)


def _shares(chunks: list, pieces: int) -> list[list]:
    """``chunks`` dealt into at most ``pieces`` runs of consecutive chunks, one per pool thread."""
    pieces = min(pieces, len(chunks))
    if not pieces:  # an empty batch: nothing to multiply
        return []
    bounds = [len(chunks) * k // pieces for k in range(pieces + 1)]
    return [chunks[lo:hi] for lo, hi in zip(bounds, bounds[1:]) if hi > lo]


def _columns(planes: np.ndarray, chunks: list, rows: Window, cols: Window, taps, strides, dilations, use) -> None:
    """Calls ``use(start, stop, columns)`` with the transposed im2col ``[taps * C, images * out_rows * out_cols]``
    of each chunk of images in ``chunks``, built in one buffer."""
    depth = planes.shape[0]
    height = taps[0] * taps[1] * depth
    per_image = height * rows.out * cols.out
    buffer = np.empty(per_image * max(stop - start for start, stop in chunks), planes.dtype)
    for start, stop in chunks:
        part = buffer[:per_image * (stop - start)].reshape(taps[0], taps[1], depth, stop - start, rows.out,
                                                           cols.out)
        for i in range(taps[0]):
            for j in range(taps[1]):
                part[i, j] = planes[:, start:stop, _tap_slice(i, rows, strides[0], dilations[0]),
                                    _tap_slice(j, cols, strides[1], dilations[1])]
        use(start, stop, part.reshape(height, (stop - start) * rows.out * cols.out))


def correlate(image: np.ndarray, filters: np.ndarray, rows: Window, cols: Window, strides, dilations) -> np.ndarray:
    """Conv2D's product, NHWC ``[N, out_rows, out_cols, out]``, for an image of few channels."""
    taps, out_depth = filters.shape[:2], filters.shape[3]
    matrix = filters.reshape(taps[0] * taps[1] * filters.shape[2], out_depth)
    positions = rows.out * cols.out
    out = np.empty((image.shape[0] * positions, out_depth), np.result_type(image.dtype, filters.dtype))
    planes = _planes(image, rows, cols, taps, strides, dilations)
    pieces = intra_op.pieces_for(out.size * matrix.shape[0])
    chunks = _chunks(image.shape[0], matrix.shape[0] * positions * planes.itemsize, pieces)

    def product(start, stop, columns):
        np.matmul(columns.T, matrix, out=out[start * positions:stop * positions])

    intra_op.run_parts([lambda share=share: _columns(planes, share, rows, cols, taps, strides, dilations, product)
                        for share in _shares(chunks, pieces)])
    return out.reshape(image.shape[0], rows.out, cols.out, out_depth)


def filter_grad(image: np.ndarray, grads: np.ndarray, rows: Window, cols: Window, taps, strides,
                dilations) -> np.ndarray:
    """Conv2DBackpropFilter's product ``[taps_rows, taps_cols, in, out]`` for an image of few channels."""
    depth, out_depth = image.shape[3], grads.shape[3]
    positions = rows.out * cols.out
    flat = grads.reshape(grads.shape[0] * positions, out_depth)
    total = np.zeros((taps[0] * taps[1] * depth, out_depth), np.result_type(image.dtype, grads.dtype))
    planes = _planes(image, rows, cols, taps, strides, dilations)
    chunks = _chunks(image.shape[0], total.shape[0] * positions * planes.itemsize)
    products: dict = {}
    pieces = intra_op.pieces_for(flat.size * total.shape[0])
    # Several chunks run on the pool's threads; a single one splits its product instead.
    multiply = np.matmul if len(chunks) > 1 else intra_op.matmul

    def product(start, stop, columns):
        products[start] = multiply(columns, flat[start * positions:stop * positions])

    intra_op.run_parts([lambda share=share: _columns(planes, share, rows, cols, taps, strides, dilations, product)
                        for share in _shares(chunks, pieces)])
    for start, _ in chunks:  # summed in chunk order, as one thread would
        total += products[start]
    return total.reshape(taps[0], taps[1], depth, out_depth)


def input_grad(grads: np.ndarray, filters: np.ndarray, shape, rows: Window, cols: Window, strides,
               dilations) -> np.ndarray:
    """Conv2DBackpropInput's product, NHWC of ``shape``, for an input of few channels: per chunk of images the
    transposed columns ``filters @ grads.T``, each tap's row added onto the planes where that tap reads (chunks
    write disjoint images, so they run on the pool's threads)."""
    n, height, width, depth = shape
    taps, out_depth = filters.shape[:2], filters.shape[3]
    positions = rows.out * cols.out
    matrix = filters.reshape(taps[0] * taps[1] * depth, out_depth)
    flat = grads.reshape(n * positions, out_depth)
    dtype = np.result_type(grads.dtype, filters.dtype)
    planes = np.zeros((depth, n, _padded_extent(height, rows, taps[0], strides[0], dilations[0]),
                       _padded_extent(width, cols, taps[1], strides[1], dilations[1])), dtype)
    pieces = intra_op.pieces_for(flat.size * matrix.shape[0])
    chunks = _chunks(n, taps[0] * taps[1] * depth * positions * planes.itemsize, pieces)

    def scatter(share):
        for start, stop in share:
            columns = (matrix @ flat[start * positions:stop * positions].T).reshape(
                taps[0], taps[1], depth, stop - start, rows.out, cols.out)
            for i in range(taps[0]):
                for j in range(taps[1]):
                    planes[:, start:stop, _tap_slice(i, rows, strides[0], dilations[0]),
                           _tap_slice(j, cols, strides[1], dilations[1])] += columns[i, j]

    intra_op.run_parts([lambda share=share: scatter(share) for share in _shares(chunks, pieces)])
    image = planes[:, :, rows.pad_before:rows.pad_before + height, cols.pad_before:cols.pad_before + width]
    return np.ascontiguousarray(image.transpose(1, 2, 3, 0))
