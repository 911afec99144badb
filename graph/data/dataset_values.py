"""What a dataset op computes in a Session: a `DatasetValue`, whose ``iterate()`` yields elements in TF's order.

A dataset tensor (dtype variant) holds one of these; an element is a tuple of numpy arrays, one per flat
component.  Each ``iterate(ctx)`` call starts a fresh pass, as each MakeIterator of a TF dataset does.
Errors name the dataset op (``self.op``), raised as the OpErrors TF's kernels raise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from graph import errors
from graph.data import function as function_lib

__all__ = ["DatasetValue", "SliceValue", "ElementsValue", "RangeValue", "ZipValue", "ConcatenateValue",
           "MapValue", "FilterValue", "BatchValue", "PaddedBatchValue", "RepeatValue",
           "TakeValue", "SkipValue", "FlatMapValue", "InterleaveValue", "CacheValue", "UnbatchValue",
           "max_parallelism", "INFINITE"]

INFINITE = -1  # tf.data.experimental.INFINITE_CARDINALITY and Repeat's "forever" count


def max_parallelism() -> int:
    """The CPUs this process may run on (TF's port::MaxParallelism, AUTOTUNE's cycle length)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class DatasetValue:
    """A dataset in a Session: the op that made it and a way to iterate over its elements."""

    def __init__(self, op):
        self.op = op

    def iterate(self, ctx) -> Iterator[tuple]:
        """A fresh pass over the elements (tuples of numpy arrays)."""
        raise NotImplementedError(type(self).__name__)


class SliceValue(DatasetValue):
    """TensorSliceDataset: row i of every component."""

    def __init__(self, op, components: list):
        super().__init__(op)
        self.components = [np.asarray(c) for c in components]
        for c in self.components:
            if c.ndim == 0:
                raise errors.InvalidArgumentError(None, op, "All components must be at least 1-dimensional")
        sizes = {c.shape[0] for c in self.components}
        if len(sizes) > 1:
            first = self.components[0].shape[0]
            other = next(c.shape[0] for c in self.components if c.shape[0] != first)
            raise errors.InvalidArgumentError(None, op, f"All components must have the same size in the 0th "
                                              f"dimension, but component 0 has size {first} and another "
                                              f"component has size {other}")

    def iterate(self, ctx):
        count = self.components[0].shape[0] if self.components else 0
        for index in range(count):
            yield tuple(c[index, ...] for c in self.components)


class ElementsValue(DatasetValue):
    """TensorDataset (one element), and any dataset given as a fixed list of elements."""

    def __init__(self, op, elements: list):
        super().__init__(op)
        self.elements = elements

    def iterate(self, ctx):
        yield from self.elements


class RangeValue(DatasetValue):
    """RangeDataset: start, start + step, ... before stop."""

    def __init__(self, op, start: int, stop: int, step: int, dtype):
        super().__init__(op)
        if step == 0:
            raise errors.InvalidArgumentError(None, op, "step must be a non-zero integer.")
        self.range = range(start, stop, step)
        self.dtype = dtype

    def iterate(self, ctx):
        dtype = self.dtype
        for value in self.range:
            yield (np.asarray(value, dtype),)


class ZipValue(DatasetValue):
    """ZipDataset: one element of each input, until the shortest ends."""

    def __init__(self, op, inputs: list):
        super().__init__(op)
        self.inputs = inputs

    def iterate(self, ctx):
        iterators = [d.iterate(ctx) for d in self.inputs]
        while True:
            element = []
            for iterator in iterators:
                try:
                    element.extend(next(iterator))
                except StopIteration:
                    return
            yield tuple(element)


class ConcatenateValue(DatasetValue):
    """ConcatenateDataset: the first input's elements, then the second's."""

    def __init__(self, op, first: DatasetValue, second: DatasetValue):
        super().__init__(op)
        self.first, self.second = first, second

    def iterate(self, ctx):
        yield from self.first.iterate(ctx)
        yield from self.second.iterate(ctx)


def _cast_outputs(op, values: list, dtypes: list) -> tuple:
    out = []
    for index, (value, dtype) in enumerate(zip(values, dtypes)):
        array = np.asarray(value)
        if dtype.numpy_dtype is not None and array.dtype != dtype.numpy_dtype and dtype.name != "string":
            raise errors.InvalidArgumentError(None, op, f"'{op.name}': function output {index} has dtype "
                                              f"{array.dtype}, expected {dtype.name}")
        out.append(array)
    return tuple(out)


class MapValue(DatasetValue):
    """MapDataset: the traced function applied to each element."""

    def __init__(self, op, input_value: DatasetValue, captured: list):
        super().__init__(op)
        self.input = input_value
        self.function = function_lib.function_of(op)
        self.captured = captured
        self.dtypes = op._attrs["output_types"]

    def iterate(self, ctx):
        for element in self.input.iterate(ctx):
            yield _cast_outputs(self.op, function_lib.call(ctx, self.function, element, self.captured), self.dtypes)


class FilterValue(DatasetValue):
    """FilterDataset: the elements for which the traced predicate is True."""

    def __init__(self, op, input_value: DatasetValue, captured: list):
        super().__init__(op)
        self.input = input_value
        self.function = function_lib.function_of(op)
        self.captured = captured

    def iterate(self, ctx):
        for element in self.input.iterate(ctx):
            (keep,) = function_lib.call(ctx, self.function, element, self.captured)
            keep = np.asarray(keep)
            if keep.dtype != np.bool_ or keep.ndim != 0:
                raise errors.InvalidArgumentError(None, self.op, "Filter predicate `f` must return a scalar bool.")
            if keep:
                yield element


def _stack(op, rows: list[tuple], component: int):
    first = rows[0][component]
    for index, row in enumerate(rows[1:], 1):
        if row[component].shape != first.shape:
            raise errors.InvalidArgumentError(
                None, op, f"Cannot batch tensors with different shapes in component {component}. First element "
                f"had shape {list(first.shape)} and element {index} had shape {list(row[component].shape)}.")
    return np.stack([row[component] for row in rows])


def _batches(source: Iterator[tuple], size: int, drop_remainder: bool):
    while True:
        rows = []
        for element in source:
            rows.append(element)
            if len(rows) == size:
                break
        if not rows or (drop_remainder and len(rows) < size):
            return
        yield rows


class BatchValue(DatasetValue):
    """BatchDatasetV2: consecutive elements stacked along a new first dimension."""

    def __init__(self, op, input_value: DatasetValue, size: int, drop_remainder: bool):
        super().__init__(op)
        if size <= 0:
            raise errors.InvalidArgumentError(None, op, f"Batch size must be greater than zero, got {size}")
        self.input, self.size, self.drop_remainder = input_value, int(size), bool(drop_remainder)

    def iterate(self, ctx):
        for rows in _batches(self.input.iterate(ctx), self.size, self.drop_remainder):
            yield tuple(_stack(self.op, rows, c) for c in range(len(rows[0])))


class PaddedBatchValue(DatasetValue):
    """PaddedBatchDatasetV2: elements padded to ``padded_shapes`` (-1: the batch's longest) and stacked."""

    def __init__(self, op, input_value: DatasetValue, size: int, padded_shapes: list, padding_values: list,
                 drop_remainder: bool):
        super().__init__(op)
        if size <= 0:
            raise errors.InvalidArgumentError(None, op, f"Batch size must be greater than zero, got {size}")
        self.input, self.size, self.drop_remainder = input_value, int(size), bool(drop_remainder)
        self.padded_shapes = [np.asarray(s, np.int64).reshape(-1) for s in padded_shapes]
        self.padding_values = [np.asarray(v) for v in padding_values]

    def _pad(self, rows: list, component: int):
        target = self.padded_shapes[component]
        shapes = [row[component].shape for row in rows]
        if any(len(shape) != len(target) for shape in shapes):
            raise errors.InvalidArgumentError(None, self.op, f"All elements in a batch must have the same rank "
                                              f"as the padded shape for component{component}: expected rank "
                                              f"{len(target)} but got element with rank {len(shapes[0])}")
        size = []
        for axis, wanted in enumerate(target):
            longest = max(shape[axis] for shape in shapes)
            if wanted >= 0 and longest > wanted:
                raise errors.InvalidArgumentError(
                    None, self.op, "Attempted to pad to a smaller size than the input element.")
            size.append(int(wanted) if wanted >= 0 else longest)
        fill = self.padding_values[component]
        batch = np.full([len(rows)] + size, fill, dtype=rows[0][component].dtype if fill.dtype == object
                        else fill.dtype)
        for index, row in enumerate(rows):
            value = row[component]
            batch[(index,) + tuple(slice(0, n) for n in value.shape)] = value
        return batch

    def iterate(self, ctx):
        for rows in _batches(self.input.iterate(ctx), self.size, self.drop_remainder):
            yield tuple(self._pad(rows, c) for c in range(len(rows[0])))


class RepeatValue(DatasetValue):
    """RepeatDataset: the input ``count`` times (-1: forever; an empty input ends at once)."""

    def __init__(self, op, input_value: DatasetValue, count: int):
        super().__init__(op)
        self.input, self.count = input_value, count

    def iterate(self, ctx):
        epoch = 0
        while self.count < 0 or epoch < self.count:
            produced = False
            for element in self.input.iterate(ctx):
                produced = True
                yield element
            if not produced and self.count < 0:
                return
            epoch += 1


class TakeValue(DatasetValue):
    """TakeDataset: the first ``count`` elements (-1: all)."""

    def __init__(self, op, input_value: DatasetValue, count: int):
        super().__init__(op)
        self.input, self.count = input_value, count

    def iterate(self, ctx):
        if self.count == 0:
            return
        for index, element in enumerate(self.input.iterate(ctx)):
            yield element
            if index + 1 == self.count:
                return


class SkipValue(DatasetValue):
    """SkipDataset: all but the first ``count`` elements (-1: none)."""

    def __init__(self, op, input_value: DatasetValue, count: int):
        super().__init__(op)
        self.input, self.count = input_value, count

    def iterate(self, ctx):
        for index, element in enumerate(self.input.iterate(ctx)):
            if self.count >= 0 and index >= self.count:
                yield element


def _dataset_of(op, value) -> DatasetValue:
    if not isinstance(value, DatasetValue):
        raise errors.InvalidArgumentError(None, op, f"'{op.name}': the function must return a tf.data.Dataset.")
    return value


class FlatMapValue(DatasetValue):
    """FlatMapDataset: the elements of the dataset the function returns for each input element."""

    def __init__(self, op, input_value: DatasetValue, captured: list):
        super().__init__(op)
        self.input = input_value
        self.function = function_lib.function_of(op)
        self.captured = captured

    def iterate(self, ctx):
        for element in self.input.iterate(ctx):
            (dataset,) = function_lib.call(ctx, self.function, element, self.captured)
            yield from _dataset_of(self.op, dataset).iterate(ctx)


class InterleaveValue(DatasetValue):
    """InterleaveDataset: ``block_length`` elements in turn from ``cycle_length`` open inner datasets."""

    def __init__(self, op, input_value: DatasetValue, captured: list, cycle_length: int, block_length: int):
        super().__init__(op)
        self.input = input_value
        self.function = function_lib.function_of(op)
        self.captured = captured
        if cycle_length == INFINITE:  # AUTOTUNE
            cycle_length = max_parallelism()
        if cycle_length <= 0 or block_length <= 0:
            raise errors.InvalidArgumentError(None, op, "cycle_length and block_length must be positive.")
        self.cycle_length, self.block_length = cycle_length, block_length

    def iterate(self, ctx):
        source = self.input.iterate(ctx)
        slots: list = [None] * self.cycle_length
        cycle = block = opened = 0
        end_of_input = False
        while not end_of_input or opened:
            if slots[cycle] is not None:
                try:
                    element = next(slots[cycle])
                except StopIteration:
                    slots[cycle] = None
                    opened -= 1
                    cycle, block = (cycle + 1) % self.cycle_length, 0
                    continue
                block += 1
                if block == self.block_length:
                    cycle, block = (cycle + 1) % self.cycle_length, 0
                yield element
            elif not end_of_input:
                try:
                    args = next(source)
                except StopIteration:
                    end_of_input = True
                    continue
                (dataset,) = function_lib.call(ctx, self.function, args, self.captured)
                slots[cycle] = _dataset_of(self.op, dataset).iterate(ctx)
                opened += 1
            else:
                cycle, block = (cycle + 1) % self.cycle_length, 0


class CacheValue(DatasetValue):
    """CacheDataset: the first complete pass is recorded, later passes replay it (in memory)."""

    def __init__(self, op, input_value: DatasetValue):
        super().__init__(op)
        self.input = input_value
        self.cache: list | None = None

    def iterate(self, ctx):
        if self.cache is not None:
            yield from self.cache
            return
        recorded = []
        for element in self.input.iterate(ctx):
            recorded.append(element)
            yield element
        self.cache = recorded


class UnbatchValue(DatasetValue):
    """UnbatchDataset: each element split along its first dimension."""

    def __init__(self, op, input_value: DatasetValue):
        super().__init__(op)
        self.input = input_value

    def iterate(self, ctx):
        for element in self.input.iterate(ctx):
            sizes = {c.shape[0] if c.ndim else None for c in element}
            if None in sizes or len(sizes) != 1:
                raise errors.InvalidArgumentError(None, self.op, "Input element must have a non-scalar value in "
                                                  "each component, all of the same leading size.")
            for index in range(sizes.pop()):
                yield tuple(c[index, ...] for c in element)
