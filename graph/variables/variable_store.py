"""The variable store behind get_variable: TensorFlow 1.x's name -> Variable map kept in a graph collection.

``_VariableStore.get_variable`` creates a variable (plain or partitioned) the first time a full name is asked
for and returns it when the caller reuses, raising TensorFlow's errors when creation and reuse disagree
(with the user frames of the first creation, as TF lists them).  Scopes live in `graph.variables.variable_scope`,
which is this module's only client.
"""

from __future__ import annotations

import enum
import functools
import inspect
import os
import traceback
from collections.abc import Callable

from graph.base import dtypes as dtypes_lib
from graph.core import graph as graph_lib
from graph.ops import array_index_ops
from graph.variables import initializers as init_ops
from graph.variables import synchronization as synchronization_lib
from graph.variables import variables
from graph.variables import resource_variables  # noqa: F401  (registers the class use_resource=True builds)
from graph.core.graph import GraphKeys, Tensor
from graph.variables.partitioning import (PartitionedVariable, _call_partitioner, _get_slice_dim_and_num_slices,
                                _iter_slices, _PartitionInfo)
from graph.base.shapes import as_shape

__all__ = ["AUTO_REUSE"]

VariableSynchronization = variables.VariableSynchronization
VariableAggregation = variables.VariableAggregation

# Graph collection keys under which TensorFlow keeps the variable store and the scope store.
_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class _ReuseMode(enum.Enum):
    """Reuse modes beyond True/False."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE  # get_variable creates the variable if missing, else returns it


def _takes_partition_info(function: Callable) -> bool:
    try:
        return "partition_info" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _needs_no_arguments(function: Callable) -> bool:
    """True if every positional parameter of ``function`` has a default."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not inspect.Parameter.empty for p in parameters
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _user_traceback() -> list:
    """The innermost five stack frames outside this package, innermost first (TF's error listing)."""
    frames = traceback.extract_stack(limit=30)[::-1]  # deep enough to pass this package's own frames
    return [frame for frame in frames if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR)][:5]


class _VariableStore:
    """The graph's name -> Variable (and name -> PartitionedVariable) map behind get_variable."""

    def __init__(self):
        self._vars: dict[str, variables.Variable] = {}
        self._partitioned_vars: dict[str, PartitionedVariable] = {}
        self._tracebacks: dict[str, list] = {}

    def get_variable(self, name, shape=None, dtype=dtypes_lib.float32, initializer=None, regularizer=None,
                     reuse=None, trainable=None, collections=None, caching_device=None, partitioner=None,
                     validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
        """Gets or creates the variable ``name`` (full name); see module `get_variable`."""
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        dtype = getattr(dtype, "base_dtype", dtype)

        def _true_getter(name, shape=None, dtype=dtypes_lib.float32, initializer=None, regularizer=None,
                         reuse=None, trainable=None, collections=None, caching_device=None, partitioner=None,
                         validate_shape=True, use_resource=None, constraint=None,
                         synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
            is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                with graph_lib.name_scope(None):
                    return self._get_partitioned_variable(
                        name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        reuse=reuse, trainable=trainable, collections=collections,
                        caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
                        use_resource=use_resource, constraint=constraint, synchronization=synchronization,
                        aggregation=aggregation)
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                return self._get_partitioned_variable(
                    name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                    reuse=reuse, trainable=trainable, collections=collections, caching_device=caching_device,
                    partitioner=None, validate_shape=validate_shape, use_resource=use_resource,
                    constraint=constraint, synchronization=synchronization, aggregation=aggregation)
            if f"{name}/part_0" in self._vars:
                raise ValueError(f"No partitioner was provided, but a partitioned version of the variable was found: "
                                 f"{name}/part_0. Perhaps a variable of the same name was already created with "
                                 "partitioning?")
            return self._get_single_variable(
                name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                reuse=reuse, trainable=trainable, collections=collections, caching_device=caching_device,
                validate_shape=validate_shape, use_resource=use_resource, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)

        synchronization, aggregation, trainable = synchronization_lib.validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        if custom_getter is not None:
            kwargs = {"getter": _true_getter, "name": name, "shape": shape, "dtype": dtype,
                      "initializer": initializer, "regularizer": regularizer, "reuse": reuse,
                      "trainable": trainable, "collections": collections, "caching_device": caching_device,
                      "partitioner": partitioner, "validate_shape": validate_shape, "use_resource": use_resource,
                      "synchronization": synchronization, "aggregation": aggregation}
            try:
                parameters = inspect.signature(custom_getter).parameters
                accepts_constraint = "constraint" in parameters or any(
                    p.kind == p.VAR_KEYWORD for p in parameters.values())
            except (TypeError, ValueError):
                accepts_constraint = True
            if accepts_constraint:
                kwargs["constraint"] = constraint
            return custom_getter(**kwargs)
        return _true_getter(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                            reuse=reuse, trainable=trainable, collections=collections,
                            caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
                            use_resource=use_resource, constraint=constraint, synchronization=synchronization,
                            aggregation=aggregation)

    def _get_partitioned_variable(self, name, partitioner, shape=None, dtype=dtypes_lib.float32, initializer=None,
                                  regularizer=None, reuse=None, trainable=None, collections=None,
                                  caching_device=None, validate_shape=True, use_resource=None, constraint=None,
                                  synchronization=VariableSynchronization.AUTO,
                                  aggregation=VariableAggregation.NONE):
        """Gets or creates the PartitionedVariable ``name``: parts ``name/part_<i>`` with slice info."""
        initializing_from_value = initializer is not None and isinstance(initializer, Tensor)
        if name in self._vars:
            raise ValueError(f"A partitioner was provided, but an unpartitioned version of the variable was found: "
                             f"{name}.  Perhaps a variable of the same name was already created without "
                             "partitioning?")
        shape = as_shape(shape)
        if initializing_from_value:
            shape = shape.merge_with(initializer.get_shape())
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            if reuse is False:
                raise ValueError(f"Partitioned variable with name {name} already exists. Did you mean to set "
                                 "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            existing = self._partitioned_vars[name]
            if not shape.is_compatible_with(existing.get_shape()):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified shape {shape} and "
                                 f"found shape {existing.get_shape()}.")
            if not dtype.is_compatible_with(existing.dtype):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified dtype {dtype.name} "
                                 f"and found dtype {existing.dtype.name}.")
            if partitions is not None and existing._get_partitions() != partitions:
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified partitions "
                                 f"{partitions} and found partitions {existing._get_partitions()}.")
            return existing
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in VarScope?")
        slice_dim, num_slices = _get_slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self._vars:
            if f"{name}/part_{num_slices - 1}" not in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was already found.  "
                                 f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, but "
                                 f"{name}/part_{num_slices - 1} was not.")
            if f"{name}/part_{num_slices}" in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was already found.  "
                                 f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, but "
                                 f"so was the extra shard {name}/part_{num_slices}.")
        parts = []
        for i, (var_offset, var_shape) in enumerate(_iter_slices(shape.as_list(), num_slices, slice_dim)):
            partition_info = _PartitionInfo(full_shape=shape.as_list(), var_offset=var_offset)
            var_full_name = f"{name}/part_{i}"
            with graph_lib.name_scope(var_full_name + "/PartitionedInitializer"):
                if initializer is None:
                    init, initializing_from_value = self._get_default_initializer(name=name, shape=shape,
                                                                                  dtype=dtype)
                    init_shape = None if initializing_from_value else var_shape
                elif callable(initializer):
                    init, init_shape = initializer, var_shape
                elif isinstance(initializer, Tensor):
                    init = array_index_ops.slice(initializer, var_offset, var_shape)
                    dtype = init.dtype.base_dtype
                    init_shape = None
                else:
                    init = graph_lib.convert_to_tensor(initializer, dtype=dtype)
                    init = array_index_ops.slice(init, var_offset, var_shape)
                    init_shape = None
            with graph_lib.name_scope(None):
                part = self._get_single_variable(
                    name=var_full_name, shape=init_shape, dtype=dtype, initializer=init,
                    partition_info=partition_info, regularizer=regularizer, reuse=reuse, trainable=trainable,
                    collections=collections, caching_device=caching_device, validate_shape=validate_shape,
                    use_resource=use_resource, constraint=constraint, synchronization=synchronization,
                    aggregation=aggregation)
            part._set_save_slice_info(variables.Variable.SaveSliceInfo(name, shape.as_list(), var_offset, var_shape))
            parts.append(part)
        partitioned = PartitionedVariable(name=name, shape=shape, dtype=dtype, variable_list=parts,
                                          partitions=partitions)
        self._partitioned_vars[name] = partitioned
        return partitioned

    def _get_single_variable(self, name, shape=None, dtype=dtypes_lib.float32, initializer=None,
                             regularizer=None, partition_info=None, reuse=None, trainable=None, collections=None,
                             caching_device=None, validate_shape=True, use_resource=None, constraint=None,
                             synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
        """Gets or creates the plain Variable ``name`` (TensorFlow's checks and messages)."""
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes_lib.as_dtype(dtype)
        if shape is not None:
            shape = as_shape(shape)
        if name in self._vars:
            if reuse is False:
                message = (f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or "
                           "reuse=tf.AUTO_REUSE in VarScope?")
                where = "".join(traceback.format_list(self._tracebacks.get(name, [])))
                raise ValueError(f"{message} Originally defined at:\n\n{where}")
            found = self._vars[name]
            if shape is not None and not shape.is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to share variable {name}, but specified shape {shape} and found shape "
                                 f"{found.get_shape()}.")
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                                 f"dtype {found.dtype.name}.")
            return found
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with tf.get_variable(). Did you "
                             "mean to set reuse=tf.AUTO_REUSE in VarScope?")
        if initializer is None:
            if shape is None:
                raise ValueError(f"Variable {name} did not get an initializer, so its `shape` argument must be "
                                 "specified.")
            initializer, initializing_from_value = self._get_default_initializer(name=name, shape=shape,
                                                                                 dtype=dtype)
        if initializing_from_value:
            init_val, variable_dtype = initializer, None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape is not None and shape.is_fully_defined():
                if _takes_partition_info(initializer):
                    init_val = functools.partial(initializer, shape.as_list(), dtype=dtype,
                                                 partition_info=partition_info)
                else:
                    init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
                variable_dtype = dtype.base_dtype
            elif _needs_no_arguments(initializer):
                init_val, variable_dtype = initializer, None
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable with no arguments "
                                 "and the shape should not be provided or an instance of "
                                 "`tf.keras.initializers.*' and `shape` should be fully defined.")
        variable = variables.Variable(initial_value=init_val, name=name, trainable=trainable,
                                      collections=collections, caching_device=caching_device, dtype=variable_dtype,
                                      validate_shape=validate_shape, constraint=constraint,
                                      use_resource=use_resource, synchronization=synchronization,
                                      aggregation=aggregation, shape=shape)
        self._vars[name] = variable
        self._tracebacks[name] = _user_traceback()
        if regularizer:
            self._add_regularization_loss(name, variable, regularizer)
        return variable

    @staticmethod
    def _add_regularization_loss(name: str, variable, regularizer: Callable) -> None:
        # TF first calls the regularizer in the current scope to see if it returns None, then builds
        # the loss it records under '<name>/Regularizer/', colocated with the variable.
        if regularizer(variable) is None:
            return
        graph = variable.graph
        with graph.colocate_with(variable.op), graph_lib.name_scope(name + "/Regularizer/"):
            loss = regularizer(variable)
        graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    @staticmethod
    def _get_default_initializer(name, shape=None, dtype=dtypes_lib.float32):
        """glorot_uniform for floating variables, zeros for integers, bools and strings.

        Raises:
            ValueError: for other dtypes (complex, quantized), which need an explicit initializer.
        """
        del shape
        if dtype.is_floating:
            return init_ops.glorot_uniform_initializer(), False
        if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes_lib.string:
            return init_ops.zeros_initializer(), False
        raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")
