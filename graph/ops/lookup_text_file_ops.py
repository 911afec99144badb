"""``tf.lookup.TextFileInitializer`` and ``TextFileIndex``: a table's contents from a text file, one entry a line,
through the InitializeTableFromTextFileV2 op with TF's kernel semantics.

Each line (up to '\\n', one trailing '\\r' dropped) gives a key and a value: the whole line (``WHOLE_LINE``), its
number from 0 (``LINE_NUMBER``, plus ``value_index_offset``) or a column split on a one-character delimiter,
parsed as the table's dtype.  An empty line, too few columns, a field that is no number, or a file shorter than
``vocab_size`` fails as in TF; a longer file is read up to ``vocab_size`` lines.  Initializing a table again
from a file keeps what it holds, as TF's kernel does.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys, Operation, Tensor, convert_to_tensor, name_scope
from graph.ops.lookup_ops import TableHandle
from graph.ops.op_builder import apply_op
from graph.ops.string_ops import parse_number
from graph.platform import file_io

__all__ = ["TextFileIndex", "TextFileInitializer"]

_OP_TYPE = "InitializeTableFromTextFileV2"


class TextFileIndex:
    """Which part of a line gives a key or value: a column index >= 0, or one of these."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


# ----------------------------------------------------------------- the kernel
def _infer_init(op):
    filename = op._inputs[1].shape
    if filename.ndims not in (None, 0):
        shapes = ", ".join(t.shape.message_string() for t in op._inputs)
        raise ValueError(f"Shape must be rank 0 but is rank {filename.ndims} for '{op.name}' ({op.type}) with input "
                         f"shapes: {shapes}.")
    return []


def _lines(data: bytes):
    """(line, byte position after it) for each line InputBuffer::ReadLine reads; a last line without '\\n' counts
    unless it is empty."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        line, start = (data[start:], len(data)) if end < 0 else (data[start:end], end + 1)
        line = line[:-1] if line.endswith(b"\r") else line
        if end < 0 and not line:
            return
        yield line, start


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class _Reader:
    """The fields of one file's lines as a table of ``key_dtype`` to ``value_dtype`` wants them."""

    def __init__(self, op, filename: str, key_dtype, value_dtype, indices: dict | None = None):
        self.op, self.filename = op, filename
        self.dtypes = {"key": key_dtype, "value": value_dtype}
        self.indices = indices or {"key": op._attrs["key_index"], "value": op._attrs["value_index"]}
        self.offset = op._attrs.get("offset", 0)
        self.delimiter = op._attrs.get("delimiter", "\t")
        self.delimiter = self.delimiter.encode() if isinstance(self.delimiter, str) else self.delimiter

    def fail(self, message: str, kind=errors.InvalidArgumentError):
        return kind(None, self.op, message)

    def field(self, part: str, line: bytes, tokens: list, line_number: int):
        index, dtype = self.indices[part], self.dtypes[part]
        if index == TextFileIndex.LINE_NUMBER:
            return line_number + self.offset
        token = line if index == TextFileIndex.WHOLE_LINE else tokens[index]
        if dtype == dtypes_lib.string:
            return token
        if dtype not in (dtypes_lib.int32, dtypes_lib.int64, dtypes_lib.float32, dtypes_lib.float64):
            raise self.fail(f"Data type {dtype.name} not supported.")
        number = parse_number(token, dtype)
        if number is None:
            raise self.fail(f"Field {_text(token)} in line {line_number} is not a valid {dtype.name}.")
        # TF adds the offset to int32 fields only (and to line numbers)
        return number + self.offset if dtype == dtypes_lib.int32 else number

    def entries(self, data: bytes, vocab_size: int, insert=None) -> list:
        """(key, value) per line read, failing as TF's TextFileLineIterator fails; each entry goes to ``insert``
        as it is read (TF inserts line by line, so a duplicate key fails before a later bad line does)."""
        split = max(self.indices.values()) >= 0
        columns = max(self.indices.values()) + 1
        entries = []
        for line, position in _lines(data):
            if vocab_size != -1 and len(entries) >= vocab_size:
                if not entries:  # TF reports the truncation itself when it has not read a line
                    raise self.fail(f"Finished reading {vocab_size} of lines from {self.filename}",
                                    errors.OutOfRangeError)
                return entries
            if not line:
                raise self.fail(f"Invalid content in {self.filename}: empty line found at position {position}.")
            tokens = line.split(self.delimiter) if split else []
            if len(tokens) < columns:
                raise self.fail(f"Invalid number of columns in {self.filename} line {len(entries)} ({_text(line)}) "
                                f": expected at least {columns} got {len(tokens)}")
            entries.append((self.field("key", line, tokens, len(entries)),
                            self.field("value", line, tokens, len(entries))))
            if insert is not None:
                insert(*entries[-1])
        if vocab_size != -1 and len(entries) != vocab_size:
            raise self.fail(f"Invalid vocab_size in {self.filename}: expected {vocab_size} but got {len(entries)}")
        if not entries:  # the first read hit the end of the file
            raise self.fail("Read less bytes than requested", errors.OutOfRangeError)
        return entries


def read_text_file_entries(op, filename: str, vocab_size: int, key_index: int, value_index: int, key_dtype,
                           value_dtype, insert=None) -> list:
    """(key, value) per line of ``filename`` read as TF's TextFileLineIterator reads it, failing as it fails (errors
    name ``op``): for kernels filling tables of their own, as GenerateVocabRemapping's does."""
    reader = _Reader(op, filename, key_dtype, value_dtype, {"key": key_index, "value": value_index})
    return reader.entries(file_io.read_bytes(filename), vocab_size, insert)


def _check_index_dtypes(op, handle: TableHandle) -> None:
    """TF's InitializeTableFromTextFile checks of the table's dtypes against the line parts."""
    for part, index, dtype in (("Key", op._attrs["key_index"], handle.key_dtype),
                               ("Value", op._attrs["value_index"], handle.value_dtype)):
        if index == TextFileIndex.LINE_NUMBER and dtype != dtypes_lib.int64:
            raise errors.InvalidArgumentError(None, op, f"{part} index for line number requires table "
                                              f"{part.lower()} dtype of int64, got {dtype.name}")
        if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != dtypes_lib.string:
            wanted = "string or integer table key" if part == "Key" else "table value dtype of integer or string"
            raise errors.InvalidArgumentError(None, op, f"{part} index for whole line requires {wanted}, got "
                                              f"{dtype.name}")


def _compute_init(ctx, op, inputs):
    handle = inputs[0]
    if not isinstance(handle, TableHandle):
        raise errors.InvalidArgumentError(None, op, f"{op.type} '{op.name}' needs a table handle at input 0")
    delimiter = op._attrs.get("delimiter", "\t")
    if len(delimiter) != 1:
        raise errors.InvalidArgumentError(None, op, "delimiter should be only 1 char")
    filename = np.asarray(inputs[1], dtype=object)
    if filename.ndim:
        raise errors.InvalidArgumentError(None, op, f"filename should be a single string, but got "
                                          f"[{','.join(map(str, filename.shape))}]")
    filename = _text(filename.item())
    if not filename:
        raise errors.InvalidArgumentError(None, op, "filename cannot be empty.")
    _check_index_dtypes(op, handle)
    reader = _Reader(op, filename, handle.key_dtype, handle.value_dtype)
    table: dict = {}

    def insert(key, value):
        if key in table and table[key] != value:
            raise errors.FailedPreconditionError(None, op, f"HashTable has different value for same key. Key "
                                                 f"{_text(key)} has {_text(table[key])} and trying to add value "
                                                 f"{_text(value)}")
        table[key] = value

    initialized = handle.table() is not None  # TF ignores a file initialization of a table already initialized
    reader.entries(file_io.read_bytes(filename), op._attrs.get("vocab_size", -1), None if initialized else insert)
    if not initialized:
        handle.store[handle.name] = table
    return []


kernels.register(_OP_TYPE, infer=_infer_init, compute=_compute_init, stateful=True,
                 default_attrs={"vocab_size": -1, "delimiter": "\t", "offset": 0})


# ----------------------------------------------------------------- the initializer
class TextFileInitializer:
    """A table's contents from the text file ``filename`` (a string or a string scalar Tensor): a key and a value
    from each line, taken as ``key_index`` and ``value_index`` say (a column, or a `TextFileIndex`)."""

    def __init__(self, filename, key_dtype, key_index: int, value_dtype, value_index: int,
                 vocab_size: int | None = None, delimiter: str = "\t", name: str | None = None,
                 value_index_offset: int = 0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype, value_dtype = dtypes_lib.as_dtype(key_dtype), dtypes_lib.as_dtype(value_dtype)
        _check_part("key", key_index, key_dtype)
        _check_part("value", value_index, value_dtype)
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter, self._name = vocab_size, delimiter, name
        self._offset = value_index_offset
        # TF wraps the path in an Asset, whose tensor is made here
        self._filename = filename if isinstance(filename, Tensor) else convert_to_tensor(
            filename, dtype=dtypes_lib.string, name="asset_path")
        self.key_dtype, self.value_dtype = key_dtype, value_dtype

    def initialize(self, table) -> Operation:
        """The op filling ``table`` from the file (added to ``TABLE_INITIALIZERS``; a constant filename to
        ``ASSET_FILEPATHS``)."""
        if self.key_dtype != table.key_dtype:
            raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got {self.key_dtype}.")
        if self.value_dtype != table.value_dtype:
            raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but got "
                            f"{self.value_dtype}.")
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            init_op = apply_op(_OP_TYPE, [(table.resource_handle, "table_handle", None),
                                          (self._filename, "filename", dtypes_lib.string)], {
                "key_index": self._key_index, "value_index": self._value_index,
                "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                "delimiter": self._delimiter, "offset": self._offset})
        graph_lib.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if self._filename.op.type == "Const":
            graph_lib.add_to_collection(GraphKeys.ASSET_FILEPATHS, self._filename)
        return init_op

    @property
    def _shared_name(self) -> str:
        """TF's: the file, vocab size, indices and offset, so tables of one file's same view share a resource."""
        parts = [self._filename_arg] + ([f"{self._vocab_size:d}"] if self._vocab_size else [])
        parts += [self._key_index, self._value_index] + ([self._offset] if self._offset else [])
        return "hash_table_" + "_".join(str(part) for part in parts)


def _check_part(part: str, index: int, dtype) -> None:
    """TF's construction checks of a key or value index and its dtype."""
    if index < -2:
        raise ValueError(f"`{part}_index` should be >= -2, received: {index}" + ("." if part == "key" else ""))
    if index == TextFileIndex.LINE_NUMBER and dtype != dtypes_lib.int64:
        wording = "if `key_index` is" if part == "key" else "for `value_index`"
        raise ValueError(f"`{part}_dtype` must be int64 {wording} {TextFileIndex.LINE_NUMBER}, received: {dtype}")
    if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != dtypes_lib.string:
        raise ValueError(f"`{part}_dtype` should be either integer or string for `{part}_index` "
                         f"{TextFileIndex.WHOLE_LINE}, received: {dtype}")
