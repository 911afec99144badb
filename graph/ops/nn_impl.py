"""Neural-network functions composed of other ops (TensorFlow's nn_impl): sigmoid cross entropy."""

from __future__ import annotations

from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import math_ops
from graph.ops.array_fill_ops import zeros_like
from graph.ops.array_index_ops import where

__all__ = ["sigmoid_cross_entropy_with_logits"]


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
        try:
            labels.shape.assert_is_compatible_with(logits.shape)
        except ValueError as error:
            raise ValueError("`logits` and `labels` must have the same shape, received "
                             f"({logits.shape} vs {labels.shape}).") from error
        zeros = zeros_like(logits, dtype=logits.dtype)
        condition = logits >= zeros
        relu_logits = where(condition, logits, zeros)
        neg_abs_logits = where(condition, -logits, logits)  # Selects, not max/abs: defined gradients at 0
        return math_ops.add(relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)
