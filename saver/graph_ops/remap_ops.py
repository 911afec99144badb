"""``LoadAndRemapMatrix``: a float matrix read from a V2 checkpoint with its rows and columns moved to new places,
with TF's kernel semantics (tensorflow/core/kernels/load_and_remap_matrix_op.cc).

    LoadAndRemapMatrix(ckpt_path, old_tensor_name, row_remapping[num_rows], col_remapping[0 or num_cols],
                       initializing_values[missing cells]; num_rows, num_cols, max_rows_in_memory)
        -> output_matrix: float32 [num_rows, num_cols]

    output[i, j] = old[row_remapping[i], col_remapping[j]]   (no col_remapping: old[row_remapping[i], j])
    a row or column whose remapping is -1 is "missing": its cells take initializing_values in row-major order

Only the old rows from the smallest to the largest one asked for are read, ``max_rows_in_memory`` rows at a time
(<= 0: all at once); partitioned checkpoint tensors are read across their stored slices.  The op lives in saver,
beside RestoreV2, because it reads checkpoint files; its builder makes TF's graph (``LoadAndRemapMatrix/ckpt_path``
Consts for Python inputs).
"""

from __future__ import annotations

import logging

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor
from graph.ops.op_builder import apply_op
from graph.platform import file_io
from saver.format.bundle import BundleReader, index_filename
from saver.format.coding import TensorSlice

__all__ = ["load_and_remap_matrix"]

_OP_TYPE = "LoadAndRemapMatrix"
_LOG_EVERY_ROWS = 500000  # the kernel logs its progress every this many old rows
_logger = logging.getLogger("graph")


def load_and_remap_matrix(ckpt_path, old_tensor_name, row_remapping, col_remapping, initializing_values,
                          num_rows: int, num_cols: int, max_rows_in_memory: int = -1,
                          name: str | None = None) -> Tensor:
    """The checkpoint matrix ``old_tensor_name`` with rows/columns remapped, missing cells from ``initializing_values``.

    Raises:
        ValueError: for an attr below its minimum (TF's OpDef: num_rows >= 0, num_cols >= 1).
    """
    for attr, value, minimum in (("num_rows", num_rows, 0), ("num_cols", num_cols, 1)):
        if int(value) < minimum:
            raise ValueError(f"Attr '{attr}' of '{_OP_TYPE}' Op passed {int(value)} less than minimum {minimum}.")
    op = apply_op(_OP_TYPE, [(ckpt_path, "ckpt_path", dtypes_lib.string),
                             (old_tensor_name, "old_tensor_name", dtypes_lib.string),
                             (row_remapping, "row_remapping", dtypes_lib.int64),
                             (col_remapping, "col_remapping", dtypes_lib.int64),
                             (initializing_values, "initializing_values", dtypes_lib.float32)],
                  {"num_rows": int(num_rows), "num_cols": int(num_cols),
                   "max_rows_in_memory": int(max_rows_in_memory)}, name=name)
    return op._outputs[0]


def _node_text(op) -> str:
    """TF's NodeDef summary in shape errors: ``'{{node N}} = LoadAndRemapMatrix[...](inputs)'``."""
    attrs = ", ".join(f"{key}={op._attrs[key]}" for key in ("max_rows_in_memory", "num_cols", "num_rows"))
    inputs = ", ".join(t.name[:-2] if t.value_index == 0 else t.name for t in op._inputs)
    return f"'{{{{node {op.name}}}}} = {op.type}[{attrs}]({inputs})'"


def _infer(op):
    name = op._inputs[1]
    if name.shape.ndims not in (None, 0):
        shapes = ", ".join(t.shape.message_string() for t in op._inputs)
        raise ValueError(f"Shape must be rank 0 but is rank {name.shape.ndims} for {_node_text(op)} with input "
                         f"shapes: {shapes}.")
    return [(dtypes_lib.float32, TensorShape([op._attrs["num_rows"], op._attrs["num_cols"]]))]


def _shape_text(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _text(value) -> str:
    item = np.asarray(value, dtype=object).reshape(-1)[0]
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


def _old_to_new(op, remapping: np.ndarray) -> tuple[np.ndarray, dict[int, int]]:
    """(present flags, old id -> new id) of a remapping vector (TF's RemapVectorToMap)."""
    old_to_new: dict[int, int] = {}
    for new_id, old_id in enumerate(remapping.tolist()):
        if old_id < 0:
            continue
        if old_id in old_to_new:
            raise errors.UnimplementedError(None, op, f"Old ID {old_id} is mapped to both new ID {old_to_new[old_id]} "
                                            f"and {new_id}, which is not supported.")
        old_to_new[old_id] = new_id
    return remapping >= 0, old_to_new


def _open_matrix(op, ckpt_path: str, name: str) -> tuple[BundleReader, tuple[int, int]]:
    """The checkpoint reader and the shape of the float matrix ``name`` in it."""
    if not file_io.exists(index_filename(ckpt_path)):  # TF's BundleReader status, before our reader's own words
        raise errors.NotFoundError(None, op, f"{index_filename(ckpt_path)}; No such file or directory")
    reader = BundleReader(ckpt_path)
    try:
        dtype, shape = reader.lookup_dtype_and_shape(name)
        if dtype != dtypes_lib.float32:
            raise errors.InvalidArgumentError(None, op, f"Tensor {name} has invalid type {dtype.message_name} "
                                              "instead of expected type float")
        if len(shape) != 2:
            raise errors.InvalidArgumentError(None, op, f"Tensor {name} has shape {_shape_text(shape)} of invalid rank "
                                              f"{len(shape)} instead of expected shape of rank 2.")
    except BaseException:
        reader.close()
        raise
    return reader, tuple(shape)


def _row_chunks(first: int, last: int, max_rows_in_memory: int):
    """(start, length) of each slice of old rows ``first..last`` read at once."""
    start = first
    while start <= last:
        length = last - start + 1 if max_rows_in_memory <= 0 else min(max_rows_in_memory, last - start + 1)
        yield start, length
        start += length


def _copy_rows(op, reader, name: str, shape, row_map: dict, col_map: dict | None, output: np.ndarray) -> int:
    """Copies the old rows named in ``row_map`` (columns through ``col_map``) into ``output``; returns how many."""
    if not row_map:
        return 0
    first, last = min(row_map), max(row_map)
    copied = 0
    columns = None
    if col_map is not None:
        old_columns = np.array([old for old in col_map if old < shape[1]], np.int64)
        columns = (old_columns, np.array([col_map[old] for old in old_columns.tolist()], np.int64))
    for start, length in _row_chunks(first, last, op._attrs.get("max_rows_in_memory", -1)):
        spec = f"{start},{length}:-"
        if start + length > shape[0]:
            raise errors.InternalError(None, op, f"Extent in dimension 0 out of bounds: shape = {_shape_text(shape)}, "
                                       f"slice = {spec}")
        _logger.info("Loading slice %s", spec)
        loaded = reader.lookup_slice(name, TensorSlice([(start, length), (0, -1)]))
        for row in range(length):
            new_row = row_map.get(start + row)
            if new_row is None:
                continue
            copied += 1
            if columns is None:
                output[new_row] = loaded[row]
            else:
                output[new_row, columns[1]] = loaded[row, columns[0]]
    return copied


def _compute(ctx, op, inputs):
    num_rows, num_cols = op._attrs["num_rows"], op._attrs["num_cols"]
    row_remapping = np.asarray(inputs[2], np.int64)
    if row_remapping.ndim != 1:
        raise errors.InvalidArgumentError(None, op, "The `row_remapping` tensor must be 1-D, got a tensor of shape "
                                          f"{_shape_text(row_remapping.shape)}")
    if row_remapping.size != num_rows:
        raise errors.InvalidArgumentError(None, op, f"Size of row_remapping is {row_remapping.size} instead of being "
                                          f"equal to num_rows={num_rows}")
    row_present, row_map = _old_to_new(op, row_remapping)
    col_remapping = np.asarray(inputs[3], np.int64).reshape(-1)
    col_map = None
    col_present = np.ones(num_cols, bool)
    if col_remapping.size:
        if col_remapping.size != num_cols:
            raise errors.InvalidArgumentError(None, op, f"Provided col_remapping, but its size is {col_remapping.size} "
                                              f"instead of being equal to num_cols={num_cols}")
        col_present, col_map = _old_to_new(op, col_remapping)
    ckpt_path = np.asarray(inputs[0], dtype=object)
    if ckpt_path.size != 1:
        raise errors.InvalidArgumentError(None, op, "The `ckpt_path` tensor must have exactly one element, got tensor "
                                          f"of shape {_shape_text(ckpt_path.shape)}")
    ckpt_path, name = _text(ckpt_path), _text(inputs[1])
    _logger.info("Processing checkpoint : %s", ckpt_path)
    reader, shape = _open_matrix(op, ckpt_path, name)
    try:
        if col_map is None and num_cols != shape[1]:
            raise errors.InvalidArgumentError(None, op, f"Tensor {name} has shape {_shape_text(shape)}, where the size "
                                              f"of its 2nd dimension is {shape[1]} instead of being equal to "
                                              f"num_cols={num_cols}")
        # TF leaves cells no old value reaches (a col_remapping id past the old columns) uninitialized
        output = np.zeros((num_rows, num_cols), np.float32)
        copied = _copy_rows(op, reader, name, shape, row_map, col_map, output)
    finally:
        reader.close()
    _logger.info("Copied %d rows from old matrix (with %d rows) to new matrix (with %d rows).", copied, shape[0],
                 num_rows)
    missing = ~(row_present[:, None] & col_present[None, :])
    values = np.asarray(inputs[4], np.float32).reshape(-1)
    needed = int(np.count_nonzero(missing))
    if values.size < needed:
        raise errors.InvalidArgumentError(None, op, f"initializing_values contained {values.size} elements, but more "
                                          "missing values remain.")
    if values.size > needed:
        raise errors.InvalidArgumentError(None, op, f"initializing_values contained {values.size} elements, but only "
                                          f"{needed} elements were used to fill in missing values.")
    output[missing] = values  # boolean indexing walks the cells in row-major order, as the kernel does
    return [output]


kernels.register(_OP_TYPE, infer=_infer, compute=_compute, stateful=True, default_attrs={"max_rows_in_memory": -1})
