"""Row-indexed ops: ScatterUpdate, ScatterAdd and ScatterSub into variables, and Unique (row deduplication).

``Scatter*(ref, indices, updates)`` writes ``updates[i]`` into the row ``ref[indices[i]]`` of a
variable (a ref input, as Assign in graph.ops.state_ops), one index after the other so that a
repeated index adds twice (ScatterAdd/Sub) or keeps the last row (ScatterUpdate), as TF's CPU
kernels do; ``updates`` is either a scalar or shaped ``indices.shape + ref.shape[1:]``.  ``Unique``
gives the distinct values of a 1-D tensor in order of first appearance and each element's
position among them; the optimizers use it to sum the duplicate rows of an IndexedSlices gradient.
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph import errors
from graph.base import kernels
from graph.base.shapes import TensorShape, debug_string
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import resource_variable_ops

__all__ = ["scatter_update", "scatter_add", "scatter_sub", "unique"]

_SCATTER_FUNCTIONS = {"ScatterUpdate": None, "ScatterAdd": np.add, "ScatterSub": np.subtract}


# ----------------------------------------------------------------- Scatter*
def _infer_scatter(op):
    ref, indices, updates = op._inputs
    if updates.shape.ndims not in (None, 0) and ref.shape.ndims is not None and indices.shape.ndims is not None:
        expected = indices.shape.concatenate(ref.shape[1:]) if ref.shape.ndims else None
        if expected is None or not updates.shape.is_compatible_with(expected):
            raise ValueError(f"Shapes must be equal rank, or updates a scalar, for '{{{{node {op.name}}}}} = "
                             f"{op.type}[T={op._attrs['T'].name}]' with input shapes: {ref.shape.message_string()}, "
                             f"{indices.shape.message_string()}, {updates.shape.message_string()}: updates must "
                             f"have shape indices.shape + ref.shape[1:].")
    return [(ref.dtype, ref.shape)]


def _compute_scatter(ctx, op, inputs):
    ref, indices, updates = inputs
    ref = kernels.variable_ref(op, ref)
    if not ref.is_initialized:
        raise errors.FailedPreconditionError(None, op, kernels.uninitialized_message(ref.name, ref.op))
    params = np.array(ref.get(), copy=True)
    indices = np.asarray(indices)
    updates = np.asarray(updates, dtype=params.dtype)
    if params.ndim < 1:
        raise errors.InvalidArgumentError(None, op, "params must be at least 1-D, got shape []")
    if updates.ndim != 0 and updates.shape != indices.shape + params.shape[1:]:
        raise errors.InvalidArgumentError(
            None, op, f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
            f"updates.shape {debug_string(updates.shape)}, indices.shape {debug_string(indices.shape)}, params.shape "
            f"{debug_string(params.shape)}")
    flat = indices.reshape(-1)
    bad = (flat < 0) | (flat >= params.shape[0])
    if bad.any():
        position = int(np.argmax(bad))
        raise errors.InvalidArgumentError(
            None, op, f"indices[{position}] = {int(flat[position])} is not in [0, {params.shape[0]})")
    rows = np.broadcast_to(updates, indices.shape + params.shape[1:]).reshape((flat.size,) + params.shape[1:])
    function = _SCATTER_FUNCTIONS[op.type]
    if function is None:
        params[flat] = rows  # numpy assigns in order: the last row of a repeated index wins
    else:
        function.at(params, flat, rows)  # unbuffered: a repeated index applies every row
    ref.set(params)
    return ref


for _op_type in _SCATTER_FUNCTIONS:
    kernels.register(_op_type, infer=_infer_scatter, compute=_compute_scatter, ref_inputs=(0,),
                     default_attrs={"use_locking": _op_type == "ScatterUpdate"})


def _ref_tensor(ref) -> Tensor:
    if hasattr(ref, "_ref") and not isinstance(ref, Tensor):
        return ref._ref()
    return convert_to_tensor(ref, as_ref=True)


def _scatter(op_type: str, ref, indices, updates, use_locking: bool, name: str | None) -> Tensor:
    if not isinstance(ref, Tensor) and hasattr(ref, "handle"):  # a resource variable, as TF's state_ops.scatter_*
        resource_op = {"ScatterUpdate": resource_variable_ops.resource_scatter_update,
                       "ScatterAdd": resource_variable_ops.resource_scatter_add,
                       "ScatterSub": resource_variable_ops.resource_scatter_sub}[op_type]
        return ref._lazy_read(resource_op(ref.handle, indices, convert_to_tensor(updates, ref.dtype), name=name))
    ref = _ref_tensor(ref)
    if not ref.dtype._is_ref_dtype:
        raise TypeError(f"'{op_type}' Op requires that input 'ref' be a mutable tensor (e.g.: a tf.Variable) "
                        f"but got {ref.name} of dtype {ref.dtype.name}")
    graph = ref.graph
    dtype = ref.dtype.base_dtype
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        indices = convert_to_tensor(indices, name="indices")
        if indices.dtype.base_dtype not in (dtypes_lib.int32, dtypes_lib.int64):
            raise TypeError(f"Value passed to parameter 'indices' has DataType {indices.dtype.base_dtype.name} not "
                            "in list of allowed values: int32, int64")
        updates = convert_to_tensor(updates, dtype=None if isinstance(updates, Tensor) else dtype, name="updates")
        if updates.dtype.base_dtype != dtype:
            raise TypeError(f"Input 'updates' of '{op_type}' Op has type {updates.dtype.base_dtype.name} that does "
                            f"not match type {dtype.name} of argument 'ref'.")
        attrs = {"T": dtype, "Tindices": indices.dtype.base_dtype, "use_locking": bool(use_locking)}
        return graph.create_op(op_type, [ref, indices, updates], name=scope, attrs=attrs)._outputs[0]


def scatter_update(ref, indices, updates, use_locking: bool = True, name: str | None = None) -> Tensor:
    """``ScatterUpdate``: ref[indices] = updates; returns the ref."""
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(ref, indices, updates, use_locking: bool = False, name: str | None = None) -> Tensor:
    """``ScatterAdd``: ref[indices] += updates (repeated indices add up); returns the ref."""
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking: bool = False, name: str | None = None) -> Tensor:
    """``ScatterSub``: ref[indices] -= updates (repeated indices subtract each row); returns the ref."""
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name)


# ----------------------------------------------------------------- Unique
def _infer_unique(op):
    x = op._inputs[0]
    if x.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.ndims} for '{{{{node {op.name}}}}} = "
                         f"Unique[T={x.dtype.base_dtype.name}, out_idx={op._attrs['out_idx'].name}]' with input "
                         f"shapes: {x.shape.message_string()}.")
    return [(x.dtype.base_dtype, TensorShape([None])), (op._attrs["out_idx"], x.shape)]


def _compute_unique(ctx, op, inputs):
    x = np.asarray(inputs[0])
    if x.ndim != 1:
        raise errors.InvalidArgumentError(None, op, f"unique expects a 1D vector. {debug_string(x.shape)}")
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted uniques -> order of first appearance
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    return [x[np.sort(first)], position[inverse.reshape(-1)].astype(op._attrs["out_idx"].numpy_dtype)]


kernels.register("Unique", infer=_infer_unique, compute=_compute_unique, default_attrs={"out_idx": dtypes_lib.int32})


def unique(x, out_idx=dtypes_lib.int32, name: str | None = None) -> tuple[Tensor, Tensor]:
    """``Unique``: (the distinct values of the 1-D ``x`` in order of first appearance, each element's position)."""
    with name_scope(name, "Unique", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        attrs = {"T": x.dtype.base_dtype, "out_idx": dtypes_lib.as_dtype(out_idx)}
        op = x.graph.create_op("Unique", [x], name=scope, attrs=attrs)
    return op._outputs[0], op._outputs[1]
