"""Diagonal and band matrices: Diag, MatrixDiag(V3), MatrixSetDiag(V3), MatrixBandPart, and eye / trace.

``tf.diag`` (``Diag``) builds a rank-2k tensor from a rank-k one; ``tf.matrix_diag`` (``MatrixDiagV3``)
places one diagonal or a band of them into the innermost matrices, aligned as ``align`` says (the
layout ``tf.matrix_diag_part`` reads, see linalg_ops); ``MatrixDiag`` and ``MatrixSetDiag`` are the main
diagonal ops TF 1.x graphs hold.  ``tf.eye`` and ``tf.trace`` are compositions, built as TensorFlow does.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_concat_ops, array_fill_ops, math_ops, reduction_ops
from graph.ops.constant_ops import constant_value
from graph.ops.linalg_ops import diagonal_band, input_shapes, matrix_diag_part, max_diag_len, node

__all__ = ["diag", "matrix_diag", "matrix_set_diag", "matrix_band_part", "eye", "trace"]

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _check_align(align: str) -> None:
    if align not in _ALIGNS:
        raise ValueError(f"Value for attr 'align' of {align!r} is not in the list of allowed values: \"LEFT_RIGHT\", "
                         "\"RIGHT_LEFT\", \"LEFT_LEFT\", \"RIGHT_RIGHT\"")


def _place_diagonals(out: np.ndarray, diagonal: np.ndarray, lower: int, upper: int, align: str) -> np.ndarray:
    """Writes diagonals ``upper`` down to ``lower`` (laid out as matrix_diag_part returns them) into ``out``."""
    rows, cols = out.shape[-2:]
    width = max_diag_len(rows, cols, lower, upper)
    if lower == upper:
        diagonal = diagonal[..., None, :]
    super_right, sub_right = (part == "RIGHT" for part in align.split("_"))
    for index, d in enumerate(range(upper, lower - 1, -1)):
        length = max_diag_len(rows, cols, d, d)
        if length <= 0:
            continue
        start = width - length if (super_right if d >= 0 else sub_right) else 0
        positions = np.arange(length)
        out[..., positions - min(d, 0), positions + max(d, 0)] = diagonal[..., index, start:start + length]
    return out


# ----------------------------------------------------------------- Diag
def _infer_diag(op):
    x = op._inputs[0]
    if x.shape.ndims is None:
        return [(x.dtype.base_dtype, TensorShape(None))]
    if x.shape.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for {node(op)} with input shapes: [].")
    return [(x.dtype.base_dtype, x.shape.concatenate(x.shape))]


def _compute_diag(ctx, op, inputs):
    x = np.asarray(inputs[0])
    if x.ndim < 1:
        raise errors.InvalidArgumentError(None, op, "Input must be at least rank 1, got 0")
    return np.diag(x.reshape(-1)).reshape(x.shape + x.shape)


kernels.register("Diag", infer=_infer_diag, compute=_compute_diag)


def diag(diagonal, name: str | None = None) -> Tensor:
    """The rank-2k tensor with ``diagonal`` (rank k) on its diagonal and zeros elsewhere (``Diag``)."""
    graph = graph_lib.get_graph_from_inputs([diagonal])
    with graph.as_default(), graph.name_scope(name or "Diag") as scope:
        diagonal = convert_to_tensor(diagonal, name="diagonal")
        return graph.create_op("Diag", [diagonal], name=scope, attrs={"T": diagonal.dtype.base_dtype})._outputs[0]


# ----------------------------------------------------------------- MatrixDiagV3, MatrixDiag
def _diag_matrix_size(max_len: int, lower: int, upper: int, num_rows: int, num_cols: int) -> tuple[int, int]:
    """TF's output matrix size for MatrixDiagV3: -1 rows/columns are the smallest that hold the diagonals."""
    min_rows, min_cols = max_len - min(upper, 0), max_len + max(lower, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    return num_rows, num_cols


def _infer_matrix_diag_v3(op):
    diagonal, k, num_rows, num_cols = op._inputs[:4]
    dtype = diagonal.dtype.base_dtype
    values = [constant_value(t) for t in (k, num_rows, num_cols)]
    if diagonal.shape.ndims is None or any(v is None for v in values):
        return [(dtype, TensorShape(None))]
    lower, upper = diagonal_band(values[0], op)
    dims = diagonal.shape.as_list()
    batch = dims[:-1] if lower == upper else dims[:-2]
    if dims[-1] is None:
        return [(dtype, TensorShape(batch + [None, None]))]
    rows, cols = _diag_matrix_size(dims[-1], lower, upper, int(values[1]), int(values[2]))
    return [(dtype, TensorShape(batch + [rows, cols]))]


def _compute_matrix_diag_v3(ctx, op, inputs):
    diagonal, k, num_rows, num_cols, padding = inputs
    diagonal = np.asarray(diagonal)
    lower, upper = diagonal_band(k, op)
    if lower > upper:
        raise errors.InvalidArgumentError(
            None, op, f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}")
    batch = diagonal.shape[:-1] if lower == upper else diagonal.shape[:-2]
    rows, cols = _diag_matrix_size(diagonal.shape[-1], lower, upper, int(num_rows), int(num_cols))
    if max_diag_len(rows, cols, lower, upper) != diagonal.shape[-1]:
        raise errors.InvalidArgumentError(
            None, op, f"The number of diagonal elements {diagonal.shape[-1]} does not match a {rows}x{cols} matrix "
            f"with diagonals [{lower}, {upper}].")
    out = np.full(batch + (rows, cols), padding, dtype=diagonal.dtype)
    return _place_diagonals(out, diagonal, lower, upper, op._attrs["align"])


def _infer_matrix_diag(op):
    diagonal = op._inputs[0]
    if diagonal.shape.ndims is None:
        return [(diagonal.dtype.base_dtype, TensorShape(None))]
    return [(diagonal.dtype.base_dtype, diagonal.shape.concatenate(diagonal.shape[-1:]))]


def _compute_matrix_diag(ctx, op, inputs):
    diagonal = np.asarray(inputs[0])
    out = np.zeros(diagonal.shape + diagonal.shape[-1:], dtype=diagonal.dtype)
    return _place_diagonals(out, diagonal, 0, 0, "RIGHT_LEFT")


kernels.register("MatrixDiagV3", infer=_infer_matrix_diag_v3, compute=_compute_matrix_diag_v3,
                 default_attrs={"align": "RIGHT_LEFT"})
kernels.register("MatrixDiag", infer=_infer_matrix_diag, compute=_compute_matrix_diag)


def matrix_diag(diagonal, name: str = "diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
                align: str = "RIGHT_LEFT") -> Tensor:
    """Matrices with ``diagonal`` on diagonal ``k`` (or the band ``k = (lower, upper)``), ``padding_value`` elsewhere.

    Raises:
        ValueError: for an unknown ``align``.
    """
    _check_align(align)
    graph = graph_lib.get_graph_from_inputs([diagonal, k])
    with graph.as_default(), graph.name_scope(name or "MatrixDiagV3") as scope:
        if getattr(diagonal, "dtype", None) == dtypes_lib.bool:  # as TF: a bool tensor pads with a bool
            padding_value = bool(padding_value)
        diagonal = convert_to_tensor(diagonal, name="diagonal")
        inputs = [diagonal, convert_to_tensor(k, dtype=dtypes_lib.int32, name="k"),
                  convert_to_tensor(num_rows, dtype=dtypes_lib.int32, name="num_rows"),
                  convert_to_tensor(num_cols, dtype=dtypes_lib.int32, name="num_cols"),
                  convert_to_tensor(padding_value, dtype=diagonal.dtype.base_dtype, name="padding_value")]
        return graph.create_op("MatrixDiagV3", inputs, name=scope,
                               attrs={"T": diagonal.dtype.base_dtype, "align": align})._outputs[0]


# ----------------------------------------------------------------- MatrixSetDiagV3, MatrixSetDiag
def _infer_set_diag(op):
    x = op._inputs[0]
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.ndims} for {node(op)} with input "
                         f"shapes: {input_shapes(op)}.")
    return [(x.dtype.base_dtype, x.shape)]


def _set_diagonals(op, x, diagonal, lower: int, upper: int, align: str) -> np.ndarray:
    x, diagonal = np.asarray(x), np.asarray(diagonal)
    rows, cols = x.shape[-2:]
    width = max_diag_len(rows, cols, lower, upper)
    expected = x.shape[:-2] + (() if lower == upper else (upper - lower + 1,)) + (width,)
    if diagonal.shape != expected:
        raise errors.InvalidArgumentError(
            None, op, "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is "
            "not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: "
            f"[{','.join(map(str, x.shape))}]\nDiagonal shape: [{','.join(map(str, diagonal.shape))}]\nExpected "
            f"diagonal shape: [{','.join(map(str, expected))}]")
    return _place_diagonals(x.copy(), diagonal, lower, upper, align)


def _compute_matrix_set_diag_v3(ctx, op, inputs):
    lower, upper = diagonal_band(inputs[2], op)
    return _set_diagonals(op, inputs[0], inputs[1], lower, upper, op._attrs["align"])


kernels.register("MatrixSetDiagV3", infer=_infer_set_diag, compute=_compute_matrix_set_diag_v3,
                 default_attrs={"align": "RIGHT_LEFT"})
kernels.register("MatrixSetDiag", infer=_infer_set_diag,
                 compute=lambda ctx, op, inputs: _set_diagonals(op, inputs[0], inputs[1], 0, 0, "RIGHT_LEFT"))


def matrix_set_diag(input, diagonal, name: str = "set_diag", k=0, align: str = "RIGHT_LEFT") -> Tensor:
    """``input`` with diagonal ``k`` (or the band ``k = (lower, upper)``) set to ``diagonal`` (``MatrixSetDiagV3``).

    Raises:
        ValueError: for an unknown ``align``.
    """
    _check_align(align)
    graph = graph_lib.get_graph_from_inputs([input, diagonal, k])
    with graph.as_default(), graph.name_scope(name or "MatrixSetDiagV3") as scope:
        input = convert_to_tensor(input, name="input")
        diagonal = convert_to_tensor(diagonal, dtype=input.dtype.base_dtype, name="diagonal")
        k = convert_to_tensor(k, dtype=dtypes_lib.int32, name="k")
        return graph.create_op("MatrixSetDiagV3", [input, diagonal, k], name=scope,
                               attrs={"T": input.dtype.base_dtype, "align": align})._outputs[0]


# ----------------------------------------------------------------- MatrixBandPart
def _compute_matrix_band_part(ctx, op, inputs):
    x, num_lower, num_upper = np.asarray(inputs[0]), int(inputs[1]), int(inputs[2])
    rows, cols = x.shape[-2:]
    if num_lower > rows:
        raise errors.InvalidArgumentError(
            None, op, f"num_lower must be negative or less or equal to number of rows ({rows}) got: {num_lower}")
    if num_upper > cols:
        raise errors.InvalidArgumentError(
            None, op, f"num_upper must be negative or less or equal to number of columns ({cols}) got: {num_upper}")
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # column minus row: > 0 above the diagonal
    keep = ((num_lower < 0) | (-offset <= num_lower)) & ((num_upper < 0) | (offset <= num_upper))
    return np.where(keep, x, np.zeros((), dtype=x.dtype))


kernels.register("MatrixBandPart", infer=_infer_set_diag, compute=_compute_matrix_band_part)


def matrix_band_part(input, num_lower, num_upper, name: str | None = None) -> Tensor:
    """``input`` with everything outside the band of ``num_lower`` sub- and ``num_upper`` superdiagonals zeroed.

    A negative count keeps the whole triangle (``MatrixBandPart``).
    """
    graph = graph_lib.get_graph_from_inputs([input, num_lower, num_upper])
    with graph.as_default(), graph.name_scope(name or "MatrixBandPart") as scope:
        input = convert_to_tensor(input, name="input")
        num_lower = convert_to_tensor(num_lower, name="num_lower")
        index_dtype = num_lower.dtype.base_dtype if num_lower.dtype.base_dtype == dtypes_lib.int64 else dtypes_lib.int32
        num_lower = convert_to_tensor(num_lower, dtype=index_dtype, name="num_lower")
        num_upper = convert_to_tensor(num_upper, dtype=index_dtype, name="num_upper")
        return graph.create_op("MatrixBandPart", [input, num_lower, num_upper], name=scope,
                               attrs={"T": input.dtype.base_dtype, "Tindex": index_dtype})._outputs[0]


# ----------------------------------------------------------------- eye, trace
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes_lib.float32, name: str | None = None) -> Tensor:
    """Identity matrices ``[*batch_shape, num_rows, num_columns]``: ones through MatrixDiagV3 or MatrixSetDiagV3.

    Raises:
        TypeError: if static ``num_rows``/``num_columns`` are not integers.
    """
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size = math_ops.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, (int, np.integer)) or not isinstance(num_columns, (int, np.integer)):
                raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                                f"num_rows={num_rows}, num_columns={num_columns}")
            is_square = num_rows == num_columns
            diag_size = int(min(num_rows, num_columns))
        if isinstance(batch_shape, Tensor) or isinstance(diag_size, Tensor):
            batch_shape = convert_to_tensor(batch_shape, name="shape", dtype=dtypes_lib.int32)
            diag_shape = array_concat_ops.concat((batch_shape, [diag_size]), axis=0)
            shape = None if is_square else array_concat_ops.concat((batch_shape, [num_rows, num_columns]), axis=0)
        else:
            diag_shape = list(batch_shape) + [diag_size]
            shape = None if is_square else list(batch_shape) + [num_rows, num_columns]
        diag_ones = array_fill_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(array_fill_ops.zeros(shape, dtype=dtype), diag_ones)


def trace(x, name: str | None = None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix (``Sum`` of ``matrix_diag_part``, in scope ``Trace``)."""
    with name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return reduction_ops.reduce_sum(matrix_diag_part(x), [-1], name=scope)
