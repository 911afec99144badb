"""Pooling: MaxPool, MaxPoolGrad, MaxPoolGradGrad, AvgPool, AvgPoolGrad, and tf.nn.max_pool / avg_pool.

Op types, attrs and default names are TensorFlow's.  Every kernel loops over the few window
taps only, each step one vectorized pass over the whole output.  Max pooling's maxima and the
taps its gradient goes to (the first maximum in row-major scan order, padding skipped, NaN never
winning, as TF's CPU kernels pick them) are computed by graph.ops.pooling_max.  Average pooling divides by the number of valid (unpadded) elements in the window; its
gradient spreads each output over the inputs TF's AvgPoolGrad picks (see `_broadcast`), as two small
matrix products.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import constant_ops as ops
from graph.ops import conv_ops
from graph.ops import conv_util
from graph.ops import intra_op
from graph.ops import pooling_max
from graph.ops.conv_util import format_bytes

__all__ = ["max_pool", "avg_pool", "max_pool_grad", "max_pool_grad_grad", "avg_pool_grad"]

# Below this many input elements a kernel runs on one thread: handing work to the pool costs ~50 us.
_PARALLEL_ELEMENTS = 1 << 16


def _params(op, run: bool = False):
    """(data_format, (ksize rows, cols), (stride rows, cols)) of a pooling op."""
    data_format = format_bytes(op._attrs.get("data_format", b"NHWC"))
    return data_format, conv_util.spatial_attrs(op, "ksize", run=run), conv_util.spatial_attrs(
        op, "strides", run=run)


def _depth_window(op) -> int:
    """A MaxPool's window across the depth (NHWC ksize[3]); above 1 it pools depth only, as TF's CPU kernel."""
    if op.type != "MaxPool" or format_bytes(op._attrs.get("data_format", b"NHWC")) != b"NHWC":
        return 1
    ksize = conv_util.sequence_attr(op, "ksize")
    return ksize[3] if len(ksize) == 4 else 1


def _pooled_shape(op, input_shape: TensorShape) -> TensorShape:
    if _depth_window(op) > 1:  # TF's shape function runs the window formula on every dimension
        padding, _ = conv_util.padding_attrs(op)
        ksize, strides = conv_util.sequence_attr(op, "ksize"), conv_util.sequence_attr(op, "strides")
        dims = [d.value for d in input_shape.dims]
        return TensorShape([None if d is None else (-(-d // s) if padding == b"SAME" else -(-(d - k + 1) // s))
                            for d, k, s in zip(dims, ksize, strides)])
    data_format, ksize, strides = _params(op)
    batch, rows, cols, depth = conv_util.nhwc_dims(input_shape, data_format)
    out_rows = conv_util.infer_window(op, rows, ksize[0], strides[0], 1, 0)
    out_cols = conv_util.infer_window(op, cols, ksize[1], strides[1], 1, 1)
    return conv_util.shape_in_format([batch.value, out_rows, out_cols, depth.value], data_format)


def _infer_pool(op):
    return [(op._inputs[0].dtype.base_dtype, _pooled_shape(op, conv_util.check_rank4(op, 0, "input")))]


def _infer_max_pool_grad(op):
    shape = conv_util.check_rank4(op, 0, "orig_input")
    conv_util.check_rank4(op, 1, "orig_output")
    conv_util.check_rank4(op, 2, "grad")
    _params(op)
    return [(op._inputs[0].dtype.base_dtype, shape)]


def _infer_max_pool_grad_grad(op):
    conv_util.check_rank4(op, 0, "orig_input")
    shape = conv_util.check_rank4(op, 1, "orig_output")
    conv_util.check_rank4(op, 2, "grad")
    _params(op)
    return [(op._inputs[0].dtype.base_dtype, shape)]


def _infer_avg_pool_grad(op):
    shape = ops.constant_value_as_shape(op._inputs[0])
    _params(op)
    return [(op._inputs[1].dtype.base_dtype, shape if shape.ndims == 4 else TensorShape([None] * 4))]


# ----------------------------------------------------------------- the engine
def _geometry(op, shape):
    """(data_format, rows Window, cols Window, ksize, strides) at run time for an NHWC ``shape``."""
    data_format, ksize, strides = _params(op, run=True)
    if len(shape) != 4:
        raise errors.InvalidArgumentError(None, op, f"{op.type}: input must be 4-dimensional, got {list(shape)}")
    rows, cols = conv_util.kernel_geometry(op, shape[1], shape[2], ksize, strides, (1, 1))
    return data_format, rows, cols, ksize, strides


def _compute_max_pool(ctx, op, inputs):
    window = _depth_window(op)
    if window > 1:  # depthwise max pooling: the max of each run of `window` channels (TF's checks, in order)
        image = np.asarray(inputs[0])
        ksize, strides = conv_util.sequence_attr(op, "ksize"), conv_util.sequence_attr(op, "strides")
        if ksize[1] != 1 or ksize[2] != 1:
            raise errors.UnimplementedError(None, op, "MaxPooling supports exactly one of pooling across depth or "
                                            "pooling across width/height.")
        if image.shape[3] % window:
            raise errors.UnimplementedError(None, op, "Depthwise max pooling requires the depth window to evenly "
                                            "divide the input depth")
        if strides[3] != window:
            raise errors.UnimplementedError(None, op, "Depthwise max pooling requires the depth window to equal the "
                                            "depth stride")
        return image.reshape(image.shape[:3] + (image.shape[3] // window, window)).max(axis=-1)
    data_format = data_format_of(op)
    image = conv_util.to_nhwc(np.asarray(inputs[0]), data_format)
    _, rows, cols, ksize, strides = _geometry(op, image.shape)
    pooled = np.empty((image.shape[0], rows.out, cols.out, image.shape[3]), image.dtype)

    def share(images: slice) -> None:  # images are independent: the intra-op pool takes a share each
        pooling_max.window_max(image[images], rows, cols, ksize, strides, out=pooled[images])

    intra_op.run_parts([lambda images=images: share(images) for images in _batch_shares(image)])
    return conv_util.from_nhwc(pooled, data_format)


def data_format_of(op) -> bytes:
    """``op``'s data_format attr as bytes."""
    return format_bytes(op._attrs.get("data_format", b"NHWC"))


def _compute_max_pool_grad(ctx, op, inputs):
    data_format = data_format_of(op)
    image = conv_util.to_nhwc(np.asarray(inputs[0]), data_format)
    grad = conv_util.to_nhwc(np.asarray(inputs[2]), data_format)
    _, rows, cols, ksize, strides = _geometry(op, image.shape)
    pooled_shape = (image.shape[0], rows.out, cols.out, image.shape[3])
    if grad.shape != pooled_shape:
        raise errors.InvalidArgumentError(None, op, f"{op.type}: grad has shape {list(grad.shape)}, expected the "
                                          f"pooled shape {list(pooled_shape)}")
    total = np.empty(image.shape, grad.dtype)

    def share(images: slice) -> None:  # images are independent: the intra-op pool takes a share each
        pooling_max.max_pool_grad(image[images], grad[images], rows, cols, ksize, strides, out=total[images])

    intra_op.run_parts([lambda images=images: share(images) for images in _batch_shares(image)])
    return conv_util.from_nhwc(total, data_format)


def _batch_shares(image: np.ndarray) -> list[slice]:
    """The batch split into one share per intra-op thread (one share when the work is too small to pay)."""
    shares = min(intra_op.workers(), image.shape[0]) if image.size >= _PARALLEL_ELEMENTS else 1
    bounds = [image.shape[0] * k // shares for k in range(shares + 1)]
    return [slice(start, stop) for start, stop in zip(bounds, bounds[1:])]


def _compute_max_pool_grad_grad(ctx, op, inputs):
    data_format = data_format_of(op)
    image = conv_util.to_nhwc(np.asarray(inputs[0]), data_format)
    grad = conv_util.to_nhwc(np.asarray(inputs[2]), data_format)
    _, rows, cols, ksize, strides = _geometry(op, image.shape)
    if grad.shape != image.shape:
        raise errors.InvalidArgumentError(None, op, f"{op.type}: grad has shape {list(grad.shape)}, expected the "
                                          f"input's shape {list(image.shape)}")
    argmax = pooling_max.first_max_taps(image, rows, cols, ksize, strides)
    grad_padded = pooling_max.padded(grad, rows, cols, ksize, strides)
    out = np.zeros(argmax.shape, dtype=grad.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            np.copyto(out, grad_padded[pooling_max.tap_slices(rows, cols, strides, i, j)], where=argmax == i * ksize[1] + j)
    return conv_util.from_nhwc(out, data_format)


def _window_counts(rows, cols, height, width, ksize, strides) -> np.ndarray:
    """``[out_rows, out_cols, 1]``: how many real elements each window covers (AvgPool's divisor)."""
    count_rows = pooling_max.valid_taps(rows, height, ksize[0], strides[0]).sum(axis=1)
    count_cols = pooling_max.valid_taps(cols, width, ksize[1], strides[1]).sum(axis=1)
    return (count_rows[:, None] * count_cols[None, :])[:, :, None]


def _compute_avg_pool(ctx, op, inputs):
    data_format = data_format_of(op)
    image = conv_util.to_nhwc(np.asarray(inputs[0]), data_format)
    _, rows, cols, ksize, strides = _geometry(op, image.shape)
    padded = pooling_max.padded(image, rows, cols, ksize, strides)
    total = np.zeros((image.shape[0], rows.out, cols.out, image.shape[3]), dtype=image.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            total += padded[pooling_max.tap_slices(rows, cols, strides, i, j)]
    counts = _window_counts(rows, cols, image.shape[1], image.shape[2], ksize, strides)
    return conv_util.from_nhwc((total / counts.astype(image.dtype)).astype(image.dtype, copy=False), data_format)


def _compute_avg_pool_grad(ctx, op, inputs):
    data_format = data_format_of(op)
    sizes = np.asarray(inputs[0])
    if sizes.shape != (4,):
        raise errors.InvalidArgumentError(None, op, f"{op.type}: orig_input_shape must be 4-dimensional, got "
                                          f"{list(sizes.shape)}")
    n, height, width, depth = ((sizes[0], sizes[2], sizes[3], sizes[1]) if data_format == b"NCHW"
                               else tuple(int(v) for v in sizes))
    grad = conv_util.to_nhwc(np.asarray(inputs[1]), data_format)
    _, rows, cols, ksize, strides = _geometry(op, (n, height, width, depth))
    if grad.shape != (n, rows.out, cols.out, depth):
        raise errors.InvalidArgumentError(None, op, f"{op.type}: grad has shape {list(grad.shape)}, expected "
                                          f"{[n, rows.out, cols.out, depth]}")
    row_spread, row_sizes = _broadcast(rows, height, ksize[0], strides[0])
    col_spread, col_sizes = _broadcast(cols, width, ksize[1], strides[1])
    share = grad / (row_sizes[:, None] * col_sizes[None, :]).astype(grad.dtype)[None, :, :, None]
    # Spread over rows, then over cols: two products with small 0/1 matrices ([in, out] each).
    by_rows = np.matmul(row_spread, share.reshape(n, rows.out, cols.out * depth))
    image = np.matmul(col_spread, by_rows.reshape(n * height, cols.out, depth))
    return conv_util.from_nhwc(image.reshape(n, height, width, depth).astype(grad.dtype, copy=False), data_format)


def _broadcast(window, size: int, taps: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """Which inputs each output's gradient reaches, and its divisor, as TF's AvgPoolGrad (``GetBroadcastSize``).

    Returns ``[size, out]`` 0/1 and ``[out]`` sizes.  TF clips a window that starts in the padding to the
    input, then, if ``start + taps`` passes the end, takes ``min(size - start, taps)``: a window wider than
    the input and padded on both sides reaches (and divides by) more than the elements it averaged.
    """
    start = np.arange(window.out) * stride
    in_padding = start < window.pad_before
    extent = np.where(in_padding, taps + start - window.pad_before, taps)
    start = np.where(in_padding, 0, start - window.pad_before)
    extent = np.where(start + taps > size, np.minimum(size - start, taps), extent)
    inputs = np.arange(size)[:, None]
    return ((inputs >= start) & (inputs < start + extent)).astype(np.float32), extent


_POOL_DEFAULTS = {"data_format": b"NHWC"}
kernels.register("MaxPool", infer=_infer_pool, compute=_compute_max_pool,
                 default_attrs={"explicit_paddings": [], **_POOL_DEFAULTS})
kernels.register("MaxPoolGrad", infer=_infer_max_pool_grad, compute=_compute_max_pool_grad,
                 default_attrs={"explicit_paddings": [], **_POOL_DEFAULTS})
kernels.register("MaxPoolGradGrad", infer=_infer_max_pool_grad_grad, compute=_compute_max_pool_grad_grad,
                 default_attrs=_POOL_DEFAULTS)
kernels.register("AvgPool", infer=_infer_pool, compute=_compute_avg_pool, default_attrs=_POOL_DEFAULTS)
kernels.register("AvgPoolGrad", infer=_infer_avg_pool_grad, compute=_compute_avg_pool_grad,
                 default_attrs=_POOL_DEFAULTS)


# ----------------------------------------------------------------- builders
def _pool_attrs(dtype, ksize, strides, padding, data_format, explicit_paddings=None) -> dict:
    attrs = {"T": dtype, "data_format": conv_ops.data_format_attr(data_format), "ksize": [int(v) for v in ksize],
             "padding": conv_ops.padding_attr(padding), "strides": [int(v) for v in strides]}
    if explicit_paddings is not None:
        attrs["explicit_paddings"] = [int(v) for v in explicit_paddings]
    return attrs


def _pool_op(op_type, inputs, attrs, name):
    return inputs[0].graph.create_op(op_type, inputs, name=name, attrs=attrs)._outputs[0]


def _sequences(ksize, strides, data_format):
    channel = 1 if format_bytes(data_format).startswith(b"NC") else 3
    return (conv_ops.get_sequence(ksize, 2, channel, "ksize"), conv_ops.get_sequence(strides, 2, channel, "strides"))


def pool_op(op_type: str, value, ksize, strides, padding, data_format, explicit_paddings, scope: str) -> Tensor:
    """A raw ``MaxPool``/``AvgPool`` named ``scope`` (TF's gen_nn_ops builders; sequences already 4 long)."""
    value = convert_to_tensor(value, name="input" if op_type == "MaxPool" else "value")
    attrs = _pool_attrs(value.dtype.base_dtype, ksize, strides, padding, data_format,
                        explicit_paddings if op_type == "MaxPool" else None)
    return _pool_op(op_type, [value], attrs, scope)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name: str | None = None, input=None) -> Tensor:
    """The max of each window (``MaxPool``); padding "SAME", "VALID" or a list of pairs."""
    value = input if value is None else value
    with name_scope(name, "MaxPool", [value]) as scope:
        data_format = data_format or "NHWC"
        ksize, strides = _sequences(ksize, strides, data_format)
        padding, explicit = conv_ops.convert_padding(padding)
        if any(v == 0 for v in ksize):
            raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
        value = convert_to_tensor(value, name="input")
        attrs = _pool_attrs(value.dtype.base_dtype, ksize, strides, padding, data_format, explicit)
        return _pool_op("MaxPool", [value], attrs, scope)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name: str | None = None, input=None) -> Tensor:
    """The mean of each window over its unpadded elements (``AvgPool``)."""
    with name_scope(name, "AvgPool", [value]) as scope:
        value = input if value is None else value
        data_format = data_format or "NHWC"
        ksize, strides = _sequences(ksize, strides, data_format)
        value = convert_to_tensor(value, name="value")
        attrs = _pool_attrs(value.dtype.base_dtype, ksize, strides, padding, data_format)
        return _pool_op("AvgPool", [value], attrs, scope)


def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings=(),
                  data_format="NHWC", name: str | None = None) -> Tensor:
    """The gradient of max_pool: ``grad`` sent to each window's first maximum (``MaxPoolGrad``)."""
    with name_scope(name, "MaxPoolGrad", [orig_input, orig_output, grad]) as scope:
        orig_input = convert_to_tensor(orig_input, name="orig_input")
        orig_output = convert_to_tensor(orig_output, dtype=orig_input.dtype.base_dtype, name="orig_output")
        grad = convert_to_tensor(grad, dtype=orig_input.dtype.base_dtype, name="grad")
        attrs = _pool_attrs(orig_input.dtype.base_dtype, ksize, strides, padding, data_format, explicit_paddings)
        return _pool_op("MaxPoolGrad", [orig_input, orig_output, grad], attrs, scope)


def max_pool_grad_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC",
                       name: str | None = None) -> Tensor:
    """The gradient of MaxPoolGrad with respect to its ``grad``: ``grad`` read at each window's first max."""
    with name_scope(name, "MaxPoolGradGrad", [orig_input, orig_output, grad]) as scope:
        orig_input = convert_to_tensor(orig_input, name="orig_input")
        orig_output = convert_to_tensor(orig_output, dtype=orig_input.dtype.base_dtype, name="orig_output")
        grad = convert_to_tensor(grad, dtype=orig_input.dtype.base_dtype, name="grad")
        attrs = _pool_attrs(orig_input.dtype.base_dtype, ksize, strides, padding, data_format)
        return _pool_op("MaxPoolGradGrad", [orig_input, orig_output, grad], attrs, scope)


def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC",
                  name: str | None = None) -> Tensor:
    """The gradient of avg_pool: each window's ``grad`` shared among its unpadded elements (``AvgPoolGrad``)."""
    with name_scope(name, "AvgPoolGrad", [orig_input_shape, grad]) as scope:
        orig_input_shape = convert_to_tensor(orig_input_shape, dtype=dtypes_lib.int32, name="orig_input_shape")
        grad = convert_to_tensor(grad, name="grad")
        attrs = _pool_attrs(grad.dtype.base_dtype, ksize, strides, padding, data_format)
        return _pool_op("AvgPoolGrad", [orig_input_shape, grad], attrs, scope)
