"""TensorFlow's rnn suite: dynamic_rnn's argument checks, batch sizes, scalar/nested/TensorArray states,
initial states, cell builds and the BasicLSTMCell/LSTMCell checkpoint interchange.

Port of tensorflow/python/kernel_tests/nn_ops/rnn_test.py (tensorflow/tensorflow at 3ad95d03f266): the
same test methods, inputs and expected values, rewritten against ``harness.tf``; the benchmarks at the end
of the file are not tests and are left out.  The test cells subclass the bound backend's
``tf.nn.rnn_cell.RNNCell``, so they are made per test.  The original is Copyright 2015 The TensorFlow
Authors, licensed under the Apache License, Version 2.0.
"""

import os

import numpy as np

from tests.tf_suites.harness import TestCase, excluded, run_deprecated_v1, run_in_graph_and_eager_modes, \
    run_v1_only, tf


def _plus1_cell():
    class Plus1RNNCell(tf.nn.rnn_cell.RNNCell):
        """(output, new_state) = (input + 1, state + 1)."""

        @property
        def output_size(self):
            return 5

        @property
        def state_size(self):
            return 5

        def call(self, input_, state, scope=None):
            return input_ + 1, state + 1
    return Plus1RNNCell()


def _scalar_state_cell():
    class ScalarStateRNNCell(tf.nn.rnn_cell.RNNCell):
        """(output, new_state) = (input, state + 1) with an int32 scalar state."""

        @property
        def output_size(self):
            return 1

        @property
        def state_size(self):
            return tf.TensorShape([])

        def zero_state(self, batch_size, dtype):
            return tf.zeros([], dtype=tf.int32)

        def call(self, input_, state, scope=None):
            return input_, state + 1
    return ScalarStateRNNCell()


def _unbalanced_output_cell():
    class UnbalancedOutputRNNCell(tf.nn.rnn_cell.RNNCell):
        """Outputs (input, [input, input]) of sizes 1 and 2; a scalar counting state."""

        @property
        def output_size(self):
            return tf.TensorShape(1), tf.TensorShape((2))

        @property
        def state_size(self):
            return tf.TensorShape([])

        def zero_state(self, batch_size, dtype):
            return tf.zeros([], dtype=tf.int32)

        def call(self, input_, state, scope=None):
            concatenated = tf.concat((input_, input_), axis=-1)
            return (input_, concatenated), state + 1
    return UnbalancedOutputRNNCell()


def _tensor_array_state_cell():
    class TensorArrayStateRNNCell(tf.nn.rnn_cell.RNNCell):
        """Its state holds a counter and a TensorArray collecting the inputs."""

        @property
        def output_size(self):
            return 1

        @property
        def state_size(self):
            return (tf.TensorShape([]), ())

        def zero_state(self, batch_size, dtype):
            return (tf.zeros([], dtype=tf.int32), tf.TensorArray(dtype=dtype, size=0, dynamic_size=True))

        def call(self, input_, state, scope=None):
            new_array = state[1].write(state[0], input_)
            return input_, (state[0] + 1, new_array)
    return TensorArrayStateRNNCell()


class RNNTest(TestCase):

    def setUp(self):
        self._seed = 23489
        np.random.seed(self._seed)

    @run_in_graph_and_eager_modes
    def testInvalidSequenceLengthShape(self):
        cell = _plus1_cell()
        inputs = [tf.placeholder(tf.float32, shape=(3, 4))]
        with self.assertRaisesRegex(ValueError, "must be a vector"):
            tf.nn.dynamic_rnn(cell, tf.stack(inputs), dtype=tf.float32, sequence_length=[[4]])

    @run_in_graph_and_eager_modes
    def testInvalidDtype(self):
        inputs = tf.placeholder(tf.int32, shape=(3, 4, 5))
        for cell_cls in (tf.nn.rnn_cell.BasicRNNCell, tf.nn.rnn_cell.GRUCell, tf.nn.rnn_cell.BasicLSTMCell,
                         tf.nn.rnn_cell.LSTMCell):
            with self.cached_session():
                with self.assertRaisesRegex(ValueError, "RNN cell only supports floating"):
                    cell = cell_cls(2, dtype=tf.int32)
                    tf.nn.dynamic_rnn(cell, inputs, dtype=tf.int32)

    @run_in_graph_and_eager_modes
    def testBatchSizeFromInput(self):
        cell = _plus1_cell()
        # A static batch size, without and with an initial state.
        inputs = tf.placeholder(tf.float32, shape=(3, 4, 5))
        initial_state = tf.placeholder(tf.float32, shape=(3, 5))
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        self.assertEqual(3, outputs.shape[0])
        self.assertEqual(3, state.shape[0])
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, initial_state=initial_state)
        self.assertEqual(3, outputs.shape[0])
        self.assertEqual(3, state.shape[0])
        # An unknown batch size stays unknown.
        inputs = tf.placeholder(tf.float32, shape=(None, 4, 5))
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        self.assertEqual(None, outputs.shape.dims[0].value)
        self.assertEqual(None, state.shape.dims[0].value)
        outputs, state = tf.nn.dynamic_rnn(cell, inputs,
                                           initial_state=tf.placeholder(tf.float32, shape=(None, 5)))
        self.assertEqual(None, outputs.shape.dims[0].value)
        self.assertEqual(None, state.shape.dims[0].value)

    @run_in_graph_and_eager_modes
    def testScalarStateIsAccepted(self):
        cell = _scalar_state_cell()
        inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
        with self.cached_session() as sess:
            outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32, sequence_length=[4])
            outputs, state = sess.run([outputs, state], feed_dict={inputs: [[[1], [2], [3], [4]]]})
        self.assertAllEqual([[[1], [2], [3], [4]]], outputs)
        self.assertAllEqual(4, state)

    @run_in_graph_and_eager_modes
    def testUnbalancedOutputIsAccepted(self):
        cell = _unbalanced_output_cell()
        inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
        with self.cached_session() as sess:
            outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32, sequence_length=[4])
            outputs, state = sess.run([outputs, state], feed_dict={inputs: [[[1], [2], [3], [4]]]})
        self.assertIsInstance(outputs, tuple)
        self.assertAllEqual([[[1], [2], [3], [4]]], outputs[0])
        self.assertAllEqual([[[1, 1], [2, 2], [3, 3], [4, 4]]], outputs[1])
        self.assertAllEqual(4, state)

    testEagerMemory = excluded("eager: runs under context.eager_mode()",
                               "a TensorArray-state cell under dynamic_rnn leaks no Python objects eagerly")

    @run_in_graph_and_eager_modes
    @run_v1_only("b/120545219")
    def testTensorArrayStateIsAccepted(self):
        cell = _tensor_array_state_cell()
        inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
        with self.cached_session() as sess:
            outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32, sequence_length=[4])
            state = (state[0], state[1].stack())
            outputs, state = sess.run([outputs, state], feed_dict={inputs: [[[1], [2], [3], [4]]]})
        self.assertAllEqual([[[1], [2], [3], [4]]], outputs)
        self.assertAllEqual(4, state[0])
        self.assertAllEqual([[[1]], [[2]], [[3]], [[4]]], state[1])

    @run_deprecated_v1
    def testCellGetInitialState(self):
        cell = tf.nn.rnn_cell.BasicRNNCell(5)
        with self.assertRaisesRegex(ValueError, "batch_size and dtype cannot be None"):
            cell.get_initial_state(None, None, None)

        inputs = tf.placeholder(tf.float32, shape=(None, 4, 1))
        with self.assertRaisesRegex(ValueError, "batch size from input tensor is different from"):
            cell.get_initial_state(inputs=inputs, batch_size=50, dtype=None)
        with self.assertRaisesRegex(ValueError, "batch size from input tensor is different from"):
            cell.get_initial_state(inputs=inputs, batch_size=tf.constant(50), dtype=None)
        with self.assertRaisesRegex(ValueError, "dtype from input tensor is different from"):
            cell.get_initial_state(inputs=inputs, batch_size=None, dtype=tf.int16)

        initial_state = cell.get_initial_state(inputs=inputs, batch_size=None, dtype=None)
        self.assertEqual(initial_state.shape.as_list(), [None, 5])
        self.assertEqual(initial_state.dtype, inputs.dtype)

        batch = tf.shape(inputs)[0]
        initial_state = cell.get_initial_state(None, batch, inputs.dtype)
        self.assertEqual(initial_state.shape.as_list(), [None, 5])
        self.assertEqual(initial_state.dtype, inputs.dtype)

    def _assert_cell_builds(self, cell_class, dtype, batch_size, in_size, out_size):
        cell = cell_class(out_size, dtype=dtype)
        in_shape = tf.TensorShape((batch_size, in_size))
        cell.build(in_shape)
        state_output = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
        cell_output, _ = cell(tf.zeros(in_shape, dtype), state_output)
        self.assertAllEqual([batch_size, out_size], cell_output.shape.as_list())

    @run_in_graph_and_eager_modes
    def testCellsBuild(self):
        for cell_class in (tf.nn.rnn_cell.BasicRNNCell, tf.nn.rnn_cell.BasicLSTMCell, tf.nn.rnn_cell.GRUCell,
                           tf.nn.rnn_cell.LSTMCell):
            for dtype in (tf.float32, tf.float64):
                self._assert_cell_builds(cell_class, dtype, 5, 7, 3)

    @run_deprecated_v1
    def testBasicLSTMCellInterchangeWithLSTMCell(self):
        with self.session(graph=tf.Graph()) as sess:
            basic_cell = tf.nn.rnn_cell.BasicLSTMCell(1)
            basic_cell(tf.ones([1, 1]),
                       state=basic_cell.get_initial_state(inputs=None, batch_size=1, dtype=tf.float32))
            self.evaluate([v.initializer for v in basic_cell.variables])
            self.evaluate(basic_cell._bias.assign([10.] * 4))
            save = tf.train.Saver()
            prefix = os.path.join(self.get_temp_dir(), "ckpt")
            save_path = save.save(sess, prefix)

        with self.session(graph=tf.Graph()) as sess:
            lstm_cell = tf.nn.rnn_cell.LSTMCell(1, name="basic_lstm_cell")
            lstm_cell(tf.ones([1, 1]),
                      state=lstm_cell.get_initial_state(inputs=None, batch_size=1, dtype=tf.float32))
            self.evaluate([v.initializer for v in lstm_cell.variables])
            save = tf.train.Saver()
            save.restore(sess, save_path)
            self.assertAllEqual([10.] * 4, self.evaluate(lstm_cell._bias))
