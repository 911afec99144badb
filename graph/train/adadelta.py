"""``tf.train.AdadeltaOptimizer``: Adadelta (ApplyAdadelta), slots ``<var>/Adadelta`` and ``<var>/Adadelta_1``."""

from __future__ import annotations

from graph.core.graph import convert_to_tensor
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer

__all__ = ["AdadeltaOptimizer"]


class AdadeltaOptimizer(optimizer.Optimizer):
    """Adadelta (Zeiler), TF1's ``AdadeltaOptimizer``."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adadelta"):
        """Args: learning_rate, rho (decay), epsilon (floats, Tensors or callables), use_locking, name."""
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon
        self._lr_t = self._rho_t = self._epsilon_t = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _hyper(self, var) -> list:
        dtype = var.dtype.base_dtype
        return [math_ops.cast(t, dtype) for t in (self._lr_t, self._rho_t, self._epsilon_t)]

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "accum")
        accum_update = self.get_slot(var, "accum_update")
        return training_ops.apply_adadelta(var, accum, accum_update, *self._hyper(var), grad,
                                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        accum = self.get_slot(var, "accum")
        accum_update = self.get_slot(var, "accum_update")
        return training_ops.sparse_apply_adadelta(var, accum, accum_update, *self._hyper(var), grad.values,
                                                  grad.indices, use_locking=self._use_locking)
