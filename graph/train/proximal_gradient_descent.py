"""``tf.train.ProximalGradientDescentOptimizer``: gradient descent with FOBOS l1/l2 shrinkage."""

from __future__ import annotations

from graph.core.graph import convert_to_tensor
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer
from graph.variables import resource_variables

__all__ = ["ProximalGradientDescentOptimizer"]


class ProximalGradientDescentOptimizer(optimizer.Optimizer):
    """Proximal gradient descent (ApplyProximalGradientDescent); no slots."""

    def __init__(self, learning_rate, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent"):
        """Args: learning_rate, l1 and l2 regularization strengths, use_locking, name."""
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._learning_rate_tensor = None
        self._l1_regularization_strength_tensor = None
        self._l2_regularization_strength_tensor = None

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_gradient_descent(
            var, self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._l2_regularization_strength_tensor, grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._sparse_hyperparameters(grad, var), grad.values, grad.indices,
            use_locking=self._use_locking)

    def _sparse_hyperparameters(self, grad, var) -> list:
        # TF's _resource_apply_sparse casts the hyperparameters to the gradient's dtype; the ref path does not.
        tensors = [self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                   self._l2_regularization_strength_tensor]
        if resource_variables.is_resource_variable(var):
            return [math_ops.cast(t, grad.values.dtype) for t in tensors]
        return tensors

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(self._l2_regularization_strength,
                                                                    name="l2_regularization_strength")
