"""``tf.layers.InputSpec``: the rank, dtype and axis sizes a layer accepts, and Keras' check of inputs against it."""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base import nest
from graph.base.shapes import TensorShape

__all__ = ["InputSpec", "assert_input_compatibility"]


class InputSpec:
    """The rank, dtype, shape and axis sizes a layer accepts (``tf.layers.InputSpec``)."""

    def __init__(self, dtype=None, shape=None, ndim: int | None = None, max_ndim: int | None = None,
                 min_ndim: int | None = None, axes: dict | None = None, allow_last_axis_squeeze: bool = False,
                 name: str | None = None):
        self.dtype = dtypes_lib.as_dtype(dtype).name if dtype is not None else None
        shape = TensorShape(shape)
        self.shape = shape.as_list() if shape.ndims is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = False
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            if max(self.axes) > max_dim:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self) -> str:
        spec = [f"{key}={value}" for key, value in (
            ("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim), ("max_ndim", self.max_ndim),
            ("min_ndim", self.min_ndim), ("axes", self.axes or None)) if value is not None]
        return f"InputSpec({', '.join(spec)})"


def _display_shape(shape: TensorShape) -> str:
    return str(tuple(shape.as_list()))


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raises Keras' ValueError when ``inputs`` break a layer's ``input_spec``."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    tensors = nest.flatten(inputs)
    if len(tensors) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
                         f"{len(tensors)} input tensors. Inputs received: {tensors}")
    for index, (x, spec) in enumerate(zip(tensors, specs)):
        if spec is None:
            continue
        shape = TensorShape(x.shape)
        if shape.ndims is None:
            return
        prefix = f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
        ndim = shape.ndims
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(f"{prefix}expected ndim={spec.ndim}, found ndim={ndim}. "
                             f"Full shape received: {tuple(shape)}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(f"{prefix}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(f"{prefix}expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                             f"Full shape received: {tuple(shape)}")
        if spec.dtype is not None and x.dtype.name != spec.dtype:
            raise ValueError(f"{prefix}expected dtype={spec.dtype}, found dtype={x.dtype}")
        dims = shape.as_list()
        for axis, value in spec.axes.items():
            value = getattr(value, "value", value)
            if value is not None and dims[axis] not in (value, None):
                raise ValueError(f"{prefix}expected axis {axis} of input shape to have value {value}, "
                                 f"but received input with shape {_display_shape(shape)}")
        if spec.shape is not None:
            for spec_dim, dim in zip(spec.shape, dims):
                if spec_dim is not None and dim is not None and spec_dim != dim:
                    raise ValueError(f"{prefix}expected shape={spec.shape}, found shape={_display_shape(shape)}")
