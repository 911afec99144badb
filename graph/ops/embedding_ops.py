"""Embedding lookups as TensorFlow builds them (embedding_ops.py): one table, a list of shards, a PartitionedVariable.

One table is a ``GatherV2`` (then an ``Identity``); several shards split the flattened ids with
``DynamicPartition`` by the partition strategy, gather from each shard and put the rows back in
order with ``ParallelDynamicStitch``:

- ``"mod"``: id ``i`` lives in shard ``i % n`` at row ``i // n``;
- ``"div"``: shards hold consecutive ids, the first ``total % n`` shards one more than the rest.

``max_norm`` clips each looked-up embedding to that L2 norm (``clip_by_norm`` over the embedding axes).
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import Dimension, TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.core.indexed_slices import convert_n_to_tensor_or_indexed_slices
from graph.ops import array_concat_ops, array_index_ops, array_ops, clip_ops, data_flow_ops, math_ops, reduction_ops
from graph.ops import constant_ops

__all__ = ["embedding_lookup", "register_partitioned_type"]

# Types that stand for a list of shards (PartitionedVariable, registered by the variables layer above).
_PARTITIONED_TYPES: list[type] = []


def register_partitioned_type(cls: type) -> None:
    """Lets ``cls`` (iterable over its shards in offset order) stand for a list of shards in lookups."""
    if cls not in _PARTITIONED_TYPES:
        _PARTITIONED_TYPES.append(cls)


def as_shard_list(params) -> list:
    """``params`` as a list of shards: a list or tuple as is, a partitioned variable's parts, else ``[params]``."""
    if isinstance(params, tuple(_PARTITIONED_TYPES)):
        return list(params)
    return list(params) if isinstance(params, (list, tuple)) else [params]


def _clip(params: Tensor, ids: Tensor, max_norm) -> Tensor:
    """``params`` with each embedding (the axes after those of ``ids``) clipped to L2 norm ``max_norm``."""
    if max_norm is None:
        return params

    def rank(x):
        static = convert_to_tensor(x).shape.ndims
        # TF treats a static rank of 0 like an unknown one (``if rank:``) and asks for Rank.
        return (static, True) if static else (array_ops.rank(x), False)

    ids_rank, ids_static = rank(ids)
    params_rank, params_static = rank(params)
    axes = (list(range(ids_rank, params_rank)) if ids_static and params_static
            else reduction_ops.range(ids_rank, params_rank))
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)


def _as_list(params) -> list:
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    return as_shard_list(params)


def _div_assignments(params: list, flat_ids: Tensor) -> tuple[Tensor, Tensor]:
    """(shard, row in shard) of each id for the "div" strategy, with TF's ops."""
    count = len(params)
    total = Dimension(params[0].shape[0].value)
    for p in params[1:]:
        total += Dimension(p.shape[0].value)
    if total.value:
        num_total_ids = constant_ops.constant(total.value, flat_ids.dtype)
    else:
        sizes = []
        for p in params:
            if p.shape[0].value is not None:
                sizes.append(p.shape[0].value)
            else:
                with graph_lib.colocate_with(p):
                    sizes.append(array_ops.shape(p)[0])
        num_total_ids = reduction_ops.reduce_sum(math_ops.cast(convert_to_tensor(sizes, name="stack"), flat_ids.dtype))
    ids_per_partition = num_total_ids // count
    extras = num_total_ids % count
    assignments = math_ops.maximum(flat_ids // (ids_per_partition + 1), (flat_ids - extras) // ids_per_partition)
    new_ids = array_index_ops.where(assignments < extras, flat_ids % (ids_per_partition + 1),
                                    (flat_ids - extras) % ids_per_partition)
    return assignments, new_ids


def embedding_lookup(params, ids, partition_strategy: str = "mod", name: str | None = None,
                     validate_indices: bool = True, max_norm=None) -> Tensor:
    """Rows ``ids`` of the embedding table ``params`` (a tensor, a list of shards or a PartitionedVariable).

    Args:
        params: the table, or its shards along axis 0 (all of one dtype and embedding shape).
        ids: integer ids of any shape; the result has shape ``ids.shape + embedding shape``.
        partition_strategy: ``"mod"`` or ``"div"``: which shard holds an id when there are several.
        name: the scope of the ops (default ``embedding_lookup``).
        validate_indices: ignored, as in TensorFlow (the gathers always check their indices).
        max_norm: if given, each embedding is clipped to this L2 norm.

    Raises:
        ValueError: on no params or an unknown ``partition_strategy``.
    """
    del validate_indices  # TF ignores it too
    params = _as_list(params)
    graph = graph_lib._graph_of(params + [ids])
    with graph.as_default(), graph_lib.name_scope(name, "embedding_lookup", params + [ids]) as name:
        count = len(params)
        params = convert_n_to_tensor_or_indexed_slices(params, name="params")
        ids = convert_to_tensor(ids, name="ids")
        if count == 1:
            with graph_lib.colocate_with(params[0]):
                result = _clip(array_index_ops.gather(params[0], ids, name=name), ids, max_norm)
            # The identity sheds the colocation with params, as the stitch does for several shards.
            return constant_ops.identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = reduction_ops.range(array_ops.size(flat_ids))
        if partition_strategy == "mod":
            assignments = flat_ids % count
            new_ids = flat_ids // count
        elif partition_strategy == "div":
            assignments, new_ids = _div_assignments(params, flat_ids)
        else:
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be one of either `mod` or "
                             "`div`.")
        assignments = math_ops.cast(assignments, dtypes_lib.int32)
        gather_ids = data_flow_ops.dynamic_partition(new_ids, assignments, count)
        pindices = data_flow_ops.dynamic_partition(original_indices, assignments, count)
        partitioned = []
        for shard, shard_ids in zip(params, gather_ids):
            with graph_lib.device(None), graph_lib.colocate_with(shard):
                partitioned.append(array_index_ops.gather(shard, shard_ids))
        result = data_flow_ops.parallel_dynamic_stitch(pindices, partitioned, name=name)
        element_shape = params[0].shape[1:]
        for shard in params[1:]:
            element_shape = element_shape.merge_with(shard.shape[1:])
        if element_shape.is_fully_defined():
            dynamic_element_shape = element_shape
        else:
            with graph_lib.colocate_with(params[0]):
                dynamic_element_shape = array_ops.shape(params[0])[1:]
        result = array_ops.reshape(
            result, array_concat_ops.concat([array_ops.shape(ids), _shape_operand(dynamic_element_shape)], 0))
        result.set_shape(ids.shape.concatenate(element_shape))
        return _clip(result, ids, max_norm)


def _shape_operand(shape) -> Tensor | list:
    """A static TensorShape as the int list TF's concat turns into a Const; a tensor passes through."""
    return shape.as_list() if isinstance(shape, TensorShape) else shape
