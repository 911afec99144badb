"""TensorFlow's AdagradDAOptimizer suite, on both backends.

Port of tensorflow/python/training/adagrad_da_test.py (tensorflow/tensorflow at 1bbe35bfd037): the same
test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2016 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, run_deprecated_v1, tf



class AdagradDAOptimizerTest(TestCase):

    def _one_step(self, var0_init, var1_init, l1, l2, expected0, expected1, use_resource=False):
        """One AdagradDA step (lr 3.0, accumulator 0.1) with grads [0.1, 0.2] and [0.01, 0.02]."""
        for name in ("float64", "float32"):
            dtype = getattr(tf, name)
            with self.cached_session():
                global_step = tf.Variable(0, dtype=tf.int64)
                var0 = tf.Variable(var0_init, dtype=dtype, use_resource=use_resource)
                var1 = tf.Variable(var1_init, dtype=dtype, use_resource=use_resource)
                grads0 = tf.constant([0.1, 0.2], dtype=dtype)
                grads1 = tf.constant([0.01, 0.02], dtype=dtype)
                opt = tf.train.AdagradDAOptimizer(3.0, global_step, initial_gradient_squared_accumulator_value=0.1,
                                                  l1_regularization_strength=l1, l2_regularization_strength=l2)
                update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]), global_step=global_step)
                tf.global_variables_initializer().run()
                v0_val, v1_val = self.evaluate([var0, var1])
                self.assertAllCloseAccordingToType(var0_init, v0_val)
                self.assertAllCloseAccordingToType(var1_init, v1_val)
                update.run()
                v0_val, v1_val = self.evaluate([var0, var1])
                # w = sign(-g) * lr * |g - l1 * T|_+ / (l2 * T * lr + sqrt(k + gg)), with g the gradient
                # accumulator, gg the squared one, k its initial value, T the global step.
                self.assertAllCloseAccordingToType(np.array(expected0), v0_val)
                self.assertAllCloseAccordingToType(np.array(expected1), v1_val)

    @run_deprecated_v1
    def testAdagradDAWithoutRegularizationBasic1(self):
        self._one_step([0.0, 0.0], [0.0, 0.0], 0.0, 0.0, [-0.904534, -1.603567], [-0.094821, -0.189358])

    @run_deprecated_v1
    def testResourceAdagradDAWithoutRegularizationBasic1(self):
        self._one_step([0.0, 0.0], [0.0, 0.0], 0.0, 0.0, [-0.904534, -1.603567], [-0.094821, -0.189358],
                       use_resource=True)

    @run_deprecated_v1
    def testMinimizeSparseResourceVariable(self):
        for name in ("float32", "float64"):
            dtype = getattr(tf, name)
            with self.cached_session():
                var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)
                global_step = tf.Variable(0, dtype=tf.int64, use_resource=True)
                x = tf.constant([[4.0], [5.0]], dtype=dtype)
                pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                loss = pred * pred
                sgd_op = tf.train.AdagradDAOptimizer(1.0, global_step).minimize(loss)
                tf.global_variables_initializer().run()
                self.assertAllCloseAccordingToType([[1.0, 2.0]], self.evaluate(var0))
                sgd_op.run()
                self.assertAllCloseAccordingToType([[-1, -1]], self.evaluate(var0), rtol=0.01)

    @run_deprecated_v1
    def testAdagradDAwithoutRegularizationBasic2(self):
        self._one_step([1.0, 2.0], [4.0, 3.0], 0.0, 0.0, [-0.904534, -1.603567], [-0.094821, -0.189358])

    @run_deprecated_v1
    def testAdagradDAWithL1(self):
        self._one_step([1.0, 2.0], [4.0, 3.0], 0.001, 0.0, [-0.895489, -1.59555], [-0.085339, -0.17989])

    @run_deprecated_v1
    def testAdagradDAWithL1_L2(self):
        self._one_step([1.0, 2.0], [4.0, 3.0], 0.001, 2.0, [-0.046907, -0.093659], [-0.004275, -0.009023])
