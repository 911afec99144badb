"""ResourceVariable: TensorFlow's resource variable in graph mode (``use_resource=True``).

A ``ResourceVariable`` named ``v`` is the ops TensorFlow builds in the name scope ``v/``::

    v/Initializer/...              the initial value (ops carry the colocation group ``loc:@v``)
    v                              VarHandleOp   the handle, output ``v:0`` of type ``resource``
    v/IsInitialized/VarIsInitializedOp
    v/Assign                       AssignVariableOp  the initializer
    v/Read/ReadVariableOp          the graph element fetching ``v`` returns

Reads are snapshots (graph.ops.resource_variable_ops); ``value()`` builds a new ``ReadVariableOp``
each time, ``read_value()`` a ``Read/ReadVariableOp`` and an ``Identity``, and an update returns an
`_UnreadVariable` whose value is read after the update.  Rules follow
tensorflow/python/ops/resource_variable_ops.py.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape, unknown_shape
from graph.core import default_session
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys, Operation, Tensor
from graph.core.indexed_slices import IndexedSlices
from graph.core.name_scopes import prepend_name_scope, strip_name_scope
from graph.ops import constant_ops
from graph.ops import control_flow_ops
from graph.ops import resource_variable_ops as gen
from graph.proto.framework import VariableDef
from graph.variables import initialization_order
from graph.variables import resource_toggle
from graph.variables.resource_toggle import (disable_resource_variables, enable_resource_variables,
                                             resource_variables_enabled)
from graph.variables import variables
from graph.variables.save_slice_info import SaveSliceInfo
from graph.variables.synchronization import (VariableAggregation, VariableSynchronization,
                                             validate_synchronization_aggregation_trainable)

__all__ = ["ResourceVariable", "is_resource_variable", "enable_resource_variables", "disable_resource_variables",
           "resource_variables_enabled"]

def is_resource_variable(var) -> bool:
    """True for a ResourceVariable (or one of its unread update results)."""
    return isinstance(var, ResourceVariable)


class ResourceVariable(variables.Variable):
    """A variable held behind a resource handle (``VarHandleOp``); reads are ``ReadVariableOp`` snapshots."""

    def __init__(self, initial_value=None, trainable: bool | None = None, collections=None,
                 validate_shape: bool = True, caching_device=None, name: str | None = None, dtype=None,
                 variable_def: VariableDef | None = None, import_scope: str | None = None, constraint=None,
                 distribute_strategy=None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None, **unused):
        """Creates the variable's ops in the default graph (or adopts them from ``variable_def``).

        Raises:
            ValueError: if both or neither of ``initial_value`` and ``variable_def`` are given, or the initial
                value's shape is not fully known while ``validate_shape``.
        """
        del distribute_strategy, unused
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
            raise ValueError("The `initial_value` arg (`None`) must be specified as a `Tensor` or a Python callable.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError("collections argument to Variable constructor must be a list, tuple, or set. "
                             f"Got {collections} of type {type(collections)}")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"Argument `constraint` must be None or a callable. a callable. Got a "
                             f"{type(constraint)}:  {constraint}")
        self._synchronization, self._aggregation, self._trainable = \
            validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable, name)
        if self._trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        graph = graph_lib.get_default_graph()
        with graph.control_dependencies(None), \
                graph_lib.name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope_name:
            handle_name = graph_lib.name_from_scope_name(scope_name)
            first_id = graph._last_id
            # TF's _attr_scope({"_class": loc:@<name>}): the initial value and the handle join the colocation group.
            with graph_lib.name_scope("Initializer"), graph.device(None):
                value = initial_value() if init_from_fn else initial_value
                self._initial_value = graph_lib.convert_to_tensor(value, name="initial_value", dtype=dtype)
            if shape is None:
                shape = self._initial_value.get_shape() if validate_shape else unknown_shape()
            shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
            dtype = self._initial_value.dtype.base_dtype
            self._handle = gen.var_handle_op(dtype, shape, shared_name=handle_name, debug_name=scope_name,
                                             name=scope_name)
            if not graph._colocation_stack:
                location = [b"loc:@" + handle_name.encode()]
                for op in reversed(graph._ops_by_name.values()):  # newest first: only this call's ops
                    if op._id <= first_id:
                        break
                    op._set_attr("_class", list(location))
            if validate_shape and not self._initial_value.get_shape().is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
            with graph_lib.name_scope("IsInitialized"):
                self._is_initialized_op = gen.var_is_initialized_op(self._handle)
            guarded = initialization_order.guard_against_uninitialized_dependencies(scope_name, self._initial_value)
            with graph_lib.name_scope("Assign") as assign_scope, graph.device(self._handle.device):
                self._initializer_op = gen.assign_variable_op(self._handle, guarded, name=assign_scope)
            with graph_lib.name_scope("Read"), graph.device(self._handle.device):
                self._graph_element = gen.read_variable_op(self._handle, dtype)
            self._cached_value = None
            if caching_device is not None:
                with graph.device(caching_device):
                    self._cached_value = constant_ops.identity(self._graph_element)
        self._dtype = dtype
        self._shape = shape
        self._name = self._handle.name
        self._unique_id = handle_name
        graph.add_to_collections(collections, self)
        self._caching_device = caching_device
        self._save_slice_info = None
        self._constraint = constraint

    def _init_from_proto(self, variable_def: VariableDef, import_scope: str | None = None) -> None:
        graph = graph_lib.get_default_graph()
        self._handle = graph.as_graph_element(prepend_name_scope(variable_def.variable_name, import_scope))
        self._name = self._handle.name
        self._unique_id = self._handle.op.name
        self._dtype = self._handle.op.get_attr("dtype")
        self._shape = TensorShape(self._handle.op.get_attr("shape"))
        self._initializer_op = graph.as_graph_element(prepend_name_scope(variable_def.initializer_name, import_scope))
        is_initialized_name = self._handle.op.name + "/IsInitialized/VarIsInitializedOp"
        self._is_initialized_op = graph._get_operation_or_none(is_initialized_name)
        if self._is_initialized_op is not None:
            self._is_initialized_op = self._is_initialized_op.outputs[0]
        self._initial_value = (graph.as_graph_element(prepend_name_scope(variable_def.initial_value_name,
                                                                         import_scope))
                               if variable_def.initial_value_name else None)
        self._synchronization, self._aggregation, self._trainable = validate_synchronization_aggregation_trainable(
            variable_def.synchronization, variable_def.aggregation, variable_def.trainable,
            variable_def.variable_name)
        self._graph_element = (graph.as_graph_element(prepend_name_scope(variable_def.snapshot_name, import_scope))
                               if variable_def.snapshot_name else None)
        self._save_slice_info = (SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                                               import_scope=import_scope)
                                 if variable_def.save_slice_info_def else None)
        self._cached_value = None
        self._caching_device = None
        self._constraint = None

    @staticmethod
    def from_proto(variable_def: VariableDef, import_scope: str | None = None) -> ResourceVariable:
        """Re-creates a ResourceVariable whose ops already exist in the default graph, from its VariableDef."""
        return ResourceVariable(variable_def=variable_def, import_scope=import_scope)

    def to_proto(self, export_scope: str | None = None) -> VariableDef | None:
        """This variable as a VariableDef (``is_resource`` set), or None if outside ``export_scope``."""
        if export_scope is not None and not self._handle.name.startswith(export_scope):
            return None
        strip = strip_name_scope if export_scope else lambda name, scope: name
        fields = {"variable_name": strip(self._handle.name, export_scope),
                  "initializer_name": strip(self._initializer_op.name, export_scope)}
        if self._graph_element is not None:
            fields["snapshot_name"] = strip(self._graph_element.name, export_scope)
        fields["is_resource"] = True
        if self._initial_value is not None:
            fields["initial_value_name"] = strip(self._initial_value.name, export_scope)
        if self._save_slice_info:
            save_slice_info_def = self._save_slice_info.to_proto(export_scope=export_scope)
            if save_slice_info_def is not None:
                fields["save_slice_info_def"] = save_slice_info_def
        if self._trainable:
            fields["trainable"] = True
        if self._synchronization is not VariableSynchronization.AUTO:
            fields["synchronization"] = self._synchronization.value
        if self._aggregation is not VariableAggregation.NONE:
            fields["aggregation"] = self._aggregation.value
        return VariableDef._of_fields(fields)

    # ----------------------------------------------------------------- reading
    @property
    def handle(self) -> Tensor:
        """The ``resource`` tensor of the VarHandleOp."""
        return self._handle

    def _read_variable_op(self) -> Tensor:
        return gen.read_variable_op(self._handle, self._dtype)

    def value(self) -> Tensor:
        """A new ``ReadVariableOp`` of the variable (the cached value with a caching device)."""
        if self._cached_value is not None:
            return self._cached_value
        with graph_lib.colocate_with(None, ignore_existing=True), self._handle.graph.device(self._handle.device):
            return self._read_variable_op()

    def read_value(self) -> Tensor:
        """``Read/ReadVariableOp`` and an ``Identity`` of it, in the current name scope and control context."""
        with graph_lib.name_scope("Read"):
            value = self._read_variable_op()
        return constant_ops.identity(value)

    def sparse_read(self, indices, name: str | None = None) -> Tensor:
        """A ``ResourceGather`` of the rows ``indices`` (named ``Gather``)."""
        with graph_lib.name_scope("Gather" if name is None else name) as scope:
            return gen.resource_gather(self._handle, indices, dtype=self._dtype, name=scope)

    def _ref(self) -> Tensor:
        return self._handle

    def _as_graph_element(self) -> Tensor:
        return self._graph_element

    def initialized_value(self) -> Tensor:
        """The variable's value, or its initial value if not yet initialized."""
        with graph_lib.get_default_graph().control_dependencies(None):
            return control_flow_ops.cond(gen.var_is_initialized_op(self._handle), self.read_value,
                                         lambda: self.initial_value)

    def is_initialized(self, name: str | None = None) -> Tensor:
        """A ``VarIsInitializedOp`` of the variable."""
        return gen.var_is_initialized_op(self._handle, name=name)

    def eval(self, session=None):
        """The variable's value in ``session`` (default: the default session)."""
        return self._graph_element.eval(session=session)

    def load(self, value, session=None) -> None:
        """Writes ``value`` into the variable by running its initializer with the initial value fed."""
        session = session or default_session.get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # ----------------------------------------------------------------- writing
    def _lazy_read(self, op: Operation) -> _UnreadVariable:
        return _UnreadVariable(self, op)

    def assign(self, value, use_locking: bool | None = None, name: str | None = None, read_value: bool = True):
        """An ``AssignVariableOp`` (validate_shape if the shape is fully known); returns the read after it, or the op.

        Raises:
            ValueError: if the value's static shape is not the variable's.
        """
        value_tensor = graph_lib.convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value_tensor.shape):
            variable_name = "<unknown>" if self._name is None else self._name[:-2]
            raise ValueError(f"Cannot assign value to variable ' {variable_name} ': Shape mismatch.The variable shape "
                             f"{self._shape}, and the assigned value shape {value_tensor.shape} are incompatible.")
        op = gen.assign_variable_op(self._handle, value_tensor, validate_shape=self._shape.is_fully_defined(),
                                    name=name)
        return self._lazy_read(op) if read_value else op

    def assign_add(self, delta, use_locking: bool | None = None, name: str | None = None, read_value: bool = True):
        """An ``AssignAddVariableOp``; returns the variable read after it, or the op."""
        op = gen.assign_add_variable_op(self._handle, graph_lib.convert_to_tensor(delta, dtype=self._dtype),
                                        name=name)
        return self._lazy_read(op) if read_value else op

    def assign_sub(self, delta, use_locking: bool | None = None, name: str | None = None, read_value: bool = True):
        """An ``AssignSubVariableOp``; returns the variable read after it, or the op."""
        op = gen.assign_sub_variable_op(self._handle, graph_lib.convert_to_tensor(delta, dtype=self._dtype),
                                        name=name)
        return self._lazy_read(op) if read_value else op

    def _scatter(self, function, sparse_delta, name):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return self._lazy_read(function(self._handle, sparse_delta.indices,
                                        graph_lib.convert_to_tensor(sparse_delta.values, dtype=self._dtype),
                                        name=name))

    def scatter_add(self, sparse_delta, use_locking: bool = False, name: str | None = None):
        """``ResourceScatterAdd`` of an IndexedSlices; returns the variable read after it."""
        return self._scatter(gen.resource_scatter_add, sparse_delta, name)

    def scatter_sub(self, sparse_delta, use_locking: bool = False, name: str | None = None):
        """``ResourceScatterSub`` of an IndexedSlices; returns the variable read after it."""
        return self._scatter(gen.resource_scatter_sub, sparse_delta, name)

    def scatter_update(self, sparse_delta, use_locking: bool = False, name: str | None = None):
        """``ResourceScatterUpdate`` of an IndexedSlices; returns the variable read after it."""
        return self._scatter(gen.resource_scatter_update, sparse_delta, name)

    def count_up_to(self, limit: int) -> Tensor:
        """Not emulated for resource variables (TF builds a ResourceCountUpTo op)."""
        raise NotImplementedError("count_up_to of a resource variable (ResourceCountUpTo) is not emulated.")

    def set_shape(self, shape) -> None:
        """Refines the static shape of the variable."""
        self._shape = self._shape.merge_with(shape)

    # ----------------------------------------------------------------- properties
    @property
    def dtype(self) -> dtypes_lib.DType:
        """The value dtype, e.g. float32 (no ``_ref``)."""
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        """The static shape of the variable."""
        return self._shape

    @property
    def device(self) -> str:
        """The VarHandleOp's device."""
        return self._handle.device

    @property
    def op(self) -> Operation:
        """The VarHandleOp."""
        return self._handle.op

    @property
    def graph(self) -> graph_lib.Graph:
        """The Graph holding the variable."""
        return self._handle.graph

    @property
    def create(self) -> Operation:
        """The initializer op (TF's deprecated alias)."""
        return self._initializer_op

    @property
    def _shared_name(self) -> str:
        return self._handle.op.name

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.get_shape()} dtype={self.dtype.name}>"


class _UnreadVariable(ResourceVariable):
    """The result of an update with ``read_value=True``: the variable, read only after the update ran."""

    def __init__(self, parent: ResourceVariable, parent_op: Operation) -> None:  # noqa: D107
        self._handle = parent._handle
        self._dtype = parent._dtype
        self._shape = parent._shape
        self._parent = parent
        self._parent_op = parent_op
        self._name = parent_op.name
        self._unique_id = parent._unique_id
        self._initial_value = None
        self._initializer_op = None
        self._is_initialized_op = None
        self._cached_value = None
        self._caching_device = None
        self._save_slice_info = None
        self._constraint = None
        self._trainable = False
        self._synchronization = VariableSynchronization.AUTO
        self._aggregation = VariableAggregation.NONE
        self._graph_element = self.read_value()

    def read_value(self) -> Tensor:
        """A ``ReadVariableOp`` after the update."""
        with self._handle.graph.control_dependencies([self._parent_op]):
            return gen.read_variable_op(self._handle, self._dtype)

    def value(self) -> Tensor:
        """A ``ReadVariableOp`` after the update."""
        return self.read_value()

    @property
    def op(self) -> Operation:
        """The update op."""
        return self._parent_op

    def assign(self, *args, **kwargs):
        """Assigns through the variable, after this update."""
        with self._handle.graph.control_dependencies([self._parent_op]):
            return self._parent.assign(*args, **kwargs)

    def assign_add(self, *args, **kwargs):
        """Adds through the variable, after this update."""
        with self._handle.graph.control_dependencies([self._parent_op]):
            return self._parent.assign_add(*args, **kwargs)

    def assign_sub(self, *args, **kwargs):
        """Subtracts through the variable, after this update."""
        with self._handle.graph.control_dependencies([self._parent_op]):
            return self._parent.assign_sub(*args, **kwargs)


def _conversion(value: ResourceVariable, dtype=None, name=None, as_ref: bool = False) -> Tensor:
    """convert_to_tensor for resource variables: the handle when ``as_ref``, else a new read."""
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for variable of type "
                         f"'{value.dtype.name}' (value: {value})")
    if as_ref:
        return value._handle
    if isinstance(value, _UnreadVariable):
        return value._graph_element
    return value.value()


graph_lib.register_tensor_conversion_function(ResourceVariable, _conversion)
resource_toggle.register_resource_variable_class(ResourceVariable)
