"""Math op builders and kernels: elementwise arithmetic, comparisons, logic, matmul, cast, reductions, range.

Builders create TensorFlow's op types with its attr names and its naming: a generated op
``tf.maximum(x, 1.0)`` opens scope ``Maximum`` and converts Python inputs there as
``Maximum/y``; the Tensor operators (``x + 1``) open the lower-case scope TF uses
(``add``, ``mul``, ``truediv`` ...).  Static shapes broadcast as numpy does.  This module
also installs the Tensor operator overloads (+ - * / // % ** @, unary -, abs, ~,
comparisons, & | ^ and ``__getitem__``).
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.base import errors
from graph.base import kernels
from graph.core import graph as graph_lib
from graph.ops import constant_ops as ops
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.base.shapes import TensorShape

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "div", "floordiv", "floor_div", "mod", "floormod",
    "pow", "negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sign", "floor", "ceil", "round",
    "reciprocal", "maximum", "minimum", "squared_difference", "matmul", "cast", "to_float", "to_int32",
    "to_int64", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
    "reduce_prod", "reduce_any", "reduce_all", "range", "add_n", "argmax", "argmin", "sin", "cos", "is_nan",
    "is_inf", "is_finite", "broadcast_static_shape",
]

# ----------------------------------------------------------------- shape inference helpers
def broadcast_static_shape(shape_x: TensorShape, shape_y: TensorShape) -> TensorShape:
    """The numpy-broadcast of two static shapes.

    Raises:
        ValueError: if they cannot broadcast.
    """
    if shape_x.ndims is None or shape_y.ndims is None:
        return TensorShape(None)
    x, y = shape_x.as_list(), shape_y.as_list()
    rank = max(len(x), len(y))
    x, y = [1] * (rank - len(x)) + x, [1] * (rank - len(y)) + y
    out = []
    for a, b in zip(x, y):
        if a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None:
            out.append(b)
        elif b is None or a == b:
            out.append(a)
        else:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}. Shapes are "
                             f"{shape_x.message_string()} and {shape_y.message_string()}.")
    return TensorShape(out)


def _infer_broadcast(out_dtype=None):
    def infer(op):
        x, y = op._inputs[0], op._inputs[1]
        try:
            shape = broadcast_static_shape(x.shape, y.shape)
        except ValueError as error:
            raise ValueError(f"{error} for '{op.name}' ({op.type}) with input shapes: "
                             f"{x.shape.message_string()}, {y.shape.message_string()}.") from None
        return [(out_dtype or x.dtype.base_dtype, shape)]
    return infer


def _infer_unary(out_dtype=None):
    def infer(op):
        x = op._inputs[0]
        return [(out_dtype or x.dtype.base_dtype, x.shape)]
    return infer


def _as_array(value, op):
    return value if type(value) is np.ndarray else np.asarray(value, dtype=op._outputs[0]._dtype.numpy_dtype)


def _elementwise(function, quiet: bool = False):
    """A kernel applying a numpy function and casting to the op's output dtype."""
    def compute(ctx, op, inputs):
        if quiet:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                result = function(*inputs)
        else:
            result = function(*inputs)
        numpy_dtype = op._outputs[0]._dtype.numpy_dtype
        return np.asarray(result, dtype=numpy_dtype)
    return compute


def _truncate_div(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise errors.InvalidArgumentError("Integer division by zero")
        quotient = np.floor_divide(x, y)
        fix = (quotient < 0) & (quotient * y != x)
        return quotient + fix
    return np.true_divide(x, y)


def _floor_div(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise errors.InvalidArgumentError("Integer division by zero")
    return np.floor_divide(x, y)


def _floor_mod(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise errors.InvalidArgumentError("Integer division by zero")
    return np.mod(x, y)


def _round_half_even(x):
    return np.round(x)


_BINARY = {
    "AddV2": (np.add, False), "Add": (np.add, False), "Sub": (np.subtract, False), "Mul": (np.multiply, False),
    "RealDiv": (np.true_divide, True), "Div": (_truncate_div, True), "TruncateDiv": (_truncate_div, True),
    "FloorDiv": (_floor_div, True), "FloorMod": (_floor_mod, True), "Pow": (np.power, True),
    "Maximum": (np.maximum, False), "Minimum": (np.minimum, False),
    "SquaredDifference": (lambda x, y: np.square(np.subtract(x, y)), False),
    "DivNoNan": (lambda x, y: np.where(np.asarray(y) == 0, 0, np.true_divide(x, np.where(np.asarray(y) == 0, 1, y))),
                 True),
    "Atan2": (np.arctan2, False),
}
for _type, (_function, _quiet) in _BINARY.items():
    kernels.register(_type, infer=_infer_broadcast(), compute=_elementwise(_function, _quiet))

_COMPARISONS = {"Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater,
                "GreaterEqual": np.greater_equal, "Equal": np.equal, "NotEqual": np.not_equal}
for _type, _function in _COMPARISONS.items():
    kernels.register(_type, infer=_infer_broadcast(dtypes_lib.bool), compute=_elementwise(_function),
                     default_attrs={"incompatible_shape_error": True} if _type in ("Equal", "NotEqual") else None)
for _type, _function in {"LogicalAnd": np.logical_and, "LogicalOr": np.logical_or}.items():
    kernels.register(_type, infer=_infer_broadcast(dtypes_lib.bool), compute=_elementwise(_function))

_UNARY = {
    "Neg": (np.negative, False), "Abs": (np.abs, False), "Square": (np.square, False), "Sqrt": (np.sqrt, True),
    "Rsqrt": (lambda x: 1 / np.sqrt(x), True), "Exp": (np.exp, True), "Log": (np.log, True),
    "Log1p": (np.log1p, True), "Sign": (np.sign, False), "Floor": (np.floor, False), "Ceil": (np.ceil, False),
    "Round": (_round_half_even, False), "Reciprocal": (lambda x: 1 / np.asarray(x), True), "Sin": (np.sin, False),
    "Cos": (np.cos, False), "Tan": (np.tan, True), "Expm1": (np.expm1, True),
    "LogicalNot": (np.logical_not, False),
}
for _type, (_function, _quiet) in _UNARY.items():
    kernels.register(_type, infer=_infer_unary(), compute=_elementwise(_function, _quiet))
for _type, _function in {"IsNan": np.isnan, "IsInf": np.isinf, "IsFinite": np.isfinite}.items():
    kernels.register(_type, infer=_infer_unary(dtypes_lib.bool), compute=_elementwise(_function))


# ----------------------------------------------------------------- generic builders
_NO_T_ATTR = frozenset(("LogicalAnd", "LogicalOr", "LogicalNot"))


def _mismatch(op_type, x, y):
    return TypeError(f"Input 'y' of '{op_type}' Op has type {y.dtype.base_dtype.name} that does not match type "
                     f"{x.dtype.base_dtype.name} of argument 'x'.")


def _binary_op(op_type: str, x, y, name, extra_attrs=None) -> Tensor:
    """A generated binary op: scope ``name or op_type``; Python inputs become ``<scope>/x`` and ``<scope>/y``."""
    graph = graph_lib._graph_of([x, y])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        if not isinstance(x, Tensor) and isinstance(y, Tensor):
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
        x = convert_to_tensor(x, name="x")
        if isinstance(y, Tensor) or hasattr(y, "_as_graph_element"):
            y = convert_to_tensor(y)
            if y.dtype.base_dtype != x.dtype.base_dtype:
                raise _mismatch(op_type, x, y)
        else:
            y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        attrs = {} if op_type in _NO_T_ATTR else {"T": x.dtype.base_dtype}
        if extra_attrs:
            attrs.update(extra_attrs)
        return graph.create_op(op_type, [x, y], name=scope, attrs=attrs)._outputs[0]


def _unary_op(op_type: str, x, name) -> Tensor:
    graph = graph_lib._graph_of([x])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        x = convert_to_tensor(x, name="x")
        attrs = {} if op_type in _NO_T_ATTR else {"T": x.dtype.base_dtype}
        return graph.create_op(op_type, [x], name=scope, attrs=attrs)._outputs[0]


def add(x, y, name: str | None = None) -> Tensor:
    """x + y (``AddV2``; ``Add`` for strings), in scope ``Add``."""
    with name_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return _binary_op("Add" if x.dtype.base_dtype == dtypes_lib.string else "AddV2", x, y, scope)


def subtract(x, y, name: str | None = None) -> Tensor:
    """x - y (``Sub``)."""
    return _binary_op("Sub", x, y, name)


def multiply(x, y, name: str | None = None) -> Tensor:
    """x * y (``Mul``)."""
    return _binary_op("Mul", x, y, name)


def _truediv(x, y, name) -> Tensor:
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y") if not isinstance(y, Tensor) else y
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != "
                            f"{y.dtype.base_dtype!r}.")
        base = x.dtype.base_dtype
        target = {"int8": dtypes_lib.float32, "uint8": dtypes_lib.float32, "int16": dtypes_lib.float32,
                  "uint16": dtypes_lib.float32, "int32": dtypes_lib.float64, "int64": dtypes_lib.float64}.get(base.name)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return _binary_op("RealDiv", x, y, scope)


def truediv(x, y, name: str | None = None) -> Tensor:
    """x / y with Python 3 semantics: integers are cast to floating point first (``RealDiv``)."""
    return _truediv(x, y, name)


def divide(x, y, name: str | None = None) -> Tensor:
    """x / y (``truediv``)."""
    return _truediv(x, y, name)


def div(x, y, name: str | None = None) -> Tensor:
    """TF1 ``tf.div``: Python 2 semantics (floor division for integers via ``Div``, else ``RealDiv``)."""
    with name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_floating or x.dtype.is_complex:
            return _binary_op("RealDiv", x, y, scope)
        return _binary_op("FloorDiv", x, y, scope)


def floordiv(x, y, name: str | None = None) -> Tensor:
    """Floor division (``FloorDiv``) in scope ``floordiv``."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return _binary_op("FloorDiv", x, y, scope)


floor_div = floordiv


def mod(x, y, name: str | None = None) -> Tensor:
    """Floor modulus (``FloorMod``)."""
    return _binary_op("FloorMod", x, y, name)


floormod = mod


def pow(x, y, name: str | None = None) -> Tensor:
    """x ** y (``Pow``) in scope ``Pow``."""
    with name_scope(name, "Pow", [x]) as scope:
        return _binary_op("Pow", x, y, scope)


def maximum(x, y, name: str | None = None) -> Tensor:
    """Elementwise max (``Maximum``)."""
    return _binary_op("Maximum", x, y, name)


def minimum(x, y, name: str | None = None) -> Tensor:
    """Elementwise min (``Minimum``)."""
    return _binary_op("Minimum", x, y, name)


def squared_difference(x, y, name: str | None = None) -> Tensor:
    """(x - y)^2 (``SquaredDifference``)."""
    return _binary_op("SquaredDifference", x, y, name)


def negative(x, name: str | None = None) -> Tensor:
    """-x (``Neg``)."""
    return _unary_op("Neg", x, name)


def abs(x, name: str | None = None) -> Tensor:
    """|x| (``Abs``) in scope ``Abs``."""
    with name_scope(name, "Abs", [x]) as scope:
        return _unary_op("Abs", x, scope)


def _make_unary(op_type):
    def builder(x, name: str | None = None) -> Tensor:
        return _unary_op(op_type, x, name)
    builder.__name__ = op_type.lower()
    builder.__doc__ = f"The ``{op_type}`` op."
    return builder


square, sqrt, rsqrt, exp, log = (_make_unary(t) for t in ("Square", "Sqrt", "Rsqrt", "Exp", "Log"))
log1p, sign, floor, ceil, reciprocal = (_make_unary(t) for t in ("Log1p", "Sign", "Floor", "Ceil", "Reciprocal"))
sin, cos, logical_not = (_make_unary(t) for t in ("Sin", "Cos", "LogicalNot"))
is_nan, is_inf, is_finite = (_make_unary(t) for t in ("IsNan", "IsInf", "IsFinite"))


def round(x, name: str | None = None) -> Tensor:
    """Round half to even (``Round``); integers pass through."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return _unary_op("Round", x, name)


def _comparison(op_type):
    def builder(x, y, name: str | None = None) -> Tensor:
        extra = {"incompatible_shape_error": True} if op_type in ("Equal", "NotEqual") else None
        return _binary_op(op_type, x, y, name, extra)
    builder.__name__ = op_type.lower()
    builder.__doc__ = f"Elementwise ``{op_type}`` (a bool tensor)."
    return builder


less, less_equal, greater, greater_equal, equal, not_equal = (
    _comparison(t) for t in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"))


def logical_and(x, y, name: str | None = None) -> Tensor:
    """x AND y (``LogicalAnd``)."""
    return _binary_op("LogicalAnd", x, y, name)


def logical_or(x, y, name: str | None = None) -> Tensor:
    """x OR y (``LogicalOr``)."""
    return _binary_op("LogicalOr", x, y, name)


def logical_xor(x, y, name: str = "LogicalXor") -> Tensor:
    """x XOR y, built as TF does: (x | y) & ~(x & y)."""
    return _binary_op("LogicalAnd", logical_or(x, y), logical_not(logical_and(x, y)), name)


# ----------------------------------------------------------------- cast
def _compute_cast(ctx, op, inputs):
    return np.asarray(inputs[0]).astype(op._attrs["DstT"].numpy_dtype)


kernels.register("Cast", infer=lambda op: [(op._attrs["DstT"], op._inputs[0].shape)], compute=_compute_cast,
                 default_attrs={"Truncate": False})


def cast(x, dtype, name: str | None = None) -> Tensor:
    """``x`` converted to ``dtype`` (a ``Cast`` op, or ``x`` itself if it already has that dtype)."""
    base = dtypes_lib.as_dtype(dtype).base_dtype
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == base:
            return x
        return x.graph.create_op("Cast", [x], name=scope,
                                 attrs={"SrcT": x.dtype.base_dtype, "DstT": base, "Truncate": False})._outputs[0]


def to_float(x, name: str = "ToFloat") -> Tensor:
    """Cast to float32."""
    return cast(x, dtypes_lib.float32, name=name)


def to_int32(x, name: str = "ToInt32") -> Tensor:
    """Cast to int32."""
    return cast(x, dtypes_lib.int32, name=name)


def to_int64(x, name: str = "ToInt64") -> Tensor:
    """Cast to int64."""
    return cast(x, dtypes_lib.int64, name=name)


# ----------------------------------------------------------------- matmul
def _infer_matmul(op):
    a, b = op._inputs
    ta, tb = op._attrs["transpose_a"], op._attrs["transpose_b"]
    rows = cols = None
    if a.shape.ndims is not None:
        if a.shape.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {a.shape.ndims} for '{op.name}' (MatMul).")
        rows = a.shape[1 if ta else 0].value
        inner_a = a.shape[0 if ta else 1].value
    else:
        inner_a = None
    if b.shape.ndims is not None:
        if b.shape.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {b.shape.ndims} for '{op.name}' (MatMul).")
        cols = b.shape[0 if tb else 1].value
        inner_b = b.shape[1 if tb else 0].value
    else:
        inner_b = None
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ValueError(f"Dimensions must be equal, but are {inner_a} and {inner_b} for '{op.name}' (op: 'MatMul') "
                         f"with input shapes: {a.shape.message_string()}, {b.shape.message_string()}.")
    return [(a.dtype.base_dtype, TensorShape([rows, cols]))]


def _compute_matmul(ctx, op, inputs):
    a, b = inputs
    if op._attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if op._attrs["transpose_b"]:
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            None, op, f"Matrix size-incompatible: In[0]: {list(a.shape)}, In[1]: {list(b.shape)}")
    return np.matmul(a, b).astype(op._outputs[0]._dtype.numpy_dtype, copy=False)


def _infer_batch_matmul(op):
    a, b = op._inputs
    if a.shape.ndims is None or b.shape.ndims is None:
        return [(a.dtype.base_dtype, TensorShape(None))]
    sa, sb = a.shape.as_list(), b.shape.as_list()
    if op._attrs["adj_x"]:
        sa[-1], sa[-2] = sa[-2], sa[-1]
    if op._attrs["adj_y"]:
        sb[-1], sb[-2] = sb[-2], sb[-1]
    batch = broadcast_static_shape(TensorShape(sa[:-2]), TensorShape(sb[:-2]))
    return [(a.dtype.base_dtype, batch.concatenate([sa[-2], sb[-1]]))]


def _compute_batch_matmul(ctx, op, inputs):
    a, b = inputs
    if op._attrs["adj_x"]:
        a = np.conj(np.swapaxes(a, -1, -2))
    if op._attrs["adj_y"]:
        b = np.conj(np.swapaxes(b, -1, -2))
    return np.matmul(a, b).astype(op._outputs[0]._dtype.numpy_dtype, copy=False)


kernels.register("MatMul", infer=_infer_matmul, compute=_compute_matmul,
                 default_attrs={"transpose_a": False, "transpose_b": False, "grad_a": False, "grad_b": False})
kernels.register("BatchMatMulV2", infer=_infer_batch_matmul, compute=_compute_batch_matmul,
                 default_attrs={"adj_x": False, "adj_y": False, "grad_x": False, "grad_y": False})


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: str | None = None) -> Tensor:
    """Matrix product (``MatMul`` for rank 2, ``BatchMatMulV2`` above), in scope ``MatMul``."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b") if not isinstance(b, Tensor) else b
        if a.dtype.base_dtype != b.dtype.base_dtype:
            raise TypeError(f"Input 'b' of 'MatMul' Op has type {b.dtype.base_dtype.name} that does not match type "
                            f"{a.dtype.base_dtype.name} of argument 'a'.")
        rank_a, rank_b = a.shape.ndims, b.shape.ndims
        if (rank_a is not None and rank_a > 2) or (rank_b is not None and rank_b > 2):
            attrs = {"T": a.dtype.base_dtype, "adj_x": bool(transpose_a or adjoint_a),
                     "adj_y": bool(transpose_b or adjoint_b), "grad_x": False, "grad_y": False}
            return a.graph.create_op("BatchMatMulV2", [a, b], name=scope, attrs=attrs)._outputs[0]
        attrs = {"T": a.dtype.base_dtype, "transpose_a": bool(transpose_a or adjoint_a),
                 "transpose_b": bool(transpose_b or adjoint_b), "grad_a": False, "grad_b": False}
        return a.graph.create_op("MatMul", [a, b], name=scope, attrs=attrs)._outputs[0]


# ----------------------------------------------------------------- reductions
def _reduction_axes(op, rank):
    value = ops.constant_value(op._inputs[1])
    if value is None:
        return None
    axes = np.asarray(value).reshape(-1).tolist()
    if rank is None:
        return axes
    for axis in axes:
        if not -rank <= axis < rank:
            raise ValueError(f"Invalid reduction dimension {axis} for input with {rank} dimensions. for "
                             f"'{op.name}' ({op.type}).")
    return sorted({axis % rank for axis in axes})


def _infer_reduction(out_dtype=None):
    def infer(op):
        x = op._inputs[0]
        dtype = out_dtype or x.dtype.base_dtype
        keep = op._attrs.get("keep_dims", False)
        rank = x.shape.ndims
        axes = _reduction_axes(op, rank)
        if rank is None:
            return [(dtype, TensorShape(None))]
        if axes is None:
            return [(dtype, TensorShape([None] * rank) if keep else TensorShape(None))]
        dims = x.shape.as_list()
        if keep:
            return [(dtype, TensorShape([1 if i in axes else d for i, d in enumerate(dims)]))]
        return [(dtype, TensorShape([d for i, d in enumerate(dims) if i not in axes]))]
    return infer


def _reduce_kernel(function):
    def compute(ctx, op, inputs):
        x, axes = inputs
        x = np.asarray(x)
        axes = tuple(int(a) % x.ndim if x.ndim else int(a) for a in np.asarray(axes).reshape(-1))
        for axis in axes:
            if x.ndim and not 0 <= axis < x.ndim:
                raise errors.InvalidArgumentError(None, op, f"Invalid reduction dimension {axis}")
        with np.errstate(invalid="ignore", divide="ignore"):
            if x.ndim == 0:
                result = x
            elif function in (np.max, np.min) and x.size == 0:
                fill = op._outputs[0]._dtype
                empty_shape = [1 if i in axes else d for i, d in enumerate(x.shape)] if op._attrs["keep_dims"] \
                    else [d for i, d in enumerate(x.shape) if i not in axes]
                value = fill.min if function is np.max else fill.max
                result = np.full(empty_shape, value)
            else:
                result = function(x, axis=axes, keepdims=bool(op._attrs["keep_dims"]))
        return np.asarray(result, dtype=op._outputs[0]._dtype.numpy_dtype)
    return compute


def _mean(x, axis, keepdims):
    if x.dtype.kind in "iu":
        total = np.sum(x, axis=axis, keepdims=keepdims)
        count = int(np.prod([x.shape[a] for a in axis])) if axis else 1
        return total // count if count else total
    return np.mean(x, axis=axis, keepdims=keepdims)


_REDUCTIONS = {"Sum": np.sum, "Mean": _mean, "Max": np.max, "Min": np.min, "Prod": np.prod,
               "Any": np.any, "All": np.all}
for _type, _function in _REDUCTIONS.items():
    kernels.register(_type, infer=_infer_reduction(dtypes_lib.bool if _type in ("Any", "All") else None),
                     compute=_reduce_kernel(_function), default_attrs={"keep_dims": False})


def _lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new_value if new_value is not None else old_value


def _reduction_dims(x: Tensor, axis):
    if axis is not None:
        return axis
    rank = x.shape.ndims
    if rank is not None:
        return ops.constant(np.arange(rank, dtype=np.int32))
    from graph.ops import array_ops
    return range(0, array_ops.rank(x), 1)


def _reduce(op_type: str, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_lookup("keepdims", keepdims, "keep_dims", keep_dims) or False)
    input_tensor = convert_to_tensor(input_tensor)
    if op_type in ("Any", "All") and not input_tensor.dtype.is_bool:
        raise TypeError(f"Value passed to parameter 'input' has DataType {input_tensor.dtype.base_dtype.name} not in "
                        "list of allowed values: bool")
    dims = _reduction_dims(input_tensor, axis)
    graph = input_tensor.graph
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        dims = convert_to_tensor(dims, name="reduction_indices", preferred_dtype=dtypes_lib.int32)
        attrs = {"keep_dims": keepdims, "Tidx": dims.dtype.base_dtype}
        if op_type not in ("Any", "All"):
            attrs["T"] = input_tensor.dtype.base_dtype
        return graph.create_op(op_type, [input_tensor, dims], name=scope, attrs=attrs)._outputs[0]


def _make_reduction(op_type, doc):
    def builder(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        return _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
    builder.__doc__ = doc
    return builder


reduce_sum = _make_reduction("Sum", "Sum over ``axis`` (all axes if None); TF1 ``keep_dims``/``reduction_indices``.")
reduce_mean = _make_reduction("Mean", "Mean over ``axis`` (integer inputs give the truncated integer mean).")
reduce_max = _make_reduction("Max", "Maximum over ``axis``.")
reduce_min = _make_reduction("Min", "Minimum over ``axis``.")
reduce_prod = _make_reduction("Prod", "Product over ``axis``.")
reduce_any = _make_reduction("Any", "Logical OR over ``axis``.")
reduce_all = _make_reduction("All", "Logical AND over ``axis``.")


# ----------------------------------------------------------------- range, add_n, argmax
def _infer_range(op):
    values = [ops.constant_value(t) for t in op._inputs]
    dtype = op._attrs["Tidx"]
    if any(v is None for v in values):
        return [(dtype, TensorShape([None]))]
    start, limit, delta = (v.item() for v in values)
    if delta == 0:
        raise ValueError(f"Requires delta != 0 for '{op.name}' (Range).")
    length = max(0, int(np.ceil((limit - start) / delta)))
    return [(dtype, TensorShape([length]))]


def _compute_range(ctx, op, inputs):
    start, limit, delta = (np.asarray(v).item() for v in inputs)
    if delta == 0:
        raise errors.InvalidArgumentError(None, op, "Requires delta != 0: 0")
    return np.arange(start, limit, delta, dtype=op._attrs["Tidx"].numpy_dtype)


kernels.register("Range", infer=_infer_range, compute=_compute_range)

_RANGE_HIERARCHY = ["int32", "int64", "float16", "bfloat16", "float32", "float64"]


def range(start, limit=None, delta=1, dtype=None, name: str = "range") -> Tensor:
    """A 1-D ``Range`` tensor [start, limit) in steps of ``delta``."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        start = convert_to_tensor(start, dtype=dtype, name="start")
        limit = convert_to_tensor(limit, dtype=dtype, name="limit")
        delta = convert_to_tensor(delta, dtype=dtype, name="delta")
        if dtype is None:
            inferred = max((t.dtype.base_dtype for t in (start, limit, delta)),
                           key=lambda d: _RANGE_HIERARCHY.index(d.name))
            start, limit, delta = cast(start, inferred), cast(limit, inferred), cast(delta, inferred)
        return start.graph.create_op("Range", [start, limit, delta], name=scope,
                                     attrs={"Tidx": start.dtype.base_dtype})._outputs[0]


def _infer_add_n(op):
    shape = op._inputs[0].shape
    for tensor in op._inputs[1:]:
        shape = shape.merge_with(tensor.shape)
    return [(op._inputs[0].dtype.base_dtype, shape)]


def _compute_add_n(ctx, op, inputs):
    total = np.array(inputs[0], copy=True)
    for value in inputs[1:]:
        total = total + value
    return total.astype(op._outputs[0]._dtype.numpy_dtype, copy=False)


kernels.register("AddN", infer=_infer_add_n, compute=_compute_add_n)


def add_n(inputs, name: str | None = None) -> Tensor:
    """Sum of a list of same-shape tensors (``AddN``; one input is returned as is, or through Identity if named)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and "
                         "shape")
    inputs = [convert_to_tensor(t) for t in inputs]
    if len(inputs) == 1:
        return ops.identity(inputs[0], name=name) if name else inputs[0]
    dtype = inputs[0].dtype.base_dtype
    if any(t.dtype.base_dtype != dtype for t in inputs):
        raise TypeError("inputs must be a list of at least one Tensor with the same dtype and shape")
    graph = inputs[0].graph
    return ops._scoped_op(graph, "AddN", inputs, name=name or "AddN", attrs={"N": len(inputs), "T": dtype})._outputs[0]


def _infer_arg(op):
    x = op._inputs[0]
    axis = ops.constant_value(op._inputs[1])
    dtype = op._attrs["output_type"]
    if x.shape.ndims is None or axis is None:
        return [(dtype, TensorShape(None) if x.shape.ndims is None else TensorShape([None] * (x.shape.ndims - 1)))]
    axis = int(axis) % x.shape.ndims
    return [(dtype, TensorShape([d for i, d in enumerate(x.shape.as_list()) if i != axis]))]


def _arg_kernel(function):
    def compute(ctx, op, inputs):
        x, axis = inputs
        return np.asarray(function(x, axis=int(axis)), dtype=op._attrs["output_type"].numpy_dtype)
    return compute


kernels.register("ArgMax", infer=_infer_arg, compute=_arg_kernel(np.argmax))
kernels.register("ArgMin", infer=_infer_arg, compute=_arg_kernel(np.argmin))


def _arg(op_type, input, axis, name, dimension, output_type):
    axis = _lookup("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    input = convert_to_tensor(input)
    graph = input.graph
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        axis = convert_to_tensor(axis, name="dimension", preferred_dtype=dtypes_lib.int32)
        attrs = {"T": input.dtype.base_dtype, "Tidx": axis.dtype.base_dtype,
                 "output_type": dtypes_lib.as_dtype(output_type)}
        return graph.create_op(op_type, [input, axis], name=scope, attrs=attrs)._outputs[0]


def argmax(input, axis=None, name: str | None = None, dimension=None, output_type=dtypes_lib.int64) -> Tensor:
    """Index of the largest value along ``axis`` (``ArgMax``)."""
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name: str | None = None, dimension=None, output_type=dtypes_lib.int64) -> Tensor:
    """Index of the smallest value along ``axis`` (``ArgMin``)."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


# ----------------------------------------------------------------- Tensor operators
def _operator(op_name, function, reverse=False):
    """TF's binary_op_wrapper: scope ``op_name``; the other operand converted to this tensor's dtype."""
    def forward(x, y):
        if not isinstance(y, (Tensor, np.ndarray, np.generic, int, float, bool, complex, list, tuple, str, bytes)) \
                and not hasattr(y, "_as_graph_element"):
            return NotImplemented
        with name_scope(None, op_name, [x, y]) as scope:
            if not isinstance(y, Tensor):
                try:
                    y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
                except TypeError:
                    if hasattr(y, "_as_graph_element"):
                        y = convert_to_tensor(y)
                    else:
                        raise
            return function(x, y, scope)

    def backward(y, x):
        with name_scope(None, op_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return function(x, y, scope)
    return backward if reverse else forward


def _and(x, y, name):
    return _binary_op("LogicalAnd", x, y, name) if x.dtype.is_bool else _binary_op("BitwiseAnd", x, y, name)


def _or(x, y, name):
    return _binary_op("LogicalOr", x, y, name) if x.dtype.is_bool else _binary_op("BitwiseOr", x, y, name)


def _xor(x, y, name):
    if x.dtype.is_bool:
        return _binary_op("LogicalAnd", logical_or(x, y), logical_not(logical_and(x, y)), name)
    return _binary_op("BitwiseXor", x, y, name)


for _type, _function in {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
                         "BitwiseXor": np.bitwise_xor}.items():
    kernels.register(_type, infer=_infer_broadcast(), compute=_elementwise(_function))


def _add_operator(x, y, name):
    return _binary_op("Add" if x.dtype.base_dtype == dtypes_lib.string else "AddV2", x, y, name)


def _matmul_operator(x, y, name):
    return matmul(x, y, name=name)


def _truediv_operator(x, y, name):
    return _truediv(x, y, name)


def _floordiv_operator(x, y, name):
    return _binary_op("FloorDiv", x, y, name)


_BINARY_OPERATORS = {
    "add": _add_operator,
    "sub": lambda x, y, name: _binary_op("Sub", x, y, name),
    "mul": lambda x, y, name: _binary_op("Mul", x, y, name),
    "truediv": _truediv_operator,
    "floordiv": _floordiv_operator,
    "mod": lambda x, y, name: _binary_op("FloorMod", x, y, name),
    "pow": lambda x, y, name: _binary_op("Pow", x, y, name),
    "matmul": _matmul_operator,
    "and": _and,
    "or": _or,
    "xor": _xor,
}
for _op_name, _function in _BINARY_OPERATORS.items():
    Tensor._override_operator(f"__{_op_name}__", _operator(_op_name, _function))
    Tensor._override_operator(f"__r{_op_name}__", _operator(_op_name, _function, reverse=True))
Tensor._override_operator("__div__", _operator("truediv", _truediv_operator))
Tensor._override_operator("__neg__", lambda x: negative(x))
Tensor._override_operator("__abs__", lambda x: abs(x))
Tensor._override_operator("__invert__", lambda x: logical_not(x))
Tensor._override_operator("__lt__", lambda x, y: less(x, y))
Tensor._override_operator("__le__", lambda x, y: less_equal(x, y))
Tensor._override_operator("__gt__", lambda x, y: greater(x, y))
Tensor._override_operator("__ge__", lambda x, y: greater_equal(x, y))


def _getitem(tensor, slice_spec):
    from graph.ops import array_ops
    return array_ops._slice_helper(tensor, slice_spec)


Tensor._override_operator("__getitem__", _getitem)
