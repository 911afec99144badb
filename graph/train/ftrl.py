"""``tf.train.FtrlOptimizer``: FTRL-proximal with l1, l2, l2 shrinkage and lr_power (ApplyFtrl, ApplyFtrlV2)."""

from __future__ import annotations

from graph.base import dtypes
from graph.core.graph import convert_to_tensor
from graph.ops import array_fill_ops
from graph.ops import math_ops
from graph.ops import training_ops
from graph.train import optimizer

__all__ = ["FtrlOptimizer"]


class FtrlOptimizer(optimizer.Optimizer):
    """FTRL-proximal (McMahan et al.): slots ``<var>/Ftrl`` (accum) and ``<var>/Ftrl_1`` (linear)."""

    def __init__(self, learning_rate, learning_rate_power: float = -0.5, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "Ftrl", accum_name: str | None = None,
                 linear_name: str | None = None, l2_shrinkage_regularization_strength: float = 0.0, beta=None):
        """Args: TF1's; ``l2_shrinkage_regularization_strength`` > 0 selects ApplyFtrlV2, ``beta`` adds
        beta / (2 * learning_rate) to the l2 strength.

        Raises:
            ValueError: for a negative accumulator value or strength, or a positive learning_rate_power.
        """
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value %f needs to be positive or zero" % initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero" % learning_rate_power)
        if l1_regularization_strength < 0.0:
            raise ValueError("l1_regularization_strength %f needs to be positive or zero" %
                             l1_regularization_strength)
        if l2_regularization_strength < 0.0:
            raise ValueError("l2_regularization_strength %f needs to be positive or zero" %
                             l2_regularization_strength)
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive or zero" %
                             l2_shrinkage_regularization_strength)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._learning_rate_tensor = None
        self._learning_rate_power_tensor = None
        self._l1_regularization_strength_tensor = None
        self._adjusted_l2_regularization_strength_tensor = None
        self._l2_shrinkage_regularization_strength_tensor = None
        self._beta_tensor = None
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        def _accum_initializer(shape, dtype=dtypes.float32, partition_info=None):
            del partition_info
            return array_fill_ops.ones(shape=shape, dtype=dtype) * self._initial_accumulator_value

        for v in var_list:
            self._get_or_make_slot_with_initializer(v, _accum_initializer, v.shape, v.dtype, "accum",
                                                    self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(self._l1_regularization_strength,
                                                                    name="l1_regularization_strength")
        # TF builds this sum in the graph (Maximum, mul, truediv, add), beta = 0 or not.
        self._adjusted_l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength + self._beta / (2. * math_ops.maximum(self._learning_rate, 1e-36)),
            name="adjusted_l2_regularization_strength")
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")  # unused, but TF's graph has this Const
        self._l2_shrinkage_regularization_strength_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength, name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = convert_to_tensor(self._learning_rate_power, name="learning_rate_power")

    def _hyper(self, var, shrinkage_dtype=None) -> tuple[list, list]:
        """(lr, l1, adjusted l2) and ([l2 shrinkage,] lr_power), cast to the variable's dtype."""
        dtype = var.dtype.base_dtype
        head = [math_ops.cast(t, dtype) for t in (self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                                                  self._adjusted_l2_regularization_strength_tensor)]
        tail = []
        if self._l2_shrinkage_regularization_strength > 0.0:
            tail.append(math_ops.cast(self._l2_shrinkage_regularization_strength_tensor, shrinkage_dtype or dtype))
        tail.append(math_ops.cast(self._learning_rate_power_tensor, dtype))
        return head, tail

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "accum")
        linear = self.get_slot(var, "linear")
        head, tail = self._hyper(var)
        build = training_ops.apply_ftrl if self._l2_shrinkage_regularization_strength <= 0.0 else \
            training_ops.apply_ftrl_v2
        return build(var, accum, linear, grad, *head, *tail, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        accum = self.get_slot(var, "accum")
        linear = self.get_slot(var, "linear")
        head, tail = self._hyper(var, shrinkage_dtype=grad.dtype.base_dtype)
        build = training_ops.sparse_apply_ftrl if self._l2_shrinkage_regularization_strength <= 0.0 else \
            training_ops.sparse_apply_ftrl_v2
        return build(var, accum, linear, grad.values, grad.indices, *head, *tail, use_locking=self._use_locking)
