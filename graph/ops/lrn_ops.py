"""Local response normalization: LRN and LRNGrad, tf.nn.local_response_normalization (alias tf.nn.lrn).

Over the last dimension of a rank-4 input (TF's LRN is NHWC only)::

    sqr_sum[..., d] = sum(input[..., d - depth_radius : d + depth_radius + 1] ** 2)
    output = input / (bias + alpha * sqr_sum) ** beta

The window sums are one matmul with a banded 0/1 matrix (depth is small), not a loop.  LRNGrad
follows TF's CPU kernel (``LRNGradOp``): from the upstream gradient, the input and LRN's output.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops.conv_util import node

__all__ = ["local_response_normalization", "lrn", "lrn_grad"]

_DEFAULTS = {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}


def _band(depth: int, radius: int, dtype) -> np.ndarray:
    """``[depth, depth]`` with ones where ``|row - col| <= radius``."""
    index = np.arange(depth)
    return (np.abs(index[:, None] - index[None, :]) <= radius).astype(dtype)


def _attrs(op):
    return (int(op._attrs.get("depth_radius", 5)), float(op._attrs.get("bias", 1.0)),
            float(op._attrs.get("alpha", 1.0)), float(op._attrs.get("beta", 0.5)))


def _infer_lrn(op):
    shape = op._inputs[0].shape
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims} for {node(op)} with input shapes: "
                         f"{shape.message_string()}.")
    return [(op._inputs[0].dtype.base_dtype, shape if shape.ndims is not None else TensorShape([None] * 4))]


def _infer_lrn_grad(op):
    for tensor in op._inputs:
        if tensor.shape.ndims is not None and tensor.shape.ndims != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {tensor.shape.ndims} for {node(op)}")
    shape = op._inputs[0].shape.merge_with(op._inputs[1].shape).merge_with(op._inputs[2].shape)
    return [(op._inputs[0].dtype.base_dtype, shape if shape.ndims is not None else TensorShape([None] * 4))]


def _norm(op, image: np.ndarray) -> np.ndarray:
    """``bias + alpha * sqr_sum`` (computed in the input's precision)."""
    radius, bias, alpha, _ = _attrs(op)
    if image.ndim != 4:
        raise errors.InvalidArgumentError(None, op, f"input must be 4-dimensional, got {list(image.shape)}")
    square_sum = (image * image) @ _band(image.shape[3], radius, image.dtype)
    return image.dtype.type(bias) + image.dtype.type(alpha) * square_sum


def _compute_lrn(ctx, op, inputs):
    image = np.asarray(inputs[0])
    beta = _attrs(op)[3]
    return (image * _norm(op, image) ** image.dtype.type(-beta)).astype(image.dtype, copy=False)


def _compute_lrn_grad(ctx, op, inputs):
    grads, image, output = (np.asarray(v) for v in inputs)
    if not grads.shape == image.shape == output.shape:
        raise errors.InvalidArgumentError(None, op, "LRNGrad: input_grads, input_image and output_image must have "
                                          f"the same shape: {list(grads.shape)}, {list(image.shape)}, "
                                          f"{list(output.shape)}")
    radius, _, alpha, beta = _attrs(op)
    norm = _norm(op, image)
    dtype = image.dtype.type
    # d out_j / d in_k = [k == j] norm_j^-beta - 2 alpha beta in_k out_j / norm_j, for |j - k| <= radius.
    spread = (grads * output / norm) @ _band(image.shape[3], radius, image.dtype)
    result = grads * norm ** dtype(-beta) - dtype(2 * alpha * beta) * image * spread
    return result.astype(image.dtype, copy=False)


kernels.register("LRN", infer=_infer_lrn, compute=_compute_lrn, default_attrs=_DEFAULTS)
kernels.register("LRNGrad", infer=_infer_lrn_grad, compute=_compute_lrn_grad, default_attrs=_DEFAULTS)


def _float_attrs(depth_radius, bias, alpha, beta) -> dict:
    # Float attrs are float32 in TF's AttrValue: keep the value TF reads back (1e-4 -> 9.9999997e-05).
    return {"depth_radius": int(depth_radius), "bias": float(np.float32(bias)), "alpha": float(np.float32(alpha)),
            "beta": float(np.float32(beta))}


def local_response_normalization(input, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                                 beta: float = 0.5, name: str | None = None) -> Tensor:
    """Local response normalization over the last dimension (``LRN``)."""
    with name_scope(name, "LRN", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        attrs = {"T": input.dtype.base_dtype, **_float_attrs(depth_radius, bias, alpha, beta)}
        return input.graph.create_op("LRN", [input], name=scope, attrs=attrs)._outputs[0]


lrn = local_response_normalization


def lrn_grad(input_grads, input_image, output_image, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
             beta: float = 0.5, name: str | None = None) -> Tensor:
    """The gradient of LRN (``LRNGrad``)."""
    with name_scope(name, "LRNGrad", [input_grads, input_image, output_image]) as scope:
        input_grads = convert_to_tensor(input_grads, name="input_grads")
        dtype = input_grads.dtype.base_dtype
        input_image = convert_to_tensor(input_image, dtype=dtype, name="input_image")
        output_image = convert_to_tensor(output_image, dtype=dtype, name="output_image")
        attrs = {"T": dtype, **_float_attrs(depth_radius, bias, alpha, beta)}
        return input_grads.graph.create_op("LRNGrad", [input_grads, input_image, output_image], name=scope,
                                           attrs=attrs)._outputs[0]
