"""Max pooling that also returns where each maximum came from: MaxPoolWithArgmax and its gradient
MaxPoolGradWithArgmax, with ``tf.nn.max_pool_with_argmax``.

NHWC only, as TensorFlow's.  An argmax is the flat index ``(y * width + x) * channels + c`` of the chosen
input element, plus ``b * height * width * channels`` with ``include_batch_in_index``.  The scan is TF's CPU
kernel's (``SpatialMaxPoolWithArgMaxHelper``): each window starts from its first real (unpadded) tap and
moves only to a strictly greater value, so ties keep the first in row-major order and a NaN is kept only
when it is the first tap.  A depth window (``ksize[3] > 1``) passes the input through unpooled with its own
indices, as TF's CPU kernel does (its shape function still divides the depth).

MaxPoolGradWithArgmax adds each gradient into the input element its argmax names (int64 argmax only, as
TF's CPU kernel).  TF has no CPU kernel for MaxPoolGradGradWithArgmax and no gradient for
MaxPoolGradWithArgmax, so neither is here.
"""

from __future__ import annotations

import collections

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape, debug_string
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import conv_ops, conv_util
from graph.ops.conv_util import node

__all__ = ["max_pool_with_argmax", "max_pool_grad_with_argmax"]

_ARGMAX_TYPES = (dtypes_lib.int32, dtypes_lib.int64)


def _window_attrs(op) -> tuple[list[int], list[int]]:
    """(ksize, strides) of the op: four positive ints each, as TF's shape function requires."""
    ksize, strides = conv_util.sequence_attr(op, "ksize"), conv_util.sequence_attr(op, "strides")
    for name, values in (("ksize", ksize), ("strides", strides)):
        if len(values) != 4:
            raise ValueError(f"{name} must have 4 elements, got {len(values)} for {node(op)}")
        bad = next((v for v in values if v <= 0), None)
        if bad is not None:
            what = "ksize" if name == "ksize" else "stride"
            raise ValueError(f"{what} must be a positive int32 value, got:{bad} for {node(op)} with input shapes: "
                             f"{', '.join(t.shape.message_string() for t in op._inputs)}.")
    return ksize, strides


def _pooled_dim(op, size: int | None, taps: int, stride: int) -> int | None:
    """One output dimension by TF's shape function (the window formula runs on all four dimensions)."""
    if size is None:
        return None
    padding, _ = conv_util.padding_attrs(op)
    if padding == b"SAME":
        return -(-size // stride)
    if size < taps:
        raise ValueError(f"Negative dimension size caused by subtracting {taps} from {size} for {node(op)} with "
                         f"input shapes: {', '.join(t.shape.message_string() for t in op._inputs)}.")
    return -(-(size - taps + 1) // stride)


def _infer_max_pool_with_argmax(op):
    shape = conv_util.check_rank4(op, 0, "input")
    ksize, strides = _window_attrs(op)
    pooled = TensorShape([_pooled_dim(op, d.value, k, s) for d, k, s in zip(shape.dims, ksize, strides)])
    return [(op._inputs[0].dtype.base_dtype, pooled), (op._attrs["Targmax"], pooled)]


def _infer_max_pool_grad_with_argmax(op):
    shape = conv_util.check_rank4(op, 0, "input")
    conv_util.check_rank4(op, 1, "grad")
    conv_util.check_rank4(op, 2, "argmax")
    _window_attrs(op)
    return [(op._inputs[0].dtype.base_dtype, shape)]


# ----------------------------------------------------------------- the kernels
def _run_geometry(op, shape: tuple[int, ...]):
    """(rows Window, cols Window, ksize, strides) at run time, after TF's PoolParameters checks."""
    ksize, strides = _window_attrs(op)
    if len(shape) != 4:
        raise errors.InvalidArgumentError(None, op, "tensor_in must be 4-dimensional")
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, op, "Pooling is not yet supported on the batch dimension.")
    if ksize[3] > 1:  # pooling across depth: TF's checks, in order
        if ksize[1] != 1 or ksize[2] != 1:
            raise errors.UnimplementedError(None, op, "MaxPooling supports exactly one of pooling across depth or "
                                            "pooling across width/height.")
        if shape[3] % ksize[3]:
            raise errors.UnimplementedError(None, op, "Depthwise max pooling requires the depth window to evenly "
                                            "divide the input depth.")
        if strides[3] != ksize[3]:
            raise errors.UnimplementedError(None, op, "Depthwise max pooling requires the depth window to equal "
                                            "the depth stride.")
    taps, steps = (ksize[1], ksize[2]), (strides[1], strides[2])
    if ksize[3] > 1:  # TF's CPU kernel then walks 1x1 spatial windows: every element is its own maximum
        taps, steps = (1, 1), (1, 1)
    rows, cols = conv_util.kernel_geometry(op, shape[1], shape[2], taps, steps, (1, 1))
    return rows, cols, taps, steps


def _tap_positions(window, taps: int, stride: int) -> np.ndarray:
    """``[out, taps]``: the input row (or column) each tap of each window reads (negative or past the end in
    the padding)."""
    return np.arange(window.out)[:, None] * stride + np.arange(taps)[None, :] - window.pad_before


def _compute_max_pool_with_argmax(ctx, op, inputs):
    image = np.asarray(inputs[0])
    rows, cols, taps, steps = _run_geometry(op, image.shape)
    batch, height, width, depth = image.shape
    row_at = _tap_positions(rows, taps[0], steps[0])  # [out_rows, taps_r]
    col_at = _tap_positions(cols, taps[1], steps[1])  # [out_cols, taps_c]
    row_ok = (row_at >= 0) & (row_at < height)
    col_ok = (col_at >= 0) & (col_at < width)
    # [out_rows, out_cols, taps]: each tap's flat (y * width + x) position and whether it is real input
    position = (np.clip(row_at, 0, max(height - 1, 0))[:, None, :, None] * width
                + np.clip(col_at, 0, max(width - 1, 0))[None, :, None, :]).reshape(rows.out, cols.out, -1)
    valid = (row_ok[:, None, :, None] & col_ok[None, :, None, :]).reshape(rows.out, cols.out, -1)
    flat = image.reshape(batch, height * width, depth)
    values = flat[:, position, :]  # [batch, out_rows, out_cols, taps, depth]
    real = np.broadcast_to(valid[None, :, :, :, None], values.shape)
    floating = values.dtype.kind in "fV"  # "V": bfloat16, whose NaN numpy sees through float32
    nan = np.isnan(values.astype(np.float32, copy=False)) if floating else np.zeros(values.shape, dtype=bool)
    candidates = real & ~nan
    lowest = np.asarray(-np.inf if floating else np.iinfo(values.dtype).min).astype(values.dtype)
    best = np.where(candidates, values, lowest).max(axis=3, keepdims=True)
    tap = np.argmax(candidates & (values == best), axis=3)  # the first maximum in the window's scan
    first = np.argmax(valid, axis=2)[None, :, :, None]  # the window's first real tap
    first_is_nan = np.take_along_axis(nan, first[..., None], axis=3)[:, :, :, 0, :]
    tap = np.where(first_is_nan, first, tap)  # a NaN first tap is never replaced
    output = np.take_along_axis(values, tap[:, :, :, None, :], axis=3)[:, :, :, 0, :]
    argmax = np.take_along_axis(np.broadcast_to(position[None, :, :, :, None], values.shape),
                                tap[:, :, :, None, :], axis=3)[:, :, :, 0, :].astype(np.int64) * depth
    argmax = argmax + np.arange(depth)
    if op._attrs["include_batch_in_index"]:
        argmax = argmax + np.arange(batch)[:, None, None, None] * (height * width * depth)
    return [np.ascontiguousarray(output), argmax.astype(op._attrs["Targmax"].numpy_dtype)]


def _compute_max_pool_grad_with_argmax(ctx, op, inputs):
    if op._attrs["Targmax"] != dtypes_lib.int64:  # TF registers the CPU kernel for int64 indices only
        raise errors.InvalidArgumentError(
            None, op, "No OpKernel was registered to support Op 'MaxPoolGradWithArgmax' used by "
            f"{{{{node {op.name}}}}} with these attrs: [Targmax={op._attrs['Targmax'].name}]; the CPU kernel takes "
            "Targmax=int64 only")
    image, grad, argmax = (np.asarray(v) for v in inputs)
    rows, cols, _, _ = _run_geometry(op, image.shape)
    pooled = (image.shape[0], rows.out, cols.out, image.shape[3])
    if grad.shape != pooled:
        raise errors.InvalidArgumentError(None, op, f"Expected grad shape to be {debug_string(pooled)}, but got "
                                          f"{debug_string(grad.shape)}")
    if argmax.shape != pooled:
        raise errors.InvalidArgumentError(None, op, f"Expected argmax shape to be {debug_string(pooled)}, but "
                                          f"got {debug_string(argmax.shape)}")
    per_image = int(np.prod(image.shape[1:], dtype=np.int64))
    index = argmax.astype(np.int64).reshape(image.shape[0], -1)
    if not op._attrs["include_batch_in_index"]:
        index = index + np.arange(image.shape[0], dtype=np.int64)[:, None] * per_image
    # each index must fall inside its own image (TF 2.21's CPU kernel aborts the process otherwise: ours raises)
    first = np.arange(image.shape[0], dtype=np.int64)[:, None] * per_image
    bad = (index < first) | (index >= first + per_image)
    if bad.any():
        batch, position = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise errors.InvalidArgumentError(
            None, op, f"Invalid output gradient index: {int(index[batch, position])}, {int(first[batch, 0])}, "
            f"{int(first[batch, 0]) + per_image}")
    out = np.zeros(image.size, dtype=grad.dtype)
    np.add.at(out, index.reshape(-1), grad.reshape(-1))
    return out.reshape(image.shape)


_DEFAULTS = {"Targmax": dtypes_lib.int64, "include_batch_in_index": False}
kernels.register("MaxPoolWithArgmax", infer=_infer_max_pool_with_argmax, compute=_compute_max_pool_with_argmax,
                 default_attrs=_DEFAULTS)
kernels.register("MaxPoolGradWithArgmax", infer=_infer_max_pool_grad_with_argmax,
                 compute=_compute_max_pool_grad_with_argmax, default_attrs=_DEFAULTS)


# ----------------------------------------------------------------- builders
def _int_list(value, name: str, op_type: str, wrapper: str) -> list[int]:
    if not isinstance(value, (list, tuple)):  # TF's generated wrapper (``wrapper``) takes only a list or tuple
        raise TypeError(f"Expected list for '{name}' argument to '{wrapper}' Op, not {value!r}.")
    values = [int(v) for v in value]
    if len(values) < 4:
        raise ValueError(f"Attr '{name}' of '{op_type}' Op passed list of length {len(values)} less than minimum 4.")
    return values


def _argmax_type(value) -> dtypes_lib.DType:
    dtype = dtypes_lib.as_dtype(value)
    if dtype not in _ARGMAX_TYPES:
        raise TypeError(f"Value passed to parameter 'Targmax' has DataType {dtype.name} not in list of allowed "
                        "values: int32, int64")
    return dtype


# TF's generated wrapper returns the outputs as a namedtuple named after the op.
MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def max_pool_with_argmax(input, ksize, strides, padding, data_format: str = "NHWC", Targmax=None,  # noqa: N803
                         name: str | None = None, output_dtype=None,
                         include_batch_in_index: bool = False) -> MaxPoolWithArgmax:
    """``(output, argmax)``: the max of each window and the flat index it came from (``MaxPoolWithArgmax``).

    Raises:
        ValueError: for a data_format other than NHWC, or ``Targmax`` and ``output_dtype`` both given.
    """
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. Received: "
                         f"data_format={data_format}")
    if Targmax is not None and output_dtype is not None:
        raise ValueError("Cannot specify both 'output_dtype' and 'Targmax'.")
    targmax = _argmax_type(output_dtype if output_dtype is not None else (Targmax or dtypes_lib.int64))
    with name_scope(name, "MaxPoolWithArgmax", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        attrs = {"ksize": _int_list(ksize, "ksize", "MaxPoolWithArgmax", "max_pool_with_argmax"),
                 "strides": _int_list(strides, "strides", "MaxPoolWithArgmax", "max_pool_with_argmax"),
                 "Targmax": targmax,
                 "padding": _padding(padding), "include_batch_in_index": bool(include_batch_in_index),
                 "T": input.dtype.base_dtype}
        op = input.graph.create_op("MaxPoolWithArgmax", [input], name=scope, attrs=attrs)
        return MaxPoolWithArgmax(op._outputs[0], op._outputs[1])


def _padding(padding) -> bytes:
    value = conv_ops.padding_attr(padding)
    if value == b"EXPLICIT":
        raise ValueError("Value for attr 'padding' of EXPLICIT is not in the list of allowed values: \"SAME\", "
                         "\"VALID\"")
    return value


def max_pool_grad_with_argmax(input, grad, argmax, ksize, strides, padding, include_batch_in_index: bool = False,
                              name: str | None = None) -> Tensor:
    """Each ``grad`` added into the element of ``input`` its ``argmax`` names (``MaxPoolGradWithArgmax``)."""
    with name_scope(name, "MaxPoolGradWithArgmax", [input, grad, argmax]) as scope:
        input = convert_to_tensor(input, name="input")
        grad = convert_to_tensor(grad, dtype=input.dtype.base_dtype, name="grad")
        argmax = convert_to_tensor(argmax, name="argmax")
        attrs = {"ksize": _int_list(ksize, "ksize", "MaxPoolGradWithArgmax", "max_pool_grad_with_argmax"),
                 "strides": _int_list(strides, "strides", "MaxPoolGradWithArgmax", "max_pool_grad_with_argmax"),
                 "padding": _padding(padding),
                 "include_batch_in_index": bool(include_batch_in_index),
                 "Targmax": _argmax_type(argmax.dtype.base_dtype), "T": input.dtype.base_dtype}
        return input.graph.create_op("MaxPoolGradWithArgmax", [input, grad, argmax], name=scope,
                                     attrs=attrs)._outputs[0]
