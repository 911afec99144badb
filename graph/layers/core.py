"""``tf.layers`` Dense, Dropout and Flatten: classes and their functional forms, with TF's graphs.

Each builds the ops TensorFlow 2.21's legacy layers build (Keras' Dense, Dropout, Flatten under
``tf_keras/src/legacy_tf_layers/core.py``): Dense is ``MatMul`` + ``BiasAdd`` (``Tensordot`` for inputs
of rank > 2), Dropout is ``tf.nn.dropout`` under a ``smart_cond`` on ``training`` with the layer's seed
advanced at each application, Flatten a ``Reshape``.
"""

from __future__ import annotations

import functools
import numbers
import operator

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape, dimension_value
from graph.core import graph as graph_lib
from graph.core.graph import Tensor
from graph.layers.base_layer import Layer
from graph.layers.input_spec import InputSpec
from graph.ops import array_concat_ops, array_index_ops, array_ops, control_flow_ops, linalg_ops, math_ops
from graph.ops import nn_activation_ops, nn_ops, reduction_ops
from graph.ops import constant_ops as ops
from graph.variables import initializers as init_ops

__all__ = ["Dense", "dense", "Dropout", "dropout", "Flatten", "flatten"]

# Keras' activation names a legacy layer accepts in place of a function.
_ACTIVATIONS = {
    "linear": None, "relu": nn_ops.relu, "relu6": nn_ops.relu6, "elu": nn_ops.elu, "selu": nn_activation_ops.selu,
    "sigmoid": nn_ops.sigmoid, "tanh": nn_ops.tanh, "softmax": nn_ops.softmax, "softplus": nn_ops.softplus,
    "softsign": nn_activation_ops.softsign,
}


def get_activation(activation):
    """A callable (or None for linear) from a function, None or one of Keras' activation names.

    Raises:
        ValueError: for an unknown activation name.
    """
    if activation is None or callable(activation):
        return activation
    if isinstance(activation, str) and activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise ValueError(f"Unknown activation function: '{activation}'. Please ensure you are using a "
                     "`keras.utils.custom_object_scope` and that this object is included in the scope.")


def smart_cond(pred, true_fn, false_fn, name: str | None = None):
    """``true_fn()``/``false_fn()`` when ``pred`` is known while building, else a ``tf.cond`` (as Keras does)."""
    if isinstance(pred, Tensor):
        value = ops.constant_value(pred)
        if value is None:
            return control_flow_ops.cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)
        pred = bool(value)
    elif not isinstance(pred, (bool, int)) or pred not in (0, 1):
        raise TypeError(f"`predicate` must be a Tensor, or a Python bool, or 1 or 0. Found instead: {pred}")
    return true_fn() if pred else false_fn()


def _tensordot_last_axis(inputs: Tensor, kernel, name: str = "Tensordot") -> Tensor:
    """``tf.tensordot(inputs, kernel, [[rank - 1], [0]])`` with the ops TF builds for a 2-D static kernel."""
    with graph_lib.name_scope(name, "Tensordot", [inputs, kernel]) as scope:
        shape_a = inputs.shape.as_list()
        rank = len(shape_a)
        axes, free = [rank - 1], list(range(rank - 1))
        units = kernel.shape.as_list()[-1]
        if inputs.shape.is_fully_defined():
            # Static shapes: free axes come first already, so TF only reshapes (no transpose).
            new_shape = [int(functools.reduce(operator.mul, shape_a[:-1], 1)), shape_a[-1]]
            reshaped = inputs if shape_a == new_shape else array_ops.reshape(inputs, new_shape)
            product = linalg_ops.matmul(reshaped, kernel)
            if product.shape.as_list() == shape_a[:-1] + [units]:
                return product
            return array_ops.reshape(product, shape_a[:-1] + [units], name=scope)
        free_static = [shape_a[i] for i in free]
        axes_tensor = ops.constant(axes, dtype=dtypes_lib.int32, name="axes")
        free_tensor = ops.constant(free, dtype=dtypes_lib.int32, name="free")
        shape = array_ops.shape(inputs)
        free_dims = array_index_ops.gather(shape, free_tensor)
        axes_dims = array_index_ops.gather(shape, axes_tensor)
        prod_free, prod_axes = reduction_ops.reduce_prod(free_dims), reduction_ops.reduce_prod(axes_dims)
        perm = array_concat_ops.concat([free_tensor, axes_tensor], 0)
        new_shape = array_concat_ops.stack([prod_free, prod_axes])
        permuted = array_ops.transpose(inputs, perm)
        product = linalg_ops.matmul(array_ops.reshape(permuted, new_shape), kernel)
        units_tensor = ops.constant([units], dtype=dtypes_lib.int32)
        result = array_ops.reshape(product, array_concat_ops.concat([free_dims, units_tensor], 0), name=scope)
        result.set_shape(free_static + [units])
        return result


class Dense(Layer):
    """Densely connected layer: ``activation(inputs @ kernel + bias)``."""

    def __init__(self, units: int, activation=None, use_bias: bool = True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable: bool = True,
                 name: str | None = None, **kwargs):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units) if not isinstance(units, int) else units
        if self.units < 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: "
                             f"units={units}")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer if bias_initializer is not None else init_ops.zeros_initializer()
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape) -> None:
        """Creates ``kernel`` [last input dim, units] and ``bias`` [units].

        Raises:
            TypeError: for a non-floating dtype.
            ValueError: when the inputs' last dimension is unknown.
        """
        dtype = dtypes_lib.as_dtype(self.dtype or dtypes_lib.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"A Dense layer can only be built with a floating-point dtype. Received: dtype={dtype}")
        input_shape = TensorShape(input_shape)
        last_dim = dimension_value(input_shape[-1])
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight("kernel", shape=[last_dim, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      dtype=self.dtype, trainable=True)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self.dtype, trainable=True)
        self.built = True

    def call(self, inputs):
        """``inputs @ kernel`` (over the last axis), plus bias, through the activation."""
        if inputs.dtype.base_dtype != dtypes_lib.as_dtype(self.dtype):
            inputs = math_ops.cast(inputs, self.dtype)
        rank = inputs.shape.ndims
        if rank == 2 or rank is None:
            outputs = linalg_ops.matmul(inputs, self.kernel)
        else:
            outputs = _tensordot_last_axis(inputs, self.kernel)
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.kernel.shape.as_list()[-1]])
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape) -> TensorShape:
        """The input shape with its last dimension replaced by ``units``.

        Raises:
            ValueError: for a rank below 2 (or unknown) or an unknown last dimension.
        """
        input_shape = TensorShape(input_shape).with_rank_at_least(2)
        if input_shape.ndims is None or dimension_value(input_shape[-1]) is None:
            raise ValueError("The last dimension of the input shape of a Dense layer should be defined. "
                             f"Found None. Received: input_shape={input_shape}")
        return input_shape[:-1].concatenate([self.units])


def dense(inputs, units: int, activation=None, use_bias: bool = True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
          kernel_constraint=None, bias_constraint=None, trainable: bool = True, name: str | None = None,
          reuse=None) -> Tensor:
    """Functional `Dense`: ``name`` is the variable scope itself (pass ``reuse=True`` to share it)."""
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


class Dropout(Layer):
    """Zeroes a fraction ``rate`` of the inputs while training and scales the rest by 1 / (1 - rate)."""

    def __init__(self, rate: float = 0.5, noise_shape=None, seed: int | None = None, name: str | None = None,
                 **kwargs):
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value between 0 and 1.")
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self._next_seed = seed  # Keras' RandomGenerator.make_legacy_seed: the seed advances per application
        self.supports_masking = True

    def _legacy_seed(self) -> int | None:
        seed = self._next_seed
        if seed is not None:
            self._next_seed = seed + 1
        return seed

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        shape = array_ops.shape(inputs)
        return graph_lib.convert_to_tensor([shape[i] if value is None else value
                                            for i, value in enumerate(self.noise_shape)])

    def call(self, inputs, training=False):
        """Dropout when ``training`` (a bool or a boolean tensor), else ``tf.identity(inputs)``."""
        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return ops.identity(inputs)

        def dropped_inputs():
            return nn_ops.dropout(inputs, rate=self.rate, noise_shape=self._get_noise_shape(inputs),
                                  seed=self._legacy_seed())
        return smart_cond(training, dropped_inputs, lambda: ops.identity(inputs))

    def compute_output_shape(self, input_shape) -> TensorShape:
        """The input shape."""
        return TensorShape(input_shape)


def dropout(inputs, rate: float = 0.5, noise_shape=None, seed: int | None = None, training=False,
            name: str | None = None) -> Tensor:
    """Functional `Dropout` (identity unless ``training``)."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer(inputs, training=training)


class Flatten(Layer):
    """Flattens every axis but the first (the batch): [N, d1, d2, ...] -> [N, d1 * d2 * ...]."""

    def __init__(self, data_format: str | None = None, **kwargs):
        super().__init__(**kwargs)
        data_format = (data_format or "channels_last").lower()
        if data_format not in ("channels_first", "channels_last"):
            raise ValueError('The `data_format` argument must be one of "channels_first", "channels_last". '
                             f"Received: {data_format}")
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        """Reshapes to [batch, -1], a constant shape when the non-batch dimensions are known."""
        if self.data_format == "channels_first" and inputs.shape.ndims not in (None, 1):
            rank = inputs.shape.ndims
            inputs = array_ops.transpose(inputs, perm=[0] + list(range(2, rank)) + [1])
        input_shape = inputs.shape
        if input_shape.ndims == 1:
            return array_ops.expand_dims(inputs, axis=1)
        batch_dim = dimension_value(input_shape[0])
        non_batch_dims = input_shape[1:]
        if non_batch_dims.is_fully_defined():
            last_dim = int(functools.reduce(operator.mul, non_batch_dims.as_list(), 1))
            flattened_shape = ops.constant([-1, last_dim])
        elif batch_dim is not None:
            flattened_shape = ops.constant([int(batch_dim), -1])
        else:
            flattened_shape = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, flattened_shape)

    def compute_output_shape(self, input_shape) -> TensorShape:
        """[batch, product of the other dimensions (None if any is unknown)]."""
        input_shape = TensorShape(input_shape).as_list()
        rest = input_shape[1:]
        size = None if any(d is None for d in rest) else int(functools.reduce(operator.mul, rest, 1))
        return TensorShape([input_shape[0], size])


def flatten(inputs, name: str | None = None, data_format: str = "channels_last") -> Tensor:
    """Functional `Flatten`."""
    return Flatten(name=name, data_format=data_format)(inputs)
