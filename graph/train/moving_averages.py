"""Moving averages: ``assign_moving_average`` and ``tf.train.ExponentialMovingAverage``.

Rules follow tensorflow/python/training/moving_averages.py (graph mode, no distribution strategy):

    shadow -= (shadow - value) * (1 - decay)            one AssignSub named <scope>/AssignMovingAvg
    decay   = min(decay, (1 + num_updates) / (10 + num_updates))      when num_updates is given

The shadow of a Variable ``v`` is the slot variable ``v/ExponentialMovingAverage``, colocated with
``v``, initialized to ``v``'s value (``v``'s initial value if ``v`` is not yet initialized), and ``v``
joins MOVING_AVERAGE_VARIABLES.  The shadow of a Tensor starts at zero; with ``zero_debias`` it is
kept as ``<shadow>/biased`` over a ``<shadow>/local_step`` count and divided by ``1 - decay ** step``.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys, Tensor, convert_to_tensor, name_scope
from graph.ops import control_flow_ops, math_ops, state_ops
from graph.train import slot_creator
from graph.variables import initializers, variable_collections, variable_scope
from graph.variables.variables import Variable

__all__ = ["assign_moving_average", "ExponentialMovingAverage"]

_FLOAT_TYPES = (dtypes_lib.bfloat16, dtypes_lib.float16, dtypes_lib.float32, dtypes_lib.float64)
_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _init_scope():
    """Graph-mode ``tf.init_scope``: outside any cond context and control dependencies, same name scope."""
    return graph_lib.get_default_graph().control_dependencies(None)


def _zero_debias(unbiased_var, value, decay) -> Tensor:
    """The zero-debiased update: a biased shadow and a step count beside ``unbiased_var``."""
    with variable_scope.variable_scope(unbiased_var.name[:-len(":0")], values=[unbiased_var, value, decay]):
        with _init_scope():
            biased_initializer = initializers.zeros_initializer()
            local_step_initializer = initializers.zeros_initializer()

        def unique(name: str) -> str:  # TF's _maybe_get_unique: a fresh name unless reusing
            scope = variable_scope.get_variable_scope()
            if scope.reuse:
                return name
            taken = {v.op.name for v in scope.global_variables()}
            full_name = scope.name + "/" + name
            if full_name not in taken:
                return name
            index = 1
            while full_name + "_%d" % index in taken:
                index += 1
            return name + "_%d" % index

        with graph_lib.colocate_with(unbiased_var):
            biased_var = variable_scope.get_variable(unique("biased"), initializer=biased_initializer,
                                                     shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype,
                                                     trainable=False)
            local_step = variable_scope.get_variable(unique("local_step"), shape=[], dtype=unbiased_var.dtype,
                                                     initializer=local_step_initializer, trainable=False)
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=graph_lib.get_default_graph().get_name_scope() + "/")


def assign_moving_average(variable, value, decay, zero_debias: bool = True, name: str | None = None) -> Tensor:
    """``variable -= (variable - value) * (1 - decay)``; with ``zero_debias`` the debiased average.

    ``zero_debias`` needs ``variable`` to be a variable the update may create companions beside
    (``<variable>/biased``, ``<variable>/local_step``).
    """
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


class ExponentialMovingAverage:
    """Keeps shadow variables holding exponential moving averages of variables or tensors."""

    def __init__(self, decay, num_updates=None, zero_debias: bool = False, name: str = "ExponentialMovingAverage"):
        """An EMA with ``decay`` (a float or Tensor), optionally warmed up by the counter ``num_updates``."""
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[int, tuple] = {}  # id(var) -> (var, shadow): TF keys by var.ref()

    @property
    def name(self) -> str:
        """The name of this EMA: the shadow variables' suffix and the update op's scope."""
        return self._name

    def apply(self, var_list=None):
        """Creates the shadows of ``var_list`` (default: the trainable variables) and returns the op
        that updates them all.

        Raises:
            TypeError: if a variable is not half, float or double.
        """
        if var_list is None:
            var_list = variable_collections.trainable_variables()
        var_list = list(var_list)
        zero_debias_true = set()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_TYPES:
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if id(var) in self._averages:
                continue
            with _init_scope():
                if isinstance(var, Variable):
                    with graph_lib.device(var.device):
                        initialized_value = control_flow_ops.cond(
                            state_ops.is_variable_initialized(var), var.read_value, lambda var=var: var.initial_value)
                    avg = slot_creator.create_slot(var, initialized_value, self.name, colocate_with_primary=True)
                    graph_lib.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(var, self.name,
                                                         colocate_with_primary=var.op.type in _VARIABLE_OPS)
                    if self._zero_debias:
                        zero_debias_true.add(id(avg))
            self._averages[id(var)] = (var, avg)
        with name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes_lib.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes_lib.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[id(var)][1]
                updates.append(assign_moving_average(avg, var, decay, id(avg) in zero_debias_true))
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of ``var``, or None if ``apply`` has not seen it."""
        entry = self._averages.get(id(var))
        return None if entry is None else entry[1]

    def average_name(self, var) -> str:
        """The checkpoint name of ``var``'s shadow (the name it would get if ``apply`` has not run yet)."""
        entry = self._averages.get(id(var))
        if entry is not None:
            return entry[1].name[:-len(":0")]
        return graph_lib.get_default_graph().unique_name(var.name[:-len(":0")] + "/" + self.name,
                                                         mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{checkpoint name: variable}`` restoring each averaged variable from its shadow's entry, every
        other global variable from its own (``Saver(ema.variables_to_restore())``)."""
        if moving_avg_variables is None:
            moving_avg_variables = (variable_collections.trainable_variables()
                                    + variable_collections.moving_average_variables())
        unique = {id(v): v for v in moving_avg_variables}
        name_map = {self.average_name(v): v for v in unique.values()}
        averaged_names = {v.name for v in unique.values()}
        for v in variable_collections.global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
