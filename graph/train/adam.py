"""``tf.train.AdamOptimizer``: Adam with slots ``<var>/Adam`` (m), ``<var>/Adam_1`` (v) and the non-slot
variables ``beta1_power``/``beta2_power``, colocated with the first variable by name (ApplyAdam; the sparse
path scatters into the slots as TF1 does)."""

from __future__ import annotations

from graph.core import graph as graph_lib
from graph.core.graph import convert_to_tensor
from graph.ops import control_flow_ops
from graph.ops import math_ops
from graph.ops import scatter_ops
from graph.ops import state_ops
from graph.ops import training_ops
from graph.train import optimizer

__all__ = ["AdamOptimizer"]


class AdamOptimizer(optimizer.Optimizer):
    """Adam (Kingma and Ba), TF1's ``AdamOptimizer``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adam"):
        """Args: learning_rate, beta1, beta2, epsilon (floats, Tensors or callables), use_locking, name."""
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self):
        graph = graph_lib.get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        # The accumulators sit with the first variable by name, so every worker puts them on the same device.
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power", colocate_with=first_var)
        self._create_non_slot_variable(initial_value=self._beta2, name="beta2_power", colocate_with=first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        beta1_power, beta2_power = self._get_beta_accumulators()
        dtype = var.dtype.base_dtype
        return training_ops.apply_adam(
            var, m, v, math_ops.cast(beta1_power, dtype), math_ops.cast(beta2_power, dtype),
            math_ops.cast(self._lr_t, dtype), math_ops.cast(self._beta1_t, dtype), math_ops.cast(self._beta2_t, dtype),
            math_ops.cast(self._epsilon_t, dtype), grad, use_locking=self._use_locking)

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power = math_ops.cast(beta1_power, dtype)
        beta2_power = math_ops.cast(beta2_power, dtype)
        lr_t = math_ops.cast(self._lr_t, dtype)
        beta1_t = math_ops.cast(self._beta1_t, dtype)
        beta2_t = math_ops.cast(self._beta2_t, dtype)
        epsilon_t = math_ops.cast(self._epsilon_t, dtype)
        lr = (lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power))
        # m_t = beta1 * m + (1 - beta1) * g_t
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with graph_lib.control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        # v_t = beta2 * v + (1 - beta2) * (g_t * g_t)
        v = self.get_slot(var, "v")
        v_scaled_g_values = (grad * grad) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with graph_lib.control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t), use_locking=self._use_locking)
        return control_flow_ops.group(*[var_update, m_t, v_t])

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, v: scatter_ops.scatter_add(x, i, v, use_locking=self._use_locking))

    def _finish(self, update_ops, name_scope):
        # The power accumulators advance once every variable was updated.
        with graph_lib.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with graph_lib.colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t, use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t, use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops + [update_beta1, update_beta2], name=name_scope)
