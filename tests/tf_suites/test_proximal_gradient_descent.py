"""TensorFlow's ProximalGradientDescentOptimizer suite, on both backends.

Port of tensorflow/python/training/proximal_gradient_descent_test.py (tensorflow/tensorflow at
1cd3573580cd): the same test methods, inputs and expected values, rewritten against ``harness.tf``.
The original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, tf



def apply_optimizer(test, opt, steps=5, is_sparse=False):
    """Runs ``opt`` ``steps`` times on two variables (dense or one-row sparse grads); returns their values."""
    if is_sparse:
        var0 = tf.Variable([[1.0], [2.0]])
        var1 = tf.Variable([[3.0], [4.0]])
        grads0 = tf.IndexedSlices(tf.constant([0.1], shape=[1, 1]), tf.constant([0]), tf.constant([2, 1]))
        grads1 = tf.IndexedSlices(tf.constant([0.02], shape=[1, 1]), tf.constant([1]), tf.constant([2, 1]))
    else:
        var0 = tf.Variable([1.0, 2.0])
        var1 = tf.Variable([3.0, 4.0])
        grads0 = tf.constant([0.1, 0.2])
        grads1 = tf.constant([0.01, 0.02])
    update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    tf.global_variables_initializer().run()
    sess = tf.get_default_session()
    v0_val, v1_val = sess.run([var0, var1])
    test.assertAllClose([[1.0], [2.0]] if is_sparse else [1.0, 2.0], v0_val)
    test.assertAllClose([[3.0], [4.0]] if is_sparse else [3.0, 4.0], v1_val)
    for _ in range(steps):
        update.run()
    return sess.run([var0, var1])


class ProximalGradientDescentOptimizerTest(TestCase):

    def _steps(self, var0_init, var1_init, steps, l1, l2, use_resource=False):
        with self.test_session() as sess:
            var0 = tf.Variable(var0_init, use_resource=use_resource)
            var1 = tf.Variable(var1_init, use_resource=use_resource)
            grads0 = tf.constant([0.1, 0.2])
            grads1 = tf.constant([0.01, 0.02])
            opt = tf.train.ProximalGradientDescentOptimizer(3.0, l1_regularization_strength=l1,
                                                            l2_regularization_strength=l2)
            update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
            tf.global_variables_initializer().run()
            v0_val, v1_val = sess.run([var0, var1])
            self.assertAllClose(var0_init, v0_val)
            self.assertAllClose(var1_init, v1_val)
            for _ in range(steps):
                update.run()
            return sess.run([var0, var1])

    def doTestProximalGradientDescentwithoutRegularization(self, use_resource=False):
        v0_val, v1_val = self._steps([0.0, 0.0], [0.0, 0.0], 3, 0.0, 0.0, use_resource)
        self.assertAllClose(np.array([-0.9, -1.8]), v0_val)
        self.assertAllClose(np.array([-0.09, -0.18]), v1_val)

    def testProximalGradientDescentwithoutRegularization(self):
        self.doTestProximalGradientDescentwithoutRegularization(use_resource=False)

    def testResourceProximalGradientDescentwithoutRegularization(self):
        self.doTestProximalGradientDescentwithoutRegularization(use_resource=True)

    def testProximalGradientDescentwithoutRegularization2(self):
        v0_val, v1_val = self._steps([1.0, 2.0], [4.0, 3.0], 3, 0.0, 0.0)
        self.assertAllClose(np.array([0.1, 0.2]), v0_val)
        self.assertAllClose(np.array([3.91, 2.82]), v1_val)

    def testMinimizeSparseResourceVariable(self):
        for name in ("float32", "float64"):
            dtype = getattr(tf, name)
            with self.test_session():
                var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)
                x = tf.constant([[4.0], [5.0]], dtype=dtype)
                pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                loss = pred * pred
                sgd_op = tf.train.ProximalGradientDescentOptimizer(1.0).minimize(loss)
                tf.global_variables_initializer().run()
                self.assertAllCloseAccordingToType([[1.0, 2.0]], var0.eval())
                sgd_op.run()
                self.assertAllCloseAccordingToType([[-111, -138]], var0.eval(), atol=0.01)

    def testProximalGradientDescentWithL1_L2(self):
        v0_val, v1_val = self._steps([1.0, 2.0], [4.0, 3.0], 10, 0.001, 2.0)
        self.assertAllClose(np.array([-0.0495, -0.0995]), v0_val)
        self.assertAllClose(np.array([-0.0045, -0.0095]), v1_val)

    def _equivalent(self, is_sparse):
        with self.test_session():
            val0, val1 = apply_optimizer(self, tf.train.ProximalGradientDescentOptimizer(
                3.0, l1_regularization_strength=0.0, l2_regularization_strength=0.0), is_sparse=is_sparse)
        with self.test_session():
            val2, val3 = apply_optimizer(self, tf.train.GradientDescentOptimizer(3.0), is_sparse=is_sparse)
        self.assertAllClose(val0, val2)
        self.assertAllClose(val1, val3)

    def testEquivSparseGradientDescentwithoutRegularization(self):
        self._equivalent(is_sparse=True)

    def testEquivGradientDescentwithoutRegularization(self):
        self._equivalent(is_sparse=False)
