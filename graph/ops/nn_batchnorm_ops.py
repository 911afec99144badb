"""Fused batch normalization: ``FusedBatchNormV3`` and its gradient op ``FusedBatchNormGradV3`` (fused_batch_norm).

Op types, inputs, outputs and attrs are TensorFlow's (``gen_nn_ops``):

    FusedBatchNormV3(x: T, scale: U, offset: U, mean: U, variance: U)
        -> y: T, batch_mean: U, batch_variance: U, reserve_space_1: U, reserve_space_2: U, reserve_space_3: U
        attrs T in {half, bfloat16, float}, U = float, epsilon, exponential_avg_factor, data_format, is_training
    FusedBatchNormGradV3(y_backprop: T, x: T, scale: float, reserve_space_1: U, reserve_space_2: U,
                         reserve_space_3: U)
        -> x_backprop: T, scale_backprop: U, offset_backprop: U, reserve_space_4: U, reserve_space_5: U

The kernels follow TF's CPU functors (``fused_batch_norm_op.cc``): statistics in U (float32) over
every dimension but the channel one, ``y = (x - mean) * (rsqrt(var + epsilon) * scale) + offset``;
in training the batch variance output carries Bessel's correction ``n / (n - 1)`` and is blended
with the running one when ``exponential_avg_factor != 1``, while reserve_space_1/2 keep the batch
mean and the biased batch variance for the gradient; in inference the given mean and variance
pass through.
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import constant_ops

__all__ = ["fused_batch_norm", "fused_batch_norm_grad_v3"]

_ALLOWED_T = (dtypes_lib.float16, dtypes_lib.bfloat16, dtypes_lib.float32)
_CHANNEL_AXIS = {b"NHWC": 3, b"NCHW": 1, b"NDHWC": 4, b"NCDHW": 1}
_RANK = {b"NHWC": 4, b"NCHW": 4, b"NDHWC": 5, b"NCDHW": 5}


def _format(op) -> bytes:
    value = op._attrs.get("data_format", b"NHWC")
    return value.encode() if isinstance(value, str) else value


def _node_text(op) -> str:
    """TF's NodeDef summary in shape errors: ``FusedBatchNormV3[T=DT_FLOAT, ...](x, scale, ...)``."""
    attrs = []
    for key in sorted(op._attrs):
        value = op._attrs[key]
        if isinstance(value, dtypes_lib.DType):
            text = value.proto_name
        elif isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, bytes):
            text = f'"{value.decode()}"'
        elif isinstance(value, float):
            text = f"{value:.6g}"
        else:
            text = str(value)
        attrs.append(f"{key}={text}")
    inputs = ", ".join(t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}" for t in op._inputs)
    return f"{op.type}[{', '.join(attrs)}]({inputs})"


def _shape_error(op, message: str) -> ValueError:
    shapes = ", ".join(t.shape.message_string() for t in op._inputs)
    return ValueError(f"{message} for '{{{{node {op.name}}}}} = {_node_text(op)}' with input shapes: {shapes}.")


def _channel_vector(op, tensor, depth):
    """Merges a rank-1 per-channel input with ``depth`` (TF's shape fn: rank 1, equal dimensions)."""
    shape = tensor.shape
    if shape.ndims is not None and shape.ndims != 1:
        raise _shape_error(op, f"Shape must be rank 1 but is rank {shape.ndims}")
    if shape.ndims == 1 and shape.dims[0].value is not None and depth is not None and shape.dims[0].value != depth:
        raise _shape_error(op, f"Dimensions must be equal, but are {depth} and {shape.dims[0].value}")
    if depth is None and shape.ndims == 1:
        depth = shape.dims[0].value
    return depth


def _x_and_depth(op, x):
    fmt = _format(op)
    rank = _RANK[fmt]
    if x.shape.ndims is not None and x.shape.ndims != rank:
        raise _shape_error(op, f"Shape must be rank {rank} but is rank {x.shape.ndims}")
    x_shape = x.shape if x.shape.ndims is not None else TensorShape([None] * rank)
    return x_shape, x_shape.dims[_CHANNEL_AXIS[fmt]].value


def _infer_fused_batch_norm(op):
    x, scale, offset, mean, variance = op._inputs
    x_shape, depth = _x_and_depth(op, x)
    depth = _channel_vector(op, scale, depth)
    depth = _channel_vector(op, offset, depth)
    # Training with factor 1 takes no running statistics: mean and variance may be empty then.
    if not op._attrs["is_training"] or op._attrs.get("exponential_avg_factor", 1.0) != 1.0:
        depth = _channel_vector(op, mean, depth)
        depth = _channel_vector(op, variance, depth)
    channel = list(x_shape.as_list())
    channel[_CHANNEL_AXIS[_format(op)]] = depth
    vector = TensorShape([depth])
    y_shape = TensorShape(channel)
    u = op._attrs["U"]
    return [(x.dtype.base_dtype, y_shape)] + [(u, vector)] * 4 + [(u, TensorShape(None))]


def _infer_fused_batch_norm_grad(op):
    y_backprop, x, scale = op._inputs[:3]
    x_shape, depth = _x_and_depth(op, x)
    try:
        x_shape = x_shape.merge_with(y_backprop.shape)
    except ValueError:
        raise _shape_error(op, f"Shapes {y_backprop.shape} and {x.shape} are not compatible") from None
    depth = _channel_vector(op, scale, depth)
    for reserve in op._inputs[3:5]:
        depth = _channel_vector(op, reserve, depth)
    u = op._attrs["U"]
    vector = TensorShape([depth])
    return [(x.dtype.base_dtype, x_shape), (u, vector), (u, vector), (u, TensorShape([0])), (u, TensorShape([0]))]


def _to_rest_by_depth(value: np.ndarray, fmt: bytes) -> tuple[np.ndarray, tuple]:
    """``value`` as a float32 [rest, depth] matrix and how to undo it (channels moved last, as TF's CPU kernel)."""
    axis = _CHANNEL_AXIS[fmt]
    moved = np.moveaxis(value, axis, -1)
    return moved.reshape(-1, moved.shape[-1]).astype(np.float32), (moved.shape, axis)


def _from_rest_by_depth(matrix: np.ndarray, layout: tuple, dtype) -> np.ndarray:
    moved_shape, axis = layout
    return np.moveaxis(matrix.reshape(moved_shape), -1, axis).astype(dtype)


def _compute_fused_batch_norm(ctx, op, inputs):
    x, scale, offset, old_mean, old_variance = (np.asarray(value) for value in inputs)
    u = np.float32
    epsilon = u(op._attrs["epsilon"])
    factor = u(op._attrs.get("exponential_avg_factor", 1.0))
    matrix, layout = _to_rest_by_depth(x, _format(op))
    rest = matrix.shape[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if op._attrs["is_training"]:
            rest_inv = u(1.0) / u(rest)
            adjust = u(rest) / u(max(rest - 1, 1))  # Bessel's correction, TF's rest_size_adjust
            mean = matrix.sum(axis=0, dtype=u) * rest_inv
            centered = matrix - mean
            variance = np.square(centered).sum(axis=0, dtype=u) * rest_inv
            if factor == u(1.0):
                new_mean, new_variance = mean, variance * adjust
            else:
                keep = u(1.0) - factor
                new_mean = keep * old_mean + factor * mean
                new_variance = keep * old_variance + (factor * adjust) * variance
            saved_mean, saved_variance = mean, variance
        else:
            mean, variance = old_mean.astype(u), old_variance.astype(u)
            centered = matrix - mean
            new_mean, new_variance = mean, variance
            saved_mean, saved_variance = mean, variance
        scaling = (u(1.0) / np.sqrt(variance + epsilon)) * scale.astype(u)
        y = centered * scaling + offset.astype(u)
    return [_from_rest_by_depth(y, layout, x.dtype), np.asarray(new_mean, u), np.asarray(new_variance, u),
            np.array(saved_mean, u), np.array(saved_variance, u), np.zeros([0], u)]


def _compute_fused_batch_norm_grad(ctx, op, inputs):
    y_backprop, x, scale, mean, variance = (np.asarray(value) for value in inputs[:5])
    u = np.float32
    epsilon = u(op._attrs["epsilon"])
    fmt = _format(op)
    dy, layout = _to_rest_by_depth(y_backprop, fmt)
    matrix, _ = _to_rest_by_depth(x, fmt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        coef0 = u(1.0) / np.sqrt(variance.astype(u) + epsilon)
        centered = matrix - mean.astype(u)
        x_scaled = centered * coef0
        offset_backprop = dy.sum(axis=0, dtype=u)
        scale_backprop = (dy * x_scaled).sum(axis=0, dtype=u)
        coef1 = scale.astype(u) * coef0
        if op._attrs["is_training"]:
            rest_inv = u(1.0) / u(matrix.shape[0])
            dy_centered = dy - offset_backprop * rest_inv
            dx = coef1 * (dy_centered - x_scaled * (scale_backprop * rest_inv))
        else:
            dx = dy * coef1
    # TF's CPU kernel allocates the two unused outputs as empty placeholders.
    return [_from_rest_by_depth(dx, layout, x.dtype), np.asarray(scale_backprop, u), np.asarray(offset_backprop, u),
            np.zeros([0], u), np.zeros([0], u)]


_DEFAULTS = {"epsilon": 0.0001, "data_format": b"NHWC", "is_training": True}
kernels.register("FusedBatchNormV3", infer=_infer_fused_batch_norm, compute=_compute_fused_batch_norm,
                 default_attrs={**_DEFAULTS, "exponential_avg_factor": 1.0})
kernels.register("FusedBatchNormGradV3", infer=_infer_fused_batch_norm_grad, compute=_compute_fused_batch_norm_grad,
                 default_attrs=_DEFAULTS)


def _check_format(data_format) -> bytes:
    fmt = data_format.encode() if isinstance(data_format, str) else bytes(data_format)
    if fmt not in _RANK:
        raise ValueError(f"Invalid data format: {fmt.decode()}; expected one of NHWC, NCHW, NDHWC, NCDHW.")
    return fmt


def _check_t(x: Tensor, argument: str) -> None:
    if x.dtype.base_dtype not in _ALLOWED_T:
        raise TypeError(f"Value passed to parameter '{argument}' has DataType {x.dtype.base_dtype.name} not in list "
                        "of allowed values: float16, bfloat16, float32")


def _attrs(x: Tensor, epsilon: float, data_format: bytes, is_training: bool) -> dict:
    # Float attrs are float32 in the NodeDef: hold them as TF reads them back.
    return {"T": x.dtype.base_dtype, "U": dtypes_lib.float32, "epsilon": float(np.float32(epsilon)),
            "data_format": data_format, "is_training": bool(is_training)}


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon: float = 0.001, data_format: str = "NHWC",
                     is_training: bool = True, name: str | None = None,
                     exponential_avg_factor: float = 1.0) -> tuple[Tensor, Tensor, Tensor]:
    """Batch normalization of a 4-D or 5-D ``x`` in one op (``FusedBatchNormV3``): ``(y, running_mean, running_var)``.

    Raises:
        ValueError: if ``mean`` or ``variance`` is missing in inference or with an averaging factor, or the
            shapes disagree.
        TypeError: if ``x`` is not float16, bfloat16 or float32.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant_ops.constant([])
    if variance is None:
        variance = constant_ops.constant([])
    fmt = _check_format(data_format)
    _check_t(x, "x")
    with name_scope(name, "FusedBatchNormV3", [x, scale, offset, mean, variance]) as scope:
        mean = convert_to_tensor(mean, dtype=dtypes_lib.float32, name="mean")
        variance = convert_to_tensor(variance, dtype=dtypes_lib.float32, name="variance")
        attrs = {**_attrs(x, epsilon, fmt, is_training),
                 "exponential_avg_factor": float(np.float32(exponential_avg_factor))}
        op = x.graph.create_op("FusedBatchNormV3", [x, scale, offset, mean, variance], name=scope, attrs=attrs)
    return op._outputs[0], op._outputs[1], op._outputs[2]


def fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
                             epsilon: float = 0.0001, data_format: str = "NHWC", is_training: bool = True,
                             name: str | None = None) -> tuple:
    """The ``FusedBatchNormGradV3`` op: ``(x_backprop, scale_backprop, offset_backprop, reserve_4, reserve_5)``."""
    fmt = _check_format(data_format)
    with name_scope(name, "FusedBatchNormGradV3",
                    [y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3]) as scope:
        y_backprop = convert_to_tensor(y_backprop, name="y_backprop")
        x = convert_to_tensor(x, dtype=y_backprop.dtype.base_dtype, name="x")
        _check_t(x, "x")
        tensors = [y_backprop, x] + [convert_to_tensor(value, dtype=dtypes_lib.float32, name=argument) for
                                     value, argument in ((scale, "scale"), (reserve_space_1, "reserve_space_1"),
                                                         (reserve_space_2, "reserve_space_2"),
                                                         (reserve_space_3, "reserve_space_3"))]
        op = x.graph.create_op("FusedBatchNormGradV3", tensors, name=scope,
                               attrs=_attrs(x, epsilon, fmt, is_training))
    return tuple(op._outputs)
