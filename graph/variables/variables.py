"""Variable: TensorFlow 1.x's reference variable (RefVariable), its initializers and collections.

A ``Variable`` named ``w`` is the ops TensorFlow builds in the name scope ``w/``::

    w              VariableV2   the state, output ``w:0`` of type ``float32_ref``
    w/initial_value Const       (or ``w/Initializer/...`` for a callable initial value)
    w/Assign       Assign       the initializer, colocated with ``w``
    w/read         Identity     the snapshot every reader uses, colocated with ``w``

Values live in a Session, never in the graph.  When an initial value reads other
variables, the Assign's input is rewritten as TensorFlow's
``_try_guard_against_uninitialized_dependencies`` does: each variable read becomes
``cond(is_variable_initialized(v), v.read_value, <v's own guarded initial value>)``,
so the initializers may run in any order and chains of any depth get the right value
(TensorFlow itself guards only one level deep: see ``_guarded_initialized_value``).
``variables_initializer`` rejects a cycle of initializers reading each other, naming its
variables.  The guard, the dependency graph and the uninitialized-value advice live in
`graph.variables.initialization_order`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from graph.base import dtypes as dtypes_lib
from graph.core import default_session
from graph.core import graph as graph_lib
from graph.variables import initialization_order
from graph.variables import resource_toggle
from graph.variables.variable_creators import VariableMetaclass
from graph.ops import constant_ops as ops
from graph.ops import control_flow_ops
from graph.ops import state_ops
from graph.core.graph import GraphKeys, Operation, Tensor
from graph.core.name_scopes import prepend_name_scope as _prepend_name_scope
from graph.core.name_scopes import strip_name_scope as _strip_name_scope
from graph.variables.save_slice_info import SaveSliceInfo
from graph.variables.synchronization import (VariableAggregation, VariableAggregationV2, VariableSynchronization,
                                             validate_synchronization_aggregation_trainable)
from graph.proto.framework import VariableDef
from graph.base.shapes import TensorShape, unknown_shape

__all__ = ["Variable", "VariableV1", "RefVariable", "VariableSynchronization", "VariableAggregation"]

_logger = logging.getLogger("graph")


class Variable(metaclass=VariableMetaclass):
    """A TensorFlow 1.x graph variable (``RefVariable``): VariableV2 + Assign initializer + read snapshot."""

    _is_tensor_like = True  # tf.is_tensor accepts it, as TF's

    SaveSliceInfo = SaveSliceInfo
    _applies_variable_creators = True  # tf.Variable(...) runs the graph's variable creators (TF's VariableV1)

    def __new__(cls, *args, use_resource: bool | None = None, **kwargs):
        """TF's VariableV1 dispatch: a ResourceVariable for ``use_resource`` (or after enable_resource_variables)."""
        if cls is Variable and kwargs.get("variable_def") is None and (
                use_resource or (use_resource is None and resource_toggle.resource_variables_enabled())):
            return super().__new__(resource_toggle.resource_variable_class())
        return super().__new__(cls)

    # Lets a Variable's reflected operators win over numpy arrays (TF's comment on RefVariable).
    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable: bool | None = None, collections=None,
                 validate_shape: bool = True, caching_device=None, name: str | None = None,
                 variable_def: VariableDef | None = None, dtype=None, expected_shape=None,
                 import_scope: str | None = None, constraint: Callable | None = None,
                 use_resource: bool | None = None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None):
        """Creates the variable's ops in the default graph (or adopts them from ``variable_def``).

        Raises:
            ValueError: if both or neither of ``initial_value`` and ``variable_def`` are given, if the
                initial value's shape is not fully known while ``validate_shape``, or for bad arguments.
        """
        del expected_shape  # deprecated and ignored, as in TensorFlow
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError(f"variable_def and initial_value are mutually exclusive. Received: "
                                 f"variable_def={variable_def} and initial_value={initial_value}.")
            self._init_from_proto(variable_def, import_scope)
        else:
            self._init_from_args(initial_value, trainable, collections, validate_shape, caching_device, name,
                                 dtype, constraint, synchronization, aggregation, shape)

    # ----------------------------------------------------------------- construction
    def _init_from_args(self, initial_value, trainable, collections, validate_shape, caching_device, name,
                        dtype, constraint, synchronization, aggregation, shape) -> None:
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError("collections argument to Variable constructor must be a list, tuple, or set. "
                             f"Got {collections} of type {type(collections)}")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        self._synchronization, self._aggregation, self._trainable = \
            validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable, name)
        if self._trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        graph = graph_lib.get_default_graph()
        # TF's ops.init_scope(): variables are created outside any control-dependency context.
        with graph.control_dependencies(None), \
                graph_lib.name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope_name:
            graph = graph_lib.get_default_graph()
            if init_from_fn:
                # TF runs the callable under _attr_scope({"_class": loc:@<name>}) and device(None), so the
                # initializer ops (and the VariableV2 op itself) carry the variable's colocation group.
                true_name = graph_lib.name_from_scope_name(scope_name)
                first_id = graph._last_id
                with graph_lib.name_scope("Initializer"), graph.device(None):
                    value = initial_value()
                    self._initial_value = graph_lib.convert_to_tensor(value, name="initial_value", dtype=dtype)
                    if shape is None:
                        shape = self._initial_value.get_shape() if validate_shape else unknown_shape()
                self._variable = state_ops.variable_op_v2(shape, self._initial_value.dtype.base_dtype,
                                                          name=scope_name)
                if not graph._colocation_stack:
                    location = [b"loc:@" + true_name.encode()]
                    for op in reversed(graph._ops_by_name.values()):  # newest first: only this call's ops
                        if op._id <= first_id:
                            break
                        op._set_attr("_class", list(location))
            else:
                self._initial_value = graph_lib.convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
                if control_flow_ops.get_control_flow_context(self._initial_value.op) is not None:
                    raise ValueError(
                        "Initializer for variable %s is from inside a control-flow construct, such as a loop or "
                        "conditional. When creating a variable inside a loop or conditional, use a lambda as the "
                        "initializer." % name)
                if shape is None:
                    shape = self._initial_value.get_shape() if validate_shape else unknown_shape()
                self._variable = state_ops.variable_op_v2(shape, self._initial_value.dtype.base_dtype,
                                                          name=scope_name)
            self._name = self._variable.name
            if validate_shape and not self._initial_value.get_shape().is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
            guarded = initialization_order.guard_against_uninitialized_dependencies(scope_name, self._initial_value)
            self._initializer_op = state_ops.assign(self._variable, guarded, validate_shape=validate_shape).op
            if caching_device is not None:
                with graph.device(caching_device):
                    self._snapshot = ops.identity(self._variable, name="read")
            else:
                with graph.colocate_with(self._variable.op):
                    self._snapshot = ops.identity(self._variable, name="read")
        graph.add_to_collections(collections, self)
        self._caching_device = caching_device
        self._save_slice_info = None
        self._constraint = constraint

    def _init_from_proto(self, variable_def: VariableDef, import_scope: str | None = None) -> None:
        graph = graph_lib.get_default_graph()
        self._variable = graph.as_graph_element(_prepend_name_scope(variable_def.variable_name, import_scope))
        self._name = self._variable.name
        self._initializer_op = graph.as_graph_element(
            _prepend_name_scope(variable_def.initializer_name, import_scope))
        if variable_def.initial_value_name:
            self._initial_value = graph.as_graph_element(
                _prepend_name_scope(variable_def.initial_value_name, import_scope))
        else:
            self._initial_value = None
        self._synchronization, self._aggregation, self._trainable = \
            validate_synchronization_aggregation_trainable(
                variable_def.synchronization, variable_def.aggregation, variable_def.trainable,
                variable_def.variable_name)
        self._snapshot = graph.as_graph_element(_prepend_name_scope(variable_def.snapshot_name, import_scope))
        if variable_def.save_slice_info_def:
            self._save_slice_info = SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                                                   import_scope=import_scope)
        else:
            self._save_slice_info = None
        self._caching_device = None
        self._constraint = None

    @staticmethod
    def from_proto(variable_def: VariableDef, import_scope: str | None = None) -> Variable:
        """Re-creates a Variable whose ops already exist in the default graph, from its VariableDef."""
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def to_proto(self, export_scope: str | None = None) -> VariableDef | None:
        """This variable as a VariableDef (op and tensor names), or None if outside ``export_scope``."""
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        strip = _strip_name_scope if export_scope else lambda name, scope: name
        # Only the fields that differ from their defaults are set (unset fields read as their defaults).
        fields = {"variable_name": strip(self._variable.name, export_scope),
                  "initializer_name": strip(self._initializer_op.name, export_scope),
                  "snapshot_name": strip(self._snapshot.name, export_scope)}
        if self._save_slice_info:
            save_slice_info_def = self._save_slice_info.to_proto(export_scope=export_scope)
            if save_slice_info_def is not None:
                fields["save_slice_info_def"] = save_slice_info_def
        if self._initial_value is not None:
            fields["initial_value_name"] = strip(self._initial_value.name, export_scope)
        if self._trainable:
            fields["trainable"] = True
        if self._synchronization is not VariableSynchronization.AUTO:
            fields["synchronization"] = self._synchronization.value
        if self._aggregation.value != VariableAggregation.NONE.value:  # V1 or V2 member
            fields["aggregation"] = self._aggregation.value
        return VariableDef._of_fields(fields)

    # ----------------------------------------------------------------- reading
    def value(self) -> Tensor:
        """The snapshot tensor ``<name>/read:0`` that readers use."""
        return self._snapshot

    def read_value(self) -> Tensor:
        """A new Identity ``read`` of the variable, in the current name scope and control context."""
        return ops.identity(self._variable, name="read")

    def _ref(self) -> Tensor:
        """The ``*_ref`` output of the VariableV2 op (what Assign writes through)."""
        return self._variable

    def _as_graph_element(self) -> Tensor:
        return self._variable

    def initialized_value(self) -> Tensor:
        """The variable's value, or its initial value if not yet initialized (TF1's cond)."""
        with graph_lib.get_default_graph().control_dependencies(None):
            return control_flow_ops.cond(state_ops.is_variable_initialized(self._variable), self.read_value,
                                         lambda: self.initial_value)

    def _guarded_initialized_value(self) -> Tensor:
        """Like `initialized_value`, but falling back to the *guarded* initial value (the Assign's input).

        TensorFlow's guard falls back to the raw ``initial_value``, which may itself read
        uninitialized variables: a chain c <- b <- a then fails in some initializer orders.
        Using the already-guarded input keeps every level safe; it is the same tensor as
        ``initial_value`` whenever the initial value reads no variable.
        """
        fallback = self._initial_value
        if self._initializer_op is not None and len(self._initializer_op.inputs) == 2:
            fallback = self._initializer_op.inputs[1]
        with graph_lib.get_default_graph().control_dependencies(None):
            return control_flow_ops.cond(state_ops.is_variable_initialized(self._variable), self.read_value,
                                         lambda: fallback)

    def eval(self, session=None):
        """The variable's value in ``session`` (default: the default session), as a numpy value."""
        return self._variable.eval(session=session)

    def load(self, value, session=None) -> None:
        """Writes ``value`` into the variable by running its initializer with the initial value fed.

        Raises:
            ValueError: if there is no session.
        """
        session = session or default_session.get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # ----------------------------------------------------------------- writing
    def assign(self, value, use_locking: bool = False, name: str | None = None, read_value: bool = True):
        """An Assign op; returns its ref output, or the op if ``read_value`` is False."""
        return self._update("assign", value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking: bool = False, name: str | None = None, read_value: bool = True):
        """An AssignAdd op; returns its ref output, or the op if ``read_value`` is False."""
        return self._update("assign_add", delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking: bool = False, name: str | None = None, read_value: bool = True):
        """An AssignSub op; returns its ref output, or the op if ``read_value`` is False."""
        return self._update("assign_sub", delta, use_locking, name, read_value)

    def _update(self, function_name: str, value, use_locking, name, read_value):
        result = getattr(state_ops, function_name)(self._variable, value, use_locking=use_locking, name=name)
        return result if read_value else result.op

    def count_up_to(self, limit: int) -> Tensor:
        """A CountUpTo op: outputs the value, then increments it; OutOfRangeError once it reaches ``limit``."""
        return state_ops.count_up_to(self._variable, limit=limit)

    def set_shape(self, shape) -> None:
        """Refines the static shape of the ref and snapshot tensors."""
        self._ref().set_shape(shape)
        self.value().set_shape(shape)

    # ----------------------------------------------------------------- properties
    @property
    def name(self) -> str:
        """'<op name>:0', e.g. 'w:0'."""
        return self._name

    @property
    def initializer(self) -> Operation:
        """The Assign op that initializes the variable."""
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        """The tensor given as initial value (before guarding)."""
        return self._initial_value

    @property
    def device(self) -> str:
        """The VariableV2 op's device."""
        return self._variable.device

    @property
    def dtype(self) -> dtypes_lib.DType:
        """The reference dtype, e.g. float32_ref."""
        return self._variable.dtype

    @property
    def op(self) -> Operation:
        """The VariableV2 op."""
        return self._variable.op

    @property
    def graph(self) -> graph_lib.Graph:
        """The Graph holding the variable."""
        return self._variable.graph

    @property
    def shape(self) -> TensorShape:
        """The static shape of the variable."""
        return self._variable.get_shape()

    def get_shape(self) -> TensorShape:
        """The static shape of the variable (TF1 spelling)."""
        return self.shape

    @property
    def trainable(self) -> bool:
        """True if the variable is in TRAINABLE_VARIABLES (optimizers update it)."""
        return self._trainable

    @property
    def synchronization(self) -> VariableSynchronization:
        """When a distributed copy of the variable is synchronized."""
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        """How distributed updates of the variable are aggregated."""
        return self._aggregation

    @property
    def constraint(self):
        """The projection applied after optimizer updates, or None."""
        return self._constraint

    @property
    def _in_graph_mode(self) -> bool:
        return True

    @property
    def _shared_name(self) -> str:
        return self._variable.op.name

    def _get_save_slice_info(self):
        return self._save_slice_info

    def _set_save_slice_info(self, save_slice_info) -> None:
        self._save_slice_info = save_slice_info

    # ----------------------------------------------------------------- Python protocol
    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.get_shape()} dtype={self.dtype.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other):  # TF1 graph mode: identity, so variables work in sets and dicts
        return self is other

    def __ne__(self, other):
        return self is not other

    def __iter__(self):
        return iter(self.read_value())

    def __bool__(self):
        return bool(self.read_value())

    def _warn_inplace(self, operator: str, advice: str) -> None:
        _logger.warning("Variable %s will be deprecated. Use %s if you want assignment to the variable value "
                        "or 'x = x %s y' if you want a new python Tensor object.", operator, advice, operator[0])

    def __iadd__(self, other):
        self._warn_inplace("+=", "variable.assign_add")
        return self + other

    def __isub__(self, other):
        self._warn_inplace("-=", "variable.assign_sub")
        return self - other

    def __imul__(self, other):
        self._warn_inplace("*=", "`var.assign(var * other)`")
        return self * other

    def __itruediv__(self, other):
        self._warn_inplace("/=", "`var.assign(var / other)`")
        return self / other

    def __ipow__(self, other):
        self._warn_inplace("**=", "`var.assign(var ** other)`")
        return self ** other


VariableV1 = Variable
RefVariable = Variable


# Tensor.OVERLOADABLE_OPERATORS except == and != (identity for variables).  Importing graph.ops (above) has
# installed them on Tensor; each is still looked up at call time, so an operator Tensor gains later is used.
_OVERLOADED_OPERATORS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__lt__", "__le__", "__gt__",
    "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__getitem__", "__pow__",
    "__rpow__", "__invert__", "__neg__", "__abs__", "__matmul__", "__rmatmul__",
)


def _make_operator(operator: str):
    def run_operator(self, *args, **kwargs):
        return getattr(Tensor, operator)(self.value(), *args, **kwargs)
    # As TF's Variable._OverloadOperator (functools.wraps): the operator carries Tensor's name, doc and module.
    return functools.wraps(getattr(Tensor, operator))(run_operator)


for _operator in _OVERLOADED_OPERATORS:
    setattr(Variable, _operator, _make_operator(_operator))


def _variable_conversion(value: Variable, dtype=None, name=None, as_ref: bool = False) -> Tensor:
    """convert_to_tensor for Variables: the ref when ``as_ref``, else the ``read`` snapshot."""
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for variable of type "
                         f"'{value.dtype.name}'")
    return value._ref() if as_ref else value.value()


graph_lib.register_tensor_conversion_function(Variable, _variable_conversion)
