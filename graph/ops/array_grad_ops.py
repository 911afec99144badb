"""Array ops that array gradients are built from: ShapeN, ConcatOffset, StridedSliceGrad.

Op types, attrs and input order are TensorFlow's (``gen_array_ops``), so a gradient graph
built here reads the same in TensorBoard and runs in TensorFlow after export.
``StridedSliceGrad`` scatters ``dy`` into zeros of the forward input's shape at the
positions the forward ``StridedSlice`` read (same masks).
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph import errors
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_index_ops
from graph.ops import constant_ops as ops

__all__ = ["shape_n", "concat_offset", "strided_slice_grad"]


# ----------------------------------------------------------------- ShapeN
def _infer_shape_n(op):
    out_type = op._attrs["out_type"]
    return [(out_type, TensorShape([t.shape.ndims])) for t in op._inputs]


kernels.register("ShapeN", infer=_infer_shape_n,
                 compute=lambda ctx, op, inputs: [np.array(np.shape(v), dtype=op._attrs["out_type"].numpy_dtype)
                                                  for v in inputs],
                 default_attrs={"out_type": dtypes_lib.int32})


def shape_n(input, out_type=dtypes_lib.int32, name: str | None = None) -> list:
    """The shapes of the tensors in ``input``, one ``ShapeN`` op with one output each."""
    with name_scope(name, "ShapeN", list(input)) as scope:
        tensors = [convert_to_tensor(t) for t in input]
        out_type = dtypes_lib.as_dtype(out_type)
        op = tensors[0].graph.create_op("ShapeN", tensors, name=scope,
                                        attrs={"N": len(tensors), "T": tensors[0].dtype.base_dtype,
                                               "out_type": out_type})
        return op.outputs


# ----------------------------------------------------------------- ConcatOffset
def _infer_concat_offset(op):
    shapes = op._inputs[1:]
    return [(s.dtype.base_dtype, s.shape) for s in shapes]


def _compute_concat_offset(ctx, op, inputs):
    axis, shapes = int(inputs[0]), [np.asarray(s) for s in inputs[1:]]
    rank = shapes[0].size
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(None, op, f"Concat dim is out of range: {axis} vs. {rank}")
    axis %= rank
    offsets = []
    offset = 0
    for index, shape in enumerate(shapes):
        if shape.size != rank:
            raise errors.InvalidArgumentError(
                None, op, f"input {index} should contain {rank} elements, but got {shape.size}")
        mismatched = [d for d in range(rank) if d != axis and shape[d] != shapes[0][d]]
        if mismatched:
            raise errors.InvalidArgumentError(
                None, op, f"All dimensions except {axis} must match. Input {index} has shape [{_dims(shape)}] and "
                f"doesn't match input 0 with shape [{_dims(shapes[0])}].")
        out = np.zeros(rank, dtype=shape.dtype)
        out[axis] = offset
        offsets.append(out)
        offset += int(shape[axis])
    return offsets


def _dims(shape: np.ndarray) -> str:
    return " ".join(str(int(d)) for d in shape)


kernels.register("ConcatOffset", infer=_infer_concat_offset, compute=_compute_concat_offset,
                 default_attrs={"shape_type": dtypes_lib.int32})


def concat_offset(concat_dim, shape, name: str | None = None) -> list:
    """Where each input of a concatenation along ``concat_dim`` starts (``ConcatOffset``)."""
    with name_scope(name, "ConcatOffset", [concat_dim] + list(shape)) as scope:
        concat_dim = convert_to_tensor(concat_dim, dtype=dtypes_lib.int32, name="concat_dim")
        shapes = [convert_to_tensor(s, preferred_dtype=dtypes_lib.int32) for s in shape]
        op = concat_dim.graph.create_op("ConcatOffset", [concat_dim] + shapes, name=scope,
                                        attrs={"N": len(shapes), "shape_type": shapes[0].dtype.base_dtype})
        return op.outputs


# ----------------------------------------------------------------- StridedSliceGrad
_MASK_NAMES = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _infer_strided_slice_grad(op):
    shape, dy = op._inputs[0], op._inputs[4]
    return [(dy.dtype.base_dtype, ops.constant_value_as_shape(shape))]


def _compute_strided_slice_grad(ctx, op, inputs):
    shape, begin, end, strides, dy = (np.asarray(v) for v in inputs)
    items = array_index_ops.strided_slice_items(op, begin, end, strides)
    result = np.zeros(tuple(int(d) for d in shape), dtype=dy.dtype)
    try:
        view = result[tuple(items)]
        if view.shape != dy.shape:
            raise errors.InvalidArgumentError(
                None, op, f"shape of dy was [{_dims(np.asarray(dy.shape))}] instead of "
                f"[{_dims(np.asarray(view.shape))}]")
        result[tuple(items)] = dy
    except IndexError as error:
        raise errors.InvalidArgumentError(None, op, f"slice index out of bounds: {error}") from None
    return result


kernels.register("StridedSliceGrad", infer=_infer_strided_slice_grad, compute=_compute_strided_slice_grad,
                 default_attrs={name: 0 for name in _MASK_NAMES})


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask: int = 0, end_mask: int = 0,
                       ellipsis_mask: int = 0, new_axis_mask: int = 0, shrink_axis_mask: int = 0,
                       name: str | None = None) -> Tensor:
    """``dy`` placed into zeros of ``shape`` where ``StridedSlice`` with the same arguments reads."""
    with name_scope(name, "StridedSliceGrad", [shape, begin, end, strides, dy]) as scope:
        # converted in the op's input order (TF's op helper: ``shape`` first), all of the first tensor's dtype
        given = [value.dtype.base_dtype for value in (shape, begin, end, strides) if isinstance(value, Tensor)]
        shape = convert_to_tensor(shape, dtype=given[0] if given else None, name="shape",
                                  preferred_dtype=dtypes_lib.int32)
        index = shape.dtype.base_dtype
        begin = convert_to_tensor(begin, dtype=index, name="begin")
        end = convert_to_tensor(end, dtype=index, name="end")
        strides = convert_to_tensor(strides, dtype=index, name="strides")
        dy = convert_to_tensor(dy, name="dy")
        attrs = {"T": dy.dtype.base_dtype, "Index": index, "begin_mask": begin_mask, "end_mask": end_mask,
                 "ellipsis_mask": ellipsis_mask, "new_axis_mask": new_axis_mask,
                 "shrink_axis_mask": shrink_axis_mask}
        return dy.graph.create_op("StridedSliceGrad", [shape, begin, end, strides, dy], name=scope,
                                  attrs=attrs)._outputs[0]
