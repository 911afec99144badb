"""Queue-based input pipelines (TF's training/input.py): input producers and batching, each fed by a QueueRunner.

Producers fill a FIFOQueue with the (optionally shuffled) elements of a tensor, epoch after epoch:
``limit_epochs`` guards the tensor with a local ``epochs`` counter (CountUpTo), so after ``num_epochs``
the enqueue raises OutOfRangeError, the runner closes the queue and its readers end with OutOfRangeError.
Batchers (``batch``, ``shuffle_batch``, ``batch_join``, ``shuffle_batch_join``) enqueue single examples
from runner threads into a FIFOQueue / PaddingFIFOQueue / RandomShuffleQueue and dequeue ``batch_size``
at a time.  Op names, scopes and summaries are TF's (``batch/fraction_of_32_full``, ...).
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import as_shape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.core.graph_keys import GraphKeys
from graph.core.indexed_slices import convert_n_to_tensor_or_indexed_slices
from graph.core.sparse_tensor import SparseTensor
from graph.ops import array_index_ops, array_ops, constant_ops, control_flow_ops, math_ops, random_ops
from graph.ops import data_flow_ops, reduction_ops, summary_ops
from graph.ops.control_flow_assert import Assert
from graph.ops.queue_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from graph.train import input_sparse
from graph.train.queue_runner import QueueRunner, add_queue_runner
from graph.variables.variables import Variable

__all__ = ["limit_epochs", "input_producer", "string_input_producer", "range_input_producer",
           "slice_input_producer", "batch", "shuffle_batch", "batch_join", "shuffle_batch_join", "maybe_batch",
           "maybe_shuffle_batch", "maybe_batch_join", "maybe_shuffle_batch_join"]


# ----------------------------------------------------------------- producers
def limit_epochs(tensor, num_epochs: int | None = None, name: str | None = None) -> Tensor:
    """``tensor``, which raises OutOfRangeError once it has been evaluated ``num_epochs`` times."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant_ops.constant(0, dtype=dtypes_lib.int64)
        epochs = Variable(zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with graph_lib.control_dependencies([counter]):
            return constant_ops.identity(tensor, name=name)


def input_producer(input_tensor, element_shape=None, num_epochs: int | None = None, shuffle: bool = True,
                   seed=None, capacity: int = 32, shared_name: str | None = None, summary_name: str | None = None,
                   name: str | None = None, cancel_op=None):
    """A FIFOQueue filled with the rows of ``input_tensor`` (shuffled per epoch), with its QueueRunner.

    Raises:
        ValueError: if the rows' shape is not fully defined (give ``element_shape``).
    """
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(as_shape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype], shapes=[element_shape],
                          shared_name=shared_name, name=name or "fifo_queue")
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            summary_ops.scalar(summary_name, math_ops.cast(queue.size(), dtypes_lib.float32) * (1.0 / capacity))
        return queue


def string_input_producer(string_tensor, num_epochs: int | None = None, shuffle: bool = True, seed=None,
                          capacity: int = 32, shared_name: str | None = None, name: str | None = None,
                          cancel_op=None):
    """A queue of strings (file names, typically) for a reader, filled epoch after epoch.

    Raises:
        ValueError: for an empty list (an empty tensor fails its Assert when run).
    """
    not_null = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not len(string_tensor):
        raise ValueError(not_null)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes_lib.string)
        check = Assert(math_ops.greater(array_ops.size(string_tensor), 0), [not_null])
        with graph_lib.control_dependencies([check]):
            string_tensor = constant_ops.identity(string_tensor)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


def range_input_producer(limit, num_epochs: int | None = None, shuffle: bool = True, seed=None, capacity: int = 32,
                         shared_name: str | None = None, name: str | None = None):
    """A queue of the integers 0..limit-1, filled epoch after epoch."""
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = reduction_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", name)


def slice_input_producer(tensor_list, num_epochs: int | None = None, shuffle: bool = True, seed=None,
                         capacity: int = 32, shared_name: str | None = None, name: str | None = None) -> list:
    """One row of every tensor in ``tensor_list`` at a time (the same row of each), from a range producer."""
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = convert_n_to_tensor_or_indexed_slices(tensor_list)
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_index_ops.gather(t, index) for t in tensor_list]


# ----------------------------------------------------------------- batching helpers
def _as_tensor_list(tensors):
    return [tensors[k] for k in sorted(tensors, key=str)] if isinstance(tensors, dict) else tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        keys = set(tensors_list[0])
        if any(set(tensors) != keys for tensors in tensors_list):
            raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original, dequeued):
    if isinstance(original, dict):
        if len(original) == 1:
            dequeued = [dequeued]  # a one-component queue dequeues a tensor, not a list
        return {key: dequeued[i] for i, key in enumerate(sorted(original, key=str))}
    return dequeued


def _validate(tensor_list, what: str) -> list:
    # SparseTensors pass as they are (TF's conversion keeps composite tensors): they are stored by handle
    tensor_list = [t if isinstance(t, SparseTensor) else convert_n_to_tensor_or_indexed_slices([t])[0]
                   for t in tensor_list]
    if not tensor_list:
        raise ValueError(f"Expected at least one tensor in {what}().")
    return tensor_list


def _validate_keep_input(keep_input, enqueue_many: bool) -> Tensor:
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list) -> list:
    types = [t.dtype for t in tensor_list_list[0]]
    for other in tensor_list_list[1:]:
        if [t.dtype for t in other] != types:
            raise TypeError(f"Expected types to be consistent: {', '.join(x.name for x in types)} vs. "
                            f"{', '.join(t.dtype.name for t in other)}.")
    return types


def _shapes(tensor_list_list, shapes, enqueue_many: bool) -> list:
    if shapes is not None:
        return shapes
    for tensors in tensor_list_list:
        for tensor in tensors:
            if tensor.shape.ndims is None:
                raise ValueError(f"Cannot infer Tensor's rank: {tensor}")
    merged = []
    for i in range(len(tensor_list_list[0])):
        shape = tensor_list_list[0][i].shape
        if enqueue_many:
            if shape.ndims < 1:
                raise ValueError(f"Shape {shape} must have rank at least 1")
            shape = shape[1:]
        merged.append(shape.as_list())  # TF merges the others' shapes and drops the result: the first wins
    return merged


def _enqueue_ops(queue, tensor_lists: list, enqueue_many: bool, keep_input: Tensor) -> list:
    """One enqueue op per tensor list, kept only where ``keep_input`` (TF's smart_cond / boolean_mask)."""
    enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
    ops = []
    for tensors in tensor_lists:
        if keep_input.shape.ndims == 1:
            # TF's _select_which_to_enqueue: the kept rows are partition 1 of a DynamicPartition
            select = math_ops.cast(keep_input, dtypes_lib.int32)
            ops.append(enqueue([data_flow_ops.dynamic_partition(t, select, num_partitions=2)[1] for t in tensors]))
            continue
        static = constant_ops.constant_value(keep_input)
        if static is not None:
            ops.append(enqueue(tensors) if bool(np.asarray(static)) else control_flow_ops.no_op())
        else:
            ops.append(control_flow_ops.cond(keep_input, lambda t=tensors: enqueue(t), control_flow_ops.no_op))
    return ops


def _dequeue(queue, batch_size, allow_smaller_final_batch: bool, name: str):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


# ----------------------------------------------------------------- batchers
def _queue_summary(queue, capacity: int) -> None:
    summary_ops.scalar(f"fraction_of_{capacity}_full",
                       math_ops.cast(queue.size(), dtypes_lib.float32) * (1.0 / capacity))


def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
           dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + [keep_input]) as name:
        tensor_list = _validate(tensor_list, "batch")
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = input_sparse.store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = (PaddingFIFOQueue if dynamic_pad else FIFOQueue)(capacity=capacity, dtypes=types, shapes=shapes,
                                                                 shared_name=shared_name)
        add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, [tensor_list], enqueue_many, keep_input) * num_threads))
        _queue_summary(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, input_sparse.restore_sparse_tensors(dequeued, sparse_info))


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "batch_join", _flat(tensor_list_list) + [keep_input]) as name:
        tensor_list_list = [_validate(tensors, "batch_join") for tensors in tensor_list_list]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = input_sparse.store_sparse_tensors_join(tensor_list_list, enqueue_many,
                                                                               keep_input)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = (PaddingFIFOQueue if dynamic_pad else FIFOQueue)(capacity=capacity, dtypes=types, shapes=shapes,
                                                                 shared_name=shared_name)
        add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input)))
        _queue_summary(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], input_sparse.restore_sparse_tensors(dequeued, sparse_info))


def _flat(tensor_list_list) -> list:
    return [t for tensors in tensor_list_list for t in tensors]


def _shuffle_batch(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                   enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None,
                   join=False):
    """shuffle_batch (join=False: one tensor list, num_threads runners) and shuffle_batch_join (one per list)."""
    tensor_list_list = _as_tensor_list_list(tensors_list) if join else [_as_tensor_list(tensors_list)]
    what = "shuffle_batch_join" if join else "shuffle_batch"
    with name_scope(name, what, _flat(tensor_list_list) + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        tensor_list_list = [_validate(tensors, what) for tensors in tensor_list_list]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = input_sparse.store_sparse_tensors_join(tensor_list_list, enqueue_many,
                                                                               keep_input)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                                   shapes=shapes, shared_name=shared_name)
        ops = _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input)
        add_queue_runner(QueueRunner(queue, ops if join else ops * num_threads))
        full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes_lib.float32) * \
            (1.0 / (capacity - min_after_dequeue))
        summary_ops.scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        original = tensors_list[0] if join else tensors_list
        return _as_original_type(original, input_sparse.restore_sparse_tensors(dequeued, sparse_info))


def batch(tensors, batch_size, num_threads: int = 1, capacity: int = 32, enqueue_many: bool = False, shapes=None,
          dynamic_pad: bool = False, allow_smaller_final_batch: bool = False, shared_name: str | None = None,
          name: str | None = None):
    """Batches of ``batch_size`` from examples enqueued by ``num_threads`` runner threads (FIFO order)."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


def maybe_batch(tensors, keep_input, batch_size, num_threads: int = 1, capacity: int = 32,
                enqueue_many: bool = False, shapes=None, dynamic_pad: bool = False,
                allow_smaller_final_batch: bool = False, shared_name: str | None = None, name: str | None = None):
    """batch() enqueueing only the examples (or, with enqueue_many, the rows) where ``keep_input`` is true."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


def batch_join(tensors_list, batch_size, capacity: int = 32, enqueue_many: bool = False, shapes=None,
               dynamic_pad: bool = False, allow_smaller_final_batch: bool = False, shared_name: str | None = None,
               name: str | None = None):
    """Batches from several lists of tensors, one runner thread enqueueing each list."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity: int = 32, enqueue_many: bool = False,
                     shapes=None, dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
                     shared_name: str | None = None, name: str | None = None):
    """batch_join() enqueueing only where ``keep_input`` is true."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


def shuffle_batch(tensors, batch_size, capacity: int, min_after_dequeue: int, num_threads: int = 1, seed=None,
                  enqueue_many: bool = False, shapes=None, allow_smaller_final_batch: bool = False,
                  shared_name: str | None = None, name: str | None = None):
    """Batches of ``batch_size`` drawn at random from a RandomShuffleQueue holding ``min_after_dequeue`` or more."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True, num_threads, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity: int, min_after_dequeue: int, keep_input,
                        num_threads: int = 1, seed=None, enqueue_many: bool = False, shapes=None,
                        allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                        name: str | None = None):
    """shuffle_batch() enqueueing only where ``keep_input`` is true."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)


def shuffle_batch_join(tensors_list, batch_size, capacity: int, min_after_dequeue: int, seed=None,
                       enqueue_many: bool = False, shapes=None, allow_smaller_final_batch: bool = False,
                       shared_name: str | None = None, name: str | None = None):
    """Shuffled batches from several lists of tensors, one runner thread enqueueing each list."""
    return _shuffle_batch(tensors_list, batch_size, capacity, min_after_dequeue, True, 1, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name, join=True)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity: int, min_after_dequeue: int, keep_input,
                             seed=None, enqueue_many: bool = False, shapes=None,
                             allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                             name: str | None = None):
    """shuffle_batch_join() enqueueing only where ``keep_input`` is true."""
    return _shuffle_batch(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, 1, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name, join=True)
