"""Neural-network op builders and kernels: activations, softmax, bias_add, l2_loss, dropout.

Op types, attrs and default names are TensorFlow's (``Relu``, ``Softmax``, ``BiasAdd`` with
``data_format`` ...).  The cross entropies live in nn_xent_ops, the newer activations in
nn_activation_ops.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_ops
from graph.ops import constant_ops as ops
from graph.ops import math_ops
from graph.ops import random_ops

__all__ = ["relu", "relu6", "elu", "softplus", "sigmoid", "tanh", "softmax", "log_softmax", "bias_add", "l2_loss",
           "dropout", "xw_plus_b", "relu_layer"]


def _same(op):
    x = op._inputs[0]
    return [(x.dtype.base_dtype, x.shape)]


def _float_kernel(function):
    def compute(ctx, op, inputs):
        with np.errstate(over="ignore", under="ignore"):
            result = function(np.asarray(inputs[0]))
        return np.asarray(result, dtype=op._outputs[0]._dtype.numpy_dtype)
    return compute


def _sigmoid(x):
    # 1 / (1 + exp(-x)), written without overflow for large negative x: exp(-|x|) is at most 1.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


def _softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=-1, keepdims=True)


def _log_softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


_ACTIVATIONS = {
    "Relu": lambda x: np.maximum(x, 0), "Relu6": lambda x: np.clip(x, 0, 6),
    # TF's Eigen functor computes exp(x) - 1 in the input's precision, not expm1 (float16 rounds apart).
    "Elu": lambda x: np.where(x > 0, x, np.exp(np.minimum(x, 0)) - 1),
    "Softplus": lambda x: np.logaddexp(0, x), "Sigmoid": _sigmoid, "Tanh": np.tanh,
    "Softmax": _softmax, "LogSoftmax": _log_softmax,
}
for _type, _function in _ACTIVATIONS.items():
    kernels.register(_type, infer=_same, compute=_float_kernel(_function))


def _unary(op_type, features, name):
    graph = graph_lib.get_graph_from_inputs([features])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        features = convert_to_tensor(features, name="features" if op_type not in ("Sigmoid", "Tanh") else "x")
        return graph.create_op(op_type, [features], name=scope, attrs={"T": features.dtype.base_dtype})._outputs[0]


def relu(features, name: str | None = None) -> Tensor:
    """max(features, 0) (``Relu``)."""
    return _unary("Relu", features, name)


def relu6(features, name: str | None = None) -> Tensor:
    """min(max(features, 0), 6) (``Relu6``)."""
    with name_scope(name, "Relu6", [features]) as scope:
        return _unary("Relu6", features, scope)


def elu(features, name: str | None = None) -> Tensor:
    """Exponential linear unit (``Elu``)."""
    return _unary("Elu", features, name)


def softplus(features, name: str | None = None) -> Tensor:
    """log(exp(features) + 1) (``Softplus``)."""
    return _unary("Softplus", features, name)


def sigmoid(x, name: str | None = None) -> Tensor:
    """1 / (1 + exp(-x)) (``Sigmoid``), in scope ``Sigmoid``."""
    with name_scope(name, "Sigmoid", [x]) as scope:
        return _unary("Sigmoid", x, scope)


def tanh(x, name: str | None = None) -> Tensor:
    """Hyperbolic tangent (``Tanh``)."""
    return _unary("Tanh", x, name)


def _softmax_op(op_type, logits, axis, name):
    logits = convert_to_tensor(logits)
    rank = logits.shape.ndims
    if axis is None or axis == -1 or (rank is not None and axis == rank - 1):
        return _unary(op_type, logits, name)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    with name_scope(name, op_type, [logits]) as scope:
        moved = array_ops.transpose(logits, perm)
        output = _unary(op_type, moved, None)
        return array_ops.transpose(output, perm, name=scope)


def softmax(logits, axis=None, name: str | None = None, dim=None) -> Tensor:
    """Softmax over ``axis`` (last by default) (``Softmax``)."""
    return _softmax_op("Softmax", logits, dim if axis is None else axis, name)


def log_softmax(logits, axis=None, name: str | None = None, dim=None) -> Tensor:
    """Log-softmax over ``axis`` (last by default) (``LogSoftmax``)."""
    return _softmax_op("LogSoftmax", logits, dim if axis is None else axis, name)


# ----------------------------------------------------------------- BiasAdd, L2Loss
def _infer_bias_add(op):
    value, bias = op._inputs
    return [(value.dtype.base_dtype, value.shape)]


def _compute_bias_add(ctx, op, inputs):
    value, bias = np.asarray(inputs[0]), np.asarray(inputs[1])
    fmt = op._attrs.get("data_format", b"NHWC")
    if fmt in (b"NCHW", "NCHW") and value.ndim > 2:
        bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
    elif value.shape[-1] != bias.shape[0]:
        raise errors.InvalidArgumentError(
            None, op, f"Must provide as many biases as the last dimension of the input tensor: {list(bias.shape)} vs. "
            f"{list(value.shape)}")
    return (value + bias).astype(value.dtype, copy=False)


kernels.register("BiasAdd", infer=_infer_bias_add, compute=_compute_bias_add, default_attrs={"data_format": b"NHWC"})
kernels.register("L2Loss", infer=lambda op: [(op._inputs[0].dtype.base_dtype, TensorShape([]))],
                 compute=lambda ctx, op, inputs: np.asarray(
                     np.sum(np.square(inputs[0])) / 2, dtype=op._outputs[0]._dtype.numpy_dtype))


def bias_add(value, bias, data_format=None, name: str | None = None) -> Tensor:
    """``value + bias`` along the channel dimension (``BiasAdd``)."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype.base_dtype, name="bias")
        fmt = (data_format or "NHWC")
        fmt = fmt.encode() if isinstance(fmt, str) else fmt
        if fmt.startswith(b"NC"):
            fmt = b"NCHW"
        elif fmt.startswith(b"N") and fmt.endswith(b"C"):
            fmt = b"NHWC"
        return value.graph.create_op("BiasAdd", [value, bias], name=scope,
                                     attrs={"T": value.dtype.base_dtype, "data_format": fmt})._outputs[0]


def xw_plus_b(x, weights, biases, name: str | None = None) -> Tensor:
    """``matmul(x, weights) + biases`` as TF builds it: MatMul, then a BiasAdd named after the scope."""
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return bias_add(math_ops.matmul(x, weights), biases, name=scope)


def relu_layer(x, weights, biases, name: str | None = None) -> Tensor:
    """``relu(matmul(x, weights) + biases)`` as TF builds it: MatMul, BiasAdd, then a Relu named after the scope."""
    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return relu(bias_add(math_ops.matmul(x, weights), biases), name=scope)


def l2_loss(t, name: str | None = None) -> Tensor:
    """sum(t ** 2) / 2 (``L2Loss``)."""
    graph = graph_lib.get_graph_from_inputs([t])
    with graph.as_default(), graph.name_scope(name or "L2Loss") as scope:
        t = convert_to_tensor(t, name="t")
        return graph.create_op("L2Loss", [t], name=scope, attrs={"T": t.dtype.base_dtype})._outputs[0]


# ----------------------------------------------------------------- dropout
def dropout(x, keep_prob=None, noise_shape=None, seed=None, name: str | None = None, rate=None) -> Tensor:
    """Zeroes elements with probability ``rate`` (= 1 - keep_prob) and scales the rest by 1 / (1 - rate)."""
    if rate is None:
        if keep_prob is None:
            raise ValueError("You must provide a rate to dropout.")
        rate = 1 - keep_prob
    with name_scope(name, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. Got a {x.dtype} "
                             "tensor instead.")
        if isinstance(rate, (int, float)) and not 0 <= rate < 1:
            raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate}")
        if isinstance(rate, (int, float)):
            scaled = math_ops.multiply(x, ops.constant(1 / (1 - rate), dtype=x.dtype), name="Mul")
        else:
            # A tensor rate (a fed keep probability): TF divides by 1 - rate, casting the rate to x's dtype.
            rate = convert_to_tensor(rate, name="rate")
            rate.shape.with_rank(0)
            if rate.dtype.base_dtype != x.dtype.base_dtype:
                if not rate.dtype.is_floating:
                    raise ValueError("`x.dtype` must be compatible with `rate.dtype`. Received: "
                                     f"x.dtype={x.dtype} and rate.dtype={rate.dtype}")
                rate = math_ops.cast(rate, x.dtype, name="rate")
            one = ops.constant(1, dtype=x.dtype)
            scaled = math_ops.binary_op("RealDiv", x, math_ops.subtract(one, rate), None)
        shape = array_ops.shape(x) if noise_shape is None else noise_shape
        noise = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype)
        keep = math_ops.greater_equal(noise, rate)
        zero = ops.constant(0, dtype=x.dtype)
        op = ops._scoped_op(x.graph, "SelectV2", [keep, scaled, zero], name="SelectV2", attrs={"T": x.dtype.base_dtype})
        # As TF: a rate of unknown shape leaves SelectV2's shape unknown, but dropout keeps x's shape.
        op._outputs[0].set_shape(x.shape)
        return op._outputs[0]
