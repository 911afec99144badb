"""``tf.train.AdagradOptimizer``: per-coordinate rates from accumulated squared gradients (ApplyAdagrad)."""

from __future__ import annotations

from graph.core.graph import convert_to_tensor
from graph.ops import array_fill_ops
from graph.ops import array_ops
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer
from graph.variables import initializers

__all__ = ["AdagradOptimizer"]


class AdagradOptimizer(optimizer.Optimizer):
    """Adagrad, with the slot ``<var>/Adagrad`` starting at ``initial_accumulator_value``."""

    def __init__(self, learning_rate, initial_accumulator_value: float = 0.1, use_locking: bool = False,
                 name: str = "Adagrad"):
        """Args: learning_rate, initial_accumulator_value (> 0), use_locking, name.

        Raises:
            ValueError: if ``initial_accumulator_value`` is not positive.
        """
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = initializers.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            else:
                init = self._init_constant_op(v, dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype, "accumulator", self._name)

    def _init_constant_op(self, v, dtype):
        def init():
            # A Fill of the run-time shape, for a variable whose shape is not known statically.
            init_constant = array_fill_ops.fill(array_ops.shape(v), self._initial_accumulator_value)
            return math_ops.cast(init_constant, dtype)
        return init

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_ops.apply_adagrad(var, acc, math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype),
                                          grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_ops.sparse_apply_adagrad(
            var, acc, math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad.values, grad.indices,
            use_locking=self._use_locking)
