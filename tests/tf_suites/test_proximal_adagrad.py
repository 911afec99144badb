"""TensorFlow's ProximalAdagradOptimizer suite, on both backends.

Port of tensorflow/python/training/proximal_adagrad_test.py (tensorflow/tensorflow at 11461ab3bb36): the
same test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, tf
from tests.tf_suites.test_proximal_gradient_descent import apply_optimizer



class ProximalAdagradOptimizerTest(TestCase):

    def _steps(self, var0_init, var1_init, steps, l1, l2):
        with self.test_session() as sess:
            var0 = tf.Variable(var0_init)
            var1 = tf.Variable(var1_init)
            grads0 = tf.constant([0.1, 0.2])
            grads1 = tf.constant([0.01, 0.02])
            opt = tf.train.ProximalAdagradOptimizer(3.0, initial_accumulator_value=0.1, l1_regularization_strength=l1,
                                                    l2_regularization_strength=l2)
            update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
            tf.global_variables_initializer().run()
            v0_val, v1_val = sess.run([var0, var1])
            self.assertAllClose(var0_init, v0_val)
            self.assertAllClose(var1_init, v1_val)
            for _ in range(steps):
                update.run()
            return sess.run([var0, var1])

    def doTestProximalAdagradwithoutRegularization(self, use_resource=False):
        # TensorFlow's helper accepts use_resource but builds reference variables either way.
        v0_val, v1_val = self._steps([0.0, 0.0], [0.0, 0.0], 3, 0.0, 0.0)
        self.assertAllClose(np.array([-2.60260963, -4.29698515]), v0_val)
        self.assertAllClose(np.array([-0.28432083, -0.56694895]), v1_val)

    def testProximalAdagradwithoutRegularization(self):
        self.doTestProximalAdagradwithoutRegularization(use_resource=False)

    def testResourceProximalAdagradwithoutRegularization(self):
        self.doTestProximalAdagradwithoutRegularization(use_resource=True)

    def testProximalAdagradwithoutRegularization2(self):
        v0_val, v1_val = self._steps([1.0, 2.0], [4.0, 3.0], 3, 0.0, 0.0)
        self.assertAllClose(np.array([-1.60261, -2.296985]), v0_val)
        self.assertAllClose(np.array([3.715679, 2.433051]), v1_val)

    def testMinimizeSparseResourceVariable(self):
        for name in ("float32", "float64"):
            dtype = getattr(tf, name)
            with self.test_session():
                var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)
                x = tf.constant([[4.0], [5.0]], dtype=dtype)
                pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                loss = pred * pred
                sgd_op = tf.train.ProximalAdagradOptimizer(1.0).minimize(loss)
                tf.global_variables_initializer().run()
                self.assertAllCloseAccordingToType([[1.0, 2.0]], var0.eval())
                sgd_op.run()
                self.assertAllCloseAccordingToType([[0, 1]], var0.eval(), atol=0.01)

    def testProximalAdagradWithL1(self):
        v0_val, v1_val = self._steps([1.0, 2.0], [4.0, 3.0], 10, 0.001, 0.0)
        self.assertAllClose(np.array([-6.663634, -9.190331]), v0_val)
        self.assertAllClose(np.array([2.959304, 1.029232]), v1_val)

    def testProximalAdagradWithL1_L2(self):
        v0_val, v1_val = self._steps([1.0, 2.0], [4.0, 3.0], 10, 0.001, 2.0)
        self.assertAllClose(np.array([-0.0495, -0.0995]), v0_val)
        self.assertAllClose(np.array([-0.0045, -0.0095]), v1_val)

    def _equivalent(self, is_sparse):
        with self.test_session():
            val0, val1 = apply_optimizer(self, tf.train.ProximalAdagradOptimizer(
                3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.0, l2_regularization_strength=0.0),
                is_sparse=is_sparse)
        with self.test_session():
            val2, val3 = apply_optimizer(self, tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1),
                                         is_sparse=is_sparse)
        self.assertAllClose(val0, val2)
        self.assertAllClose(val1, val3)

    def testEquivAdagradwithoutRegularization(self):
        self._equivalent(is_sparse=False)

    def testEquivSparseAdagradwithoutRegularization(self):
        self._equivalent(is_sparse=True)
