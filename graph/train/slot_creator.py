"""Slot variables: the per-variable state of an optimizer (Adam's moments, Momentum's accumulator, ...).

A slot of the variable ``layer1/weights`` made by the optimizer ``Adam`` is the variable
``layer1/weights/Adam`` (the next one ``layer1/weights/Adam_1``): ``get_variable`` inside
``variable_scope(None, default_name=<primary's name>/<optimizer name>)``, so the name is made
unique by the variable scope store, colocated with its primary, not trainable, in
GLOBAL_VARIABLES, with the primary's partitioning recorded as save-slice info.  Rules follow
tensorflow/python/training/slot_creator.py.
"""

from __future__ import annotations

from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.ops import array_fill_ops
from graph.ops import array_ops
from graph.ops import control_flow_ops
from graph.ops import state_ops
from graph.variables import initializers
from graph.variables import variable_scope
from graph.variables import resource_variables
from graph.variables import variables

__all__ = ["create_slot", "create_slot_with_initializer", "create_zeros_slot"]


def _create_slot_var(primary, value, validate_shape: bool, shape, dtype):
    """``get_variable("")`` in the slot's variable scope, with partitioning switched off, as TF does."""
    scope = variable_scope.get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)
    try:
        # A Tensor initial value carries its own shape: get_variable must be given none.
        slot = variable_scope.get_variable("", initializer=value, trainable=False,
                                           use_resource=resource_variables.is_resource_variable(primary),
                                           shape=shape if callable(value) else None, dtype=dtype,
                                           validate_shape=validate_shape)
    finally:
        scope.set_partitioner(partitioner)
    slice_info = primary._get_save_slice_info() if isinstance(primary, variables.Variable) else None
    if slice_info:
        # The slot of a partition is the same partition of the slot of the whole variable:
        # 'linear//weights/Adam' saves as slice of '<full name>/Adam', cut to the slot's rank.
        real_slot_name = slot.name[len(primary.op.name + "/"):-2]
        rank = slot.shape.ndims
        if rank is None or rank > 0:
            slot._set_save_slice_info(variables.Variable.SaveSliceInfo(
                slice_info.full_name + "/" + real_slot_name, slice_info.full_shape[:rank],
                slice_info.var_offset[:rank], slice_info.var_shape[:rank]))
    return slot


def _prefix(primary) -> str:
    return primary._shared_name if isinstance(primary, variables.Variable) else primary.op.name


def create_slot(primary, val, name: str, colocate_with_primary: bool = True):
    """A slot variable for ``primary`` initialized to the Tensor ``val``, named ``<primary>/<name>``.

    Args:
        primary: the Variable (or Tensor) the slot belongs to.
        val: a Tensor, the slot's initial value.
        name: the slot's name under the primary, usually the optimizer's name.
        colocate_with_primary: place the slot with its primary (TF's default).
    """
    validate_shape = val.get_shape().is_fully_defined()
    with variable_scope.variable_scope(None, _prefix(primary) + "/" + name):
        if colocate_with_primary:
            with graph_lib.colocate_with(primary):
                return _create_slot_var(primary, val, validate_shape, None, None)
        return _create_slot_var(primary, val, validate_shape, None, None)


def create_slot_with_initializer(primary, initializer, shape, dtype, name: str, colocate_with_primary: bool = True):
    """A slot variable for ``primary`` made by ``initializer(shape, dtype)``, named ``<primary>/<name>``."""
    shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
    validate_shape = shape.is_fully_defined()
    with variable_scope.variable_scope(None, _prefix(primary) + "/" + name):
        if colocate_with_primary:
            with graph_lib.colocate_with(primary):
                return _create_slot_var(primary, initializer, validate_shape, shape, dtype)
        return _create_slot_var(primary, initializer, validate_shape, shape, dtype)


def create_zeros_slot(primary, name: str, dtype=None, colocate_with_primary: bool = True):
    """A slot of zeros shaped like ``primary``: a zeros initializer when its shape is known, else zeros of its
    run-time shape (the value when initialized, the initial value otherwise)."""
    if dtype is None:
        dtype = primary.dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(primary, initializers.zeros_initializer(), slot_shape, dtype, name,
                                            colocate_with_primary=colocate_with_primary)
    if isinstance(primary, variables.Variable):
        slot_shape = array_ops.shape(control_flow_ops.cond(
            state_ops.is_variable_initialized(primary), primary.read_value, lambda: primary.initial_value))
    else:
        slot_shape = array_ops.shape(primary)
    value = array_fill_ops.zeros(slot_shape, dtype=dtype)
    return create_slot(primary, value, name, colocate_with_primary=colocate_with_primary)
