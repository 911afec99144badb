"""SparseTensor: a tensor given by the coordinates and values of its non-default entries (TF's tf.SparseTensor).

``SparseTensor(indices, values, dense_shape)`` holds three tensors: int64 ``indices`` [N, rank],
``values`` [N] and int64 ``dense_shape`` [rank].  A Session returns a fetched SparseTensor as a
``SparseTensorValue`` of three arrays and accepts one (or a 3-tuple) as the feed of a SparseTensor.
"""

from __future__ import annotations

import collections

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape
from graph.core.graph import name_scope
from graph.core.tensor import Tensor, convert_to_tensor

__all__ = ["SparseTensor", "SparseTensorValue"]

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "A value representation of SparseTensor (what Session.run returns for one)."


class SparseTensor:
    """A sparse tensor: ``values[i]`` at coordinates ``indices[i]`` of a tensor of shape ``dense_shape``."""

    _is_tensor_like = True  # tf.is_tensor accepts it, as TF's

    __slots__ = ("_indices", "_values", "_dense_shape", "_dense_shape_default")

    def __init__(self, indices, values, dense_shape):
        """Creates the SparseTensor (each argument a tensor or a value convertible to one).

        Raises:
            ValueError: if the components' static shapes disagree (indices [N, rank], values [N], shape [rank]).
        """
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            self._indices = convert_to_tensor(indices, name="indices", dtype=dtypes_lib.int64)
            self._values = convert_to_tensor(values, name="values")
            self._dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes_lib.int64)
        self._indices.shape.with_rank(2)
        self._values.shape.with_rank(1)
        self._dense_shape.shape.with_rank(1)
        self._indices.shape[:1].assert_is_compatible_with(self._values.shape[:1])
        self._indices.shape[1:].assert_is_compatible_with(self._dense_shape.shape)
        self._dense_shape_default = self._shape_from_components()

    @classmethod
    def from_value(cls, sparse_tensor_value) -> SparseTensor:
        """A SparseTensor of the components of a SparseTensorValue (or of another SparseTensor).

        Raises:
            TypeError: for anything else (TensorFlow's wording).
        """
        if not isinstance(sparse_tensor_value, (SparseTensor, SparseTensorValue)):
            raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} "
                            "is neither a SparseTensor nor SparseTensorValue.")
        return SparseTensor(indices=sparse_tensor_value.indices, values=sparse_tensor_value.values,
                            dense_shape=sparse_tensor_value.dense_shape)

    @property
    def indices(self) -> Tensor:
        """int64 [N, rank]: the coordinates of the values."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """[N]: the values at those coordinates."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """int64 [rank]: the shape of the dense tensor this stands for."""
        return self._dense_shape

    @property
    def dtype(self):
        """The DType of the values."""
        return self._values.dtype

    @property
    def op(self):
        """The Operation that produces ``values``."""
        return self._values.op

    @property
    def graph(self):
        """The Graph holding the components."""
        return self._indices.graph

    @property
    def shape(self) -> TensorShape:
        """The static dense shape, as far as ``dense_shape`` is known at build time."""
        return self.get_shape()

    def get_shape(self) -> TensorShape:
        """The static dense shape (a Const ``dense_shape`` gives it whole, else its rank, or set_shape's)."""
        return self._dense_shape_default

    def set_shape(self, shape) -> None:
        """Refines the static dense shape with ``shape``.

        Raises:
            ValueError: if ``shape`` is incompatible with the current static shape.
        """
        self._dense_shape_default = self._dense_shape_default.merge_with(shape)

    def _shape_from_components(self) -> TensorShape:
        op = self._dense_shape.op
        if op.type == "Const":
            return TensorShape([None if d < 0 else int(d) for d in op.get_attr("value").reshape(-1)])
        length = self._dense_shape.shape[0].value if self._dense_shape.shape.ndims == 1 else None
        return TensorShape(None if length is None else [None] * length)

    def __str__(self) -> str:
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"

    __repr__ = __str__
