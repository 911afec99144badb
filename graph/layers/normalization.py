"""``tf.layers.BatchNormalization`` and ``batch_normalization``: TF1's batch norm layer with its moving statistics.

As TensorFlow 2.21's legacy layer builds it (Keras' v1 BatchNormalization under
``tf_keras/src/legacy_tf_layers/normalization.py``): weights ``gamma``, ``beta`` (trainable),
``moving_mean``, ``moving_variance`` (not trainable); 4-D inputs normalized over axis 1 or 3 use one
``FusedBatchNormV3`` (``fused=None`` means "when possible"), others ``tf.nn.moments`` +
``tf.nn.batch_normalization``.  ``training`` is a bool or a boolean tensor (then ``tf.cond`` picks batch
or moving statistics); while training, the layer's updates ``moving -= (moving - batch) * (1 - momentum)``
(``AssignMovingAvg`` ops) go to ``tf.GraphKeys.UPDATE_OPS``, which the training op must depend on.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor
from graph.layers.base_layer import Layer
from graph.layers.core import smart_cond
from graph.layers.input_spec import InputSpec
from graph.ops import array_ops, math_ops, nn_batchnorm_ops, nn_impl, nn_statistics, state_ops
from graph.ops import constant_ops as ops
from graph.variables import initializers as init_ops
from graph.variables import variable_scope as vs

__all__ = ["BatchNormalization", "batch_normalization"]

# Axes FusedBatchNormV3 normalizes over, by data format (Keras' fused condition).
_FUSED_FORMATS = {(1, 4): "NCHW", (3, 4): "NHWC", (1, 5): "NCDHW", (4, 5): "NDHWC"}


def _constant_value(pred):
    if isinstance(pred, Tensor):
        value = ops.constant_value(pred)
        return None if value is None else bool(value)
    return bool(pred)


class BatchNormalization(Layer):
    """Normalizes inputs by batch statistics while training and by moving averages in inference."""

    def __init__(self, axis=-1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer=None, gamma_initializer=None, moving_mean_initializer=None,
                 moving_variance_initializer=None, beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, renorm: bool = False, renorm_clipping=None,
                 renorm_momentum: float = 0.99, fused=None, trainable: bool = True, virtual_batch_size=None,
                 adjustment=None, name: str | None = None, **kwargs):
        super().__init__(name=name, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis!r}")
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization with renorm, virtual_batch_size or adjustment is not "
                                      "emulated")
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer or init_ops.zeros_initializer()
        self.gamma_initializer = gamma_initializer or init_ops.ones_initializer()
        self.moving_mean_initializer = moving_mean_initializer or init_ops.zeros_initializer()
        self.moving_variance_initializer = moving_variance_initializer or init_ops.ones_initializer()
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        self.fused = True if fused is None else fused  # TF1: "fused when the input allows it", decided in build
        self.trainable = trainable
        self.supports_masking = True

    def _fused_can_be_used(self) -> bool:
        axis = [self.axis] if isinstance(self.axis, int) else self.axis
        return len(axis) == 1 and axis[0] in (-4, -3, -1, 1, 3, 4) and self.dtype in ("float16", "bfloat16",
                                                                                      "float32", None)

    @property
    def _param_dtype(self) -> dtypes_lib.DType:
        if self.dtype in ("float16", "bfloat16"):
            return dtypes_lib.float32
        return dtypes_lib.as_dtype(self.dtype or dtypes_lib.float32)

    def build(self, input_shape) -> None:
        """Creates gamma, beta, moving_mean and moving_variance of the normalized axes' shape.

        Raises:
            ValueError: unknown rank, an axis out of range or of unknown size, or a fused axis not 1 or 3.
        """
        input_shape = TensorShape(input_shape)
        rank = input_shape.ndims
        if not rank:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}")
        axis = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        axis = [a + rank if a < 0 else a for a in axis]
        for a in axis:
            if a < 0 or a >= rank:
                raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                                 f"inputs.rank={rank}). Received: axis={tuple(axis)}")
        if len(axis) != len(set(axis)):
            raise ValueError(f"Duplicate axis: {tuple(axis)}")
        self.axis = axis
        if self.fused:
            self.fused = rank in (4, 5) and self._fused_can_be_used()
        if self.fused:
            self._data_format = _FUSED_FORMATS.get((axis[0], rank))
            if self._data_format is None:
                if rank == 5:
                    self.fused = False
                else:
                    raise ValueError("Unsupported axis. The use of `fused=True` is only possible with `axis=1` or "
                                     f"`axis=3` for 4D input tensors. Received: axis={tuple(axis)}")
        axis_to_dim = {a: input_shape.dims[a].value for a in axis}
        if any(dim is None for dim in axis_to_dim.values()):
            raise ValueError(f"Input has undefined `axis` dimension. Received input with shape {tuple(input_shape)} "
                             f"and axis={tuple(axis)}")
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axis_to_dim) == 1:
            param_shape = (list(axis_to_dim.values())[0],)
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
        self._param_shape = param_shape
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", shape=param_shape, dtype=self._param_dtype,
                                         initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, trainable=True)
        if self.center:
            self.beta = self.add_weight("beta", shape=param_shape, dtype=self._param_dtype,
                                        initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, trainable=True)
        # Moving statistics are never partitioned (TF lifts the scope's partitioner while creating them).
        partitioner = self._scope.partitioner if self._scope else None
        if partitioner:
            self._scope.set_partitioner(None)
        try:
            on_read, mean_aggregation = vs.VariableSynchronization.ON_READ, vs.VariableAggregation.MEAN
            self.moving_mean = self.add_weight(
                "moving_mean", shape=param_shape, dtype=self._param_dtype, initializer=self.moving_mean_initializer,
                synchronization=on_read, trainable=False, aggregation=mean_aggregation)
            self.moving_variance = self.add_weight(
                "moving_variance", shape=param_shape, dtype=self._param_dtype,
                initializer=self.moving_variance_initializer, synchronization=on_read, trainable=False,
                aggregation=mean_aggregation)
        finally:
            if partitioner:
                self._scope.set_partitioner(partitioner)
        self.built = True

    def _assign_moving_average(self, variable, value, momentum):
        with graph_lib.name_scope("AssignMovingAvg") as scope:
            with graph_lib.colocate_with(variable):
                decay = graph_lib.convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = math_ops.cast(decay, variable.dtype.base_dtype)
                update_delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
                return state_ops.assign_sub(variable, update_delta, name=scope)

    def call(self, inputs, training=False):
        """Normalizes ``inputs``; ``training`` (bool or boolean tensor) picks batch or moving statistics."""
        inputs = math_ops.cast(inputs, self.dtype)
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        input_shape = inputs.shape
        ndims = len(input_shape)
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.dims[self.axis[0]].value

        def _broadcast(v):
            if v is not None and len(v.shape) != ndims and reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v
        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)
        training_value = _constant_value(training)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            keep_dims = len(self.axis) > 1
            mean, variance = nn_impl.moments(math_ops.cast(inputs, self._param_dtype), reduction_axes,
                                             keep_dims=keep_dims)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = smart_cond(training, lambda: mean, lambda: graph_lib.convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: variance, lambda: graph_lib.convert_to_tensor(moving_variance))
            new_mean, new_variance = mean, variance
            self.add_update(lambda: smart_cond(
                training, lambda: self._assign_moving_average(self.moving_mean, new_mean, self.momentum),
                lambda: self.moving_mean))
            self.add_update(lambda: smart_cond(
                training, lambda: self._assign_moving_average(self.moving_variance, new_variance, self.momentum),
                lambda: self.moving_variance))
        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        if offset is not None:
            offset = math_ops.cast(offset, inputs.dtype)
        if scale is not None:
            scale = math_ops.cast(scale, inputs.dtype)
        outputs = nn_statistics.batch_normalization(inputs, _broadcast(mean), _broadcast(variance), offset, scale,
                                                    self.epsilon)
        outputs.set_shape(input_shape)
        return outputs

    def _fused_batch_norm(self, inputs, training):
        beta = self.beta if self.center else ops.constant(0.0, dtype=self._param_dtype, shape=self._param_shape)
        gamma = self.gamma if self.scale else ops.constant(1.0, dtype=self._param_dtype, shape=self._param_shape)

        def fused(is_training):
            return lambda: nn_batchnorm_ops.fused_batch_norm(
                inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance, epsilon=self.epsilon,
                is_training=is_training, data_format=self._data_format)
        output, mean, variance = smart_cond(training, fused(True), fused(False))
        training_value = _constant_value(training)
        if training_value or training_value is None:
            if training_value is None:
                momentum = smart_cond(training, lambda: self.momentum, lambda: 1.0)
            else:
                momentum = graph_lib.convert_to_tensor(self.momentum)
            self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(lambda: self._assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def compute_output_shape(self, input_shape) -> TensorShape:
        """The input shape."""
        return TensorShape(input_shape)


def batch_normalization(inputs, axis=-1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                        scale: bool = True, beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None, beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable: bool = True, name: str | None = None, reuse=None, renorm: bool = False,
                        renorm_clipping=None, renorm_momentum: float = 0.99, fused=None, virtual_batch_size=None,
                        adjustment=None) -> Tensor:
    """Functional `BatchNormalization`; run ``tf.get_collection(tf.GraphKeys.UPDATE_OPS)`` with the train op."""
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer, moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer, beta_constraint=beta_constraint,
        gamma_constraint=gamma_constraint, renorm=renorm, renorm_clipping=renorm_clipping,
        renorm_momentum=renorm_momentum, fused=fused, trainable=trainable, virtual_batch_size=virtual_batch_size,
        adjustment=adjustment, name=name, _reuse=reuse, _scope=name)
    return layer(inputs, training=training)
