"""``tf.train.RMSPropOptimizer``: RMSProp with momentum, optionally centered (ApplyRMSProp, ApplyCenteredRMSProp)."""

from __future__ import annotations

from graph.core.graph import convert_to_tensor
from graph.ops import array_fill_ops
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer
from graph.variables import initializers

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(optimizer.Optimizer):
    """RMSProp: slots ``<var>/RMSProp`` (rms, starts at 1), ``<var>/RMSProp_1`` (momentum), and when
    centered ``<var>/RMSProp_1`` (mg) before the momentum slot ``<var>/RMSProp_2``."""

    def __init__(self, learning_rate, decay: float = 0.9, momentum: float = 0.0, epsilon: float = 1e-10,
                 use_locking: bool = False, centered: bool = False, name: str = "RMSProp"):
        """Args: learning_rate, decay, momentum, epsilon (floats, Tensors or callables), use_locking, centered
        (normalize by the estimated variance), name."""
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._learning_rate_tensor = self._decay_tensor = self._momentum_tensor = self._epsilon_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            if v.get_shape().is_fully_defined():
                init_rms = initializers.ones_initializer(dtype=v.dtype.base_dtype)
            else:
                init_rms = array_fill_ops.ones_like(v)
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(), v.dtype.base_dtype, "rms",
                                                    self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._decay_tensor = convert_to_tensor(self._call_if_callable(self._decay), name="decay")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")
        self._epsilon_tensor = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _hyper(self, var) -> list:
        dtype = var.dtype.base_dtype
        return [math_ops.cast(t, dtype) for t in (self._learning_rate_tensor, self._decay_tensor,
                                                  self._momentum_tensor, self._epsilon_tensor)]

    def _apply_dense(self, grad, var):
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.apply_centered_rms_prop(var, mg, rms, mom, *self._hyper(var), grad,
                                                        use_locking=self._use_locking)
        return training_ops.apply_rms_prop(var, rms, mom, *self._hyper(var), grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.sparse_apply_centered_rms_prop(var, mg, rms, mom, *self._hyper(var), grad.values,
                                                               grad.indices, use_locking=self._use_locking)
        return training_ops.sparse_apply_rms_prop(var, rms, mom, *self._hyper(var), grad.values, grad.indices,
                                                  use_locking=self._use_locking)
