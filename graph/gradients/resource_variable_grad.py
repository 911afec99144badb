"""Gradients of the resource variable reads: ReadVariableOp passes its gradient to the handle, ResourceGather
gives IndexedSlices shaped by VariableShape; VarIsInitializedOp and VariableShape are not differentiable
(tensorflow/python/ops/resource_variable_ops.py)."""

from __future__ import annotations

from graph.core.indexed_slices import IndexedSlices
from graph.gradients.registry import NotDifferentiable, RegisterGradient
from graph.ops import array_concat_ops, array_ops, resource_variable_ops

__all__: list[str] = []  # gradient functions register themselves

NotDifferentiable("VarIsInitializedOp")
NotDifferentiable("VariableShape")


@RegisterGradient("ReadVariableOp")
def _read_grad(_, grad):
    """The gradient of a read is the incoming gradient, delivered to the handle."""
    return grad


@RegisterGradient("ResourceGather")
def _gather_grad(op, grad):
    """IndexedSlices of ``grad``'s rows at the gathered indices, dense shape the variable's run-time shape."""
    handle, indices = op.inputs[0], op.inputs[1]
    params_shape = resource_variable_ops.variable_shape(handle)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_concat_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(grad, values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]
