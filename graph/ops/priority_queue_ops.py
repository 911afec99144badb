"""PriorityQueue: the ``PriorityQueueV2`` op, its kernel and ``tf.PriorityQueue`` (TF's data_flow_ops).

Every element starts with an extra component, its int64 scalar priority, and elements dequeue by ascending
priority (`graph.ops.priority_queue_state` keeps TF's heap, so equal priorities come out in TF's order).  The
enqueue, dequeue, close and size ops are the shared queue ops of `graph.ops.queue_ops`, whose kernels act on
whatever queue state the handle carries.  The op's ``component_types`` and ``shapes`` leave the priority out;
the kernel puts it in front (an int64 of shape ``[]``, when shapes are given at all).
"""

from __future__ import annotations

import threading

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape, as_shape
from graph.ops.priority_queue_state import PriorityQueueState
from graph.ops.queue_ops import QueueBase, as_shape_list, as_type_list, create_queue
from graph.ops.queue_state import next_resource_id

__all__ = ["PriorityQueue"]

_CREATION_LOCK = threading.Lock()  # two threads running the queue op first must get one queue


def _element_types_and_shapes(op) -> tuple[list, list | None]:
    """The element's dtypes and shapes as TF's PriorityQueueOp has them: the priority's in front."""
    dtypes = [dtypes_lib.int64.numpy_dtype] + [d.numpy_dtype for d in op._attrs.get("component_types") or []]
    shapes = [as_shape(s) for s in op._attrs.get("shapes") or []]
    return dtypes, ([TensorShape([])] + shapes if shapes else None)


def _compute_priority_queue(ctx, op, inputs):
    shared = op._attrs.get("shared_name") or ""
    shared = shared.decode() if isinstance(shared, bytes) else shared
    key = ("queue", shared or op._name)
    dtypes, shapes = _element_types_and_shapes(op)
    capacity = int(op._attrs.get("capacity", -1))
    state = ctx.op_state.get(key)
    if state is None:
        with _CREATION_LOCK:
            state = ctx.op_state.get(key)
            if state is None:
                state = PriorityQueueState(shared or f"_{next_resource_id()}_{op._name}", dtypes, shapes, capacity)
                ctx.op_state[key] = state
    # TF's ResourceOpKernel checks the queue against the op on every run, a new queue too (MatchesNodeDef).
    if state.kind != "PriorityQueue":
        raise errors.InvalidArgumentError(None, op, f"Expected {state.kind}, found {op.type}")
    # The request is compared with the priority's shape always put in front, so a queue of unspecified
    # shapes (the raw op's shapes=[]) never matches: it fails on its first run, in TF as here.
    requested = [TensorShape([])] + [as_shape(s) for s in op._attrs.get("shapes") or []]
    state.check_request(op, capacity, dtypes, requested, 0, (0, 0))
    return [state]


kernels.register("PriorityQueueV2", infer=lambda op: [(dtypes_lib.resource, TensorShape([]))],
                 compute=_compute_priority_queue, stateful=True,
                 default_attrs={"component_types": [], "capacity": -1, "container": "", "shared_name": ""})


class PriorityQueue(QueueBase):
    """A queue that dequeues elements by ascending int64 priority, the extra first component of each element.

    ``enqueue`` takes ``(priority, component, ...)``, ``enqueue_many`` a vector of priorities first; every
    dequeue returns the priority first.  Shapes must be given, fully defined (TF's builder requires a list).
    """

    def __init__(self, capacity: int, types, shapes=None, names=None, shared_name: str | None = None,
                 name: str = "priority_queue"):
        """Creates the ``PriorityQueueV2`` op.

        Args:
            capacity: the most elements the queue holds (-1: no bound).
            types: the dtypes of the components after the priority.
            shapes: their fully defined shapes (one shape, or a list of them).
            names: names for all components, the priority's first; dequeues then return a dict.
            shared_name: shares the queue under this name across sessions.
            name: the op's name.

        Raises:
            TypeError: if ``shapes`` is None or not shapes (TF's messages).
            ValueError: if a shape is not fully defined, or shapes or names do not match the components.
        """
        types = as_type_list(types)
        shapes = as_shape_list(shapes)
        if shapes is None:  # the generated op wrapper's check: the op's shapes attr has no default
            raise TypeError("Expected list for 'shapes' argument to 'priority_queue_v2' Op, not None.")
        queue_ref = create_queue("PriorityQueueV2", name, types, shapes, capacity, shared_name, {})
        super().__init__([dtypes_lib.int64] + types, [TensorShape([])] + shapes, names, queue_ref)
