"""TensorFlow's AdagradOptimizer suite, on both backends.

Port of tensorflow/python/training/adagrad_test.py (tensorflow/tensorflow at 05926e400081): the same
test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, tf

ALL_FLOATS = ("float16", "float32", "float64")
VAR0_AFTER_3 = [-1.6026098728179932, -0.6026098728179932]
VAR1_AFTER_3 = [2.715679168701172, 3.715679168701172]


class AdagradOptimizerTest(TestCase):

    def _dense_setup(self, dtype):
        var0 = tf.Variable([1.0, 2.0], dtype=dtype)
        var1 = tf.Variable([3.0, 4.0], dtype=dtype)
        grads0 = tf.constant([0.1, 0.1], dtype=dtype)
        grads1 = tf.constant([0.01, 0.01], dtype=dtype)
        return var0, var1, grads0, grads1

    def doTestBasic(self, use_locking=False, learning_rate=3.0):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.test_session():
                var0, var1, grads0, grads1 = self._dense_setup(dtype)
                rate = learning_rate() if callable(learning_rate) else learning_rate
                ada_opt = tf.train.AdagradOptimizer(rate, initial_accumulator_value=0.1, use_locking=use_locking)
                ada_update = ada_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                self.assertAllClose([1.0, 2.0], var0.eval())
                self.assertAllClose([3.0, 4.0], var1.eval())
                for _ in range(3):
                    ada_update.run()
                self.assertAllCloseAccordingToType(np.array(VAR0_AFTER_3), var0.eval())
                self.assertAllCloseAccordingToType(np.array(VAR1_AFTER_3), var1.eval())

    def testBasic(self):
        self.doTestBasic(use_locking=False)

    def testBasicLocked(self):
        self.doTestBasic(use_locking=True)

    def testTensorLearningRate(self):
        self.doTestBasic(learning_rate=lambda: tf.constant(3.0))

    def testSparseBasic(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.test_session():
                var0 = tf.Variable([[1.0], [2.0]], dtype=dtype)
                var1 = tf.Variable([[3.0], [4.0]], dtype=dtype)
                grads0 = tf.IndexedSlices(tf.constant([0.1], shape=[1, 1], dtype=dtype), tf.constant([0]),
                                          tf.constant([2, 1]))
                grads1 = tf.IndexedSlices(tf.constant([0.01], shape=[1, 1], dtype=dtype), tf.constant([1]),
                                          tf.constant([2, 1]))
                ada_opt = tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1)
                ada_update = ada_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                self.assertAllClose([[1.0], [2.0]], var0.eval())
                self.assertAllClose([[3.0], [4.0]], var1.eval())
                for _ in range(3):
                    ada_update.run()
                self.assertAllCloseAccordingToType(np.array([[-1.6026098728179932], [2.0]]), var0.eval())
                self.assertAllCloseAccordingToType(np.array([[3.0], [3.715679168701172]]), var1.eval())

    def testSparseRepeatedIndices(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.test_session():
                repeated_index_update_var = tf.Variable([[1.0], [2.0]], dtype=dtype)
                aggregated_update_var = tf.Variable([[1.0], [2.0]], dtype=dtype)
                grad_repeated_index = tf.IndexedSlices(tf.constant([0.1, 0.1], shape=[2, 1], dtype=dtype),
                                                       tf.constant([1, 1]), tf.constant([2, 1]))
                grad_aggregated = tf.IndexedSlices(tf.constant([0.2], shape=[1, 1], dtype=dtype),
                                                   tf.constant([1]), tf.constant([2, 1]))
                repeated_update = tf.train.AdagradOptimizer(3.0).apply_gradients(
                    [(grad_repeated_index, repeated_index_update_var)])
                aggregated_update = tf.train.AdagradOptimizer(3.0).apply_gradients(
                    [(grad_aggregated, aggregated_update_var)])
                tf.global_variables_initializer().run()
                self.assertAllClose(aggregated_update_var.eval(), repeated_index_update_var.eval())
                for _ in range(3):
                    repeated_update.run()
                    aggregated_update.run()
                    self.assertAllClose(aggregated_update_var.eval(), repeated_index_update_var.eval())

    def testSparseStability(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.test_session():
                shape = [1, 6]
                var0 = tf.Variable([[0.00872496, -0.106952, 0.110467, 0.226505, -0.0147257, -0.0105945]], dtype=dtype)
                grads0 = tf.IndexedSlices(
                    tf.constant([[-5.91278e-05, 5.31673e-05, -2.5779e-06, 4.29153e-05, -8.4877e-05, -9.48906e-05]],
                                shape=shape, dtype=dtype),
                    tf.constant([0]), tf.constant(shape))
                ada_opt = tf.train.AdagradOptimizer(1.0, initial_accumulator_value=0.1)
                ada_update = ada_opt.apply_gradients(zip([grads0], [var0]))
                self.assertEqual(["accumulator"], ada_opt.get_slot_names())
                slot0 = ada_opt.get_slot(var0, "accumulator")
                init = tf.global_variables_initializer()
                for _ in range(100):
                    init.run()
                    ada_update.run()
                    self.assertAllCloseAccordingToType(np.array([[0.1, 0.1, 0.1, 0.1, 0.1, 0.1]]), slot0.eval())
                    self.assertAllCloseAccordingToType(
                        np.array([[0.00891194, -0.10712013, 0.11047515, 0.22636929, -0.0144573, -0.01029443]]),
                        var0.eval())

    def testSharing(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.test_session():
                var0, var1, grads0, grads1 = self._dense_setup(dtype)
                ada_opt = tf.train.AdagradOptimizer(3.0)
                # Two applications of one optimizer share the accumulators.
                ada_update1 = ada_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                ada_update2 = ada_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                self.assertEqual(["accumulator"], ada_opt.get_slot_names())
                slot0 = ada_opt.get_slot(var0, "accumulator")
                self.assertEqual(slot0.get_shape(), var0.get_shape())
                slot1 = ada_opt.get_slot(var1, "accumulator")
                self.assertEqual(slot1.get_shape(), var1.get_shape())
                tf.global_variables_initializer().run()
                self.assertAllClose([1.0, 2.0], var0.eval())
                self.assertAllClose([3.0, 4.0], var1.eval())
                ada_update1.run()
                ada_update2.run()
                ada_update1.run()
                self.assertAllCloseAccordingToType(np.array(VAR0_AFTER_3), var0.eval())
                self.assertAllCloseAccordingToType(np.array(VAR1_AFTER_3), var1.eval())
