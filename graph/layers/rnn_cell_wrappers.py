"""TF1's RNN cell wrappers: DropoutWrapper, ResidualWrapper, DeviceWrapper.

As TensorFlow 2.21's legacy wrappers (tf_keras/src/layers/rnn/legacy_cell_wrappers.py): a wrapper
calls the wrapped cell's ``__call__`` directly, so it adds no variable scope of its own (the
variables stay ``rnn/basic_lstm_cell/kernel``).  DropoutWrapper drops inputs, outputs and states
(an LSTM state only its ``h``) with ``tf.nn.dropout``, each tensor seeded by TF's md5 salt of the
wrapper's seed, or with one mask per sequence when ``variational_recurrent`` is set.
"""

from __future__ import annotations

import hashlib
import numbers

from graph.base import nest
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.layers.rnn_cell_impl import RNNCell, assert_like_rnncell
from graph.layers.rnn_cell_lstm import LSTMStateTuple
from graph.ops import array_concat_ops
from graph.ops import constant_ops
from graph.ops import math_ops
from graph.ops import nn_ops
from graph.ops import random_ops
from graph.ops.tensor_array_ops import TensorArray

__all__ = ["DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]


class _RNNCellWrapper(RNNCell):
    """Base of the wrappers: delegates sizes and the zero state to the wrapped ``cell``.

    As in TF 2.21, a wrapper lists none of the wrapped cell's weights as its own (``wrapper.variables == []``);
    they stay on the cell (``wrapper.wrapped_cell.variables``).
    """

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    def __call__(self, inputs, state, scope=None):
        """Runs the wrapped cell (through its own ``__call__``) with this wrapper's transformation."""
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__, scope=scope)

    state_size = property(lambda self: self.cell.state_size, doc="The wrapped cell's state size.")
    output_size = property(lambda self: self.cell.output_size, doc="The wrapped cell's output size.")

    def zero_state(self, batch_size, dtype):
        """The wrapped cell's zero state, under ``<Wrapper>ZeroState``."""
        with graph_lib.name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)


def _default_dropout_state_filter_visitor(substate):
    """TF's default: an LSTM state drops only ``h``; TensorArrays are never dropped."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    if isinstance(substate, TensorArray):
        return False
    return True


def _is_nested(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def _rebuild(like, items):
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)


def _filter_structure(visitor, structure):
    """The shallow structure of bools saying which parts of ``structure`` to drop (TF's get_traverse_shallow_structure).

    Raises:
        TypeError: when ``visitor`` answers with something other than a bool or a structure of bools.
    """
    decision = visitor(structure)
    if not _is_nested(structure):
        if not isinstance(decision, bool):
            raise TypeError(f"traverse_fn returned structure: {decision} for non-structure: {structure}")
        return decision
    if isinstance(decision, bool):
        if not decision:
            return False
        return _rebuild(structure, [_filter_structure(visitor, part) for part in structure])
    if not _is_nested(decision):
        raise TypeError(f"traverse_fn returned a non-bool scalar: {decision} for input: {structure}")
    parts = []
    for flag, part in zip(decision, structure):
        if not isinstance(flag, bool):
            raise TypeError(f"traverse_fn didn't return a depth=1 structure of bools.  saw: {flag}  for "
                            f"structure: {structure}")
        parts.append(_filter_structure(visitor, part) if flag else False)
    return _rebuild(structure, parts)


def _enumerated_map_up_to(shallow, function, *structures):
    """``function(i, *leaves)`` at each leaf of ``shallow`` (leaves of ``structures`` may be subtrees), ``i`` counting."""
    counter = [0]

    def visit(guide, *parts):
        if isinstance(guide, (list, tuple)):
            return _rebuild(guide, [visit(*group) for group in zip(guide, *parts)])
        result = function(counter[0], *parts)
        counter[0] += 1
        return result
    return visit(shallow, *structures)


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and (filtered) state; keep probabilities may be tensors."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent: bool = False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        """Wraps ``cell``.

        Raises:
            TypeError: a ``dropout_state_filter_visitor`` that is not callable.
            ValueError: a constant keep probability outside [0, 1]; ``variational_recurrent`` without
                ``dtype`` (or without ``input_size`` when inputs are dropped).
        """
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(f"dropout_state_filter_visitor must be callable. Received: {dropout_state_filter_visitor}")
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        with graph_lib.name_scope("DropoutWrapperInit"):
            for prob, attr in ((input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")):
                tensor = graph_lib.convert_to_tensor(prob)
                constant = constant_ops.constant_value(tensor)
                if constant is not None:
                    if constant < 0 or constant > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1. Received {constant}")
                    setattr(self, f"_{attr}", float(constant))
                else:
                    setattr(self, f"_{attr}", tensor)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = self._recurrent_state_noise = self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(size, inner_seed):
                shape = array_concat_ops.concat(([1], TensorShape(size).as_list()), 0)
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._recurrent_input_noise = _enumerated_map_up_to(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)), input_size)
            self._recurrent_state_noise = _enumerated_map_up_to(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)), cell.state_size)
            self._recurrent_output_noise = _enumerated_map_up_to(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)), cell.output_size)

    def _gen_seed(self, salt_prefix: str, index: int) -> int | None:
        # TF's per-tensor seed: the first 32 bits of md5(str(seed) + salt), made non-negative.
        if self._seed is None:
            return None
        text = (str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")
        return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF

    wrapped_cell = property(lambda self: self.cell, doc="The wrapped cell.")

    def build(self, input_shape) -> None:
        """Builds the wrapped cell."""
        self.cell.build(input_shape)
        self.built = True

    def _dropout(self, values, salt_prefix: str, recurrent_noise, keep_prob, shallow=None):
        shallow = values if shallow is None else shallow
        if not self._variational_recurrent:
            def drop(index, do_dropout, value):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_ops.dropout(value, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, index))
                return value
            return _enumerated_map_up_to(shallow, drop, shallow, values)

        def drop_variational(index, do_dropout, value, noise):
            if not isinstance(do_dropout, bool) or do_dropout:
                binary = math_ops.floor(keep_prob + noise)
                result = math_ops.divide(value, keep_prob) * binary
                result.set_shape(value.shape)
                return result
            return value
        return _enumerated_map_up_to(shallow, drop_variational, shallow, values, recurrent_noise)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(prob):
            return not isinstance(prob, float) or prob < 1
        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise, self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            shallow = _filter_structure(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise, self._state_keep_prob, shallow)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise, self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_RNNCellWrapper):
    """Adds the cell's input to its output (``residual_fn(inputs, outputs)`` if given)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            flat_inputs, flat_outputs = nest.flatten(inputs), nest.flatten(outputs)
            if nest.structure_signature(inputs) != nest.structure_signature(outputs):
                raise ValueError(f"The two structures don't have the same nested structure: {inputs} and {outputs}")
            for inp, out in zip(flat_inputs, flat_outputs):
                inp.shape.assert_is_compatible_with(out.shape)
            return nest.pack_sequence_as(inputs, [inp + out for inp, out in zip(flat_inputs, flat_outputs)])
        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """Runs the cell (and builds its zero state) on ``device``."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        """The wrapped cell's zero state, placed on the wrapper's device."""
        with graph_lib.name_scope(type(self).__name__ + "ZeroState"):
            with graph_lib.device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with graph_lib.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)

