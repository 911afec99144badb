"""TF1's LSTM cells: LSTMStateTuple, BasicLSTMCell and LSTMCell (peepholes, projection, clipping).

As TensorFlow 2.21's legacy cells (tf_keras/src/layers/rnn/legacy_cells.py): one ``kernel``
[depth + h, 4 * units] whose columns are the gates ``i, j, f, o`` in that order, a zero ``bias``,
``forget_bias`` added to ``f`` at run time (not in the bias), and for LSTMCell the peephole
diagonals ``w_f_diag``, ``w_i_diag``, ``w_o_diag`` and the ``projection/kernel``.
"""

from __future__ import annotations

import collections

from graph.base import dtypes as dtypes_lib
from graph.layers import base_layer
from graph.layers.rnn_cell_impl import (BIAS_VARIABLE_NAME, WEIGHTS_VARIABLE_NAME, LayerRNNCell, activation_or_tanh,
                                        check_input_dtypes, check_supported_dtypes, input_depth, linear)
from graph.ops import array_concat_ops
from graph.ops import array_index_ops
from graph.ops import clip_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import nn_ops
from graph.variables import initializers
from graph.variables import partitioning
from graph.platform import tf_logging as logging

__all__ = ["LSTMStateTuple", "BasicLSTMCell", "LSTMCell"]

_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTuple):
    """An LSTM state ``(c, h)``: the cell state and the output (hidden) state."""

    __slots__ = ()

    @property
    def dtype(self) -> dtypes_lib.DType:
        """The common dtype of ``c`` and ``h``.

        Raises:
            TypeError: when ``c`` and ``h`` differ in dtype.
        """
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _concatenated_state_warning(cell) -> None:
    logging.warning("%s: Using a concatenated state is slower and will soon be deprecated.  "
                    "Use state_is_tuple=True.", cell)


class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM cell (Zaremba et al. 2014): no peepholes, no projection, ``forget_bias`` on ``f``."""

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True, activation=None,
                 reuse=None, name: str | None = None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        if not state_is_tuple:
            _concatenated_state_warning(self)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation_or_tanh(activation)

    @property
    def state_size(self):
        """``LSTMStateTuple(num_units, num_units)``, or ``2 * num_units`` for a concatenated state."""
        if self._state_is_tuple:
            return LSTMStateTuple(self._num_units, self._num_units)
        return 2 * self._num_units

    output_size = property(lambda self: self._num_units, doc="num_units.")

    def build(self, input_shape) -> None:
        """Creates ``kernel`` [depth + num_units, 4 * num_units] and a zero ``bias`` [4 * num_units]."""
        depth = input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        units = self._num_units
        self._kernel = self.add_weight(WEIGHTS_VARIABLE_NAME, shape=[depth + units, 4 * units])
        self._bias = self.add_weight(BIAS_VARIABLE_NAME, shape=[4 * units],
                                     initializer=initializers.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        """One step: gates ``i, j, f, o`` from one matmul; ``c' = c s(f + fb) + s(i) act(j)``, ``h' = act(c') s(o)``."""
        check_input_dtypes([inputs, state])
        one = constant_ops.constant(1, dtype=dtypes_lib.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_concat_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = linear(inputs, h, self._kernel, self._bias)
        i, j, f, o = array_concat_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias = constant_ops.constant(self._forget_bias, dtype=f.dtype)
        new_c = math_ops.add(math_ops.multiply(c, nn_ops.sigmoid(math_ops.add(f, forget_bias))),
                             math_ops.multiply(nn_ops.sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), nn_ops.sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, array_concat_ops.concat([new_c, new_h], 1)

    def get_config(self) -> dict:
        """The constructor arguments."""
        return {**super().get_config(), "num_units": self._num_units, "forget_bias": self._forget_bias,
                "state_is_tuple": self._state_is_tuple, "reuse": self._reuse}


class LSTMCell(LayerRNNCell):
    """The LSTM cell of Hochreiter & Schmidhuber with optional peepholes, cell clipping and an output projection."""

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip=None, initializer=None,
                 num_proj: int | None = None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias: float = 1.0, state_is_tuple: bool = True, activation=None, reuse=None,
                 name: str | None = None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        if not state_is_tuple:
            _concatenated_state_warning(self)
        if num_unit_shards is not None or num_proj_shards is not None:
            logging.warning("%s: The num_unit_shards and proj_unit_shards parameters are deprecated and will be "
                            "removed in Jan 2017.  Use a variable scope with a partitioner instead.", self)
        self.input_spec = base_layer.InputSpec(ndim=2)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation_or_tanh(activation)
        h_size = num_proj if num_proj else num_units
        self._state_size = (LSTMStateTuple(num_units, h_size) if state_is_tuple else num_units + h_size)
        self._output_size = h_size

    state_size = property(lambda self: self._state_size, doc="LSTMStateTuple(num_units, num_proj or num_units).")
    output_size = property(lambda self: self._output_size, doc="num_proj or num_units.")

    def build(self, input_shape) -> None:
        """Creates ``kernel``, ``bias``, the peephole diagonals and ``projection/kernel`` as configured."""
        depth = input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        units = self._num_units
        h_depth = units if self._num_proj is None else self._num_proj
        unit_partitioner = (partitioning.fixed_size_partitioner(self._num_unit_shards)
                            if self._num_unit_shards is not None else None)
        self._kernel = self.add_weight(WEIGHTS_VARIABLE_NAME, shape=[depth + h_depth, 4 * units],
                                       initializer=self._initializer, partitioner=unit_partitioner)
        # Built before any call (cell.build(shape)) the cell has no dtype yet: a dtype-less zeros initializer.
        self._bias = self.add_weight(BIAS_VARIABLE_NAME, shape=[4 * units],
                                     initializer=initializers.zeros_initializer() if self.dtype is None
                                     else initializers.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[units], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[units], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[units], initializer=self._initializer)
        if self._num_proj is not None:
            proj_partitioner = (partitioning.fixed_size_partitioner(self._num_proj_shards)
                                if self._num_proj_shards is not None else None)
            self._proj_kernel = self.add_weight(f"projection/{WEIGHTS_VARIABLE_NAME}", shape=[units, self._num_proj],
                                                initializer=self._initializer, partitioner=proj_partitioner)
        self.built = True

    def call(self, inputs, state):
        """One step; returns ``(m, LSTMStateTuple(c, m))`` with ``m`` projected and clipped as configured.

        Raises:
            ValueError: when the input depth is unknown.
        """
        check_input_dtypes([inputs, state])
        units = self._num_units
        num_proj = units if self._num_proj is None else self._num_proj
        sigmoid = nn_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_index_ops.slice(state, [0, 0], [-1, units])
            m_prev = array_index_ops.slice(state, [0, units], [-1, num_proj])
        if inputs.shape.with_rank(2).dims[1].value is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]."
                             f"Received input shape: {inputs.shape}")
        lstm_matrix = linear(inputs, m_prev, self._kernel, self._bias)
        i, j, f, o = array_concat_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        return m, (LSTMStateTuple(c, m) if self._state_is_tuple else array_concat_ops.concat([c, m], 1))

    def get_config(self) -> dict:
        """The constructor arguments."""
        return {**super().get_config(), "num_units": self._num_units, "use_peepholes": self._use_peepholes,
                "cell_clip": self._cell_clip, "num_proj": self._num_proj, "proj_clip": self._proj_clip,
                "num_unit_shards": self._num_unit_shards, "num_proj_shards": self._num_proj_shards,
                "forget_bias": self._forget_bias, "state_is_tuple": self._state_is_tuple, "reuse": self._reuse}
