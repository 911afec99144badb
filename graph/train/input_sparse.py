"""SparseTensors through the batching queues (TF's training/input.py storage of sparse input).

A queue holds dense tensors only, so before enqueueing, each SparseTensor is stored in a SparseTensorsMap
(``AddSparseToTensorsMap`` per example, ``AddManySparseToTensorsMap`` per row with ``enqueue_many``) and its
int64 handle, expanded to shape [1], is enqueued instead; after dequeueing, ``TakeManySparseFromTensorsMap``
turns the [batch, 1] handles back into one SparseTensor with a batch dimension.  Examples dropped by
``keep_input`` store nothing (their handle is -1 and never enqueued).  The join variants share the first
list's maps so one dequeue finds every handle.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import as_dimension
from graph.core.sparse_tensor import SparseTensor
from graph.ops import array_index_ops, array_ops, constant_ops, control_flow_ops, sparse_map_ops
from graph.ops import array_fill_ops, math_ops

__all__ = ["SparseMetaData", "store_sparse_tensors", "store_sparse_tensors_join", "restore_sparse_tensors"]


class SparseMetaData:
    """Whether a batched component is sparse, the op whose map holds it, and its static rank per example."""

    def __init__(self, sparse: bool, map_op, rank) -> None:
        self.sparse = sparse
        self.map_op = map_op
        self.rank = as_dimension(rank)

    def __eq__(self, other) -> bool:
        if self.sparse != other.sparse:
            return False
        if not self.sparse:
            return True
        return self.map_op == other.map_op and self.rank.is_compatible_with(other.rank)

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    __hash__ = None

    def __str__(self) -> str:
        return f"[SparseMetaData({self.sparse}, {self.map_op.name if self.map_op else None}, {self.rank})]"

    def merge_with(self, other: SparseMetaData) -> SparseMetaData:
        """This metadata, checked compatible with `other` (ValueError otherwise)."""
        if self != other:
            raise ValueError(f"SparseMetaData objects are incompatible: {self} vs. {other}")
        if self.sparse:
            self.rank = self.rank.merge_with(other.rank)
        return self


def _smart_cond(pred, true_fn, false_fn):
    static = constant_ops.constant_value(pred)
    if static is not None:
        return true_fn() if bool(static) else false_fn()
    return control_flow_ops.cond(pred, true_fn, false_fn)


def _shape(sp_input: SparseTensor):
    # TF's array_ops.shape of a SparseTensor: its dense shape cast to int32
    return math_ops.cast(sp_input.dense_shape, dtypes_lib.int32)


def _sparse_retain(sp_input: SparseTensor, to_retain) -> SparseTensor:
    # TF's sparse_retain: the entries where `to_retain` is true, the dense shape unchanged
    where_true = array_ops.reshape(array_index_ops.where(to_retain), [-1])
    return SparseTensor(array_index_ops.gather(sp_input.indices, where_true),
                        array_index_ops.gather(sp_input.values, where_true), constant_ops.identity(sp_input.dense_shape))


def store_sparse_tensors(tensor_list, enqueue_many: bool, keep_input, shared_map_ops=None):
    """(stored list with SparseTensors replaced by [1]-shaped handles, a SparseMetaData per component)."""
    shared_map_ops = shared_map_ops or [None] * len(tensor_list)

    def store(t, shared_map_op):
        if not isinstance(t, SparseTensor):
            return t
        map_name = shared_map_op.name if shared_map_op else None
        if keep_input.shape.ndims == 1:  # per-row keep: drop the other rows' values, store every row
            t = _sparse_retain(t, array_index_ops.gather(keep_input, t.indices[:, 0]))
            return sparse_map_ops.add_many_sparse_to_tensors_map(t, shared_name=map_name)
        if enqueue_many:
            stored = _smart_cond(keep_input,
                                 lambda: sparse_map_ops.add_many_sparse_to_tensors_map(t, shared_name=map_name),
                                 lambda: -1 * array_fill_ops.ones(_shape(t)[0:1], dtypes_lib.int64))
            stored.set_shape([None])
            return stored
        return _smart_cond(keep_input, lambda: sparse_map_ops.add_sparse_to_tensors_map(t, shared_name=map_name),
                           lambda: constant_ops.constant(-1, dtypes_lib.int64))

    stored_list = [store(t, shared) for t, shared in zip(tensor_list, shared_map_ops)]

    def adding_op(stored):
        # through a cond the stored tensor is a Merge: the adding op is one of its inputs
        for tensor in stored.op.inputs:
            if tensor.op.type in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
                return tensor.op
        return stored.op

    def meta(t, stored, shared_map_op):
        if not isinstance(t, SparseTensor):
            return SparseMetaData(False, None, None)
        rank = t.dense_shape.shape.with_rank(1)[0]
        if enqueue_many:
            rank = rank - 1
        return SparseMetaData(True, shared_map_op or adding_op(stored), rank)

    infos = [meta(t, s, shared) for t, s, shared in zip(tensor_list, stored_list, shared_map_ops)]
    stored_list = [array_ops.expand_dims(s, [-1]) if info.sparse else s for s, info in zip(stored_list, infos)]
    return stored_list, infos


def store_sparse_tensors_join(tensor_list_list, enqueue_many: bool, keep_input):
    """store_sparse_tensors over several lists, the later ones storing into the first list's maps."""
    first, infos = store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    stored_lists = [first]
    for tensor_list in tensor_list_list[1:]:
        stored, candidate = store_sparse_tensors(tensor_list, enqueue_many, keep_input,
                                                 [info.map_op for info in infos])
        if infos != candidate:
            raise ValueError(f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. {tensor_list}")
        infos = [info.merge_with(other) for info, other in zip(infos, candidate)]
        stored_lists.append(stored)
    return stored_lists, infos


def restore_sparse_tensors(stored_list, infos):
    """The dequeued components with each sparse one's [batch, 1] handles taken back as a SparseTensor."""
    received_sequence = isinstance(stored_list, (list, tuple))
    if not received_sequence:
        stored_list = (stored_list,)
    tensors = [sparse_map_ops.take_many_sparse_from_tensors_map(
        info.map_op, array_ops.squeeze(s, [1]),
        rank=None if info.rank.value is None else info.rank.value + 1) if info.sparse else s
        for s, info in zip(stored_list, infos)]
    if any(isinstance(t, SparseTensor) for t in tensors):
        # every output waits for every value, as TF's: a fetch of one component takes all the handles
        values = [t.values if isinstance(t, SparseTensor) else t for t in tensors]
        with_deps = lambda x: control_flow_ops.with_dependencies(values, x)  # noqa: E731
        tensors = [SparseTensor(with_deps(t.indices), with_deps(t.values), with_deps(t.dense_shape))
                   if isinstance(t, SparseTensor) else with_deps(t) for t in tensors]
    return tensors if received_sequence else tensors[0]
