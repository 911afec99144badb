"""TF1's RNN cells on the legacy layer: RNNCell, LayerRNNCell, BasicRNNCell, GRUCell, MultiRNNCell.

Semantics, variable names and initializers are TensorFlow 2.21's ``tf.compat.v1.nn.rnn_cell``
(tf_keras/src/layers/rnn/legacy_cells.py):

- A cell is a ``tf.layers.Layer``: its variable scope opens on the first call with
  ``variable_scope(None, default_name=<snake-case class name>)``, so a BasicRNNCell driven by
  ``dynamic_rnn`` owns ``rnn/basic_rnn_cell/kernel`` and ``.../bias``; later calls reuse them.
- Kernels default to the scope's initializer, else glorot_uniform (``get_variable``'s default);
  biases to zeros, except GRU's ``gates/bias`` which starts at 1.0 (the gates start open).
- A plain ``RNNCell`` (MultiRNNCell, the wrappers) enters the caller's variable scope with a custom
  getter that records the variables it creates, then the layer scope; MultiRNNCell puts cell ``i``
  under ``cell_i``.
The LSTM cells live in rnn_cell_lstm, the wrappers in rnn_cell_wrappers.
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.base import nest
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor
from graph.layers import base_layer
from graph.ops import array_concat_ops
from graph.ops import array_fill_ops
from graph.ops import array_index_ops
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import nn_ops
from graph.variables import initializers
from graph.variables import variable_scope as vs
from graph.variables.partitioning import PartitionedVariable
from graph.variables.variable_collections import trainable_variables

__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "GRUCell", "MultiRNNCell", "assert_like_rnncell",
           "concat_shape", "zero_state_tensors", "check_supported_dtypes", "check_input_dtypes", "input_depth",
           "activation_or_tanh", "linear"]

WEIGHTS_VARIABLE_NAME = "kernel"
BIAS_VARIABLE_NAME = "bias"


def _has_attribute(value, name: str) -> bool:
    try:
        getattr(value, name)
    except AttributeError:
        return False
    return True


def assert_like_rnncell(cell_name: str, cell) -> None:
    """Raises TF's TypeError unless ``cell`` has output_size, state_size, zero_state and is callable."""
    conditions = [_has_attribute(cell, "output_size"), _has_attribute(cell, "state_size"),
                  _has_attribute(cell, "get_initial_state") or _has_attribute(cell, "zero_state"), callable(cell)]
    problems = ["'output_size' property is missing", "'state_size' property is missing",
                "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    if not all(conditions):
        missing = [problem for problem, holds in zip(problems, conditions) if not holds]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}.")


def _as_vector(value, what: str):
    """(1-D int32 tensor or None when not fully known, static list or None) for a size or shape."""
    if isinstance(value, Tensor):
        static = constant_ops.constant_value(value)
        static = None if static is None else [int(v) for v in static.reshape(-1)]
        if value.shape.ndims == 0:
            return array_ops.expand_dims(value, 0), static
        if value.shape.ndims != 1:
            raise ValueError(f"{what} tensor must be either a scalar or vector, but received tensor: {value}")
        return value, static
    shape = TensorShape(value)
    static = shape.as_list() if shape.ndims is not None else None
    vector = constant_ops.constant(static, dtype=dtypes_lib.int32) if shape.is_fully_defined() else None
    return vector, static


def concat_shape(prefix, suffix, static: bool = False):
    """``prefix`` then ``suffix`` (ints, TensorShapes or int tensors) as a 1-D int32 tensor, or a static list.

    Raises:
        ValueError: a tensor of rank > 1, or (``static=False``) a part not fully known.
    """
    prefix_vector, prefix_static = _as_vector(prefix, "Prefix")
    suffix_vector, suffix_static = _as_vector(suffix, "suffix")
    if static:
        shape = TensorShape(prefix_static).concatenate(TensorShape(suffix_static))
        return shape.as_list() if shape.ndims is not None else None
    if prefix_vector is None or suffix_vector is None:
        raise ValueError(f"Prefix or suffix can't be None. Received prefix = {prefix} and suffix = {suffix}")
    return array_concat_ops.concat((prefix_vector, suffix_vector), 0)


def zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of shape ``[batch_size] + s`` for each size ``s`` in the (nested) ``state_size``."""
    def zeros_for(size):
        zeros = array_fill_ops.zeros(concat_shape(batch_size, size), dtype=dtype)
        zeros.set_shape(concat_shape(batch_size, size, static=True))
        return zeros
    return nest.map_structure(zeros_for, state_size)


def check_supported_dtypes(dtype) -> None:
    """Raises TF's ValueError for a cell dtype that is neither floating nor complex."""
    if dtype is None:
        return
    dtype = dtypes_lib.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but received dtype: {dtype}")


def check_input_dtypes(values) -> None:
    """Raises TF's ValueError when a cell input or state is not floating point."""
    for value in nest.flatten(values):
        check_supported_dtypes(value.dtype)


def input_depth(input_shape) -> int:
    """The last dimension of a cell's input shape, which must be known to size the kernel."""
    depth = TensorShape(input_shape)[-1] if TensorShape(input_shape).ndims else None
    depth = getattr(depth, "value", depth)
    if depth is None:
        # TF's cells see the shape as a tuple of ints (tf_utils.shape_type_conversion).
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: "
                         f"{tuple(TensorShape(input_shape).as_list())}")
    return int(depth)


class RNNCell(base_layer.Layer):
    """Abstract RNN cell: ``(output, new_state) = cell(inputs, state)`` with ``state_size``/``output_size``."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        """Runs the cell on ``inputs`` and ``state`` inside ``scope`` (default: the caller's variable scope)."""
        if scope is not None:
            with vs.variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return super().__call__(inputs, state, scope=scope)
        # One variable scope object for every call: the cell's first call fixes where it lives.
        scope = getattr(self, "rnncell_scope", None)
        if scope is None:
            scope = vs.variable_scope(vs.get_variable_scope(), custom_getter=self._rnn_get_variable)
            self.rnncell_scope = scope
        with scope:
            return super().__call__(inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        variable = getter(*args, **kwargs)
        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        trainable = any(parts[0] is v for v in trainable_variables())
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in weights):
            weights.append(variable)
        return variable

    @property
    def state_size(self):
        """The size(s) of the state: an int, a TensorShape, or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """The size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, input_shape) -> None:
        """Creates no weights (subclasses with weights override it)."""
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state for ``inputs``' batch size and dtype (or the ones given).

        Raises:
            ValueError: when ``inputs`` disagree with ``batch_size``/``dtype`` or neither gives them.
        """
        if inputs is not None:
            inputs = graph_lib.convert_to_tensor(inputs, name="inputs")
            if batch_size is not None:
                static_batch = batch_size
                if isinstance(batch_size, Tensor):
                    static_batch = constant_ops.constant_value(batch_size)
                if inputs.shape.dims[0].value != static_batch:
                    raise ValueError("batch size from input tensor is different from the input param. Input tensor "
                                     f"batch: {inputs.shape.dims[0].value}, batch_size: {batch_size}")
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError("dtype from input tensor is different from the input param. Input tensor dtype: "
                                 f"{inputs.dtype}, dtype: {dtype}")
            batch_size = inputs.shape.dims[0].value or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial state: "
                             f"batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zero-filled state tensor(s) of shape ``[batch_size, s]`` for each ``s`` in ``state_size``."""
        with graph_lib.name_scope(type(self).__name__ + "ZeroState"):
            return zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An RNN cell whose variables live in its own layer scope (calls go straight to ``Layer.__call__``)."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        """Runs the cell in its layer scope (``scope`` names it on the first call)."""
        return base_layer.Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


def activation_or_tanh(activation):
    """A cell's activation: the callable given, a Keras name such as ``"relu"``, or tanh by default."""
    if not activation:
        return nn_ops.tanh
    if isinstance(activation, str):
        return getattr(nn_ops, activation)
    return activation


def linear(inputs, state, kernel, bias) -> Tensor:
    """``bias_add(matmul(concat([inputs, state], 1), kernel), bias)``: each cell's gate preactivation."""
    return nn_ops.bias_add(math_ops.matmul(array_concat_ops.concat([inputs, state], 1), kernel), bias)


class BasicRNNCell(LayerRNNCell):
    """The vanilla RNN cell: ``output = new_state = act(W [input, state] + b)``."""

    def __init__(self, num_units: int, activation=None, reuse=None, name: str | None = None, dtype=None,
                 **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activation_or_tanh(activation)

    state_size = property(lambda self: self._num_units, doc="num_units.")
    output_size = property(lambda self: self._num_units, doc="num_units.")

    def build(self, input_shape) -> None:
        """Creates ``kernel`` [depth + num_units, num_units] and ``bias`` [num_units] (zeros)."""
        depth = input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        self._kernel = self.add_weight(WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(BIAS_VARIABLE_NAME, shape=[self._num_units],
                                     initializer=initializers.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        """One step: the new state is also the output."""
        check_input_dtypes([inputs, state])
        output = self._activation(linear(inputs, state, self._kernel, self._bias))
        return output, output

    def get_config(self) -> dict:
        """The constructor arguments."""
        return {**super().get_config(), "num_units": self._num_units, "reuse": self._reuse}


class GRUCell(LayerRNNCell):
    """Gated Recurrent Unit cell (Cho et al. 2014): reset and update gates, then a candidate state."""

    def __init__(self, num_units: int, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name: str | None = None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activation_or_tanh(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    state_size = property(lambda self: self._num_units, doc="num_units.")
    output_size = property(lambda self: self._num_units, doc="num_units.")

    def build(self, input_shape) -> None:
        """Creates ``gates/kernel``, ``gates/bias`` (1.0), ``candidate/kernel`` and ``candidate/bias`` (zeros)."""
        depth = input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        units = self._num_units
        self._gate_kernel = self.add_weight(f"gates/{WEIGHTS_VARIABLE_NAME}", shape=[depth + units, 2 * units],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            f"gates/{BIAS_VARIABLE_NAME}", shape=[2 * units],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else initializers.constant_initializer(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_weight(f"candidate/{WEIGHTS_VARIABLE_NAME}", shape=[depth + units, units],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(
            f"candidate/{BIAS_VARIABLE_NAME}", shape=[units],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else initializers.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        """One step: ``h' = u * h + (1 - u) * act(W_c [x, r * h] + b_c)``."""
        check_input_dtypes([inputs, state])
        value = nn_ops.sigmoid(linear(inputs, state, self._gate_kernel, self._gate_bias))
        reset, update = array_concat_ops.split(value=value, num_or_size_splits=2, axis=1)
        candidate = self._activation(linear(inputs, reset * state, self._candidate_kernel, self._candidate_bias))
        new_h = update * state + (1 - update) * candidate
        return new_h, new_h

    def get_config(self) -> dict:
        """The constructor arguments."""
        return {**super().get_config(), "num_units": self._num_units, "reuse": self._reuse}


class MultiRNNCell(RNNCell):
    """Cells stacked in layers: cell ``i`` runs under scope ``cell_i`` on the output of cell ``i - 1``."""

    def __init__(self, cells, state_is_tuple: bool = True):
        """Stacks ``cells`` (a list or tuple).

        Raises:
            ValueError: no cells, or a cell with a tuple state while ``state_is_tuple`` is False.
            TypeError: ``cells`` is not a list or tuple.
        """
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not isinstance(cells, (list, tuple)):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(isinstance(c.state_size, (list, tuple)) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set. "
                             f"State sizes are: {[c.state_size for c in cells]}")

    @property
    def state_size(self):
        """Each cell's state size (a tuple), or their sum when the state is concatenated."""
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        """The last cell's output size."""
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        """Each cell's zero state (or their concatenation), under ``MultiRNNCellZeroState``."""
        with graph_lib.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self) -> list:
        """The stacked cells' trainable weights, in order."""
        if not self.trainable:
            return []
        return [w for cell in self._cells if isinstance(cell, base_layer.Layer) for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self) -> list:
        """The stacked cells' non-trainable weights (all of them when this cell is frozen)."""
        weights = [w for cell in self._cells if isinstance(cell, base_layer.Layer) for w in cell.non_trainable_weights]
        if not self.trainable:
            trainable = [w for cell in self._cells if isinstance(cell, base_layer.Layer)
                         for w in cell.trainable_weights]
            return trainable + weights
        return weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self) -> list:
        """Trainable then non-trainable weights."""
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    def call(self, inputs, state):
        """Runs each cell on the previous one's output; returns the last output and every new state."""
        position = 0
        current = inputs
        new_states = []
        for index, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{index}"):
                if self._state_is_tuple:
                    if not isinstance(state, (list, tuple)):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, "
                                         f"but received: {state}")
                    cell_state = state[index]
                else:
                    cell_state = array_index_ops.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        return current, tuple(new_states) if self._state_is_tuple else array_concat_ops.concat(new_states, 1)
