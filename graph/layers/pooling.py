"""``tf.layers`` pooling: MaxPooling1D/2D, AveragePooling1D/2D and their functional forms.

As TensorFlow 2.21's legacy layers build them (Keras' pooling layers): the 2-D layers call
``tf.nn.max_pool`` / ``avg_pool`` (``max_pooling2d/MaxPool``); the 1-D layers expand a spatial axis,
pool in 2-D and squeeze it again.  No weights.
"""

from __future__ import annotations

from graph.base.shapes import TensorShape
from graph.core.graph import Tensor
from graph.layers.base_layer import Layer
from graph.layers.convolutional import conv_output_length, normalize_data_format, normalize_tuple
from graph.layers.input_spec import InputSpec
from graph.ops import array_ops, pooling_ops

__all__ = ["MaxPooling1D", "max_pooling1d", "AveragePooling1D", "average_pooling1d", "MaxPooling2D",
           "max_pooling2d", "AveragePooling2D", "average_pooling2d"]


class _Pooling(Layer):
    """Shared by the pooling layers: argument checks and the output shape."""

    _rank = 2
    _pool_function = staticmethod(pooling_ops.max_pool)

    def __init__(self, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs):
        super().__init__(name=name, **kwargs)
        if data_format is None:
            data_format = "channels_last"
        if strides is None:
            strides = pool_size
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = normalize_tuple(strides, self._rank, "strides", allow_zero=True)
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(f'The `padding` argument must be a list/tuple or one of "valid", "same". '
                             f"Received: {padding}")
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def compute_output_shape(self, input_shape) -> TensorShape:
        """The input shape with each spatial length pooled."""
        shape = TensorShape(input_shape).as_list()
        spatial_axes = range(1, self._rank + 1) if self.data_format == "channels_last" else range(2, self._rank + 2)
        for i, axis in enumerate(spatial_axes):
            shape[axis] = conv_output_length(shape[axis], self.pool_size[i], self.padding, self.strides[i])
        return TensorShape(shape)


class _Pooling2D(_Pooling):
    def call(self, inputs):
        """``tf.nn.max_pool`` or ``avg_pool`` with TF's 4-element window and strides."""
        if self.data_format == "channels_last":
            pool_shape, strides, data_format = (1,) + self.pool_size + (1,), (1,) + self.strides + (1,), "NHWC"
        else:
            pool_shape, strides, data_format = (1, 1) + self.pool_size, (1, 1) + self.strides, "NCHW"
        return self._pool_function(inputs, ksize=pool_shape, strides=strides, padding=self.padding.upper(),
                                   data_format=data_format)


class _Pooling1D(_Pooling):
    _rank = 1

    def call(self, inputs):
        """Keras' backend.pool2d over an expanded axis, squeezed again."""
        if self.data_format == "channels_first":
            raise NotImplementedError("channels_first 1-D pooling is not emulated (TF transposes to NHWC after "
                                      "probing the devices through a Keras session)")
        inputs = array_ops.expand_dims(inputs, 2)
        outputs = self._pool_function(inputs, (1,) + self.pool_size + (1, 1), strides=(1,) + self.strides + (1, 1),
                                      padding=self.padding.upper(), data_format="NHWC")
        return array_ops.squeeze(outputs, [2])


class MaxPooling2D(_Pooling2D):
    """2-D max pooling over [batch, height, width, channels] (or channels first)."""

    def __init__(self, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format, name=name, **kwargs)


class AveragePooling2D(_Pooling2D):
    """2-D average pooling over [batch, height, width, channels] (or channels first)."""

    _pool_function = staticmethod(pooling_ops.avg_pool)

    def __init__(self, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format, name=name, **kwargs)


class MaxPooling1D(_Pooling1D):
    """1-D max pooling over [batch, length, channels]."""

    def __init__(self, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format, name=name, **kwargs)


class AveragePooling1D(_Pooling1D):
    """1-D average pooling over [batch, length, channels]."""

    _pool_function = staticmethod(pooling_ops.avg_pool)

    def __init__(self, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs):
        super().__init__(pool_size, strides, padding=padding, data_format=data_format, name=name, **kwargs)


def max_pooling2d(inputs, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                  name: str | None = None) -> Tensor:
    """Functional `MaxPooling2D`."""
    return MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def average_pooling2d(inputs, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                      name: str | None = None) -> Tensor:
    """Functional `AveragePooling2D`."""
    return AveragePooling2D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def max_pooling1d(inputs, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                  name: str | None = None) -> Tensor:
    """Functional `MaxPooling1D`."""
    return MaxPooling1D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)


def average_pooling1d(inputs, pool_size, strides, padding: str = "valid", data_format: str = "channels_last",
                      name: str | None = None) -> Tensor:
    """Functional `AveragePooling1D`."""
    return AveragePooling1D(pool_size, strides, padding=padding, data_format=data_format, name=name)(inputs)

