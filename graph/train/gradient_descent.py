"""``tf.train.GradientDescentOptimizer``: var -= learning_rate * gradient (ApplyGradientDescent, ScatterSub)."""

from __future__ import annotations

from graph.core.graph import convert_to_tensor
from graph.ops import math_ops
from graph.ops import scatter_ops
from graph.ops import training_ops
from graph.train import optimizer

__all__ = ["GradientDescentOptimizer"]


class GradientDescentOptimizer(optimizer.Optimizer):
    """Plain gradient descent, as TF1's ``GradientDescentOptimizer``."""

    def __init__(self, learning_rate, use_locking: bool = False, name: str = "GradientDescent"):
        """Args: learning_rate (a float, Tensor or callable), use_locking, name (the ops' scope)."""
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var, math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking)

    def _apply_sparse_duplicate_indices(self, grad, var):
        # No deduplication needed: ScatterSub subtracts every row of a repeated index.
        values = grad.values * math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        return scatter_ops.scatter_sub(var, grad.indices, values, use_locking=self._use_locking)

    def _prepare(self):
        learning_rate = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(learning_rate, name="learning_rate")
