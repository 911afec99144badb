"""TF1 ``TensorArray``: the TensorArrayV3 family of ops, builders and kernels with per-run array state.

A ``TensorArrayV3`` op outputs a handle and a scalar float ``flow``; every write-like op
(Write, Scatter, Split) consumes the flow and outputs a new one, so data dependencies order the
ops and a while loop carries a TensorArray as its flow tensor.  In a Session each execution of
``TensorArrayV3`` creates a fresh array (TF: a per-step resource); the handle's value is that
array's state object, which flows through Enter/Identity like any value, and the session keeps
the arrays of the current run in ``ctx.op_state`` so ``TensorArrayCloseV3`` can release them.
"""

from __future__ import annotations

import contextlib

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape, as_shape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import reduction_ops

__all__ = ["TensorArray", "to_flow", "with_flow"]

_FLOW = (dtypes_lib.float32, TensorShape([]))


# ----------------------------------------------------------------- kernel state
class _ArrayState:
    """One TensorArray in one run: its elements, and which were read (clear_after_read)."""

    __slots__ = ("name", "dtype", "elements", "cleared", "dynamic_size", "clear_after_read", "element_shape",
                 "identical_shapes", "closed")

    def __init__(self, op, size: int):
        self.name = op.name
        self.dtype = op._attrs["dtype"].numpy_dtype
        self.elements: list = [None] * size
        self.cleared = [False] * size
        self.dynamic_size = bool(op._attrs.get("dynamic_size"))
        self.clear_after_read = bool(op._attrs.get("clear_after_read", True))
        self.element_shape = as_shape(op._attrs.get("element_shape", TensorShape(None)))
        self.identical_shapes = bool(op._attrs.get("identical_element_shapes"))
        self.closed = False


def _state(op, handle) -> _ArrayState:
    if not isinstance(handle, _ArrayState):
        raise errors.InvalidArgumentError(None, op, f"'{op.name}' expects a TensorArray handle as input 0.")
    if handle.closed:
        raise errors.InvalidArgumentError(None, op, f"TensorArray {handle.name} has already been closed.")
    return handle


def _write(op, array: _ArrayState, index: int, value) -> None:
    if index < 0:
        raise errors.InvalidArgumentError(None, op, f"Tried to write to index {index} but array size is: "
                                          f"{len(array.elements)}")
    if index >= len(array.elements):
        if not array.dynamic_size:
            raise errors.InvalidArgumentError(None, op, f"Tried to write to index {index} but array is not "
                                              f"resizeable and size is: {len(array.elements)}")
        grow = index + 1 - len(array.elements)
        array.elements.extend([None] * grow)
        array.cleared.extend([False] * grow)
    value = np.asarray(value)
    if value.dtype != array.dtype:
        raise errors.InvalidArgumentError(None, op, f"TensorArray dtype is {np.dtype(array.dtype).name} but Op is "
                                          f"trying to write dtype {value.dtype.name}.")
    if array.identical_shapes:
        shape = array.element_shape
        if not shape.is_compatible_with(TensorShape(list(value.shape))):
            raise errors.InvalidArgumentError(
                None, op, f"Could not write to TensorArray index {index} because the value shape is "
                f"{list(value.shape)} which is incompatible with the TensorArray's inferred element shape: "
                f"{shape} (consider setting infer_shape=False).")
        array.element_shape = TensorShape(list(value.shape))
    if array.elements[index] is not None or array.cleared[index]:
        raise errors.InvalidArgumentError(None, op, f"Could not write to TensorArray index {index} because it has "
                                          "already been written to.")
    array.elements[index] = value


def _read(op, array: _ArrayState, index: int):
    if not 0 <= index < len(array.elements):
        raise errors.InvalidArgumentError(None, op, f"Tried to read from index {index} but array size is: "
                                          f"{len(array.elements)}")
    value = array.elements[index]
    if value is None:
        if array.cleared[index]:
            raise errors.InvalidArgumentError(None, op, f"Could not read index {index} twice because it was cleared "
                                              "after a previous read (perhaps try setting clear_after_read = false?).")
        if not array.element_shape.is_fully_defined():
            raise errors.InvalidArgumentError(
                None, op, f"Could not read from TensorArray index {index}.  Furthermore, the element shape is not "
                f"fully defined: {array.element_shape}.  It is possible you are working with a resizeable "
                "TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full "
                "element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned "
                "instead of incurring this error.")
        return np.zeros(array.element_shape.as_list(), dtype=array.dtype)
    if array.clear_after_read:
        array.elements[index] = None
        array.cleared[index] = True
    return value


def _compute_create(ctx, op, inputs):
    array = _ArrayState(op, int(inputs[0]))
    ctx.op_state.setdefault("TensorArrays", []).append(array)
    return [array, np.float32(0)]


def _compute_write(ctx, op, inputs):
    handle, index, value, flow = inputs
    _write(op, _state(op, handle), int(index), value)
    return [np.float32(flow)]


def _compute_read(ctx, op, inputs):
    return [_read(op, _state(op, inputs[0]), int(inputs[1]))]


def _stacked(op, array: _ArrayState, values: list):
    if not values:
        if not array.element_shape.is_fully_defined():
            raise errors.UnimplementedError(
                None, op, f"TensorArray has size zero, but element shape {array.element_shape} is not fully "
                "defined. Currently only static shapes are supported when packing zero-size TensorArrays.")
        return np.zeros([0] + array.element_shape.as_list(), dtype=array.dtype)
    for index, value in enumerate(values[1:], 1):
        if value.shape != values[0].shape:
            raise errors.InvalidArgumentError(None, op, f"TensorArray has inconsistent shapes.  Index 0 has shape: "
                                              f"{list(values[0].shape)} but index {index} has shape: "
                                              f"{list(value.shape)}")
    return np.stack(values).astype(array.dtype, copy=False)


def _compute_gather(ctx, op, inputs):
    array = _state(op, inputs[0])
    indices = np.asarray(inputs[1]).reshape(-1)
    return [_stacked(op, array, [_read(op, array, int(i)) for i in indices])]


def _compute_concat(ctx, op, inputs):
    array = _state(op, inputs[0])
    values = [_read(op, array, i) for i in range(len(array.elements))]
    if any(v.ndim == 0 for v in values):
        raise errors.InvalidArgumentError(None, op, "Concat saw a scalar shape at index 0 but requires at least "
                                          "vectors.  Did you mean to call pack?")
    lengths = np.array([v.shape[0] for v in values], dtype=np.int64)
    if not values:
        return [np.zeros([0] + op._attrs.get("element_shape_except0", TensorShape(None)).as_list(),
                         dtype=array.dtype), lengths]
    return [np.concatenate(values).astype(array.dtype, copy=False), lengths]


def _compute_scatter(ctx, op, inputs):
    handle, indices, value, flow = inputs
    array, value, indices = _state(op, handle), np.asarray(value), np.asarray(indices).reshape(-1)
    if value.ndim == 0 or value.shape[0] != len(indices):
        raise errors.InvalidArgumentError(None, op, f"Expected len(indices) == values.shape[0], but saw: "
                                          f"{len(indices)} vs. {value.shape[0] if value.ndim else 0}")
    for position, index in enumerate(indices):
        _write(op, array, int(index), value[position])
    return [np.float32(flow)]


def _compute_split(ctx, op, inputs):
    handle, value, lengths, flow = inputs
    array, value, lengths = _state(op, handle), np.asarray(value), np.asarray(lengths).reshape(-1)
    if value.ndim == 0 or int(lengths.sum()) != value.shape[0]:
        raise errors.InvalidArgumentError(None, op, f"Expected sum of lengths to be equal to values.shape[0], but "
                                          f"sum of lengths is: {int(lengths.sum())} and value's shape is: "
                                          f"{list(value.shape)}")
    start = 0
    for index, length in enumerate(lengths):
        _write(op, array, index, value[start:start + int(length)])
        start += int(length)
    return [np.float32(flow)]


def _compute_size(ctx, op, inputs):
    return [np.int32(len(_state(op, inputs[0]).elements))]


def _compute_close(ctx, op, inputs):
    array = _state(op, inputs[0])
    array.closed = True
    arrays = ctx.op_state.get("TensorArrays", [])
    if array in arrays:
        arrays.remove(array)
    return []


def _element_infer(op):
    shape = as_shape(op._attrs.get("element_shape", TensorShape(None)))
    return shape


_HANDLE = (dtypes_lib.resource, TensorShape([2]))
kernels.register("TensorArrayV3", infer=lambda op: [_HANDLE, _FLOW], compute=_compute_create, stateful=True,
                 default_attrs={"element_shape": TensorShape(None), "dynamic_size": False, "clear_after_read": True,
                                "identical_element_shapes": False, "tensor_array_name": b""})
kernels.register("TensorArrayWriteV3", infer=lambda op: [_FLOW], compute=_compute_write, stateful=True)
kernels.register("TensorArrayReadV3", infer=lambda op: [(op._attrs["dtype"], TensorShape(None))],
                 compute=_compute_read, stateful=True)
kernels.register("TensorArrayGatherV3", compute=_compute_gather, stateful=True,
                 infer=lambda op: [(op._attrs["dtype"], TensorShape([None]).concatenate(_element_infer(op))
                                    if _element_infer(op).ndims is not None else TensorShape(None))],
                 default_attrs={"element_shape": TensorShape(None)})
kernels.register("TensorArrayConcatV3", compute=_compute_concat, stateful=True,
                 infer=lambda op: [(op._attrs["dtype"], TensorShape(None)), (dtypes_lib.int64, TensorShape([None]))],
                 default_attrs={"element_shape_except0": TensorShape(None)})
kernels.register("TensorArrayScatterV3", infer=lambda op: [_FLOW], compute=_compute_scatter, stateful=True)
kernels.register("TensorArraySplitV3", infer=lambda op: [_FLOW], compute=_compute_split, stateful=True)
kernels.register("TensorArraySizeV3", infer=lambda op: [(dtypes_lib.int32, TensorShape([]))],
                 compute=_compute_size, stateful=True)
kernels.register("TensorArrayCloseV3", infer=lambda op: [], compute=_compute_close, stateful=True)


# ----------------------------------------------------------------- TensorArray
class TensorArray:
    """A list of same-typed tensors written and read by index inside a graph (TF1's graph TensorArray)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape: bool = True, element_shape=None,
                 colocate_with_first_write_call: bool = True, name: str | None = None):
        if clear_after_read is None:
            clear_after_read = True
        if (size is None) == (handle is None):
            raise ValueError("Exactly one of 'size' and 'handle' must be provided." if size is not None
                             else "Size must be provided if handle is not provided")
        if handle is not None and tensor_array_name is not None:
            raise ValueError("Cannot provide both `handle` and `tensor_array_name` at the same time.")
        self._dtype = dtypes_lib.as_dtype(dtype).base_dtype
        self._dynamic_size = dynamic_size or False
        self._infer_shape = infer_shape
        self._size = size
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with = [] if colocate_with_first_write_call else None
        self._element_shape = [as_shape(element_shape)]
        with name_scope(name, "TensorArray", [t for t in (handle, size, flow) if isinstance(t, Tensor)]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return
            size = convert_to_tensor(size, dtype=dtypes_lib.int32, name="size")
            graph = size.graph
            attrs = {"dtype": self._dtype, "element_shape": as_shape(element_shape),
                     "dynamic_size": bool(self._dynamic_size), "clear_after_read": bool(clear_after_read),
                     "identical_element_shapes": bool(infer_shape),
                     "tensor_array_name": (tensor_array_name or "").encode()}
            context = contextlib.ExitStack()
            if colocate_with_first_write_call:
                context.enter_context(graph_lib.device(None))
                context.enter_context(graph_lib.colocate_with(None, ignore_existing=True))
            with context:
                op = graph.create_op("TensorArrayV3", [size], name=scope, attrs=attrs)
            self._handle, self._flow = op._outputs

    dtype = property(lambda self: self._dtype, doc="The element dtype.")
    handle = property(lambda self: self._handle, doc="The TensorArray handle.")
    flow = property(lambda self: self._flow, doc="The flow tensor ordering this TensorArray's ops.")
    dynamic_size = property(lambda self: self._dynamic_size, doc="Whether writes past the end grow the array.")

    @property
    def element_shape(self) -> TensorShape:
        """The static shape of each element (merged from the writes when ``infer_shape``)."""
        return self._element_shape[0]

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with graph_lib.colocate_with(self._colocate_with[0]):
            yield

    def _check_element_shape(self, shape: TensorShape) -> None:
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def identity(self) -> TensorArray:
        """This TensorArray with its flow through an Identity (TF's TensorArray.identity)."""
        return with_flow(self, constant_ops.identity(self._flow))

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements: the static size as a tensor, else ``TensorArraySizeV3`` (dynamic size)."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes_lib.int32)
        return _create("TensorArraySizeV3", [self._handle, self._flow], name=name)._outputs[0]

    def read(self, index, name: str | None = None) -> Tensor:
        """Element ``index`` (``TensorArrayReadV3``)."""
        value = _create("TensorArrayReadV3", [self._handle, index, self._flow],
                                             name=name, attrs={"dtype": self._dtype})._outputs[0]
        if self.element_shape.ndims is not None:
            value.set_shape(self.element_shape)
        return value

    def write(self, index, value, name: str | None = None) -> TensorArray:
        """A TensorArray with ``value`` written at ``index`` (``TensorArrayWriteV3``)."""
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow = _create("TensorArrayWriteV3", [self._handle, index, value, self._flow],
                                                    name=name,
                                                    attrs={"T": value.dtype.base_dtype})._outputs[0]
            return with_flow(self, flow)

    def gather(self, indices, name: str | None = None) -> Tensor:
        """The elements at ``indices`` stacked (``TensorArrayGatherV3``)."""
        value = _create("TensorArrayGatherV3", [self._handle, indices, self._flow],
                                             name=name,
                                             attrs={"dtype": self._dtype,
                                                    "element_shape": self.element_shape})._outputs[0]
        if self.element_shape.ndims is not None:
            value.set_shape(TensorShape([None]).concatenate(self.element_shape))
        return value

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked on a new first axis (a gather of ``range(size)``, as TF)."""
        with graph_lib.colocate_with(self._handle):
            with name_scope(name, "TensorArrayStack", [self._handle]):
                value = self.gather(reduction_ops.range(0, self.size()), name=name)
                if self.element_shape.ndims is not None and not self._dynamic_size and self._size is not None:
                    static = constant_ops.constant_value(self._size) if isinstance(self._size, Tensor) \
                        else self._size
                    if static is not None:
                        value.set_shape(TensorShape([int(static)]).concatenate(self.element_shape))
                return value

    def concat(self, name: str | None = None) -> Tensor:
        """All elements concatenated on their first axis (``TensorArrayConcatV3``)."""
        shape = self.element_shape
        op = _create("TensorArrayConcatV3", [self._handle, self._flow],
                                          name=name,
                                          attrs={"dtype": self._dtype, "element_shape_except0":
                                                 TensorShape(shape.as_list()[1:]) if shape.ndims else
                                                 TensorShape(None)})
        value = op._outputs[0]
        if shape.ndims:
            value.set_shape(TensorShape([None] + shape.as_list()[1:]))
        return value

    def unstack(self, value, name: str | None = None) -> TensorArray:
        """A TensorArray holding ``value``'s rows (a scatter of ``range(shape[0])``, as TF)."""
        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            num_elements = array_ops.shape(value)[0]
            return self.scatter(reduction_ops.range(0, num_elements), value, name=name)

    def scatter(self, indices, value, name: str | None = None) -> TensorArray:
        """A TensorArray with ``value[i]`` written at ``indices[i]`` (``TensorArrayScatterV3``)."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            if value.shape.ndims is not None:
                self._check_element_shape(TensorShape(value.shape.as_list()[1:]))
            with self._maybe_colocate_with(value):
                flow = _create("TensorArrayScatterV3", [self._handle, indices, value, self._flow],
                                                    name=name,
                                                    attrs={"T": value.dtype.base_dtype})._outputs[0]
            return with_flow(self, flow)

    def split(self, value, lengths, name: str | None = None) -> TensorArray:
        """A TensorArray holding consecutive pieces of ``value`` of the given ``lengths`` (``TensorArraySplitV3``)."""
        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                lengths = math_ops.cast(lengths, dtypes_lib.int64)
                flow = _create("TensorArraySplitV3", [self._handle, value, lengths, self._flow],
                                                    name=name,
                                                    attrs={"T": value.dtype.base_dtype})._outputs[0]
            return with_flow(self, flow)

    def close(self, name: str | None = None):
        """Releases the array (``TensorArrayCloseV3``)."""
        return _create("TensorArrayCloseV3", [self._handle], name=name)


_INDEX_ARGS = {"TensorArrayReadV3": "index", "TensorArrayWriteV3": "index", "TensorArrayGatherV3": "indices",
               "TensorArrayScatterV3": "indices"}


def _create(op_type: str, inputs: list, name: str | None = None, attrs: dict | None = None):
    """A raw TensorArray op, named and scoped as TF's generated wrappers do (``<scope>/TensorArrayReadV3``,
    a Python index converted inside it as ``<scope>/TensorArrayReadV3/index``)."""
    with name_scope(name, op_type, [t for t in inputs if isinstance(t, Tensor)]) as scope:
        if not isinstance(inputs[1], Tensor) and op_type in _INDEX_ARGS:
            inputs = [inputs[0], convert_to_tensor(inputs[1], dtype=dtypes_lib.int32, name=_INDEX_ARGS[op_type])] \
                + inputs[2:]
        return inputs[0].graph.create_op(op_type, inputs, name=scope, attrs=attrs)


def with_flow(old, flow):
    """``old`` (a TensorArray) rebuilt around ``flow``, sharing its handle and shape (TF's build_ta_with_new_flow);
    anything else: ``flow`` itself."""
    if not isinstance(old, TensorArray):
        return flow
    new = TensorArray(dtype=old._dtype, handle=old._handle, flow=flow, infer_shape=old._infer_shape,
                      colocate_with_first_write_call=old._colocate_with_first_write_call)
    new._dynamic_size = old._dynamic_size
    new._size = old._size
    new._colocate_with = old._colocate_with
    new._element_shape = old._element_shape  # shared: a write inside a loop refines the outer array's shape
    return new


def to_flow(value):
    """A TensorArray's flow tensor; anything else unchanged (TF's _convert_tensorarray_to_flow)."""
    return value.flow if isinstance(value, TensorArray) else value
