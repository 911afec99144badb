"""TensorShape and Dimension: static shapes with unknown dimensions, as TensorFlow 1.x has them.

``shape[i]`` is a ``Dimension`` (``.value`` is an int or None) as in TF1 graph code;
``as_list()`` gives plain ints and None.  ``str`` prints ``(?, 3)`` like TF1.
"""

from __future__ import annotations

__all__ = ["Dimension", "TensorShape", "as_shape", "unknown_shape", "dimension_value"]


class Dimension:
    """One dimension of a TensorShape: a non-negative int, or None when unknown."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            try:
                as_int = int(value.__index__()) if hasattr(value, "__index__") else int(value)
            except (TypeError, ValueError) as error:
                raise TypeError(f"Dimension value must be integer or None, got {value!r}") from error
            if as_int != value:
                raise TypeError(f"Dimension value must be integer or None, got {value!r}")
            if as_int < 0:
                raise ValueError(f"Dimension {as_int} must be >= 0")
            value = as_int
        self._value = value

    @property
    def value(self):
        """The int size, or None if unknown."""
        return self._value

    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def merge_with(self, other) -> Dimension:
        other = as_dimension(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return Dimension(self._value if self._value is not None else other.value)

    def assert_is_compatible_with(self, other) -> None:
        """Raises TF's ValueError unless this dimension and ``other`` are compatible."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is None or equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def _arith(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __lt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value < other.value

    def __le__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value <= other.value

    def __gt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value > other.value

    def __ge__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value >= other.value


# Dimensions never change once made, so the unknown one and small sizes are shared: shapes are built for every
# op, and one object per dimension per op would be most of a big graph's allocations.
_UNKNOWN = Dimension(None)
_SMALL = [Dimension(size) for size in range(1024)]


def as_dimension(value) -> Dimension:
    """Converts an int, None or Dimension to a Dimension."""
    if type(value) is int and 0 <= value < 1024:
        return _SMALL[value]
    if value is None:
        return _UNKNOWN
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The int (or None) inside a Dimension, or the value itself."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A possibly partially known shape: unknown rank (``dims is None``) or a list of Dimensions."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError(f"A string has ambiguous TensorShape, please wrap in a list or convert to an int: {dims!r}")
        else:
            try:
                items = list(dims)
            except TypeError:
                items = [dims]  # a bare int is a rank-1 shape, as TF accepts
            self._dims = tuple([as_dimension(d) for d in items])

    @property
    def dims(self):
        """The list of Dimensions, or None if the rank is unknown."""
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        """The rank, or None if unknown."""
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self):
        """The dimensions as ints and None.

        Raises:
            ValueError: if the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def as_tuple(self):
        return tuple(self.as_list())

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self):
        """The number of elements, or None if not fully defined."""
        if not self.is_fully_defined():
            return None
        count = 1
        for d in self._dims:
            count *= d.value
        return count

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is other._dims:  # the same dimensions (shapes share them): the common case
            return True
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is other._dims or (self._dims is not None and self._dims == other._dims):
            return self  # equal dimensions (each compared by identity first): nothing to merge
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        try:
            return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other._dims)])
        except ValueError as error:
            raise ValueError(f"Shapes {self} and {other} are not compatible") from error

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is None:
            return unknown_shape(rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, checked to have at least ``rank`` dimensions (TF's message otherwise)."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self):
        return self._dims is not None

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._dims is None or other._dims is None:
            return self._dims is None and other._dims is None
        return [d.value for d in self._dims] == [d.value for d in other._dims]

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(None if self._dims is None else tuple(d.value for d in self._dims))

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({[d for d in self._dims]!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def message_string(self) -> str:
        """The form TensorFlow's C++ errors print: ``[?,3]``, ``[]`` or ``<unknown>``."""
        if self._dims is None:
            return "<unknown>"
        return debug_string(self._dims)


def debug_string(dims) -> str:
    """Dimensions as TensorFlow's C++ messages print them (TensorShape::DebugString): ``[2,3]``."""
    return "[" + ",".join(str(d) for d in dims) + "]"


def as_shape(shape) -> TensorShape:
    """Converts a list, tuple, int, None or TensorShape to a TensorShape."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    """A shape of unknown rank, or of known rank with every dimension unknown."""
    return TensorShape(None) if rank is None else TensorShape([None] * rank)
