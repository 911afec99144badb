"""Array op builders and kernels: reshape, transpose, concat, stack/unstack, expand_dims, squeeze, shape,
size, rank, gather, slice, strided slice (Tensor indexing), tile, split, one_hot, where.

Static shapes follow TensorFlow's shape functions where the inputs are known at build time
(a constant ``shape`` for Reshape, including one ``-1``; constant axes; known input shapes).
As in TF 2.x graph mode, ``shape``/``size``/``rank`` of a fully known shape are Consts.
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.base import errors
from graph.base import kernels
from graph.core import graph as graph_lib
from graph.ops import constant_ops as ops
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.base.shapes import TensorShape, as_shape

__all__ = [
    "reshape", "transpose", "concat", "stack", "unstack", "expand_dims", "squeeze", "shape", "shape_internal",
    "size", "size_internal", "rank", "rank_internal", "gather", "slice", "strided_slice", "tile", "split", "one_hot", "where", "boolean_mask",
]


_py_slice = slice  # this module defines its own `slice` op builder


def _apply(op_type, graph, scope, inputs, attrs):
    return graph.create_op(op_type, inputs, name=scope, attrs=attrs)


def _int_tensor(value, name):
    return convert_to_tensor(value, name=name, preferred_dtype=dtypes_lib.int32)


# ----------------------------------------------------------------- Reshape
def _infer_reshape(op):
    tensor, shape_tensor = op._inputs
    dtype = tensor.dtype.base_dtype
    target = ops.constant_value_as_shape(shape_tensor)
    if target.ndims is None:
        return [(dtype, target)]
    value = ops.constant_value(shape_tensor)
    dims = target.as_list()
    if value is not None:
        raw = np.asarray(value).reshape(-1).tolist()
        if sum(1 for d in raw if d == -1) > 1:
            raise ValueError(f"Cannot infer multiple unknown dimensions in shape {raw} for '{op.name}' (Reshape).")
        total = tensor.shape.num_elements()
        if -1 in raw and total is not None:
            known = int(np.prod([d for d in raw if d != -1], dtype=np.int64))
            if known == 0 or total % known:
                raise ValueError(f"Cannot reshape a tensor with {total} elements to shape {raw} for '{op.name}' "
                                 "(Reshape).")
            dims = [total // known if d == -1 else d for d in raw]
        elif total is not None and -1 not in raw and int(np.prod(raw, dtype=np.int64)) != total:
            raise ValueError(f"Cannot reshape a tensor with {total} elements to shape {raw} (op: '{op.name}', "
                             f"input shape {tensor.shape.message_string()}).")
    return [(dtype, TensorShape(dims))]


def _compute_reshape(ctx, op, inputs):
    tensor, shape_value = inputs
    target = tuple(int(d) for d in np.asarray(shape_value).reshape(-1))
    try:
        return np.reshape(tensor, target)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, op, f"Input to reshape is a tensor with {np.size(tensor)} values, but the requested shape has "
            f"{int(np.prod(target))}") from None


kernels.register("Reshape", infer=_infer_reshape, compute=_compute_reshape)


def reshape(tensor, shape, name: str | None = None) -> Tensor:
    """``Reshape`` to ``shape`` (one dimension may be -1)."""
    graph = graph_lib._graph_of([tensor, shape])
    with graph.as_default(), graph.name_scope(name or "Reshape") as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        shape = _int_tensor(shape, "shape")
        return _apply("Reshape", graph, scope, [tensor, shape],
                      {"T": tensor.dtype.base_dtype, "Tshape": shape.dtype.base_dtype})._outputs[0]


# ----------------------------------------------------------------- Transpose
def _infer_transpose(op):
    tensor, perm = op._inputs
    value = ops.constant_value(perm)
    dtype = tensor.dtype.base_dtype
    if tensor.shape.ndims is None:
        return [(dtype, TensorShape(None) if value is None else TensorShape([None] * len(value)))]
    if value is None:
        return [(dtype, TensorShape([None] * tensor.shape.ndims))]
    dims = tensor.shape.as_list()
    if sorted(int(p) for p in value) != list(range(len(dims))):
        raise ValueError(f"Invalid permutation {list(value)} for '{op.name}' ({op.type}) of rank {len(dims)}.")
    return [(dtype, TensorShape([dims[int(p)] for p in value]))]


kernels.register("Transpose", infer=_infer_transpose,
                 compute=lambda ctx, op, inputs: np.ascontiguousarray(
                     np.transpose(inputs[0], [int(p) for p in inputs[1]])))
# ConjugateTranspose: TF's transpose(conjugate=True) of a complex tensor; same shape function as Transpose.
kernels.register("ConjugateTranspose", infer=_infer_transpose,
                 compute=lambda ctx, op, inputs: np.ascontiguousarray(
                     np.conj(np.transpose(inputs[0], [int(p) for p in inputs[1]]))))


def transpose(a, perm=None, name: str = "transpose", conjugate: bool = False) -> Tensor:
    """``Transpose`` by ``perm`` (reversed axes if None), in scope ``transpose``.

    With ``conjugate=True`` a complex ``a`` gets a ``ConjugateTranspose`` (other dtypes a plain ``Transpose``).
    """
    with name_scope(name, "transpose", [a]) as scope:
        a = convert_to_tensor(a, name="a")
        if perm is None:
            if a.shape.ndims is None:
                from graph.ops import math_ops
                # TF's gen_math_ops._range(rank(a) - 1, -1, -1): ops Rank, sub, Range
                start = math_ops._binary_op("Sub", rank(a), 1, "sub")
                perm = math_ops.range(start, -1, -1, name="Range")
            else:
                perm = np.arange(a.shape.ndims - 1, -1, -1, dtype=np.int32)
        graph = a.graph
        with graph.name_scope(scope):
            perm = convert_to_tensor(perm, name="perm", preferred_dtype=dtypes_lib.int32)
        op_type = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        return _apply(op_type, graph, scope, [a, perm],
                      {"T": a.dtype.base_dtype, "Tperm": perm.dtype.base_dtype})._outputs[0]


# ----------------------------------------------------------------- ConcatV2, Pack, Unpack
def _infer_concat(op):
    values, axis_tensor = op._inputs[:-1], op._inputs[-1]
    dtype = values[0].dtype.base_dtype
    axis = ops.constant_value(axis_tensor)
    ranks = [v.shape.ndims for v in values if v.shape.ndims is not None]
    if not ranks:
        return [(dtype, TensorShape(None))]
    rank = ranks[0]
    if axis is None:
        return [(dtype, TensorShape([None] * rank))]
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got "
                         f"{axis} for '{op.name}'.")
    axis %= rank
    result = None
    total = 0
    for value in values:
        shape = value.shape if value.shape.ndims is not None else TensorShape([None] * rank)
        if shape.ndims != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims} for '{op.name}' (ConcatV2).")
        dims = shape.as_list()
        size = dims[axis]
        total = None if total is None or size is None else total + size
        dims[axis] = None
        result = TensorShape(dims) if result is None else result.merge_with(TensorShape(dims))
    dims = result.as_list()
    dims[axis] = total
    return [(dtype, TensorShape(dims))]


def _compute_concat(ctx, op, inputs):
    return np.concatenate([np.asarray(v) for v in inputs[:-1]], axis=int(inputs[-1]))


kernels.register("ConcatV2", infer=_infer_concat, compute=_compute_concat)


def concat(values, axis, name: str = "concat") -> Tensor:
    """Concatenation along ``axis`` (``ConcatV2``; one value is an Identity)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name) as scope:
            _int_tensor(axis, "concat_dim")
            return ops.identity(values[0], name=scope)
    graph = graph_lib._graph_of(list(values))
    with graph.as_default(), graph.name_scope(name or "ConcatV2") as scope:
        first = next((v for v in values if isinstance(v, Tensor)), None)
        dtype = first.dtype.base_dtype if first is not None else None
        tensors = [convert_to_tensor(v, dtype=dtype, name=f"values_{i}") for i, v in enumerate(values)]
        if dtype is None:
            dtype = tensors[0].dtype.base_dtype
        axis = _int_tensor(axis, "axis")
        return _apply("ConcatV2", graph, scope, tensors + [axis],
                      {"N": len(tensors), "T": dtype, "Tidx": axis.dtype.base_dtype})._outputs[0]


def _infer_pack(op):
    values = op._inputs
    shape = TensorShape(None)
    for value in values:
        shape = shape.merge_with(value.shape)
    dtype = values[0].dtype.base_dtype
    if shape.ndims is None:
        return [(dtype, TensorShape(None))]
    axis = op._attrs["axis"]
    rank = shape.ndims + 1
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    dims = shape.as_list()
    dims.insert(axis % rank, len(values))
    return [(dtype, TensorShape(dims))]


kernels.register("Pack", infer=_infer_pack,
                 compute=lambda ctx, op, inputs: np.stack([np.asarray(v) for v in inputs], axis=op._attrs["axis"]))


def stack(values, axis: int = 0, name: str = "stack") -> Tensor:
    """Stacks tensors along a new ``axis`` (``Pack``; Python values alone become a Const named ``stack``)."""
    if not any(isinstance(v, Tensor) or hasattr(v, "_as_graph_element") for v in _flatten(values)):
        value = ops._to_ndarray(values)
        if axis == 0:
            return ops.constant(value, name=name)
    graph = graph_lib._graph_of(list(values))
    with graph.as_default():
        first = next((v for v in values if isinstance(v, Tensor)), None)
        dtype = first.dtype.base_dtype if first is not None else None
        tensors = [convert_to_tensor(v, dtype=dtype) for v in values]
        return ops._scoped_op(graph, "Pack", tensors, name=name,
                               attrs={"N": len(tensors), "T": tensors[0].dtype.base_dtype, "axis": axis})._outputs[0]


def _flatten(values):
    if isinstance(values, (list, tuple)):
        for item in values:
            yield from _flatten(item)
    else:
        yield values


def _compute_unpack(ctx, op, inputs):
    value = np.asarray(inputs[0])
    axis = op._attrs["axis"]
    return [np.take(value, i, axis=axis) for i in range(op._attrs["num"])]


def _infer_unpack(op):
    value = op._inputs[0]
    num, axis = op._attrs["num"], op._attrs["axis"]
    dtype = value.dtype.base_dtype
    if value.shape.ndims is None:
        return [(dtype, TensorShape(None))] * num
    dims = value.shape.as_list()
    del dims[axis % len(dims)]
    return [(dtype, TensorShape(dims))] * num


kernels.register("Unpack", infer=_infer_unpack, compute=_compute_unpack)


def unstack(value, num: int | None = None, axis: int = 0, name: str = "unstack") -> list:
    """Splits ``value`` along ``axis`` into rank-1-lower tensors (``Unpack``)."""
    value = convert_to_tensor(value)
    if num is None:
        if value.shape.ndims is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
        num = value.shape[axis].value
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
    op = ops._scoped_op(value.graph, "Unpack", [value], name=name,
                               attrs={"num": num, "T": value.dtype.base_dtype, "axis": axis})
    return op.outputs


# ----------------------------------------------------------------- ExpandDims, Squeeze
def _infer_expand_dims(op):
    tensor, dim = op._inputs
    dtype = tensor.dtype.base_dtype
    value = ops.constant_value(dim)
    if tensor.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    dims = tensor.shape.as_list()
    if value is None:
        return [(dtype, TensorShape([None] * (len(dims) + 1)))]
    axis = int(np.asarray(value).reshape(-1)[0])
    rank = len(dims) + 1
    if not -rank <= axis < rank:
        raise ValueError(f"Tried to expand dim index {axis} for tensor with {len(dims)} dimensions. for "
                         f"'{op.name}' (ExpandDims).")
    dims.insert(axis % rank, 1)
    return [(dtype, TensorShape(dims))]


kernels.register("ExpandDims", infer=_infer_expand_dims,
                 compute=lambda ctx, op, inputs: np.expand_dims(
                     inputs[0], int(np.asarray(inputs[1]).reshape(-1)[0])))


def expand_dims(input, axis=None, name: str | None = None, dim=None) -> Tensor:
    """Inserts a size-1 dimension at ``axis`` (``ExpandDims``)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    graph = graph_lib._graph_of([input])
    with graph.as_default(), graph.name_scope(name or "ExpandDims") as scope:
        input = convert_to_tensor(input, name="input")
        axis = _int_tensor(axis, "dim")
        return _apply("ExpandDims", graph, scope, [input, axis],
                      {"T": input.dtype.base_dtype, "Tdim": axis.dtype.base_dtype})._outputs[0]


def _infer_squeeze(op):
    tensor = op._inputs[0]
    dtype = tensor.dtype.base_dtype
    axes = op._attrs["squeeze_dims"]
    if tensor.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    dims = tensor.shape.as_list()
    rank = len(dims)
    if axes:
        wanted = {a % rank for a in axes}
        for axis in wanted:
            if dims[axis] not in (1, None):
                raise ValueError(f"Can not squeeze dim[{axis}], expected a dimension of 1, got {dims[axis]} for "
                                 f"'{op.name}' (Squeeze).")
        return [(dtype, TensorShape([d for i, d in enumerate(dims) if i not in wanted]))]
    if any(d is None for d in dims):
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([d for d in dims if d != 1]))]


def _compute_squeeze(ctx, op, inputs):
    value = np.asarray(inputs[0])
    axes = op._attrs["squeeze_dims"]
    return np.squeeze(value, axis=tuple(a % value.ndim for a in axes) if axes else None)


kernels.register("Squeeze", infer=_infer_squeeze, compute=_compute_squeeze, default_attrs={"squeeze_dims": []})


def squeeze(input, axis=None, name: str | None = None, squeeze_dims=None) -> Tensor:
    """Removes size-1 dimensions (all, or those in ``axis``) (``Squeeze``)."""
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'")
    axis = squeeze_dims if axis is None else axis
    if np.isscalar(axis):
        axis = [axis]
    graph = graph_lib._graph_of([input])
    with graph.as_default(), graph.name_scope(name or "Squeeze") as scope:
        input = convert_to_tensor(input, name="input")
        return _apply("Squeeze", graph, scope, [input],
                      {"T": input.dtype.base_dtype, "squeeze_dims": [int(a) for a in (axis or [])]})._outputs[0]


# ----------------------------------------------------------------- Shape, Size, Rank
def _infer_shape(op):
    tensor = op._inputs[0]
    return [(op._attrs["out_type"], TensorShape([tensor.shape.ndims]))]


kernels.register("Shape", infer=_infer_shape,
                 compute=lambda ctx, op, inputs: np.array(np.shape(inputs[0]), dtype=op._attrs["out_type"].numpy_dtype))
kernels.register("Size", infer=lambda op: [(op._attrs["out_type"], TensorShape([]))],
                 compute=lambda ctx, op, inputs: np.array(np.size(inputs[0]), dtype=op._attrs["out_type"].numpy_dtype))
kernels.register("Rank", infer=lambda op: [(dtypes_lib.int32, TensorShape([]))],
                 compute=lambda ctx, op, inputs: np.array(np.ndim(inputs[0]), dtype=np.int32))


def shape_internal(input, name: str | None = None, optimize: bool = True, out_type=None) -> Tensor:
    """TF's array_ops.shape_internal: in scope ``Shape``, a Const when the shape is fully known (named
    ``shape_as_tensor`` when ``out_type`` is None), else a ``Shape`` op."""
    with name_scope(name, "Shape", [input]) as scope:
        input = convert_to_tensor(input)
        input_shape = input.shape
        if optimize and input_shape.is_fully_defined():
            if out_type is None:
                dims = input_shape.as_list()
                dtype = dtypes_lib.int64 if any(d >= 2**31 for d in dims) else dtypes_lib.int32
                return ops.constant(dims, dtype=dtype, name="shape_as_tensor")
            return ops.constant(input_shape.as_list(), dtype=out_type, name=scope)
        out_type = dtypes_lib.as_dtype(out_type or dtypes_lib.int32)
        return input.graph.create_op("Shape", [input], name=scope,
                                     attrs={"T": input.dtype.base_dtype, "out_type": out_type})._outputs[0]


def shape(input, name: str | None = None, out_type=dtypes_lib.int32) -> Tensor:
    """The shape of ``input`` as a 1-D tensor (a Const ``Shape`` when fully known, as TF graph mode)."""
    return shape_internal(input, name, optimize=True, out_type=out_type)


def size_internal(input, name: str | None = None, optimize: bool = True, out_type=dtypes_lib.int32) -> Tensor:
    """TF's array_ops.size_internal: a Const ``Size`` when known (or a zero dimension), else a ``Size`` op."""
    out_type = dtypes_lib.as_dtype(out_type)
    with name_scope(name, "Size", [input]) as scope:
        input = convert_to_tensor(input)
        input_shape = input.shape
        if optimize:
            if input_shape.is_fully_defined():
                return ops.constant(input_shape.num_elements(), dtype=out_type, name=scope)
            if input_shape.ndims is not None and any(d == 0 for d in input_shape.as_list()):
                return ops.constant(0, dtype=out_type, name=scope)
        return input.graph.create_op("Size", [input], name=scope,
                                     attrs={"T": input.dtype.base_dtype, "out_type": out_type})._outputs[0]


def size(input, name: str | None = None, out_type=dtypes_lib.int32) -> Tensor:
    """The number of elements of ``input`` (a Const ``Size`` when known)."""
    return size_internal(input, name, optimize=True, out_type=out_type)


def rank_internal(input, name: str | None = None, optimize: bool = True) -> Tensor:
    """TF's array_ops.rank_internal: a Const ``Rank`` when the rank is known and ``optimize``, else a ``Rank`` op."""
    with name_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if optimize and input.shape.ndims is not None:
            return ops.constant(input.shape.ndims, dtype=dtypes_lib.int32, name=scope)
        return input.graph.create_op("Rank", [input], name=scope, attrs={"T": input.dtype.base_dtype})._outputs[0]


def rank(input, name: str | None = None) -> Tensor:
    """The rank of ``input`` (a Const ``Rank`` when known)."""
    return rank_internal(input, name, optimize=True)


# ----------------------------------------------------------------- GatherV2, Slice, Tile
def _infer_gather(op):
    params, indices, axis_tensor = op._inputs
    dtype = params.dtype.base_dtype
    axis = ops.constant_value(axis_tensor)
    if params.shape.ndims is None or indices.shape.ndims is None or axis is None:
        return [(dtype, TensorShape(None))]
    dims = params.shape.as_list()
    axis = int(axis) % len(dims)
    return [(dtype, TensorShape(dims[:axis] + indices.shape.as_list() + dims[axis + 1:]))]


def _compute_gather(ctx, op, inputs):
    params, indices, axis = inputs
    params = np.asarray(params)
    axis = int(axis) % params.ndim
    indices = np.asarray(indices)
    bad = (indices < 0) | (indices >= params.shape[axis])
    if bad.any():
        raise errors.InvalidArgumentError(
            None, op, f"indices{list(np.argwhere(bad)[0])} = {int(indices[bad][0])} is not in "
            f"[0, {params.shape[axis]})")
    return np.take(params, indices, axis=axis)


kernels.register("GatherV2", infer=_infer_gather, compute=_compute_gather, default_attrs={"batch_dims": 0})


def gather(params, indices, validate_indices=None, name: str | None = None, axis=None, batch_dims: int = 0) -> Tensor:
    """Gathers slices of ``params`` at ``indices`` along ``axis`` (``GatherV2``)."""
    if batch_dims:
        raise NotImplementedError("gather with batch_dims is not supported by this emulator.")
    graph = graph_lib._graph_of([params, indices])
    with graph.as_default(), graph.name_scope(name or "GatherV2") as scope:
        params = convert_to_tensor(params, name="params")
        indices = _int_tensor(indices, "indices")
        axis = _int_tensor(0 if axis is None else axis, "axis")
        return _apply("GatherV2", graph, scope, [params, indices, axis],
                      {"batch_dims": 0, "Tparams": params.dtype.base_dtype, "Tindices": indices.dtype.base_dtype,
                       "Taxis": axis.dtype.base_dtype})._outputs[0]


def _infer_slice(op):
    tensor, begin_tensor, size_tensor = op._inputs
    dtype = tensor.dtype.base_dtype
    begin, sizes = ops.constant_value(begin_tensor), ops.constant_value(size_tensor)
    if sizes is None:
        rank = tensor.shape.ndims
        return [(dtype, TensorShape(None) if rank is None else TensorShape([None] * rank))]
    dims = tensor.shape.as_list() if tensor.shape.ndims is not None else [None] * len(sizes)
    out = []
    for i, s in enumerate(np.asarray(sizes).tolist()):
        if s == -1:
            b = None if begin is None else int(begin[i])
            out.append(None if dims[i] is None or b is None else dims[i] - b)
        else:
            out.append(int(s))
    return [(dtype, TensorShape(out))]


def _compute_slice(ctx, op, inputs):
    tensor, begin, sizes = inputs
    tensor = np.asarray(tensor)
    index = []
    for axis, (b, s) in enumerate(zip(np.asarray(begin).tolist(), np.asarray(sizes).tolist())):
        end = tensor.shape[axis] if s == -1 else b + s
        if b < 0 or end > tensor.shape[axis] or end < b:
            raise errors.InvalidArgumentError(
                None, op, f"Expected size[{axis}] in [0, {tensor.shape[axis] - b}], but got {s}")
        index.append(_py_slice(b, end))
    return tensor[tuple(index)]


kernels.register("Slice", infer=_infer_slice, compute=_compute_slice)


def slice(input_, begin, size, name: str | None = None) -> Tensor:
    """The ``size`` block of ``input_`` starting at ``begin`` (``Slice``; size -1 means to the end)."""
    graph = graph_lib._graph_of([input_, begin, size])
    with graph.as_default(), graph.name_scope(name or "Slice") as scope:
        input_ = convert_to_tensor(input_, name="input")
        begin = _int_tensor(begin, "begin")
        size = convert_to_tensor(size, dtype=begin.dtype.base_dtype, name="size")
        return _apply("Slice", graph, scope, [input_, begin, size],
                      {"T": input_.dtype.base_dtype, "Index": begin.dtype.base_dtype})._outputs[0]


def _infer_tile(op):
    tensor, multiples = op._inputs
    dtype = tensor.dtype.base_dtype
    value = ops.constant_value(multiples)
    if tensor.shape.ndims is None:
        return [(dtype, TensorShape(None) if value is None else TensorShape([None] * len(value)))]
    dims = tensor.shape.as_list()
    if value is None:
        return [(dtype, TensorShape([None] * len(dims)))]
    return [(dtype, TensorShape([None if d is None else d * int(m) for d, m in zip(dims, value)]))]


kernels.register("Tile", infer=_infer_tile,
                 compute=lambda ctx, op, inputs: np.tile(inputs[0], [int(m) for m in inputs[1]]))


def tile(input, multiples, name: str | None = None) -> Tensor:
    """``input`` repeated ``multiples[i]`` times along each axis (``Tile``)."""
    graph = graph_lib._graph_of([input, multiples])
    with graph.as_default(), graph.name_scope(name or "Tile") as scope:
        input = convert_to_tensor(input, name="input")
        multiples = _int_tensor(multiples, "multiples")
        return _apply("Tile", graph, scope, [input, multiples],
                      {"T": input.dtype.base_dtype, "Tmultiples": multiples.dtype.base_dtype})._outputs[0]


# ----------------------------------------------------------------- Split
def _infer_split(op):
    axis_tensor, value = op._inputs
    num = op._attrs["num_split"]
    dtype = value.dtype.base_dtype
    axis = ops.constant_value(axis_tensor)
    if value.shape.ndims is None:
        return [(dtype, TensorShape(None))] * num
    dims = value.shape.as_list()
    if axis is None:
        return [(dtype, TensorShape([None] * len(dims)))] * num
    axis = int(axis) % len(dims)
    if dims[axis] is not None:
        if dims[axis] % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is {dims[axis]} for "
                             f"'{op.name}' (Split).")
        dims[axis] //= num
    return [(dtype, TensorShape(dims))] * num


def _compute_split(ctx, op, inputs):
    axis, value = inputs
    value = np.asarray(value)
    num = op._attrs["num_split"]
    axis = int(axis) % value.ndim
    if value.shape[axis] % num:
        raise errors.InvalidArgumentError(
            None, op, f"Number of ways to split should evenly divide the split dimension, but got split_dim {axis} "
            f"(size = {value.shape[axis]}) and num_split {num}")
    return list(np.split(value, num, axis=axis))


def _infer_split_v(op):
    value, sizes_tensor, axis_tensor = op._inputs
    num = op._attrs["num_split"]
    dtype = value.dtype.base_dtype
    sizes, axis = ops.constant_value(sizes_tensor), ops.constant_value(axis_tensor)
    if value.shape.ndims is None:
        return [(dtype, TensorShape(None))] * num
    dims = value.shape.as_list()
    if axis is None or sizes is None:
        return [(dtype, TensorShape([None] * len(dims)))] * num
    axis = int(axis) % len(dims)
    sizes = [int(s) for s in sizes]
    if -1 in sizes and dims[axis] is not None:
        sizes[sizes.index(-1)] = dims[axis] - sum(s for s in sizes if s != -1)
    out = []
    for s in sizes:
        piece = list(dims)
        piece[axis] = None if s == -1 else s
        out.append((dtype, TensorShape(piece)))
    return out


def _compute_split_v(ctx, op, inputs):
    value, sizes, axis = inputs
    value = np.asarray(value)
    axis = int(axis) % value.ndim
    sizes = [int(s) for s in sizes]
    if -1 in sizes:
        sizes[sizes.index(-1)] = value.shape[axis] - sum(s for s in sizes if s != -1)
    if sum(sizes) != value.shape[axis]:
        raise errors.InvalidArgumentError(None, op, f"Determined shape must either match input shape along "
                                                    f"split_dim exactly if fully specified, or be less than the size "
                                                    f"of the input along split_dim if not fully specified.  Got: "
                                                    f"{sum(sizes)}")
    return list(np.split(value, np.cumsum(sizes)[:-1], axis=axis))


kernels.register("Split", infer=_infer_split, compute=_compute_split)
kernels.register("SplitV", infer=_infer_split_v, compute=_compute_split_v)


def split(value, num_or_size_splits, axis=0, num=None, name: str = "split") -> list:
    """Splits ``value`` along ``axis`` into equal parts (``Split``) or given sizes (``SplitV``)."""
    graph = graph_lib._graph_of([value])
    with graph.as_default(), graph.name_scope(name or "split") as scope:
        if isinstance(num_or_size_splits, (int, np.integer)):
            axis = _int_tensor(axis, "split_dim")
            value = convert_to_tensor(value, name="value")
            return _apply("Split", graph, scope, [axis, value],
                          {"num_split": int(num_or_size_splits), "T": value.dtype.base_dtype}).outputs
        value = convert_to_tensor(value, name="value")
        sizes = _int_tensor(num_or_size_splits, "size_splits")
        axis = _int_tensor(axis, "split_dim")
        if num is None:
            num = sizes.shape[0].value if sizes.shape.ndims == 1 else None
            if num is None:
                raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
        return _apply("SplitV", graph, scope, [value, sizes, axis],
                      {"num_split": int(num), "T": value.dtype.base_dtype,
                       "Tlen": sizes.dtype.base_dtype}).outputs


# ----------------------------------------------------------------- OneHot, Where, Select
def _infer_one_hot(op):
    indices, depth_tensor, on_value, _ = op._inputs
    depth = ops.constant_value(depth_tensor)
    dtype = on_value.dtype.base_dtype
    if indices.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    dims = indices.shape.as_list()
    axis = op._attrs["axis"]
    dims.insert(len(dims) if axis == -1 else axis, None if depth is None else int(depth))
    return [(dtype, TensorShape(dims))]


def _compute_one_hot(ctx, op, inputs):
    indices, depth, on_value, off_value = inputs
    indices = np.asarray(indices)
    depth = int(depth)
    hot = indices[..., None] == np.arange(depth)
    result = np.where(hot, on_value, off_value).astype(op._outputs[0]._dtype.numpy_dtype)
    axis = op._attrs["axis"]
    if axis != -1:
        result = np.moveaxis(result, -1, axis)
    return result


kernels.register("OneHot", infer=_infer_one_hot, compute=_compute_one_hot, default_attrs={"axis": -1})


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name: str | None = None) -> Tensor:
    """One-hot encoding of ``indices`` with ``depth`` classes (``OneHot``), in scope ``one_hot``."""
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        dtype = dtypes_lib.as_dtype(dtype or (on_value.dtype if isinstance(on_value, Tensor) else dtypes_lib.float32))
        on_value = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype, name="on_value")
        off_value = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype, name="off_value")
        graph = on_value.graph
        with graph.name_scope(scope):
            indices = _int_tensor(indices, "indices")
            depth = convert_to_tensor(depth, dtype=dtypes_lib.int32, name="depth")
        return _apply("OneHot", graph, scope, [indices, depth, on_value, off_value],
                      {"T": dtype, "TI": indices.dtype.base_dtype,
                       "axis": -1 if axis is None else int(axis)})._outputs[0]


def _infer_where(op):
    condition = op._inputs[0]
    rank = condition.shape.ndims
    return [(dtypes_lib.int64, TensorShape([None, rank]))]


kernels.register("Where", infer=_infer_where,
                 compute=lambda ctx, op, inputs: np.argwhere(np.asarray(inputs[0])).astype(np.int64))


def _infer_select(op):
    _, x, y = op._inputs
    return [(x.dtype.base_dtype, x.shape.merge_with(y.shape))]


def _compute_select(ctx, op, inputs):
    condition, x, y = (np.asarray(v) for v in inputs)
    if condition.ndim == 1 and x.ndim > 1:
        condition = condition.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(condition, x, y).astype(op._outputs[0]._dtype.numpy_dtype, copy=False)


def _infer_select_v2(op):
    from graph.ops.math_ops import broadcast_static_shape
    condition, x, y = op._inputs
    shape = broadcast_static_shape(broadcast_static_shape(condition.shape, x.shape), y.shape)
    return [(x.dtype.base_dtype, shape)]


kernels.register("Select", infer=_infer_select, compute=_compute_select)
kernels.register("SelectV2", infer=_infer_select_v2,
                 compute=lambda ctx, op, inputs: np.where(*inputs).astype(op._outputs[0]._dtype.numpy_dtype,
                                                                           copy=False))


def where(condition, x=None, y=None, name: str | None = None) -> Tensor:
    """TF1 ``tf.where``: coordinates of true elements (``Where``), or elementwise choice (``Select``)."""
    if x is None and y is None:
        graph = graph_lib._graph_of([condition])
        with graph.as_default(), graph.name_scope(name or "Where") as scope:
            condition = convert_to_tensor(condition, name="input", preferred_dtype=dtypes_lib.bool)
            return _apply("Where", graph, scope, [condition], {"T": condition.dtype.base_dtype})._outputs[0]
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    graph = graph_lib._graph_of([condition, x, y])
    with graph.as_default(), graph.name_scope(name or "Select") as scope:
        condition = convert_to_tensor(condition, name="condition")
        x = convert_to_tensor(x, name="t")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="e")
        return _apply("Select", graph, scope, [condition, x, y], {"T": x.dtype.base_dtype})._outputs[0]


# ----------------------------------------------------------------- StridedSlice (Tensor.__getitem__)
def _slice_spec(begin, end, strides, masks):
    """A StridedSlice spec as numpy index items: Ellipsis, None (new axis), int (shrink) or slice."""
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks
    items = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            items.append(Ellipsis)
        elif new_axis_mask & bit:
            items.append(None)
        elif shrink_mask & bit:
            items.append(int(b))
        else:
            items.append(_py_slice(None if begin_mask & bit else int(b), None if end_mask & bit else int(e), int(s)))
    return items


def _masks(op):
    attrs = op._attrs
    return (attrs["begin_mask"], attrs["end_mask"], attrs["ellipsis_mask"], attrs["new_axis_mask"],
            attrs["shrink_axis_mask"])


def _infer_strided_slice(op):
    tensor, begin_t, end_t, strides_t = op._inputs
    dtype = tensor.dtype.base_dtype
    values = [ops.constant_value(t) for t in (begin_t, end_t, strides_t)]
    if tensor.shape.ndims is None or any(v is None for v in values):
        return [(dtype, TensorShape(None))]
    items = _slice_spec(*(np.asarray(v).tolist() for v in values), _masks(op))
    if Ellipsis not in items:
        items.append(Ellipsis)
    dims = tensor.shape.as_list()
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    out = []
    axis = 0
    for item in items:
        if item is Ellipsis:
            count = len(dims) - consumed
            out.extend(dims[axis:axis + count])
            axis += count
        elif item is None:
            out.append(1)
        elif isinstance(item, int):
            if dims[axis] is not None and not -dims[axis] <= item < dims[axis]:
                raise ValueError(f"slice index {item} of dimension {axis} out of bounds. for '{op.name}' "
                                 "(StridedSlice).")
            axis += 1
        else:
            out.append(None if dims[axis] is None else len(range(*item.indices(dims[axis]))))
            axis += 1
    return [(dtype, TensorShape(out))]


def _compute_strided_slice(ctx, op, inputs):
    tensor, begin, end, strides = (np.asarray(v) for v in inputs)
    items = _slice_spec(begin.tolist(), end.tolist(), strides.tolist(), _masks(op))
    try:
        result = tensor[tuple(items)]
    except IndexError as error:
        raise errors.InvalidArgumentError(None, op, f"slice index out of bounds: {error}") from None
    return np.asarray(result)


kernels.register("StridedSlice", infer=_infer_strided_slice, compute=_compute_strided_slice,
                 default_attrs={"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
                                "shrink_axis_mask": 0})


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name: str | None = None) -> Tensor:
    """The ``StridedSlice`` op (numpy basic indexing with TF's masks)."""
    graph = graph_lib._graph_of([input_])
    with graph.as_default(), graph.name_scope(name or "StridedSlice") as scope:
        input_ = convert_to_tensor(input_, name="input")
        begin = _int_tensor(begin, "begin")
        end = convert_to_tensor(end, dtype=begin.dtype.base_dtype, name="end")
        if strides is None:
            strides = [1] * (begin.shape[0].value or 0)
        strides = convert_to_tensor(strides, dtype=begin.dtype.base_dtype, name="strides")
        attrs = {"T": input_.dtype.base_dtype, "Index": begin.dtype.base_dtype, "begin_mask": begin_mask,
                 "end_mask": end_mask, "ellipsis_mask": ellipsis_mask, "new_axis_mask": new_axis_mask,
                 "shrink_axis_mask": shrink_axis_mask}
        return _apply("StridedSlice", graph, scope, [input_, begin, end, strides], attrs)._outputs[0]


def _slice_helper(tensor, slice_spec):
    """Tensor.__getitem__: basic indexing (ints, slices, Ellipsis, None, scalar int tensors) via StridedSlice."""
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, item in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(item, _py_slice):
            for part in (item.start, item.stop, item.step):
                if part is not None and not isinstance(part, (int, np.integer, Tensor)):
                    raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                                    f"tf.int32/tf.int64 tensors are valid indices, got {item!r}")
            begin.append(0 if item.start is None else item.start)
            end.append(0 if item.stop is None else item.stop)
            strides.append(1 if item.step is None else item.step)
            if item.start is None:
                begin_mask |= bit
            if item.stop is None:
                end_mask |= bit
        elif item is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            ellipsis_mask |= bit
        elif item is None:
            begin.append(0), end.append(0), strides.append(1)
            new_axis_mask |= bit
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            begin.append(int(item)), end.append(int(item) + 1), strides.append(1)
            shrink_axis_mask |= bit
        elif isinstance(item, Tensor) and item.dtype.is_integer and item.shape.ndims in (0, None):
            from graph.ops import math_ops
            begin.append(item), end.append(math_ops.add(item, 1)), strides.append(1)
            shrink_axis_mask |= bit
        else:
            raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                            f"tf.int32/tf.int64 tensors are valid indices, got {item!r}")
    with name_scope(None, "strided_slice", [tensor]) as scope:
        if begin:
            packed = [_pack_indices(part) for part in (begin, end, strides)]
        else:
            packed = [ops.constant(np.zeros([0], np.int32), name="stack") for _ in range(3)]
        return strided_slice(tensor, packed[0], packed[1], packed[2], begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask, name=scope)


def _pack_indices(values):
    if any(isinstance(v, Tensor) for v in values):
        return stack([v if isinstance(v, Tensor) else ops.constant(v, dtype=dtypes_lib.int32) for v in values])
    return ops.constant(np.array(values, dtype=np.int32), name="stack")


# ----------------------------------------------------------------- auto-packing, boolean_mask
def _contains_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(item) for item in value)
    return False


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    """Lists/tuples holding Tensors become a ``Pack`` named ``packed`` (TF's autopacking conversion)."""
    if not _contains_tensor(value):
        return NotImplemented
    inferred = dtype
    if inferred is None:
        for item in _flatten(value):
            if isinstance(item, Tensor):
                inferred = item.dtype.base_dtype
                break
    with name_scope(name or "packed") as scope:
        items = []
        for index, item in enumerate(value):
            if _contains_tensor(item):
                items.append(_autopacking_conversion(item, inferred, str(index)) if isinstance(item, (list, tuple))
                             else convert_to_tensor(item, dtype=inferred))
            else:
                items.append(ops.constant(item, dtype=inferred, name=str(index)))
        return items[0].graph.create_op("Pack", items, name=scope,
                                        attrs={"N": len(items), "T": items[0].dtype.base_dtype, "axis": 0})._outputs[0]


graph_lib.register_tensor_conversion_function((list, tuple), _autopacking_conversion, 99)


def boolean_mask(tensor, mask, name: str = "boolean_mask", axis=None) -> Tensor:
    """The elements of ``tensor`` where ``mask`` is true, built as TF builds it (Prod, Reshape, Where, Squeeze,
    GatherV2)."""
    from graph.ops import math_ops
    with name_scope(name, None, [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  E.g. "
                             "shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else int(axis)
        shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        graph = tensor.graph
        dims = shape(tensor)[axis:axis + ndims_mask]
        with graph.name_scope("Prod") as scope:
            indices = convert_to_tensor([0], name="reduction_indices")
            leading_size = graph.create_op("Prod", [dims, indices], name=scope,
                                           attrs={"keep_dims": False, "T": dims.dtype.base_dtype,
                                                  "Tidx": dtypes_lib.int32})._outputs[0]
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size], shape(tensor)[axis + ndims_mask:]], 0))
        first_dim = shape_tensor[axis:axis + ndims_mask].num_elements()
        if shape_tensor.ndims is not None:
            tensor.set_shape(as_shape(shape_tensor[:axis]).concatenate([first_dim]).concatenate(
                shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        graph_where = ops._scoped_op(graph, "Where", [mask], name="Where", attrs={"T": mask.dtype.base_dtype})._outputs[0]
        indices = squeeze(graph_where, axis=[1])
        del math_ops
        return gather(tensor, indices, axis=axis)
