"""``tf.train.ProximalAdagradOptimizer``: Adagrad rates with FOBOS l1/l2 shrinkage (ApplyProximalAdagrad)."""

from __future__ import annotations

from graph.core import graph as graph_lib
from graph.core.graph import convert_to_tensor
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer
from graph.variables import resource_variables

__all__ = ["ProximalAdagradOptimizer"]


class ProximalAdagradOptimizer(optimizer.Optimizer):
    """Proximal Adagrad, with the slot ``<var>/ProximalAdagrad`` starting at ``initial_accumulator_value``."""

    def __init__(self, learning_rate, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad"):
        """Args: learning_rate, initial_accumulator_value (> 0), l1 and l2 strengths, use_locking, name.

        Raises:
            ValueError: if ``initial_accumulator_value`` is not positive.
        """
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._l1_regularization_strength_tensor = None
        self._l2_regularization_strength_tensor = None
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            with graph_lib.colocate_with(v):
                val = constant_ops.constant(self._initial_accumulator_value, shape=v.get_shape(),
                                            dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, val, "accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(self._l2_regularization_strength,
                                                                    name="l2_regularization_strength")

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_ops.apply_proximal_adagrad(
            var, acc, self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._l2_regularization_strength_tensor, grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_ops.sparse_apply_proximal_adagrad(
            var, acc, *self._sparse_hyperparameters(grad, var), grad.values, grad.indices,
            use_locking=self._use_locking)

    def _sparse_hyperparameters(self, grad, var) -> list:
        # TF's _resource_apply_sparse casts the hyperparameters to the gradient's dtype; the ref path does not.
        tensors = [self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                   self._l2_regularization_strength_tensor]
        if resource_variables.is_resource_variable(var):
            return [math_ops.cast(t, grad.values.dtype) for t in tensors]
        return tensors
