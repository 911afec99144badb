"""Partitioning op builders and kernels: DynamicPartition and ParallelDynamicStitch (TF's data_flow_ops).

``dynamic_partition(data, partitions, n)`` splits the rows of ``data`` (the leading dimensions that
``partitions`` covers) into ``n`` outputs by partition number, keeping their order;
``parallel_dynamic_stitch`` is DynamicStitch under the op type TF's embedding_lookup uses (same
result when indices do not repeat; for repeated indices any input may win, ours takes the last).
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.ops import constant_ops, math_grad_ops

__all__ = ["dynamic_partition", "parallel_dynamic_stitch"]


# ----------------------------------------------------------------- DynamicPartition
def _infer_dynamic_partition(op):
    data, partitions = op._inputs
    count = op._attrs["num_partitions"]
    dtype = data.dtype.base_dtype
    if data.shape.ndims is None or partitions.shape.ndims is None:
        return [(dtype, TensorShape(None))] * count
    prefix = partitions.shape.ndims
    if data.shape.ndims < prefix or not data.shape[:prefix].is_compatible_with(partitions.shape):
        raise ValueError(f"Dimensions must be equal, but data shape {data.shape} does not start with partitions "
                         f"shape {partitions.shape} for '{{{{node {op.name}}}}} = DynamicPartition"
                         f"[T={dtype.name}, num_partitions={count}]'.")
    return [(dtype, TensorShape([None] + data.shape.as_list()[prefix:]))] * count


def _compute_dynamic_partition(ctx, op, inputs):
    data, partitions = np.asarray(inputs[0]), np.asarray(inputs[1])
    count = op._attrs["num_partitions"]
    if data.shape[:partitions.ndim] != partitions.shape:
        raise errors.InvalidArgumentError(
            None, op, f"data.shape must start with partitions.shape, got data.shape = {list(data.shape)}, "
            f"partitions.shape = {list(partitions.shape)}")
    flat = partitions.reshape(-1)
    bad = (flat < 0) | (flat >= count)
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        index = ",".join(str(i) for i in np.unravel_index(position, partitions.shape))
        raise errors.InvalidArgumentError(
            None, op, f"partitions[{index}] = {int(flat[position])} is not in [0, {count})")
    rows = data.reshape((flat.size,) + data.shape[partitions.ndim:])
    return [rows[flat == p] for p in range(count)]  # boolean masks keep each partition's rows in order


kernels.register("DynamicPartition", infer=_infer_dynamic_partition, compute=_compute_dynamic_partition)


# ----------------------------------------------------------------- ParallelDynamicStitch
# Integer ops TF's shape refiner evaluates when a stitch asks for its (constant) indices: those
# embedding_lookup partitions constant ids with.
_FOLDED = frozenset(("Reshape", "Range", "FloorMod", "FloorDiv", "AddV2", "Sub", "Maximum", "Cast",
                     "DynamicPartition"))
_MAX_FOLDED_ELEMENTS = 1 << 16  # keep build-time evaluation small


def _folded_value(tensor: Tensor):
    """``tensor``'s value if a small integer subgraph of constants computes it, else None."""
    value = constant_ops.inferred_value(tensor)
    if value is not None or tensor.op.type not in _FOLDED or not tensor.dtype.is_integer:
        return value
    inputs = [_folded_value(t) for t in tensor.op._inputs]
    if any(v is None or np.size(v) > _MAX_FOLDED_ELEMENTS for v in inputs):
        return None
    try:
        outputs = kernels.lookup(tensor.op.type).compute(None, tensor.op, inputs)
    except errors.OpError:  # a bad value is left to the run
        return None
    return np.asarray(outputs[tensor.value_index] if isinstance(outputs, list) else outputs)


def _infer_parallel_dynamic_stitch(op):
    count = op._attrs["N"]
    indices, data = op._inputs[:count], op._inputs[count:]
    first = data[0].shape
    dtype = data[0].dtype.base_dtype
    if first.ndims is None or indices[0].shape.ndims is None:
        return [(dtype, TensorShape(None))]
    values = [_folded_value(t) for t in indices]
    rows = None if any(v is None for v in values) else max((int(np.max(v)) + 1 for v in values if v.size), default=0)
    return [(dtype, TensorShape([rows] + first.as_list()[indices[0].shape.ndims:]))]


kernels.register("ParallelDynamicStitch", infer=_infer_parallel_dynamic_stitch,
                 compute=math_grad_ops.compute_dynamic_stitch)


def dynamic_partition(data, partitions, num_partitions: int, name: str | None = None) -> list[Tensor]:
    """``DynamicPartition``: the rows of ``data`` whose ``partitions`` entry is p, for p in range(num_partitions)."""
    graph = graph_lib.get_graph_from_inputs([data, partitions])
    with graph.as_default(), graph.name_scope(name or "DynamicPartition") as scope:
        data = convert_to_tensor(data, name="data")
        partitions = convert_to_tensor(partitions, dtype=dtypes_lib.int32, name="partitions")
        if not isinstance(num_partitions, int) or num_partitions < 1:
            raise ValueError(f"Value for attr 'num_partitions' of {num_partitions} must be at least minimum 1")
        op = graph.create_op("DynamicPartition", [data, partitions], name=scope,
                             attrs={"num_partitions": num_partitions, "T": data.dtype.base_dtype})
    return list(op._outputs)


def parallel_dynamic_stitch(indices: list, data: list, name: str | None = None) -> Tensor:
    """``ParallelDynamicStitch``: ``result[indices[i][j]] = data[i][j]``."""
    graph = graph_lib.get_graph_from_inputs(list(indices) + list(data))
    with graph.as_default(), graph.name_scope(name or "ParallelDynamicStitch") as scope:
        indices = [convert_to_tensor(t, dtype=dtypes_lib.int32, name="indices") for t in indices]
        data = [convert_to_tensor(t, name="data") for t in data]
        if len(indices) != len(data):
            raise ValueError(f"List argument 'data' to 'ParallelDynamicStitch' Op with length {len(data)} must "
                             f"match length {len(indices)} of argument 'indices'.")
        op = graph.create_op("ParallelDynamicStitch", indices + data, name=scope,
                             attrs={"N": len(indices), "T": data[0].dtype.base_dtype})
    return op._outputs[0]
