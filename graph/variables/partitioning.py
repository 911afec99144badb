"""Partitioned variables: partitioners, slice arithmetic and PartitionedVariable.

A partitioner maps ``(shape, dtype)`` to a list with one count per axis (at most one
count above 1).  ``get_variable(..., partitioner=p)`` then creates one Variable per
slice, named ``<name>/part_<i>``, each remembering its place in the full variable::

    _save_slice_info: full_name 'w', full_shape [7, 2], var_offset [3, 0], var_shape [2, 2]
    spec:             '7 2 3,2:0,2'   (full shape, then offset,length per axis)

Slices along the split axis are as equal as possible, the first ``size % n`` one
element longer (TensorFlow's ``_iter_slices``).  A ``PartitionedVariable`` iterates
over its parts in offset order and converts to a tensor by concatenating them.
"""

from __future__ import annotations

import collections.abc
import math
from collections.abc import Callable, Iterator

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape, as_shape, dimension_value
from graph.core import graph as graph_lib
from graph.ops import array_concat_ops
from graph.ops import constant_ops
from graph.ops import embedding_ops

__all__ = [
    "PartitionedVariable", "fixed_size_partitioner", "variable_axis_size_partitioner",
    "min_max_variable_partitioner",
]


class _PartitionInfo:
    """What an initializer learns about the slice it fills: the full shape and the slice's offset."""

    __slots__ = ("_full_shape", "_var_offset")

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError("`full_shape` must be a sequence (like tuple or list) instead of "
                            + type(full_shape).__name__)
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError("`var_offset` must be a sequence (like tuple or list) instead of "
                            + type(var_offset).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                             f"full_shape is of length {len(full_shape)}.")
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, shape={size} for "
                                 f"var_offset={var_offset}, full_shape={full_shape}")
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self):
        """The shape of the whole variable."""
        return self._full_shape

    @property
    def var_offset(self):
        """The slice's offset in the whole variable."""
        return self._var_offset

    def single_offset(self, shape) -> int:
        """The offset along the one sliced axis (0 if the slice is the whole variable)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape):
        """The one axis along which ``shape`` is smaller than the full shape, or None.

        Raises:
            ValueError: if the slice would exceed the full shape or differs along two axes.
        """
        if not isinstance(shape, (tuple, list)):
            raise TypeError("`shape` must be a sequence (like tuple or list) instead of " + type(shape).__name__)
        if len(shape) != len(self.full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length {len(shape)} while "
                             f"self.full_shape={self.full_shape} is of length {len(self.full_shape)}.")
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(f"With self.var_offset={self.var_offset}, a partition of shape={shape} would "
                                 f"exceed self.full_shape={self.full_shape} in dimension {i}.")
        slice_dim = None
        for i in range(len(shape)):
            if shape[i] == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and self.full_shape="
                                 f"{self.full_shape} since slice dim could be either dimension {i} or {slice_dim}.")
            slice_dim = i
        return slice_dim


def _call_partitioner(partitioner: Callable, shape: TensorShape, dtype) -> list[int]:
    """Runs ``partitioner`` and checks its answer (TensorFlow's messages).

    Raises:
        ValueError: for a partially known or scalar shape, or a bad partition list.
    """
    if not shape.is_fully_defined():
        raise ValueError(f"Shape of a new partitioned variable must be fully defined, but instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, collections.abc.Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(f"Partitioner returned a partition list that does not match the Variable's rank: "
                         f"{slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, partitioning: {slicing}")
    return slicing


def _get_slice_dim_and_num_slices(slicing) -> tuple[int, int]:
    """The axis with more than one partition and its count, or (0, 1)."""
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def _iter_slices(full_shape: list[int], num_slices: int, slice_dim: int) -> Iterator[tuple[list[int], list[int]]]:
    """(offset, shape) of each slice; the first ``size % num_slices`` slices get one extra element."""
    num_slices_with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_slice_len + bool(i < num_slices_with_excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


# ----------------------------------------------------------------- partitioners
def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Callable:
    """A partitioner giving ``num_shards`` parts along ``axis`` (fewer if the axis is shorter)."""
    def _partitioner(shape, **unused_args):
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, shape.dims[axis].value)
        return partitions_list
    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0, bytes_per_string_element: int = 16,
                                   max_shards: int | None = None) -> Callable:
    """A partitioner keeping each shard under ``max_shard_bytes`` (at least one slice of ``axis`` per shard).

    Raises:
        ValueError: for non-positive sizes or ``max_shards``.
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive. "
                         f"Currently, max_shard_bytes is {max_shard_bytes} and"
                         f"bytes_per_string_element is {bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        dtype = dtypes_lib.as_dtype(dtype)
        element_size = bytes_per_string_element if dtype.base_dtype == dtypes_lib.string else dtype.size
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions
    return _partitioner


def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0, min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16) -> Callable:
    """A partitioner making shards of at least ``min_slice_size`` bytes, at most ``max_partitions`` of them."""
    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is only {shape}")
        dtype = dtypes_lib.as_dtype(dtype)
        bytes_per_element = bytes_per_string_element if dtype.base_dtype == dtypes_lib.string else dtype.size
        total_size_bytes = shape.num_elements() * bytes_per_element
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(1, min(shape.dims[axis].value, max_partitions, int(math.ceil(partitions))))
        return partitions_list
    return _partitioner


# ----------------------------------------------------------------- PartitionedVariable
class PartitionedVariable:
    """A variable stored as several Variables (parts), each with its `_save_slice_info`."""

    def __init__(self, name: str, shape, dtype, variable_list, partitions):
        """Wraps ``variable_list`` (sorted by offset) as the variable ``name`` of ``shape``.

        Raises:
            TypeError: if ``variable_list`` or ``partitions`` is not a list or tuple.
            ValueError: if the parts lack slice info or disagree with ``shape``.
        """
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        for v in variable_list:
            if not all(v._get_save_slice_info() is not None for v in variable_list):
                raise ValueError(f"All variables must have a save_slice_info available: "
                                 f"{[v.name for v in variable_list]}")
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if v._get_save_slice_info().full_shape != shape:
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but full shapes were: "
                                 f"{[v._get_save_slice_info().full_shape]}")
        self._variable_list = sorted(variable_list, key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtype
        self._partitions = partitions
        self._as_tensor = None

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self) -> int:
        num_partition_axes = len(self._partition_axes())
        if num_partition_axes > 1:
            raise ValueError(f"Cannot get a length for {num_partition_axes} > 1 partition axes")
        return len(self._variable_list)

    def __repr__(self) -> str:
        return (f"<PartitionedVariable '{self._name}' shape={as_shape(self._shape)} dtype={self._dtype.name} "
                f"parts={len(self._variable_list)}>")

    def _partition_axes(self) -> list[int]:
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        if len(self._variable_list) == 1:
            with graph_lib.name_scope(None):
                return constant_ops.identity(self._variable_list[0], name=self._name)
        partition_axes = self._partition_axes()
        if len(partition_axes) > 1:
            raise NotImplementedError(f"Cannot concatenate along more than one dimension: {partition_axes}.  "
                                      "Multi-axis partition concat is not supported")
        with graph_lib.name_scope(self._name + "/ConcatPartitions/"):
            concatenated = array_concat_ops.concat(self._variable_list, partition_axes[0])
        with graph_lib.name_scope(None):
            return constant_ops.identity(concatenated, name=self._name)

    def as_tensor(self):
        """The parts concatenated: ``<name>/ConcatPartitions/concat`` then an Identity named ``<name>``."""
        with graph_lib.control_dependencies(None):
            return self._concat()

    @property
    def name(self) -> str:
        """The full variable's name (no ':0')."""
        return self._name

    @property
    def dtype(self):
        """The parts' base dtype."""
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        """The full variable's shape."""
        return self.get_shape()

    def get_shape(self) -> TensorShape:
        """The full variable's shape (TF1 spelling)."""
        return self._shape

    @property
    def graph(self):
        """The Graph holding the parts."""
        return self._variable_list[0].graph

    def _get_variable_list(self) -> list:
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn: Callable, value) -> list:
        partition_axes = self._partition_axes()
        if len(partition_axes) > 1:
            raise NotImplementedError(f"Cannot do assign action along more than one dimension: {partition_axes}.  "
                                      "Multi-axis partition assign action is not supported ")
        if isinstance(value, list):
            assert len(value) == len(self._variable_list)
            value_list = value
        elif isinstance(value, PartitionedVariable):
            value_list = list(value)
        else:
            axis = partition_axes[0]
            sizes = [dimension_value(v.shape[axis]) for v in self._variable_list]
            value_list = array_concat_ops.split(value, sizes, axis=axis)
        return [assign_fn(v, value_list[i]) for i, v in enumerate(self._variable_list)]

    def assign(self, value, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> list:
        """Assigns each part its slice of ``value`` (split along the partition axis)."""
        return self._apply_assign_fn(
            lambda v, part: v.assign(part, use_locking=use_locking, name=name, read_value=read_value), value)

    def assign_add(self, value, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> list:
        """Adds each part's slice of ``value``."""
        return self._apply_assign_fn(
            lambda v, part: v.assign_add(part, use_locking=use_locking, name=name, read_value=read_value), value)

    def assign_sub(self, value, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> list:
        """Subtracts each part's slice of ``value``."""
        return self._apply_assign_fn(
            lambda v, part: v.assign_sub(part, use_locking=use_locking, name=name, read_value=read_value), value)


def _partitioned_conversion(value: PartitionedVariable, dtype=None, name=None, as_ref: bool = False):
    """convert_to_tensor for PartitionedVariable: the concatenation of its parts."""
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for variable of type "
                         f"'{value.dtype.name}'")
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
    return value.as_tensor()


graph_lib.register_tensor_conversion_function(PartitionedVariable, _partitioned_conversion)
embedding_ops.register_partitioned_type(PartitionedVariable)  # lookups and sampled losses take its parts
