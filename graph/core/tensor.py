"""Tensor and the conversion of Python values to Tensors (convert_to_tensor and its registry).

A Tensor is a symbolic handle to one output of an Operation: its dtype, its static
shape (refined by ``set_shape``), the ops consuming it and the operators the op modules
install through ``Tensor._override_operator``.  ``convert_to_tensor`` turns Variables,
arrays, lists and Python numbers into Tensors through the functions registered with
``register_tensor_conversion_function`` by the modules that own those types (graph.ops.constant_ops:
numbers, arrays and shapes; graph.ops.array_ops: lists of tensors; graph.variables.variables: Variable).
"""

from __future__ import annotations

from collections.abc import Callable

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape, as_shape
from graph.core import default_session

# Operation and Graph appear in annotations only, as names: both modules import this one.


__all__ = ["Tensor", "is_tensor", "convert_to_tensor", "register_tensor_conversion_function"]


class Tensor:
    """A symbolic handle to one output of an Operation, named '<op name>:<index>'."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__")
    # With v2 behaviour disabled, == and != compare identity (TF1 graph mode).
    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int, dtype, shape=None):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype if type(dtype) is dtypes_lib.DType else dtypes_lib.as_dtype(dtype)
        if type(shape) is not TensorShape:
            shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._shape = shape
        self._consumers: list[Operation] | tuple = ()  # a list from the first consumer on (most have none)

    @property
    def op(self) -> Operation:
        """The Operation that produces this tensor."""
        return self._op

    @property
    def value_index(self) -> int:
        """The index of this tensor among its op's outputs."""
        return self._value_index

    @property
    def dtype(self) -> dtypes_lib.DType:
        """The element type."""
        return self._dtype

    @property
    def graph(self) -> Graph:
        """The Graph that contains this tensor."""
        return self._op.graph

    @property
    def name(self) -> str:
        """'<op name>:<output index>'."""
        return f"{self._op.name}:{self._value_index}"

    @property
    def device(self) -> str:
        """The device of the op producing this tensor."""
        return self._op.device

    @property
    def shape(self) -> TensorShape:
        """The static shape, possibly partially known."""
        return self._shape

    def get_shape(self) -> TensorShape:
        """The static shape (TF1 spelling)."""
        return self._shape

    def set_shape(self, shape) -> None:
        """Refines the static shape.

        Raises:
            ValueError: if ``shape`` is not compatible with the current shape.
        """
        self._shape = self._shape.merge_with(as_shape(shape))
        self._op._encoded = None  # its NodeDef's _output_shapes may change

    def consumers(self) -> list[Operation]:
        """The ops that use this tensor as a data input."""
        return list(self._consumers)

    def _add_consumer(self, op: Operation) -> None:
        if self._consumers:
            self._consumers.append(op)
        else:
            self._consumers = [op]

    def eval(self, feed_dict=None, session=None):
        """Runs the graph up to this tensor in ``session`` (default: the default session)."""
        return default_session.run_using_default_session(self, feed_dict, self.graph, session)

    def _as_node_def_input(self) -> str:
        """The input string a NodeDef uses: 'op' for output 0, else 'op:i'."""
        return self._op.name if self._value_index == 0 else f"{self._op.name}:{self._value_index}"

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        # TF1's str(Tensor), which TF's error messages embed: Tensor("x:0", shape=(?, 3), dtype=float32)
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name}{device})'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __bool__(self):
        raise TypeError(
            "Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` instead of "
            "`if t:` to test if a tensor is defined, and use TensorFlow ops such as tf.cond to execute "
            "subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        shape = self._shape
        if shape.ndims is None or shape.ndims == 0 or shape[0].value is None:
            # TF raises its OperatorNotAllowedInGraphError, a TypeError that tf.errors does not export.
            raise TypeError("Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following "
                            "resolutions to the problem: If you are running in Graph mode, use Eager execution "
                            "mode or decorate this function with @tf.function.")
        for index in range(shape[0].value):
            yield self[index]

    def __len__(self):
        raise TypeError(f"len is not well defined for symbolic Tensors. ({self.name}) "
                        "Please call `x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array. This error may indicate "
            "that you're trying to pass a Tensor to a NumPy call, which is not supported.")

    @classmethod
    def _override_operator(cls, operator: str, func: Callable) -> None:
        """Installs ``func`` as ``Tensor.<operator>``; ops modules use this for + - * / @ etc."""
        setattr(cls, operator, func)


def is_tensor(value) -> bool:
    """``tf.is_tensor``: True for a graph Tensor and for what TF counts as tensor-like (Variables, SparseTensors,
    IndexedSlices: classes declaring ``_is_tensor_like``); False for numpy arrays, Python values and Operations."""
    return isinstance(value, Tensor) or getattr(type(value), "_is_tensor_like", False)


# (priority, base type, function), kept sorted by priority: convert_to_tensor tries them in order.
_conversion_functions: list[tuple[int, type | tuple, Callable]] = []


def register_tensor_conversion_function(base_type, conversion_func: Callable, priority: int = 100) -> None:
    """Registers ``conversion_func(value, dtype=None, name=None, as_ref=False) -> Tensor`` for
    values of ``base_type``; lower priority runs first."""
    _conversion_functions.append((priority, base_type, conversion_func))
    _conversion_functions.sort(key=lambda entry: entry[0])


def convert_to_tensor(value, dtype=None, name: str | None = None, preferred_dtype=None,
                      as_ref: bool = False) -> Tensor:
    """Converts ``value`` (Tensor, Variable, array, list, Python number...) to a Tensor.

    Raises:
        ValueError: if a Tensor's dtype differs from the requested ``dtype``, or ``value`` is None.
        TypeError: if no conversion function accepts ``value``.
    """
    dtype = None if dtype is None else dtypes_lib.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            # TF's Tensor.__tf_tensor__ puts the conversion's name in front ("component_1: ..." from a queue).
            prefix = "" if name is None else f"{name}: "
            raise ValueError(f"{prefix}Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    if value is None:
        raise ValueError("None values not supported.")  # TF's make_tensor_proto(None), e.g. weights=None
    if dtype is None and preferred_dtype is not None:
        try:
            return convert_to_tensor(value, preferred_dtype, name, None, as_ref)
        except (TypeError, ValueError):
            pass
    tf_tensor = getattr(type(value), "__tf_tensor__", None)  # TF's conversion protocol (Operation refuses)
    if tf_tensor is not None:
        return tf_tensor(value, dtype, name)
    for _, base_type, func in _conversion_functions:
        if isinstance(value, base_type):
            result = func(value, dtype=dtype, name=name, as_ref=as_ref)
            if result is NotImplemented:
                continue
            if not isinstance(result, Tensor):
                raise RuntimeError(f"Conversion function {func!r} returned non-Tensor: {result!r}")
            if dtype is not None and not dtype.is_compatible_with(result.dtype):
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                                 f"{result.dtype.name}: {result!r}")
            return result
    raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. Contents: {value!r}. "
                    "Consider casting elements to a supported type.")
