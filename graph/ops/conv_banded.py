"""The banded NHWC im2col of 2-D convolutions over 16 or more channels, its work shared by the intra-op pool.

The output positions are cut into blocks whose windows read the same taps of real input
(`tap_bands`: SAME 5x5 over 14x14 gives 5 x 5 blocks), so nothing is multiplied by padding.  Each
block's windows are a strided view of the unpadded input (graph.ops.conv_util.windows), copied a
few images at a time (about `_COLUMN_BYTES`, so the columns stay in cache) into a
``[positions, taps * in_depth]`` matrix and multiplied by the block's taps of the filter.

Every (block, chunk of images) is one task; the tasks of a call run on the intra-op pool, largest
first, in one hand-off (blocks near the border are small: one hand-off each would cost more than
they do).  Each thread copies into its own reused buffer.  The forward product writes disjoint
output rows, so its chunks may be cut for the cores; the filter gradient sums one product per
chunk, so its chunks are the serial ones and the sums run in the serial order afterwards: results
never depend on the cores.
"""

from __future__ import annotations

import threading

import numpy as np

from graph.ops import intra_op
from graph.ops.conv_util import Window, batch_chunks, windows

__all__ = ["tap_bands", "correlate", "correlate_filter_grad"]

# im2col runs a few images at a time into a reused buffer of about this many bytes: the columns stay in the
# CPU's cache between the copy and the product, and no image-sized temporary is allocated per call.
_COLUMN_BYTES = 4 << 20

_local = threading.local()  # each thread's column buffers, by dtype (kept between calls: no page faults)


def tap_bands(window: Window, size: int, taps: int, stride: int, dilation: int) -> list[tuple[int, int, int, int]]:
    """``(out_start, out_stop, tap_start, tap_stop)`` runs of output positions whose windows read the input
    (not padding) with the same taps: SAME 5x5 over 14 gives 5 bands, a VALID window one band of all taps."""
    bands: list[tuple[int, int, int, int]] = []
    for position in range(window.out):
        first = position * stride - window.pad_before  # where tap 0 reads; padding before 0 and from ``size``
        start = max(0, -(first // dilation))  # the first tap at or after input element 0
        stop = max(start, min(taps, (size - 1 - first) // dilation + 1))
        if bands and bands[-1][2:] == (start, stop):
            bands[-1] = (bands[-1][0], position + 1, start, stop)
        else:
            bands.append((position, position + 1, start, stop))
    return bands


def _blocks(image: np.ndarray, rows: Window, cols: Window, taps: tuple[int, int], strides: tuple[int, int],
            dilations: tuple[int, int]):
    """Yields ``(row_band, col_band, windows)`` per output block: the windows view over the real input the
    block's taps read (None when they read only padding)."""
    for row_band in tap_bands(rows, image.shape[1], taps[0], strides[0], dilations[0]):
        r0, r1, i0, i1 = row_band
        for col_band in tap_bands(cols, image.shape[2], taps[1], strides[1], dilations[1]):
            c0, c1, j0, j1 = col_band
            if i1 <= i0 or j1 <= j0:
                yield row_band, col_band, None
                continue
            top = r0 * strides[0] - rows.pad_before + i0 * dilations[0]
            left = c0 * strides[1] - cols.pad_before + j0 * dilations[1]
            yield row_band, col_band, windows(image[:, top:, left:], Window(r1 - r0, 0, 0), Window(c1 - c0, 0, 0),
                                              (i1 - i0, j1 - j0), strides, dilations)


def _image_chunks(view: np.ndarray, pieces: int = 1) -> list[tuple[int, int]]:
    """`conv_util.batch_chunks` over the batch of a windows ``view``, of `_COLUMN_BYTES` of columns."""
    per_image = int(np.prod(view.shape[1:])) * view.itemsize  # view[0] does not exist for an empty batch
    return batch_chunks(view.shape[0], per_image, _COLUMN_BYTES, pieces)


def _columns(view: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The im2col matrix ``[images * positions, taps * depth]`` of images ``start:stop`` of ``view``, copied
    into this thread's buffer (valid until the thread's next call)."""
    shape = (stop - start,) + view.shape[1:]
    size = int(np.prod(shape))
    buffers = _local.__dict__.setdefault("buffers", {})
    buffer = buffers.get(view.dtype)
    if buffer is None or buffer.size < size:
        buffer = buffers[view.dtype] = np.empty(size, view.dtype)
    part = buffer[:size].reshape(shape)
    np.copyto(part, view[start:stop])
    return part.reshape(-1, shape[3] * shape[4] * shape[5])


def _run(tasks: list[tuple[int, object]]) -> None:
    """Runs ``(multiply-adds, callable)`` tasks, largest first, on the intra-op pool when they are worth it."""
    tasks.sort(key=lambda task: -task[0])  # stable: equal tasks keep their order
    if intra_op.worth_splitting(sum(cost for cost, _ in tasks)):
        intra_op.run_parts([task for _, task in tasks])
    else:
        for _, task in tasks:
            task()


def correlate(image: np.ndarray, filters: np.ndarray, rows: Window, cols: Window, strides: tuple[int, int],
              dilations: tuple[int, int] = (1, 1)) -> np.ndarray:
    """Conv2D's product, NHWC: ``[N, out_rows, out_cols, out_depth]`` from ``filters`` ``[rows, cols, in, out]``.

    im2col onto BLAS per block of output positions (`tap_bands`): a block near the border multiplies
    only the taps that read real input, so no multiplication by padding is done (a sixth of the work
    for SAME 5x5 over 14x14) and the input is never padded.
    """
    out_depth = filters.shape[3]
    shape = (image.shape[0], rows.out, cols.out, out_depth)
    out = np.empty(shape, np.result_type(image.dtype, filters.dtype))
    tasks: list = []
    for (r0, r1, i0, i1), (c0, c1, j0, j1), view in _blocks(image, rows, cols, filters.shape[:2], strides,
                                                            dilations):
        if view is None:
            out[:, r0:r1, c0:c1] = 0
            continue
        matrix = filters[i0:i1, j0:j1].reshape((i1 - i0) * (j1 - j0) * filters.shape[2], out_depth)
        per_image = (r1 - r0) * (c1 - c0)
        cost = per_image * matrix.size
        whole = (r1 - r0, c1 - c0) == shape[1:3]  # one block: its product rows are the output's, in place
        chunks = _image_chunks(view, intra_op.pieces_for(shape[0] * cost))

        def task(view=view, matrix=matrix, start=0, stop=0, block=(r0, r1, c0, c1), whole=whole,
                 per_image=per_image):
            columns = _columns(view, start, stop)
            if whole:
                np.matmul(columns, matrix, out=out.reshape(-1, out_depth)[start * per_image:stop * per_image])
            else:
                out[start:stop, block[0]:block[1], block[2]:block[3]] = np.matmul(columns, matrix).reshape(
                    stop - start, block[1] - block[0], block[3] - block[2], out_depth)

        tasks += [((stop - start) * cost, lambda start=start, stop=stop, task=task: task(start=start, stop=stop))
                  for start, stop in chunks]
    _run(tasks)
    return out


def correlate_filter_grad(image: np.ndarray, grads: np.ndarray, rows: Window, cols: Window, taps: tuple[int, int],
                          strides: tuple[int, int], dilations: tuple[int, int] = (1, 1)) -> np.ndarray:
    """Conv2DBackpropFilter's product: ``[taps_rows, taps_cols, in, out]`` from the NHWC image and the
    ``[N, out_rows, out_cols, out]`` gradient, by the blocks of `correlate` (no products with padding)."""
    depth, out_depth = image.shape[3], grads.shape[3]
    total = np.zeros((taps[0], taps[1], depth, out_depth), np.result_type(image.dtype, grads.dtype))
    blocks: list = []  # (taps block, products by chunk, in chunk order)
    tasks: list = []
    for (r0, r1, i0, i1), (c0, c1, j0, j1), view in _blocks(image, rows, cols, taps, strides, dilations):
        if view is None:
            continue
        chunks = _image_chunks(view)  # the serial chunks: each product is summed in their order below
        if not chunks:  # an empty batch
            continue
        products: list = [None] * len(chunks)
        blocks.append(((i0, i1, j0, j1), products))

        def task(k, start, stop, view=view, products=products, block=(r0, r1, c0, c1)):
            columns = _columns(view, start, stop)
            rhs = np.ascontiguousarray(grads[start:stop, block[0]:block[1], block[2]:block[3]])
            products[k] = columns.T @ rhs.reshape(-1, out_depth)

        cost = (r1 - r0) * (c1 - c0) * (i1 - i0) * (j1 - j0) * depth * out_depth
        tasks += [((stop - start) * cost, lambda k=k, start=start, stop=stop, task=task: task(k, start, stop))
                  for k, (start, stop) in enumerate(chunks)]
    _run(tasks)
    for (i0, i1, j0, j1), products in blocks:
        block_total = products[0]
        for product in products[1:]:
            np.add(block_total, product, out=block_total)
        total[i0:i1, j0:j1] += block_total.reshape(i1 - i0, j1 - j0, depth, out_depth)
    return total
