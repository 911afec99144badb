"""Dataset sources outside the graph: TFRecord and text files, file patterns, and Python generators.

TFRecordDataset yields each record's bytes, file after file (compression '' / 'ZLIB' / 'GZIP');
TextLineDataset yields each line without its '\\n' (and a trailing '\\r'), as TF's InputBuffer::ReadLine.
FixedLengthRecordDataset yields each file's body (header and footer skipped) cut into records.
``Dataset.from_generator`` keeps its Python callable beside the graph (TF keeps it in a py_func registry).
"""

from __future__ import annotations

import weakref

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.data import structure
from graph.data.dataset_values import DatasetValue
from graph.platform import file_io
from graph.platform.tfrecord import iterate_records
from graph.platform.tfrecord_io import decompress

__all__ = ["FixedLengthRecordValue", "TFRecordValue", "TextLineValue", "GeneratorValue", "register_generator"]

_GENERATORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> {op name: (fn, args, flatten)}


def _filenames(op, value) -> list[str]:
    names = np.asarray(value, dtype=object)
    if names.ndim > 1:
        raise errors.InvalidArgumentError(None, op, "`filenames` must be a scalar or a vector.")
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names.reshape(-1)]


def _compression(op, value) -> str:
    name = np.asarray(value, dtype=object).item()
    name = name.decode() if isinstance(name, bytes) else str(name)
    if name not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(None, op, f"Unsupported compression_type: {name}.")
    return name


def _file_bytes(op, path: str, compression: str) -> bytes:
    try:
        return decompress(file_io.read_bytes(path), compression, path)
    except errors.OpError as error:
        error._op = error._op or op
        raise


class TFRecordValue(DatasetValue):
    """TFRecordDataset: the records of each file in turn."""

    def __init__(self, op, filenames, compression):
        super().__init__(op)
        self.filenames = _filenames(op, filenames)
        self.compression = _compression(op, compression)

    def iterate(self, ctx):
        for path in self.filenames:
            for record in iterate_records(_file_bytes(self.op, path, self.compression), path):
                yield (np.asarray(record, dtype=object),)


class TextLineValue(DatasetValue):
    """TextLineDataset: the lines of each file in turn."""

    def __init__(self, op, filenames, compression):
        super().__init__(op)
        self.filenames = _filenames(op, filenames)
        self.compression = _compression(op, compression)

    def iterate(self, ctx):
        for path in self.filenames:
            data = _file_bytes(self.op, path, self.compression)
            lines = data.split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()  # a final newline ends the last line; it does not start an empty one
            for line in lines:
                yield (np.asarray(line[:-1] if line.endswith(b"\r") else line, dtype=object),)


class FixedLengthRecordValue(DatasetValue):
    """FixedLengthRecordDatasetV2: each file's records of ``record_bytes`` bytes between header and footer."""

    def __init__(self, op, filenames, header, record, footer, compression):
        super().__init__(op)
        self.filenames = _filenames(op, filenames)
        self.header, self.record, self.footer = (int(np.asarray(v)) for v in (header, record, footer))
        self.compression = _compression(op, compression)
        if self.header < 0 or self.footer < 0:
            raise errors.InvalidArgumentError(None, op, "`header_bytes` and `footer_bytes` must be non-negative.")
        if self.record <= 0:
            raise errors.InvalidArgumentError(None, op, "`record_bytes` must be greater than zero.")

    def iterate(self, ctx):
        for path in self.filenames:
            data = _file_bytes(self.op, path, self.compression)
            body = len(data) - self.header - self.footer
            if self.compression == "" and body % self.record:
                # TF reports the length as a uint64: a file shorter than header + footer wraps around
                raise errors.InvalidArgumentError(
                    None, self.op, f"Excluding the header ({self.header} bytes) and footer ({self.footer} bytes), "
                    f"input file \"{path}\" has body length {body % 2 ** 64} bytes, which is not an exact multiple "
                    f"of the record length ({self.record} bytes).")
            for start in range(self.header, self.header + body - self.record + 1, self.record):
                yield (np.asarray(data[start:start + self.record], dtype=object),)


def register_generator(op, generator, args: tuple, types) -> None:
    """Keeps ``generator``, its args and its element's structure of dtypes for the GeneratorDataset ``op``."""
    _GENERATORS.setdefault(op._graph, {})[op._name] = (generator, args, types)


def generator_argument(array: np.ndarray):
    """An argument as TF hands it to the generator: a numpy scalar (bytes for a string) or the array."""
    return array[()] if array.ndim == 0 else array


class GeneratorValue(DatasetValue):
    """GeneratorDataset: the values a Python generator yields, converted to the declared dtypes and shapes."""

    def __init__(self, op):
        super().__init__(op)
        self.generator, self.args, self.types = _GENERATORS[op._graph][op._name]
        self.dtypes = op._attrs["output_types"]
        self.shapes = op._attrs["output_shapes"]

    def _convert(self, item) -> tuple:
        try:
            leaves = structure.flatten_up_to(self.types, item)
        except (TypeError, ValueError) as error:
            raise errors.InvalidArgumentError(None, self.op, "TypeError: `generator` yielded an element that did "
                                              f"not match the expected structure. The expected structure was "
                                              f"{self.types}, but the yielded element was {item}.") from error
        out = []
        for leaf, dtype, shape in zip(leaves, self.dtypes, self.shapes):
            try:
                array = np.asarray(leaf, dtype=object if dtype == dtypes_lib.string else dtype.numpy_dtype)
            except (TypeError, ValueError) as error:
                raise errors.InvalidArgumentError(None, self.op, f"TypeError: `generator` yielded an element that "
                                                  f"could not be converted to the expected type. The expected "
                                                  f"type was {dtype.name}, but the yielded element was "
                                                  f"{leaf!r}.") from error
            if dtype == dtypes_lib.string:
                array = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(array) \
                    if array.size else array
            if not TensorShape(list(array.shape)).is_compatible_with(shape):
                raise errors.InvalidArgumentError(None, self.op, f"`generator` yielded an element of shape "
                                                  f"{list(array.shape)} where an element of shape {shape} was "
                                                  "expected.")
            out.append(array)
        return tuple(out)

    def iterate(self, ctx):
        for item in self.generator(*self.args):
            yield self._convert(item)


def _compute_generator(ctx, op, inputs):
    return [GeneratorValue(op)]


kernels.register("GeneratorDataset", infer=lambda op: [(dtypes_lib.variant, TensorShape([]))],
                 compute=_compute_generator, stateful=True)
