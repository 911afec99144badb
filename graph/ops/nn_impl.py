"""Neural-network functions composed of other ops (TensorFlow's nn_impl): logistic losses, moments, l2_normalize.

Each is built op for op as TensorFlow's ``nn_impl.py`` builds it (names, order, intermediate ops),
so graphs, gradients and checkpoints of programs using them match TF's.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import nn_ops
from graph.ops import reduction_ops
from graph.ops.array_fill_ops import zeros_like
from graph.ops.array_index_ops import where

__all__ = ["sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "moments", "l2_normalize"]


def _check_same_shape(labels: Tensor, logits: Tensor) -> None:
    try:
        labels.shape.assert_is_compatible_with(logits.shape)
    except ValueError as error:
        raise ValueError("`logits` and `labels` must have the same shape, received "
                         f"({logits.shape} vs {labels.shape}).") from error


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name: str | None = None) -> Tensor:
    """``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits x and labels z, in scope ``logistic_loss``.

    Raises:
        ValueError: if ``labels`` or ``logits`` is missing, or their shapes differ.
    """
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
                         f"Received: labels={labels} and logits={logits}")  # TF's text, no space
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _check_same_shape(labels, logits)
        zeros = zeros_like(logits, dtype=logits.dtype)
        condition = logits >= zeros
        relu_logits = where(condition, logits, zeros)
        neg_abs_logits = where(condition, -logits, logits)  # Selects, not max/abs: defined gradients at 0
        return math_ops.add(relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name: str | None = None,
                                       targets=None) -> Tensor:
    """Sigmoid cross entropy with the positive term weighted by ``pos_weight``, in scope ``logistic_loss``.

    Raises:
        ValueError: if both ``labels`` and its deprecated alias ``targets`` are given, or the shapes differ.
    """
    if labels is not None and targets is not None:
        raise ValueError("Cannot specify both 'targets' and 'labels'.")
    labels = targets if labels is None else labels
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _check_same_shape(labels, logits)
        # (1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0)), stable for any sign of x.
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add((1 - labels) * logits,
                            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + nn_ops.relu(-logits)),
                            name=scope)


def moments(x, axes, shift=None, name: str | None = None, keep_dims=None, keepdims=None) -> tuple:
    """``(mean, variance)`` of ``x`` over ``axes`` (``shift`` is accepted and unused, as in TF).

    Raises:
        ValueError: if both ``keepdims`` and its deprecated alias ``keep_dims`` are given.
    """
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    keep = bool(keep_dims if keepdims is None else keepdims)
    with name_scope(name, "moments", [x, axes]):
        half = x.dtype.base_dtype == dtypes_lib.float16
        y = math_ops.cast(x, dtypes_lib.float32) if half else x
        mean = reduction_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        # The variance around a constant mean: the mean's own gradient flows only through ``mean``.
        variance = reduction_ops.reduce_mean(math_ops.squared_difference(y, constant_ops.stop_gradient(mean)), axes,
                                             keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if half:
            return math_ops.cast(mean, dtypes_lib.float16), math_ops.cast(variance, dtypes_lib.float16)
        return mean, variance


def l2_normalize(x, axis=None, epsilon: float = 1e-12, name: str | None = None, dim=None) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))`` (real ``x``), in scope ``l2_normalize``.

    Raises:
        ValueError: if both ``axis`` and its deprecated alias ``dim`` are given.
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            raise NotImplementedError("l2_normalize of a complex tensor is not emulated (Real/Imag/Complex ops).")
        square_sum = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope)
