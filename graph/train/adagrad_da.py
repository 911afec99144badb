"""``tf.train.AdagradDAOptimizer``: Adagrad dual averaging, for sparse linear models (ApplyAdagradDA)."""

from __future__ import annotations

from graph.core import graph as graph_lib
from graph.core.graph import convert_to_tensor
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer

__all__ = ["AdagradDAOptimizer"]


class AdagradDAOptimizer(optimizer.Optimizer):
    """Adagrad dual averaging: slots ``<var>/AdagradDA`` (gradient sum) and ``<var>/AdagradDA_1`` (squares)."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "AdagradDA"):
        """Args: learning_rate, global_step (the int64 step variable the update formula reads), the initial
        squared-gradient accumulator (> 0), l1 and l2 strengths, use_locking, name.

        Raises:
            ValueError: if the initial accumulator value is not positive.
        """
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: %s" %
                             initial_gradient_squared_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = initial_gradient_squared_accumulator_value
        self._learning_rate_tensor = None
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            with graph_lib.colocate_with(v):
                g_val = constant_ops.constant(0.0, shape=v.get_shape(), dtype=v.dtype.base_dtype)
                gg_val = constant_ops.constant(self._initial_gradient_squared_accumulator_value,
                                               shape=v.get_shape(), dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, g_val, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, gg_val, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        # The formula uses the step this update completes: global_step + 1.
        with graph_lib.colocate_with(self._learning_rate_tensor):
            self._global_step_on_worker = constant_ops.identity(self._global_step) + 1

    def _step_on_var_device(self, var):
        with graph_lib.device(var.device):
            return constant_ops.identity(self._global_step_on_worker)

    def _apply_dense(self, grad, var):
        g_acc = self.get_slot(var, "gradient_accumulator")
        gg_acc = self.get_slot(var, "gradient_squared_accumulator")
        global_step = self._step_on_var_device(var)
        dtype = var.dtype.base_dtype
        return training_ops.apply_adagrad_da(
            var, g_acc, gg_acc, grad, math_ops.cast(self._learning_rate_tensor, dtype),
            math_ops.cast(self._l1_regularization_strength, dtype),
            math_ops.cast(self._l2_regularization_strength, dtype),
            global_step, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        g_acc = self.get_slot(var, "gradient_accumulator")
        gg_acc = self.get_slot(var, "gradient_squared_accumulator")
        global_step = self._step_on_var_device(var)
        dtype = var.dtype.base_dtype
        return training_ops.sparse_apply_adagrad_da(
            var, g_acc, gg_acc, grad.values, grad.indices, math_ops.cast(self._learning_rate_tensor, dtype),
            math_ops.cast(self._l1_regularization_strength, dtype),
            math_ops.cast(self._l2_regularization_strength, dtype),
            global_step, use_locking=self._use_locking)
