"""Stacks: the StackV2 family of ops (push, pop, close), builders and kernels with per-run stack state.

TensorFlow's while-loop gradients keep the history of a forward value on a stack: the forward
loop pushes the value in each iteration (``StackPushV2``), the gradient loop pops it back in
reverse order (``StackPopV2``).  Each execution of ``StackV2`` in a Session creates a fresh
stack (TF: a per-step resource); the handle's value is that stack's state object, which flows
through Enter ops into both loops' frames like any value.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope

__all__ = ["stack_v2", "stack_push_v2", "stack_pop_v2", "stack_close_v2"]

_HANDLE = (dtypes_lib.resource, TensorShape([2]))  # TF's StackV2 shape function: a 2-vector handle


class _StackState:
    """One stack in one run: its elements, its bound and whether it was closed."""

    __slots__ = ("name", "dtype", "max_size", "elements", "closed")

    def __init__(self, op, max_size: int):
        self.name = op._attrs.get("stack_name", b"").decode() or op.name
        self.dtype = op._attrs["elem_type"].numpy_dtype
        self.max_size = max_size
        self.elements: list = []
        self.closed = False

    def __repr__(self) -> str:
        return f"<Stack {self.name} size={len(self.elements)}>"


def _state(op, handle) -> _StackState:
    if not isinstance(handle, _StackState):
        raise errors.InvalidArgumentError(None, op, f"'{op.name}' expects a stack handle as input 0.")
    if handle.closed:
        raise errors.InvalidArgumentError(None, op, f"Stack[{handle.name}] has already been closed.")
    return handle


def _compute_stack(ctx, op, inputs):
    # nothing kept in the session: a stack lives as long as the run holding its handle (concurrent runs
    # never share one, finished runs leave nothing behind)
    return [_StackState(op, int(inputs[0]))]


def _compute_push(ctx, op, inputs):
    stack, value = _state(op, inputs[0]), inputs[1]
    # max_size is recorded only: TF 2.21's kernel lets pushes past it succeed (the oracle tests say so)
    if stack.dtype == np.dtype(object) and not isinstance(value, (np.ndarray, bytes, str)):
        stack.elements.append(value)  # a handle (a TensorArray's state in a nested loop) is kept as itself
        return [value]
    value = np.asarray(value)
    if value.dtype != stack.dtype:
        raise errors.InvalidArgumentError(None, op, f"Stack[{stack.name}] holds {np.dtype(stack.dtype).name} "
                                          f"elements, but '{op.name}' pushes {value.dtype.name}.")
    stack.elements.append(value)
    return [value]


def _compute_pop(ctx, op, inputs):
    stack = _state(op, inputs[0])
    if not stack.elements:
        raise errors.InvalidArgumentError(None, op, f"Stack[{stack.name}] is empty when calling Pop().")
    return [stack.elements.pop()]


def _compute_close(ctx, op, inputs):
    stack = _state(op, inputs[0])
    stack.closed = True
    stack.elements = []
    return []


def _infer_stack(op):
    max_size = op._inputs[0]
    if max_size.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {max_size.shape.ndims} for '{op.name}' (StackV2) with "
                         f"input shapes: {max_size.shape}.")
    return [_HANDLE]


kernels.register("StackV2", infer=_infer_stack, compute=_compute_stack, stateful=True,
                 default_attrs={"stack_name": b""})
kernels.register("StackPushV2", infer=lambda op: [(op._inputs[1].dtype.base_dtype, op._inputs[1].shape)],
                 compute=_compute_push, stateful=True, default_attrs={"swap_memory": False})
kernels.register("StackPopV2", infer=lambda op: [(op._attrs["elem_type"], TensorShape(None))],
                 compute=_compute_pop, stateful=True)
kernels.register("StackCloseV2", infer=lambda op: [], compute=_compute_close, stateful=True)


# ----------------------------------------------------------------- builders
def stack_v2(max_size, elem_type, stack_name: str = "", name: str | None = None) -> Tensor:
    """A new stack's handle (``StackV2``); ``max_size`` < 0 means unbounded."""
    with name_scope(name, "StackV2", [max_size]) as scope:
        max_size = convert_to_tensor(max_size, dtype=dtypes_lib.int32, name="max_size")
        attrs = {"elem_type": dtypes_lib.as_dtype(elem_type).base_dtype, "stack_name": stack_name.encode()}
        return max_size.graph.create_op("StackV2", [max_size], name=scope, attrs=attrs)._outputs[0]


def stack_push_v2(handle: Tensor, elem, swap_memory: bool = False, name: str | None = None) -> Tensor:
    """Pushes ``elem`` onto the stack and forwards it (``StackPushV2``)."""
    with name_scope(name, "StackPushV2", [handle, elem]) as scope:
        elem = convert_to_tensor(elem, name="elem")
        attrs = {"T": elem.dtype.base_dtype, "swap_memory": bool(swap_memory)}
        return handle.graph.create_op("StackPushV2", [handle, elem], name=scope, attrs=attrs)._outputs[0]


def stack_pop_v2(handle: Tensor, elem_type, name: str | None = None) -> Tensor:
    """The element popped from the top of the stack (``StackPopV2``)."""
    with name_scope(name, "StackPopV2", [handle]) as scope:
        attrs = {"elem_type": dtypes_lib.as_dtype(elem_type).base_dtype}
        return handle.graph.create_op("StackPopV2", [handle], name=scope, attrs=attrs)._outputs[0]


def stack_close_v2(handle: Tensor, name: str | None = None):
    """Deletes the stack (``StackCloseV2``)."""
    with name_scope(name, "StackCloseV2", [handle]) as scope:
        return handle.graph.create_op("StackCloseV2", [handle], name=scope)
