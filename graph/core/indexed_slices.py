"""IndexedSlices: a sparse set of rows of a dense tensor, the gradient form of ``tf.gather``.

``IndexedSlices(values, indices, dense_shape)`` stands for the dense tensor of shape
``dense_shape`` whose rows ``indices[i]`` are ``values[i]`` (rows named twice add up) and
whose other rows are zero.  Its conversion to a dense Tensor (an ``UnsortedSegmentSum``,
as TensorFlow builds it) is registered by ``graph.ops.math_grad_ops``, the op family that
owns that kernel; this layer only holds the value.  ``IndexedSlicesValue`` is what a
Session returns when an IndexedSlices is fetched.
"""

from __future__ import annotations

import collections

from graph.base.shapes import TensorShape
from graph.core.tensor import Tensor, convert_to_tensor

__all__ = ["IndexedSlices", "IndexedSlicesValue", "convert_to_tensor_or_indexed_slices",
           "convert_n_to_tensor_or_indexed_slices"]


class IndexedSlices:
    """A sparse representation of a set of tensor slices at given indices (TensorFlow's tf.IndexedSlices)."""

    _is_tensor_like = True  # tf.is_tensor accepts it, as TF's

    __slots__ = ("_values", "_indices", "_dense_shape")

    def __init__(self, values: Tensor, indices: Tensor, dense_shape: Tensor | None = None):
        """Creates an IndexedSlices of ``values`` at rows ``indices`` of a tensor of shape ``dense_shape``."""
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Tensor:
        """A Tensor of any dtype with shape ``[D0, D1, ..., Dn]``: the slices."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """A 1-D integer Tensor with shape ``[D0]``: the row of each slice."""
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        """A 1-D Tensor containing the shape of the corresponding dense tensor (or None)."""
        return self._dense_shape

    @property
    def shape(self) -> TensorShape:
        """The static shape of the dense tensor, as far as ``dense_shape`` is known at build time."""
        dense_shape = self._dense_shape
        if dense_shape is None:
            return TensorShape(None)
        # The common producers, read here: the general constant folder lives in the op layer above.
        if dense_shape.op.type == "Const":
            return TensorShape([None if d < 0 else int(d) for d in dense_shape.op.get_attr("value").reshape(-1)])
        if dense_shape.op.type == "Shape":
            return dense_shape.op.inputs[0].shape
        length = dense_shape.shape[0].value if dense_shape.shape.ndims == 1 else None
        return TensorShape(None if length is None else [None] * length)

    @property
    def name(self) -> str:
        """The name of the ``values`` tensor."""
        return self._values.name

    @property
    def device(self) -> str:
        """The device of the ``values`` tensor."""
        return self._values.device

    @property
    def op(self):
        """The Operation that produces ``values``."""
        return self._values.op

    @property
    def dtype(self):
        """The DType of the elements."""
        return self._values.dtype

    @property
    def graph(self):
        """The Graph that contains the values, indices, and shape tensors."""
        return self._values.graph

    def consumers(self) -> list:
        """The ops that consume any of values, indices or dense_shape."""
        tensors = [self._values, self._indices] + ([self._dense_shape] if self._dense_shape is not None else [])
        seen, result = set(), []
        for tensor in tensors:
            for op in tensor.consumers():
                if id(op) not in seen:
                    seen.add(id(op))
                    result.append(op)
        return result

    def __str__(self) -> str:
        shape = f", dense_shape={self._dense_shape}" if self._dense_shape is not None else ""
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

    __repr__ = __str__

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "A value representation of IndexedSlices (what Session.run returns for one)."


def convert_to_tensor_or_indexed_slices(value, dtype=None, name: str | None = None):
    """``value`` itself if it is an IndexedSlices (checking ``dtype``), else ``convert_to_tensor(value)``.

    Raises:
        ValueError: if ``dtype`` is given and differs from an IndexedSlices' dtype.
    """
    if isinstance(value, IndexedSlices):
        if dtype is not None and not value.dtype.is_compatible_with(dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for IndexedSlices with dtype "
                             f"{value.dtype.name}: {value}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def convert_n_to_tensor_or_indexed_slices(values, dtype=None, name: str | None = None) -> list:
    """Each of ``values`` through `convert_to_tensor_or_indexed_slices` (None stays None); names get ``_i``."""
    result = []
    for index, value in enumerate(values):
        if value is None:
            result.append(None)
        else:
            result.append(convert_to_tensor_or_indexed_slices(
                value, dtype=dtype, name=None if name is None else f"{name}_{index}"))
    return result
