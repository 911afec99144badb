"""``tf.train.MomentumOptimizer``: accumulation with momentum, optionally Nesterov's (ApplyMomentum)."""

from __future__ import annotations

from graph.core.graph import convert_to_tensor
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(optimizer.Optimizer):
    """Momentum: accum = accum * momentum + grad; var -= learning_rate * accum (slot ``<var>/Momentum``)."""

    def __init__(self, learning_rate, momentum, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False):
        """Args: learning_rate, momentum (floats, Tensors or callables), use_locking, name, use_nesterov."""
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov
        self._learning_rate_tensor = self._momentum_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        mom = self.get_slot(var, "momentum")
        return training_ops.apply_momentum(
            var, mom, math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            math_ops.cast(self._momentum_tensor, var.dtype.base_dtype), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        mom = self.get_slot(var, "momentum")
        return training_ops.sparse_apply_momentum(
            var, mom, math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad.values, grad.indices,
            math_ops.cast(self._momentum_tensor, var.dtype.base_dtype), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov)
